"""Passes over relax/tir/vm IR, one module per pass, and the pass registry."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

# CLI name -> "module:class" of each pass xrelax defines.
_PROJECT_PASSES: dict[str, str] = {
    "relax-normalize": "xrelax.transforms.normalize:NormalizePass",
    "relax-refine-shapes": "xrelax.transforms.refine_shapes:RefineShapesPass",
    "relax-legalize-ops": "xrelax.transforms.legalize_ops:LegalizeOpsPass",
    "relax-fold-constant": "xrelax.transforms.fold_constant:FoldConstantPass",
    "relax-fuse-ops": "xrelax.transforms.fuse_ops:FuseOpsPass",
    "relax-fuse-tir": "xrelax.transforms.fuse_tir:FuseTIRPass",
    "tir-inline-copies": "xrelax.transforms.tir_inline_copies:InlineCopiesPass",
    "relax-to-non-dataflow": "xrelax.transforms.to_non_dataflow:ToNonDataflowPass",
    "relax-call-tir-rewrite": "xrelax.transforms.call_tir_rewrite:CallTIRRewritePass",
    "relax-plan-memory": "xrelax.transforms.plan_memory:PlanMemoryPass",
    "relax-vm-memory-lower": "xrelax.transforms.vm_memory_lower:VMMemoryLowerPass",
    "relax-vm-shape-lower": "xrelax.transforms.vm_shape_lower:VMShapeLowerPass",
    "relax-codegen-vm": "xrelax.transforms.codegen_vm:CodegenVMPass",
    "relax-to-vm": "xrelax.transforms.relax_to_vm:RelaxToVMPass",
}

# Upstream xDSL passes that work on relax IR.
_XDSL_PASSES = ("canonicalize", "cse", "dce")


def _lazy(target: str) -> Callable[[], type[ModulePass]]:
    module, _, cls = target.partition(":")

    def load() -> type[ModulePass]:
        return getattr(import_module(module), cls)

    return load


def _xdsl(name: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        from xdsl.transforms import get_all_passes

        return get_all_passes()[name]()

    return load


def project_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes xrelax defines, by CLI name, as lazy factories."""
    return {name: _lazy(target) for name, target in _PROJECT_PASSES.items()}


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Our passes plus the upstream cleanups (canonicalize, cse, dce)."""
    return {**project_passes(), **{name: _xdsl(name) for name in _XDSL_PASSES}}
