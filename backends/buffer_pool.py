"""A pool of large byte buffers that the VM's storages and the kernels' temporaries reuse.

A fresh large numpy array comes from ``mmap``: the first write to each 4 KiB page then
page-faults, about 0.5 ms for a 4 MB temporary, on every call. The VM (for planned
storages, given back at their ``vm.kill``) and the kernels (for local buffers, given back
when they return) take buffers here instead, as TVM's pooled allocator and workspace
pool do. Buffers below :data:`MIN_POOLED` bytes come from ``np.empty`` (malloc reuses
small blocks itself).

Buffers are 1-D ``uint8`` arrays, 64-byte aligned from :data:`MIN_ALIGNED` bytes on and
pooled by exact size from :data:`MIN_POOLED` on. The pool keeps at most
:data:`MAX_CACHED` bytes (over that it is emptied first; a larger buffer is left to the
garbage collector). Safe to share between threads: taking is a ``list.pop``, giving
back a ``list.append``.

The pool hands its memory to one owner at a time, whatever its callers do: each taking
of a pooled size gets a new :class:`PoolBuffer` object, marked as lent until it is given
back, and giving back anything else (a buffer given back already, even if the pool has
lent its memory again since; a view or copy of one; an array the pool never made) is a
``VMError``, never a second owner for the same memory.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from xrelax.backends.vm.error import VMError

ALIGNMENT = 64
MIN_POOLED = 1 << 18
"""Buffers from 256 KiB on are pooled."""
MIN_ALIGNED = 1 << 12
"""Buffers from 4 KiB on are ``ALIGNMENT``-aligned (a vector load then never straddles
two cache lines); smaller ones, whose allocation costs more than their traffic, are
not."""
MAX_CACHED = 1 << 28
"""At most 256 MiB of free buffers stay in the pool."""


class PoolBuffer(np.ndarray):
    """One lending of pooled memory: from :func:`take` until :func:`give` its ``__dict__``
    holds the ``memory`` it views (a plain array, what the pool keeps), then
    ``returned`` (views and copies of it have neither)."""


_free: dict[int, list[np.ndarray]] = {}
_cached = [0]  # bytes held by ``_free``


def aligned_bytes(nbytes: int) -> np.ndarray:
    """A fresh ``ALIGNMENT``-aligned ``uint8`` buffer of ``nbytes`` bytes."""
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    # ctypes is the cheapest way to read the buffer address (~4x faster than ndarray.ctypes)
    start = -ctypes.addressof(ctypes.c_char.from_buffer(raw)) % ALIGNMENT
    return raw[start : start + nbytes]


def take(nbytes: int) -> np.ndarray:
    """A buffer of ``nbytes`` bytes: below :data:`MIN_ALIGNED`, a fresh ``np.empty`` (as
    aligned as malloc makes it, 16 bytes; a quarter of the cost of aligning it);
    otherwise an ``ALIGNMENT``-aligned one, from :data:`MIN_POOLED` on a pooled one if
    there is one."""
    if nbytes < MIN_ALIGNED:
        return np.empty(nbytes, np.uint8)
    if nbytes < MIN_POOLED:
        return aligned_bytes(nbytes)
    free = _free.get(nbytes)
    memory = None
    if free:
        try:
            memory = free.pop()
        except IndexError:  # another thread took the last one
            pass
        else:
            _cached[0] -= nbytes
    if memory is None:
        memory = aligned_bytes(nbytes)
    buffer = memory.view(PoolBuffer)
    buffer.__dict__["memory"] = memory
    return buffer


def give(buffer: np.ndarray) -> None:
    """Return a buffer from :func:`take` (nothing may use it any more); small ones are
    left to the garbage collector. Giving back a pooled-size buffer that is not out of
    the pool (given back already, or never taken from it) is a ``VMError``."""
    nbytes = buffer.nbytes
    if nbytes < MIN_POOLED:
        return
    # one dict operation takes the memory back: two threads cannot both give it back
    marks = buffer.__dict__ if type(buffer) is PoolBuffer else {}
    memory = marks.pop("memory", None)
    if memory is None:
        raise VMError(_refusal(buffer))
    marks["returned"] = True
    if nbytes > MAX_CACHED:
        return  # the pool never holds more than its bound, even for one buffer
    if _cached[0] + nbytes > MAX_CACHED:
        clear()
    _free.setdefault(nbytes, []).append(memory)
    _cached[0] += nbytes


def _refusal(buffer: np.ndarray) -> str:
    what = f"a buffer of {buffer.nbytes} bytes"
    if type(buffer) is PoolBuffer and "returned" in buffer.__dict__:
        return f"{what} was given back to the buffer pool twice"
    return f"{what} was given back to the buffer pool, which did not lend it"


def give_all(buffers: list[np.ndarray]) -> None:
    """:func:`give` back each of ``buffers``."""
    for buffer in buffers:
        give(buffer)


def clear() -> None:
    """Release every pooled buffer to the garbage collector."""
    _free.clear()
    _cached[0] = 0


def cached_bytes() -> int:
    """The bytes the pool holds."""
    return _cached[0]


def empty(nbytes: int, shape: tuple[int, ...], dtype: Any, taken: list[np.ndarray]) -> Any:
    """An uninitialised array of ``shape`` and ``dtype`` (``nbytes`` bytes in all) viewing a
    pooled buffer, which is appended to ``taken`` for the caller to :func:`give` back."""
    buffer = take(nbytes)
    taken.append(buffer)
    return buffer.view(dtype, np.ndarray).reshape(shape)
