"""The packed-function registry and the VM's builtin library.

Runtime values: tensors are numpy arrays, a shape is a tuple of Python ints, storage is a
1-D uint8 array, the shape heap is a 1-D int64 array (or a list of ints, where the VM
keeps it as one: see ``intrinsics``), dtypes are numpy dtype names.

The builtins run on every VM call, so their common case is kept to a few attribute
reads and comparisons: exact-type tests before ``isinstance``, dtypes compared by
identity against cached ``np.dtype`` objects, and error messages built only on failure.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from xrelax.backends import buffer_pool
from xrelax.dialects import dtypes
from xrelax.dialects.vm import MatchKind, ShapeEntry

from .error import AllocationError, VMError

__all__ = ["get_func", "list_funcs", "register_func"]

PackedFunc = Callable[..., Any]

_REGISTRY: dict[str, PackedFunc] = {}


def register_func(name: str, f: PackedFunc | None = None, override: bool = False) -> Any:
    """Register ``f`` as packed function ``name``; without ``f``, a decorator."""

    def register(func: PackedFunc) -> PackedFunc:
        if name in _REGISTRY and not override:
            raise VMError(f"packed function '{name}' is already registered")
        _REGISTRY[name] = func
        return func

    return register if f is None else register(f)


def get_func(name: str) -> PackedFunc:
    """The packed function registered as ``name``."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise VMError(f"no packed function named '{name}' is registered") from None


def list_funcs() -> list[str]:
    """Names of all registered packed functions, sorted."""
    return sorted(_REGISTRY)


class _DtypeCache(dict[str, np.dtype]):
    """``np.dtype(name)`` by name, built once: the builtins get dtypes as names."""

    def __missing__(self, name: str) -> np.dtype:
        dtype = self[name] = np.dtype(name)
        return dtype


_DTYPES = _DtypeCache()


# -- memory -----------------------------------------------------------------------------


@register_func("vm.builtin.alloc_storage")
def alloc_storage(size_bytes: int | tuple[int], dtype_hint: str) -> np.ndarray:
    """A 64-byte aligned byte buffer from the buffer pool (size: an int or a 1-tuple)."""
    if type(size_bytes) is tuple:
        (size_bytes,) = size_bytes
    if size_bytes < 0:
        raise AllocationError(f"cannot allocate storage of {size_bytes} bytes")
    try:
        return buffer_pool.take(size_bytes)
    except (MemoryError, ValueError, OverflowError):
        raise AllocationError(
            f"cannot allocate storage of {size_bytes} bytes", "out of memory"
        ) from None


@register_func("vm.builtin.alloc_tensor")
def alloc_tensor(storage: np.ndarray, offset_bytes: int, shape: Any, dtype: str) -> np.ndarray:
    """A tensor viewing ``storage`` from ``offset_bytes``."""
    try:
        return np.ndarray(shape, _DTYPES[dtype], buffer=storage, offset=offset_bytes)
    except (TypeError, ValueError) as err:
        dims = _dims(shape)
        what = f"cannot allocate a tensor of shape {list(dims)}"
        if any(d < 0 for d in dims):
            raise AllocationError(what) from None
        needed = math.prod(dims) * np.dtype(dtype).itemsize
        if offset_bytes < 0 or offset_bytes + needed > storage.nbytes:
            raise AllocationError(
                what,
                f"{needed} bytes of {dtype} at offset {offset_bytes} do not fit in its "
                f"storage of {storage.nbytes} bytes",
            ) from None
        raise AllocationError(what, str(err)) from None


@register_func("vm.builtin.alloc_tensor_direct")
def alloc_tensor_direct(shape: Any, dtype: str) -> np.ndarray:
    """A fresh uninitialised tensor (unplanned allocation)."""
    try:
        return np.empty(shape, _DTYPES[dtype])
    except (MemoryError, ValueError, TypeError, OverflowError) as err:
        dims = _dims(shape)
        what = f"cannot allocate a tensor of shape {list(dims)}"
        if any(d < 0 for d in dims):
            raise AllocationError(what) from None
        if isinstance(err, MemoryError | OverflowError) or "too big" in str(err):
            nbytes = math.prod(dims) * np.dtype(dtype).itemsize
            raise AllocationError(what, f"out of memory ({nbytes} bytes of {dtype})") from None
        raise AllocationError(what, str(err)) from None


def _dims(shape: Any) -> tuple[int, ...]:
    return (shape,) if isinstance(shape, int | np.integer) else tuple(shape)


@register_func("vm.builtin.free_storage")
def free_storage(storage: np.ndarray) -> None:
    """The end of a storage's lifetime: a large one goes back to the buffer pool."""
    buffer_pool.give(storage)


