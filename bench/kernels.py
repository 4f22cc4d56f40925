"""Generated kernels against hand-written numpy, measured in one run.

    python bench/kernels.py [--repeat 9]

Each case builds a prim_func with the TE-style builder, compiles it with the kernel
backend and times it against the numpy expression a competent numpy user would write
for the same operation (the output buffer of the kernel is preallocated, as the VM
does; the numpy expression allocates its result). Repetitions of all cases are
interleaved (each kernel sample is taken right before its numpy sample); the table
reports the median times and the median of the per-repetition ratios kernel / numpy.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.dialects.builtin import IntegerAttr

from xrelax.backends.kernels import compile_prim_func
from xrelax.dialects.dtypes import F32, I64
from xrelax.dialects.shapes.symbolic import sym
from xrelax.ops import te
from xrelax.ops.base import tensor
from xrelax.ops.gather import TakeOp


@dataclass
class Case:
    """One operation: the kernel call and the hand-written numpy call."""

    name: str
    kernel: Callable[[], None]
    numpy: Callable[[], object]
    check: Callable[[], bool]
    paths: str


def _kernel(name: str, tensors: list[te.Tensor], inputs: list[np.ndarray], output: np.ndarray):
    func, _ = te.create_prim_func(name, tensors)
    kernel = compile_prim_func(func)
    paths = "; ".join(f"{p.path}" for p in kernel.paths)
    return (lambda: kernel(*inputs, output)), paths


def exp_case(rng: np.random.Generator) -> Case:
    n = sym("n")
    x = rng.standard_normal(1_000_000, dtype=np.float32)
    out = np.empty_like(x)
    X = te.placeholder((n,), F32, "X")
    Y = te.compute((n,), lambda i: te.exp(X[i]), "Y")
    run, paths = _kernel("exp", [X, Y], [x], out)
    return Case("exp 1M f32", run, lambda: np.exp(x), lambda: np.allclose(out, np.exp(x)), paths)


def add_case(rng: np.random.Generator) -> Case:
    n, m = sym("n"), sym("m")
    a = rng.standard_normal((1000, 1000), dtype=np.float32)
    b = rng.standard_normal(1000, dtype=np.float32)
    out = np.empty_like(a)
    A = te.placeholder((n, m), F32, "A")
    B = te.placeholder((m,), F32, "B")
    C = te.compute((n, m), lambda i, j: A[i, j] + B[j], "C")
    run, paths = _kernel("add", [A, B, C], [a, b], out)
    return Case(
        "add (1000,1000)+(1000,)", run, lambda: a + b, lambda: np.allclose(out, a + b), paths
    )


def softmax_te(n, m) -> tuple[te.Tensor, te.Tensor]:
    """Softmax over the last axis, as the operator legalizes it (max, exp, sum, divide)."""
    X = te.placeholder((n, m), F32, "X")
    k = te.reduce_axis(0, m, "k")
    M = te.compute((n,), lambda i: te.max(X[i, k], axis=k), "M")
    E = te.compute((n, m), lambda i, j: te.exp(X[i, j] - M[i]), "E")
    k2 = te.reduce_axis(0, m, "k")
    S = te.compute((n,), lambda i: te.sum(E[i, k2], axis=k2), "S")
    return X, te.compute((n, m), lambda i, j: E[i, j] / S[i], "Y")


def softmax_numpy(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_case(rng: np.random.Generator) -> Case:
    x = rng.standard_normal((256, 1000), dtype=np.float32)
    out = np.empty_like(x)
    X, Y = softmax_te(sym("n"), sym("m"))
    run, paths = _kernel("softmax", [X, Y], [x], out)
    check = lambda: np.allclose(out, softmax_numpy(x), atol=1e-6)  # noqa: E731
    return Case("softmax (256,1000)", run, lambda: softmax_numpy(x), check, paths)


def matmul_case(rng: np.random.Generator) -> Case:
    n, m, k = sym("n"), sym("m"), sym("k")
    a = rng.standard_normal((512, 512), dtype=np.float32)
    b = rng.standard_normal((512, 512), dtype=np.float32)
    out = np.empty_like(a)
    A = te.placeholder((n, k), F32, "A")
    B = te.placeholder((k, m), F32, "B")
    r = te.reduce_axis(0, k, "r")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), "C")
    run, paths = _kernel("matmul", [A, B, C], [a, b], out)
    check = lambda: np.allclose(out, a @ b, atol=1e-3)  # noqa: E731
    return Case("matmul 512x512", run, lambda: a @ b, check, paths)


def sum_case(rng: np.random.Generator) -> Case:
    n, m = sym("n"), sym("m")
    a = rng.standard_normal((1000, 1000), dtype=np.float32)
    out = np.empty(1000, np.float32)
    A = te.placeholder((n, m), F32, "A")
    r = te.reduce_axis(0, m, "r")
    S = te.compute((n,), lambda i: te.sum(A[i, r], axis=r), "S")
    run, paths = _kernel("sum", [A, S], [a], out)
    check = lambda: np.allclose(out, a.sum(axis=1), atol=1e-3)  # noqa: E731
    return Case("sum axis=1 (1000,1000)", run, lambda: a.sum(axis=1), check, paths)


def conv2d_numpy(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    # Weights first: tensordot then copies the windows with the image row innermost,
    # the faster of the two operand orders.
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = sliding_window_view(padded, w.shape[2:], axis=(2, 3))
    return np.tensordot(w, windows, axes=([1, 2, 3], [1, 4, 5])).transpose(1, 0, 2, 3)


def conv2d_case(rng: np.random.Generator) -> Case:
    n, c, h, w_, o = (sym(s) for s in ("n", "c", "h", "w", "o"))
    x = rng.standard_normal((1, 64, 56, 56), dtype=np.float32)
    w = rng.standard_normal((64, 64, 3, 3), dtype=np.float32)
    out = np.empty((1, 64, 56, 56), np.float32)
    X = te.placeholder((n, c, h, w_), F32, "X")
    W = te.placeholder((o, c, 3, 3), F32, "W")
    rc, rh, rw = te.reduce_axis(0, c, "rc"), te.reduce_axis(0, 3, "rh"), te.reduce_axis(0, 3, "rw")
    Y = te.compute(
        (n, o, h, w_),
        lambda b, f, y, z: te.sum(
            X.get((b, rc, y + rh - 1, z + rw - 1), pad=0.0) * W[f, rc, rh, rw], axis=[rc, rh, rw]
        ),
        "Y",
    )
    run, paths = _kernel("conv2d", [X, W, Y], [x, w], out)
    check = lambda: np.allclose(out, conv2d_numpy(x, w), atol=1e-3)  # noqa: E731
    return Case("conv2d (1,64,56,56) 3x3 pad 1", run, lambda: conv2d_numpy(x, w), check, paths)


def layer_norm_te(n, d) -> tuple[list[te.Tensor], te.Tensor]:
    """Layer norm over the last axis: mean, variance of the centred values, normalise."""
    X = te.placeholder((n, d), F32, "X")
    G = te.placeholder((d,), F32, "gamma")
    B = te.placeholder((d,), F32, "beta")
    k = te.reduce_axis(0, d, "k")
    size = te.index(d, F32)
    mean = te.compute((n,), lambda i: te.sum(X[i, k], axis=k) / size, "mean")
    k2 = te.reduce_axis(0, d, "k")

    def centred_square(i):
        centred = X[i, k2] - mean[i]
        return te.sum(centred * centred, axis=k2) / size

    var = te.compute((n,), centred_square, "var")
    eps = te.const(1e-5, F32)
    Y = te.compute(
        (n, d), lambda i, j: (X[i, j] - mean[i]) * te.rsqrt(var[i] + eps) * G[j] + B[j], "Y"
    )
    return [X, G, B], Y


def layer_norm_numpy(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(1e-5)) * g + b


def layer_norm_case(rng: np.random.Generator) -> Case:
    x = rng.standard_normal((256, 1024), dtype=np.float32)
    g = rng.standard_normal(1024, dtype=np.float32)
    b = rng.standard_normal(1024, dtype=np.float32)
    out = np.empty_like(x)
    inputs, Y = layer_norm_te(sym("n"), sym("d"))
    run, paths = _kernel("layer_norm", [*inputs, Y], [x, g, b], out)
    check = lambda: np.allclose(out, layer_norm_numpy(x, g, b), atol=1e-4)  # noqa: E731
    return Case("layer_norm (256,1024)", run, lambda: layer_norm_numpy(x, g, b), check, paths)


def take_case(rng: np.random.Generator) -> Case:
    """An embedding lookup as ``relax.take`` legalizes it (its own emit_te): negative
    indices counted from the end, every index checked against the table."""
    table = rng.standard_normal((30000, 512), dtype=np.float32)
    indices = rng.integers(0, 30000, (1, 128))
    out = np.empty((1, 128, 512), np.float32)
    v, d, b, s = (sym(x) for x in ("v", "d", "b", "s"))
    X = te.placeholder((v, d), F32, "X")
    ids = te.placeholder((b, s), I64, "I")
    Y = TakeOp.emit_te([X, ids], tensor((b, s, d), F32), {"axis": IntegerAttr(0, I64)})
    run, paths = _kernel("take", [X, ids, Y], [table, indices], out)
    check = lambda: np.array_equal(out, np.take(table, indices, axis=0))  # noqa: E731
    return Case(
        "take 128 rows of (30000,512)", run, lambda: np.take(table, indices, axis=0), check, paths
    )


CASES = [
    exp_case,
    add_case,
    softmax_case,
    matmul_case,
    sum_case,
    conv2d_case,
    layer_norm_case,
    take_case,
]


def _time(fn: Callable[[], object], inner: int) -> float:
    start = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - start) / inner


def machine() -> str:
    """CPU model and numpy version."""
    model = platform.processor() or "unknown CPU"
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        model = next(
            line.split(":", 1)[1].strip() for line in lscpu.splitlines() if "Model name" in line
        )
    except (OSError, subprocess.CalledProcessError, StopIteration):
        pass
    return f"{model}, numpy {np.__version__}, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=15, help="interleaved repetitions (>= 7)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    cases = [make(rng) for make in CASES]
    inner = {}
    for case in cases:
        case.kernel()
        if not case.check():
            raise SystemExit(f"{case.name}: the kernel's result differs from numpy")
        single = min(_time(case.numpy, 1) for _ in range(3))
        inner[case.name] = max(1, int(0.01 / max(single, 1e-6)))
    times: dict[str, tuple[list[float], list[float]]] = {c.name: ([], []) for c in cases}
    for _ in range(max(args.repeat, 7)):
        for case in cases:
            for which, fn in ((0, case.kernel), (1, case.numpy)):
                times[case.name][which].append(_time(fn, inner[case.name]))
    print(f"machine: {machine()}")
    print("| case | kernel (ms) | numpy (ms) | ratio | kernel path |")
    print("|---|---:|---:|---:|---|")
    for case in cases:
        kernel_times, numpy_times = times[case.name]
        kernel, numpy = (statistics.median(t) * 1e3 for t in (kernel_times, numpy_times))
        ratio = statistics.median(k / n for k, n in zip(kernel_times, numpy_times, strict=True))
        print(f"| {case.name} | {kernel:.3f} | {numpy:.3f} | {ratio:.2f} | {case.paths} |")


if __name__ == "__main__":
    main()
