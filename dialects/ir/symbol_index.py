"""Symbol lookups for verifiers, indexed while a whole module is verified.

xDSL's ``SymbolTable.lookup_symbol`` scans the symbol table's ops for each lookup, so
verifying every call of a module that holds hundreds of kernels is quadratic.
:func:`indexed` maps the module's symbols by name once for the duration of a
verification (the IR does not change during it); :func:`lookup_symbol` answers from that
map for an op inside the module, and falls back to xDSL's scan otherwise;
:func:`symbol_fact` keeps what a verifier derives from a symbol (a kernel's written
buffers) for the rest of the verification.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolTable

T = TypeVar("T")

_index: list[tuple[ModuleOp, dict[str, Operation], dict[tuple[int, str], Any]]] = []


@contextmanager
def indexed(module: Operation) -> Iterator[None]:
    """Answer lookups inside ``module`` (a ``builtin.module``) from one map of its symbols
    until the block ends; ``module`` must not change meanwhile."""
    if not isinstance(module, ModuleOp):
        yield
        return
    _index.append((module, module_symbols(module), {}))
    try:
        yield
    finally:
        _index.pop()


def module_symbols(module: ModuleOp) -> dict[str, Operation]:
    """The module's top-level symbol operations by name (the first of a name, as
    ``SymbolTable.lookup_symbol`` finds it)."""
    symbols: dict[str, Operation] = {}
    for op in module.ops:
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if isinstance(name, StringAttr):
            symbols.setdefault(name.data, op)
    return symbols


def lookup_symbol(op: Operation, ref: SymbolRefAttr) -> Operation | None:
    """The symbol ``ref`` names, seen from ``op`` (as ``SymbolTable.lookup_symbol``)."""
    if _index and not ref.nested_references.data:
        module, symbols, _ = _index[-1]
        anchor: Operation | None = op
        while anchor is not None and not anchor.has_trait(SymbolTable):
            anchor = anchor.parent_op()
        if anchor is module:
            return symbols.get(ref.root_reference.data)
    return SymbolTable.lookup_symbol(op, ref)


def symbol_fact(symbol: Operation, name: str, compute: Callable[[Operation], T]) -> T:
    """``compute(symbol)``, computed once per verification of the indexed module (a kernel
    called a thousand times is analysed once); outside one, computed each time."""
    if not _index:
        return compute(symbol)
    facts = _index[-1][2]
    key = (id(symbol), name)
    if key not in facts:
        facts[key] = compute(symbol)
    return facts[key]
