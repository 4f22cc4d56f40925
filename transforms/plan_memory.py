"""``relax-plan-memory``: share storage between tensors whose lifetimes do not overlap.

The ``relax.builtin.alloc_tensor`` ops of a block are placed in
``relax.memory.alloc_storage`` storages: a storage is reused by a later tensor of the
same block once every tensor in it is dead (a tensor that ends up sharing with no other
keeps its direct allocation). A storage of provably equal size is reused first; a
static size then takes the best-fitting static storage; a symbolic one a storage
provably at least as large, else one provably smaller, else any free storage whose
allocation point binds the size's variables. A storage grows to the largest of its
tensors, ``max(a, b)`` when neither size provably bounds the other (``[4, s, s]`` and
``[s, 256]``): since ``max(a, b) <= a + b`` for every value of the symbols, reusing
never costs more than a new allocation. A tensor that escapes (returned, yielded, put
in a tuple, passed to a packed or relax call, or aliased through ``match_shape``) gets
a storage of its own, so outputs and values a callee may keep are never overwritten;
parameters are never allocated here at all. A storage is killed after the last use of
its last tensor.

With ``report=true`` the pass emits a remark per function: planned versus naive
(one allocation per tensor) bytes.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import sympy
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xrelax.dialects.ir.diagnostics import emit_remark
from xrelax.dialects.relax import FuncOp, MatchShapeOp, type_free_vars
from xrelax.dialects.relax_memory import (
    AllocStorageOp,
    AllocTensorOp,
    BuiltinAllocTensorOp,
    CallDPSOp,
    KillStorageOp,
    tensor_bytes,
)
from xrelax.dialects.shapes import symbolic
from xrelax.transforms.function_walk import rewrite_functions

_NON_ESCAPING = (CallDPSOp,)


@dataclass
class Storage:
    """A planned storage: its size and the allocations placed in it."""

    size: sympy.Expr
    index: int
    bound: frozenset[str]  # the symbolic variables bound where the storage is allocated
    allocs: list[BuiltinAllocTensorOp] = field(default_factory=list)
    free_at: int = -1


@dataclass
class MemoryPlan:
    """The storages of one block and the byte totals (symbolic)."""

    storages: list[Storage]
    naive_bytes: sympy.Expr
    planned_bytes: sympy.Expr


def _last_use(value: SSAValue, block: Block, order: dict[Operation, int]) -> int | None:
    """The position in ``block`` of the last op using ``value`` (None: it escapes)."""
    last = order.get(value.owner, 0) if isinstance(value.owner, Operation) else 0
    for use in value.uses:
        user = _ancestor_in(use.operation, block)
        if user is None:
            return None
        if isinstance(use.operation, MatchShapeOp):
            alias_end = _last_use(use.operation.result, block, order)
            if alias_end is None:
                return None
            last = max(last, alias_end)
        elif isinstance(use.operation, _NON_ESCAPING):
            last = max(last, order[user])
        else:
            return None
    return last


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def plan_block(block: Block) -> MemoryPlan:
    """Assign the allocations of ``block`` to storages."""
    order = {op: index for index, op in enumerate(block.ops)}
    storages: list[Storage] = []
    free: list[Storage] = []
    busy: list[tuple[int, int, Storage]] = []  # a heap: (free_at, creation index, storage)
    sizes: list[sympy.Expr] = []
    bound = _outer_vars(block)
    for op in block.ops:
        for result in op.results:
            bound |= type_free_vars(result.type)
        if not isinstance(op, BuiltinAllocTensorOp):
            continue
        position = order[op]
        released = []
        while busy and busy[0][0] < position:
            released.append(heapq.heappop(busy))
        free += [storage for _, _, storage in sorted(released, key=lambda item: item[1])]
        size = tensor_bytes(op.result.type)  # type: ignore[arg-type]
        sizes.append(size)
        end = _last_use(op.result, block, order)
        storage = _pick(free, size) if end is not None else None
        if storage is None:
            storage = Storage(size, index=len(storages), bound=frozenset(bound))
            storages.append(storage)
        else:
            free.remove(storage)
            storage.size = _grown(storage.size, size)
        storage.allocs.append(op)
        storage.free_at = end if end is not None else len(order)
        if end is not None:
            heapq.heappush(busy, (storage.free_at, storage.index, storage))
    naive = sympy.Add(*sizes)
    planned = sympy.Add(*(s.size for s in storages))
    return MemoryPlan(storages, symbolic.simplify(naive), symbolic.simplify(planned))


def _outer_vars(block: Block) -> set[str]:
    """The symbolic variables bound before ``block`` starts: its function's parameters'."""
    func = block.parent_op()
    while func is not None and not isinstance(func, FuncOp):
        func = func.parent_op()
    names: set[str] = set()
    for arg in func.body.block.args if func is not None else block.args:
        names |= type_free_vars(arg.type)
    return names


def _grown(storage_size: sympy.Expr, size: sympy.Expr) -> sympy.Expr:
    """A storage's size once it also holds a tensor of ``size`` bytes."""
    if symbolic.prove_le(size, storage_size):
        return storage_size
    if symbolic.prove_le(storage_size, size):
        return size
    return symbolic.smax(storage_size, size)


