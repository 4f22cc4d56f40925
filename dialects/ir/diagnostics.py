"""Located diagnostics: source locations on parsed ops, errors attached to ops,
and a module verifier that reports the failing op with its location.

A diagnostic prints MLIR-style, one line first::

    file.mlir:4:10: error: 'relax.add' op shapes [n, 3] and [n, 4] cannot broadcast
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Span

from xrelax.dialects.ir.gc_pause import paused_gc
from xrelax.dialects.ir.symbol_index import indexed
from xrelax.dialects.ir.syntax import memoised_type
from xrelax.dialects.ir.xdsl_workarounds import WorkaroundParser
from xrelax.dialects.traits import DeducesFromOperandShapes


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


def _is_blank(text: str) -> bool:
    """True when ``text`` holds only whitespace and ``//`` comments."""
    return all(not line.strip() or line.lstrip().startswith("//") for line in text.splitlines())


class LocatingParser(WorkaroundParser):
    """An xDSL parser that records each parsed op's ``file:line:col`` and reports errors
    at their location (xDSL's faults it needs fixed are in :class:`WorkaroundParser`).

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
        """Parse; a value used but never defined is reported at its first use, and
        blank input (whitespace and comments) is an empty module.

        Input nested more than :data:`MAX_NESTING` brackets deep is refused before
        parsing: every stage that follows (parser, verifier, passes, printer,
        interpreter) recurses over nesting, and this bound keeps them all within
        Python's recursion limit."""
        if allow_implicit_module and _is_blank(self.lexer.input.content):
            # xDSL's parser wants at least one op (mlir-opt reads blank input as a module).
            return ModuleOp([])
        too_deep = nesting_overflow(self.lexer.input.content)
        if too_deep is not None:
            self.raise_error(
                f"nested too deeply (more than {MAX_NESTING} levels of brackets, "
                "braces and regions)",
                too_deep,
                too_deep + 1,
            )
        try:
            with paused_gc():
                return super().parse_module(allow_implicit_module)
        except ParseError as err:
            explained = self._deduced_type_mismatch(err)
            if explained is not None:
                raise ParseError(err.span, explained) from None
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

    def _deduced_type_mismatch(self, err: ParseError) -> str | None:
        """xDSL's "operand is used with type T, but has been previously used or defined
        with type U", when an operator deduced U: the message names the operator, where it
        is, and the dims that kept it from deducing more (``n`` and ``m`` of a broadcast
        not provably equal)."""
        if not err.msg.startswith("operand is used with type "):
            return None
        name, _, index = err.span.text.lstrip("%").partition("#")
        values = self.ssa_values.get(name)
        if not values or not index.isdigit() and index:
            return None
        value = values[int(index or 0)]
        owner = value.owner
        where = op_location(owner) if isinstance(owner, Operation) else None
        if where is None:
            return None
        used = err.msg.removeprefix("operand is used with type ").split(", but ")[0]
        message = (
            f"%{name} is used as {used}, but it is {str(value.type)} (the result of "
            f"{owner.name} at {where.line}:{where.column})"
        )
        deduced = owner.get_trait(DeducesFromOperandShapes)
        unrelated = deduced.unrelated_dims(owner) if deduced is not None else None
        if unrelated is None:
            return message
        axis, dims = unrelated
        shown = " and ".join(str(d) for d in dims)
        return (
            f"{message}: {owner.name} cannot relate dimension {axis} of its operands, {shown} "
            "(neither is provably equal to the other or 1); state how they relate with "
            "relax.match_shape"
        )

    def parse_dense_int_or_fp_elements_attr(self, type):  # noqa: A002 - xDSL's signature
        """xDSL's (a splat stored once: :class:`WorkaroundParser`); a value the element
        type cannot hold is a located error rather than a ValueError or OverflowError."""
        start = self.pos
        try:
            return super().parse_dense_int_or_fp_elements_attr(type)
        except (ValueError, OverflowError) as err:  # xDSL's range checks of the values
            self.raise_error(str(err), start, self.pos)

    def parse_optional_attribute(self) -> Attribute | None:
        """xDSL's; a value an attribute cannot hold (``1e40 : f16``, ``300 : i8``) is a
        located error rather than the constructor's ValueError or OverflowError."""
        start = self.pos
        try:
            return super().parse_optional_attribute()
        except (ValueError, OverflowError) as err:
            self.raise_error(str(err).split("\n", 1)[0], start, max(self.pos, start + 1))
        except NotImplementedError:
            # xDSL's dense array cannot store an element type wider than 64 bits (i128)
            if not self.lexer.input.content.startswith("array<", start):
                raise
            self.raise_error("dense array element type wider than 64 bits", start, self.pos)

    def parse_optional_type(self) -> Attribute | None:
        """xDSL's, with the same located errors as :meth:`parse_optional_attribute`; a
        flat dialect type seen before is looked up by its text (:func:`memoised_type`:
        declarative formats parse their types here)."""
        start = self.pos
        try:
            return memoised_type(self, super().parse_optional_type)
        except (ValueError, OverflowError) as err:
            self.raise_error(str(err).split("\n", 1)[0], start, max(self.pos, start + 1))

    def parse_operation(self) -> Operation:
        start = self.pos
        op = super().parse_operation()
        if not isinstance(op.location, FileLineColLoc):
            loc = self.location_of(start)
            op.location = FileLineColLoc(
                StringAttr(loc.file), IntAttr(loc.line), IntAttr(loc.column)
            )
        return op


