"""Every docs/design.md §4 operator, as legalization builds it with the TE builder, compiled by
the kernel backend and run on random shapes and values against numpy; none of these
kernels may take the scalar fallback."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import te_programs as tp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import sliding_window_view

from xrelax.dialects import dtypes

SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RNG = np.random.default_rng(0)
F32, I32, I64, I1 = dtypes.F32, dtypes.I32, dtypes.I64, dtypes.I1

dims = st.integers(1, 5)


def floats(shape, low=-2.0, high=2.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


def ints(shape, low=-5, high=6, dtype=np.int32) -> np.ndarray:
    return RNG.integers(low, high, shape).astype(dtype)


# ----------------------------------------------------------------------------- elementwise


@pytest.mark.parametrize("op", sorted(tp.UNARY))
@SETTINGS
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=3))
def test_unary(op, shape):
    X, Y = tp.unary(op, len(shape))
    positive = op in ("log", "sqrt", "rsqrt")
    x = floats(shape, 0.1 if positive else -3.0, 3.0)
    expected = tp.UNARY[op][1](x.astype(np.float64)).astype(np.float32)
    tp.check(op, [X, Y], [x], [expected], rtol=2e-5, atol=1e-6)


def broadcast_shapes(draw, rank_a: int, rank_b: int):
    """Symbolic operand shapes (dims or static 1) and concrete output dims."""
    rank = max(rank_a, rank_b)
    out = [draw(dims) for _ in range(rank)]
    syms = tp.shape_vars("n", rank)
    shapes, concrete = [], []
    for r in (rank_a, rank_b):
        ones = [draw(st.booleans()) for _ in range(r)]
        shapes.append([1 if one else syms[rank - r + k] for k, one in enumerate(ones)])
        concrete.append([1 if one else out[rank - r + k] for k, one in enumerate(ones)])
    return shapes, concrete


@pytest.mark.parametrize("op", sorted(tp.BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_broadcast_float(op, data):
    rank_a, rank_b = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    (sa, sb), (ca, cb) = broadcast_shapes(data.draw, rank_a, rank_b)
    fn, ref = tp.BINARY[op]
    A, B, C = tp.binary(fn, sa, sb)
    a = floats(ca, 0.5, 2.0) if op == "power" else floats(ca)
    b = floats(cb, 0.5, 2.0) if op in ("power", "divide") else floats(cb)
    tp.check(op, [A, B, C], [a, b], [ref(a, b).astype(np.float32)], rtol=2e-5)


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "maximum", "minimum", "power"])
@SETTINGS
@given(data=st.data())
def test_binary_broadcast_int(op, data):
    (sa, sb), (ca, cb) = broadcast_shapes(data.draw, data.draw(st.integers(1, 3)), 2)
    fn, ref = tp.BINARY[op]
    A, B, C = tp.binary(fn, sa, sb, dtype=I32)
    a = ints(ca)
    b = ints(cb, 0, 4) if op == "power" else ints(cb)
    tp.check(f"{op}_i32", [A, B, C], [a, b], [ref(a, b).astype(np.int32)])


def test_integer_division_floors():
    n = tp.shape_vars("n", 1)
    for name, fn, ref in (
        ("floordiv", lambda a, b: a // b, np.floor_divide),
        ("mod", lambda a, b: a % b, np.mod),
    ):
        A, B, C = tp.binary(fn, n, n, dtype=I32)
        a = ints(20, -9, 10)
        b = ints(20, -4, 5)
        b[b == 0] = 3
        tp.check(name, [A, B, C], [a, b], [ref(a, b)])


@pytest.mark.parametrize("op", sorted(tp.COMPARE))
@pytest.mark.parametrize("dtype", [F32, I32])
@SETTINGS
@given(data=st.data())
def test_compare(op, dtype, data):
    (sa, sb), (ca, cb) = broadcast_shapes(data.draw, 2, data.draw(st.integers(1, 2)))
    fn, ref = tp.COMPARE[op]
    A, B, C = tp.binary(fn, sa, sb, dtype=dtype)
    make = (lambda s: np.round(floats(s))) if dtype == F32 else (lambda s: ints(s, -2, 3))
    a, b = make(ca), make(cb)
    tp.check(f"{op}_{dtypes.NAME_OF[dtype]}", [A, B, C], [a, b], [ref(a, b)])


@SETTINGS
@given(data=st.data())
def test_where(data):
    out = [data.draw(dims) for _ in range(2)]
    n = tp.shape_vars("n", 2)
    c_ones = [data.draw(st.booleans()) for _ in range(2)]
    shapes = [[1 if one else n[k] for k, one in enumerate(c_ones)], [n[1]], n]
    concrete = [[1 if one else out[k] for k, one in enumerate(c_ones)], [out[1]], out]
    C, A, B, Y = tp.where(*shapes, n)
    cond = RNG.random(concrete[0]) < 0.5
    a, b = floats(concrete[1]), floats(concrete[2])
    tp.check("where", [C, A, B, Y], [cond, a, b], [np.where(cond, a, b)])


# ----------------------------------------------------------------------------- matmul

MATMUL_SHAPES = {
    "2d": (["n", "k"], ["k", "m"]),
    "batched": (["b", "n", "k"], ["b", "k", "m"]),
    "batched_rhs_2d": (["b", "n", "k"], ["k", "m"]),
    "broadcast": ([1, "n", "k"], ["b", "k", "m"]),
    "broadcast_4d": (["a", 1, "n", "k"], ["c", "k", "m"]),
}


@pytest.mark.parametrize("case", sorted(MATMUL_SHAPES))
@pytest.mark.parametrize("dtype", [F32, I32])
@SETTINGS
@given(data=st.data())
def test_matmul(case, dtype, data):
    sa, sb = MATMUL_SHAPES[case]
    values = {name: data.draw(dims) for name in "abcnkm"}
    to_sym = lambda s: [x if x == 1 else tp.sym(x) for x in s]  # noqa: E731
    A, B, C = tp.matmul(to_sym(sa), to_sym(sb), dtype)
    ca = [x if x == 1 else values[x] for x in sa]
    cb = [x if x == 1 else values[x] for x in sb]
    make = floats if dtype == F32 else ints
    a, b = make(ca), make(cb)
    kernel = tp.check(f"matmul_{case}", [A, B, C], [a, b], [a @ b], rtol=1e-5, atol=1e-5)
    assert kernel.paths[-1].path == "matmul"


def test_strided_arguments_where_the_code_needs_row_major_memory():
    """A batched product reshapes its output and a flatten reads the input's memory: a
    strided buffer there is used through a C-ordered copy (an output is copied back)."""
    b, n, k, m = (tp.sym(v) for v in "bnkm")
    A, B, C = tp.matmul([b, n, k], [k, m])
    kernel, _ = tp.build("matmul_strided", [A, B, C])
    a = floats((2, 4, 3)).transpose(0, 2, 1)
    w = floats((4, 6))[:, ::2]
    out = np.zeros((2, 3, 6), np.float32)[:, :, ::2]
    kernel(a, w, out)
    np.testing.assert_allclose(out, a @ w, rtol=1e-5, atol=1e-6)
    X, Y = tp.reshape((n, k), (n * k,))
    flatten, _ = tp.build("flatten_strided", [X, Y])
    x = floats((4, 3)).T
    y = np.zeros(24, np.float32)[::2]
    flatten(x, y)
    np.testing.assert_array_equal(y, x.reshape(-1))


# ----------------------------------------------------------------------------- manipulation


@SETTINGS
@given(a=dims, b=dims, c=dims)
def test_reshape_flatten_and_back(a, b, c):
    x = floats((a, b, c))
    sa, sb, sc = tp.sym("a"), tp.sym("b"), tp.sym("c")
    for name, in_shape, out_shape, concrete, syms in (
        ("flatten", (sa, sb, sc), (sa * sb * sc,), (a * b * c,), ()),
        ("reshape_swap", (sa, sb * sc), (sb * sc, sa), (b * c, a), (b, c)),
        ("reshape_split", (sa * sb, sc), (sa, sb, sc), (a, b, c), ()),
    ):
        X, Y = tp.reshape(in_shape, out_shape)
        source = x.reshape([int(d.subs({sa: a, sb: b, sc: c})) for d in in_shape])
        kernel = tp.check(name, [X, Y], [source], [source.reshape(concrete)], syms)
        assert kernel.paths[0].detail == "reshape", kernel.paths


def test_reshape_recognised_with_floormod_on_every_index():
    a, b, c = (tp.sym(v) for v in "abc")
    X = tp.te.placeholder((a, b, c), F32, "x")
    Y = tp.te.compute(
        (a * b * c,),
        lambda f: X[
            tp.floormod(tp.floordiv(f, b * c), a),
            tp.floormod(tp.floordiv(f, c), b),
            tp.floormod(f, c),
        ],
        "y",
    )
    x = floats((2, 3, 4))
    kernel = tp.check("flatten_wrapped", [X, Y], [x], [x.ravel()])
    assert kernel.paths[0].detail == "reshape"


@pytest.mark.parametrize("axes", list(itertools.permutations(range(3))))
def test_permute_dims(axes):
    X, Y = tp.permute_dims(3, axes)
    x = floats((2, 3, 4))
    tp.check("permute_dims", [X, Y], [x], [np.transpose(x, axes)])


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_expand_dims_and_squeeze(axis):
    X, Y = tp.expand_dims(2, axis)
    x = floats((3, 4))
    tp.check("expand_dims", [X, Y], [x], [np.expand_dims(x, axis)])
    shape = list(tp.shape_vars("n", 2))
    shape.insert(axis, 1)
    X, Y = tp.squeeze(shape, axis)
    tp.check("squeeze", [X, Y], [np.expand_dims(x, axis)], [x])


@pytest.mark.parametrize("count", [2, 3])
@pytest.mark.parametrize("axis", [0, 1])
@SETTINGS
@given(data=st.data())
def test_concat(count, axis, data):
    inputs, Y = tp.concat(count, axis)
    other = data.draw(dims)
    arrays = []
    for _ in range(count):
        shape = [other, other]
        shape[axis] = data.draw(st.integers(0, 4))
        arrays.append(floats(shape))
    kernel = tp.check("concat", [*inputs, Y], arrays, [np.concatenate(arrays, axis)])
    assert "split into" in kernel.paths[0].detail


@pytest.mark.parametrize("axis", [0, 1])
@SETTINGS
@given(n=dims, m=dims, p=dims)
def test_split(axis, n, m, p):
    X, outs = tp.split(3, axis)
    shape = [n, m]
    shape[axis] = 3 * p
    x = floats(shape)
    tp.check("split", [X, *outs], [x], np.split(x, 3, axis))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("index_dtype", [I64, I32])
@SETTINGS
@given(n=dims, m=dims, k=st.integers(0, 6))
def test_take(axis, index_dtype, n, m, k):
    X, Idx, Y = tp.take(axis, index_dtype)
    x = floats((n, m))
    indices = RNG.integers(0, x.shape[axis], k).astype(dtypes.numpy_dtype(index_dtype))
    tp.check("take", [X, Idx, Y], [x, indices], [np.take(x, indices, axis)])


@SETTINGS
@given(
    dim=st.integers(1, 8),
    begin=st.integers(-8, 8),
    end=st.integers(-9, 9),
    stride=st.integers(-3, 3).filter(bool),
    m=dims,
)
def test_strided_slice(dim, begin, end, stride, m):
    begin, end, _ = slice(begin, end, stride).indices(dim)
    X, Y = tp.strided_slice(dim, begin, end, stride)
    x = floats((dim, m))
    tp.check("strided_slice", [X, Y], [x], [x[list(range(begin, end, stride))]])


# ----------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
@SETTINGS
@given(data=st.data())
def test_reduce_float(op, data):
    rank = data.draw(st.integers(1, 3))
    axes = data.draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    keepdims = data.draw(st.booleans())
    X, Y = tp.reduce(op, rank, sorted(axes), keepdims)
    x = floats([data.draw(dims) for _ in range(rank)])
    ref = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}[op]
    expected = np.asarray(ref(x, axis=tuple(axes), keepdims=keepdims), np.float32)
    tp.check(op, [X, Y], [x], [expected], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["sum", "max", "min"])
@SETTINGS
@given(data=st.data())
def test_reduce_int(op, data):
    axes = data.draw(st.lists(st.integers(0, 1), min_size=1, max_size=2, unique=True))
    X, Y = tp.reduce(op, 2, sorted(axes), False, dtype=I32)
    x = ints([data.draw(dims) for _ in range(2)])
    ref = {"sum": np.sum, "max": np.max, "min": np.min}[op]
    tp.check(f"{op}_i32", [X, Y], [x], [np.asarray(ref(x, axis=tuple(axes)), np.int32)])


def test_product_and_boolean_reductions():
    X, Y = tp.reduce("prod", 2, [1], False)
    x = floats((3, 4), 0.5, 1.5)
    tp.check("prod", [X, Y], [x], [x.prod(axis=1)], rtol=1e-5)
    for op, ref in (("max", np.any), ("min", np.all)):
        X, Y = tp.reduce(op, 2, [0], True, dtype=dtypes.I1)
        x = RNG.random((4, 5)) < 0.3
        tp.check(f"{op}_i1", [X, Y], [x], [ref(x, axis=0, keepdims=True)])


def test_sum_over_an_empty_axis_is_zero():
    X, Y = tp.reduce("sum", 2, [1], False)
    tp.check("sum_empty", [X, Y], [floats((3, 0))], [np.zeros(3, np.float32)])


@pytest.mark.parametrize("log", [False, True])
@SETTINGS
@given(data=st.data())
def test_softmax(log, data):
    rank = data.draw(st.integers(1, 3))
    axis = data.draw(st.integers(0, rank - 1))
    X, Y = tp.softmax(rank, axis, log)
    x = floats([data.draw(dims) for _ in range(rank)], -5, 5)
    shifted = x - x.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    expected = (
        shifted - np.log(e.sum(axis=axis, keepdims=True))
        if log
        else e / e.sum(axis=axis, keepdims=True)
    )
    tp.check(
        "log_softmax" if log else "softmax",
        [X, Y],
        [x],
        [expected.astype(np.float32)],
        rtol=1e-5,
        atol=1e-6,
    )


@SETTINGS
@given(data=st.data())
def test_layer_norm(data):
    rank = data.draw(st.integers(2, 3))
    inputs, Y = tp.layer_norm(rank)
    x = floats([data.draw(dims) for _ in range(rank)])
    g, b = floats(x.shape[-1]), floats(x.shape[-1])
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    expected = ((x - mean) / np.sqrt(var + 1e-5) * g + b).astype(np.float32)
    tp.check("layer_norm", [*inputs, Y], [x, g, b], [expected], rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------- nn


def conv_reference(x, w, strides, padding, dilation, groups):
    """Grouped N-d convolution with numpy: padded sliding windows and einsum per group."""
    spatial = x.ndim - 2
    pad = [(0, 0), (0, 0)] + [(p, p) for p in padding]
    xp = np.pad(x.astype(np.float64), pad)
    kernel = w.shape[2:]
    extents = [d * (k - 1) + 1 for d, k in zip(dilation, kernel, strict=True)]
    windows = sliding_window_view(xp, extents, axis=tuple(range(2, 2 + spatial)))
    select = (Ellipsis,) + tuple(slice(None, None, d) for d in dilation)
    windows = windows[select]
    stride = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)
    windows = windows[stride]
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    letters = "hw"[:spatial] if spatial == 2 else "w"
    rletters = "rs"[:spatial]
    parts = []
    for g in range(groups):
        win = windows[:, g * cg : (g + 1) * cg]
        parts.append(
            np.einsum(
                f"nc{letters}{rletters},oc{rletters}->no{letters}", win, w[g * og : (g + 1) * og]
            )
        )
    return np.concatenate(parts, axis=1).astype(np.float32)


conv_attrs = st.tuples(st.integers(1, 3), st.integers(1, 2), st.integers(0, 2), st.integers(1, 2))


@SETTINGS
@given(
    attrs=conv_attrs,
    n=st.integers(1, 2),
    cin=st.integers(1, 3),
    cout=st.integers(1, 3),
    data=st.data(),
)
def test_conv1d(attrs, n, cin, cout, data):
    k, stride, pad, dil = attrs
    size = data.draw(st.integers(max(1, dil * (k - 1) + 1 - 2 * pad), 7))
    X, W, Y = tp.conv(1, [k], [stride], [pad], [dil], 1)
    x, w = floats((n, cin, size)), floats((cout, cin, k))
    expected = conv_reference(x, w, [stride], [pad], [dil], 1)
    kernel = tp.check("conv1d", [X, W, Y], [x, w], [expected], rtol=1e-4, atol=1e-5)
    assert kernel.paths[-1].path == "matmul"


@SETTINGS
@given(
    attrs=st.tuples(conv_attrs, conv_attrs),
    groups=st.sampled_from([1, 1, 2, 3]),
    cg=st.integers(1, 2),
    og=st.integers(1, 2),
    data=st.data(),
)
def test_conv2d(attrs, groups, cg, og, data):
    (kh, sh, ph, dh), (kw, sw, pw, dw) = attrs
    h = data.draw(st.integers(max(1, dh * (kh - 1) + 1 - 2 * ph), 6))
    w_ = data.draw(st.integers(max(1, dw * (kw - 1) + 1 - 2 * pw), 6))
    cin, cout = groups * cg, groups * og
    X, W, Y = tp.conv(2, [kh, kw], [sh, sw], [ph, pw], [dh, dw], groups, (cin, cout))
    x, w = floats((2, cin, h, w_)), floats((cout, cg, kh, kw))
    expected = conv_reference(x, w, [sh, sw], [ph, pw], [dh, dw], groups)
    kernel = tp.check("conv2d", [X, W, Y], [x, w], [expected], rtol=1e-4, atol=1e-5)
    # One output channel per group (depthwise when cg == 1): a multiply-add of whole
    # views per point of a small window rather than many tiny matrix-vector products.
    depthwise_like = groups > 1 and og == 1 and 1 < cg * kh * kw <= 16
    assert kernel.paths[-1].path == ("products" if depthwise_like else "matmul")
    assert "gather" not in kernel.paths[-1].detail


@pytest.mark.parametrize(("stride", "pad", "dilation"), [(1, 1, 1), (2, 1, 1), (1, 2, 2)])
def test_depthwise_conv2d_multiplies_whole_views(stride, pad, dilation):
    channels = 6
    X, W, Y = tp.conv(2, [3, 3], [stride] * 2, [pad] * 2, [dilation] * 2, channels,
                      (channels, channels))  # fmt: skip
    x, w = floats((3, channels, 9, 8)), floats((channels, 1, 3, 3))
    expected = conv_reference(x, w, [stride] * 2, [pad] * 2, [dilation] * 2, channels)
    kernel = tp.check("conv2d", [X, W, Y], [x, w], [expected], rtol=1e-4, atol=1e-5)
    assert kernel.paths[-1].path == "products"


@SETTINGS
@given(h=st.integers(1, 6), w=st.integers(1, 6), ci=st.integers(1, 3), co=st.integers(1, 3))
def test_conv2d_symbolic_channels(h, w, ci, co):
    X, W, Y = tp.conv(2, [3, 3], [1, 1], [1, 1], [1, 1], 1)
    x, weights = floats((1, ci, h, w)), floats((co, ci, 3, 3))
    expected = conv_reference(x, weights, [1, 1], [1, 1], [1, 1], 1)
    kernel = tp.check("conv2d", [X, W, Y], [x, weights], [expected], rtol=1e-4, atol=1e-5)
    assert kernel.paths[-1].path == "matmul" and "pad" in kernel.paths[-1].detail


def pool_reference(kind, x, size, strides, padding):
    pad = [(0, 0), (0, 0)] + [(p, p) for p in padding]
    fill = -np.inf if kind == "max" else 0.0
    windows = sliding_window_view(np.pad(x, pad, constant_values=fill), size, axis=(2, 3))
    windows = windows[:, :, :: strides[0], :: strides[1]]
    if kind == "max":
        return windows.max(axis=(4, 5))
    counts = sliding_window_view(np.pad(np.ones(x.shape[2:]), pad[2:]), size)[
        :: strides[0], :: strides[1]
    ]
    return (windows.sum(axis=(4, 5)) / counts.sum(axis=(2, 3))).astype(np.float32)


@pytest.mark.parametrize("kind", ["max", "avg"])
@SETTINGS
@given(
    size=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    strides=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    data=st.data(),
)
def test_pool2d(kind, size, strides, data):
    padding = [data.draw(st.integers(0, k - 1)) for k in size]
    h = data.draw(st.integers(max(1, size[0] - 2 * padding[0]), 6))
    w = data.draw(st.integers(max(1, size[1] - 2 * padding[1]), 6))
    X, Y = tp.pool2d(kind, size, strides, padding)
    x = floats((2, 2, h, w))
    expected = pool_reference(kind, x, size, strides, padding)
    tp.check(f"{kind}_pool2d", [X, Y], [x], [expected], rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- creation

CASTS = [(F32, I32), (I32, F32), (F32, I1), (I1, F32), (I64, I32), (F32, dtypes.F64), (I32, I1)]


@pytest.mark.parametrize(("source", "target"), CASTS, ids=lambda t: dtypes.NAME_OF[t])
def test_astype(source, target):
    X, Y = tp.astype(source, target)
    src_dtype, dst_dtype = dtypes.numpy_dtype(source), dtypes.numpy_dtype(target)
    if src_dtype.kind == "f":
        x = floats((3, 4), -9, 9)
        x[0, :2] = 0
    elif src_dtype.kind == "b":
        x = RNG.random((3, 4)) < 0.5
    else:
        x = ints((3, 4), -300, 300, src_dtype)
    tp.check("astype", [X, Y], [x], [x.astype(dst_dtype)])


@pytest.mark.parametrize(
    ("value", "dtype"), [(0, F32), (1, F32), (0, I64), (1, I32), (None, F32), (None, I32)]
)
@SETTINGS
@given(n=st.integers(0, 4), m=dims)
def test_zeros_ones_full(value, dtype, n, m):
    inputs, Y = tp.full(value, dtype)
    np_dtype = dtypes.numpy_dtype(dtype)
    fill = np.asarray(7, np_dtype)
    arrays = [fill] if value is None else []
    expected = np.full((n, m), 7 if value is None else value, np_dtype)
    tp.check("full", [*inputs, Y], arrays, [expected])


@pytest.mark.parametrize("lower", [True, False], ids=["tril", "triu"])
@pytest.mark.parametrize("dtype", [F32, I32], ids=lambda t: dtypes.NAME_OF[t])
@SETTINGS
@given(b=st.integers(0, 2), n=st.integers(0, 6), m=st.integers(0, 6), k=st.integers(-7, 7))
def test_tril_triu(lower, dtype, b, n, m, k):
    X, Y = tp.triangular(lower, k, dtype)
    x = floats((b, n, m)) if dtype == F32 else ints((b, n, m))
    expected = np.tril(x, k) if lower else np.triu(x, k)
    tp.check("tril" if lower else "triu", [X, Y], [x], [expected])


@pytest.mark.parametrize("dtype", [I64, I32, F32])
@SETTINGS
@given(start=st.integers(0, 5), step=st.integers(1, 3), n=st.integers(0, 6))
def test_arange_sym_params(dtype, start, step, n):
    Y = tp.arange(dtype)
    kernel, sym_params = tp.build("arange", [Y])
    assert sym_params == ["start", "step"]
    tp.assert_vectorized(kernel)
    expected = (start + step * np.arange(n)).astype(dtypes.numpy_dtype(dtype))
    (got,) = tp.run(kernel, [], [expected], [start, step])
    np.testing.assert_array_equal(got, expected)


@SETTINGS
@given(start=st.floats(-3, 3, width=32), step=st.floats(-2, 2, width=32), n=st.integers(0, 6))
def test_arange_tensor_operands(start, step, n):
    inputs, Y = tp.arange_tensors(F32)
    s, d = np.float32(start), np.float32(step)
    expected = (s + np.arange(n).astype(np.float32) * d).astype(np.float32)
    tp.check("arange", [*inputs, Y], [np.asarray(s), np.asarray(d)], [expected])


@SETTINGS
@given(n=dims, m=st.integers(0, 9))
def test_call_tir_dyn_sym_param(n, m):
    A, B = tp.call_tir_dyn()
    kernel, sym_params = tp.build("ewise", [A, B])
    assert sym_params == ["m"]
    tp.assert_vectorized(kernel)
    a = floats((n, 2 * (m // 2)))
    (got,) = tp.run(kernel, [a], [a * 2], [m])
    np.testing.assert_allclose(got, a * 2)


def test_gelu_uses_erf():
    assert math.erf(0.5) == pytest.approx(0.5204998778)
