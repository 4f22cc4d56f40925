"""Running pass pipelines: parsing a pipeline string, expanding named pipelines,
verifying the IR after every pass (or once at the end), and the instrumentation of ``relax-opt``
(print the IR before/after passes, time them)."""

from __future__ import annotations

import difflib
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException

from xrelax.dialects.ir.diagnostics import Diagnostic, IRError, op_diagnostic, verify_module
from xrelax.dialects.ir.gc_pause import paused_gc
from xrelax.transforms import all_passes
from xrelax.transforms.plugins import describe_exception


class PipelineError(ValueError):
    """A pipeline string that names an unknown pass or gives bad options."""


class PassFailure(Exception):
    """A pass failed, or left invalid IR; ``error`` is the diagnostic, ``pass_name`` the pass."""

    def __init__(self, pass_name: str, error: Exception, invalid_ir: bool) -> None:
        super().__init__(str(error))
        self.pass_name = pass_name
        self.error = error
        self.invalid_ir = invalid_ir

    def diagnostic(self) -> Diagnostic:
        """The one-line diagnostic: at the op at fault if any (as the pass reports it, or
        naming the pass that left it invalid), else naming the pass."""
        op = getattr(self.error, "op", None)
        message = getattr(self.error, "message", None) or str(self.error).split("\n", 1)[0]
        if op is None:
            return Diagnostic("error", f"pass '{self.pass_name}' failed: {message}")
        diagnostic = op_diagnostic(op, message)
        if self.invalid_ir:
            diagnostic.message = (
                f"pass '{self.pass_name}' produced invalid IR: {diagnostic.message}"
            )
        return diagnostic


class PipelinePass(ModulePass):
    """A named pipeline: a pass that stands for a sequence of passes.

    The pass manager expands it, so instrumentation sees every component.
    """

    def passes(self) -> list[ModulePass]:
        """The component passes, in order."""
        raise NotImplementedError

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for component in self.passes():
            component.apply(ctx, op)


