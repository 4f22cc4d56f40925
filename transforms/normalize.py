"""``relax-normalize``: deduce every result type and refine the written ones.

Each op whose result type is deducible (operators, ``shape``, ``shape_of``,
``match_shape``, ``tuple``, ``get_item``) gets its deduced type where the written
type is less specific (e.g. ``ndim=2`` becomes ``[n, 4]``); dataflow and ``if``
results follow the values they yield. Written types that contradict deduction are
verifier errors before and after the pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xrelax.dialects.relax import DataflowOp, DeducesResultType, IfOp, type_relation


def _refine(rewriter: PatternRewriter, value: SSAValue, deduced: Attribute) -> None:
    if value.type != deduced and type_relation(value.type, deduced) == "yes":
        rewriter.replace_value_with_new_type(value, deduced)


class RefineResultType(RewritePattern):
    """Replace a less specific written result type by the deduced one."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, DataflowOp):
            yielded = op.body.block.last_op.operands  # type: ignore[union-attr]
            for result, value in zip(op.results, yielded, strict=True):
                _refine(rewriter, result, value.type)
        elif isinstance(op, IfOp):
            then_values = op.then_region.block.last_op.operands  # type: ignore[union-attr]
            else_values = op.else_region.block.last_op.operands  # type: ignore[union-attr]
            for result, a, b in zip(op.results, then_values, else_values, strict=True):
                if a.type == b.type:
                    _refine(rewriter, result, a.type)
        elif op.has_trait(DeducesResultType):
            _refine(rewriter, op.results[0], op.deduced_type())  # type: ignore[attr-defined]


@dataclass(frozen=True)
class NormalizePass(ModulePass):
    """Fill and check every result type of the relax functions of a module."""

    name = "relax-normalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(RefineResultType(), apply_recursively=True).rewrite_module(op)