def _pick(free: list[Storage], size: sympy.Expr) -> Storage | None:
    """The free storage to reuse: provably equal size; else, for a static size, the best
    static fit; else one provably at least as large, then one provably smaller (which
    grows: ``[s, 1024]`` after ``[s, 256]``), then any (which grows to the maximum). A
    storage only grows to a size whose variables are bound where it is allocated."""
    for storage in free:
        if symbolic.prove_equal(storage.size, size):
            return storage
    if size.is_Integer:
        static = [s for s in free if s.size.is_Integer]
        if static:
            return min(
                static, key=lambda s: (int(s.size) < int(size), abs(int(s.size) - int(size)))
            )
    fits = [s for s in free if symbolic.prove_le(size, s.size)]
    if fits:
        return fits[0]
    names = symbolic.free_vars(size)
    growable = [s for s in free if names <= s.bound]
    smaller = [s for s in growable if symbolic.prove_le(s.size, size)]
    return smaller[0] if smaller else (growable[0] if growable else None)


def apply_plan(block: Block, plan: MemoryPlan, rewriter: PatternRewriter) -> None:
    """Rewrite the block's allocations into storages and placed tensors."""
    order = {op: index for index, op in enumerate(block.ops)}
    ops = list(block.ops)
    for storage in plan.storages:
        if len(storage.allocs) == 1:
            continue  # a tensor sharing nothing keeps its direct allocation
        first = storage.allocs[0]
        alloc_storage = AllocStorageOp(storage.size)
        rewriter.insert(alloc_storage, InsertPoint.before(first))
        for alloc in storage.allocs:
            placed = AllocTensorOp(alloc_storage.storage, 0, alloc.result.type)  # type: ignore[arg-type]
            placed.result.name_hint = alloc.result.name_hint
            rewriter.replace(alloc, placed)
        if storage.free_at < len(order):
            last = ops[storage.free_at]
            rewriter.insert(KillStorageOp(alloc_storage.storage), InsertPoint.after(last))


class PlanFunction(RewritePattern):
    """Plan every block of a relax function."""

    def __init__(self, report: bool) -> None:
        self.report = report

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FuncOp, rewriter: PatternRewriter) -> None:
        naive, planned, tensors, count = sympy.Integer(0), sympy.Integer(0), 0, 0
        blocks = [b for inner in op.walk() for r in inner.regions for b in r.blocks]
        for block in blocks:
            plan = plan_block(block)
            if not plan.storages:
                continue
            apply_plan(block, plan, rewriter)
            naive += plan.naive_bytes
            planned += plan.planned_bytes
            tensors += sum(len(s.allocs) for s in plan.storages)
            count += len(plan.storages)
        if self.report:
            emit_remark(
                op,
                f"memory plan: {tensors} tensors in {count} storages, planned "
                f"{symbolic.format_expr(symbolic.simplify(planned))} bytes vs naive "
                f"{symbolic.format_expr(symbolic.simplify(naive))} bytes",
            )


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Share storage between the tensors of each relax function."""

    name = "relax-plan-memory"

    report: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_functions(op, PlanFunction(self.report))
