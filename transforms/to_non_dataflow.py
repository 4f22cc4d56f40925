"""``relax-to-non-dataflow``: dissolve dataflow regions into their enclosing block.

The bindings of each ``relax.dataflow`` move before it, in order; its results are
replaced by the values its ``relax.output`` lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xrelax.dialects.relax import DataflowOp, OutputOp
from xrelax.transforms.function_walk import rewrite_function_bodies


class InlineDataflow(RewritePattern):
    """Move a dataflow region's bindings before it and drop the region."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DataflowOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        output = block.last_op
        assert isinstance(output, OutputOp)
        values = list(output.values)
        rewriter.erase(output)
        rewriter.inline_block(block, InsertPoint.before(op))
        rewriter.replace(op, [], values)


@dataclass(frozen=True)
class ToNonDataflowPass(ModulePass):
    """Dissolve every ``relax.dataflow`` region."""

    name = "relax-to-non-dataflow"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        applier = GreedyRewritePatternApplier([InlineDataflow()], dce_enabled=False)
        rewrite_function_bodies(op, PatternRewriteWalker(applier))
