"""``relax-opt``: the opt-style driver over relax, tir and vm IR (docs/design.md §8).

mlir-opt conventions on top of xDSL's ``xDSLOptMain``: ``-p`` pipelines with options,
``--split-input-file``, ``--print-op-generic``, stdin input, ``-o``; MLIR's
``--verify-diagnostics`` (``expected-error`` annotations), the IR verified after
every pass, ``--print-ir-before/after(-all)`` and a ``--time-passes`` report;
``--load-pass-plugin FILE.py`` loads passes a user registers by name.
Bad input gives a located one-line diagnostic and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
import traceback
from collections.abc import Sequence
from importlib.metadata import version

from xdsl.dialects.builtin import ModuleOp
from xdsl.xdsl_opt_main import xDSLOptMain

from xrelax.dialects.ir.diagnostics import (
    CompileError,
    Diagnostic,
    IRError,
    SourceError,
    collect_warnings,
    decode_source,
    op_diagnostic,
    parse_source,
    verify_module,
)
from xrelax.tools.cli import one_line_errors, stdout_closed
from xrelax.tools.expected_diagnostics import check_diagnostics, parse_expectations
from xrelax.transforms.pass_manager import (
    Instrumentation,
    PassFailure,
    PipelineError,
    parse_passes,
    run_passes,
)
from xrelax.transforms.plugins import PluginError

SPLIT_MARKER = "// -----"


def _mlir(flag: str) -> list[str]:
    """MLIR's spellings of a flag: ``--flag`` and ``-flag``."""
    return [f"--{flag}", f"-{flag}"]


