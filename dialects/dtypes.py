"""Element types: the MLIR types relax and tir use, their names and numpy dtypes."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

F16, F32, F64, BF16 = Float16Type(), Float32Type(), Float64Type(), BFloat16Type()
I1, I8, I16, I32, I64 = (IntegerType(w) for w in (1, 8, 16, 32, 64))
UI8, UI16, UI32, UI64 = (IntegerType(w, Signedness.UNSIGNED) for w in (8, 16, 32, 64))

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
    "ui8": UI8,
    "ui16": UI16,
    "ui32": UI32,
    "ui64": UI64,
}
NAME_OF: dict[Attribute, str] = {t: n for n, t in BY_NAME.items()}

_NUMPY: dict[str, str] = {
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "bf16": "bfloat16",
    "i1": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "ui8": "uint8",
    "ui16": "uint16",
    "ui32": "uint32",
    "ui64": "uint64",
}
_FROM_NUMPY = {v: k for k, v in _NUMPY.items()}
NUMPY_NAMES = tuple(_NUMPY.values())
"""The numpy names of the element types (the VM's dtype strings); ``bfloat16`` is
``ml_dtypes.bfloat16``, which importing this module registers with numpy."""

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
"""numpy's bf16 (ml_dtypes, as JAX and onnx use): its arithmetic computes in f32 and
rounds once, as relax's f16 and bf16 do (docs/semantics.md)."""


def is_dtype(attr: Attribute) -> bool:
    """Whether ``attr`` is an element type relax supports."""
    return attr in NAME_OF


def is_float(dtype: Attribute) -> bool:
    """Whether ``dtype`` is a floating-point type."""
    return dtype in (F16, F32, F64, BF16)


def is_bool(dtype: Attribute) -> bool:
    """Whether ``dtype`` is ``i1``."""
    return dtype == I1


def is_integer(dtype: Attribute) -> bool:
    """Whether ``dtype`` is an integer type other than ``i1`` (signed or unsigned)."""
    return isinstance(dtype, IntegerType) and dtype != I1


def is_unsigned(dtype: Attribute) -> bool:
    """Whether ``dtype`` is an unsigned integer type (``ui8`` ... ``ui64``)."""
    return dtype in (UI8, UI16, UI32, UI64)


def all_ones(dtype: Attribute) -> int:
    """The integer of ``dtype`` whose bits are all ones: -1, or the unsigned maximum."""
    return (1 << dtype.width.data) - 1 if is_unsigned(dtype) else -1


def is_float_numpy(dtype: np.dtype) -> bool:
    """Whether a numpy dtype is a floating-point one (numpy's own kinds and bf16, whose
    numpy kind is 'V')."""
    return dtype.kind == "f" or dtype == BFLOAT16


def astype(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``value`` converted to ``dtype`` as numpy's ``astype`` converts it, except from a
    float to an integer type: truncated toward zero, and a value the conversion cannot
    hold (NaN, an infinity, too large) converted as x86-64 converts it, as onnxruntime
    and torch do (C leaves it undefined; numpy's result depends on the array's size):
    through i32 for i8 ... i32, ui8 and ui16 (out of range: -2**31, then the low bits),
    i64 through i64 (-2**63), ui32 and ui64 as the signed type of their width after
    subtracting 2**31 or 2**63 from a value at least that large."""
    value = np.asarray(value)
    dtype = np.dtype(dtype)
    if not is_float_numpy(value.dtype) or dtype.kind not in "iu":
        return value.astype(dtype)
    whole = np.trunc(value.astype(np.float64))
    if dtype.itemsize == 8:
        bits, offset = 64, 2**63 if dtype.kind == "u" else None
    else:
        bits, offset = 32, 2**31 if dtype == np.uint32 else None
    if offset is None:
        return _convert(whole, bits).astype(dtype)
    large = whole >= offset
    converted = _convert(np.where(large, whole - offset, whole), bits).astype(dtype)
    return converted + np.where(large, dtype.type(offset), dtype.type(0))


def _convert(whole: np.ndarray, bits: int) -> np.ndarray:
    """Whole numbers (float64) to int64 as x86-64 converts to a signed integer of
    ``bits``: a value outside its range, or NaN, becomes its lowest value."""
    lowest = -(2.0 ** (bits - 1))
    inside = (whole >= lowest) & (whole < -lowest)
    return np.where(inside, whole, lowest).astype(np.int64)


def numpy_name(dtype: Attribute) -> str:
    """The numpy dtype name of an element type (``f32`` -> ``float32``)."""
    return _NUMPY[NAME_OF[dtype]]


def numpy_dtype(dtype: Attribute) -> np.dtype:
    """The numpy dtype of an element type."""
    return np.dtype(numpy_name(dtype))


def from_numpy(dtype: np.dtype | str) -> Attribute:
    """The element type of a numpy dtype (``float32`` -> ``f32``)."""
    name = _FROM_NUMPY.get(np.dtype(dtype).name)
    if name is None:
        raise ValueError(f"numpy dtype {np.dtype(dtype).name} has no relax element type")
    return BY_NAME[name]


SPLAT_MATERIALIZE_LIMIT = 1 << 16
"""A splat constant of more elements is a read-only broadcast view of its one value
(``np.broadcast_to``) rather than a full array: a few bytes of text may declare one of
billions of elements."""


def is_compact_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    """Whether ``attr`` stores one value for a shape of several elements (how the parser
    keeps ``dense<0.0> : [n, m]``)."""
    return len(attr.data.data) == attr.get_element_type().compile_time_size and (
        math.prod(attr.get_shape()) > 1
    )


def packed_layout(dtype: Attribute) -> np.dtype | None:
    """The numpy dtype of the bytes a dense attribute of element type ``dtype`` stores
    (its ``struct`` format, little-endian), where they are the values' own bytes; None
    where they are not (i1, stored as normalized integers; types without a format)."""
    try:
        layout = np.dtype(dtype.format)  # type: ignore[attr-defined]
    except (AttributeError, NotImplementedError, TypeError):
        return None
    value = numpy_dtype(dtype)
    if value == np.bool_ or layout.itemsize != value.itemsize:
        return None
    return layout


def dense_array(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The value of a dense attribute as a numpy array (a large splat stays one value,
    broadcast); its bytes are read as they are stored, without a Python value per
    element where the element type allows."""
    shape = tuple(attr.get_shape())
    element = attr.get_element_type()
    dtype = numpy_dtype(element)
    if is_compact_splat(attr):
        (value,) = attr.get_values()
        if math.prod(shape) <= SPLAT_MATERIALIZE_LIMIT:
            return np.full(shape, value, dtype)
        return np.broadcast_to(np.array(value, dtype), shape)
    layout = packed_layout(element)
    if layout is not None:
        return np.frombuffer(attr.data.data, layout).astype(dtype).reshape(shape)
    return np.array(attr.get_values(), dtype=dtype).reshape(shape)


def check_dense_size(attr: DenseIntOrFPElementsAttr) -> None:
    """Refuse (``VerifyException``) a constant whose size in bytes does not fit in int64:
    numpy could never make it (it also counts the dimensions of an empty array)."""
    shape = attr.get_shape()
    count = math.prod(shape)
    itemsize = attr.get_element_type().compile_time_size
    if math.prod(d for d in shape if d) * itemsize >= 2**63:
        raise VerifyException(
            f"constant of shape {list(shape)} is too large ({count} elements of {itemsize} bytes)"
        )
