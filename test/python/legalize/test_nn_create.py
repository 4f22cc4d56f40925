"""Legalization of the neural-network operators (softmax, layer_norm, convolutions,
pooling) and of the creation operators (zeros, ones, full, tril, triu)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st
from legalcheck import (
    F32,
    I1,
    I8,
    I32,
    SETTINGS,
    Symbols,
    check,
    prim,
    random_array,
    seeds,
    shape,
    tensor,
)

import xrelax
from xrelax.ops.create import CREATE_OPS, ArangeOp, FullOp, OnesOp, TrilOp, TriuOp, ZerosOp
from xrelax.ops.nn import (
    NN_OPS,
    AvgPool2dOp,
    Conv1dOp,
    Conv2dOp,
    LayerNormOp,
    LogSoftmaxOp,
    MaxPool2dOp,
    SoftmaxOp,
)


def name(op: type) -> str:
    return op.name


@pytest.mark.parametrize("op", [SoftmaxOp, LogSoftmaxOp], ids=name)
@SETTINGS
@given(data=st.data())
def test_softmax(op, data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = data.draw(st.none() | st.integers(-len(sizes), len(sizes) - 1))
    value = random_array(data.draw(seeds()), sizes, F32, -30, 30)
    check(op, [tensor(symbols.dims(sizes), F32, value)], {"axis": axis}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_layer_norm(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    dims = symbols.dims(sizes)
    axes = data.draw(st.lists(st.integers(0, len(sizes) - 1), min_size=1, unique=True))
    param_sizes, param_dims = [sizes[a] for a in axes], [dims[a] for a in axes]
    operands = [tensor(dims, F32, random_array(rng, sizes, F32))]
    operands += [tensor(param_dims, F32, random_array(rng, param_sizes, F32)) for _ in range(2)]
    props = {
        "axes": [a - len(sizes) if data.draw(st.booleans()) else a for a in axes],
        "epsilon": data.draw(st.none() | st.sampled_from([1e-5, 0.1])),
    }
    check(LayerNormOp, operands, props, symbols.env, rtol=1e-4, atol=1e-5)


def spelled(draw, values: list[int], default: int) -> list[int] | None:
    """A per-dimension property as written: one value for all when they agree, absent
    when that is the default."""
    if len(set(values)) == 1 and draw(st.booleans()):
        return None if values[0] == default and draw(st.booleans()) else values[:1]
    return values


@st.composite
def window(draw, kernel: list[int], sizes: list[int], dilation: bool = True):
    """strides, padding (and dilation) properties whose window fits the padded input."""
    strides = [draw(st.integers(1, 3)) for _ in kernel]
    before = [draw(st.integers(0, k - 1)) for k in kernel]
    after = [draw(st.integers(0, k - 1)) for k in kernel]
    dilations = [draw(st.integers(1, 2)) if dilation else 1 for _ in kernel]
    for size, k, b, a, d in zip(sizes, kernel, before, after, dilations, strict=True):
        assume(size + b + a >= d * (k - 1) + 1)
    padding = spelled(draw, before, 0) if before == after else before + after
    props = {"strides": spelled(draw, strides, 1), "padding": padding}
    if dilation:
        props["dilation"] = spelled(draw, dilations, 1)
    return props


@pytest.mark.parametrize("op", [Conv1dOp, Conv2dOp], ids=name)
@SETTINGS
@given(data=st.data())
def test_conv(op, data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    groups = data.draw(st.integers(1, 3))
    batch, per_group_in, per_group_out = (data.draw(st.integers(1, 3)) for _ in range(3))
    kernel = [data.draw(st.integers(1, 3)) for _ in range(op.SPATIAL)]
    sizes = [data.draw(st.integers(1, 6)) for _ in range(op.SPATIAL)]
    props = data.draw(window(kernel, sizes))
    props["groups"] = groups if groups > 1 or data.draw(st.booleans()) else None
    x_sizes = [batch, groups * per_group_in, *sizes]
    w_sizes = [groups * per_group_out, per_group_in, *kernel]
    operands = [
        tensor(symbols.dims(s), dtype, random_array(rng, s, dtype, -4, 5))
        for s in (x_sizes, w_sizes)
    ]
    check(op, operands, props, symbols.env, rtol=1e-5, atol=1e-5)


@SETTINGS
@given(data=st.data())
def test_depthwise_conv_of_a_large_window(data):
    """A depthwise 2-D convolution of at least 17 window points, unit strides: computed
    by rows against a banded weight matrix when the output width is static."""
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    kernel = [data.draw(st.integers(3, 7)) for _ in range(2)]
    assume(kernel[0] * kernel[1] >= 17)
    sizes = [data.draw(st.integers(1, 9)) for _ in range(2)]
    props = data.draw(window(kernel, sizes))
    props["strides"], props["dilation"] = None, None
    for size, k, pad in zip(sizes, kernel, _paddings(props["padding"]), strict=True):
        assume(size + pad >= k)
    channels, batch = data.draw(st.integers(2, 4)), data.draw(st.integers(1, 3))
    props["groups"] = channels
    # The batch and the height may be symbolic; the channels (the groups), the window
    # and the width are static (else the generic path computes it, as test_conv checks).
    x_sizes, w_sizes = [batch, channels, *sizes], [channels, 1, *kernel]
    x_dims = [symbols.dim(batch), sympy.Integer(channels), symbols.dim(sizes[0])]
    x_dims.append(sympy.Integer(sizes[1]))
    w_dims = [x_dims[1], *(sympy.Integer(v) for v in w_sizes[1:])]
    operands = [
        tensor(dims, dtype, random_array(rng, s, dtype, -4, 5))
        for dims, s in ((x_dims, x_sizes), (w_dims, w_sizes))
    ]
    legalized = check(Conv2dOp, operands, props, symbols.env, rtol=1e-5, atol=1e-4)
    assert "%band = tir.alloc_buffer" in xrelax.print_module(legalized)


def _paddings(padding: list[int] | None) -> list[int]:
    """The total padding per spatial dimension of a ``padding`` property of 2-D data."""
    if not padding:
        return [0, 0]
    if len(padding) == 1:
        return [2 * padding[0]] * 2
    if len(padding) == 2:
        return [2 * padding[0], 2 * padding[1]]
    return [padding[0] + padding[2], padding[1] + padding[3]]


@pytest.mark.parametrize("op", [MaxPool2dOp, AvgPool2dOp], ids=name)
@SETTINGS
@given(data=st.data())
def test_pool(op, data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    pool = [data.draw(st.integers(1, 3)) for _ in range(2)]
    sizes = [data.draw(st.integers(1, 3)) for _ in range(2)] + [
        data.draw(st.integers(1, 6)) for _ in range(2)
    ]
    props = data.draw(window(pool, sizes[2:], dilation=False))
    props["pool_size"] = pool[:1] if pool[0] == pool[1] and data.draw(st.booleans()) else pool
    value = random_array(rng, sizes, dtype, -9, 10)
    check(op, [tensor(symbols.dims(sizes), dtype, value)], props, symbols.env)


@pytest.mark.parametrize("op", [ZerosOp, OnesOp], ids=name)
@SETTINGS
@given(data=st.data())
def test_filled(op, data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(0, 4), max_size=3))
    dtype = data.draw(st.sampled_from([F32, I32, I8, I1]))
    check(op, [shape(symbols.dims(sizes), sizes)], {"dtype": dtype}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_full(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(0, 4), max_size=3))
    source = data.draw(st.sampled_from([F32, I32]))
    target = data.draw(st.none() | st.sampled_from([F32, I32, I8, I1]))
    fill = random_array(data.draw(seeds()), (), source, -5, 5)
    operands = [shape(symbols.dims(sizes), sizes), tensor([], source, np.asarray(fill))]
    check(FullOp, operands, {"dtype": target}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_full_of_a_prim_value(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(0, 4), max_size=3))
    value = data.draw(st.integers(0, 9))
    target = data.draw(st.none() | st.sampled_from([F32, I32, I1]))
    operands = [shape(symbols.dims(sizes), sizes), prim(symbols.dim(value), value)]
    check(FullOp, operands, {"dtype": target}, symbols.env)


@pytest.mark.parametrize("op", [TrilOp, TriuOp], ids=name)
@SETTINGS
@given(data=st.data())
def test_triangular(op, data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    sizes = data.draw(st.lists(st.integers(0, 5), min_size=2, max_size=4))
    operand = tensor(symbols.dims(sizes), dtype, random_array(rng, sizes, dtype, -9, 10))
    check(op, [operand], {"k": data.draw(st.none() | st.integers(-6, 6))}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_arange_of_prim_values(data):
    symbols = Symbols(data.draw)
    start, end = data.draw(st.integers(0, 9)), data.draw(st.integers(0, 9))
    step = data.draw(st.sampled_from([1, 2, 3, -1, -2]))
    assume((end - start if step > 0 else start - end) + abs(step) - 1 >= 0)
    # A symbolic step must be positive; a negative one is a constant.
    step_expr = symbols.dim(step) if step > 0 else step
    operands = [prim(symbols.dim(start), start), prim(symbols.dim(end), end), prim(step_expr, step)]
    dtype = data.draw(st.sampled_from([None, F32, I32]))
    check(ArangeOp, operands, {"dtype": dtype} if dtype else {}, symbols.env)


def test_families_are_covered():
    from test_nn_windows import WINDOW_OPS

    assert set(NN_OPS) - WINDOW_OPS == {
        SoftmaxOp,
        LogSoftmaxOp,
        LayerNormOp,
        Conv1dOp,
        Conv2dOp,
        MaxPool2dOp,
        AvgPool2dOp,
    }
    # arange of 0-d tensors takes the safety net (test_pass.py).
    assert set(CREATE_OPS) == {ZerosOp, OnesOp, FullOp, ArangeOp, TrilOp, TriuOp}
