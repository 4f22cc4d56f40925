"""``FuseElementwiseNests``: adjacent element-wise nests over the same domain run as one.

A fused kernel's epilogue is a chain of top-level nests, each a full pass over memory
(``%t = sigmoid(%x)``, then ``%t = %x * %t``, then ...). Before ``tir-to-llvm`` lowers
a prim_func, two adjacent perfect nests with the same loops (variables and bounds)
and straight-line bodies become one when every buffer one of them writes and both
access is accessed at the loop variables themselves, in order (``%t[i0, i1, i2, i3]``):
then each iteration reads exactly what the same iteration wrote, as the separate
passes did, and the chain is one pass; the stores LLVM then forwards to the loads.
Local buffers allocated between the nests do not separate them (every local buffer is
allocated on entry). EfficientNet-B0's SiLU + depthwise + SiLU kernel over
``[2, 96, 112, 112]``: see docs/performance.md.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from xrelax.dialects.tir import AllocBufferOp, AssertOp, ForOp, LetOp, LoadOp, PrimFuncOp, StoreOp


class FuseElementwiseNests(RewritePattern):
    """Merge adjacent element-wise nests (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, func: PrimFuncOp, rewriter: PatternRewriter) -> None:
        block = func.body.block
        previous: ForOp | None = None
        for op in list(block.ops):
            if isinstance(op, AllocBufferOp):
                continue
            if isinstance(op, ForOp) and previous is not None and _fusable(previous, op):
                target = previous.perfect_nest()[-1].body.block
                body = op.perfect_nest()[-1].body.block
                rewriter.inline_block(body, InsertPoint.at_end(target))
                rewriter.erase(op)
                continue
            previous = op if isinstance(op, ForOp) else None


def _straight(block: Block) -> bool:
    return not any(isinstance(op, ForOp | AssertOp | LetOp) for op in block.ops)


def _fusable(first: ForOp, second: ForOp) -> bool:
    """Whether ``second`` may run in the iterations of ``first`` (module docstring)."""
    a, b = first.perfect_nest(), second.perfect_nest()
    if len(a) != len(b) or not _straight(a[-1].body.block) or not _straight(b[-1].body.block):
        return False
    if any(x.var_name != y.var_name or x.bounds != y.bounds for x, y in zip(a, b, strict=True)):
        return False
    identity = tuple(loop.var_name for loop in a)
    accesses = {}
    for index, body in enumerate((a[-1].body.block, b[-1].body.block)):
        for op in body.ops:
            if isinstance(op, LoadOp | StoreOp):
                accesses.setdefault(op.buffer, []).append((index, op))
    for uses in accesses.values():
        written = any(isinstance(op, StoreOp) for _, op in uses)
        if not written or len({index for index, _ in uses}) < 2:
            continue
        if any(_names(op) != identity for _, op in uses):
            return False
    return True


def _names(op: Operation) -> tuple[str, ...] | None:
    """The access's indices as variable names, or None where one is not a variable."""
    names = []
    for index in op.indices.data:
        if not index.is_Symbol:
            return None
        names.append(index.name)
    return tuple(names)
