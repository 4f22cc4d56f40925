"""The xrelax benchmark suite: one table, every figure measured in this run.

    python -m bench            # or: python bench/run.py [--repeat 9] [--quick]

Rows (each with its target and whether it is met):

* end to end — the VM against the same computation written in numpy, and against the
  reference interpreter, for mlp.mlir (n = 1, 32, 256), the transformer block
  (s = 16, 128) and a small CNN; TVM / IREE rows when those are installed
  (``pip install -e '.[peers]'``);
* VM dispatch — 1,000 calls of a no-op packed function (µs per instruction, ratio to
  a plain Python loop), and one ``vm["main"](a, b)`` of a (4,) + (4,) add;
* compile time — the default pipeline on generated modules of 100 / 1,000 / 10,000
  operators (a chain and a wide graph) with the growth per 10x, parse+print of the
  same modules, parse throughput, and ``relax-opt`` start-up on an empty module;
* memory — planned against one-allocation-per-tensor bytes;
* onnxruntime — the same ONNX files on onnxruntime and on xrelax (weights bound), one
  thread and two: the small-size zoo and the real-size models
  (``bench/against_onnxruntime.py``), with the geometric-mean and worst-model targets.

Timings interleave the contenders within each repetition and report medians.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import xrelax
from xrelax.backends.native import available as native_available

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from bench import models, peers
else:
    from bench import models, peers

# The relax-opt script of the running environment (found without activating it).
RELAX_OPT = shutil.which("relax-opt", path=os.path.dirname(sys.executable)) or "relax-opt"


@dataclass
class Row:
    """One line of the table."""

    section: str
    name: str
    value: str
    target: str = ""
    met: bool | None = None


def timeit(
    fns: dict[str, Callable[[], object]], repeat: int, budget: float = 0.02
) -> dict[str, float]:
    """Median seconds per call of each function, repetitions interleaved."""
    inner = {}
    for name, fn in fns.items():
        fn()
        start = time.perf_counter()
        fn()
        once = max(time.perf_counter() - start, 1e-7)
        inner[name] = max(1, int(budget / once))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            count = inner[name]
            start = time.perf_counter()
            for _ in range(count):
                fn()
            samples[name].append((time.perf_counter() - start) / count)
    return {name: statistics.median(values) for name, values in samples.items()}


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


# ------------------------------------------------------------------------- end to end


def end_to_end(repeat: int, quick: bool) -> list[Row]:
    targets = {"mlp n=256": 1.10, "mlp n=1": 1.2}
    cases = [models.mlp(1), models.mlp(32), models.mlp(256), models.transformer(16)]
    if not quick:
        cases += [models.transformer(128), models.cnn(8)]
    rows = []
    for model in cases:
        module = xrelax.parse(model.path.read_text(), str(model.path))
        vm = xrelax.VirtualMachine(xrelax.compile(module))["main"]
        args = model.inputs
        expected = model.numpy(*args)
        np.testing.assert_allclose(vm(*args), expected, rtol=1e-4, atol=1e-5)
        fns = {
            "vm": lambda vm=vm, args=args: vm(*args),
            "numpy": lambda model=model, args=args: model.numpy(*args),
            "interp": lambda module=module, args=args: xrelax.interpret(module, "main", *args),
        }
        times = timeit(fns, repeat)
        ratio = times["vm"] / times["numpy"]
        target = targets.get(model.name)
        rows.append(
            Row(
                "end to end",
                f"{model.name}: VM / numpy",
                f"{ratio:.2f}x  ({_ms(times['vm'])} vs {_ms(times['numpy'])})",
                f"<= {target:.2f}x" if target else "",
                ratio <= target if target else None,
            )
        )
        rows.append(
            Row(
                "end to end",
                f"{model.name}: VM / reference interpreter",
                f"{times['vm'] / times['interp']:.2f}x  (interpreter {_ms(times['interp'])})",
            )
        )
        if model.name.startswith("mlp"):
            rows += peers.mlp_rows(model, repeat)
    return rows


# ------------------------------------------------------------------------ VM dispatch


def dispatch(repeat: int) -> list[Row]:
    from xrelax.backends.vm import ExecBuilder, register_func

    register_func("bench.noop", lambda x: None, override=True)
    noop = __import__("xrelax.backends.vm.builtins", fromlist=["get_func"]).get_func("bench.noop")
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        for _ in range(1000):
            ib.emit_call("bench.noop", [ib.r(0)])
        ib.emit_ret(ib.r(0))
    vm = xrelax.VirtualMachine(ib.get())["main"]
    value = np.zeros(1)

    def python_loop() -> None:
        for _ in range(1000):
            noop(value)

    times = timeit({"vm": lambda: vm(value), "loop": python_loop}, repeat)
    ratio = times["vm"] / times["loop"]
    rows = [
        Row(
            "VM dispatch",
            "1,000 no-op packed calls: VM / Python loop",
            f"{ratio:.2f}x  ({times['vm'] / 1000 * 1e6:.3f} µs per instruction)",
            "<= 2x",
            ratio <= 2,
        )
    ]
    add = xrelax.parse(
        "relax.func @main(%a: !relax.tensor<[4], f32>, %b: !relax.tensor<[4], f32>)"
        " -> !relax.tensor<[4], f32> {\n"
        "  %c = relax.add %a, %b : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)\n"
        "  relax.return %c : !relax.tensor<[4], f32>\n}\n"
    )
    add_vm = xrelax.VirtualMachine(xrelax.compile(add))["main"]
    a, b = np.ones(4, np.float32), np.ones(4, np.float32)
    times = timeit({"vm": lambda: add_vm(a, b), "np": lambda: np.add(a, b)}, repeat)
    rows.append(
        Row(
            "VM dispatch",
            'vm["main"](a, b) of a (4,) + (4,) add',
            f"{times['vm'] * 1e6:.2f} µs  (np.add {times['np'] * 1e6:.2f} µs)",
            "< 6 µs",
            times["vm"] < 6e-6,
        )
    )
    return rows


# ------------------------------------------------------------------------ compile time


def generated_module(ops: int, shape: str) -> str:
    """A relax function of ``ops`` operators: a ``chain`` or a ``wide`` graph."""
    t = "!relax.tensor<[n, 16], f32>"
    lines = [f"relax.func @main(%x: {t}, %y: {t}) -> {t} {{", f"  %r = relax.dataflow -> {t} {{"]
    unary = ("exp", "negative", "tanh", "sigmoid")
    for i in range(ops):
        if shape == "chain":
            prev = f"%v{i - 1}" if i else "%x"
            if i % 3 == 2:
                line = f"relax.add {prev}, %y : ({t}, {t}) -> {t}"
            else:
                line = f"relax.{unary[i % 4]} {prev} : ({t}) -> {t}"
        else:  # each value used by the next op and by the op 8 later: 8 live at once
            a = f"%v{i - 1}" if i else "%x"
            b = f"%v{i - 8}" if i >= 8 else "%y"
            line = f"relax.add {a}, {b} : ({t}, {t}) -> {t}"
        lines.append(f"    %v{i} = {line}")
    lines += [f"    relax.output %v{ops - 1} : {t}", "  }", f"  relax.return %r : {t}", "}"]
    return "\n".join(lines) + "\n"


BASELINE_COMMIT = "0365195"
"""The commit issue 17's compile-time baseline was measured at."""
BASELINE_SECONDS = {
    ("chain", 100): 0.32, ("chain", 1000): 3.09, ("chain", 10000): 30.50,
    ("wide", 100): 0.14, ("wide", 1000): 1.12, ("wide", 10000): 12.16,
    ("densenet121", 0): 18.0,
}  # fmt: skip
"""relax-to-vm seconds at BASELINE_COMMIT (docs/performance.md of that commit; densenet121
from issue 17); the target is a third of each."""