def parse_passes(
    spec: str, available: dict[str, Callable[[], type[ModulePass]]] | None = None
) -> list[ModulePass]:
    """The passes of a pipeline string ``a,b{opt=1},c``, named pipelines expanded."""
    if available is None:
        available = all_passes()
    spec = flatten_anchors(spec)
    if not spec.strip():
        return []
    try:
        specs = list(parse_pipeline(spec))
    except ValueError as err:  # a number Python will not convert (more than 4300 digits)
        raise PipelineError(f"malformed pass pipeline: {err}") from None
    except ArgSpecParseError as err:
        # xDSL's message is several lines (location, source, caret, message): one line
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        where = lines[1].rsplit(":", 1)[-1] if len(lines) > 1 else "?"
        shown = spec if len(spec) <= 80 else spec[:77] + "..."
        raise PipelineError(
            f"malformed pass pipeline '{shown}' at character {where}: {lines[-1]}"
        ) from None
    passes: list[ModulePass] = []
    for arg_spec in specs:
        factory = available.get(arg_spec.name)
        if factory is None:
            close = difflib.get_close_matches(arg_spec.name, available, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise PipelineError(
                f"unknown pass '{arg_spec.name}'{hint} (available: {', '.join(sorted(available))})"
            )
        try:
            instance = factory().from_spec(arg_spec)
        except (ValueError, TypeError) as err:
            raise PipelineError(f"bad options for pass '{arg_spec.name}': {err}") from None
        passes.extend(expand(instance))
    return passes


ANCHORS = ("builtin.module", "relax.func", "func.func", "tir.prim_func", "vm.func", "any")
"""The operations MLIR's textual pipelines nest passes under: every xrelax pass works
on the whole module (each pass visits the functions it applies to)."""


def flatten_anchors(spec: str) -> str:
    """MLIR's nested pipeline ``builtin.module(a, relax.func(b{x=1}), c)`` as the flat
    ``a,b{x=1},c`` of the passes it names: an anchor is one of :data:`ANCHORS`."""
    out: list[str] = []
    depth_braces = 0
    quote = ""
    opened: list[bool] = []
    """Per open parenthesis: whether it belongs to an anchor (dropped from the text)."""
    word = ""
    for char in spec:
        if quote:
            out.append(char)
            quote = "" if char == quote else quote
            continue
        if char == '"':
            quote = char
        elif char == "{":
            depth_braces += 1
        elif char == "}":
            depth_braces -= 1
        elif char == "(" and depth_braces == 0:
            name = word.strip()
            if name not in ANCHORS:
                raise PipelineError(
                    f"malformed pass pipeline: '{name}(' nests passes under an operation; "
                    f"expected one of {', '.join(ANCHORS)}"
                )
            del out[len(out) - len(word) :]
            opened.append(True)
            word = ""
            continue
        elif char == ")" and depth_braces == 0:
            if not opened:
                raise PipelineError("malformed pass pipeline: unbalanced ')'")
            opened.pop()
            word = ""
            continue
        out.append(char)
        word = "" if char in ", " or depth_braces else word + char
    if opened:
        raise PipelineError("malformed pass pipeline: unbalanced '('")
    return ",".join(part.strip() for part in _top_level_split("".join(out)) if part.strip())


def _top_level_split(spec: str) -> list[str]:
    """``spec`` split at the commas outside braces and quotes."""
    parts, current, depth, quote = [], [], 0, ""
    for char in spec:
        if quote:
            quote = "" if char == quote else quote
        elif char == '"':
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


Pipeline = str | Sequence[str | ModulePass | type[ModulePass]]
"""A pipeline string, or a list mixing pipeline strings, pass instances and pass
classes (run with their default options)."""


def resolve_pipeline(pipeline: Pipeline) -> list[ModulePass]:
    """The passes of ``pipeline``, named pipelines expanded."""
    if isinstance(pipeline, str):
        return parse_passes(pipeline)
    passes: list[ModulePass] = []
    for item in pipeline:
        if isinstance(item, str):
            passes.extend(parse_passes(item))
        elif isinstance(item, ModulePass):
            passes.extend(expand(item))
        elif isinstance(item, type) and issubclass(item, ModulePass):
            passes.extend(expand(item()))
        else:
            raise PipelineError(
                f"a pipeline element must be a pass name or a ModulePass, got {item!r}"
            )
    return passes


def expand(pass_: ModulePass) -> list[ModulePass]:
    """A pass, or the passes of a named pipeline, recursively."""
    if isinstance(pass_, PipelinePass):
        return [p for component in pass_.passes() for p in expand(component)]
    return [pass_]


@dataclass
class Instrumentation:
    """What to report around each pass (the ``relax-opt`` debugging flags): the IR
    before/after the named passes or all of them, to ``stream``, in the generic form
    if ``generic``; with ``timings`` a list, each pass's ``(name, seconds)`` is
    appended to it (:meth:`timing_report` formats them as ``--time-passes`` does)."""

    print_before: set[str] = field(default_factory=set)
    print_after: set[str] = field(default_factory=set)
    print_before_all: bool = False
    print_after_all: bool = False
    generic: bool = False
    stream: TextIO = sys.stderr
    timings: list[tuple[str, float]] | None = None

    def _dump(self, when: str, pass_: ModulePass, module: ModuleOp) -> None:
        self.stream.write(f"// -----// IR Dump {when} {pass_.name} //----- //\n")
        Printer(stream=self.stream, print_generic_format=self.generic).print_op(module)
        self.stream.write("\n\n")

    def before(self, pass_: ModulePass, module: ModuleOp) -> None:
        if self.print_before_all or pass_.name in self.print_before:
            self._dump("Before", pass_, module)

    def after(self, pass_: ModulePass, module: ModuleOp, seconds: float) -> None:
        if self.timings is not None:
            self.timings.append((pass_.name, seconds))
        if self.print_after_all or pass_.name in self.print_after:
            self._dump("After", pass_, module)

    def timing_report(self) -> str:
        """The ``--time-passes`` table of :attr:`timings` (each name's total)."""
        totals: dict[str, float] = {}
        for name, seconds in self.timings or []:
            totals[name] = totals.get(name, 0.0) + seconds
        total = sum(totals.values()) or 1e-12
        rule = "===" + "-" * 73 + "==="
        lines = [rule, f"{'... Execution time report ...':^79}", rule]
        lines += [f"  Total Execution Time: {total:.4f} seconds", ""]
        lines.append("  ----Wall Time----  ----Name----")
        for name, seconds in totals.items():
            lines.append(f"  {seconds:8.4f} ({100 * seconds / total:5.1f}%)  {name}")
        lines.append(f"  {total:8.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


PIPELINE_END = "(end of pipeline)"
"""The ``pass_name`` of a :class:`PassFailure` found by the one verification at the end."""


def run_passes(
    ctx: Context,
    module: ModuleOp,
    passes: Sequence[ModulePass],
    instrumentation: Instrumentation | None = None,
    verify: bool = True,
    verify_each: bool = True,
) -> None:
    """Apply ``passes`` in order, verifying the IR after each one (``verify_each``, as
    mlir-opt does) or once after the last (about half the compile time of a large module).

    Raises :class:`PassFailure` naming the pass that failed or produced invalid IR
    (:data:`PIPELINE_END` when only the final verification saw it).
    """
    with paused_gc():
        for pass_ in passes:
            if instrumentation is not None:
                instrumentation.before(pass_, module)
            start = time.perf_counter()
            try:
                pass_.apply(ctx, module)
            except DiagnosticException as err:
                raise PassFailure(pass_.name, err, invalid_ir=False) from err
            except Exception as err:
                if _is_builtin(pass_):
                    raise
                raise PassFailure(pass_.name, _user_pass_error(err), invalid_ir=False) from err
            elapsed = time.perf_counter() - start
            if verify and verify_each:
                _verify_after(pass_.name, module)
            if instrumentation is not None:
                instrumentation.after(pass_, module, elapsed)
        if verify and not verify_each and passes:
            _verify_after(PIPELINE_END, module)


def _is_builtin(pass_: ModulePass) -> bool:
    """True for xrelax's and xDSL's passes: what they raise is an internal error."""
    return type(pass_).__module__.split(".", 1)[0] in ("xrelax", "xdsl")


def _user_pass_error(err: Exception) -> Exception:
    """What a user's pass raised, as one line naming the user's file and line."""
    return RuntimeError(f"raised {describe_exception(err)}")


def _verify_after(pass_name: str, module: ModuleOp) -> None:
    try:
        verify_module(module)
    except IRError as err:
        raise PassFailure(pass_name, err, invalid_ir=True) from err
