"""TE programs for the docs/design.md §4 operators, written as their legalization builds them,
and the helpers that compile and run them against numpy.

Shapes are symbolic (``sym("n")``) wherever the operator allows, so one compiled kernel
serves every concrete shape a test draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import sympy

from xrelax.backends.kernels import Kernel, compile_prim_func
from xrelax.dialects import dtypes
from xrelax.dialects.shapes.symbolic import floordiv, floormod, smax, smin, sym
from xrelax.ops import te

F32 = dtypes.F32


# ----------------------------------------------------------------------------- running


def build(name: str, tensors: Sequence[te.Tensor]) -> tuple[Kernel, list[str]]:
    """Compile the prim_func of ``tensors``; the kernel and its sym parameter names."""
    func, sym_params = te.create_prim_func(name, tensors)
    return compile_prim_func(func), sym_params


def run(
    kernel: Kernel,
    inputs: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    syms: Sequence[int] = (),
) -> list[np.ndarray]:
    """Call ``kernel`` with fresh outputs shaped like ``expected``; the outputs."""
    outputs = [np.full(e.shape, 77, e.dtype) for e in expected]
    kernel(*inputs, *outputs, *syms)
    return outputs


def assert_vectorized(kernel: Kernel) -> None:
    """No store of ``kernel`` took the scalar fallback."""
    scalar = [str(p) for p in kernel.paths if p.path == "scalar"]
    assert not scalar, f"scalar fallback in @{kernel.name}: {scalar}"


def check(
    name: str,
    tensors: Sequence[te.Tensor],
    inputs: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    syms: Sequence[int] = (),
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> Kernel:
    """Compile, run and compare with ``expected`` (dtype and values); the kernel."""
    kernel, _ = build(name, tensors)
    assert_vectorized(kernel)
    for got, want in zip(run(kernel, inputs, expected, syms), expected, strict=True):
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(got, want)
    return kernel


# ----------------------------------------------------------------------------- helpers


def shape_vars(prefix: str, rank: int) -> list[sympy.Expr]:
    """``[prefix0, prefix1, ...]`` symbolic dimensions."""
    return [sym(f"{prefix}{k}") for k in range(rank)]


def broadcast_indices(tensor: te.Tensor, out: Sequence[sympy.Expr], ones: set[int]) -> list:
    """The indices of ``tensor`` at output position ``out`` under numpy broadcasting;
    ``ones`` lists the tensor's dimensions that are (statically) 1."""
    offset = len(out) - tensor.ndim
    return [0 if k in ones else out[offset + k] for k in range(tensor.ndim)]


# ----------------------------------------------------------------------------- elementwise

