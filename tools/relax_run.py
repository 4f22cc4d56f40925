"""``relax-run``: compile and execute a program on the VM (docs/design.md §8).

    relax-run FILE --entry main --inputs in.npz --params w.npz --outputs out.npz

``FILE`` is relax-level ``.mlir`` (compiled with ``relax-to-vm``), vm-level ``.mlir``
(``vm.func``), or an executable saved with ``--save-executable``. Inputs are keyed by
parameter name (``--params`` adds weights, such as ``relax-import --params-out`` writes,
by name too); outputs are written as ``out0``, ``out1``, ... (tuples flattened in
order). ``--load-packed F.py`` runs a Python file that registers packed functions
(``@xrelax.register_func("name")``), ``--load-pass-plugin F.py`` one that registers
passes for ``-p`` (``@xrelax.register_pass``). Every error is one line on stderr and a
non-zero exit.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import traceback
import zipfile
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from xrelax.tools.cli import int_in, one_line_errors, stdout_closed

SAVED_MAGIC = b"XRLXVMEX"


class RunError(Exception):
    """A user-facing failure: printed as one line."""


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    one_line_errors(parser, "relax-run")
    parser.add_argument("file", help="relax or vm .mlir, or a saved executable")
    parser.add_argument("--entry", default="main", help="function to run (default: main)")
    parser.add_argument("--inputs", help=".npz with one array per parameter, by name")
    parser.add_argument(
        "--params", metavar="W.npz", help=".npz of weights by parameter name, added to --inputs"
    )
    parser.add_argument(
        "--bind-params",
        action="store_true",
        help="compile the --params weights into the program as constants (relax-bind-params) "
        "so that folding precomputes what depends only on them",
    )
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="SPEC",
        help="an input on the command line, as IREE's tools take it: 2x3xf32=1,2,3,4,5,6, "
        "i64=7, @x.npy, or NAME= before one (repeatable; unnamed ones fill the "
        "parameters in order)",
    )
    parser.add_argument(
        "--benchmark",
        type=int_in(1, 10**6),
        metavar="N",
        help="after the run, time N more calls and print the median, min and max",
    )
    parser.add_argument("--outputs", help=".npz to write the results to (out0, out1, ...)")
    parser.add_argument(
        "--load-packed",
        action="append",
        default=[],
        metavar="F.py",
        help="Python file registering packed functions (repeatable)",
    )
    parser.add_argument(
        "--load-pass-plugin",
        action="append",
        default=[],
        metavar="F.py",
        help="Python file registering passes for -p (@xrelax.register_pass; repeatable)",
    )
    parser.add_argument(
        "--allow-missing-packed",
        action="store_true",
        help="register a no-op for packed functions nobody registered",
    )
    parser.add_argument("--save-executable", metavar="PATH", help="save the compiled executable")
    parser.add_argument(
        "--print",
        action="store_true",
        help="print the results (numpy's summarised form for large ones)",
    )
    parser.add_argument(
        "--print-full",
        action="store_true",
        help="print every element of the results, each to the digits that round-trip",
    )
    parser.add_argument(
        "-p",
        "--pipeline",
        default="relax-to-vm",
        help="pipeline for relax input (default: relax-to-vm)",
    )
    parser.add_argument(
        "--verify-each",
        action="store_true",
        help="verify the IR after every pass of the pipeline (default: once, at the end)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="after the run, run again with every kernel and builtin call timed and print "
        "a table per kernel and builtin",
    )
    parser.add_argument(
        "--profile-trace",
        metavar="PATH",
        help="write that profiled run as a Chrome trace (JSON; implies --profile)",
    )
    parser.add_argument(
        "--kernels",
        choices=("numpy", "native"),
        help="the kernel backend: numpy, or native (machine code through LLVM, the "
        "'native' extra); default: $XRELAX_KERNELS, else numpy",
    )
    parser.add_argument(
        "--interpret",
        action="store_true",
        help="run relax input with the reference interpreter instead of the VM",
    )
    return parser.parse_args(argv)


def _load_executable(
    path: str,
    pipeline: str,
    verify_each: bool,
    bound: tuple[str, dict[str, np.ndarray]] | None,
    kernels: str | None,
) -> Any:
    """The executable of ``path``; ``bound`` (function, weights) binds those parameters
    as constants before the pipeline; the default pipeline builds the kernels for the
    ``kernels`` backend."""
    import xrelax
    from xrelax.backends.vm import Executable

    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as err:
        raise RunError(f"cannot open '{path}': {err.strerror}") from None
    if data.startswith(SAVED_MAGIC):
        if bound is not None:
            raise RunError("--bind-params needs a relax program: this is a saved executable")
        return Executable.from_bytes(data)
    module = _parse(data, path)
    relax = _has_relax(module)
    if bound is not None:
        _bind(module, relax, *bound)
    exe = xrelax.compile(
        module, pipeline if relax else "", verify_each=verify_each, kernels=kernels
    )
    if relax and not exe.global_funcs:
        raise RunError(
            f"the pipeline '{pipeline}' lowers no relax function to the VM "
            "(end it with relax-to-vm)"
        )
    return exe


def _bind(module: Any, relax: bool, entry: str, weights: dict[str, np.ndarray]) -> None:
    from xrelax.dialects.ir.diagnostics import CompileError, IRError, op_diagnostic
    from xrelax.transforms.bind_params import bind_params

    if not relax:
        raise RunError("--bind-params needs a relax program: this one is already vm-level")
    try:
        bind_params(module, weights, entry)
    except IRError as err:
        raise CompileError(op_diagnostic(err.op, err.message)) from None


def _parse(data: bytes, path: str) -> Any:
    """The module in ``data``; a file holding no program is an error of its own."""
    import xrelax
    from xrelax.dialects.ir.diagnostics import decode_source

    text = decode_source(data, path)
    if all(not line.strip() or line.lstrip().startswith("//") for line in text.splitlines()):
        raise RunError(f"'{path}' holds no program")
    return xrelax.parse(text, path)


def _has_relax(module: Any) -> bool:
    from xrelax.dialects.relax import FuncOp

    return any(isinstance(op, FuncOp) for op in module.ops)


def _param_names(exe: Any, entry: str) -> list[str]:
    for func in exe.global_funcs:
        if func.name == entry:
            return list(func.param_names)
    available = ", ".join(f.name for f in exe.global_funcs) or "none"
    raise RunError(f"no function '{entry}' in the program (functions: {available})")


def _read_npz(path: str | None, what: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` file at ``path`` by name (none without a path)."""
    if path is None:
        return {}
    try:
        with open(path, "rb") as stream:
            if stream.read(2) != b"PK":
                raise RunError(f"cannot read {what} '{path}': not an .npz file (numpy.savez)")
            stream.seek(0)
            with np.load(stream, allow_pickle=False) as npz:
                return {key: npz[key] for key in npz.files}
    except OSError as err:
        raise RunError(f"cannot read {what} '{path}': {err.strerror}") from None
    except MemoryError:
        raise RunError(f"cannot read {what} '{path}': an array is too large to load") from None
    except (ValueError, EOFError, zipfile.BadZipFile, zlib.error) as err:
        raise RunError(f"cannot read {what} '{path}': {err}") from None


