"""Functions the generated kernels call besides numpy's own (the kernels' namespace)."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import numpy as np

from xrelax.backends.vm.error import VMError
from xrelax.dialects import dtypes
from xrelax.dialects.shapes.symbolic import Fact
from xrelax.ops.erf import erf as erf_of

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
    """:func:`xrelax.ops.erf.erf`, elementwise (an out-of-range value stays one)."""
    if type(x) is OutOfRange:
        return x
    return erf_of(x)


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
