"""Native kernels: ``tir.prim_func`` -> ``llvm.func`` (``tir-to-llvm``) -> machine code
(llvmlite), behind the numpy kernels' calling convention (:mod:`.compiler`).

The backend is optional (the ``native`` extra installs llvmlite); the numpy kernels
stay the portable fallback and the reference the native ones are tested against.
"""

from __future__ import annotations

import importlib.util
import os

__all__ = ["BACKENDS", "KERNELS_ENV", "available", "kernel_backend"]

BACKENDS = ("numpy", "native")
KERNELS_ENV = "XRELAX_KERNELS"
"""The default kernel backend's name, where the caller names none."""


def available() -> bool:
    """Whether the native backend can run here (llvmlite and cffi are installed)."""
    return all(importlib.util.find_spec(m) is not None for m in ("llvmlite", "cffi"))


def kernel_backend(name: str | None = None) -> str:
    """The kernel backend to use: ``name``, else ``$XRELAX_KERNELS``, else ``numpy``."""
    name = name or os.environ.get(KERNELS_ENV) or "numpy"
    if name not in BACKENDS:
        raise ValueError(f"unknown kernel backend '{name}' (expected numpy or native)")
    if name == "native" and not available():
        raise ValueError("the native kernel backend needs llvmlite: pip install 'xrelax[native]'")
    return name
