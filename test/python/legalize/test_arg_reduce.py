"""Legalization of argmax and argmin: the kernel (the extreme, then the first or last
position holding it; a NaN is the extreme) against the reference kernel, in f32 with
NaNs and in i32, over symbolic dims, without a scalar fallback."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from legalcheck import SETTINGS, Symbols, check, random_array, seeds, tensor

from xrelax.dialects import dtypes
from xrelax.ops.reduce import ArgmaxOp, ArgminOp


@pytest.mark.parametrize("op", [ArgmaxOp, ArgminOp], ids=lambda op: op.name)
@SETTINGS
@given(data=st.data())
def test_arg_reduce(op, data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    dtype = data.draw(st.sampled_from([dtypes.F32, dtypes.I32, dtypes.I1]))
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    value = random_array(rng, sizes, dtype, -2, 3)
    if dtype == dtypes.F32 and data.draw(st.booleans()):
        value[rng.random(sizes) < 0.2] = np.nan
    props = {
        "axis": data.draw(st.none() | st.integers(-len(sizes), len(sizes) - 1)),
        "keepdims": data.draw(st.none() | st.booleans()),
        "select_last_index": data.draw(st.none() | st.booleans()),
    }
    check(op, [tensor(symbols.dims(sizes), dtype, value)], props, symbols.env)
