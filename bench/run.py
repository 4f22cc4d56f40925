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
* memory — planned against one-allocation-per-tensor bytes.

Timings interleave the contenders within each repetition and report medians.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import xrelax

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
    targets = {"mlp n=256": 1.10, "mlp n=1": 1.5}
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
            rows += peers.mlp_rows(model, times["numpy"], repeat)
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
            rows.append(
                Row(
                    "compile time",
                    f"{shape} of {size} ops: relax-to-vm / parse+print",
                    f"{seconds[-1]:.2f} s / {printed - start:.2f} s "
                    f"({size / (parsed - start):.0f} parsed ops/s)",
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


# ----------------------------------------------------------------------------- memory


def memory() -> list[Row]:
    from xrelax.dialects import symbolic
    from xrelax.dialects.relax import FuncOp
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
    args = parser.parse_args(argv)
    repeat = max(args.repeat, 7)
    cpu = platform.processor() or platform.machine()
    versions = f"python {platform.python_version()}, numpy {np.__version__}"
    print(f"xrelax benchmarks — {versions}, {cpu}, {os.cpu_count()} cores")
    rows = end_to_end(repeat, args.quick) + dispatch(repeat) + compile_time(args.quick) + memory()
    print_table(rows)


if __name__ == "__main__":
    main()
