"""The IR: the relax, tir and vm dialects, symbolic shapes, and the dialect registry."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect


def _relax() -> Dialect:
    from xrelax.dialects.relax import get_dialect

    return get_dialect()


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
    return {"relax": _relax, "tir": _tir, "sym": _sym, "vm": _vm}


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
