"""``MarkParallelLoops``: the loops of a prim_func whose slices threads may run apart.

``tir-to-llvm`` lowers a prim_func with loops marked ``parallel`` as a task over a
slice ``[lo, hi)`` of them, which the threads of :mod:`.parallel` run side by side
with no barrier between the nests: each thread runs every nest over the same slice, in
order. That is right when each top-level nest has one loop (its first of extent above
one, under loops of extent one only) with the same bounds ``[0, n)`` as the others',
and every buffer the prim_func writes is read and written only at that loop's variable
in one dimension of its own, the same in every nest::

    for n in [0, 2) parallel:  pad[n, c, h, w] = X[n, c, h - 1, w - 1] pad 0
    for n in [0, 2) parallel:  Y[n, k, h, w] = sum(pad[n, c, h + kh, w + kw] * W[...])
    for n in [0, 2) parallel:  Y[n, k, h, w] = max(Y[n, k, h, w], 0)

Then a thread writes only elements of its slice and reads, of what the prim_func writes,
only elements of its slice it wrote before; buffers only read (inputs, weights) are read
anywhere. Nests of less static work than :data:`.parallel.PARALLEL_WORK` stay serial
(the runtime decides for symbolic sizes). A nest in register tiles
(:mod:`.register_tiles`) is split along a plain output loop or its rows, not its vector
axis. A prim_func that is not of that form keeps its loops serial. The pass runs last
before the lowering (the nests the other native rewrites make are split too); as a pass
it shows the marking on TIR.
"""

from __future__ import annotations

import sympy
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.backends.native.parallel import PARALLEL_WORK
from xrelax.backends.native.register_tiles import plan_tiles
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import ForOp, LetOp, LoadOp, PrimFuncOp, StoreOp

__all__ = ["MarkParallelLoops", "MarkParallelLoopsPass", "nest_work", "parallel_loops"]


class MarkParallelLoopsPass(ModulePass):
    """``tir-parallelize``: :class:`MarkParallelLoops` over every prim_func (which
    ``tir-to-llvm`` runs last before lowering; this pass shows its effect on TIR)."""

    name = "tir-parallelize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MarkParallelLoops(), apply_recursively=False).rewrite_module(op)


class MarkParallelLoops(RewritePattern):
    """Mark the loops :func:`parallel_loops` finds ``parallel``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, func: PrimFuncOp, rewriter: PatternRewriter) -> None:
        loops = parallel_loops(func)
        if loops is None or all(loop.parallel is not None for loop in loops):
            return
        for loop in loops:
            loop.parallel = UnitAttr()
        rewriter.handle_operation_modification(func)


def parallel_loops(func: PrimFuncOp) -> list[ForOp] | None:
    """The loop of each top-level nest of ``func`` that threads may split (see the
    module docstring), or None."""
    loops: list[ForOp] = []
    for op in func.body.block.ops:
        if isinstance(op, StoreOp | LoadOp | LetOp):
            return None  # outside any loop: every thread would run it
        if isinstance(op, ForOp):
            loop = _candidate(op)
            if loop is None:
                return None
            loops.append(loop)
    if not loops:
        return None
    upper = loops[0].upper
    if any(loop.lower != 0 or sympy.expand(loop.upper - upper) != 0 for loop in loops):
        return None
    if sympy.sympify(upper).is_Integer and int(upper) < 2:
        return None
    work = sympy.Add(*(nest_work(loop) for loop in loops))
    if work.is_Integer and int(work) < PARALLEL_WORK:
        return None  # too little to pay for a thread
    if not _aligned(func, loops):
        return None
    return loops


def nest_work(loop: ForOp) -> sympy.Expr:
    """The iterations of the innermost bodies of ``loop``'s nest (an estimate: loops
    side by side count as nested)."""
    return sympy.Mul(*(op.upper - op.lower for op in loop.walk() if isinstance(op, ForOp)))


def _candidate(nest: ForOp) -> ForOp | None:
    """The loop of ``nest`` to split: its first of extent other than one under loops of
    extent one only; None where that is a register tile's vector or reduction loop."""
    loop = nest
    while sympy.expand(loop.upper - loop.lower) == 1:
        body = list(loop.body.block.ops)
        if len(body) != 1 or not isinstance(body[0], ForOp):
            return None
        loop = body[0]
    plan = plan_tiles(nest)
    if (
        plan is not None
        and loop is not plan.row
        and (loop not in plan.outputs or loop in plan.vector)
    ):
        return None
    return loop


def _aligned(func: PrimFuncOp, loops: list[ForOp]) -> bool:
    """Whether every access to a buffer ``func`` writes indexes, in one dimension of
    that buffer's (the same for all its accesses), exactly the variable of the split
    loop of the nest it is in."""
    written = {op.buffer for op in func.walk() if isinstance(op, StoreOp)}
    dimension: dict[SSAValue, int] = {}
    for loop in loops:
        var = symbolic.sym(loop.var_name)
        for op in loop.walk():
            if not isinstance(op, LoadOp | StoreOp) or op.buffer not in written:
                continue
            indices = op.indices.data
            at = [d for d, index in enumerate(indices) if sympy.sympify(index) == var]
            if op.buffer in dimension:
                if dimension[op.buffer] not in at:
                    return False
            elif at:
                dimension[op.buffer] = at[0]
            else:
                return False
    return True
