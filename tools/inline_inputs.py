"""Inputs given on the command line, as IREE's tools take them (``--input``).

* ``2x3xf32=1,2,3,4,5,6`` — a tensor: dims, element type and values (commas or spaces;
  one value fills the tensor; none gives zeros); ``f32=0.5`` or ``i64=7`` is a scalar
  (a 0-d tensor, or the integer of a prim parameter);
* ``@weights.npy`` — the array saved in a ``.npy`` file;
* ``NAME=...`` before either gives the parameter by name (``x=2x3xf32=...``,
  ``x=@x.npy``); inputs without a name fill the parameters in order.

Element types are MLIR's (``f16``, ``bf16``, ``f32``, ``f64``, ``i1``, ``i8`` ...
``i64``, ``ui8`` ... ``ui64``; ``si8`` ... as IREE writes signed types).
"""

from __future__ import annotations

import re

import numpy as np

from xrelax.dialects import dtypes

_TYPED = re.compile(r"(?P<dims>(?:\d+x)*)(?P<dtype>[a-z]+\d+)(?:=(?P<values>.*))?", re.DOTALL)


class InputError(ValueError):
    """An inline input that cannot be read, with the reason."""


def parse_input(text: str, params: list[str]) -> tuple[str | None, np.ndarray]:
    """The parameter ``text`` names (None: the next in order) and its value."""
    name, sep, rest = text.partition("=")
    if sep and name in params and not _TYPED.fullmatch(text):
        return name, _value(rest, text)
    return None, _value(text, text)


def _value(spec: str, text: str) -> np.ndarray:
    if spec.startswith("@"):
        path = spec[1:]
        try:
            array = np.load(path, allow_pickle=False)
        except OSError as err:
            raise InputError(f"cannot read '{path}': {err.strerror or err}") from None
        except ValueError as err:
            raise InputError(f"cannot read '{path}': {err}") from None
        if not isinstance(array, np.ndarray):
            raise InputError(f"'{path}' holds several arrays: give one .npy file")
        return array
    match = _TYPED.fullmatch(spec)
    if match is None:
        raise InputError(
            f"'{text}': expected DIMSxTYPE=VALUES (2x3xf32=1,2,3,4,5,6), TYPE=VALUE, "
            "@FILE.npy, or NAME= before one of them"
        )
    dims = [int(d) for d in match["dims"].split("x") if d]
    dtype = _dtype(match["dtype"], text)
    values = (match["values"] or "").replace(",", " ").split()
    count = int(np.prod(dims)) if dims else 1
    if not values:
        return np.zeros(dims, dtype)
    if len(values) not in (1, count):
        raise InputError(f"'{text}': {len(values)} values for {count} elements")
    try:
        parsed = np.array([_number(v, dtype) for v in values]).astype(dtype)
    except (ValueError, OverflowError) as err:
        raise InputError(f"'{text}': {err}") from None
    return np.broadcast_to(parsed, (count,)).reshape(dims).copy()


def _dtype(spelling: str, text: str) -> np.dtype:
    name = "i" + spelling[2:] if spelling.startswith("si") else spelling
    if name not in dtypes.BY_NAME:
        raise InputError(f"'{text}': unknown element type '{spelling}'")
    return dtypes.numpy_dtype(dtypes.BY_NAME[name])


def _number(text: str, dtype: np.dtype) -> float | int | bool:
    if dtype == np.bool_:
        if text.lower() in ("true", "1"):
            return True
        if text.lower() in ("false", "0"):
            return False
        raise ValueError(f"'{text}' is not a boolean")
    if dtype.kind in "iu":
        value = int(text, 0)
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise ValueError(f"{value} is outside {dtype.name} [{info.min}, {info.max}]")
        return value
    return float(text)
