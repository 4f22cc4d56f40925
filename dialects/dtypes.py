"""Element types: the MLIR types relax and tir use, their names and numpy dtypes."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
)
from xdsl.ir import Attribute

F16, F32, F64, BF16 = Float16Type(), Float32Type(), Float64Type(), BFloat16Type()
I1, I8, I16, I32, I64 = (IntegerType(w) for w in (1, 8, 16, 32, 64))

BY_NAME: dict[str, Attribute] = {
    "f16": F16,
    "f32": F32,
    "f64": F64,
    "bf16": BF16,
    "i1": I1,
    "i8": I8,
    "i16": I16,
    "i32": I32,
    "i64": I64,
}
NAME_OF: dict[Attribute, str] = {t: n for n, t in BY_NAME.items()}

_NUMPY: dict[str, str] = {
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "i1": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
}
_FROM_NUMPY = {v: k for k, v in _NUMPY.items()}


def is_dtype(attr: Attribute) -> bool:
    """Whether ``attr`` is an element type relax supports."""
    return attr in NAME_OF


def is_float(dtype: Attribute) -> bool:
    """Whether ``dtype`` is a floating-point type."""
    return dtype in (F16, F32, F64, BF16)


def is_bool(dtype: Attribute) -> bool:
    """Whether ``dtype`` is ``i1``."""
    return dtype == I1


def numpy_name(dtype: Attribute) -> str:
    """The numpy dtype name of an element type (``f32`` -> ``float32``)."""
    name = NAME_OF.get(dtype)
    if name is None or name not in _NUMPY:
        raise ValueError(f"element type {dtype} has no numpy equivalent")
    return _NUMPY[name]


def numpy_dtype(dtype: Attribute) -> np.dtype:
    """The numpy dtype of an element type."""
    return np.dtype(numpy_name(dtype))


def from_numpy(dtype: np.dtype | str) -> Attribute:
    """The element type of a numpy dtype (``float32`` -> ``f32``)."""
    name = _FROM_NUMPY.get(np.dtype(dtype).name)
    if name is None:
        raise ValueError(f"numpy dtype {np.dtype(dtype).name} has no relax element type")
    return BY_NAME[name]
