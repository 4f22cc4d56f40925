"""The compiled kernel: a callable writing its output buffers in place."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xrelax.backends.kernels.runtime import KernelError

__all__ = ["CompiledKernel", "DirectEntry", "Kernel", "KernelError", "KernelPath"]


@dataclass(frozen=True)
class KernelPath:
    """How one store of a prim_func was compiled.

    ``path`` is ``elementwise``, ``reduce``, ``matmul``, ``einsum``, ``init`` (an
    initial value fused into the next reduction) or ``scalar`` (the fallback loop
    nest); ``detail`` lists the access kinds used (``view``, ``strided``, ``reshape``,
    ``pad``, ``gather``, ``split into N``) or, for ``scalar``, why.
    """

    nest: int
    statement: str
    path: str
    detail: str

    def __str__(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"nest {self.nest}: {self.statement}: {self.path}{detail}"


@dataclass(frozen=True)
class DirectEntry:
    """A native kernel's machine code, for a caller that has its buffers' addresses:
    ``function(*addresses, *variables)`` returns 0, or non-zero when a check of the
    kernel failed (the caller then runs the unchecked entry, which reports it).

    The buffers must be C-contiguous and match the signature. ``variables`` says where
    each variable comes from: ``(k, d)``, dimension ``d`` of buffer ``k``, or ``k``, the
    ``k``-th symbolic argument."""

    function: Callable[..., int]
    variables: tuple[tuple[int, int] | int, ...]
    address: Callable[[Any], int]
    """The data address of an array (for the caller to compute once per buffer)."""
    guard: str | None = None
    """Where set, the machine code applies only when this Python expression over the
    variables (``{0}``, ``{1}``, ... in ``variables`` order) is true; else the caller
    runs the unchecked entry."""


@dataclass(frozen=True, eq=False)
class CompiledKernel:
    """Generated code shared by every prim_func of the same structure."""

    function: Callable[..., None]
    unchecked: Callable[..., None]
    """The entry without argument checks (``Kernel.unchecked``)."""
    source: str
    paths: tuple[KernelPath, ...]
    buffers: int
    sym_params: tuple[str, ...]
    direct: DirectEntry | None = None
    """The machine code itself, where the kernel is native throughout."""


class Kernel(functools.partial):
    """``kernel(*buffers, *sym_ints)``: runs a prim_func on numpy arrays, writing its
    output buffers in place (destination passing). Raises :class:`KernelError` when
    the arguments do not match the signature."""

    name: str
    compiled: CompiledKernel
    unchecked: Callable[..., None]
    """The kernel without its argument checks, for a caller that proved the arguments
    match the signature (the VM, where the compiler did: ``call_tir_unchecked``)."""

    def __new__(cls, compiled: CompiledKernel, name: str) -> Kernel:
        kernel = super().__new__(cls, compiled.function, name)
        kernel.name = name
        kernel.compiled = compiled
        kernel.unchecked = functools.partial(compiled.unchecked, name)
        return kernel

    @property
    def paths(self) -> tuple[KernelPath, ...]:
        """How each store was compiled (see :class:`KernelPath`)."""
        return self.compiled.paths

    @property
    def source(self) -> str:
        """The generated Python source."""
        return self.compiled.source

    @property
    def sym_params(self) -> tuple[str, ...]:
        """The names of the integer arguments after the buffers."""
        return self.compiled.sym_params

    def __repr__(self) -> str:
        return (
            f"<Kernel @{self.name}: {self.compiled.buffers} buffers, sym {list(self.sym_params)}>"
        )

    def __reduce__(self) -> Any:
        raise TypeError("kernels are not picklable; compile the prim_func again")
