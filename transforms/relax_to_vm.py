"""``relax-to-vm``: the default pipeline from relax to the vm dialect (docs/design.md §6):
deduce types, clean up (canonicalize, fold constants, cse, dce), legalize operators to
kernels, fuse them, then lower memory, shapes and control flow to VM code."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass

from xrelax.transforms.pass_manager import PipelinePass, parse_passes

DEFAULT_PIPELINE = (
    "relax-normalize",
    "canonicalize",
    "relax-fold-constant",
    "cse",
    "dce",
    "relax-legalize-ops",
    "relax-fuse-ops",
    "relax-fuse-tir",
    "tir-inline-copies",
    "tir-reuse-buffers",
    "relax-dce",
    "relax-to-non-dataflow",
    "relax-call-tir-rewrite",
    "relax-plan-memory",
    "relax-vm-memory-lower",
    "relax-vm-shape-lower",
    "relax-codegen-vm",
)


@dataclass(frozen=True)
class RelaxToVMPass(PipelinePass):
    """Compile relax functions to ``vm.func`` (legalization, memory, shapes, codegen);
    ``kernels`` is the kernel backend the kernels are built for
    (``relax-legalize-ops{kernels=...}``)."""

    name = "relax-to-vm"

    kernels: str = "numpy"

    def passes(self) -> list[ModulePass]:
        legalize = f"relax-legalize-ops{{kernels={self.kernels}}}"
        return parse_passes(
            ",".join(legalize if p == "relax-legalize-ops" else p for p in DEFAULT_PIPELINE)
        )