def _read_inputs(
    path: str | None,
    entry: str,
    params: list[str],
    weights_path: str | None = None,
    inline: Sequence[str] = (),
) -> list[np.ndarray]:
    arrays = _read_npz(path, "inputs")
    weights = _read_npz(weights_path, "params")
    both = sorted(set(arrays) & set(weights))
    if both:
        raise RunError(f"{entry}: '{both[0]}' is given by both --inputs and --params")
    arrays |= weights
    _add_inline(arrays, inline, entry, params)
    missing = [p for p in params if p not in arrays]
    if missing:
        raise RunError(
            f"{entry}: missing input '{missing[0]}' (parameters: {', '.join(params) or 'none'})"
        )
    unknown = sorted(set(arrays) - set(params))
    if unknown:
        raise RunError(f"{entry}: unknown input '{unknown[0]}' (parameters: {', '.join(params)})")
    return [arrays[p] for p in params]


def _add_inline(
    arrays: dict[str, np.ndarray], specs: Sequence[str], entry: str, params: list[str]
) -> None:
    """Add the ``--input`` values to ``arrays``: named ones by name, the others to the
    parameters no input names yet, in order."""
    from xrelax.tools.inline_inputs import InputError, parse_input

    parsed = []
    for spec in specs:
        try:
            parsed.append(parse_input(spec, params))
        except InputError as err:
            raise RunError(f"--input {err}") from None
    for name, value in parsed:
        if name is not None:
            if name in arrays:
                raise RunError(f"{entry}: '{name}' is given twice")
            arrays[name] = value
    unnamed = [value for name, value in parsed if name is None]
    free = [p for p in params if p not in arrays]
    if len(unnamed) > len(free):
        raise RunError(
            f"{entry}: {len(unnamed)} unnamed --input values for {len(free)} parameters "
            f"not given otherwise ({', '.join(free) or 'none'})"
        )
    arrays.update(zip(free, unnamed, strict=False))


