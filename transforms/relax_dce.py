"""``relax-dce``: xDSL's ``dce`` over the relax functions only, leaving kernels alone.

Fusion leaves relax values dead (the ``relax.shape`` a fused reshape no longer takes,
a ``prim_value`` folded into a kernel); this removes them as ``dce`` would. Kernels
are skipped: the tir passes leave no dead code in them, and ``dce``'s liveness walk
over a fused kernel (its effects queried once per loop nesting level) is most of its
cost: 65 of 70 ms on a fused kernel of 1,000 stages.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce

from xrelax.dialects.tir import PrimFuncOp


@dataclass(frozen=True)
class RelaxDCEPass(ModulePass):
    """Remove dead pure ops from every top-level op's regions except ``tir.prim_func``."""

    name = "relax-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for top in op.ops:
            if not isinstance(top, PrimFuncOp):
                for region in top.regions:
                    region_dce(region)