@register_func("vm.builtin.free_tensor")
def free_tensor(tensor: Any) -> None:
    """No-op: tensors are freed by the garbage collector."""


# -- shapes -----------------------------------------------------------------------------


@register_func("vm.builtin.alloc_shape_heap")
def alloc_shape_heap(size: int) -> np.ndarray:
    """A zeroed int64 shape heap of ``size`` slots."""
    return np.zeros(size, np.int64)


@register_func("vm.builtin.shape_of")
def shape_of(tensor: np.ndarray) -> tuple[int, ...]:
    """The shape of ``tensor``."""
    return tensor.shape


@register_func("vm.builtin.store_shape")
def store_shape(shape: tuple[int, ...], heap: np.ndarray, *indices: int) -> None:
    """``heap[indices[k]] = shape[k]`` for every k."""
    if len(indices) != len(shape):
        raise VMError(
            f"store_shape: {len(indices)} heap indices given for a shape of rank {len(shape)}"
        )
    for dim, index in zip(shape, indices, strict=True):
        heap[index] = dim


@register_func("vm.builtin.load_shape")
def load_shape(heap: np.ndarray, *indices: int) -> tuple[int, ...]:
    """The shape ``(heap[i0], heap[i1], ...)``."""
    return tuple([int(heap[index]) for index in indices])


