"""Located diagnostics: source locations on parsed ops, errors attached to ops,
and a module verifier that reports the failing op with its location.

A diagnostic prints MLIR-style, one line first::

    file.mlir:4:10: error: 'relax.add' op shapes [n, 3] and [n, 4] cannot broadcast
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Span

from xrelax.gc_pause import paused_gc


@dataclass(frozen=True)
class Location:
    """A position in a source file (1-based line and column)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass
class Diagnostic:
    """One message of a given severity at an optional location."""

    severity: str  # "error" | "warning" | "note" | "remark"
    message: str
    location: Location | None = None
    source_line: str | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        text = f"{where}{self.severity}: {self.message}"
        if self.source_line is not None and self.location is not None:
            caret = " " * (self.location.column - 1) + "^"
            text += f"\n{self.source_line}\n{caret}"
        return text


class IRError(VerifyException):
    """An error about a specific operation (raised by verifiers and passes)."""

    def __init__(self, op: Operation, message: str) -> None:
        super().__init__(message)
        self.op = op
        self.message = message


class LocatedParseError(Exception):
    """A parse error found after parsing, at a known location."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


class CompileError(DiagnosticException):
    """The error of the Python API: its message is the located one-line diagnostic;
    ``diagnostic`` holds the full :class:`Diagnostic`."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic).split("\n", 1)[0])
        self.diagnostic = diagnostic


def op_location(op: Operation) -> Location | None:
    """The source location of ``op`` (or of its closest located ancestor)."""
    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return Location(loc.filename.data, loc.line.data, loc.column.data)
        current = current.parent_op()
    return None


class LocatingParser(Parser):
    """An xDSL parser that records each parsed op's ``file:line:col``.

    ``line_offset`` shifts line numbers for chunks of a split input file.
    """

    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self.file_name = name
        self.line_offset = line_offset
        self._line_starts = _line_starts(text)

    def location_of(self, position: int) -> Location:
        """The location of a character offset in the input."""
        line = _bisect_right(self._line_starts, position)
        column = position - self._line_starts[line - 1] + 1
        return Location(self.file_name, line + self.line_offset, column)

    def parse_module(self, allow_implicit_module: bool = True):
        """Parse; a value used but never defined is reported at its first use."""
        try:
            with paused_gc():
                return super().parse_module(allow_implicit_module)
        except ParseError:
            undefined = self.forward_ssa_references
            if not undefined:
                raise
            name, values = next(iter(undefined.items()))
            uses = [use.operation for value in values.values() for use in value.uses]
            loc = op_location(uses[0]) if uses else None
            message = (
                f"use of undefined value %{name} (values of a region, such as the dataflow "
                "values of a relax.dataflow, are not visible outside it)"
            )
            if loc is None:
                raise
            raise LocatedParseError(Diagnostic("error", message, loc)) from None

    def _parse_builtin_densearray_attr(self) -> Attribute | None:
        """xDSL's, with a located error for an element type it cannot store (``i128``)."""
        start = self.pos
        try:
            return super()._parse_builtin_densearray_attr()
        except NotImplementedError:
            self.raise_error("dense array element type wider than 64 bits", start, self.pos)

    def parse_operation(self) -> Operation:
        start = self.pos
        op = super().parse_operation()
        if not isinstance(op.location, FileLineColLoc):
            loc = self.location_of(start)
            op.location = FileLineColLoc(
                StringAttr(loc.file), IntAttr(loc.line), IntAttr(loc.column)
            )
        return op


def _line_starts(text: str) -> list[int]:
    starts = [0]
    index = text.find("\n")
    while index != -1:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def _bisect_right(values: list[int], x: int) -> int:
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if x < values[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def source_line(text: str, line: int) -> str | None:
    """Line ``line`` (1-based) of ``text``."""
    lines = text.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else None


def parse_error_diagnostic(err: ParseError, line_offset: int = 0) -> Diagnostic:
    """The diagnostic of an xDSL parse error."""
    span: Span = err.span
    where = span.get_location()
    message = err.msg.replace("{first_char}", repr(span.text[:1]))  # an xDSL f-string slip
    return Diagnostic(
        "error",
        message,
        Location(where.file, where.line + line_offset, where.col),
        source_line(span.input.content, where.line),
    )


def op_diagnostic(op: Operation, message: str, severity: str = "error") -> Diagnostic:
    """A diagnostic about ``op``: ``'<op name>' op <message>`` at its location."""
    return Diagnostic(severity, f"'{op.name}' op {message}", op_location(op))


def verify_module(module: Operation) -> None:
    """Verify ``module``, raising :class:`IRError` that names the first failing op.

    Ops are verified in pre-order (an op before the ops nested in it), as MLIR's
    verifier does, so a function's signature is checked before its body.
    """
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except IRError:
            raise
        except VerifyException as err:
            raise IRError(op, _strip_prefix(str(err).split("\n", 1)[0])) from None


def _strip_prefix(message: str) -> str:
    prefix = "Operation does not verify: "
    return message[len(prefix) :] if message.startswith(prefix) else message


_handlers: list[list[Diagnostic]] = []


def emit_warning(op: Operation, message: str) -> None:
    """Report a warning about ``op`` (collected by the driver, else printed to stderr)."""
    _emit(op_diagnostic(op, message, "warning"))


def emit_remark(op: Operation, message: str) -> None:
    """Report a remark (information) about ``op``."""
    _emit(op_diagnostic(op, message, "remark"))


def _emit(diagnostic: Diagnostic) -> None:
    if _handlers:
        _handlers[-1].append(diagnostic)
    else:
        import sys

        print(diagnostic, file=sys.stderr)


class collect_warnings:  # noqa: N801 - used as a context manager like contextlib helpers
    """``with collect_warnings() as found:`` gathers the warnings emitted inside."""

    def __enter__(self) -> list[Diagnostic]:
        self.found: list[Diagnostic] = []
        _handlers.append(self.found)
        return self.found

    def __exit__(self, *exc: object) -> None:
        _handlers.remove(self.found)
