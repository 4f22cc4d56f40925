"""``SinkOutputLoops``: a reduction that strides through memory runs with its innermost
output loops inside it.

Legalization writes a contraction as its output loops around an initializing store and
the reduction loops, which accumulate into one output element::

    for n, k, h, w:                         for n, k:
      C[n, k, h, w] = 0                       for h, w: C[n, k, h, w] = 0
      for c:                          ->      for c:
        C[n, k, h, w] += X[n, c, h, w]          for h, w:
                         * W[k, c]                C[n, k, h, w] += X[n, c, h, w] * W[k, c]

On the left the innermost loop (``c``) reads ``X`` a whole image apart at each step,
which LLVM can only vectorize with gathers; on the right it runs along rows of ``C``
and ``X`` (``h, w`` collapse into one loop, :func:`.collapse.collapsible_chain`)
and ``W[k, c]`` is one value: a vector multiply-add per step. Each output element is
still accumulated over ``c`` in the same order, so the result is the same to the bit.

The trailing output loops sink (the loops whose variables are the output's last
indices, in order, as far as they run as one loop with the innermost and sweep at most
:data:`_BLOCK` elements) when the innermost reduction loop of extent above one reads
some buffer other than at its last index (a reduction along rows, ``sum(x[i, :])`` or
``A[i, :] . B[j, :]``, vectorizes as it is). The reduction's body must be straight-line
code that reads and writes the output only at the element it accumulates, and its
bounds must not depend on the sunk loops.
"""

from __future__ import annotations

import sympy
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xrelax.backends.native.collapse import collapses
from xrelax.backends.native.register_tiles import plan_tiles
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import AssertOp, ForOp, LetOp, LoadOp, PrimFuncOp, StoreOp


class SinkOutputLoopsPass(ModulePass):
    """``tir-sink-output-loops``: :class:`SinkOutputLoops` over every prim_func (which
    ``tir-to-llvm`` runs first; this pass shows its effect on TIR)."""

    name = "tir-sink-output-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SinkOutputLoops(), apply_recursively=False).rewrite_module(op)


class SinkOutputLoops(RewritePattern):
    """Move each reduction's trailing output loops inside it (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, func: PrimFuncOp, rewriter: PatternRewriter) -> None:
        for loop in [op for op in func.walk() if isinstance(op, ForOp)]:
            _sink(loop, rewriter)


def _sink(loop: ForOp, rewriter: PatternRewriter) -> None:
    """Sink the output loops ending at ``loop`` into the reduction that ends its body."""
    ops = list(loop.body.block.ops)
    if len(ops) < 2 or not isinstance(reduction := ops[-1], ForOp):
        return
    init = ops[-2]
    if not isinstance(init, StoreOp) or any(isinstance(op, ForOp) for op in ops[:-1]):
        return
    top = loop
    while isinstance(top.parent_op(), ForOp):
        top = top.parent_op()
    if plan_tiles(top) is not None:
        return  # the nest runs in register tiles
    inner = reduction.perfect_nest()
    body = inner[-1].body.block
    sunk = _output_loops(loop, init, body)
    if not sunk or not _sinkable(sunk, inner, body, init):
        return
    top = sunk[0]
    # The output loops around the initialization, as they are.
    rewriter.insert(_nest(sunk, ops[:-1]), InsertPoint.before(top))
    # The reduction loops, with the output loops inside them around its body.
    rewriter.insert(_nest(sunk, list(body.ops)), InsertPoint.at_end(body))
    reduction.detach()
    rewriter.replace(top, reduction)


_BLOCK = 4096
"""At most this many output elements (16 KiB of f32) are swept at each reduction step,
so that they stay in the L1 cache; the innermost loop sinks whatever its extent."""


def _output_loops(loop: ForOp, init: StoreOp, body: Block) -> list[ForOp]:
    """``loop`` and the perfectly nested loops around it whose variables are the last
    indices of the element ``init`` writes, in order (outermost first), while they run
    as one loop over ``body`` (:func:`.collapse.collapses`: LLVM unrolls a short
    innermost loop whole and would vectorize the loop around it, with gathers) and
    their extents multiply to at most :data:`_BLOCK`."""
    indices = init.indices.data
    sunk: list[ForOp] = []
    size = sympy.Integer(1)
    current: Operation | None = loop
    while isinstance(current, ForOp) and len(sunk) < len(indices):
        index = indices[len(indices) - 1 - len(sunk)]
        if not (index.is_Symbol and index.name == current.var_name):
            break
        if sunk and len(current.body.block.ops) != 1:
            break
        size *= current.upper - current.lower
        if sunk and not (size.is_Integer and size <= _BLOCK and collapses([current, *sunk], body)):
            break
        sunk.insert(0, current)
        current = current.parent_op()
    return sunk


def _sinkable(sunk: list[ForOp], inner: list[ForOp], body: Block, init: StoreOp) -> bool:
    """Whether the output loops ``sunk`` may move inside the reduction loops ``inner``
    around ``body`` (see the module docstring), and it pays."""
    names = {loop.var_name for loop in sunk}
    for loop in inner:
        if names & symbolic.free_vars(loop.lower) or names & symbolic.free_vars(loop.upper):
            return False
    output, element = init.buffer, init.indices.data
    stores = 0
    for op in body.ops:
        if isinstance(op, ForOp | AssertOp | LetOp):
            return False
        if isinstance(op, LoadOp | StoreOp) and op.buffer == output:
            if op.indices.data != element:
                return False
            stores += isinstance(op, StoreOp)
        elif isinstance(op, StoreOp):
            return False
        if any(_defined_in(operand, sunk[-1]) for operand in op.operands):
            return False  # a value of the loop's own body: it stays outside
    if stores != 1:
        return False
    strided = [loop for loop in inner if loop.upper - loop.lower != 1]
    if not strided:
        return False
    var = strided[-1].var_name
    return any(
        isinstance(op, LoadOp)
        and any(var in symbolic.free_vars(index) for index in op.indices.data[:-1])
        for op in body.ops
    )


def _defined_in(value: SSAValue, loop: ForOp) -> bool:
    """Whether ``value`` is an op result directly in ``loop``'s body (not deeper)."""
    owner = value.owner
    return isinstance(owner, Operation) and owner.parent_block() is loop.body.block


def _nest(loops: list[ForOp], ops: list[Operation]) -> ForOp:
    """Fresh loops with the variables and bounds of ``loops`` around ``ops`` (moved)."""
    for op in ops:
        op.detach()
    inner: list[Operation] = ops
    for loop in reversed(loops):
        nest = ForOp(loop.var_name, loop.lower, loop.upper, Region(Block(inner)))
        inner = [nest]
    return nest
