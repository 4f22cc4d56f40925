"""Passes over relax/tir/vm IR, one module per pass, and the pass registry."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

from xrelax.transforms.plugins import PluginError, load_python_file

# Where each pass xrelax defines lives, by name, so that a pipeline imports only the
# passes it runs (importing them all costs seconds of start-up). The name a pass answers
# to is its class's ``name``: loading checks that the key is that name.
_PROJECT_PASSES: dict[str, str] = {
    "relax-normalize": "xrelax.transforms.normalize:NormalizePass",
    "relax-refine-shapes": "xrelax.transforms.refine_shapes:RefineShapesPass",
    "relax-legalize-ops": "xrelax.transforms.legalize_ops:LegalizeOpsPass",
    "relax-fold-constant": "xrelax.transforms.fold_constant:FoldConstantPass",
    "relax-bind-params": "xrelax.transforms.bind_params:BindParamsPass",
    "relax-convert-layout": "xrelax.transforms.convert_layout:ConvertLayoutPass",
    "relax-fuse-ops": "xrelax.transforms.fuse_ops:FuseOpsPass",
    "relax-fuse-tir": "xrelax.transforms.fuse_tir:FuseTIRPass",
    "tir-inline-copies": "xrelax.transforms.tir_inline_copies:InlineCopiesPass",
    "tir-reuse-buffers": "xrelax.transforms.tir_reuse_buffers:ReuseBuffersPass",
    "tir-materialize-windows": "xrelax.backends.native.windows:MaterializeWindowsPass",
    "tir-sink-output-loops": "xrelax.backends.native.reduction_order:SinkOutputLoopsPass",
    "tir-parallelize": "xrelax.backends.native.parallelize:MarkParallelLoopsPass",
    "tir-to-llvm": "xrelax.backends.native.tir_to_llvm:TirToLlvmPass",
    "relax-pack-weights": "xrelax.transforms.pack_weights:PackWeightsPass",
    "relax-dce": "xrelax.transforms.relax_dce:RelaxDCEPass",
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


def _lazy(name: str, target: str) -> Callable[[], type[ModulePass]]:
    module, _, cls = target.partition(":")

    def load() -> type[ModulePass]:
        pass_class = getattr(import_module(module), cls)
        if pass_class.name != name:
            raise LookupError(f"{target} is named '{pass_class.name}', registered as '{name}'")
        return pass_class

    return load


def _xdsl(name: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        from xdsl.transforms import get_all_passes

        return get_all_passes()[name]()

    return load


def project_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes xrelax defines, by CLI name, as lazy factories."""
    return {name: _lazy(name, target) for name, target in _PROJECT_PASSES.items()}


# CLI name -> the pass classes users registered (register_pass, pass plugins).
_USER_PASSES: dict[str, type[ModulePass]] = {}


def register_pass(pass_class: type[ModulePass]) -> type[ModulePass]:
    """Make a ``ModulePass`` class available to pipelines by its ``name`` (relax-opt
    ``-p``, ``xrelax.apply``); returns the class, so it also serves as a decorator.

    A name of a built-in pass, or of another class already registered, is an error;
    registering a class of the same module and qualified name again (a file loaded
    twice, a re-run notebook cell) replaces it.
    """
    if not (isinstance(pass_class, type) and issubclass(pass_class, ModulePass)):
        raise TypeError(f"register_pass expects a ModulePass subclass, got {pass_class!r}")
    name = getattr(pass_class, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"pass class {pass_class.__qualname__} has no name (set name = '...')")
    if name in _PROJECT_PASSES or name in _XDSL_PASSES:
        raise ValueError(f"pass '{name}' is already registered (a built-in pass)")
    existing = _USER_PASSES.get(name)
    if existing is not None and _origin(existing) != _origin(pass_class):
        raise ValueError(f"pass '{name}' is already registered by {_origin(existing)}")
    _USER_PASSES[name] = pass_class
    return pass_class


def _origin(pass_class: type) -> str:
    return f"{pass_class.__module__}.{pass_class.__qualname__}"


def user_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes users registered, by name, as factories."""
    return {name: (lambda cls=cls: cls) for name, cls in _USER_PASSES.items()}


def load_pass_plugin(path: str) -> list[str]:
    """Run the Python file ``path``, which registers passes (``@xrelax.register_pass``);
    returns their names. A file that fails, or registers nothing, is a
    :class:`~xrelax.transforms.plugins.PluginError` with a one-line message."""
    before = dict(_USER_PASSES)
    load_python_file(path, "pass plugin")
    added = [name for name, cls in _USER_PASSES.items() if before.get(name) is not cls]
    if not added:
        raise PluginError(
            f"pass plugin '{path}' registers no pass (decorate a ModulePass class with "
            "@xrelax.register_pass)"
        )
    return added


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Our passes, the upstream cleanups (canonicalize, cse, dce), and the user's."""
    return {
        **project_passes(),
        **{name: _xdsl(name) for name in _XDSL_PASSES},
        **user_passes(),
    }