def _against_baseline(key: tuple[str, int], seconds: float) -> tuple[str, str, bool]:
    """(value suffix, target, met) of a compile time against a third of its baseline."""
    baseline = BASELINE_SECONDS[key]
    return (
        f" ({baseline / seconds:.1f}x faster than {baseline:.2f} s at {BASELINE_COMMIT})",
        f"<= {baseline / 3:.2f} s",
        seconds <= baseline / 3,
    )


def compile_time(quick: bool) -> list[Row]:
    rows: list[Row] = []
    sizes = (100, 1000) if quick else (100, 1000, 10000)
    xrelax.parse(generated_module(10, "chain"))  # warm up imports and caches
    for shape in ("chain", "wide"):
        seconds = []
        for size in sizes:
            text = generated_module(size, shape)
            module = None
            gc.collect()  # the previous module's garbage is not this one's cost
            start = time.perf_counter()
            module = xrelax.parse(text)
            parsed = time.perf_counter()
            xrelax.print_module(module)
            printed = time.perf_counter()
            xrelax.compile(module)
            seconds.append(time.perf_counter() - printed)
            faster, target, met = _against_baseline((shape, size), seconds[-1])
            rows.append(
                Row(
                    "compile time",
                    f"{shape} of {size} ops: relax-to-vm / parse+print",
                    f"{seconds[-1]:.2f} s / {printed - start:.2f} s "
                    f"({size / (parsed - start):.0f} parsed ops/s){faster}",
                    target if size >= 1000 else "",
                    met if size >= 1000 else None,
                )
            )
        growth = max(b / a for a, b in zip(seconds, seconds[1:], strict=False))
        rows.append(
            Row(
                "compile time",
                f"{shape}: growth per 10x ops",
                f"{growth:.1f}x",
                "<= 12x",
                growth <= 12,
            )
        )
    text = generated_module(5000, "chain")
    xrelax.parse(text)
    gc.collect()
    start = time.perf_counter()
    xrelax.parse(text)
    rate = 5000 / (time.perf_counter() - start)
    rows.append(
        Row("compile time", "parse throughput", f"{rate:.0f} relax ops/s", ">= 5000", rate >= 5000)
    )
    startup = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([RELAX_OPT, os.devnull, "-o", os.devnull], check=True)
        startup.append(time.perf_counter() - start)
    median = statistics.median(startup)
    rows.append(
        Row(
            "compile time",
            "relax-opt start-up, empty module",
            f"{median:.2f} s",
            "< 0.6 s",
            median < 0.6,
        )
    )
    return rows


