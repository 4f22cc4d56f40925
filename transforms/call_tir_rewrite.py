"""``relax-call-tir-rewrite``: make the outputs of ``call_tir`` explicit.

``%y = relax.call_tir @k(%x) sym [m] : (...) -> T`` becomes an allocation of each
output tensor and a destination-passing call::

    %y = relax.builtin.alloc_tensor : T
    relax.call_dps @k(%x, %y) sym [m] : (...)

A tuple result allocates one tensor per element and rebuilds the tuple. A call whose
argument and output types prove the kernel's signature (:mod:`proven_calls`) is marked
``{proven}``: ``relax-codegen-vm`` then calls the kernel's unchecked entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.dialects.relax import CallTIROp, TupleOp, TupleType
from xrelax.dialects.relax_memory import BuiltinAllocTensorOp, CallDPSOp
from xrelax.dialects.tir import PrimFuncOp
from xrelax.transforms.function_walk import lower_function_bodies
from xrelax.transforms.proven_calls import PROVEN_ATTR, matches_signature


class RewriteCallTIR(RewritePattern):
    """``call_tir`` -> output allocations + ``call_dps``."""

    def __init__(self, kernels: dict[str, PrimFuncOp]) -> None:
        self.kernels = kernels

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallTIROp, rewriter: PatternRewriter) -> None:
        allocs = [BuiltinAllocTensorOp(t) for t in op.output_types]
        outputs = [a.result for a in allocs]
        sym_args = op.sym_args.data if op.sym_args is not None else None
        call = CallDPSOp(op.callee.string_value(), [*op.args, *outputs], sym_args)
        kernel = self.kernels.get(op.callee.string_value())
        types = [a.type for a in call.args]
        if sym_args is None and kernel is not None and matches_signature(kernel, types):
            call.attributes[PROVEN_ATTR] = UnitAttr()
        new_ops: list[Operation] = [*allocs, call]
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
        kernels = {k.sym_name.data: k for k in op.ops if isinstance(k, PrimFuncOp)}
        lower_function_bodies(op, [RewriteCallTIR(kernels)])
