"""Scoping rules of a relax function, checked in one walk of its body (docs/design.md §2-3).

* SSA values: every operand is defined before its use in an enclosing block, and a
  value defined inside a ``relax.dataflow`` region (a dataflow var) is not used
  outside it. (xDSL checks neither dominance nor region visibility.)
* Symbolic variables: a variable is defined by its first occurrence as a whole
  dimension of a parameter type or of a ``relax.match_shape`` pattern, or as the
  value of a prim parameter (``%i: !relax.prim<i64, i>``); every other occurrence
  (result types, shape values, prim values, ``call_tir`` symbolic arguments,
  expressions in patterns) must come after a definition. Variables a dataflow
  region binds stay visible after it; variables bound inside an ``if`` branch do
  not leave it. The signature may only mention variables its parameters define.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.ir import Attribute, Block, Operation, SSAValue

from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.relax import (
    CallTIROp,
    DataflowOp,
    FuncOp,
    MatchShapeOp,
    PrimType,
    PrimValueOp,
    ShapeOp,
    ShapeType,
    TensorType,
    TupleType,
    show_type,
    type_free_vars,
)
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.traits import BindsSymbolicVars


def defined_by_pattern(dims: Iterable) -> set[str]:
    """Variables a dims pattern binds: those appearing as a whole dimension."""
    return {d.name for d in dims if d.is_Symbol}


def type_binds(type_: Attribute) -> set[str]:
    """Variables a value of ``type_`` binds: whole dimensions, a prim value's variable."""
    if isinstance(type_, TensorType | ShapeType) and isinstance(type_.shape, DimsAttr):
        return defined_by_pattern(type_.shape.data)
    if isinstance(type_, PrimType) and type_.expr is not None:
        return defined_by_pattern([type_.expr])
    if isinstance(type_, TupleType):
        names: set[str] = set()
        for element in type_.types:
            names |= type_binds(element)
        return names
    return set()


def _undefined(names: set[str], defined: set[str]) -> str | None:
    missing = sorted(names - defined)
    return ", ".join(missing) if missing else None


def verify_function_scoping(func: Operation) -> None:
    """Check SSA visibility and symbolic-variable scoping of a ``relax.func``."""
    assert isinstance(func, FuncOp)
    params = func.function_type.inputs.data
    defined: set[str] = set()
    for type_ in params:
        defined |= type_binds(type_)
    for index, type_ in enumerate(params):
        if missing := _undefined(type_free_vars(type_), defined):
            raise IRError(
                func,
                f"parameter #{index} type {show_type(type_)} uses symbolic variable(s) "
                f"{missing} that no parameter binds as a whole dimension",
            )
    if missing := _undefined(type_free_vars(func.result_type), defined):
        general = show_type(_without(func.result_type, defined))
        raise IRError(
            func,
            f"result type {show_type(func.result_type)} uses symbolic variable(s) {missing} "
            f"that the parameters do not define; declare it as {general} and return "
            "the more specific value",
        )
    _walk_block(func.body.block, set(func.body.block.args), defined)


def _without(type_: Attribute, defined: set[str]) -> Attribute:
    """``type_`` with each shape that uses a variable outside ``defined`` reduced to
    its rank (a prim to its dtype): the declaration the parameters can justify."""
    if isinstance(type_, TupleType):
        return TupleType.of(_without(t, defined) for t in type_.types)
    if type_free_vars(type_) <= defined:
        return type_
    if isinstance(type_, TensorType):
        return TensorType.of(type_.ndim, type_.known_dtype)
    if isinstance(type_, ShapeType):
        return ShapeType.of(type_.ndim)
    if isinstance(type_, PrimType):
        return PrimType.of(type_.dtype)
    return type_


def _walk_block(block: Block, visible: set[SSAValue], defined: set[str]) -> set[str]:
    """Check ``block``; returns the symbolic variables defined when it ends."""
    for op in block.ops:
        for index, operand in enumerate(op.operands):
            if operand not in visible:
                raise IRError(op, _invisible_message(op, index, operand))
        if isinstance(op, MatchShapeOp):
            pattern = op.pattern.data
            binds = defined_by_pattern(pattern)
            used = op.pattern.free_vars()
            if missing := _undefined(used, defined | binds):
                raise IRError(
                    op,
                    f"symbolic variable(s) {missing} in pattern {symbolic.format_dims(pattern)} "
                    "are used in an expression before being bound; bind each variable as a "
                    "whole dimension first",
                )
            defined = defined | binds
        elif op.has_trait(BindsSymbolicVars):
            defined = defined | BindsSymbolicVars.bound_names(op)
        uses: set[str] = set()
        if isinstance(op, ShapeOp):
            uses |= op.dims.free_vars()
        if isinstance(op, PrimValueOp):
            uses |= op.value.free_vars()
        if isinstance(op, CallTIROp) and op.sym_args is not None:
            uses |= op.sym_args.free_vars()
        if missing := _undefined(uses, defined):
            raise IRError(op, f"uses undefined symbolic variable(s) {missing}")
        after = defined
        for region in op.regions:
            for inner in region.blocks:
                inner_defined = _walk_block(inner, visible | set(inner.args), defined)
                if isinstance(op, DataflowOp):
                    after = inner_defined
        for result in op.results:
            if missing := _undefined(type_free_vars(result.type), after):
                raise IRError(
                    op,
                    f"result type {show_type(result.type)} uses undefined symbolic variable(s) "
                    f"{missing}",
                )
        defined = after
        visible.update(op.results)
    return defined


def _invisible_message(op: Operation, index: int, operand: SSAValue) -> str:
    name = f"%{operand.name_hint}" if operand.name_hint else f"operand #{index}"
    owner = operand.owner
    region_op = owner.parent_op() if isinstance(owner, Operation) else None
    while region_op is not None:
        if isinstance(region_op, DataflowOp) and not _is_ancestor(region_op, op):
            return (
                f"uses {name}, a dataflow value of a relax.dataflow region, outside that "
                "region (only the values its relax.output lists are visible after it)"
            )
        region_op = region_op.parent_op()
    return f"uses {name} before it is defined"


def _is_ancestor(ancestor: Operation, op: Operation) -> bool:
    current: Operation | None = op
    while current is not None:
        if current is ancestor:
            return True
        current = current.parent_op()
    return False
