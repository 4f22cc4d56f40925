"""The fusion pattern of a ``tir.prim_func``, read off its loop nests (TVM Relax's
``AnnotateTIROpPattern``): how its outputs depend on its inputs.

* ``ELEMWISE`` — every store reads its inputs at exactly the stored index;
* ``BROADCAST`` — inputs are read at a subset of the store's loop variables, in order;
* ``INJECTIVE`` — any other store without a reduction (transposes, reshapes, gathers);
* ``REDUCTION`` — some store reduces over loops its index omits;
* ``OUT_EWISE_FUSABLE`` — a reduction of a product of two loads (matmul, convolution);
* ``OPAQUE`` — anything else (scalar-only shape functions, unknown ops).

Elementwise, broadcast and injective kernels fuse with each other; elementwise and
broadcast kernels also fuse as epilogues of a reduction or out-ewise-fusable kernel.
"""

from __future__ import annotations

from enum import IntEnum

import sympy
from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from xrelax.dialects import tir


class OpPattern(IntEnum):
    """Fusion kinds, ordered as in TVM (a group's kind is the max of its members')."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    REDUCTION = 3
    OUT_EWISE_FUSABLE = 4
    OPAQUE = 8


def op_pattern(func: tir.PrimFuncOp) -> OpPattern:
    """The fusion pattern of ``func``."""
    stores: list[tuple[tir.StoreOp, tuple[str, ...]]] = []
    _collect(func.body.block.ops, (), stores)
    if not stores:
        return OpPattern.OPAQUE
    return max(_store_pattern(store, loops) for store, loops in stores)


def _collect(ops, loops: tuple[str, ...], out: list) -> None:
    for op in ops:
        if isinstance(op, tir.ForOp):
            _collect(op.body.block.ops, (*loops, op.var_name), out)
        elif isinstance(op, tir.StoreOp):
            out.append((op, loops))


def _loads(value: SSAValue, seen: set[int] | None = None) -> list[tir.LoadOp]:
    """The loads feeding ``value`` (through scalar ops)."""
    seen = set() if seen is None else seen
    owner = value.owner
    if not isinstance(owner, Operation) or id(owner) in seen:
        return []
    seen.add(id(owner))
    if isinstance(owner, tir.LoadOp):
        return [owner]
    found: list[tir.LoadOp] = []
    for operand in owner.operands:
        found += _loads(operand, seen)
    return found


def _store_pattern(store: tir.StoreOp, loops: tuple[str, ...]) -> OpPattern:
    target = store.indices.data
    target_vars = {d.name for d in target if d.is_Symbol}
    reduce_vars = set(loops) - target_vars
    loads = [load for load in _loads(store.value) if load.buffer is not store.buffer]
    if reduce_vars:
        if _is_product_of_loads(store.value) and len(loads) >= 2:
            return OpPattern.OUT_EWISE_FUSABLE
        return OpPattern.REDUCTION
    if not all(d.is_Symbol for d in target):
        return OpPattern.INJECTIVE
    kind = OpPattern.ELEMWISE
    for load in loads:
        indices = load.indices.data
        if indices == target:
            continue
        if load.pad is None and _is_ordered_subset(indices, target):
            kind = max(kind, OpPattern.BROADCAST)
        else:
            return OpPattern.INJECTIVE
    return kind


def _is_ordered_subset(indices: tuple[sympy.Expr, ...], target: tuple[sympy.Expr, ...]) -> bool:
    position = 0
    for index in indices:
        if index.is_Integer and index == 0:
            continue
        if not index.is_Symbol or index not in target[position:]:
            return False
        position = target.index(index, position) + 1
    return True


def _is_product_of_loads(value: SSAValue) -> bool:
    """Whether the reduction update adds a product (``acc + a * b``)."""
    owner = value.owner
    if isinstance(owner, arith.AddfOp | arith.AddiOp):
        return any(isinstance(o.owner, arith.MulfOp | arith.MuliOp) for o in owner.operands)
    return False