@register_func("vm.builtin.make_shape")
def make_shape(heap: np.ndarray, pattern: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """A shape from ``(kind, value)`` pairs: IMMEDIATE ``value``, HEAP ``heap[value]``."""
    dims = []
    for kind, value in pattern:
        dims.append(int(heap[value]) if kind == ShapeEntry.HEAP else value)
    return tuple(dims)


@register_func("vm.builtin.match_shape")
def match_shape(
    value: Any, heap: np.ndarray, pattern: tuple[tuple[int, int, str], ...], err_ctx: str
) -> None:
    """Match the dims of a tensor or shape against ``(kind, value, label)`` triples."""
    if type(value) is np.ndarray or isinstance(value, np.ndarray):
        dims = value.shape
    elif _is_shape(value):
        dims = value
    else:
        raise VMError(_in(err_ctx, f"expected a tensor or shape, got {_describe(value)}"))
    if len(dims) != len(pattern):
        raise VMError(_in(err_ctx, f"expected rank {len(pattern)}, got rank {len(dims)}"))
    for dim, (kind, slot, _) in zip(dims, pattern, strict=True):
        if kind == MatchKind.EQUAL:
            if dim != slot:
                _match_error(dims, heap, pattern, err_ctx)
        elif kind == MatchKind.STORE:
            if dim < 0:
                _negative_size_error(dims, pattern, err_ctx)
            heap[slot] = dim
        elif kind == MatchKind.CHECK:
            if dim != heap[slot]:
                _match_error(dims, heap, pattern, err_ctx)
        elif kind != MatchKind.ANY:
            raise VMError(_in(err_ctx, f"match_shape: unknown pattern kind {kind}"))


@register_func("vm.builtin.match_prim")
def match_prim(
    value: Any,
    heap: np.ndarray,
    pattern: tuple[tuple[int, int, str], ...],
    err_ctx: str,
    dtype: str = "int64",
) -> int:
    """A prim value (an int, a numpy integer or a 0-d integer array) of element type
    ``dtype`` as an int, matched against one ``(kind, value, label)`` entry: a stored
    value binds a symbolic variable, which is non-negative."""
    integer = prim_int(value, err_ctx)
    if dtype != "int64":
        limits = np.iinfo(dtype)
        if not limits.min <= integer <= limits.max:
            raise VMError(
                _in(err_ctx, f"expected an {dtype} in [{limits.min}, {limits.max}], got {integer}")
            )
    ((kind, slot, label),) = pattern
    if kind == MatchKind.STORE:
        if integer < 0:
            raise VMError(
                _in(
                    err_ctx,
                    f"symbolic variable {label} would be {integer}, but symbolic "
                    "variables are non-negative",
                )
            )
        heap[slot] = integer
    elif kind in (MatchKind.EQUAL, MatchKind.CHECK):
        expected = slot if kind == MatchKind.EQUAL else int(heap[slot])
        if integer != expected:
            raise VMError(_in(err_ctx, f"value{_label(label)}: expected {expected}, got {integer}"))
    elif kind != MatchKind.ANY:
        raise VMError(_in(err_ctx, f"match_prim: unknown pattern kind {kind}"))
    return integer


INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
INT64_RANGE = f"[{INT64_MIN}, {INT64_MAX}]"
"""Prim values and dimensions are int64 (the shape heap's and the kernels' integers)."""


def prim_int(value: Any, err_ctx: str) -> int:
    """``value`` as a Python int: an int, a numpy integer or a 0-d integer array, in the
    int64 range."""
    if type(value) is not int:
        if isinstance(value, np.ndarray) and value.ndim == 0:
            if value.dtype.kind not in "iu":
                raise VMError(_in(err_ctx, f"expected an integer, got {value.dtype.name}"))
            value = value[()]
        if not isinstance(value, int | np.integer) or isinstance(value, bool | np.bool_):
            raise VMError(_in(err_ctx, f"expected an integer, got {_describe(value)}"))
        value = int(value)
    if not INT64_MIN <= value <= INT64_MAX:
        raise VMError(_in(err_ctx, f"expected an int64 in {INT64_RANGE}, got {value}"))
    return value


@register_func("vm.builtin.make_prim")
def make_prim(heap: np.ndarray, entry: tuple[int, int]) -> int:
    """A prim value from a ``(kind, value)`` pair (:class:`ShapeEntry`)."""
    kind, value = entry
    return int(heap[value]) if kind == ShapeEntry.HEAP else value


def _match_error(
    dims: tuple[int, ...], heap: np.ndarray, pattern: tuple[tuple[int, int, str], ...], err_ctx: str
) -> None:
    """Raise the error for the first dimension of ``dims`` that ``pattern`` rejects (the
    heap holds the values the stores before it wrote)."""
    for i, (dim, (kind, slot, label)) in enumerate(zip(dims, pattern, strict=True)):
        if kind == MatchKind.EQUAL:
            expected = slot
        elif kind == MatchKind.CHECK:
            expected = int(heap[slot])
        else:
            continue
        if dim != expected:
            raise VMError(
                _in(err_ctx, f"dimension {i}{_label(label)}: expected {expected}, got {dim}")
            )


def _negative_size_error(
    dims: tuple[int, ...], pattern: tuple[tuple[int, int, str], ...], err_ctx: str
) -> None:
    """A symbolic variable is a size: it is never bound to a negative value."""
    for i, (dim, (kind, _, label)) in enumerate(zip(dims, pattern, strict=True)):
        if kind == MatchKind.STORE and dim < 0:
            raise VMError(
                _in(err_ctx, f"dimension {i}{_label(label)}: expected a size >= 0, got {dim}")
            )


def _label(label: str) -> str:
    if not label or label.lstrip("-").isdigit():
        return ""
    kind = "variable" if label.isidentifier() else "expression"
    return f" (symbolic {kind} {label})"


# -- checks -----------------------------------------------------------------------------

TENSOR_KINDS = "biuf"
"""The numpy dtype kinds of relax tensors (no complex, object, string or time values),
besides bf16 (``ml_dtypes.bfloat16``, of numpy kind 'V')."""


@register_func("vm.builtin.check_tensor_info")
def check_tensor_info(value: Any, ndim: int, dtype: str, err_ctx: str) -> None:
    """Check ``value`` is a tensor of rank ``ndim`` (-1: any) and ``dtype`` ("": any of relax's)."""
    if type(value) is not np.ndarray and not isinstance(value, np.ndarray):
        raise VMError(_in(err_ctx, f"expected a tensor, got {_describe(value)}"))
    if ndim != -1 and value.ndim != ndim:
        raise VMError(_in(err_ctx, f"expected rank {ndim}, got rank {value.ndim}"))
    if not dtype and value.dtype.kind not in TENSOR_KINDS and value.dtype != dtypes.BFLOAT16:
        raise VMError(
            _in(
                err_ctx,
                "expected a tensor of a boolean, integer or floating-point dtype, "
                f"got {value.dtype.name}",
            )
        )
    # ``dtype.name`` costs microseconds; the identity test covers native dtypes.
    # A dtype equal to the expected one but another object passes; another byte order
    # does not (kernels read some buffers as raw memory of the native dtype).
    if dtype and value.dtype is not _DTYPES[dtype] and value.dtype != _DTYPES[dtype]:
        got = value.dtype.name
        if got == dtype:
            got = f"{dtype} in byte order {value.dtype.str}"
        raise VMError(_in(err_ctx, f"expected dtype {dtype}, got {got}"))


@register_func("vm.builtin.check_shape_info")
def check_shape_info(value: Any, ndim: int, err_ctx: str) -> None:
    """Check ``value`` is a shape of rank ``ndim`` (-1: any) of int64 dimensions."""
    if not _is_shape(value):
        raise VMError(_in(err_ctx, f"expected a shape, got {_describe(value)}"))
    if ndim != -1 and len(value) != ndim:
        raise VMError(_in(err_ctx, f"expected a shape of rank {ndim}, got rank {len(value)}"))
    if value and (min(value) < INT64_MIN or max(value) > INT64_MAX):
        i, dim = next((i, d) for i, d in enumerate(value) if not INT64_MIN <= d <= INT64_MAX)
        raise VMError(_in(err_ctx, f"dimension {i}: expected an int64 in {INT64_RANGE}, got {dim}"))


@register_func("vm.builtin.check_tuple_info")
def check_tuple_info(value: Any, size: int, err_ctx: str) -> None:
    """Check ``value`` is a tuple of ``size`` fields."""
    if not isinstance(value, tuple):
        raise VMError(_in(err_ctx, f"expected a tuple, got {_describe(value)}"))
    if len(value) != size:
        raise VMError(_in(err_ctx, f"expected a tuple of size {size}, got size {len(value)}"))


def _in(err_ctx: str, message: str) -> str:
    return f"{err_ctx}: {message}" if err_ctx else message


def _is_shape(value: Any) -> bool:
    return isinstance(value, tuple) and all(
        isinstance(d, int | np.integer) and not isinstance(d, bool) for d in value
    )


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return "tensor"
    if isinstance(value, tuple):
        return "shape" if value and _is_shape(value) else "tuple"
    kind = type(value)
    module = kind.__module__.split(".")[0]
    return kind.__name__ if module in ("builtins", "numpy") else f"{module}.{kind.__name__}"


def as_tensor(value: Any) -> Any:
    """``value`` as a numpy array when it is a tensor of another library: anything with
    ``__dlpack__`` (torch, JAX, CuPy on the host; shared, not copied) or ``__array__``;
    anything else unchanged (the check that follows names it). A torch tensor that
    requires grad is read through ``detach()``, as ``tensor.numpy()`` would not."""
    if isinstance(value, np.ndarray) or not (
        hasattr(value, "__dlpack__") or hasattr(value, "__array__")
    ):
        return value
    if hasattr(value, "__dlpack__"):
        try:
            return np.from_dlpack(value)
        except (BufferError, TypeError, RuntimeError, ValueError):
            detached = getattr(value, "detach", None)
            if callable(detached):
                return as_tensor(_through_numpy(detached()))
    return _through_numpy(value)


def _through_numpy(value: Any) -> Any:
    """``value.numpy()`` where it has one (torch: also bf16, as ml_dtypes' bfloat16),
    else ``np.asarray``; ``value`` itself when neither works."""
    if str(getattr(value, "dtype", "")) == "torch.bfloat16" and hasattr(value, "view"):
        import torch

        return value.view(torch.int16).numpy().view(dtypes.BFLOAT16)
    for convert in (getattr(value, "numpy", None), lambda: np.asarray(value)):
        if callable(convert):
            try:
                array = convert()
            except (TypeError, RuntimeError, ValueError):
                continue
            if isinstance(array, np.ndarray):
                return array
    return value


# -- values and calls -------------------------------------------------------------------


@register_func("vm.builtin.make_tuple")
def make_tuple(*values: Any) -> tuple[Any, ...]:
    """The tuple of the arguments."""
    return values


@register_func("vm.builtin.tuple_getitem")
def tuple_getitem(value: tuple[Any, ...], index: int) -> Any:
    """Field ``index`` of a tuple."""
    return value[index]


@register_func("vm.builtin.copy")
def copy(value: Any) -> Any:
    """A copy of a tensor (other values are immutable and returned as is)."""
    return value.copy() if isinstance(value, np.ndarray) else value


@register_func("vm.builtin.move")
def move(value: Any) -> Any:
    """The value itself."""
    return value


@register_func("vm.builtin.call_tir_unchecked")
def call_tir_unchecked(func: PackedFunc, *args: Any) -> Any:
    """``func(*args)``, where the compiler proved that the arguments match the kernel's
    signature: the VM calls the kernel's unchecked entry (``func.unchecked``) instead
    when it has one. An executable is trusted code, as its calls are."""
    return func(*args)


@register_func("vm.builtin.call_tir_dyn")
def call_tir_dyn(func: PackedFunc, *args: Any) -> Any:
    """``func(*args[:-1], *args[-1])``: the last argument is a shape of symbolic ints."""
    return func(*args[:-1], *args[-1])


@register_func("vm.builtin.read_if_cond")
def read_if_cond(value: Any) -> bool:
    """The truth value of a 0-d or size-1 tensor (or scalar)."""
    return bool(value)


@register_func("vm.builtin.print")
def print_value(value: Any) -> None:
    """Print ``value``."""
    print(value)
