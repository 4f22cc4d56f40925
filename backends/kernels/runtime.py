"""Functions the generated kernels call besides numpy's own (the kernels' namespace)."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np


class KernelError(ValueError):
    """A kernel called with arguments that do not match its signature (one-line message)."""


class _SeterrState:
    """numpy 1.x: ``FP_STATE.set`` / ``reset`` through ``np.seterr``."""

    def set(self, errors: dict[str, str]) -> dict[str, str]:
        return np.seterr(**errors)

    def reset(self, previous: dict[str, str]) -> None:
        np.seterr(**previous)


# A kernel ignores floating-point errors: it computes IEEE results (and values that a
# select then discards) without warnings. ``np.errstate`` costs about 0.8 us per call, so
# kernels set numpy's error state directly: ``token = FP_STATE.set(FP_IGNORE)``, then
# ``FP_STATE.reset(token)``. In numpy 2 the state is a context variable holding an
# "extobj"; FP_IGNORE is made once, so kernels use the buffer size numpy had at import.
try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    FP_STATE: Any = _extobj_contextvar
    FP_IGNORE: Any = _make_extobj(all="ignore")
except (ImportError, TypeError):
    FP_STATE = _SeterrState()
    FP_IGNORE = {"all": "ignore"}


_ERF_SERIES = [
    2 / math.sqrt(math.pi) * (-1) ** k / (math.factorial(k) * (2 * k + 1)) for k in range(48)
]


def erf(x: Any) -> Any:
    """The error function, elementwise, in ``x``'s floating-point type.

    Evaluated in float64: the Maclaurin series for ``|x| < 3`` and the continued
    fraction of ``erfc`` beyond (both accurate to about 1e-14).
    """
    array = np.asarray(x)
    dtype = array.dtype
    v = array.astype(np.float64)
    a = np.abs(v)
    small = a < 3.0
    out = np.empty_like(v)
    s = v[small]
    s2 = s * s
    acc = np.zeros_like(s)
    for coeff in reversed(_ERF_SERIES):
        acc = acc * s2 + coeff
    out[small] = s * acc
    big = a[~small]
    frac = np.zeros_like(big)
    for k in range(60, 0, -1):
        frac = (k / 2) / (big + frac)
    tail = np.exp(-big * big) / math.sqrt(math.pi) / (big + frac)
    out[~small] = np.copysign(1.0 - tail, v[~small])
    out[np.isnan(v)] = np.nan
    result = out.astype(dtype)
    return result if isinstance(x, np.ndarray) else result[()]


def rsqrt(x: Any) -> Any:
    """``1 / sqrt(x)`` in ``x``'s type."""
    root = np.sqrt(x)
    return np.divide(root.dtype.type(1), root)


def truncdiv(a: Any, b: Any) -> Any:
    """Integer division rounding toward zero (``arith.divsi``)."""
    quotient = np.floor_divide(a, b)
    inexact = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return np.where(inexact, quotient + 1, quotient).astype(np.result_type(a, b))


def cast(x: Any, dtype: np.dtype) -> Any:
    """``x`` converted to ``dtype`` with numpy ``astype`` semantics (arrays and scalars)."""
    return np.asarray(x).astype(dtype)[()] if np.ndim(x) == 0 else x.astype(dtype)


def truncate_to_bool(x: Any) -> Any:
    """``arith.trunci`` to ``i1``: the lowest bit."""
    return np.bitwise_and(x, 1).astype(np.bool_)


def bounds_error(name: str, buffer: str, dim: int, lo: int, hi: int, size: int) -> None:
    """A loop nest that would access a buffer outside a dimension."""
    raise KernelError(
        f"kernel @{name}: buffer %{buffer} dimension {dim} is accessed at indices "
        f"[{lo}, {hi}], outside [0, {size})"
    )


def slice_stop(stop: int) -> int | None:
    """The stop of a slice with a negative step (None past the first element)."""
    return stop if stop >= 0 else None


def arity_error(name: str, buffers: int, syms: int, given: int) -> None:
    """Wrong number of arguments."""
    raise KernelError(
        f"kernel @{name}: expected {buffers + syms} arguments ({buffers} buffers, "
        f"{syms} sym values), got {given}"
    )


def sym_int(name: str, index: int, var: str, value: Any) -> int:
    """A ``sym`` argument as a Python int."""
    try:
        return operator.index(value)
    except TypeError:
        raise KernelError(
            f"kernel @{name}: sym argument #{index} '{var}' must be an integer, "
            f"got {type(value).__name__}"
        ) from None


def check_buffer(name: str, index: int, label: str, value: Any, rank: int, dtype: np.dtype) -> None:
    """Accept an ndarray subclass, or a dtype equal to ``dtype`` but another object; raise
    for a buffer argument of the wrong kind, rank or dtype."""
    if isinstance(value, np.ndarray) and value.ndim == rank and value.dtype == dtype:
        return
    where = f"kernel @{name}: buffer #{index} %{label}"
    if not isinstance(value, np.ndarray):
        raise KernelError(f"{where}: expected a numpy array, got {type(value).__name__}")
    if value.ndim != rank:
        raise KernelError(
            f"{where}: expected rank {rank}, got rank {value.ndim} (shape {value.shape})"
        )
    raise KernelError(f"{where}: expected dtype {dtype}, got {value.dtype}")


def dim_error(
    name: str,
    index: int,
    label: str,
    dim: int,
    actual: int,
    expected: int,
    text: str,
    values: dict[str, int],
) -> None:
    """A dimension that differs from what the symbolic shape says."""
    if text == str(expected):
        wanted = text
    else:
        wanted = f"{text} = {expected}"
        shown = {k: v for k, v in values.items() if k != text}
        if shown:
            wanted += " (" + ", ".join(f"{k} = {v}" for k, v in shown.items()) + ")"
    raise KernelError(
        f"kernel @{name}: buffer #{index} %{label} dimension {dim} is {actual}, expected {wanted}"
    )
