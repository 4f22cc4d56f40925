"""ONNX control flow: ``If``, ``Loop`` and ``Scan`` with their subgraphs (registered on
import by :mod:`xrelax.frontend.onnx`).

A subgraph is converted by the same importer in a nested scope: its inputs and
initializers are bound over the enclosing values, which it may use by name, and its
node outputs are forgotten after it. ``If`` becomes ``relax.if`` (a condition known at
import time converts only the branch taken); ``Loop`` and ``Scan`` become a recursive
relax function (:func:`xrelax.frontend.control_flow.emit_loop`) whose loop-invariant
parameters are the enclosing values the body uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx
from xdsl.ir import SSAValue

from xrelax.dialects import dtypes
from xrelax.frontend.common import FrontendError, Unsupported
from xrelax.frontend.control_flow import Loop, emit_if, emit_loop
from xrelax.frontend.emitter import Emitter
from xrelax.frontend.onnx_graphs import free_names
from xrelax.frontend.onnx_importer import (
    _POISON,
    _axis,
    _converts,
    _Importer,
    _Known,
    _label,
    _tensor_array,
    _Value,
)


class _Poisoned(Exception):
    """A subgraph holds an unsupported node (counted where it stands)."""


# ------------------------------------------------------------------ subgraphs


def _run_graph(imp: _Importer, graph: onnx.GraphProto, bound: Sequence[_Value]) -> list[_Value]:
    """The outputs of ``graph`` with its inputs bound to ``bound``, in a scope nested in
    the importer's (its values are forgotten after it); raises :class:`_Poisoned` when
    it holds an unsupported node."""
    if len(bound) != len(graph.input):
        raise FrontendError(
            f"its {graph.name or 'subgraph'} takes {len(graph.input)} inputs, "
            f"the operator gives {len(bound)}"
        )
    saved = imp.env
    imp.env = dict(saved)
    unsupported = sum(imp.builder.unsupported.values())
    try:
        for value, given in zip(graph.input, bound, strict=True):
            imp.env[value.name] = given
        for tensor in graph.initializer:
            array = _tensor_array(tensor, f"initializer '{tensor.name}'")
            imp.env[tensor.name] = _Known(array) if isinstance(array, np.ndarray) else array
        for index, node in enumerate(graph.node):
            inner = f"in its subgraph, {_label(node.name or f'#{index}', node.op_type)}"
            imp._convert(node, inner, imp.opset, 0)
        outputs = [imp.env[value.name] for value in graph.output]
    finally:
        imp.env = saved
    if sum(imp.builder.unsupported.values()) > unsupported or any(v is _POISON for v in outputs):
        raise _Poisoned
    return outputs


def _in_scope(
    imp: _Importer, em: Emitter, graph: onnx.GraphProto, bound: Sequence[_Value]
) -> list[SSAValue]:
    """The outputs of ``graph`` as tensors, emitted with ``em`` (a branch's or a loop
    function's emitter)."""
    saved = imp.em
    imp.em = em
    try:
        return [imp.tensor(v) for v in _run_graph(imp, graph, bound)]
    finally:
        imp.em = saved


def _captured(imp: _Importer, graph: onnx.GraphProto) -> tuple[list[str], list[SSAValue]]:
    """The enclosing run-time values ``graph`` uses (names and tensors): a function
    takes them as parameters. Values known at import time stay known."""
    names, values = [], []
    for name in free_names(graph):
        value = imp.env.get(name)
        if value is _POISON:
            raise _Poisoned
        if isinstance(value, SSAValue) or (isinstance(value, _Known) and value.param):
            names.append(name)
            values.append(imp.tensor(value))
    return names, values


def _guarded(convert: Callable[..., Any]) -> Callable[..., Any]:
    """``convert``, giving the poison value when a subgraph holds an unsupported node."""

    def run(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
        try:
            return convert(imp, node, inputs, attrs)
        except _Poisoned:
            return _POISON

    return run


def _function_name(node: onnx.NodeProto) -> str:
    """The name of a loop's function: ``loop_<its first output>``."""
    return f"{node.op_type.lower()}_{node.output[0] or node.name}"


# ------------------------------------------------------------------ If


@_converts("If")
@_guarded
def _if(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    cond = inputs[0]
    branches = attrs["then_branch"], attrs["else_branch"]
    if isinstance(cond, _Known):
        if cond.array.size != 1:
            raise FrontendError(f"cond has {cond.array.size} elements, expected 1")
        taken = branches[0] if bool(cond.array.reshape(-1)[0]) else branches[1]
        return _run_graph(imp, taken, [])
    condition = imp.tensor(cond)
    if imp.em.dtype(condition) != dtypes.I1:
        raise FrontendError("cond is not a bool tensor")
    run = [lambda em, g=g: _in_scope(imp, em, g, []) for g in branches]
    return emit_if(imp.em, condition, (run[0], run[1]), "If", imp.builder.var_names)


# ------------------------------------------------------------------ Loop


@_converts("Loop")
@_guarded
def _loop(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    body: onnx.GraphProto = attrs["body"]
    trips, cond = inputs[0], inputs[1] if len(inputs) > 1 else None
    initial = inputs[2:]
    carried = len(initial)
    if len(body.input) != carried + 2 or len(body.output) < carried + 1:
        raise FrontendError(
            f"the body takes {len(body.input)} inputs and gives {len(body.output)} outputs, "
            f"expected {carried + 2} and at least {carried + 1}"
        )
    if trips is None and cond is None:
        raise Unsupported("neither a trip count nor a condition: the loop never ends")
    em = imp.em
    names, captured = _captured(imp, body)
    invariants = [_scalar(imp, trips)] if trips is not None else []
    start = em.const(True) if cond is None else _scalar(imp, cond)
    state = [em.const(np.int64(0)), start, *(imp.tensor(v) for v in initial)]
    declared = [_declared_rank(v) for v in body.input[:2]]

    def condition(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> SSAValue:
        more = em.op("less", state[0], invariants[0]) if trips is not None else None
        if cond is None:
            assert more is not None
            return more
        return state[1] if more is None else em.op("bitwise_and", more, state[1])

    def step(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> Any:
        scope = dict(zip(names, invariants[len(invariants) - len(captured) :], strict=True))
        bound = [em.reshape(v, [1] * rank) for v, rank in zip(state[:2], declared, strict=True)]
        outputs = _with_env(imp, scope, lambda: _in_scope(imp, em, body, [*bound, *state[2:]]))
        following = state[1] if cond is None else _as_scalar(em, outputs[0], "the body's condition")
        counter = em.op("add", state[0], em.const(np.int64(1)))
        return [counter, following, *outputs[1 : carried + 1]], outputs[carried + 1 :]

    loop = Loop(_function_name(node), state, [*invariants, *captured], condition, step)
    results = emit_loop(em, loop, imp.functions, imp.builder.var_names)
    return results[2:]


def _declared_rank(value: onnx.ValueInfoProto) -> int:
    """The rank a body declares for its iteration number or condition (0 or 1)."""
    type_ = value.type.tensor_type
    return 1 if type_.HasField("shape") and len(type_.shape.dim) == 1 else 0


def _scalar(imp: _Importer, value: _Value) -> SSAValue:
    return _as_scalar(imp.em, imp.tensor(value), "a trip count or condition")


def _as_scalar(em: Emitter, value: SSAValue, what: str) -> SSAValue:
    """A one-element tensor as a 0-d one."""
    dims = em.dims(value)
    if len(dims) > 1 or (dims and not (dims[0].is_Integer and int(dims[0]) == 1)):
        raise FrontendError(f"{what} has shape {list(dims)}, expected one element")
    return em.reshape(value, [])


def _with_env(imp: _Importer, scope: dict[str, SSAValue], run: Callable[[], Any]) -> Any:
    """``run()`` with the enclosing values named in ``scope`` bound to a loop function's
    parameters."""
    saved = imp.env
    imp.env = {**saved, **scope}
    try:
        return run()
    finally:
        imp.env = saved


# ------------------------------------------------------------------ Scan


@_converts("Scan")
@_guarded
def _scan(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    if imp.opset < 9:
        raise Unsupported("opset 8 form with a batch axis and sequence_lens")
    body: onnx.GraphProto = attrs["body"]
    scanned_count = attrs["num_scan_inputs"]
    states = len(inputs) - scanned_count
    emitted = len(body.output) - states
    if scanned_count < 1 or states < 0 or emitted < 0 or len(body.input) != len(inputs):
        raise FrontendError(
            f"num_scan_inputs {scanned_count} does not fit {len(inputs)} inputs and a body "
            f"of {len(body.input)} inputs and {len(body.output)} outputs"
        )
    em = imp.em
    scanned = [imp.tensor(v) for v in inputs[states:]]
    in_axes = _per_value(attrs, "scan_input_axes", scanned_count)
    in_axes = [
        _axis(a, em.ndim(x), "scan_input_axes") for a, x in zip(in_axes, scanned, strict=True)
    ]
    in_reverse = _per_value(attrs, "scan_input_directions", scanned_count)
    out_axes = _per_value(attrs, "scan_output_axes", emitted)
    out_reverse = _per_value(attrs, "scan_output_directions", emitted)
    length = em.dims(scanned[0])[in_axes[0]]
    for index, (x, axis) in enumerate(zip(scanned, in_axes, strict=True)):
        dims = list(em.dims(x))
        dims[axis] = length
        try:
            scanned[index] = em.match(x, dims)
        except FrontendError:
            raise FrontendError(
                f"scan input {index} has {em.dims(x)[axis]} entries along axis {axis}, "
                f"the first {length}"
            ) from None
    names, captured = _captured(imp, body)
    count = em.full([], length, dtypes.I64)
    state = [em.const(np.int64(0)), *(imp.tensor(v) for v in inputs[:states])]

    def condition(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> SSAValue:
        return em.op("less", state[0], invariants[0])

    def step(em: Emitter, state: list[SSAValue], invariants: list[SSAValue]) -> Any:
        count, xs = invariants[0], invariants[1 : 1 + scanned_count]
        scope = dict(zip(names, invariants[1 + scanned_count :], strict=True))
        last = em.op("subtract", em.op("subtract", count, em.const(np.int64(1))), state[0])
        slices = [
            em.op("take", x, last if reverse else state[0], axis=axis)
            for x, axis, reverse in zip(xs, in_axes, in_reverse, strict=True)
        ]
        outputs = _with_env(imp, scope, lambda: _in_scope(imp, em, body, [*state[1:], *slices]))
        counter = em.op("add", state[0], em.const(np.int64(1)))
        return [counter, *outputs[:states]], outputs[states:]

    invariants = [count, *scanned, *captured]
    loop = Loop(_function_name(node), state, invariants, condition, step, out_reverse)
    results = emit_loop(em, loop, imp.functions, imp.builder.var_names)
    finals, stacked = results[1 : 1 + states], results[1 + states :]
    outputs = []
    for y, axis in zip(stacked, out_axes, strict=True):
        rank = em.ndim(y)
        axis = _axis(axis, rank, "scan_output_axes")
        outputs.append(em.permute(y, [*range(1, axis + 1), 0, *range(axis + 1, rank)]))
    return [*finals, *outputs]


def _per_value(attrs: dict, name: str, count: int) -> list[int]:
    values = list(attrs.get(name, [0] * count))
    if len(values) != count:
        raise FrontendError(f"{name} has {len(values)} entries, expected {count}")
    return [int(v) for v in values]