UNARY: dict[str, tuple[Callable[[te.Expr], te.Expr], Callable[[np.ndarray], np.ndarray]]] = {
    "exp": (te.exp, np.exp),
    "log": (te.log, np.log),
    "sqrt": (te.sqrt, np.sqrt),
    "rsqrt": (te.rsqrt, lambda x: 1 / np.sqrt(x)),
    "tanh": (te.tanh, np.tanh),
    "sigmoid": (te.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "relu": (lambda x: te.maximum(x, 0.0), lambda x: np.maximum(x, 0)),
    "gelu": (
        lambda x: x * 0.5 * (1.0 + te.erf(x * float(1 / np.sqrt(2)))),
        lambda x: x * 0.5 * (1 + np.vectorize(math.erf, otypes=[np.float64])(x / np.sqrt(2))),
    ),
    "silu": (lambda x: x * te.sigmoid(x), lambda x: x / (1 + np.exp(-x))),
    "negative": (lambda x: -x, np.negative),
    "abs": (te.abs, np.abs),
}

BINARY: dict[str, tuple[Callable, Callable]] = {
    "add": (lambda a, b: a + b, np.add),
    "subtract": (lambda a, b: a - b, np.subtract),
    "multiply": (lambda a, b: a * b, np.multiply),
    "divide": (lambda a, b: a / b, np.divide),
    "power": (te.power, np.power),
    "maximum": (te.maximum, np.maximum),
    "minimum": (te.minimum, np.minimum),
}

COMPARE: dict[str, tuple[Callable, Callable]] = {
    "equal": (lambda a, b: a == b, np.equal),
    "not_equal": (lambda a, b: a != b, np.not_equal),
    "less": (lambda a, b: a < b, np.less),
    "less_equal": (lambda a, b: a <= b, np.less_equal),
    "greater": (lambda a, b: a > b, np.greater),
    "greater_equal": (lambda a, b: a >= b, np.greater_equal),
}


def unary(op: str, rank: int, dtype=F32) -> tuple[te.Tensor, te.Tensor]:
    """``relax.<op> x``."""
    X = te.placeholder(shape_vars("n", rank), dtype, "x")
    fn = UNARY[op][0]
    return X, te.compute(X.shape, lambda *i: fn(X[i]), op)


def binary(
    fn: Callable, a_shape: Sequence, b_shape: Sequence, dtype=F32, out_dtype=None
) -> tuple[te.Tensor, te.Tensor, te.Tensor]:
    """A broadcasting binary map; shapes hold symbolic dims or the int 1."""
    A = te.placeholder(a_shape, dtype, "a")
    B = te.placeholder(b_shape, dtype, "b")
    rank = max(len(a_shape), len(b_shape))
    out = []
    for k in range(rank):
        dims = [s[len(s) - rank + k] for s in (a_shape, b_shape) if len(s) - rank + k >= 0]
        out.append(next((d for d in dims if d != 1), 1))
    a_ones = {k for k, d in enumerate(a_shape) if d == 1}
    b_ones = {k for k, d in enumerate(b_shape) if d == 1}
    C = te.compute(
        out,
        lambda *i: fn(A[broadcast_indices(A, i, a_ones)], B[broadcast_indices(B, i, b_ones)]),
        "c",
    )
    return A, B, C


def where(c_shape: Sequence, a_shape: Sequence, b_shape: Sequence, out_shape: Sequence):
    """``relax.where cond, a, b`` with broadcasting."""
    C = te.placeholder(c_shape, dtypes.I1, "cond")
    A = te.placeholder(a_shape, F32, "a")
    B = te.placeholder(b_shape, F32, "b")
    ones = [{k for k, d in enumerate(s) if d == 1} for s in (c_shape, a_shape, b_shape)]
    Y = te.compute(
        out_shape,
        lambda *i: te.if_then_else(
            C[broadcast_indices(C, i, ones[0])],
            A[broadcast_indices(A, i, ones[1])],
            B[broadcast_indices(B, i, ones[2])],
        ),
        "y",
    )
    return C, A, B, Y


# ----------------------------------------------------------------------------- linear algebra


def matmul(a_shape: Sequence, b_shape: Sequence, dtype=F32):
    """``relax.matmul``: batched over broadcast leading dims (rank >= 2 operands)."""
    A = te.placeholder(a_shape, dtype, "a")
    B = te.placeholder(b_shape, dtype, "b")
    k = te.reduce_axis(0, a_shape[-1], "k")
    batch_rank = max(len(a_shape), len(b_shape)) - 2
    batch = []
    for d in range(batch_rank):
        dims = [
            s[len(s) - 2 - batch_rank + d]
            for s in (a_shape, b_shape)
            if len(s) - 2 - batch_rank + d >= 0
        ]
        batch.append(next((x for x in dims if x != 1), 1))
    out = [*batch, a_shape[-2], b_shape[-1]]

    def body(*i):
        b_idx = i[:batch_rank]
        a_ones = {d for d, x in enumerate(a_shape[:-2]) if x == 1}
        b_ones = {d for d, x in enumerate(b_shape[:-2]) if x == 1}
        a_batch = [
            0 if d in a_ones else b_idx[batch_rank - (len(a_shape) - 2) + d]
            for d in range(len(a_shape) - 2)
        ]
        b_batch = [
            0 if d in b_ones else b_idx[batch_rank - (len(b_shape) - 2) + d]
            for d in range(len(b_shape) - 2)
        ]
        return te.sum(A[(*a_batch, i[-2], k)] * B[(*b_batch, k, i[-1])], axis=k)

    return A, B, te.compute(out, body, "matmul")


# ----------------------------------------------------------------------------- manipulation


def unravel(flat: sympy.Expr, dims: Sequence[sympy.Expr]) -> list[sympy.Expr]:
    """The row-major multi-index of ``flat`` in ``dims`` (floordiv / floormod)."""
    indices = []
    stride = sympy.Integer(1)
    strides = []
    for d in reversed(dims):
        strides.append(stride)
        stride = stride * d
    strides.reverse()
    for k, s in enumerate(strides):
        index = floordiv(flat, s)
        indices.append(floormod(index, dims[k]) if k else index)
    return indices


def reshape(in_shape: Sequence, out_shape: Sequence):
    """``relax.reshape``: row-major flat index of the output unravelled in the input."""
    X = te.placeholder(in_shape, F32, "x")

    def body(*i):
        flat = sympy.Integer(0)
        for index, dim in zip(i, out_shape, strict=True):
            flat = flat * dim + index
        return X[unravel(flat, in_shape)]

    return X, te.compute(out_shape, body, "reshape")


def permute_dims(rank: int, axes: Sequence[int]):
    """``relax.permute_dims``."""
    X = te.placeholder(shape_vars("n", rank), F32, "x")
    out_shape = [X.shape[a] for a in axes]

    def body(*i):
        index = [None] * rank
        for k, a in enumerate(axes):
            index[a] = i[k]
        return X[index]

    return X, te.compute(out_shape, body, "permute_dims")


def expand_dims(rank: int, axis: int):
    """``relax.expand_dims`` at ``axis``."""
    X = te.placeholder(shape_vars("n", rank), F32, "x")
    out = list(X.shape)
    out.insert(axis, 1)
    return X, te.compute(out, lambda *i: X[i[:axis] + i[axis + 1 :]], "expand_dims")


def squeeze(shape: Sequence, axis: int):
    """``relax.squeeze`` of a size-1 ``axis``."""
    X = te.placeholder(shape, F32, "x")
    out = [d for k, d in enumerate(shape) if k != axis]
    return X, te.compute(out, lambda *i: X[(*i[:axis], 0, *i[axis:])], "squeeze")


def concat(count: int, axis: int, rank: int = 2):
    """``relax.concat`` of ``count`` tensors along ``axis``."""
    inputs = []
    for k in range(count):
        shape = shape_vars("n", rank)
        shape[axis] = sym(f"c{k}")
        inputs.append(te.placeholder(shape, F32, f"x{k}"))
    out = list(inputs[0].shape)
    out[axis] = sum((t.shape[axis] for t in inputs), sympy.Integer(0))

    def body(*i):
        offsets = [sympy.Integer(0)]
        for t in inputs:
            offsets.append(offsets[-1] + t.shape[axis])
        value = None
        for t, start in reversed(list(zip(inputs, offsets, strict=False))):
            index = list(i)
            index[axis] = i[axis] - start
            value = (
                t[index]
                if value is None
                else te.if_then_else(i[axis] < start + t.shape[axis], t[index], value)
            )
        return value

    return inputs, te.compute(out, body, "concat")


def split(sections: int, axis: int, rank: int = 2):
    """``relax.split`` into ``sections`` equal parts (the dim is ``sections * p``)."""
    shape = shape_vars("n", rank)
    part = sym("p")
    shape[axis] = sections * part
    X = te.placeholder(shape, F32, "x")
    outs = []
    for k in range(sections):
        out = list(shape)
        out[axis] = part

        def body(*i, k=k):
            index = list(i)
            index[axis] = i[axis] + k * part
            return X[index]

        outs.append(te.compute(out, body, f"split{k}"))
    return X, outs


def take(axis: int, index_dtype=dtypes.I64, rank: int = 2):
    """``relax.take`` along ``axis`` with a 1-d index tensor."""
    X = te.placeholder(shape_vars("n", rank), F32, "x")
    k = sym("k")
    Idx = te.placeholder((k,), index_dtype, "indices")
    out = list(X.shape)
    out[axis] = k

    def body(*i):
        index = list(i)
        index[axis] = Idx[i[axis]]
        return X[index]

    return X, Idx, te.compute(out, body, "take")


def strided_slice(dim: int, begin: int, end: int, stride: int):
    """``relax.strided_slice`` of a ``(dim, m)`` tensor along axis 0 (static dim)."""
    X = te.placeholder((dim, sym("m")), F32, "x")
    length = len(range(begin, end, stride))
    return X, te.compute((length, sym("m")), lambda i, j: X[begin + i * stride, j], "slice")


# ----------------------------------------------------------------------------- reductions


def reduce(op: str, rank: int, axes: Sequence[int], keepdims: bool, dtype=F32):
    """``relax.sum/mean/max/min`` (and a product) over ``axes``."""
    X = te.placeholder(shape_vars("n", rank), dtype, "x")
    raxes = {a: te.reduce_axis(0, X.shape[a], f"r{a}") for a in axes}
    out = [1 if a in raxes else d for a, d in enumerate(X.shape) if keepdims or a not in raxes]
    count = sympy.Integer(1)
    for a in axes:
        count = count * X.shape[a]

    def body(*i):
        it = iter(i)
        index = []
        for a in range(rank):
            if a in raxes:
                if keepdims:
                    next(it)
                index.append(raxes[a])
            else:
                index.append(next(it))
        value = X[index]
        combiner = {
            "sum": te.sum,
            "mean": te.sum,
            "max": te.max,
            "min": te.min,
            "prod": te.prod,
        }[op]
        result = combiner(value, axis=list(raxes.values()))
        return result / te.index(count, dtype) if op == "mean" else result

    return X, te.compute(out, body, op)


def softmax(rank: int, axis: int, log: bool = False):
    """``relax.softmax`` / ``relax.log_softmax`` over ``axis``: max, exp, sum, normalise."""
    X = te.placeholder(shape_vars("n", rank), F32, "x")
    k = te.reduce_axis(0, X.shape[axis], "k")
    red_shape = [d for a, d in enumerate(X.shape) if a != axis]

    def keep(i):
        return [i[a] for a in range(rank) if a != axis]

    M = te.compute(red_shape, lambda *i: te.max(X[[*i[:axis], k, *i[axis:]]], axis=k), "max")
    E = te.compute(X.shape, lambda *i: te.exp(X[i] - M[keep(i)]), "exp")
    k2 = te.reduce_axis(0, X.shape[axis], "k")
    S = te.compute(red_shape, lambda *i: te.sum(E[[*i[:axis], k2, *i[axis:]]], axis=k2), "sum")
    if log:
        out = te.compute(X.shape, lambda *i: X[i] - M[keep(i)] - te.log(S[keep(i)]), "log_softmax")
    else:
        out = te.compute(X.shape, lambda *i: E[i] / S[keep(i)], "softmax")
    return X, out


def layer_norm(rank: int, epsilon: float = 1e-5):
    """``relax.layer_norm`` over the last axis."""
    X = te.placeholder(shape_vars("n", rank), F32, "x")
    d = X.shape[-1]
    G = te.placeholder((d,), F32, "gamma")
    B = te.placeholder((d,), F32, "beta")
    k = te.reduce_axis(0, d, "k")
    size = te.index(d, F32)
    lead = X.shape[:-1]
    mean = te.compute(lead, lambda *i: te.sum(X[(*i, k)], axis=k) / size, "mean")
    k2 = te.reduce_axis(0, d, "k")

    def variance(*i):
        centred = X[(*i, k2)] - mean[i]
        return te.sum(centred * centred, axis=k2) / size

    var = te.compute(lead, variance, "var")
    eps = te.const(epsilon, F32)
    Y = te.compute(
        X.shape,
        lambda *i: (X[i] - mean[i[:-1]]) * te.rsqrt(var[i[:-1]] + eps) * G[i[-1]] + B[i[-1]],
        "layer_norm",
    )
    return [X, G, B], Y


# ----------------------------------------------------------------------------- nn


def conv(
    spatial: int,
    kernel: Sequence[int],
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    channels: tuple[int, int] | None = None,
):
    """``relax.conv1d`` (NCW, OIW) / ``relax.conv2d`` (NCHW, OIHW).

    With ``channels = (in, out)`` the channel counts are static (grouped convolution
    needs them to split the channels); otherwise they are symbolic and ``groups`` is 1.
    """
    n = sym("n")
    cin, cout = channels if channels is not None else (sym("ci"), sym("co"))
    sizes = shape_vars("s", spatial)
    X = te.placeholder((n, cin, *sizes), F32, "x")
    W = te.placeholder((cout, floordiv(cin, groups), *kernel), F32, "w")
    out_sizes = [
        floordiv(s + 2 * p - d * (k - 1) - 1, st) + 1
        for s, k, st, p, d in zip(sizes, kernel, strides, padding, dilation, strict=True)
    ]
    rc = te.reduce_axis(0, floordiv(cin, groups), "rc")
    rk = [te.reduce_axis(0, k, f"r{a}") for a, k in enumerate(kernel)]
    out_per_group = floordiv(cout, groups)

    def body(b, o, *pos):
        channel = floordiv(o, out_per_group) * floordiv(cin, groups) + rc if groups > 1 else rc
        index = [
            p * st + r * d - pd
            for p, r, st, d, pd in zip(pos, rk, strides, dilation, padding, strict=True)
        ]
        value = X.get((b, channel, *index), pad=0.0) if any(padding) else X[(b, channel, *index)]
        return te.sum(value * W[(o, rc, *rk)], axis=[rc, *rk])

    return X, W, te.compute((n, cout, *out_sizes), body, f"conv{spatial}d")


def pool2d(kind: str, size: Sequence[int], strides: Sequence[int], padding: Sequence[int]):
    """``relax.max_pool2d`` / ``relax.avg_pool2d`` (NCHW; average without the padding)."""
    n, c, h, w = (sym(s) for s in ("n", "c", "h", "w"))
    X = te.placeholder((n, c, h, w), F32, "x")
    outs = [
        floordiv(s + 2 * p - k, st) + 1
        for s, k, st, p in zip((h, w), size, strides, padding, strict=True)
    ]
    rh, rw = te.reduce_axis(0, size[0], "rh"), te.reduce_axis(0, size[1], "rw")

    def window(b, ch, y, x):
        pad = -np.inf if kind == "max" else 0.0
        return X.get(
            (b, ch, y * strides[0] + rh - padding[0], x * strides[1] + rw - padding[1]), pad=pad
        )

    if kind == "max":
        body = lambda b, ch, y, x: te.max(window(b, ch, y, x), axis=[rh, rw])  # noqa: E731
    else:

        def body(b, ch, y, x):
            count = sympy.Integer(1)
            for pos, k, st, p, dim in zip((y, x), size, strides, padding, (h, w), strict=True):
                start = pos * st - p
                count = count * (smin(start + k, dim) - smax(start, 0))
            return te.sum(window(b, ch, y, x), axis=[rh, rw]) / te.index(count, F32)

    return X, te.compute((n, c, *outs), body, f"{kind}_pool2d")


# ----------------------------------------------------------------------------- creation


def astype(source, target, rank: int = 2):
    """``relax.astype``."""
    X = te.placeholder(shape_vars("n", rank), source, "x")
    return X, te.compute(X.shape, lambda *i: te.cast(X[i], target), "astype")


def full(value, dtype, rank: int = 2):
    """``relax.zeros`` / ``relax.ones`` (``value`` a number) or ``relax.full`` (None:
    the fill is a 0-d tensor)."""
    shape = shape_vars("n", rank)
    if value is None:
        fill = te.placeholder((), dtype, "fill")
        return [fill], te.compute(shape, lambda *i: fill[()], "full")
    return [], te.compute(shape, lambda *i: te.const(value, dtype), "full", dtype=dtype)


def triangular(lower: bool, k: int, dtype=F32):
    """``relax.tril`` (``lower``) or ``relax.triu`` of diagonal ``k`` of a rank-3 tensor."""
    X = te.placeholder(shape_vars("n", 3), dtype, "x")
    zero = te.const(0, dtype)

    def body(b, i, j):
        keep = j - i <= k if lower else j - i >= k
        return te.if_then_else(keep, X[b, i, j], zero)

    return X, te.compute(X.shape, body, "tril" if lower else "triu")


def arange(dtype):
    """``relax.arange`` whose start and step are symbolic integers (sym parameters):
    the length ``n`` is value-dependent, bound by the output buffer."""
    start, step = sym("start"), sym("step")
    return te.compute((sym("n"),), lambda i: te.index(start + i * step, dtype), "arange")


def arange_tensors(dtype):
    """``relax.arange`` whose start and step are 0-d tensors."""
    start = te.placeholder((), dtype, "start")
    step = te.placeholder((), dtype, "step")
    out = te.compute((sym("n"),), lambda i: start[()] + te.index(i, dtype) * step[()], "arange")
    return [start, step], out


def call_tir_dyn():
    """The seeds' call_tir_dyn example: ``[n, 2 * floordiv(m, 2)]`` needs ``sym [m]``."""
    n, m = sym("n"), sym("m")
    shape = (n, 2 * floordiv(m, 2))
    A = te.placeholder(shape, F32, "A")
    return A, te.compute(shape, lambda i, j: A[i, j] * 2.0, "B")