class RelaxOptMain(xDSLOptMain):
    """The relax-opt driver (``main`` is the console entry point)."""

    def __init__(self, args: Sequence[str] | None = None) -> None:
        super().__init__(description="xrelax modular optimizer driver", args=args)

    def register_all_dialects(self) -> None:
        from xrelax.ops.registry import all_dialects

        for name, factory in all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        from xrelax.transforms import all_passes

        for name, factory in all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        """Only ``mlir``: xDSL's other targets print dialects relax IR never lowers to."""
        super().register_all_targets()
        self.available_targets = {"mlir": self.available_targets["mlir"]}

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        one_line_errors(arg_parser, "relax-opt")
        # ``-t`` takes exactly "mlir" (its printing options are flags): xDSL would parse
        # anything else as a target spec and raise a BaseException on a malformed one
        parse_args = arg_parser.parse_args

        def parse_target_checked(*args, **kwargs) -> argparse.Namespace:
            parsed = parse_args(*args, **kwargs)
            if parsed.target not in self.available_targets:
                choices = ", ".join(repr(name) for name in self.available_targets)
                close = difflib.get_close_matches(parsed.target, list(self.available_targets))
                arg_parser.error(
                    f"argument -t/--target: invalid choice: {parsed.target!r} "
                    f"(choose from {choices})" + (f"; did you mean {close[0]!r}?" if close else "")
                )
            return parsed

        arg_parser.parse_args = parse_target_checked  # type: ignore[method-assign]
        arg_parser.add_argument(
            "--load-pass-plugin",
            action="append",
            default=[],
            metavar="FILE.py",
            help="load a Python file that registers passes (@xrelax.register_pass); repeatable",
        )
        arg_parser.add_argument(
            "--print-ir-after-all",
            *_mlir("mlir-print-ir-after-all"),
            action="store_true",
            help="print the IR after every pass",
        )
        arg_parser.add_argument(
            "--print-ir-before-all",
            *_mlir("mlir-print-ir-before-all"),
            action="store_true",
            help="print the IR before every pass",
        )
        arg_parser.add_argument(
            "--print-ir-after",
            *_mlir("mlir-print-ir-after"),
            default="",
            metavar="PASS[,PASS]",
            help="print the IR after the named passes",
        )
        arg_parser.add_argument(
            "--print-ir-before",
            *_mlir("mlir-print-ir-before"),
            default="",
            metavar="PASS[,PASS]",
            help="print the IR before the named passes",
        )
        # MLIR's spellings of xDSL's flags (mlir-opt takes each with one dash or two)
        aliases = {
            "pass-pipeline": ("passes", "store", "a pipeline, as -p or builtin.module(...)"),
            "mlir-timing": ("time_passes", "store_true", "as --time-passes"),
            "mlir-print-op-generic": ("print_op_generic", "store_true", "as --print-op-generic"),
            "split-input-file": ("split_input_file", "store_true", None),
            "verify-diagnostics": ("verify_diagnostics", "store_true", None),
            "allow-unregistered-dialect": ("allow_unregistered_dialect", "store_true", None),
            "mlir-disable-threading": ("disable_threading", "store_true", "accepted; no effect"),
        }
        for flag, (dest, action, shown) in aliases.items():
            spellings = [f"-{flag}"] if shown is None else [f"--{flag}", f"-{flag}"]
            arg_parser.add_argument(
                *spellings,
                dest=dest,
                action=action,
                default=argparse.SUPPRESS,
                help=argparse.SUPPRESS if shown is None else shown,
            )

    def setup_pipeline(self) -> None:
        from xrelax.transforms import load_pass_plugin, user_passes

        for path in self.args.load_pass_plugin:
            load_pass_plugin(path)
        for name, factory in user_passes().items():
            self.available_passes[name] = factory
        self.passes = parse_passes(self.args.passes, self.available_passes)
        for flag in ("print_ir_after", "print_ir_before"):
            for name in filter(None, getattr(self.args, flag).split(",")):
                if name not in self.available_passes:
                    raise PipelineError(f"--{flag.replace('_', '-')}: unknown pass '{name}'")

    # ------------------------------------------------------------------------ running

    def run(self) -> int:  # type: ignore[override]
        """Process every chunk of the input; the exit code is 1 if anything failed."""
        name = self.args.input_file if self.args.input_file not in (None, "-") else "<stdin>"
        text = _read_input(self.args.input_file)
        chunks = _split(text) if self.args.split_input_file else [(text, 0)]
        timings: list[tuple[str, float]] | None = [] if self.args.time_passes else None
        instrumentation = Instrumentation(
            print_before={p for p in self.args.print_ir_before.split(",") if p},
            print_after={p for p in self.args.print_ir_after.split(",") if p},
            print_before_all=self.args.print_ir_before_all,
            print_after_all=self.args.print_ir_after_all,
            generic=self.args.print_op_generic,
            timings=timings,
        )
        failed = False
        outputs: list[str] = []
        source_lines = text.splitlines()
        for chunk, offset in chunks:
            diagnostics: list[Diagnostic] = []
            with collect_warnings() as warnings:
                module = self._process(chunk, name, offset, instrumentation, diagnostics)
            diagnostics = warnings + diagnostics
            for diagnostic in diagnostics:
                line = diagnostic.location.line if diagnostic.location is not None else 0
                if diagnostic.source_line is None and 0 < line <= len(source_lines):
                    diagnostic.source_line = source_lines[line - 1]
            if self.args.verify_diagnostics:
                expected, malformed = parse_expectations(chunk, offset, name)
                for problem in malformed + check_diagnostics(expected, diagnostics, name):
                    print(problem, file=sys.stderr)
                    failed = True
            else:
                for diagnostic in diagnostics:
                    print(diagnostic, file=sys.stderr)
                    failed |= diagnostic.severity == "error"
            if module is not None and not any(d.severity == "error" for d in diagnostics):
                start = time.perf_counter()
                outputs.append(self.output_resulting_program(module))
                if timings is not None:
                    timings.append(("(output)", time.perf_counter() - start))
        self._write_output((SPLIT_MARKER + "\n").join(outputs))
        if timings is not None:
            sys.stderr.write(instrumentation.timing_report())
        return 1 if failed else 0

    def _process(
        self,
        text: str,
        name: str,
        offset: int,
        instrumentation: Instrumentation,
        diagnostics: list[Diagnostic],
    ) -> ModuleOp | None:
        start = time.perf_counter()
        try:
            module = parse_source(self.ctx, text, name, offset, not self.args.no_implicit_module)
        except CompileError as err:
            diagnostics.append(err.diagnostic)
            return None
        if instrumentation.timings is not None:
            instrumentation.timings.append(("(parse)", time.perf_counter() - start))
        if not self.args.disable_verify:
            try:
                verify_module(module)
            except IRError as err:
                diagnostics.append(op_diagnostic(err.op, err.message))
                return None
        try:
            run_passes(self.ctx, module, self.passes, instrumentation, not self.args.disable_verify)
        except PassFailure as failure:
            diagnostics.append(failure.diagnostic())
            return None
        return module

    def _write_output(self, text: str) -> None:
        if self.args.output_file is None:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        try:
            with open(self.args.output_file, "w", encoding="utf-8") as stream:
                stream.write(text)
        except OSError as err:
            raise UsageError(
                f"cannot write output file '{self.args.output_file}': {err.strerror}"
            ) from None


def _read_input(path: str | None) -> str:
    if path is None or path == "-":
        return decode_source(sys.stdin.buffer.read(), "<stdin>")
    try:
        with open(path, "rb") as stream:
            return decode_source(stream.read(), path)
    except OSError as err:
        raise UsageError(f"cannot open input file '{path}': {err.strerror}") from None


def _split(text: str) -> list[tuple[str, int]]:
    """Chunks separated by ``// -----`` lines, with the line offset of each."""
    chunks: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    for index, line in enumerate(text.splitlines(keepends=True)):
        if line.strip() == SPLIT_MARKER:
            chunks.append(("".join(current), start))
            current, start = [], index + 1
        else:
            current.append(line)
    chunks.append(("".join(current), start))
    return chunks


class UsageError(Exception):
    """A command-line problem reported as one line."""


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    try:
        driver = RelaxOptMain(argv)
        return driver.run()
    except (PipelineError, UsageError, SourceError, PluginError) as err:
        print(f"relax-opt: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return stdout_closed()
    except Exception as err:  # noqa: BLE001 - an internal error is still one line
        print(f"relax-opt: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        if os.environ.get("XRELAX_DEBUG"):
            traceback.print_exc()
        else:
            print("(set XRELAX_DEBUG=1 for the Python traceback)", file=sys.stderr)
        return 2


RelaxOptMain.version_format = f"relax-opt {version('xrelax')} (xdsl {{xdsl_version}})"

if __name__ == "__main__":
    sys.exit(main())
