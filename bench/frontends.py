"""The model zoo imported and run: our VM against torch eager on the CPU, one thread each.

    python bench/frontends.py [MODEL ...] [--paths torch,onnx] [--repeat 5] [--markdown]

Each model of the zoo (``test/python/frontend/model_zoo.py``: stock torchvision, timm
and torch.nn models from tiny configurations) is exported with ``torch.export`` and a
dynamic batch, imported on each path (the ExportedProgram, and the ONNX model
``torch.onnx.export`` makes of it), compiled once, checked against eager, and timed at
both compared batches (1 and 3); a summary gives, per path and batch, the geometric mean
of VM / eager and the worst model against issue 17's targets. The runtimes alternate in
blocks (three rounds of a warm-up call and ``--repeat`` timed calls each) and each
column is the median of its timed calls; alternating blocks keep one runtime's worker
threads from competing with the other's calls. Import and compile are the seconds of one
``from_exported_program`` / ``from_onnx`` (for ONNX: without ``torch.onnx.export``
itself) and of one ``xrelax.compile`` with the VM's construction (which compiles the
kernels). With the ``peers`` extra, Apache TVM's ``from_exported_program`` and
``tvm.compile`` (llvm) run the same ExportedProgram, timed in the same alternation (its
column repeats on each path's row).
Needs the ``torch``, ``onnx`` and ``models`` extras.
"""

from __future__ import annotations

import os

# One thread each: numpy's BLAS, torch and TVM; before they are imported.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "TVM_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

try:
    import torch
except ModuleNotFoundError:
    sys.exit("bench/frontends.py needs torch: pip install -e '.[torch,onnx,models]'")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test" / "python" / "frontend"))

from model_zoo import ZOO, ZooModel, as_numpy  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402

TOLERANCE = {"rtol": 1e-3, "atol": 1e-4}
SIZES = (1, 2)
"""The zoo's size indices that are timed (its two compared batches, 1 and 3)."""


@dataclass
class Row:
    """One model on one path: whether it matched eager, and the measurements."""

    model: str
    path: str
    size: str
    ok: str
    eager_ms: float = float("nan")
    ours_ms: float = float("nan")
    import_s: float = float("nan")
    compile_s: float = float("nan")
    tvm_ms: str = ""

    def cells(self) -> list[str]:
        ratio = self.ours_ms / self.eager_ms if self.eager_ms == self.eager_ms else float("nan")
        return [
            self.model,
            self.path,
            self.size,
            self.ok,
            f"{self.eager_ms:.3f}",
            f"{self.ours_ms:.3f}",
            f"{ratio:.1f}x",
            f"{self.import_s:.2f}",
            f"{self.compile_s:.2f}",
            self.tvm_ms,
        ]


HEADER = ["model", "path", "size", "ok", "eager ms", "xrelax ms", "ratio", "import s",
          "compile s", "TVM ms"]  # fmt: skip


