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
anywhere. A first loop shorter than :data:`_SHARED` (a batch: two images, or a symbolic
size that is one at inference) is split together with the loop right inside it: the
threads share the pairs ``(n, k)``, and the buffers written are accessed at both
variables. A nest over another inner loop that writes only a local buffer (each thread
has its own) is split along the outer loop alone and runs, on each thread, every row of
it the slice touches::

    for n in [0, N) parallel:                       pad[n, c, h, w] = ...   (c < 16)
    for n in [0, N) parallel: for k in [0, 32) parallel:  Y[n, k, h, w] = ... pad[n, ...]

Leading nests that write only local buffers and do little of the work (a GELU of the
row a product of one row reads) may also run whole on every thread, the nests after
them split (:func:`_prologues`).

Nests of less static work than :data:`.parallel.PARALLEL_WORK` stay serial
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
from xrelax.dialects.shapes.symbolic import FloorDiv
from xrelax.dialects.tir import AllocBufferOp, ForOp, LetOp, LoadOp, PrimFuncOp, StoreOp

__all__ = ["MarkParallelLoops", "MarkParallelLoopsPass", "parallel_loops", "split_work"]


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
    """The loops of the top-level nests of ``func`` that threads may split (see the
    module docstring): one per nest, or two where the first may be too short to share
    (a batch), or None."""
    nests: list[ForOp] = []
    for op in func.body.block.ops:
        if isinstance(op, StoreOp | LoadOp | LetOp):
            return None  # outside any loop: every thread would run it
        if isinstance(op, ForOp):
            nests.append(op)
    firsts = [_first(nest) for nest in nests]
    if not nests or None in firsts:
        return None
    pairs = [_pair(loop) for loop in firsts]
    splits = []
    for extent in dict.fromkeys(pair[1].upper for pair in pairs if pair is not None):
        # Nests over other inner loops (a padded copy of the input's channels before a
        # convolution over the output's) run whole rows of the outer loop each.
        splits.append(
            [
                [*pair] if pair is not None and pair[1].upper == extent else [loop]
                for loop, pair in zip(firsts, pairs, strict=True)
            ]
        )
    splits.append([[loop] for loop in firsts])
    for split in splits:
        if _splittable(func, split):
            return [loop for loops in split for loop in loops]
    for count in _prologues(func, nests):
        split = [[loop] for loop in firsts[count:]]
        if _splittable(func, split):
            return [loop for loops in split for loop in loops]
    return None


_PROLOGUE_SHARE = 16
"""A prologue every thread runs whole does at most this fraction of the work after it."""


def _prologues(func: PrimFuncOp, nests: list[ForOp]) -> list[int]:
    """How many leading nests of ``func`` every thread may run whole before the split
    ones, shortest first: nests that write only local buffers (each thread has its
    own), doing at most 1/:data:`_PROLOGUE_SHARE` of the static work of the nests after
    them (GPT-2's GELU of a row of 3,072 values before its product by a [3072, 768]
    weight, whose columns are split)."""
    local = {op.buffer for op in func.body.block.ops if isinstance(op, AllocBufferOp)}
    works = [_nest_work(nest) for nest in nests]
    counts = []
    for count in range(1, len(nests)):
        written = {op.buffer for op in nests[count - 1].walk() if isinstance(op, StoreOp)}
        if not written <= local:
            break
        before, after = sympy.Add(*works[:count]), sympy.Add(*works[count:])
        if before.is_Integer and after.is_Integer and before * _PROLOGUE_SHARE <= after:
            counts.append(count)
    return counts


def _splittable(func: PrimFuncOp, split: list[list[ForOp]]) -> bool:
    """Whether threads may split the loops ``split`` (per nest, outermost first)."""
    outer = split[0][0].upper
    inner = [loops[1].upper for loops in split if len(loops) == 2]
    loops = [loop for nest in split for loop in nest]
    if any(loop.lower != 0 for loop in loops):
        return False
    if any(sympy.expand(nest[0].upper - outer) != 0 for nest in split):
        return False
    extent = sympy.Mul(outer, inner[0] if inner else 1)
    if extent.is_Integer and int(extent) < 2:
        return False
    work = split_work(loops)
    if work.is_Integer and int(work) < PARALLEL_WORK:
        return False  # too little to pay for a thread
    return all(_tileable(nest) for nest in split) and _aligned(func, split)


def split_work(loops: list[ForOp]) -> sympy.Expr:
    """The iterations of the innermost bodies of the nests of the split ``loops`` (the
    inner loop of a split pair is counted with its outer one): the work the pool
    weighs against :data:`.parallel.PARALLEL_WORK`."""
    return sympy.Add(*(_nest_work(loop) for loop in loops if loop.parent_op() not in loops))


