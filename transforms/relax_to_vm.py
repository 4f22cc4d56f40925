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

NATIVE_LAYOUT_PASSES = ("relax-convert-layout", "relax-fold-constant")
"""What ``relax-to-vm{kernels=native}`` runs after the first ``relax-fold-constant``."""


@dataclass(frozen=True)
class RelaxToVMPass(PipelinePass):
    """Compile relax functions to ``vm.func`` (legalization, memory, shapes, codegen);
    ``kernels`` is the kernel backend the kernels are built for
    (``relax-legalize-ops{kernels=...}``; for ``native``, convolutions with constant
    weights also go channels-last, :data:`NATIVE_LAYOUT_PASSES`, and the constants the
    register tiles stream are packed in panels, ``relax-pack-weights``)."""

    name = "relax-to-vm"

    kernels: str = "numpy"

    def passes(self) -> list[ModulePass]:
        legalize = f"relax-legalize-ops{{kernels={self.kernels}}}"
        names = [legalize if p == "relax-legalize-ops" else p for p in DEFAULT_PIPELINE]
        if self.kernels == "native":
            # Channels-last convolutions (constant weights only): the native kernels
            # tile them along the channels, depthwise ones included; fold the weights'
            # permutes again.
            at = names.index("relax-fold-constant") + 1
            names[at:at] = NATIVE_LAYOUT_PASSES
            # The constants the register tiles stream, packed into panels.
            names.insert(names.index("relax-dce"), "relax-pack-weights")
        return parse_passes(",".join(names))
