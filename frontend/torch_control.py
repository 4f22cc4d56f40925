"""torch's higher-order control flow (``cond``, ``while_loop``, ``scan``, ``map``) as
relax control flow (registered on import by :mod:`xrelax.frontend.torch`).

The subgraphs ``torch.export`` keeps for these operators take every value they use as
an operand, so each is converted by the same importer on its operands: ``cond``'s
branches inside ``relax.if`` (a predicate torch knows at export converts the branch
taken), the loops' bodies in a relax function that calls itself under ``relax.if``
(:func:`xrelax.frontend.control_flow.emit_loop`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy
import torch
from xdsl.ir import SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.common import Unsupported
from xrelax.frontend.control_flow import Loop, emit_if, emit_loop
from xrelax.frontend.emitter import Emitter
from xrelax.frontend.torch_importer import POISON, Importer, converts, poisoned


class _Poisoned(Exception):
    """A subgraph holds an unsupported node (counted where it stands)."""


@dataclass(frozen=True)
class _SizePredicate:
    """A comparison of sizes that torch left to the run (a ``SymBool``), as a ``cond``
    predicate: ``compare(lhs, rhs)``, both relax expressions."""

    compare: str
    lhs: sympy.Expr
    rhs: sympy.Expr


_COMPARISONS = {"gt": "greater", "ge": "greater_equal", "lt": "less", "le": "less_equal",
                "eq": "equal", "ne": "not_equal"}  # fmt: skip


@converts(*(f"operator.{name}" for name in _COMPARISONS))
def _size_comparison(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    if not isinstance(node.meta.get("val"), torch.SymBool):
        raise Unsupported("a comparison of values other than sizes")
    # a run-time assertion torch already proved (dropped) may use it too
    allowed = (torch.ops.higher_order.cond, torch.ops.aten._assert_scalar.default)
    if any(user.target not in allowed for user in node.users):
        raise Unsupported("a comparison of sizes used other than as a cond predicate")
    name = _COMPARISONS[node.target.__name__]
    # The sizes are relax expressions already (the importer computes sizes symbolically).
    return _SizePredicate(name, symbolic.as_expr(a["0"]), symbolic.as_expr(a["1"]))


def _predicate(em: Emitter, pred: _SizePredicate) -> SSAValue | bool:
    """The predicate decided at import time when the shapes prove it, else as a 0-d
    bool tensor computed at run time."""
    a, b = pred.lhs, pred.rhs
    true, false = {
        "greater": (symbolic.prove_lt(b, a), symbolic.prove_le(a, b)),
        "greater_equal": (symbolic.prove_le(b, a), symbolic.prove_lt(a, b)),
        "less": (symbolic.prove_lt(a, b), symbolic.prove_le(b, a)),
        "less_equal": (symbolic.prove_le(a, b), symbolic.prove_lt(b, a)),
        "equal": (symbolic.prove_equal(a, b), symbolic.prove_not_equal(a, b)),
        "not_equal": (symbolic.prove_not_equal(a, b), symbolic.prove_equal(a, b)),
    }[pred.compare]
    if true or false:
        return true
    sides = [em.full([], side, dtypes.I64) for side in (pred.lhs, pred.rhs)]
    return em.op(pred.compare, *sides)


def _run(imp: Importer, em: Emitter, body: torch.fx.GraphModule, operands: Sequence[Any]) -> list:
    """The results of ``body`` on ``operands``, emitted with ``em``; raises
    :class:`_Poisoned` when it holds an unsupported node."""
    saved = imp.em
    imp.em = em
    try:
        results = imp.inline(body, operands)
    finally:
        imp.em = saved
    if poisoned(results):
        raise _Poisoned
    for index, value in enumerate(results):
        if not isinstance(value, SSAValue):
            raise Unsupported(f"a subgraph result that is not a tensor (result {index})")
    return results


def _tensors(values: Sequence[Any], what: str) -> list[SSAValue]:
    for value in values:
        if not isinstance(value, SSAValue):
            raise Unsupported(f"{what} that are not tensors")
    return list(values)


def _guarded(convert: Any) -> Any:
    """``convert``, giving the poison value when a subgraph holds an unsupported node."""

    def run(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
        if poisoned(a):
            return POISON
        try:
            return convert(imp, node, a)
        except _Poisoned:
            return POISON

    return run


@converts("torch.ops.higher_order.cond")
@_guarded
def _cond(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    pred, branches, operands = a["0"], (a["1"], a["2"]), _tensors(a["3"], "cond operands")
    if isinstance(pred, _SizePredicate):
        pred = _predicate(imp.em, pred)
    if isinstance(pred, bool | sympy.logic.boolalg.BooleanAtom):
        return _run(imp, imp.em, branches[0] if bool(pred) else branches[1], operands)
    if not isinstance(pred, SSAValue):
        raise Unsupported("a predicate on sizes that torch did not decide")
    if imp.em.dtype(pred) != dtypes.I1:
        raise Unsupported("a predicate that is not a bool tensor")
    run = [lambda em, body=body: _run(imp, em, body, operands) for body in branches]
    return emit_if(imp.em, pred, (run[0], run[1]), "cond", imp.builder.var_names)


@converts("torch.ops.higher_order.while_loop")
@_guarded
def _while_loop(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    cond_body, body = a["0"], a["1"]
    carried = _tensors(a["2"], "loop-carried values")
    invariants = _tensors(a.get("3", []), "additional inputs")

    def condition(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> SSAValue:
        (go,) = _run(imp, em, cond_body, [*state, *invariants])
        return go

    def step(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> Any:
        return _run(imp, em, body, [*state, *invariants]), []

    loop = Loop("while_loop", carried, invariants, condition, step)
    return emit_loop(imp.em, loop, imp.functions, imp.builder.var_names)


@converts("torch.ops.higher_order.scan")
@_guarded
def _scan(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """``scan(combine_fn, init, xs, additional_inputs)``: the carry and the outputs
    stacked along axis 0, over ``xs`` sliced along axis 0."""
    body = a["0"]
    init = _tensors(a["1"], "scan carries")
    xs = _tensors(a["2"], "scanned inputs")
    extra = _tensors(a.get("3", []), "additional inputs")
    if not xs:
        raise Unsupported("a scan over no inputs")
    em = imp.em
    length = em.dims(xs[0])[0]
    xs = [em.match(x, [length, *em.dims(x)[1:]]) for x in xs]
    state = [em.const(np.int64(0)), *init]

    def condition(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> SSAValue:
        return em.op("less", state[0], invariants[0])

    def step(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> Any:
        sliced = [em.op("take", x, state[0], axis=0) for x in invariants[1 : 1 + len(xs)]]
        extras = invariants[1 + len(xs) :]
        results = _run(imp, em, body, [*state[1:], *sliced, *extras])
        counter = em.op("add", state[0], em.const(np.int64(1)))
        return [counter, *results[: len(init)]], results[len(init) :]

    count = em.full([], length, dtypes.I64)
    loop = Loop("scan", state, [count, *xs, *extra], condition, step)
    return emit_loop(em, loop, imp.functions, imp.builder.var_names)[1:]


@converts("torch.ops.higher_order.map_impl")
@_guarded
def _map(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """``map_impl(f, xs, args)``: ``f`` on each slice of ``xs`` along axis 0, stacked."""
    body = a["0"]
    xs = _tensors(a["1"], "mapped inputs")
    extra = _tensors(a.get("2", []), "additional inputs")
    em = imp.em
    length = em.dims(xs[0])[0]
    xs = [em.match(x, [length, *em.dims(x)[1:]]) for x in xs]

    def condition(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> SSAValue:
        return em.op("less", state[0], invariants[0])

    def step(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> Any:
        sliced = [em.op("take", x, state[0], axis=0) for x in invariants[1 : 1 + len(xs)]]
        results = _run(imp, em, body, [*sliced, *invariants[1 + len(xs) :]])
        return [em.op("add", state[0], em.const(np.int64(1)))], results

    count = em.full([], length, dtypes.I64)
    loop = Loop("map", [em.const(np.int64(0))], [count, *xs, *extra], condition, step)
    return emit_loop(em, loop, imp.functions, imp.builder.var_names)[1:]
