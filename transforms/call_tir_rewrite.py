"""``relax-call-tir-rewrite``: make the outputs of ``call_tir`` explicit.

``%y = relax.call_tir @k(%x) sym [m] : (...) -> T`` becomes an allocation of each
output tensor and a destination-passing call::

    %y = relax.builtin.alloc_tensor : T
    relax.call_dps @k(%x, %y) sym [m] : (...)

A tuple result allocates one tensor per element and rebuilds the tuple.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.dialects.relax import CallTIROp, TupleOp, TupleType
from xrelax.dialects.relax_memory import BuiltinAllocTensorOp, CallDPSOp
from xrelax.transforms.function_walk import lower_function_bodies


class RewriteCallTIR(RewritePattern):
    """``call_tir`` -> output allocations + ``call_dps``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallTIROp, rewriter: PatternRewriter) -> None:
        allocs = [BuiltinAllocTensorOp(t) for t in op.output_types]
        outputs = [a.result for a in allocs]
        sym_args = op.sym_args.data if op.sym_args is not None else None
        new_ops: list[Operation] = [
            *allocs,
            CallDPSOp(op.callee.string_value(), [*op.args, *outputs], sym_args),
        ]
        if isinstance(op.result.type, TupleType):
            new_ops.append(TupleOp.build_deduced(outputs))
            result = new_ops[-1].results[0]
        else:
            result = outputs[0]
        if op.result.name_hint:
            result.name_hint = op.result.name_hint
        for new_op in new_ops:
            new_op.location = op.location  # errors about them point at the call_tir
        rewriter.replace(op, new_ops, [result])


@dataclass(frozen=True)
class CallTIRRewritePass(ModulePass):
    """Rewrite every ``relax.call_tir`` into explicit allocation + DPS call."""

    name = "relax-call-tir-rewrite"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_function_bodies(op, [RewriteCallTIR()])
