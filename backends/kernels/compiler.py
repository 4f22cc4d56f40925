"""Compiling ``tir.prim_func``s to kernels: code generation, the cache, ``load_library``.

The generated function has three parts: the entry (:mod:`signature`: a checked one
calling an unchecked one), then each
top-level op in order: a loop nest (or a store outside any loop) vectorized
(:mod:`vectorize`) or, when not recognised, run as a scalar loop nest
(:mod:`scalar`); any other op computed once as a scalar. Kernels are cached by the
prim_func's printed text with its name normalised, so identical prim_funcs share
one compiled function.
"""

from __future__ import annotations

import itertools
import linecache
import os
import sys
from io import StringIO

import numpy as np
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.math import Math
from xdsl.ir import Operation, SSAValue
from xdsl.printer import Printer

from xrelax.backends import buffer_pool
from xrelax.backends.kernels import runtime
from xrelax.backends.kernels.buffers import Buffer
from xrelax.backends.kernels.kernel import CompiledKernel, Kernel, KernelPath
from xrelax.backends.kernels.local_buffers import plan_local_buffers
from xrelax.backends.kernels.nest import NotVectorizable, read_nest
from xrelax.backends.kernels.scalar import ScalarEmitter, pooled_size
from xrelax.backends.kernels.signature import (
    emit_bindings,
    emit_checks,
    emit_contiguity,
    parameter_names,
)
from xrelax.backends.kernels.source import GLOBAL_NAMES, Source
from xrelax.backends.kernels.tree import Scalar
from xrelax.backends.kernels.vectorize import vectorize_nest
from xrelax.backends.vm.assembler import AssembledKernels
from xrelax.backends.vm.executable import Executable
from xrelax.dialects import dtypes
from xrelax.dialects.dims import Sym
from xrelax.dialects.ir.diagnostics import LocatingParser, verify_module
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import AllocBufferOp, ForOp, PrimFuncOp, StoreOp, Tir

DEBUG_ENV = "XRELAX_KERNEL_DEBUG"
"""Set to ``1`` to print, for each compiled kernel, which path each store took."""

_COMPILED: dict[str, CompiledKernel] = {}
_KERNELS: dict[tuple[str, str], Kernel] = {}
_LIBRARIES: dict[str, dict[str, Kernel]] = {}
_file_ids = itertools.count()


def compile_prim_func(func: PrimFuncOp, *, vectorize: bool = True) -> Kernel:
    """The kernel of ``func``: ``kernel(*buffers, *sym_ints)`` writes the outputs in place.

    ``vectorize=False`` runs every loop nest as scalar loops (to compare against).
    """
    name = func.sym_name.data
    stream = StringIO()
    Printer(stream=stream).print_op(func)
    key = stream.getvalue().replace(f"@{name}(", "@kernel(", 1)
    if not vectorize:
        key = "scalar " + key
    kernel = _KERNELS.get((name, key))
    if kernel is None:
        compiled = _COMPILED.get(key)
        if compiled is None:
            compiled = _COMPILED[key] = _generate(func, vectorize)
        kernel = _KERNELS[(name, key)] = Kernel(compiled, name)
    if os.environ.get(DEBUG_ENV) == "1":
        for path in kernel.paths:
            print(f"[xrelax.kernels] @{name} {path}", file=sys.stderr)
    return kernel


def load_library(mlir_text: str) -> dict[str, Kernel]:
    """Parse a module of ``tir.prim_func``s and compile each, by name (the same text is
    parsed once)."""
    if mlir_text not in _LIBRARIES:
        _LIBRARIES[mlir_text] = _load(mlir_text)
    return dict(_LIBRARIES[mlir_text])


def load_executable_kernels(exe: Executable) -> dict[str, Kernel]:
    """The kernels of an ``Executable``: its in-memory ``tir.prim_func`` ops when it was
    assembled in this process (no printing and re-parsing), else its library text."""
    if isinstance(exe.unprinted, AssembledKernels):
        return {op.sym_name.data: compile_prim_func(op) for op in exe.unprinted.ops}
    return load_library(exe.library) if exe.library else {}


