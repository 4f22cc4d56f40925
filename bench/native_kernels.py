"""The cases of ``bench/kernels.py`` with both kernel backends, in one run.

    python bench/native_kernels.py [--repeat 9]

Each case is compiled by the numpy backend and by the native one (tir-to-llvm +
llvmlite; the ``native`` extra), checked against numpy, then the two kernels and the
hand-written numpy expression are timed in alternation (medians of ``--repeat``
samples of ~10 ms of calls each). Ratios are native / numpy kernel and native /
hand-written numpy, medians of the per-repetition ratios.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from xrelax.backends.kernels import compile_prim_func
from xrelax.backends.native.compiler import compile_prim_func as compile_native
from xrelax.bench import kernels


def _time(fn, inner: int) -> float:
    start = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - start) / inner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    rows = []
    for make in kernels.CASES:
        kernels.compile_prim_func = compile_prim_func
        numpy_case = make(np.random.default_rng(0))
        kernels.compile_prim_func = compile_native
        native_case = make(np.random.default_rng(0))
        native_case.kernel()
        if not native_case.check():
            raise SystemExit(f"{native_case.name}: the native kernel's result differs from numpy")
        runs = (native_case.kernel, numpy_case.kernel, numpy_case.numpy)
        inner = max(1, int(0.01 / max(min(_time(numpy_case.numpy, 1) for _ in range(3)), 1e-6)))
        samples: list[list[float]] = [[], [], []]
        for _ in range(max(args.repeat, 5)):
            for k, fn in enumerate(runs):
                samples[k].append(_time(fn, inner))
        medians = [statistics.median(s) * 1e3 for s in samples]
        ratios = [
            statistics.median(a / b for a, b in zip(samples[0], samples[k], strict=True))
            for k in (1, 2)
        ]
        rows.append((native_case.name, *medians, *ratios, native_case.paths))
    print(
        "| case | native (ms) | numpy kernel (ms) | numpy (ms) | native / kernel "
        "| native / numpy | native paths |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, nat, ker, hand, r1, r2, paths in rows:
        print(f"| {name} | {nat:.3f} | {ker:.3f} | {hand:.3f} | {r1:.2f} | {r2:.2f} | {paths} |")


if __name__ == "__main__":
    main()
