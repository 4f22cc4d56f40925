"""ATen operators without a converter, decomposed by torch's own decomposition tables.

The importer converts core ATen natively, and some composite operators too where a
decomposition would be slower (``layer_norm``, ``softmax``, attention, ``linear``). An
operator of a program that has no converter is decomposed by torch before importing:
``ExportedProgram.run_decompositions`` with a table restricted to those operators, taken
from ``torch.export.default_decompositions()`` (the composite operators and torch's
choice of decompositions to core ATen), else from ``torch._decomp.decomposition_table``
(which also has core ATen operators, ``elu``, ``log1p``, ...), else the operator's
composite implementation. A decomposition can use
operators that have no converter either: the table grows with the decomposable ones and
the original program is decomposed again, until the program holds only converted
operators or operators torch does not decompose. Each node remembers the node of the
original program it comes from (:func:`origin`), so that a report names the user's
operator.

``run_decompositions`` also makes the program functional: in-place operators become
their functional forms, and writes to inputs and buffers become outputs of the kinds
``USER_INPUT_MUTATION`` and ``BUFFER_MUTATION``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.export import ExportedProgram

Needs = Callable[[torch.fx.Node], "torch._ops.OpOverload | None"]
"""The overload torch must decompose for a node to import (None: the node imports)."""


@dataclass
class Decomposed:
    """A program after decomposition, or the original when nothing was decomposed."""

    program: ExportedProgram
    decomposed: frozenset[str]
    """The operators (overloads) torch decomposed."""
    failure: str | None = None
    """Why torch could not decompose the operators still to decompose (its error)."""
    pending: frozenset[str] = frozenset()
    """The operators ``failure`` left in the program."""


def decompose(program: ExportedProgram, needs: Needs) -> Decomposed:
    """``program`` with every operator ``needs`` names that torch can decompose
    decomposed, repeatedly until no such operator is left."""
    table: dict[torch._ops.OpOverload, Callable[..., object]] = {}
    current = program
    while True:
        new = {}
        for op in _needed(current, needs):
            rule = decomposition(op)
            if rule is not None and op not in table:
                new[op] = rule
        if not new:
            return Decomposed(current, frozenset(str(op) for op in table))
        try:
            current = program.run_decompositions({**table, **new})
        except Exception as err:  # noqa: BLE001 - torch's own failure, reported by name
            message = str(err).strip().splitlines()[0] if str(err).strip() else ""
            return Decomposed(
                current,
                frozenset(str(op) for op in table),
                f"{type(err).__name__}: {message[:120]}",
                frozenset(str(op) for op in new),
            )
        table.update(new)


def _needed(program: ExportedProgram, needs: Needs) -> set[torch._ops.OpOverload]:
    """The overloads ``needs`` names in ``program`` and its subgraphs."""
    found = set()
    for module in program.graph_module.modules():
        if not isinstance(module, torch.fx.GraphModule):
            continue
        for node in module.graph.nodes:
            if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
                op = needs(node)
                if op is not None:
                    found.add(op)
    return found


@functools.cache
def _default_table() -> dict[torch._ops.OpOverload, Callable[..., object]]:
    return dict(torch.export.default_decompositions().items())


def decomposition(op: torch._ops.OpOverload) -> Callable[..., object] | None:
    """torch's decomposition of ``op``, or None: from the tables, else the composite
    implementation of an operator that has one (``reshape_as``)."""
    rule = _default_table().get(op)
    if rule is None:
        rule = torch._decomp.decomposition_table.get(op)
    if rule is None and op.has_kernel_for_dispatch_key(_COMPOSITE):
        rule = op.decompose
    return rule


_COMPOSITE = torch._C.DispatchKey.CompositeImplicitAutograd


def origin(node: torch.fx.Node, original: torch.fx.Graph) -> str | None:
    """The name of the node of ``original`` that ``node`` (of a program decomposed from
    it) comes from, or None."""
    pending = list(node.meta.get("from_node") or [])
    while pending:
        source = pending.pop(0)
        if source.graph_id == id(original):
            return source.name
        pending.extend(source.from_node)
    return None
