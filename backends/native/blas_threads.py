"""The threads numpy's OpenBLAS runs a call on, set around the calls of native kernels
(what ``threadpoolctl`` does for a whole block of code).

After a call on several threads, OpenBLAS's workers spin for a while before they sleep.
Between the native pool's tasks (:mod:`.parallel`) that spinning takes the core a pool
worker needs: with BERT-base's attention products on BLAS and its dense products in
register tiles, two threads took 221 ms against 209 on one. A small product gains little
from BLAS's second thread anyway, so the kernels that call BLAS for one run it on the
calling thread (:func:`alone`) and leave the pool's workers spinning; larger ones keep
BLAS's threads (and send the pool's workers to sleep: :meth:`.parallel.Pool.rest`).

OpenBLAS is found among the libraries the process has loaded (numpy's wheels bundle it
as ``libscipy_openblas64_``); with another BLAS, or off Linux, nothing changes.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

__all__ = ["SOLO_WORK", "alone"]

SOLO_WORK = 1 << 24
"""A BLAS call of at most this many multiply-adds runs on the calling thread (0.35 ms
on one core of the AMD EPYC of docs/performance.md; BERT-base's attention products
at sequence 128, 12.6 M each, took as long on one thread as on two)."""

_SETTERS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_")
_GETTERS = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_")


@functools.cache
def _openblas() -> tuple[Callable[[int], None], Callable[[], int]] | None:
    """OpenBLAS's thread count setter and getter, or None."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for set_name, get_name in zip(_SETTERS, _GETTERS, strict=True):
            if hasattr(lib, set_name) and hasattr(lib, get_name):
                setter, getter = getattr(lib, set_name), getattr(lib, get_name)
                setter.argtypes, setter.restype = [ctypes.c_int], None
                getter.argtypes, getter.restype = [], ctypes.c_int
                return setter, getter
    return None


def alone(function: Callable[..., None]) -> Callable[..., None]:
    """``function`` (a kernel entry that calls BLAS) with OpenBLAS on one thread for
    the call; ``function`` itself where OpenBLAS is not found."""
    found = _openblas()
    if found is None:
        return function
    setter, getter = found

    def on_one_thread(*args: object) -> None:
        threads = getter()
        setter(1)
        try:
            function(*args)
        finally:
            setter(threads)

    return on_one_thread
