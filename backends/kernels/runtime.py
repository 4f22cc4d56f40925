"""Functions the generated kernels call besides numpy's own (the kernels' namespace)."""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import numpy as np

from xrelax.backends.vm.error import VMError
from xrelax.dialects import dtypes
from xrelax.dialects.shapes.symbolic import Fact

bfloat16 = dtypes.BFLOAT16.type
"""The bf16 scalar type (``ml_dtypes.bfloat16``) as the generated code names it."""


class KernelError(VMError, ValueError):
    """A kernel called with arguments that do not match its signature, or whose checks
    fail (one-line message); the VM reports it as it is, prefixed with the function."""


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


def erf(x: Any) -> Any:
    """The error function, elementwise, in ``x``'s floating-point type: float64 to 1e-15
    (Chebyshev), float32 and narrower by the rational approximation of Eigen and XLA
    (within 7 ulps, some 30x faster)."""
    if type(x) is OutOfRange:
        return x
    array = np.asarray(x)
    if array.dtype == np.float64 or array.dtype.kind != "f":
        result = _erf_float64(array.astype(np.float64))
    else:
        result = _erf_float32(array.astype(np.float32)).astype(array.dtype, copy=False)
    return result if isinstance(x, np.ndarray) else result[()]


_ERF_NUMERATOR = np.array(
    [
        -2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
        -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
        -1.60960333262415e-02,
    ],
    np.float32,
)  # fmt: skip
_ERF_DENOMINATOR = np.array(
    [
        -1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
        -7.37332916720468e-03, -1.42647390514189e-02,
    ],
    np.float32,
)  # fmt: skip
"""erf(x) = x * P(x * x) / Q(x * x) on [-4, 4] in float32 (Eigen's ``generic_fast_erf``);
beyond, erf is +-1 in float32."""


def _erf_float32(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, np.float32(-4), np.float32(4))
    x2 = x * x
    p = np.full_like(x, _ERF_NUMERATOR[0])
    for coefficient in _ERF_NUMERATOR[1:]:
        p *= x2
        p += coefficient
    p *= x
    q = np.full_like(x, _ERF_DENOMINATOR[0])
    for coefficient in _ERF_DENOMINATOR[1:]:
        q *= x2
        q += coefficient
    p /= q
    return p


_ERFC_CHEBYSHEV = np.array(
    [
        -1.3026537197817094, 6.4196979235649026e-1, 1.9476473204185836e-2,
        -9.561514786808631e-3, -9.46595344482036e-4, 3.66839497852761e-4,
        4.2523324806907e-5, -2.0278578112534e-5, -1.624290004647e-6,
        1.303655835580e-6, 1.5626441722e-8, -8.5238095915e-8, 6.529054439e-9,
        5.059343495e-9, -9.91364156e-10, -2.27365122e-10, 9.6467911e-11,
        2.394038e-12, -6.886027e-12, 8.94487e-13, 3.13092e-13, -1.12708e-13,
        3.81e-16, 7.106e-15, -1.523e-15, -9.4e-17, 1.21e-16, -2.8e-17,
    ]
)  # fmt: skip
"""Chebyshev coefficients of erfc on [0, inf) (Numerical Recipes, 3rd ed., §6.2.2)."""


_ERF_TAYLOR = np.array(
    [2 / math.sqrt(math.pi) * (-1) ** k / (math.factorial(k) * (2 * k + 1)) for k in range(14)]
)
"""Coefficients of erf(x) / x as a polynomial in x * x (the Taylor series)."""


def _erf_float64(x: np.ndarray) -> np.ndarray:
    """erf in float64 (absolute error below 1e-15, relative error below 1e-15 near 0)."""
    z = np.abs(x)
    t = 2.0 / (2.0 + z)
    ty = 4.0 * t - 2.0
    d = np.zeros_like(z)
    dd = np.zeros_like(z)
    for coefficient in _ERFC_CHEBYSHEV[:0:-1]:
        d, dd = ty * d - dd + coefficient, d
    erfc = t * np.exp(-z * z + 0.5 * (_ERFC_CHEBYSHEV[0] + ty * d) - dd)
    # 1 - erfc loses the relative accuracy of small values; the series keeps it.
    near = np.clip(x, -0.5, 0.5)
    series = near * np.polynomial.polynomial.polyval(near * near, _ERF_TAYLOR)
    return np.where(z < 0.5, series, np.copysign(1.0 - erfc, x))


def rsqrt(x: Any) -> Any:
    """``1 / sqrt(x)`` in ``x``'s type."""
    if type(x) is OutOfRange:
        return x
    root = np.sqrt(x)
    return np.divide(root.dtype.type(1), root)


