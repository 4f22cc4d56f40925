"""Legalization of ``relax.resize`` and ``relax.grid_sample`` over symbolic shapes: every
mode, coordinate transformation and padding, scales and roi operands, 1-D to 3-D
grids; no scalar fallback."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from legalcheck import F32, I32, SETTINGS, Symbols, check, random_array, seeds, shape, tensor
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, f64

from xrelax.dialects import dtypes
from xrelax.ops.resize import (
    COORDINATE_MODES,
    MODES,
    NEAREST_MODES,
    PADDING_MODES,
    GridSampleOp,
    ResizeOp,
)

FEW = settings(SETTINGS, max_examples=max(SETTINGS.max_examples // 4, 5))
"""Fewer examples: each compiles a kernel of several stages."""


@FEW
@given(data=st.data())
def test_resize(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    mode = data.draw(st.sampled_from(MODES))
    coordinates = data.draw(st.sampled_from(COORDINATE_MODES))
    dtype = F32 if mode != "nearest" else data.draw(st.sampled_from([F32, I32]))
    sizes = [
        data.draw(st.integers(1, 2)),
        data.draw(st.integers(1, 5)),
        data.draw(st.integers(1, 5)),
    ]
    axes = data.draw(st.sampled_from([[1, 2], [2], [2, 1]]))
    out = list(sizes)
    for axis in axes:
        out[axis] = data.draw(st.integers(1, 7))
    props = {
        "mode": StringAttr(mode),
        "axes": axes,
        "coordinate_transformation_mode": StringAttr(coordinates),
        "nearest_mode": StringAttr(data.draw(st.sampled_from(NEAREST_MODES))),
        "exclude_outside": IntegerAttr.from_bool(data.draw(st.booleans())),
        "extrapolation_value": FloatAttr(-1.5, f64),
    }
    x = random_array(rng, sizes, dtype, -9, 10)
    operands = [tensor(symbols.dims(sizes), dtype, x), shape(symbols.dims(out), out)]
    if coordinates == "tf_crop_and_resize" or data.draw(st.booleans()):
        scales = np.array([data.draw(st.sampled_from([0.5, 0.7, 1.0, 2.0, 2.5])) for _ in axes])
        operands.append(tensor([len(axes)], dtypes.F64, scales))
    if coordinates == "tf_crop_and_resize":
        count = len(axes)
        roi = np.array([0.1, -0.2][:count] + [0.9, 1.1][:count], np.float32)
        operands.append(tensor([2 * len(axes)], F32, roi))
    check(ResizeOp, operands, props, symbols.env)


@FEW
@given(data=st.data())
def test_grid_sample(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    spatial = data.draw(st.integers(1, 3))
    mode = data.draw(st.sampled_from(MODES if spatial < 3 else MODES[:2]))
    sizes = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))]
    sizes += [data.draw(st.integers(2, 4)) for _ in range(spatial)]
    out = [sizes[0]] + [data.draw(st.integers(1, 3)) for _ in range(spatial)] + [spatial]
    props = {
        "mode": StringAttr(mode),
        "padding_mode": StringAttr(data.draw(st.sampled_from(PADDING_MODES))),
        "align_corners": IntegerAttr.from_bool(data.draw(st.booleans())),
    }
    x = random_array(rng, sizes, F32, -9, 10)
    grid = random_array(rng, out, F32, -1.5, 1.5)
    x_dims = symbols.dims(sizes)
    grid_dims = [x_dims[0], *symbols.dims(out[1:-1]), spatial]
    operands = [tensor(x_dims, F32, x), tensor(grid_dims, F32, grid)]
    check(GridSampleOp, operands, props, symbols.env, rtol=1e-5, atol=1e-5)