def densenet121_compile() -> list[Row]:
    """relax-to-vm of torchvision's densenet121 imported from torch.export (64x64 images,
    dynamic batch), when torch and torchvision are installed."""
    name = "densenet121 (torch.export): relax-to-vm"
    try:
        import torch

        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test/python/frontend"))
        from model_zoo import import_torchvision

        models_ = import_torchvision().models
    except ImportError:
        return [Row("compile time", name, "needs pip install -e '.[torch,models]'")]
    from xrelax import frontend

    model = models_.densenet121(weights=None, num_classes=10).eval()
    batch = torch.export.Dim("batch", min=1, max=64)
    example = (torch.randn(2, 3, 64, 64),)
    program = torch.export.export(model, example, dynamic_shapes=({0: batch},))
    module = frontend.from_exported_program(program).module
    gc.collect()
    start = time.perf_counter()
    xrelax.compile(module)
    seconds = time.perf_counter() - start
    faster, target, met = _against_baseline(("densenet121", 0), seconds)
    return [Row("compile time", name, f"{seconds:.2f} s{faster}", target, met)]


# ------------------------------------------------------------------------ model zoo


def model_zoo(repeat: int) -> list[Row]:
    """Issue 17's model-zoo rows: ``bench/frontends.py`` on the torch.export path at
    batches 1 and 3, in a child process (one thread each for numpy's BLAS and torch,
    set before either is imported), when torch and the models extra are installed."""
    try:
        import timm  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        return [Row("model zoo", "VM / torch eager", "needs pip install -e '.[torch,onnx,models]'")]
    from bench import frontends

    script = Path(__file__).resolve().parent / "frontends.py"
    command = [
        sys.executable,
        str(script),
        "--paths",
        "torch",
        "--json",
        "--repeat",
        str(repeat // 2),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return [Row("model zoo", "VM / torch eager", f"failed: {done.stderr.strip()[-60:]}")]
    table = [frontends.Row(**row) for row in json.loads(done.stdout.splitlines()[-1])]
    rows = [
        Row("model zoo", f"{r.model} {r.size}: VM / eager",
            f"{r.ours_ms / r.eager_ms:.2f}x  ({r.ours_ms:.3f} vs {r.eager_ms:.3f} ms)"
            if r.ok == "yes" else r.ok)
        for r in table
    ]  # fmt: skip
    rows += [Row("model zoo", *line) for line in frontends.summary(table)]
    return rows


# ------------------------------------------------------------------------ onnxruntime


def against_onnxruntime(repeat: int, sets: tuple[str, ...]) -> list[Row]:
    """Issue 24's rows: ``bench/against_onnxruntime.py`` per model set, at one thread and
    at two (a child process each: the thread counts are set before numpy and torch
    start), when torch, onnx and the models extra are installed; with the native
    kernels where the ``native`` extra is installed."""
    try:
        import onnxruntime  # noqa: F401
        import timm  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        needs = "needs pip install -e '.[torch,onnx,models]'"
        return [Row("onnxruntime", "xrelax / onnxruntime", needs)]
    script = Path(__file__).resolve().parent / "against_onnxruntime.py"
    kernels = "native" if native_available() else "numpy"
    rows = []
    for threads in (1, 2):
        for set_name in sets:
            command = [sys.executable, str(script), "--set", set_name, "--threads", str(threads)]
            command += ["--repeat", str(max(repeat // 3, 3)), "--kernels", kernels, "--json"]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            label = f"{set_name}, {threads} thread(s), {kernels} kernels"
            if done.returncode != 0:
                rows.append(Row("onnxruntime", label, f"failed: {done.stderr.strip()[-60:]}"))
                continue
            results = json.loads(done.stdout.splitlines()[-1])
            for r in results:
                ours, theirs = r["ours_ms"], r["ort_ms"]
                value = (
                    f"{ours / theirs:.2f}x  ({ours:.3f} vs {theirs:.3f} ms)"
                    if r["ok"] == "yes"
                    else r["ok"]
                )
                rows.append(Row("onnxruntime", f"{r['model']} ({threads}t, {kernels})", value))
            for name, value, target, met in _ort_summary(results):
                rows.append(Row("onnxruntime", name, value, target, met))
    return rows


def _ort_summary(results: list[dict]) -> list[tuple[str, str, str, bool]]:
    from bench import against_onnxruntime as ort

    fields = {f.name for f in dataclasses.fields(ort.Result)}
    return ort.summary([ort.Result(**{k: v for k, v in r.items() if k in fields}) for r in results])


# ----------------------------------------------------------------------------- memory


def memory() -> list[Row]:
    from xrelax.dialects.relax import FuncOp
    from xrelax.dialects.shapes import symbolic
    from xrelax.transforms.plan_memory import plan_block

    rows = []
    cases = [
        (models.mlp(256), {"n": 256}),
        (models.transformer(128), {"s": 128}),
        (models.cnn(8), {"n": 8}),
    ]
    for model, env in cases:
        module = xrelax.parse(model.path.read_text())
        xrelax.apply(
            module,
            "relax-normalize,relax-legalize-ops,relax-fuse-ops,relax-fuse-tir,"
            "relax-to-non-dataflow,relax-call-tir-rewrite",
        )
        func = next(op for op in module.ops if isinstance(op, FuncOp))
        plan = plan_block(func.body.block)
        naive = symbolic.evaluate(plan.naive_bytes, env)
        planned = symbolic.evaluate(plan.planned_bytes, env)
        saving = 1 - planned / naive if naive else 0.0
        target = "transformer" in model.name
        rows.append(
            Row(
                "memory",
                f"{model.name}: planned / naive bytes",
                f"{planned:,} / {naive:,} ({saving:.0%} saved)",
                ">= 30% saved" if target else "",
                saving >= 0.30 if target else None,
            )
        )
    return rows


def print_table(rows: list[Row]) -> None:
    width = max(len(r.name) for r in rows)
    vwidth = max(len(r.value) for r in rows)
    section = None
    for row in rows:
        if row.section != section:
            section = row.section
            print(f"\n{section}")
        status = "" if row.met is None else ("met" if row.met else "NOT MET")
        print(f"  {row.name:<{width}}  {row.value:<{vwidth}}  {row.target:<12} {status}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9, help="repetitions (median; >= 7)")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--no-zoo", action="store_true", help="leave out the model zoo rows")
    parser.add_argument(
        "--no-onnxruntime",
        action="store_true",
        help="leave out the rows against onnxruntime (the real-size models take minutes)",
    )
    args = parser.parse_args(argv)
    repeat = max(args.repeat, 7)
    cpu = platform.processor() or platform.machine()
    versions = f"python {platform.python_version()}, numpy {np.__version__}"
    print(f"xrelax benchmarks — {versions}, {cpu}, {os.cpu_count()} cores")
    rows = end_to_end(repeat, args.quick) + dispatch(repeat) + compile_time(args.quick)
    if not args.quick:
        rows += densenet121_compile()
    rows += memory()
    if not (args.quick or args.no_zoo):
        rows += model_zoo(repeat)
    if not args.no_onnxruntime:
        rows += against_onnxruntime(repeat, ("zoo",) if args.quick else ("zoo", "real"))
    print_table(rows)


if __name__ == "__main__":
    main()