def _nest_work(loop: ForOp) -> sympy.Expr:
    """The iterations of the innermost bodies of ``loop``'s nest (an estimate: loops
    side by side count as nested; a bound that depends on an outer loop's variable
    counts at the middle of that loop's range, exact for a triangle)."""
    middle: dict[sympy.Symbol, sympy.Expr] = {}
    work = sympy.Integer(1)
    for op in loop.walk():
        if isinstance(op, ForOp):
            lower, upper = (sympy.sympify(b).xreplace(middle) for b in (op.lower, op.upper))
            work *= upper - lower
            middle[symbolic.sym(op.var_name)] = FloorDiv(lower + upper, 2)
    return sympy.expand(work)


def _first(nest: ForOp) -> ForOp | None:
    """The first loop of ``nest`` of extent other than one, under loops of extent one
    only (None if they are not a perfect nest)."""
    loop = nest
    while sympy.expand(loop.upper - loop.lower) == 1:
        body = list(loop.body.block.ops)
        if len(body) != 1 or not isinstance(body[0], ForOp):
            return None
        loop = body[0]
    return loop


def _pair(loop: ForOp) -> tuple[ForOp, ForOp] | None:
    """``loop`` and the loop right inside it, split as one range of their pairs, where
    ``loop`` may be shorter than :data:`_SHARED` (a batch: symbolic, or two images) and
    the one inside has a static extent (the slices' bounds divide by it)."""
    extent = sympy.sympify(loop.upper - loop.lower)
    if extent.is_Integer and int(extent) >= _SHARED:
        return None
    body = list(loop.body.block.ops)
    if len(body) != 1 or not isinstance(body[0], ForOp):
        return None
    inner = body[0]
    return (loop, inner) if sympy.sympify(inner.upper).is_Integer else None


_SHARED = 16
"""A first loop of at least this many iterations is split alone: enough slices for the
threads; a shorter one is split together with the loop inside it."""


def _tileable(loops: list[ForOp]) -> bool:
    """Whether a register tile of the nest around the split ``loops`` (one, or a pair)
    can run a slice of them: each is the tile's rows or a plain output loop, not its
    vector axis or a reduction, and the outer one of a pair is not the rows (they run
    inside the columns, and the inner loop's part of the slice depends on it). Only a
    product of one row (a decoding step's, by weights in panels) splits its vector
    axis, alone: each thread runs the tiles of columns that start in its slice."""
    nest = loops[0]
    while not isinstance(nest.parent_op(), PrimFuncOp):
        nest = nest.parent_op()
    plan = plan_tiles(nest)
    if plan is None:
        return True
    if len(loops) == 2 and loops[0] is plan.row:
        return False
    if loops == plan.vector and plan.row.upper == 1:
        return True
    return all(
        loop is plan.row or (loop in plan.outputs and loop not in plan.vector) for loop in loops
    )


def _aligned(func: PrimFuncOp, split: list[list[ForOp]]) -> bool:
    """Whether every buffer ``func`` writes is accessed only at the split loops'
    variables, each in one dimension of its own (the same in every access): at both
    loops of a split pair, or, for a local buffer (each thread has its own) written by
    nests split along the outer loop alone, at that loop."""
    width = max(len(loops) for loops in split)
    local = {op.buffer for op in func.body.block.ops if isinstance(op, AllocBufferOp)}
    writers: dict[SSAValue, set[int]] = {}
    for k, loops in enumerate(split):
        for op in loops[0].walk():
            if isinstance(op, StoreOp):
                writers.setdefault(op.buffer, set()).add(k)
    dimension: dict[tuple[SSAValue, int], int] = {}
    for loops in split:
        for op in loops[0].walk():
            if not isinstance(op, LoadOp | StoreOp) or op.buffer not in writers:
                continue
            whole = {len(split[k]) < width for k in writers[op.buffer]}
            if whole == {True} and op.buffer in local:
                need = loops[:1]  # written for whole rows of the outer loop
            elif whole == {False} and len(loops) == width:
                need = loops
            else:
                return False
            for position, loop in enumerate(need):
                var = symbolic.sym(loop.var_name)
                at = [d for d, index in enumerate(op.indices.data) if sympy.sympify(index) == var]
                key = (op.buffer, position)
                if key in dimension:
                    if dimension[key] not in at:
                        return False
                elif at:
                    dimension[key] = at[0]
                else:
                    return False
    return True
