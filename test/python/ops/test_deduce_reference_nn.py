"""Property tests of the N-d windows of ops/nn.py beyond conv1d/conv2d and 2-D pooling
(as test_deduce_reference.py does for those): conv3d, the transposed convolutions and
1-D/3-D pooling with dilation. The reference kernel's result has the deduced shape and
dtype, and less specific operand types deduce a type that still contains it; the
references agree with torch's eager kernels."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from opcheck import Case, bindings, int_attr, ints
from test_deduce_reference import name, run, seeds, tensor_operand, window_props

from xrelax.dialects import dtypes
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
from xrelax.ops.resize import GridSampleOp, ResizeOp

F32, I32 = dtypes.F32, dtypes.I32

TRANSPOSED = (ConvTranspose1dOp, ConvTranspose2dOp, ConvTranspose3dOp)
POOLS = (MaxPool1dOp, MaxPool3dOp, AvgPool1dOp, AvgPool3dOp)
TESTED = {Conv3dOp, *TRANSPOSED, *POOLS, ResizeOp, GridSampleOp}
"""The operators this module tests (test_every_operator_has_a_property_test); resize's
and grid_sample's property tests are in test_resize.py."""


@given(data=st.data())
def test_conv3d(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    props, before, after, dilation = data.draw(window_props(3, dilated=True))
    kernel = [data.draw(st.integers(1, 2)) for _ in range(3)]
    sizes = [
        max(1, dilation[a] * (kernel[a] - 1) + 1 - before[a] - after[a])
        + data.draw(st.integers(0, 2))
        for a in range(3)
    ]
    dtype = data.draw(st.sampled_from([F32, I32]))
    x = data.draw(tensor_operand((1, 2, *sizes), dtype, env, rng))
    w = data.draw(tensor_operand((3, 2, *kernel), dtype, env, rng))
    run(Case(Conv3dOp, [x[0], w[0]], props, [x[1], w[1]], env), data)


@st.composite
def transposed_cases(draw, op):
    """A transposed convolution whose padding leaves an output."""
    env, rng = draw(bindings()), draw(seeds())
    rank = op.SPATIAL
    props, before, after, dilation = draw(window_props(rank, dilated=True))
    strides = list(props["strides"].get_values()) if "strides" in props else [1] * rank
    extra = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(strides, dilation, strict=True)]
    if any(extra) or draw(st.booleans()):
        props["output_padding"] = ints(*extra)
    groups = draw(st.integers(1, 2))
    if groups > 1 or draw(st.booleans()):
        props["groups"] = int_attr(groups)
    kernel = [draw(st.integers(1, 3)) for _ in range(rank)]
    sizes = []
    for axis in range(rank):
        reach = dilation[axis] * (kernel[axis] - 1) + 1 + extra[axis]
        low = 1
        while (low - 1) * strides[axis] + reach - before[axis] - after[axis] < 1:
            low += 1
        sizes.append(draw(st.integers(low, low + 2)))
    dtype = draw(st.sampled_from([F32, I32]))
    x = draw(tensor_operand((draw(st.integers(1, 2)), 2 * groups, *sizes), dtype, env, rng))
    w = draw(tensor_operand((2 * groups, draw(st.integers(1, 2)), *kernel), dtype, env, rng))
    return Case(op, [x[0], w[0]], props, [x[1], w[1]], env)


@pytest.mark.parametrize("op", TRANSPOSED, ids=name)
@given(data=st.data())
def test_conv_transpose(op, data):
    run(data.draw(transposed_cases(op)), data)


@pytest.mark.parametrize("op", POOLS, ids=name)
@given(data=st.data())
def test_pool(op, data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    rank = op.SPATIAL
    props, before, after, dilation = data.draw(window_props(rank, dilated=True))
    pool = [max(data.draw(st.integers(1, 3)), before[a] + 1, after[a] + 1) for a in range(rank)]
    props["pool_size"] = ints(*pool)
    sizes = [
        data.draw(st.integers(max(1, dilation[a] * (pool[a] - 1) + 1 - before[a] - after[a]), 5))
        for a in range(rank)
    ]
    dtype = data.draw(st.sampled_from([F32, I32]))
    x = data.draw(tensor_operand((data.draw(st.integers(1, 2)), 2, *sizes), dtype, env, rng))
    run(Case(op, [x[0]], props, [x[1]], env), data)


TORCH_TRANSPOSED = {
    ConvTranspose1dOp: torch.nn.functional.conv_transpose1d,
    ConvTranspose2dOp: torch.nn.functional.conv_transpose2d,
    ConvTranspose3dOp: torch.nn.functional.conv_transpose3d,
}


@pytest.mark.parametrize("op", TRANSPOSED, ids=name)
@given(data=st.data())
def test_conv_transpose_reference_against_torch(op, data):
    case = data.draw(transposed_cases(op))
    x, w = (np.asarray(v, np.float64) for v in case.inputs)
    props = case.props
    rank = op.SPATIAL

    def values(key, default):
        given_values = list(props[key].get_values()) if key in props else [default]
        return given_values * rank if len(given_values) == 1 else given_values

    padding = values("padding", 0)
    if len(padding) == 2 * rank:
        # torch pads both ends alike: crop the extra start and end afterwards.
        before, after = padding[:rank], padding[rank:]
    else:
        before = after = padding
    groups = props["groups"].value.data if "groups" in props else 1
    full = TORCH_TRANSPOSED[op](
        torch.tensor(x),
        torch.tensor(w),
        stride=values("strides", 1),
        padding=0,
        output_padding=values("output_padding", 0),
        groups=groups,
        dilation=values("dilation", 1),
    ).numpy()
    crop = tuple(
        slice(b, full.shape[2 + a] - e) for a, (b, e) in enumerate(zip(before, after, strict=True))
    )
    expected = full[(slice(None), slice(None), *crop)]
    got = op.reference([x, w], props)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
