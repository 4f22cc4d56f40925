"""``tir-reuse-buffers``: a stage read only pointwise by the next writes into its buffer.

A fused kernel stores each stage into a ``tir.alloc_buffer`` that the next stage
reads: ``matmul -> add bias -> relu`` allocates two intermediates. When a local buffer
``B`` is written by one top-level loop nest ``S1`` and its last reader, a later nest
``S2``, reads it only at the index ``S2`` stores to its own buffer ``D`` (of ``B``'s
type; nests between them may read ``B`` any way, as a softmax's sum reads the
exponentials its division then updates)::

    S1:  B[i, j] = sum_k x[i, k] * w[k, j]
    S2:  D[i, j] = B[i, j] + b[j]

then ``S1`` writes ``D`` and ``S2`` updates ``D`` in place (``D[i, j] = D[i, j] +
b[j]``), and ``B`` goes away: the kernel backend computes the product into the output
and the epilogues as in-place ufuncs (TVM's storage rewrite does the same in-place
reuse). Taken from the last buffer to the first, a chain of pointwise epilogues folds
into its final output. Required: nothing else reads or writes ``D`` before ``S2``
(``S1`` now overwrites it), ``S2`` stores nothing but ``D``, at its loop variables
(each iteration its own element), and does not read ``D``,
and each of its loads of ``B`` sits beside the store (same loop iteration); ``S1`` may
read ``B`` itself (a reduction accumulating in it). A local ``D``
allocated after ``S1`` is allocated before it instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from xrelax.dialects import tir
from xrelax.transforms.function_walk import rewrite_functions


class ReuseBuffers(RewritePattern):
    """Fold every pointwise-read local buffer of a prim_func into its reader's output."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tir.PrimFuncOp, rewriter: PatternRewriter) -> None:
        ops = list(op.body.block.ops)
        position: dict[Operation, float] = {top: k for k, top in enumerate(ops)}
        # The first top-level op that loads or stores each buffer, kept up to date as
        # buffers merge (a fused chain has thousands of stages: no rescan per buffer).
        first_touch: dict[SSAValue, float] = {}
        allocs = [a.buffer for a in ops if isinstance(a, tir.AllocBufferOp)]
        for buffer in [*op.body.block.args, *allocs]:
            touches = [
                position[_top(use.operation, position)]
                for use in buffer.uses
                if isinstance(use.operation, tir.LoadOp | tir.StoreOp)
            ]
            if touches:
                first_touch[buffer] = min(touches)
        for alloc in reversed([a for a in ops if isinstance(a, tir.AllocBufferOp)]):
            self.reuse(op, alloc, position, first_touch)

    def reuse(
        self,
        func: tir.PrimFuncOp,
        alloc: tir.AllocBufferOp,
        position: dict[Operation, float],
        first_touch: dict[SSAValue, float],
    ) -> None:
        """Fold ``alloc``'s buffer into its reader's output when it qualifies.
        ``position`` orders the top-level ops (an alloc moved before an op takes a
        position just below it)."""
        buffer = alloc.buffer
        uses = [use.operation for use in buffer.uses]
        stores = [u for u in uses if isinstance(u, tir.StoreOp)]
        loads = [u for u in uses if isinstance(u, tir.LoadOp)]
        if not stores or not loads or len(stores) + len(loads) != len(uses):
            return
        top = {use: _top(use, position) for use in uses}
        writers = {top[s] for s in stores}
        if len(writers) != 1:
            return
        (producer,) = writers
        # The producer may read what it wrote (a reduction accumulates in place); the
        # last reader must read it pointwise; readers before it may read it any way.
        read = [load for load in loads if top[load] is not producer]
        if not read:
            return
        consumer = max((top[load] for load in read), key=position.__getitem__)
        if position[consumer] <= position[producer]:
            return
        last = [load for load in read if top[load] is consumer]
        target = _pointwise_target(consumer, buffer, last)
        if target is None or target.type != buffer.type:
            return
        if first_touch.get(target, position[consumer]) < position[consumer]:
            return  # something reads or writes the target before the consumer
        owner = target.owner
        if isinstance(owner, tir.AllocBufferOp) and position[owner] > position[producer]:
            owner.detach()
            func.body.block.insert_op_before(owner, producer)
            position[owner] = position[producer] - 0.5
        buffer.replace_all_uses_with(target)
        first_touch[target] = min(first_touch[buffer], first_touch.get(target, first_touch[buffer]))
        func.body.block.erase_op(alloc)


def _top(op: Operation, position: dict[Operation, float]) -> Operation:
    while op not in position:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def _pointwise_target(
    consumer: Operation, buffer: SSAValue, loads: list[tir.LoadOp]
) -> SSAValue | None:
    """The buffer ``consumer`` stores to when its one store sits beside every load of
    ``buffer`` at the same index and it reads nothing of that buffer; else None."""
    stores: list[tir.StoreOp] = []
    loaded: set[SSAValue] = set()
    for o in consumer.walk():
        if isinstance(o, tir.StoreOp):
            stores.append(o)
        elif isinstance(o, tir.LoadOp):
            loaded.add(o.buffer)
    if len(stores) != 1:
        return None
    (store,) = stores
    if not _one_point_per_iteration(store, consumer):
        return None
    target = store.buffer
    if target is buffer or any(
        load.parent_block() is not store.parent_block()
        or load.indices != store.indices
        or load.pad is not None
        for load in loads
    ):
        return None
    return None if target in loaded else target


def _one_point_per_iteration(store: tir.StoreOp, consumer: Operation) -> bool:
    """Whether ``store``'s indices are the loop variables enclosing it, each once: every
    iteration writes its own element (a store inside a loop its index ignores, such as
    an accumulation, would read back what it wrote)."""
    loops = []
    parent = store.parent_op()
    while isinstance(parent, tir.ForOp):
        loops.append(parent.var_name)
        if parent is consumer:
            break
        parent = parent.parent_op()
    else:
        return False
    indices = store.indices.data
    if not all(index.is_Symbol for index in indices):
        return False
    names = [index.name for index in indices]
    return len(set(names)) == len(names) and set(names) == set(loops)


@dataclass(frozen=True)
class ReuseBuffersPass(ModulePass):
    """Fold the pointwise-read local buffers of every prim_func into their readers'."""

    name = "tir-reuse-buffers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_functions(op, ReuseBuffers(), tir.PrimFuncOp)
