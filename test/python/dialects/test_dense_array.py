"""A dense constant's value as numpy reads it: the attribute's bytes read as stored
(every element type with a ``struct`` format) or its values one by one (i1, bf16) give
the same array, for the constants folding makes and the ones the parser reads."""

from __future__ import annotations

import numpy as np
import pytest

from xrelax.dialects import dtypes
from xrelax.transforms.fold_constant import make_const

VALUES = [0, 1, -1, 2**7 - 1, -(2**7), 2**15 - 1, 2**31 - 1, 2**62, 0.5, -0.0, np.inf, np.nan]


@pytest.mark.parametrize("name", sorted(dtypes.BY_NAME))
def test_folded_constant_reads_back(name):
    dtype = dtypes.numpy_dtype(dtypes.BY_NAME[name])
    rng = np.random.default_rng(0)
    if dtype == np.bool_:
        array = rng.integers(0, 2, (3, 5)).astype(np.bool_)
    elif np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        array = rng.integers(info.min, info.max, (3, 5), dtype=dtype, endpoint=True)
    else:
        array = rng.standard_normal((3, 5)).astype(dtype)
        array.ravel()[:4] = np.array([np.inf, -np.inf, np.nan, -0.0]).astype(dtype)
    got = dtypes.dense_array(make_const(array).value)
    assert got.dtype == dtype and got.shape == array.shape
    assert got.tobytes() == array.tobytes()
    assert got.flags.writeable


def test_bytes_and_values_agree():
    # The byte reading against xDSL's own unpacking of every value.
    for name, element in dtypes.BY_NAME.items():
        layout = dtypes.packed_layout(element)
        if layout is None:
            continue
        dtype = dtypes.numpy_dtype(element)
        array = np.array([v for v in VALUES if _fits(v, dtype)], dtype)
        attr = make_const(array).value
        expected = np.array(attr.get_values(), dtype)
        np.testing.assert_array_equal(dtypes.dense_array(attr), expected, err_msg=name)


def _fits(value: float, dtype: np.dtype) -> bool:
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return float(value).is_integer() and info.min <= value <= info.max
    return not np.isfinite(value) or abs(value) <= float(np.finfo(dtype).max)
