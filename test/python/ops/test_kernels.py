"""Values of the non-trivial reference kernels against straightforward numpy / math
formulas (loops where the kernel is vectorised)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from opcheck import bool_attr, int_attr, ints
from xdsl.dialects.builtin import FloatAttr, f32

from xrelax.dialects import dtypes
from xrelax.ops.create import ArangeOp, FullOp, OnesOp, ZerosOp
from xrelax.ops.elementwise import (
    DivideOp,
    GeluOp,
    RsqrtOp,
    SigmoidOp,
    SiluOp,
    erf,
)
from xrelax.ops.gather import TakeOp
from xrelax.ops.manipulate import SplitOp, StridedSliceOp
from xrelax.ops.nn import (
    AvgPool2dOp,
    Conv1dOp,
    Conv2dOp,
    LayerNormOp,
    LogSoftmaxOp,
    MaxPool2dOp,
    SoftmaxOp,
)
from xrelax.ops.reduce import MeanOp, SumOp
from xrelax.ops.set import UniqueOp

RNG = np.random.default_rng(0)


# ------------------------------------------------------------------------------ elementwise


def test_erf_against_math_erf():
    x = np.concatenate(
        [np.linspace(-8, 8, 40001), np.logspace(-12, 1.5, 500), -np.logspace(-12, 1.5, 500)]
    )
    expected = np.array([math.erf(v) for v in x])
    assert np.max(np.abs(erf(x) - expected)) < 1e-15
    small = np.abs(x) < 1
    np.testing.assert_allclose(erf(x[small]), expected[small], rtol=1e-14, atol=0)
    assert erf(np.array([np.inf, -np.inf, 0.0])).tolist() == [1.0, -1.0, 0.0]
    assert np.isnan(erf(np.array(np.nan)))


def test_gelu_is_the_erf_form():
    x = np.linspace(-6, 6, 1001)
    expected = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(GeluOp.reference([x], {}), expected, rtol=0, atol=1e-14)
    single = GeluOp.reference([x.astype(np.float32)], {})
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, expected, rtol=1e-6, atol=1e-6)


def test_sigmoid_silu_rsqrt():
    x = np.linspace(-20, 20, 401)
    np.testing.assert_allclose(SigmoidOp.reference([x], {}), 1 / (1 + np.exp(-x)), rtol=1e-12)
    np.testing.assert_allclose(SiluOp.reference([x], {}), x / (1 + np.exp(-x)), rtol=1e-12)
    with np.errstate(over="raise"):
        extreme = SigmoidOp.reference([np.array([-1e4, 1e4], np.float32)], {})
    assert extreme.tolist() == [0.0, 1.0]
    positive = np.linspace(0.1, 10, 50)
    np.testing.assert_allclose(RsqrtOp.reference([positive], {}), positive**-0.5)


def test_integer_divide_truncates_toward_zero():
    a = np.array([7, -7, 7, -7, 6], np.int32)
    b = np.array([2, 2, -2, -2, 3], np.int32)
    result = DivideOp.reference([a, b], {})
    assert result.dtype == np.int32
    assert result.tolist() == [3, -3, -3, 3, 2]


# ------------------------------------------------------------------------------ reductions


def test_integer_mean_and_sum_keep_the_element_type():
    x = np.array([[-3, -4], [3, 4]], np.int32)
    mean = MeanOp.reference([x], {"axis": ints(1)})
    assert mean.dtype == np.int32 and mean.tolist() == [-3, 3]
    total = SumOp.reference([x], {"keepdims": bool_attr(True)})
    assert total.dtype == np.int32 and total.tolist() == [[0]]


# ------------------------------------------------------------------------------ nn


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax(axis):
    x = RNG.normal(size=(3, 4, 5)).astype(np.float32)
    exp = np.exp(x.astype(np.float64))
    expected = exp / exp.sum(axis=axis, keepdims=True)
    props = {"axis": int_attr(axis)}
    result = SoftmaxOp.reference([x], props)
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, expected, rtol=1e-6)
    np.testing.assert_allclose(result.sum(axis=axis), 1, rtol=1e-6)
    np.testing.assert_allclose(LogSoftmaxOp.reference([x], props), np.log(expected), atol=1e-6)


def test_softmax_is_stable_for_large_inputs():
    x = np.array([[1000.0, 1000.0], [-1000.0, 0.0]], np.float32)
    assert SoftmaxOp.reference([x], {}).tolist() == [[0.5, 0.5], [0.0, 1.0]]
    assert np.isfinite(LogSoftmaxOp.reference([x], {})).all()


@pytest.mark.parametrize("axes", [[-1], [1, 2], [2, 0]])
def test_layer_norm(axes):
    x = RNG.normal(size=(2, 3, 4))
    gamma_shape = tuple(x.shape[a] for a in axes)
    gamma, beta = RNG.normal(size=gamma_shape), RNG.normal(size=gamma_shape)
    epsilon = 1e-3
    result = LayerNormOp.reference(
        [x, gamma, beta], {"axes": ints(*axes), "epsilon": FloatAttr(epsilon, f32)}
    )
    axes = [a % 3 for a in axes]
    kept = [a for a in range(3) if a not in axes]
    expected = np.empty_like(x)
    for outer in itertools.product(*(range(x.shape[a]) for a in kept)):
        cells = list(itertools.product(*(range(x.shape[a]) for a in axes)))

        def index(cell, outer=outer):
            full = [0] * 3
            for a, i in zip(kept, outer, strict=True):
                full[a] = i
            for a, i in zip(axes, cell, strict=True):
                full[a] = i
            return tuple(full)

        values = [x[index(c)] for c in cells]
        mean = sum(values) / len(values)
        variance = sum((v - mean) ** 2 for v in values) / len(values)
        for cell in cells:
            normed = (x[index(cell)] - mean) / math.sqrt(variance + float(np.float32(epsilon)))
            expected[index(cell)] = normed * gamma[cell] + beta[cell]
    np.testing.assert_allclose(result, expected, rtol=1e-10, atol=1e-12)


def direct_conv(x, w, strides, before, after, dilation, groups):
    """Convolution by loops over every output element and kernel tap."""
    rank = x.ndim - 2
    padded = np.pad(x, [(0, 0), (0, 0), *zip(before, after, strict=True)])
    out_sizes = [
        (padded.shape[2 + i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // strides[i] + 1
        for i in range(rank)
    ]
    out_channels, group_in = w.shape[:2]
    result = np.zeros((x.shape[0], out_channels, *out_sizes))
    for n, o in itertools.product(range(x.shape[0]), range(out_channels)):
        group = o // (out_channels // groups)
        for position in itertools.product(*(range(s) for s in out_sizes)):
            total = 0.0
            for c in range(group_in):
                for tap in itertools.product(*(range(k) for k in w.shape[2:])):
                    source = tuple(
                        position[i] * strides[i] + tap[i] * dilation[i] for i in range(rank)
                    )
                    total += padded[(n, group * group_in + c, *source)] * w[(o, c, *tap)]
            result[(n, o, *position)] = total
    return result


@given(
    rank=st.sampled_from([1, 2]),
    groups=st.integers(1, 2),
    strides=st.integers(1, 2),
    dilation=st.integers(1, 2),
    padding=st.lists(st.integers(0, 2), min_size=4, max_size=4),
    seed=st.integers(0, 1000),
)
def test_conv(rank, groups, strides, dilation, padding, seed):
    rng = np.random.default_rng(seed)
    before, after = padding[:rank], padding[2 : 2 + rank]
    x = rng.normal(size=(2, 2 * groups, *[5] * rank)).astype(np.float32)
    w = rng.normal(size=(2 * groups, 2, *[2] * rank)).astype(np.float32)
    props = {
        "strides": ints(strides),
        "padding": ints(*before, *after),
        "dilation": ints(dilation),
        "groups": int_attr(groups),
    }
    op = Conv1dOp if rank == 1 else Conv2dOp
    result = op.reference([x, w], props)
    expected = direct_conv(
        x.astype(np.float64), w.astype(np.float64), [strides] * rank, before, after,
        [dilation] * rank, groups,
    )  # fmt: skip
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)


def direct_pool(x, pool, strides, before, after, reduce):
    """Pooling by loops; windows see only elements inside the input."""
    out = [(x.shape[2 + i] + before[i] + after[i] - pool[i]) // strides[i] + 1 for i in range(2)]
    result = np.zeros((*x.shape[:2], *out))
    for n, c, i, j in itertools.product(*(range(s) for s in result.shape)):
        values = [
            x[n, c, r, s]
            for r in range(i * strides[0] - before[0], i * strides[0] - before[0] + pool[0])
            for s in range(j * strides[1] - before[1], j * strides[1] - before[1] + pool[1])
            if 0 <= r < x.shape[2] and 0 <= s < x.shape[3]
        ]
        result[n, c, i, j] = reduce(values)
    return result


@pytest.mark.parametrize(("op", "reduce"), [(MaxPool2dOp, max), (AvgPool2dOp, np.mean)])
@pytest.mark.parametrize("padding", [[0], [1], [1, 0, 0, 1], [2, 1]])
@pytest.mark.parametrize("strides", [[1], [2, 1]])
def test_pool(op, reduce, padding, strides):
    x = RNG.normal(size=(2, 3, 6, 5)).astype(np.float32)
    pool = [3, 2]
    props = {"pool_size": ints(*pool), "strides": ints(*strides), "padding": ints(*padding)}
    padding = padding * 2 if len(padding) == 1 else padding
    before, after = (padding, padding) if len(padding) == 2 else (padding[:2], padding[2:])
    strides = strides * 2 if len(strides) == 1 else strides
    expected = direct_pool(x.astype(np.float64), pool, strides, before, after, reduce)
    result = op.reference([x], props)
    assert result.dtype == np.float32
    # The mean of float32 values sums in float32 (numpy's and torch's accumulator).
    np.testing.assert_allclose(result, expected, rtol=1e-6, atol=1e-7)


def test_integer_max_pool_pads_with_the_lowest_value():
    x = -np.ones((1, 1, 2, 2), np.int32)
    result = MaxPool2dOp.reference([x], {"pool_size": ints(2), "padding": ints(1)})
    assert result.dtype == np.int32
    assert (result == -1).all()


# ------------------------------------------------------------------------------ manipulate


@given(
    size=st.integers(0, 7),
    begin=st.integers(-9, 9),
    end=st.integers(-9, 9),
    stride=st.integers(-3, 3).filter(bool),
)
def test_strided_slice(size, begin, end, stride):
    x = np.arange(size * 2).reshape(2, size)
    props = {"axes": ints(1), "begin": ints(begin), "end": ints(end), "strides": ints(stride)}
    picked = list(range(size))[begin:end:stride]
    expected = x[:, picked] if picked else np.zeros((2, 0), x.dtype)
    np.testing.assert_array_equal(StridedSliceOp.reference([x], props), expected)


def test_split():
    x = np.arange(24).reshape(4, 6)
    halves = SplitOp.reference([x], {"indices_or_sections": int_attr(2), "axis": int_attr(1)})
    assert [p.tolist() for p in halves] == [x[:, :3].tolist(), x[:, 3:].tolist()]
    pieces = SplitOp.reference([x], {"indices_or_sections": ints(1, -1, 9)})
    assert [p.shape for p in pieces] == [(1, 6), (2, 6), (1, 6), (0, 6)]
    np.testing.assert_array_equal(np.concatenate(pieces), x)


def test_take():
    x = np.arange(12).reshape(3, 4)
    indices = np.array([[0, -1], [2, 1]], np.int64)
    along = TakeOp.reference([x, indices], {"axis": int_attr(1)})
    expected = [[[x[r, c % 4] for c in row] for row in indices] for r in range(3)]
    assert along.tolist() == expected
    flat = TakeOp.reference([x, indices], {})
    assert flat.tolist() == [[0, 11], [2, 1]]


def test_unique():
    x = np.array([[3, 1, 2], [1, 3, 3]], np.int64)
    result = UniqueOp.reference([x], {})
    assert result.tolist() == sorted(set(x.flat))
    assert result.dtype == np.int64


# ------------------------------------------------------------------------------ creation


def test_creation():
    assert ZerosOp.reference([(2, 3)], {"dtype": dtypes.F16}).dtype == np.float16
    ones = OnesOp.reference([(2,)], {"dtype": dtypes.I1})
    assert ones.tolist() == [True, True]
    full = FullOp.reference([(2, 2), np.array(7, np.int32)], {})
    assert full.dtype == np.int32 and full.tolist() == [[7, 7], [7, 7]]
    scalars = [np.array(v, np.int64) for v in (5, -4, -3)]
    values = ArangeOp.reference(scalars, {"dtype": dtypes.F32})
    assert values.dtype == np.float32 and values.tolist() == [5.0, 2.0, -1.0]
