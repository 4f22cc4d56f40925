"""Running rewrite patterns over a module's relax functions only.

After legalization most of a module's operations are the bodies of its
``tir.prim_func`` kernels (a fused chain of 10,000 operators is one kernel of
150,000 ops). A ``PatternRewriteWalker`` over the whole module visits each of them in
every pass, although the patterns of the relax-level passes never match inside a
kernel; these helpers visit the relax functions alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.relax import FuncOp


def rewrite_functions(
    module: ModuleOp, pattern: RewritePattern, function_type: type[Operation] = FuncOp
) -> None:
    """Apply ``pattern`` once to each top-level function of ``function_type``: for a
    pattern that rewrites a whole function."""
    for op in list(module.ops):
        if isinstance(op, function_type):
            pattern.match_and_rewrite(op, PatternRewriter(op))


def rewrite_function_bodies(module: ModuleOp, walker: PatternRewriteWalker) -> None:
    """Run ``walker`` over the body of each relax function (not over the kernels)."""
    for op in list(module.ops):
        if isinstance(op, FuncOp):
            walker.rewrite_region(op.body)


def lower_function_bodies(module: ModuleOp, patterns: Sequence[RewritePattern]) -> None:
    """Apply the first of ``patterns`` that matches to each op of the relax functions'
    bodies, once, in order: for lowerings whose new ops no pattern matches. One walk
    instead of a greedy walker's fixpoint, which walks every function again after its
    last rewrite and queues each new or modified op to be matched again."""
    for func in list(module.ops):
        if not isinstance(func, FuncOp):
            continue
        ops = list(func.body.walk())
        if not ops:
            continue
        rewriter = PatternRewriter(ops[0])
        for op in ops:
            if op.parent is None:  # erased by an earlier rewrite
                continue
            rewriter.has_done_action = False
            rewriter.current_operation = op
            rewriter.insertion_point = InsertPoint.before(op)
            for pattern in patterns:
                try:
                    pattern.match_and_rewrite(op, rewriter)
                except VerifyException as err:
                    # a refusal of this op (e.g. an element type numpy cannot hold): located
                    raise IRError(op, str(err)) from err
                except Exception as err:
                    # as xDSL's walker reports a pattern's failure
                    op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
                if rewriter.has_done_action:
                    break
