"""Legalization of the layout operators (broadcast_to, pad, slice_scatter) over random
symbolic shapes: the kernels match the reference and take no scalar fallback."""

from __future__ import annotations

import numpy as np
import sympy
from hypothesis import given
from hypothesis import strategies as st
from legalcheck import F32, I1, I32, SETTINGS, Symbols, check, random_array, seeds, shape, tensor

from xrelax.ops.layout import BroadcastToOp, PadOp, SliceScatterOp

dtypes = st.sampled_from([F32, I32, I1])


@SETTINGS
@given(data=st.data())
def test_broadcast_to(data):
    symbols = Symbols(data.draw)
    target = data.draw(st.lists(st.integers(1, 4), max_size=3))
    rank = data.draw(st.integers(0, len(target)))
    sizes = [1 if data.draw(st.booleans()) else d for d in target[len(target) - rank :]]
    target_dims = symbols.dims(target)
    # An axis that broadcasts is statically 1; the others are the target's dimension.
    dims = [
        sympy.Integer(1) if s == 1 else d
        for s, d in zip(sizes, target_dims[len(target) - rank :], strict=True)
    ]
    dtype = data.draw(dtypes)
    x = tensor(dims, dtype, random_array(data.draw(seeds()), sizes, dtype))
    check(BroadcastToOp, [x, shape(target_dims, target)], env=symbols.env)


@SETTINGS
@given(data=st.data())
def test_pad(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(0, 4), max_size=3))
    dtype = data.draw(dtypes)
    rng = data.draw(seeds())
    x = tensor(symbols.dims(sizes), dtype, random_array(rng, sizes, dtype))
    fill = tensor([], dtype, random_array(rng, (), dtype))
    widths = data.draw(
        st.lists(st.integers(0, 2), min_size=2 * len(sizes), max_size=2 * len(sizes))
    )
    check(PadOp, [x, fill], {"pad_width": widths}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_slice_scatter(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    axis = data.draw(st.integers(0, len(sizes) - 1))
    begin = data.draw(st.integers(-6, 6))
    end = data.draw(st.none() | st.integers(-6, 6))
    step = data.draw(st.integers(1, 3))
    dtype = data.draw(st.sampled_from([F32, I32]))
    rng = data.draw(seeds())
    picked = list(np.empty(sizes)[(slice(None),) * axis + (slice(begin, end, step),)].shape)
    dims = symbols.dims(sizes)
    x = tensor(dims, dtype, random_array(rng, sizes, dtype))
    # The slice's length along the axis is computed; the other axes are x's.
    src_dims = [picked[axis] if a == axis else d for a, d in enumerate(dims)]
    src = tensor(src_dims, dtype, random_array(rng, picked, dtype))
    props = {"axis": axis, "begin": begin, "end": end, "step": step if step != 1 else None}
    check(SliceScatterOp, [x, src], props, symbols.env)