def _timed_block(call: Callable[[], object], repeat: int) -> list[float]:
    """Seconds of each of ``repeat`` calls, after one untimed warm-up call."""
    call()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def _alternating(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median milliseconds of each call, timed in alternating blocks."""
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(3):
        for name, call in calls.items():
            samples[name] += _timed_block(call, repeat)
    return {name: statistics.median(s) * 1e3 for name, s in samples.items()}


def _onnx_model(case: ZooModel, program: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.onnx.export(
            program, case.inputs(0), dynamo=True, dynamic_shapes=case.dynamic_shapes(),
            verbose=False,
        ).model_proto  # fmt: skip


def _tvm(program: Any, inputs: list[np.ndarray]) -> Callable[[], Any] | str:
    """A call of TVM's compiled program, or why there is none."""
    try:
        import tvm
        from tvm import relax
        from tvm.relax.frontend.torch import from_exported_program
    except ImportError:
        return "not installed"
    try:
        module = from_exported_program(program, keep_params_as_input=True)
        module, params = relax.frontend.detach_params(module)
        executable = tvm.compile(module, target="llvm")
        device = tvm.cpu()
        vm = relax.VirtualMachine(executable, device)
        args = [tvm.runtime.tensor(a, device) for a in inputs]
        args += [tvm.runtime.tensor(p.numpy(), device) for p in params["main"]]
        return lambda: vm["main"](*args)
    except Exception as err:  # noqa: BLE001 - a peer's failure is a table entry
        return "fails: " + (str(err).splitlines() or [type(err).__name__])[0][:60]


def measure(case: ZooModel, paths: list[str], repeat: int) -> list[Row]:
    """The rows of one model at each timed size: eager, each path's VM and TVM timed in
    one alternation per size (each path imported and compiled once)."""
    model = case.model()
    program = case.export(model)
    mains: dict[str, tuple[Callable[..., Any], dict[str, np.ndarray]]] = {}
    failed: dict[str, str] = {}
    seconds: dict[str, tuple[float, float]] = {}
    for path in paths:
        try:
            source = program if path == "torch" else _onnx_model(case, program)
            start = time.perf_counter()
            if path == "torch":
                imported = frontend.from_exported_program(source)
            else:
                imported = frontend.from_onnx(source)
            imported_at = time.perf_counter()
            mains[path] = (xrelax.VirtualMachine(xrelax.compile(imported.module))["main"],
                           imported.params)  # fmt: skip
            seconds[path] = (imported_at - start, time.perf_counter() - imported_at)
        except Exception as err:  # noqa: BLE001 - a failure is a table entry
            failed[path] = "no: " + (str(err).splitlines() or [type(err).__name__])[0][:80]
    rows: list[Row] = []
    for size in SIZES:
        inputs = case.inputs(size)
        arrays = [t.numpy() for t in inputs]
        with torch.no_grad():
            expected = as_numpy(model(*inputs))
        calls: dict[str, Callable[[], object]] = {"eager": functools.partial(model, *inputs)}
        size_rows = []
        for path in paths:
            row = Row(case.name, path, case.describe(size), failed.get(path, "yes"))
            row.import_s, row.compile_s = seconds.get(path, (float("nan"), float("nan")))
            size_rows.append(row)
            if path not in mains:
                continue
            main, params = mains[path]
            try:
                got = main(*arrays, **params)
                got = [got] if isinstance(got, np.ndarray) else list(got)
                for value, want in zip(got, expected, strict=True):
                    np.testing.assert_allclose(value, want, **TOLERANCE)
            except Exception as err:  # noqa: BLE001 - a failure is a table entry
                row.ok = "no: " + (str(err).splitlines() or [type(err).__name__])[0][:80]
                continue
            calls[path] = functools.partial(main, *arrays, **params)
        tvm = _tvm(program, arrays)
        if callable(tvm):
            calls["tvm"] = tvm
        with torch.no_grad():
            medians = _alternating(calls, repeat)
        for row in size_rows:
            row.eager_ms = medians["eager"]
            row.ours_ms = medians.get(row.path, float("nan"))
            row.tvm_ms = f"{medians['tvm']:.3f}" if "tvm" in medians else tvm
        rows += size_rows
    return rows


GEOMEAN_TARGET = 1.0
WORST_TARGET = 1.5
"""Issue 17's targets: per batch size, the geometric mean of VM / eager over the zoo,
and the worst model's ratio."""


def summary(rows: list[Row]) -> list[tuple[str, str, str, bool]]:
    """Per path and size: (name, value, target, met) of the geometric mean of VM / eager
    and of the worst model (a model that failed counts as not met)."""
    lines = []
    for path in dict.fromkeys(r.path for r in rows):
        for size in dict.fromkeys(r.size for r in rows):
            group = [r for r in rows if r.path == path and r.size == size]
            timed = [r for r in group if r.ok == "yes" and r.ours_ms == r.ours_ms]
            if not timed:
                continue
            ratios = {r.model: r.ours_ms / r.eager_ms for r in timed}
            geomean = math.exp(statistics.fmean(math.log(v) for v in ratios.values()))
            worst = max(ratios, key=ratios.__getitem__)
            complete = len(timed) == len(group)
            lines.append((
                f"zoo {path} {size}: geomean VM / eager ({len(timed)}/{len(group)} models)",
                f"{geomean:.2f}x", f"<= {GEOMEAN_TARGET:.2f}x",
                complete and geomean <= GEOMEAN_TARGET,
            ))  # fmt: skip
            lines.append((
                f"zoo {path} {size}: worst model", f"{ratios[worst]:.2f}x ({worst})",
                f"<= {WORST_TARGET:.2f}x", complete and ratios[worst] <= WORST_TARGET,
            ))  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the table; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help=f"zoo models (default: all of {len(ZOO)})")
    parser.add_argument("--paths", default="torch,onnx", help="torch, onnx or both")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per block")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    unknown = [m for m in args.models if m not in ZOO]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; the zoo has {', '.join(ZOO)}")
    torch.set_num_threads(1)
    paths = args.paths.split(",")
    if args.json:
        rows = [
            row
            for name in args.models or list(ZOO)
            for row in measure(ZOO[name], paths, args.repeat)
        ]
        print(json.dumps([dataclasses.asdict(row) for row in rows]))
        return 0
    print(f"torch {torch.__version__}, 1 thread; median of 3 x {args.repeat} calls per runtime")
    widths = [20, 5, 8, 4, 9, 10, 7, 9, 10, 12]
    if args.markdown:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "|".join("---" if k < 4 else "---:" for k in range(len(HEADER))) + "|")
    else:
        print(" ".join(h.ljust(w) for h, w in zip(HEADER, widths, strict=True)))
    rows = []
    for name in args.models or list(ZOO):
        for row in measure(ZOO[name], paths, args.repeat):
            rows.append(row)
            cells = row.cells()
            if args.markdown:
                print("| " + " | ".join(cells) + " |", flush=True)
            else:
                print(" ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)), flush=True)
    print()
    for name, value, target, met in summary(rows):
        print(f"{name:<55} {value:<26} {target:<9} {'met' if met else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