def truncdiv(a: Any, b: Any) -> Any:
    """Integer division rounding toward zero (``arith.divsi``)."""
    if type(a) is OutOfRange or type(b) is OutOfRange:
        return a if type(a) is OutOfRange else b
    quotient = np.floor_divide(a, b)
    inexact = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return np.where(inexact, quotient + 1, quotient).astype(np.result_type(a, b))


def cast(x: Any, dtype: np.dtype) -> Any:
    """``x`` converted to ``dtype`` as ``dtypes.astype`` converts it (arrays and scalars)."""
    if type(x) is OutOfRange:
        return x
    return dtypes.astype(x, dtype)[()] if np.ndim(x) == 0 else dtypes.astype(x, dtype)


def truncate_to_bool(x: Any) -> Any:
    """``arith.trunci`` to ``i1``: the lowest bit."""
    if type(x) is OutOfRange:
        return x
    return np.bitwise_and(x, 1).astype(np.bool_)


def bounds_error(name: str, buffer: str, dim: int | str, lo: int, hi: int, size: int) -> None:
    """A loop nest that would access a buffer outside a dimension (``"flat"``: outside
    its row-major elements)."""
    where = (
        "is accessed at elements" if dim == "flat" else f"dimension {dim} is accessed at indices"
    )
    raise KernelError(f"kernel @{name}: buffer %{buffer} {where} [{lo}, {hi}], outside [0, {size})")


def slice_stop(stop: int) -> int | None:
    """The stop of a slice with a negative step (None past the first element)."""
    return stop if stop >= 0 else None


def arity_error(name: str, buffers: int, syms: int, given: int) -> None:
    """Wrong number of arguments."""
    raise KernelError(
        f"kernel @{name}: expected {buffers + syms} arguments ({buffers} buffers, "
        f"{syms} sym values), got {given}"
    )


def index_error(name: str, buffer: str, dim: int, index: Any, size: int) -> None:
    """A data-dependent index (a scalar, or the array of them) outside ``[0, size)``."""
    values = np.asarray(index).reshape(-1)
    bad = values[(values < 0) | (values >= size)]
    value = bad[0] if bad.size else values[0]
    raise KernelError(
        f"kernel @{name}: index {value} out of range [0, {size}) for axis {dim} of buffer %{buffer}"
    )


class OutOfRange:
    """What the scalar loops load at an index outside the buffer. Computing with it gives
    it back (a select whose condition it is gives it back too); storing it or binding it
    with ``tir.let`` raises the index error. So a select that does not choose it
    discards it, as the vectorized code, which evaluates each branch of a split select
    only where it is chosen."""

    def __init__(self, name: str, buffer: str, dims: tuple, indices: tuple, sizes: tuple):
        self.failure = next(
            (name, buffer, d, i, n)
            for d, i, n in zip(dims, indices, sizes, strict=True)
            if not 0 <= i < n
        )

    def __array_ufunc__(self, ufunc: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        """The result of a computation with it: itself; computed into a buffer
        (``out=``), a store: the index error."""
        if kwargs.get("out") is not None:
            self.used()
        return self

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """As :meth:`__array_ufunc__`; ``np.copyto`` of it is a store: the index error
        (a 0-d output is written by ``np.copyto``, which otherwise left it unwritten)."""
        if func is np.copyto or kwargs.get("out") is not None:
            self.used()
        return self

    def used(self, *args: Any, **kwargs: Any) -> Any:
        """Raise the index error."""
        index_error(*self.failure)

    __array__ = __float__ = __int__ = __index__ = __bool__ = used


def assert_error(name: str, facts: Sequence[Fact], bindings: Mapping[str, int]) -> None:
    """A ``tir.assert`` that does not hold: the first of its facts that fails."""
    failed = next((f for f in facts if not f.holds(bindings)), facts[0])
    raise KernelError(f"kernel @{name}: {failed.failure(bindings)}")


def sym_int(name: str, index: int, var: str, value: Any) -> int:
    """A ``sym`` argument as a Python int (a size: not negative)."""
    try:
        size = operator.index(value)
    except TypeError:
        raise KernelError(
            f"kernel @{name}: sym argument #{index} '{var}' must be an integer, "
            f"got {type(value).__name__}"
        ) from None
    if size < 0:
        raise KernelError(
            f"kernel @{name}: sym argument #{index} '{var}': expected a size >= 0, got {size}"
        )
    return size


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


def division_error(name: str, division: str, values: dict[str, int]) -> NoReturn:
    """A symbolic expression dividing by a variable that is 0 at run time."""
    shown = ", ".join(f"{var} = {value}" for var, value in values.items())
    raise KernelError(f"kernel @{name}: {division} divides by zero ({shown})")


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