def _load(mlir_text: str) -> dict[str, Kernel]:
    ctx = Context()
    for dialect in (Builtin, Sym, Tir, Arith, Math):
        ctx.load_dialect(dialect)
    module = LocatingParser(ctx, mlir_text, "<kernel library>").parse_module()
    verify_module(module)
    return {
        op.sym_name.data: compile_prim_func(op)
        for op in module.body.block.ops
        if isinstance(op, PrimFuncOp)
    }


_GLOBALS = {
    "np": np,
    "ndarray": np.ndarray,
    "rt": runtime,
    "pool": buffer_pool,
    "FP_STATE": runtime.FP_STATE,
    "FP_IGNORE": runtime.FP_IGNORE,
}
assert _GLOBALS.keys() == GLOBAL_NAMES, "source.GLOBAL_NAMES names the kernels' globals"


def _generate(func: PrimFuncOp, vectorize: bool) -> CompiledKernel:
    src = Source()
    kname = src.kernel_name
    function = src.fresh("kernel")
    unchecked = src.fresh("kernel_unchecked")
    params = parameter_names(src, func)
    paths: list[KernelPath] = []
    with src.indented(f"def {unchecked}({', '.join([kname, *params.all])}):"):
        entry = emit_bindings(src, func, params)
        buffers = entry.buffers
        values: dict[SSAValue, str] = {}
        pooled = None
        if any(
            isinstance(op, AllocBufferOp) and pooled_size(op.buffer.type) is not None
            for op in func.body.block.ops
        ):
            pooled = src.fresh("pooled")
            src.line(f"{pooled} = []")
        scalar = ScalarEmitter(src, kname, buffers, values, plan_local_buffers(func), pooled)
        token = src.fresh("fp_errors")
        src.line(f"{token} = FP_STATE.set(FP_IGNORE)")
        with src.indented("try:"):
            nests = itertools.count()
            for op in func.body.block.ops:
                if isinstance(op, ForOp | StoreOp):
                    paths += _nest(src, op, buffers, scalar, kname, next(nests), vectorize)
                else:
                    scalar.op(op, {})
        with src.indented("finally:"):
            src.line(f"FP_STATE.reset({token})")
            if pooled is not None:
                with src.indented(f"if {pooled}:"):
                    src.line(f"pool.give_all({pooled})")
        for line in emit_contiguity(src, entry):
            src.line(line)
    with src.indented(f"def {function}({kname}, *args):"):
        emit_checks(src, func, kname, params)
        src.line(f"{unchecked}({', '.join([kname, *params.all])})")
    text = src.text()
    filename = f"<xrelax-kernel-{next(_file_ids)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {**_GLOBALS, **src.namespace}
    exec(compile(text, filename, "exec"), namespace)
    return CompiledKernel(
        namespace[function],
        namespace[unchecked],
        text,
        tuple(paths),
        len(func.body.block.args),
        tuple(func.sym_param_names),
    )


def _nest(
    src: Source,
    op: Operation,
    buffers: dict[SSAValue, Buffer],
    scalar: ScalarEmitter,
    kname: str,
    index: int,
    vectorize: bool,
) -> list[KernelPath]:
    def outer(value: SSAValue) -> Scalar:
        return Scalar(dtypes.numpy_dtype(value.type), scalar.values[value])

    try:
        if not vectorize:
            raise NotVectorizable("vectorize=False")
        lets = {var: Scalar(np.dtype(np.int64), name) for var, name in scalar.top_lets.items()}
        nest = read_nest([op], outer, lets)
        return [
            KernelPath(index, _describe(s.buffer, s.indices, buffers), p.path, p.detail)
            for p in vectorize_nest(src, nest, buffers, kname)
            for s in (p.statement,)
        ]
    except NotVectorizable as reason:
        scalar.op(op, {})
        stores = [s for s in op.walk() if isinstance(s, StoreOp)]
        return [
            KernelPath(index, _describe(s.buffer, s.indices.data, buffers), "scalar", str(reason))
            for s in stores
        ]


def _describe(buffer: SSAValue, indices: tuple, buffers: dict[SSAValue, Buffer]) -> str:
    label = buffers[buffer].label if buffer in buffers else buffer.name_hint or "?"
    return f"%{label}[{', '.join(symbolic.format_expr(i) for i in indices)}]"