def _shown(index: int, value: Any, full: bool) -> str:
    """``out<index>: dtype[shape] = values``: numpy's form, summarised unless ``full``
    (then every element, each with the digits that round-trip)."""
    array = np.asarray(value)
    prefix = f"out{index}: {array.dtype}{list(array.shape)} = "
    options: dict[str, Any] = {"max_line_width": 100}
    if full:
        options |= {"threshold": sys.maxsize, "floatmode": "unique"}
    return prefix + np.array2string(array, separator=", ", prefix=prefix, **options)


def _benchmark(call: Any, count: int, entry: str) -> str:
    """Time ``count`` calls: ``entry: N calls, median .. ms, min .. ms, max .. ms``."""
    seconds = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    median = statistics.median(seconds)
    return (
        f"{entry}: {count} calls, median {median * 1e3:.3f} ms, "
        f"min {min(seconds) * 1e3:.3f} ms, max {max(seconds) * 1e3:.3f} ms"
    )


def flatten_results(value: Any) -> list[Any]:
    """A result as the list written to ``out0, out1, ...`` (tuples flattened in order)."""
    if isinstance(value, tuple):
        return [leaf for element in value for leaf in flatten_results(element)]
    return [value]


def _missing_as_noops(exe: Any) -> dict[str, Any]:
    """A no-op (announced by a warning) for each packed function nobody provides, for
    this run's VM only: the process-wide registry stays as it was."""
    from xrelax.backends.kernels.compiler import load_executable_kernels
    from xrelax.backends.vm import list_funcs

    known = {f.name for f in exe.global_funcs} | set(list_funcs())
    known |= set(load_executable_kernels(exe))
    noops = {}
    for name in exe.func_names:
        if name not in known:
            print(
                f"relax-run: warning: packed function '{name}' is not registered; using a no-op",
                file=sys.stderr,
            )
            noops[name] = _noop
    return noops


def _noop(*args: Any) -> None:
    """What a missing packed function does under ``--allow-missing-packed``."""


