"""Framework control flow as relax control flow, shared by the importers.

* A conditional is a ``relax.if`` whose branches see the enclosing values; where the
  branches give different shapes, the result has their join type (:func:`join_type`).
* A loop is a relax function that calls itself under ``relax.if``, as Relax writes loops
  (:func:`emit_loop`): its parameters are the loop-carried values, the per-iteration
  outputs gathered so far and the loop-invariant values; it returns the carried values
  and the gathered outputs once the condition fails.
* An importer builds ``main`` in one dataflow region, where neither ``relax.if`` nor a
  call of a relax function may stand: :func:`structure_dataflow` splits the region
  around them once the module is complete, and encloses the bindings of the loops'
  functions and of the branches in regions of their own, for fusion.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import sympy
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.relax import (
    CallOp,
    DataflowOp,
    FuncOp,
    IfOp,
    OutputOp,
    TensorType,
    TupleType,
    YieldOp,
    show_type,
    type_relation,
)
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.block_builder import BlockBuilder
from xrelax.frontend.common import FrontendError, Names, Unsupported
from xrelax.frontend.emitter import Emitter

# ----------------------------------------------------------------------------- types


def join_type(a: Attribute, b: Attribute, what: str) -> Attribute:
    """The least specific of two tensor types of one element type: their common dims,
    else their common rank, else ``*``."""
    if type_relation(a, b) == "yes":
        return a
    if type_relation(b, a) == "yes":
        return b
    if not (isinstance(a, TensorType) and isinstance(b, TensorType)):
        raise FrontendError(f"{what}: the branches give {show_type(a)} and {show_type(b)}")
    if a.known_dtype != b.known_dtype:
        raise FrontendError(
            f"{what}: the branches give element types {show_type(a)} and {show_type(b)}"
        )
    if a.ndim is None or a.ndim != b.ndim:
        return TensorType.of(None, a.dtype)
    return TensorType.of(a.ndim, a.dtype)


def _joined_dims(a: TensorType, b: TensorType, var_names: Names) -> list[sympy.Expr]:
    """The dims of a value that is ``a`` or ``b`` (of one rank): those they agree on,
    fresh variables for the others."""
    if a.dims is None or b.dims is None:
        return [symbolic.sym(var_names.unique("if_dim")) for _ in range(a.ndim or 0)]
    return [
        x if symbolic.prove_equal(x, y) else symbolic.sym(var_names.unique("if_dim"))
        for x, y in zip(a.dims, b.dims, strict=True)
    ]


# ----------------------------------------------------------------------------- if


def emit_if(
    em: Emitter,
    cond: SSAValue,
    branches: tuple[Callable[[Emitter], list[SSAValue]], Callable[[Emitter], list[SSAValue]]],
    what: str,
    var_names: Names,
) -> list[SSAValue]:
    """``relax.if cond`` of the values each branch emits (with an emitter of its own, so
    that no constant made in a branch is shared outside it); results of the join types,
    a dimension the branches disagree on a fresh variable (from ``var_names``)."""
    if em.type_of(cond).ndim != 0:
        cond = em.reshape(cond, [])
    blocks, results = [], []
    for branch in branches:
        block = Block()
        with em.bb.block(block):
            results.append(branch(Emitter(em.bb)))
        blocks.append(block)
    then_values, else_values = results
    if len(then_values) != len(else_values):
        raise FrontendError(
            f"{what}: the branches give {len(then_values)} and {len(else_values)} values"
        )
    types = [
        join_type(a.type, b.type, f"{what} output {index}")
        for index, (a, b) in enumerate(zip(then_values, else_values, strict=True))
    ]
    for block, values in zip(blocks, results, strict=True):
        block.add_op(YieldOp(values))
    op = IfOp(cond, types, Region(blocks[0]), Region(blocks[1]))
    em.bb.emit(op)
    results = []
    for result, a, b in zip(op.results, then_values, else_values, strict=True):
        joined = result.type
        if isinstance(joined, TensorType) and joined.ndim is not None and joined.dims is None:
            result = em.bb.match_shape(result, _joined_dims(a.type, b.type, var_names))
        results.append(result)
    return results


# ----------------------------------------------------------------------------- loops


@dataclass
class Loop:
    """A loop as :func:`emit_loop` builds it.

    ``condition(em, state, invariants)`` gives the 0-d (or one-element) boolean that
    decides whether another iteration runs; ``step(em, state, invariants)`` emits one
    iteration and gives the next state and the iteration's outputs to gather, each
    stacked along a new axis 0 in iteration order (``reverse``: the last iteration
    first). Both may emit anything a function body holds, loops included, and are
    called once more for a trial of the step's types.
    """

    name: str
    state: list[SSAValue]
    invariants: list[SSAValue]
    condition: Callable[[Emitter, list[SSAValue], list[SSAValue]], SSAValue]
    step: Callable[[Emitter, list[SSAValue], list[SSAValue]], tuple[list[SSAValue], list[SSAValue]]]
    reverse: Sequence[bool] = ()


def emit_loop(em: Emitter, loop: Loop, names: Names, var_names: Names) -> list[SSAValue]:
    """The final state of ``loop`` followed by its gathered outputs, emitted with ``em``
    as a call of a new recursive function named after ``loop.name`` (unique in
    ``names``); ``var_names`` hands out the symbolic variables of shapes that change
    between iterations and of the results whose shapes only the run knows."""
    module = em.bb.get()
    state_types = _parameter_types([v.type for v in loop.state], var_names)
    invariant_types = _parameter_types([v.type for v in loop.invariants], var_names)
    free: set[sympy.Symbol] = set()
    for _ in range(3):
        trial = _trial(loop, state_types, invariant_types, free)
        if isinstance(trial, list):
            break
        state_types, free = _generalised(state_types, trial, free, var_names)
    else:
        raise FrontendError(f"{loop.name}: the shapes of its loop-carried values do not settle")
    known = set().union(*(_whole_dims(t) for t in [*state_types, *invariant_types])) - free
    gathered = [_Gathered.of(t, known, var_names) for t in trial]
    func = _build(
        module,
        names.unique(loop.name),
        loop,
        (state_types, invariant_types),
        gathered,
        free,
        var_names,
    )
    accumulators = [em.op("zeros", em.shape(g.initial), dtype=g.dtype) for g in gathered]
    result = em.bb.emit(_call(func, [*loop.state, *accumulators, *loop.invariants]))
    assert result is not None
    items = em.items(result, len(loop.state) + len(trial))
    return [_shaped(em, item, var_names) for item in items]


@dataclass
class _Gathered:
    """How an output gathered over the iterations is passed along: ``param`` is the
    accumulator's parameter type, ``initial`` the shape it starts from (no rows).
    ``open`` when the shape of an iteration's output is not known from the parameters:
    its unknown dims are 0 until the first iteration's output replaces the
    accumulator (onnxruntime's shape when no iteration runs)."""

    param: TensorType
    initial: list[sympy.Expr]
    open: bool
    changing: set[sympy.Symbol]

    @property
    def dtype(self) -> Attribute:
        return self.param.dtype

    @staticmethod
    def of(item: TensorType, known: set[sympy.Symbol], var_names: Names) -> _Gathered:
        count = symbolic.sym(var_names.unique("loop_count"))
        changing, dims, initial = {count}, [count], [sympy.Integer(0)]
        for d in item.dims if item.dims is not None else [None] * item.ndim:
            if d is not None and d.free_symbols <= known:
                dims.append(d)
                initial.append(d)
            else:
                fresh = symbolic.sym(var_names.unique("loop_dim"))
                changing.add(fresh)
                dims.append(fresh)
                initial.append(sympy.Integer(0))
        open_ = len(changing) > 1
        return _Gathered(TensorType.of(dims, item.dtype), initial, open_, changing)


def _shaped(em: Emitter, value: SSAValue, var_names: Names) -> SSAValue:
    """``value`` with fresh variables for the dimensions its rank-only type leaves open."""
    type_ = value.type
    if not isinstance(type_, TensorType) or type_.dims is not None or type_.ndim is None:
        return value
    dims = [symbolic.sym(var_names.unique("loop_dim")) for _ in range(type_.ndim)]
    return em.bb.match_shape(value, dims)


def _build(
    module: ModuleOp,
    name: str,
    loop: Loop,
    types: tuple[list[Attribute], list[Attribute]],
    gathered: list[_Gathered],
    free: set[sympy.Symbol],
    var_names: Names,
) -> FuncOp:
    """The loop's function: ``@name(state..., gathered so far..., invariants...)``; its
    result type leaves to the rank the dims that change between iterations (``free``
    and the number of iterations gathered)."""
    state_types, invariant_types = types
    params = [
        *((f"state{i}", t) for i, t in enumerate(state_types)),
        *((f"gathered{i}", g.param) for i, g in enumerate(gathered)),
        *((f"invariant{i}", t) for i, t in enumerate(invariant_types)),
    ]
    changing = set(free).union(*(g.changing for g in gathered))
    result_type = TupleType.of(
        [_erased(t, changing) for t in [*state_types, *(g.param for g in gathered)]]
    )
    n_state, n_gathered = len(state_types), len(gathered)
    bb = BlockBuilder(module)
    with bb.function(name, params, result_type) as args:
        em = Emitter(bb)
        state, accumulators = args[:n_state], args[n_state : n_state + n_gathered]
        invariants = args[n_state + n_gathered :]
        go = loop.condition(em, state, invariants)

        def again(em: Emitter) -> list[SSAValue]:
            following, outputs = loop.step(em, state, invariants)
            stacked = []
            for index, (acc, out) in enumerate(zip(accumulators, outputs, strict=True)):
                last_first = index < len(loop.reverse) and loop.reverse[index]
                stacked.append(_gather(em, acc, out, gathered[index], last_first, var_names))
            call = bb.emit(CallOp(name, [*following, *stacked, *invariants], result_type))
            assert call is not None
            return [call]

        def done(em: Emitter) -> list[SSAValue]:
            return [bb.emit_op("relax.tuple", *state, *accumulators)]

        (result,) = emit_if(em, go, (again, done), loop.name, var_names)
        bb.emit_func_output(result)
    return next(op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == name)


def _gather(
    em: Emitter,
    acc: SSAValue,
    out: SSAValue,
    gathered: _Gathered,
    last_first: bool,
    var_names: Names,
) -> SSAValue:
    """``out`` stacked onto ``acc`` along axis 0 (before it when ``last_first``)."""
    item = em.unsqueeze(out, [0])

    def stack(em: Emitter) -> list[SSAValue]:
        shaped = em.match(item, [1, *em.dims(acc)[1:]]) if gathered.open else item
        return [em.op("concat", *((shaped, acc) if last_first else (acc, shaped)), axis=0)]

    if not gathered.open:
        return stack(em)[0]
    rows = em.full([], em.dims(acc)[0], dtypes.I64)
    first = em.op("equal", rows, em.const(np.int64(0)))
    (result,) = emit_if(em, first, (lambda em: [item], stack), "gathered output", var_names)
    return result


def _trial(
    loop: Loop,
    state_types: list[Attribute],
    invariant_types: list[Attribute],
    free: set[sympy.Symbol],
) -> list[TensorType] | tuple[Attribute, ...]:
    """One step in a scratch function: the types of the outputs to gather (a list) when
    every next state fits the parameter types, else (a tuple) the next state's types."""
    bb = BlockBuilder()
    params = [(f"p{i}", t) for i, t in enumerate([*state_types, *invariant_types])]
    with bb.function("trial", params) as args:
        em = Emitter(bb)
        state, invariants = args[: len(state_types)], args[len(state_types) :]
        loop.condition(em, state, invariants)
        following, outputs = loop.step(em, state, invariants)
        bb.emit_func_output(args[0])
    if len(following) != len(state_types):
        raise FrontendError(
            f"{loop.name}: the body gives {len(following)} loop-carried values, "
            f"expected {len(state_types)}"
        )
    for value in outputs:
        if not isinstance(value.type, TensorType) or value.type.ndim is None:
            raise Unsupported("an output gathered over the iterations of unknown rank")
    if all(_fits(t, v.type, free) for t, v in zip(state_types, following, strict=True)):
        return [v.type for v in outputs]  # type: ignore[misc]
    return tuple(v.type for v in following)


def _whole_dims(type_: Attribute) -> set[sympy.Symbol]:
    """The variables a parameter of ``type_`` binds (its dims that are variables)."""
    if isinstance(type_, TensorType) and type_.dims is not None:
        return {d for d in type_.dims if d.is_Symbol}
    return set()


def _erased(type_: Attribute, changing: set[sympy.Symbol]) -> Attribute:
    """``type_`` with its dims erased to the rank when they mention ``changing``."""
    if isinstance(type_, TensorType) and any(d.free_symbols & changing for d in type_.dims or ()):
        return TensorType.of(type_.ndim, type_.dtype)
    return type_


def _fits(param: Attribute, value: Attribute, free: set[sympy.Symbol]) -> bool:
    """Whether every value of type ``value`` passes as an argument of type ``param``
    (a dimension that is a ``free`` variable takes any size)."""
    if not (isinstance(param, TensorType) and isinstance(value, TensorType)):
        return param == value
    if param.known_dtype != value.known_dtype or param.ndim != value.ndim:
        raise FrontendError(
            f"a loop-carried value of type {show_type(param)} becomes {show_type(value)}"
        )
    if param.dims is None:
        return True
    if value.dims is None:
        return all(d in free for d in param.dims)
    return all(
        d in free or symbolic.prove_equal(d, v) for d, v in zip(param.dims, value.dims, strict=True)
    )


def _generalised(
    state_types: list[Attribute],
    following: Sequence[Attribute],
    free: set[sympy.Symbol],
    var_names: Names,
) -> tuple[list[Attribute], set[sympy.Symbol]]:
    """State types whose dimensions that a step changes are fresh variables."""
    result = []
    free = set(free)
    for param, value in zip(state_types, following, strict=True):
        if _fits(param, value, free) or not isinstance(param, TensorType) or param.dims is None:
            result.append(param)
            continue
        dims = []
        for d, v in zip(param.dims, value.dims or [None] * len(param.dims), strict=True):
            if v is not None and symbolic.prove_equal(d, v):
                dims.append(d)
            else:
                fresh = symbolic.sym(var_names.unique("loop_dim"))
                free.add(fresh)
                dims.append(fresh)
        result.append(TensorType.of(dims, param.dtype))
    return result, free


def _parameter_types(types: Sequence[Attribute], var_names: Names) -> list[Attribute]:
    """Parameter types for arguments of ``types``: a dimension that is an expression
    over variables no parameter has as a whole dimension becomes a fresh variable."""
    defined = {
        d for t in types if isinstance(t, TensorType) and t.dims for d in t.dims if d.is_Symbol
    }
    result = []
    for type_ in types:
        if not isinstance(type_, TensorType) or type_.dims is None:
            result.append(type_)
            continue
        dims = [
            d if d.free_symbols <= defined else symbolic.sym(var_names.unique("loop_dim"))
            for d in type_.dims
        ]
        result.append(TensorType.of(dims, type_.dtype))
    return result


def _call(func: FuncOp, args: list[SSAValue]) -> CallOp:
    """``relax.call`` of ``func`` with its result type in the caller's variables."""
    name = func.sym_name.data
    probe = CallOp(name, args, func.result_type)
    return CallOp(name, args, probe.callee_result_type(func))


# ----------------------------------------------------------------------------- dataflow


def structure_dataflow(module: ModuleOp) -> None:
    """Put the pure bindings of ``module``'s functions into dataflow regions around the
    ``relax.if`` and ``relax.call`` ops, which may not stand in one: a region holding
    them (``main`` as an importer builds it) is split around them, and the bindings of
    a function or branch outside any region (a loop's function) are enclosed, so that
    fusion sees them."""
    for func in module.ops:
        if isinstance(func, FuncOp):
            _structure(func.body.block)


def _structure(block: Block) -> None:
    ops = list(block.ops)[:-1]
    regions = [op for op in ops if isinstance(op, DataflowOp)]
    if not regions and ops:
        regions = [_enclose(ops, block.last_op)]  # type: ignore[arg-type]
    for region_op in regions:
        if any(_is_control(op) for op in region_op.body.block.ops):
            _split(region_op)
    for op in list(block.ops):
        if isinstance(op, IfOp):
            _structure(op.then_region.block)
            _structure(op.else_region.block)


def _is_control(op: Operation) -> bool:
    return isinstance(op, IfOp | CallOp)


def _split(region_op: DataflowOp) -> None:
    """Replace ``region_op`` by regions of its runs of pure bindings with its control
    ops between them."""
    block = region_op.body.block
    output = block.last_op
    assert isinstance(output, OutputOp)
    pieces: list[list[Operation]] = [[]]
    for op in list(block.ops)[:-1]:
        if _is_control(op):
            pieces += [[op], []]
        else:
            pieces[-1].append(op)
    for piece in pieces:
        if len(piece) == 1 and _is_control(piece[0]):
            piece[0].detach()
            region_op.parent_block().insert_op_before(piece[0], region_op)  # type: ignore[union-attr]
        elif piece:
            _enclose(piece, region_op)
    for result, value in zip(region_op.results, output.operands, strict=True):
        result.replace_all_uses_with(value)
    region_op.detach()
    region_op.erase()


def _enclose(ops: list[Operation], before: Operation) -> DataflowOp:
    """A dataflow region of ``ops`` (consecutive, in one block), placed before
    ``before``; its outputs are their values used elsewhere."""
    inner = Block()
    for op in ops:
        op.detach()
        inner.add_op(op)
    escaping = [
        result
        for op in ops
        for result in op.results
        if any(_top(use.operation, inner) is None for use in result.uses)
    ]
    inner.add_op(OutputOp(escaping))
    region_op = DataflowOp([v.type for v in escaping], Region(inner))
    before.parent_block().insert_op_before(region_op, before)  # type: ignore[union-attr]
    for value, outer in zip(escaping, region_op.results, strict=True):
        outer.name_hint = value.name_hint
        for use in list(value.uses):
            if _top(use.operation, inner) is None:
                use.operation.operands[use.index] = outer
    return region_op


def _top(op: Operation, block: Block) -> Operation | None:
    """The ancestor of ``op`` (or ``op``) that stands in ``block``, or None."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()  # type: ignore[assignment]
    return op
