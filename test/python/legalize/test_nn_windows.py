"""Legalization of the N-d windows beyond conv1d/conv2d and 2-D pooling: conv3d, the
transposed convolutions and 1-D/3-D pooling with dilation, over symbolic shapes, with
no scalar fallback."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from legalcheck import F32, I32, SETTINGS, Symbols, check, random_array, seeds, tensor
from test_nn_create import name, spelled, window

from xrelax.ops.nn import (
    AvgPool1dOp,
    AvgPool3dOp,
    Conv3dOp,
    ConvTranspose1dOp,
    ConvTranspose2dOp,
    ConvTranspose3dOp,
    MaxPool1dOp,
    MaxPool3dOp,
)

WINDOW_OPS = {
    Conv3dOp,
    ConvTranspose1dOp,
    ConvTranspose2dOp,
    ConvTranspose3dOp,
    MaxPool1dOp,
    MaxPool3dOp,
    AvgPool1dOp,
    AvgPool3dOp,
}
"""The operators this module covers (test_families_are_covered)."""

FEW = settings(SETTINGS, max_examples=max(SETTINGS.max_examples // 4, 5))
"""Fewer examples: every example compiles kernels of up to five nested windows."""


@FEW
@given(data=st.data())
def test_conv3d(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    kernel = [data.draw(st.integers(1, 2)) for _ in range(3)]
    sizes = [data.draw(st.integers(1, 4)) for _ in range(3)]
    props = data.draw(window(kernel, sizes))
    x_sizes, w_sizes = [1, 2, *sizes], [3, 2, *kernel]
    operands = [
        tensor(symbols.dims(s), dtype, random_array(rng, s, dtype, -4, 5))
        for s in (x_sizes, w_sizes)
    ]
    check(Conv3dOp, operands, props, symbols.env, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", [ConvTranspose1dOp, ConvTranspose2dOp, ConvTranspose3dOp], ids=name)
@FEW
@given(data=st.data())
def test_conv_transpose(op, data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    rank = op.SPATIAL
    dtype = data.draw(st.sampled_from([F32, I32]))
    groups = data.draw(st.integers(1, 2))
    kernel = [data.draw(st.integers(1, 3)) for _ in range(rank)]
    sizes = [data.draw(st.integers(1, 4)) for _ in range(rank)]
    strides = [data.draw(st.integers(1, 3)) for _ in range(rank)]
    dilation = [data.draw(st.integers(1, 2)) for _ in range(rank)]
    before = [data.draw(st.integers(0, 2)) for _ in range(rank)]
    after = [data.draw(st.integers(0, 2)) for _ in range(rank)]
    extra = [
        data.draw(st.integers(0, max(s, d) - 1)) for s, d in zip(strides, dilation, strict=True)
    ]
    for n, k, s, d, b, a, e in zip(
        sizes, kernel, strides, dilation, before, after, extra, strict=True
    ):
        assume((n - 1) * s + d * (k - 1) + 1 + e - b - a >= 1)
    props = {
        "strides": spelled(data.draw, strides, 1),
        "padding": spelled(data.draw, before, 0) if before == after else before + after,
        "output_padding": spelled(data.draw, extra, 0),
        "dilation": spelled(data.draw, dilation, 1),
        "groups": groups if groups > 1 else None,
    }
    x_sizes = [data.draw(st.integers(1, 2)), 2 * groups, *sizes]
    w_sizes = [2 * groups, data.draw(st.integers(1, 2)), *kernel]
    operands = [
        tensor(symbols.dims(s), dtype, random_array(rng, s, dtype, -4, 5))
        for s in (x_sizes, w_sizes)
    ]
    check(op, operands, props, symbols.env, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", [MaxPool1dOp, MaxPool3dOp, AvgPool1dOp, AvgPool3dOp], ids=name)
@FEW
@given(data=st.data())
def test_pool(op, data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    rank = op.SPATIAL
    dtype = data.draw(st.sampled_from([F32, I32]))
    pool = [data.draw(st.integers(1, 3)) for _ in range(rank)]
    sizes = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))]
    sizes += [data.draw(st.integers(1, 6 if rank == 1 else 4)) for _ in range(rank)]
    props = data.draw(window(pool, sizes[2:]))
    props["pool_size"] = pool[:1] if len(set(pool)) == 1 and data.draw(st.booleans()) else pool
    value = random_array(rng, sizes, dtype, -9, 10)
    check(op, [tensor(symbols.dims(sizes), dtype, value)], props, symbols.env)