def _interpret(args: argparse.Namespace) -> Any:
    import xrelax
    from xrelax.backends.interpreter import InterpreterError
    from xrelax.dialects.relax import FuncOp

    try:
        with open(args.file, "rb") as stream:
            data = stream.read()
    except OSError as err:
        raise RunError(f"cannot open '{args.file}': {err.strerror}") from None
    module = _parse(data, args.file)
    funcs = [op for op in module.ops if isinstance(op, FuncOp)]
    func = next((f for f in funcs if f.sym_name.data == args.entry), None)
    if func is None:
        raise RunError(f"no relax function '{args.entry}' in '{args.file}'")
    inputs = _read_inputs(args.inputs, args.entry, func.param_names, args.params)
    try:
        return xrelax.interpret(module, args.entry, *inputs)
    except InterpreterError as err:
        raise RunError(str(err)) from None


def run(argv: Sequence[str] | None = None) -> int:
    """Run relax-run with ``argv``; returns the exit code."""
    args = _parse_args(argv)
    import xrelax
    from xrelax.backends.vm import VMError
    from xrelax.transforms.plugins import load_python_file

    for path in args.load_packed:
        load_python_file(path, "packed functions")
    for path in args.load_pass_plugin:
        xrelax.load_pass_plugin(path)
    profiling = args.profile or args.profile_trace is not None
    profile = timing = None
    if args.interpret:
        if profiling:
            raise RunError("--profile times the VM's calls: it cannot be used with --interpret")
        result = _interpret(args)
    else:
        bound = None
        if args.bind_params:
            if args.params is None:
                raise RunError("--bind-params binds the weights of --params: give --params")
            bound = (args.entry, _read_npz(args.params, "params"))
        exe = _load_executable(args.file, args.pipeline, args.verify_each, bound, args.kernels)
        if args.save_executable:
            _writing(args.save_executable, lambda: exe.save(args.save_executable))
        weights = None if bound is not None else args.params
        inputs = _read_inputs(
            args.inputs, args.entry, _param_names(exe, args.entry), weights, args.input
        )
        noops = _missing_as_noops(exe) if args.allow_missing_packed else {}
        try:
            vm = xrelax.VirtualMachine(exe, packed_funcs=noops, kernels=args.kernels)
            result = vm[args.entry](*inputs)
            profile = vm.profile(args.entry, *inputs) if profiling else None
            if args.benchmark:
                timing = _benchmark(lambda: vm[args.entry](*inputs), args.benchmark, args.entry)
        except VMError as err:
            raise RunError(str(err)) from None
    outputs = flatten_results(result)
    if args.outputs:
        arrays = {f"out{i}": np.asarray(o) for i, o in enumerate(outputs)}
        _writing(args.outputs, lambda: _save_npz(args.outputs, arrays))
    if args.print or args.print_full:
        for index, value in enumerate(outputs):
            print(_shown(index, value, args.print_full))
    if timing is not None:
        print(timing)
    if profile is not None:
        print(profile.table())
        if args.profile_trace:
            _writing(args.profile_trace, lambda: profile.save_chrome_trace(args.profile_trace))
    return 0


def _save_npz(path: str, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` itself (``np.savez`` given a name would add ``.npz``)."""
    with open(path, "wb") as stream:
        np.savez(stream, **arrays)


def _writing(path: str, write: Any) -> None:
    try:
        write()
    except OSError as err:
        raise RunError(f"cannot write '{path}': {err.strerror}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    from xrelax.backends.vm import VMError
    from xrelax.dialects.ir.diagnostics import CompileError, SourceError
    from xrelax.transforms.plugins import PluginError

    try:
        return run(argv)
    except CompileError as err:
        # A located diagnostic reads as the compiler's own (file:line:col: error: ...).
        located = err.diagnostic.location is not None
        print(err.diagnostic if located else f"relax-run: {err.diagnostic}", file=sys.stderr)
        return 1
    except (RunError, VMError, SourceError, PluginError) as err:
        print(f"relax-run: error: {str(err).splitlines()[0]}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return stdout_closed()
    except Exception as err:  # noqa: BLE001 - an internal error is still one line
        print(f"relax-run: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        if os.environ.get("XRELAX_DEBUG"):
            traceback.print_exc()
        return 2


if __name__ == "__main__":
    sys.exit(main())
