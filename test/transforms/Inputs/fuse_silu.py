"""fuse-silu: rewrite ``x * sigmoid(x)`` into ``silu(x)`` (docs/writing-a-pass.md)."""

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

import xrelax
from xrelax.ops.elementwise import MultiplyOp, SigmoidOp


class MultiplyBySigmoid(RewritePattern):
    """``x * sigmoid(x)`` (either order) -> ``silu(x)``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, mul: MultiplyOp, rewriter: PatternRewriter) -> None:
        for x, other in ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs)):
            if isinstance(other.owner, SigmoidOp) and other.owner.x == x:
                silu = xrelax.op.silu(x)
                # Keep the result type (a written one may be less specific).
                if silu.result.type == mul.result.type:
                    rewriter.replace(mul, silu)
                return


@xrelax.register_pass
@dataclass(frozen=True)
class FuseSiluPass(ModulePass):
    """Rewrite every ``x * sigmoid(x)`` into ``silu(x)``; a sigmoid left unused goes."""

    name = "fuse-silu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # The applier erases the operations the rewrite left dead (the sigmoid).
        patterns = GreedyRewritePatternApplier([MultiplyBySigmoid()])
        PatternRewriteWalker(patterns).rewrite_module(op)
