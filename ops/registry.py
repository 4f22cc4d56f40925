"""The dialect registry: every dialect xrelax defines, by name, as a lazy factory.

The relax dialect is assembled here, above the operators it holds: the structural ops
of :mod:`xrelax.dialects.relax`, the memory ops of :mod:`xrelax.dialects.relax_memory`
and every operator of :mod:`xrelax.ops.library`. The factories import their dialects
when called, so that registering them (``xdsl-opt``'s start-up through
:mod:`xrelax.tools.universe`, a context) loads none.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect


def relax_dialect() -> Dialect:
    """The relax dialect: its structural and memory ops, every operator, its types."""
    from xrelax.dialects.relax import RELAX_TYPES, STRUCTURAL_OPS
    from xrelax.dialects.relax_memory import MEMORY_OPS
    from xrelax.ops.library import OPERATORS

    return Dialect("relax", [*STRUCTURAL_OPS, *MEMORY_OPS, *OPERATORS], list(RELAX_TYPES))


def _tir() -> Dialect:
    from xrelax.dialects.tir import Tir

    return Tir


def _sym() -> Dialect:
    from xrelax.dialects.dims import Sym

    return Sym


def _vm() -> Dialect:
    from xrelax.dialects.vm import VM

    return VM


def _xdsl(name: str) -> Callable[[], Dialect]:
    def load() -> Dialect:
        from xdsl.dialects import get_all_dialects

        return get_all_dialects()[name]()

    return load


def project_dialects() -> dict[str, Callable[[], Dialect]]:
    """The dialects xrelax defines, by name, as lazy factories."""
    return {"relax": relax_dialect, "tir": _tir, "sym": _sym, "vm": _vm}


def all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Our dialects plus the xDSL ones programs use (builtin, func, arith, math, scf)."""
    return {
        **project_dialects(),
        **{name: _xdsl(name) for name in ("builtin", "func", "arith", "math", "scf")},
    }


def make_context(allow_unregistered: bool = False) -> Context:
    """A context with every dialect registered lazily (loaded on first use)."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx
