"""xrelax: Relax, the dynamic-shape IR of Apache TVM, on xDSL.

The Python API (docs/design.md §8)::

    import xrelax
    m = xrelax.parse(text)                        # a verified builtin.module
    m = xrelax.apply(m, "relax-normalize")        # run a pipeline string
    print(xrelax.print_module(m))
    out = xrelax.interpret(m, "main", x, w)       # reference interpreter on numpy
    exe = xrelax.compile(m)                       # default pipeline -> Executable
    out = xrelax.VirtualMachine(exe)["main"](x, w)

    @xrelax.register_func("my.packed")            # user packed function for call_packed
    def my_packed(t): ...

    @xrelax.register_pass                          # a user pass, usable by name
    @dataclass(frozen=True)
    class MyPass(ModulePass): name = "my-pass"; ...
    m = xrelax.apply(m, ["relax-normalize", MyPass(), "cse"],
                     instrumentation=xrelax.Instrumentation(print_after_all=True))

Building IR: :class:`BlockBuilder`, the operator functions of :mod:`xrelax.op`
(``bb.emit(op.matmul(x, w))``), and EmitTE (``bb.emit_te(f, x)``) with
:mod:`xrelax.te` and the compute library :mod:`xrelax.topi`.

Errors are :class:`CompileError` whose message is the located one-line diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from xrelax.dialects.ir.diagnostics import CompileError

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

    from xrelax.backends.vm import Executable
    from xrelax.transforms.pass_manager import Instrumentation, Pipeline

_CONTEXT: Context | None = None


def context() -> Context:
    """The shared xDSL context with every xrelax dialect registered."""
    global _CONTEXT
    if _CONTEXT is None:
        from xrelax.ops.registry import make_context

        _CONTEXT = make_context()
    return _CONTEXT


def parse(text: str, name: str = "<string>") -> ModuleOp:
    """Parse and verify a module; raises :class:`CompileError`."""
    from xrelax.dialects.ir.diagnostics import IRError, op_diagnostic, parse_source, verify_module

    module = parse_source(context(), text, name)
    try:
        verify_module(module)
    except IRError as err:
        raise CompileError(op_diagnostic(err.op, err.message)) from None
    return module


def apply(
    module: ModuleOp,
    pipeline: Pipeline,
    instrumentation: Instrumentation | None = None,
    verify_each: bool = True,
) -> ModuleOp:
    """Run ``pipeline`` on ``module`` in place; returns it.

    ``pipeline`` is a pipeline string (``"relax-normalize,cse{...}"``) or a list mixing
    such strings, pass instances and pass classes; names include the passes users
    registered (:func:`register_pass`). ``instrumentation`` prints the IR around
    passes and records their timings, as relax-opt's ``--print-ir-after-all`` and
    ``--time-passes`` do. The IR is verified after every pass (``verify_each``), or
    once at the end; when that final check fails, the pipeline is run again on a copy
    of the input with every pass verified, to name the pass at fault.
    """
    return _apply(
        module, pipeline, instrumentation, verify_each, None if verify_each else module.clone()
    )


def _apply(
    module: ModuleOp,
    pipeline: Pipeline,
    instrumentation: Instrumentation | None,
    verify_each: bool,
    original: Callable[[], ModuleOp | None],
) -> ModuleOp:
    """:func:`apply`; ``original()`` (a module equal to the input) is compiled again with
    every pass verified when only the final verification fails."""
    from xrelax.dialects.ir.diagnostics import Diagnostic
    from xrelax.transforms.pass_manager import (
        PIPELINE_END,
        PassFailure,
        PipelineError,
        resolve_pipeline,
        run_passes,
    )

    try:
        passes = resolve_pipeline(pipeline)
        try:
            run_passes(context(), module, passes, instrumentation, verify_each=verify_each)
        except PassFailure as failure:
            again = original() if failure.pass_name == PIPELINE_END else None
            if again is None:
                raise
            run_passes(context(), again, passes)
            raise
    except PipelineError as err:
        raise CompileError(Diagnostic("error", str(err))) from None
    except PassFailure as failure:
        raise CompileError(failure.diagnostic()) from None
    return module


def compile(  # noqa: A001
    module: ModuleOp,
    pipeline: Pipeline = "relax-to-vm",
    instrumentation: Instrumentation | None = None,
    verify_each: bool = False,
    params: Mapping[str, Any] | None = None,
    kernels: str | None = None,
) -> Executable:
    """Compile ``module`` (left unchanged) with ``pipeline`` (as :func:`apply` takes
    it) into a VM ``Executable``. The IR is verified once, after the pipeline
    (``verify_each=True``: after every pass, as ``relax-opt`` does).

    ``params`` (name -> array, e.g. an importer's ``imported.params``) binds those
    parameters of ``main`` as constants first (``relax-bind-params``): folding then
    precomputes what depends only on them, and ``main`` no longer takes them.

    ``kernels`` (``numpy`` or ``native``; default ``$XRELAX_KERNELS``, else ``numpy``)
    is the kernel backend the default pipeline builds the kernels for
    (``relax-to-vm{kernels=...}``): the executable runs on either, faster on that one."""
    import xrelax.backends.vm.safety_net  # noqa: F401 - the safety-net kernels the executable may call
    from xrelax.backends.native import kernel_backend
    from xrelax.backends.vm.assembler import assemble

    if pipeline == "relax-to-vm":
        pipeline = f"relax-to-vm{{kernels={kernel_backend(kernels)}}}"

    def prepared() -> ModuleOp:
        copy = module.clone()
        if params:
            from xrelax.dialects.ir.diagnostics import IRError, op_diagnostic
            from xrelax.transforms.bind_params import bind_params

            try:
                bind_params(copy, params)
            except IRError as err:
                raise CompileError(op_diagnostic(err.op, err.message)) from None
        return copy

    lowered = _apply(prepared(), pipeline, instrumentation, verify_each, prepared)
    return assemble(lowered)


def register_pass(pass_class: type) -> type:
    """Make a ``ModulePass`` class usable by its ``name`` in pipelines (relax-opt
    ``-p``, :func:`apply`); a decorator. See ``docs/writing-a-pass.md``."""
    from xrelax.transforms import register_pass as register

    return register(pass_class)


def load_pass_plugin(path: str) -> list[str]:
    """Run a Python file that registers passes (as ``--load-pass-plugin`` does);
    returns their names."""
    from xrelax.transforms import load_pass_plugin as load

    return load(path)


def interpret(module: ModuleOp, entry: str, *args: Any) -> Any:
    """Run relax function ``entry`` with the reference interpreter (numpy arrays in/out)."""
    from xrelax.backends.interpreter import interpret as run

    return run(module, entry, *args)


def print_module(module: ModuleOp, generic: bool = False) -> str:
    """The textual form of ``module`` (``generic=True``: MLIR's generic op form)."""
    from io import StringIO

    from xdsl.printer import Printer

    stream = StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    stream.write("\n")
    return stream.getvalue()


def __getattr__(name: str) -> Any:
    if name == "BlockBuilder":
        from xrelax.frontend.block_builder import BlockBuilder

        return BlockBuilder
    if name == "Instrumentation":
        from xrelax.transforms.pass_manager import Instrumentation

        return Instrumentation
    if name in ("op", "topi"):
        from importlib import import_module

        return import_module(f"xrelax.{name}")
    if name == "te":
        from xrelax.ops import te

        return te
    if name in ("VirtualMachine", "register_func", "Executable", "ExecBuilder", "VMError"):
        from xrelax.backends import vm

        if name == "VirtualMachine":
            import xrelax.backends.vm.safety_net  # noqa: F401 - safety-net kernels for executables
        return getattr(vm, name)
    raise AttributeError(f"module 'xrelax' has no attribute '{name}'")


__all__ = [
    "BlockBuilder",
    "CompileError",
    "Executable",
    "Instrumentation",
    "VMError",
    "VirtualMachine",
    "apply",
    "compile",
    "context",
    "interpret",
    "load_pass_plugin",
    "op",
    "parse",
    "print_module",
    "register_func",
    "register_pass",
    "te",
    "topi",
]