MAX_NESTING = 64
"""How deeply regions, types, attributes and expressions may nest in textual IR
(ten times what the examples use; each level costs the parser up to 8 Python frames)."""

_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->|<=|<\s|[\[\](){}<>]')


def nesting_overflow(text: str) -> int | None:
    """The offset of the first bracket nested deeper than :data:`MAX_NESTING` in
    ``text``, or None. Strings, comments, ``->`` and the relations ``<=`` and ``< ``
    (``tir.assert``) are skipped; a closing bracket never takes the depth below 0."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        char = match.group()
        if char in "([{<":
            depth += 1
            if depth > MAX_NESTING:
                return match.start()
        elif char in ")]}>":
            depth = max(depth - 1, 0)
    return None


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


class SourceError(Exception):
    """An input file that is not text."""


def decode_source(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; a binary file is a one-line :class:`SourceError` naming
    the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise SourceError(
            f"'{name}' is not UTF-8 text (byte 0x{data[err.start]:02x} at line {line}, "
            f"offset {err.start})"
        ) from None


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


def parse_source(
    ctx: Context, text: str, name: str, line_offset: int = 0, implicit_module: bool = True
) -> ModuleOp:
    """Parse a module from ``text`` (of file ``name``, its first line numbered
    ``line_offset + 1``); bad input is a :class:`CompileError` with the located
    diagnostic (the parser's, or that of an op refused while it was built)."""
    parser = None
    try:
        parser = LocatingParser(ctx, text, name, line_offset)
        return parser.parse_module(implicit_module)
    except ParseError as err:
        raise CompileError(parse_error_diagnostic(err, line_offset)) from None
    except LocatedParseError as err:
        raise CompileError(err.diagnostic) from None
    except VerifyException as err:
        location = parser.location_of(parser.pos) if parser is not None else None
        raise CompileError(Diagnostic("error", str(err), location)) from None


def verify_module(module: Operation) -> None:
    """Verify ``module``, raising :class:`IRError` that names the first failing op.

    Ops are verified in pre-order (an op before the ops nested in it), as MLIR's
    verifier does, so a function's signature is checked before its body.
    """
    with indexed(module):
        for op in module.walk():
            _verify_op(op)


def _verify_op(op: Operation) -> None:
    try:
        op.verify(verify_nested_ops=False)
    except IRError:
        raise
    except VerifyException as err:
        raise IRError(op, _strip_prefix(str(err).split("\n", 1)[0])) from None
    except Exception:
        # A verifier that walks its body read an op not verified yet (a property
        # missing, a region empty): that op's own error is the one to report.
        for inner in op.walk():
            if inner is not op:
                _verify_op(inner)
        raise


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
