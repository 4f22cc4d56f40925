"""Native kernels: a prim_func lowered by ``tir-to-llvm`` and JIT-compiled, wrapped as a
:class:`~xrelax.backends.kernels.Kernel` with the numpy kernels' calling convention.

The wrapper's checked entry is the numpy kernel's (:mod:`..kernels.signature`: the
same checks, the same :class:`KernelError` messages); its unchecked entry binds the
symbolic variables from the shapes, makes the buffers C-contiguous (an output is
computed in a contiguous copy and copied back) and calls the machine code with the
buffers' addresses and the variables. When the machine code reports a failed
``tir.assert``, the numpy kernel runs on the same arguments and raises its error.

A float32 contraction runs in register tiles (:mod:`.register_tiles`) where its form
allows; a prim_func keeps the numpy kernel when the lowering does not cover it
(:class:`~xrelax.backends.native.tir_to_llvm.NotLowerable`), and the numpy kernel's
BLAS call for a nest it hands to BLAS (a ``matmul`` or ``einsum`` path) that does not
tile, which naive loops would not match. ``Kernel.paths`` says which, as
``XRELAX_KERNEL_DEBUG=1`` prints.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import os
import sys
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import numpy as np
import sympy
from cffi import FFI
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.math import Math
from xdsl.ir import Block
from xdsl.printer import Printer

from xrelax.backends.kernels import compiler as numpy_kernels
from xrelax.backends.kernels import runtime
from xrelax.backends.kernels.contraction import MATRIX_VECTOR
from xrelax.backends.kernels.kernel import CompiledKernel, DirectEntry, Kernel, KernelPath
from xrelax.backends.kernels.signature import (
    Parameters,
    emit_bindings,
    emit_checks,
    emit_contiguity,
    parameter_names,
)
from xrelax.backends.kernels.source import Source
from xrelax.backends.native import (
    blas_threads,
    padding,
    register_tiles,
)
from xrelax.backends.native.jit import jit
from xrelax.backends.native.tir_to_llvm import (
    NotLowerable,
    check_lowerable,
    lower_module,
    signature_vars,
)
from xrelax.backends.vm.assembler import AssembledKernels
from xrelax.backends.vm.executable import Executable
from xrelax.dialects import dtypes
from xrelax.dialects.dims import Sym
from xrelax.dialects.ir.diagnostics import LocatingParser, verify_module
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import AllocBufferOp, ForOp, LoadOp, PrimFuncOp, StoreOp, Tir

__all__ = ["compile_prim_func", "load_executable_kernels", "load_library"]

_FFI = FFI()
_LOWERING_VERSION = hashlib.sha256(
    b"".join(path.read_bytes() for path in sorted(Path(__file__).parent.glob("*.py")))
).hexdigest()
"""Part of the cache key of the machine code: the source of every module of the native
backend (the lowering, the padded copies it makes, the loops it splits between threads,
the inline math, the JIT's IR emission), so that a changed lowering never loads code an
earlier one made (a list of modules missed one added later)."""
_BLAS_PATHS = ("matmul", "einsum")
_COMPILED: dict[str, CompiledKernel] = {}
_KERNELS: dict[tuple[str, str], Kernel] = {}
_LIBRARIES: dict[str, dict[str, Kernel]] = {}


def compile_prim_func(func: PrimFuncOp) -> Kernel:
    """The native kernel of ``func`` (or its numpy kernel where the native path does not
    apply): ``kernel(*buffers, *sym_ints)`` writes the outputs in place."""
    name = func.sym_name.data
    stream = StringIO()
    Printer(stream=stream).print_op(func)
    key = stream.getvalue().replace(f"@{name}(", "@kernel(", 1)
    kernel = _KERNELS.get((name, key))
    if kernel is None:
        compiled = _COMPILED.get(key)
        if compiled is None:
            compiled = _COMPILED[key] = _generate(func, key)
        kernel = _KERNELS[(name, key)] = Kernel(compiled, name)
    if os.environ.get(numpy_kernels.DEBUG_ENV) == "1":
        for path in kernel.paths:
            print(f"[xrelax.kernels] @{name} {path}", file=sys.stderr)
    return kernel


def load_library(mlir_text: str) -> dict[str, Kernel]:
    """Parse a module of ``tir.prim_func``s and compile each, by name."""
    if mlir_text not in _LIBRARIES:
        ctx = Context()
        for dialect in (Builtin, Sym, Tir, Arith, Math):
            ctx.load_dialect(dialect)
        module = LocatingParser(ctx, mlir_text, "<kernel library>").parse_module()
        verify_module(module)
        _LIBRARIES[mlir_text] = {
            op.sym_name.data: compile_prim_func(op)
            for op in module.body.block.ops
            if isinstance(op, PrimFuncOp)
        }
    return dict(_LIBRARIES[mlir_text])


def load_executable_kernels(exe: Executable) -> dict[str, Kernel]:
    """The native kernels of an ``Executable`` (as the numpy backend's function)."""
    if isinstance(exe.unprinted, AssembledKernels):
        return {op.sym_name.data: compile_prim_func(op) for op in exe.unprinted.ops}
    return load_library(exe.library) if exe.library else {}


SMALL_CONTRACTION = 65536
"""Contractions of at most this many multiply-adds run as native loops, larger ones on
BLAS. numpy's BLAS call costs about 3.5 us before any work where a native call costs
1.3; the native loops then do about 16 multiply-adds a nanosecond on one core against
BLAS's 50, so they break even near 60,000 (docs/performance.md)."""


def _generate(func: PrimFuncOp, key: str) -> CompiledKernel:
    fallback = numpy_kernels.compile_prim_func(func).compiled
    nests = _nests(func.body.block)
    blas = {
        p.nest
        for p in fallback.paths
        if p.path in _BLAS_PATHS and MATRIX_VECTOR not in p.detail and _reuses(nests[p.nest])
    }
    tiled = _tiled(func)
    # Tiles whose rows are a symbolic batch: one row is a vector-matrix product, which
    # BLAS streams faster (0.07 against 0.10 ms for a [1, 1280] x [1280, 1000]
    # classifier); two or more run in tiles (0.17 against 0.24 ms). An operand packed in
    # panels (relax-pack-weights) is streamed as fast by the tiles, and BLAS would read
    # it through a copy: 0.2 against 1.5 ms for a [1, 768] x [768, 3072] product.
    batched = {
        i: sympy.sympify(plan.row.upper)
        for i, plan in tiled.items()
        if i in blas and not sympy.sympify(plan.row.upper).is_Integer and not plan.packed
    }
    if not batched:
        return _compose(func, key, fallback, blas, set(tiled))
    rows = sympy.Min(*batched.values())
    return _by_size(
        func,
        rows,
        1,
        _compose(func, key, fallback, blas, set(tiled) - set(batched)),
        lambda: _compose(func, key, fallback, blas, set(tiled)),
        f"{rows} rows: BLAS for one, else register tiles",
    )


def _compose(
    func: PrimFuncOp, key: str, fallback: CompiledKernel, blas: set[int], tiled: set[int]
) -> CompiledKernel:
    """The kernel of ``func`` with the nests numbered ``tiled`` in register tiles, the
    other ``blas`` nests on BLAS or native loops (by size), the rest native."""
    if not blas - tiled:
        try:
            return _native(func, key, len(tiled))
        except NotLowerable as reason:
            if not blas:
                return _with_note(fallback, func, f"native: {reason}")
            return _hybrid(func, blas, fallback, tiled - blas)
    blas = blas - tiled
    work = _contraction_work(func, blas)
    if _at_unit_sizes(work) > SMALL_CONTRACTION or not _static_within(func, blas):
        return _hybrid(func, blas, fallback, tiled)
    try:
        small = _native(func, key, len(tiled))
    except NotLowerable:
        return _hybrid(func, blas, fallback, tiled)
    if work.is_Integer:
        return small
    return _by_size(
        func,
        work,
        SMALL_CONTRACTION,
        small,
        lambda: _hybrid(func, blas, fallback, tiled),
        f"{work} multiply-adds: native up to {SMALL_CONTRACTION}, else BLAS",
    )


def _tiled(func: PrimFuncOp) -> dict[int, register_tiles.TilePlan]:
    """The nests that the lowering runs in register tiles (:mod:`.register_tiles`): by
    number, their plans."""
    nests = _nests(func.body.block)
    tiled = {}
    for index, nest in enumerate(nests):
        if isinstance(nest, ForOp):
            plan = register_tiles.plan_tiles(nest, padding.materialized_loads(nest))
            if plan is not None:
                tiled[index] = plan
    return tiled


def _reuses(nest: ForOp | StoreOp) -> bool:
    """Whether some operand of the contraction ``nest`` is read for several output
    elements (it does not depend on every variable of the output's indices), as a
    product's operands are; a sum of element-wise products (a variance's sum of squares,
    einsum ``ij,ij->i``) reads each element once, and native loops stream it as fast
    as BLAS does, without the call and the copy (BERT-base's layer norm: 144 -> 70 us)."""
    stores = [op for op in nest.walk() if isinstance(op, StoreOp)]
    if not stores:
        return False
    output, element = {op.buffer for op in stores}, _variables(stores[-1])
    loads = [op for op in nest.walk() if isinstance(op, LoadOp) and op.buffer not in output]
    return any(not element <= _variables(op) for op in loads)


def _variables(op: LoadOp | StoreOp) -> set[str]:
    """The variables the indices of ``op`` use."""
    return set().union(*(symbolic.free_vars(sympy.sympify(i)) for i in op.indices.data))


def _nests(block: Block) -> list[ForOp | StoreOp]:
    """The top-level nests of a prim_func's body (a store outside any loop is one), in
    the order the numpy kernel numbers them."""
    return [op for op in block.ops if isinstance(op, ForOp | StoreOp)]


def _at_unit_sizes(work: sympy.Expr) -> int:
    """``work`` with every symbolic size 1 (a batch of one: the least a call does)."""
    return symbolic.evaluate(work, dict.fromkeys(symbolic.free_vars(work), 1))


def _contraction_loops(func: PrimFuncOp, blas: set[int]) -> list[list[ForOp]]:
    """The loops of each nest numbered ``blas`` (outermost first)."""
    nests = _nests(func.body.block)
    return [[op for op in nests[index].walk() if isinstance(op, ForOp)] for index in blas]


def _static_within(func: PrimFuncOp, blas: set[int]) -> bool:
    """Whether every loop of the nests numbered ``blas`` but the outermost (a batch) has
    a static extent: the native loops of a contraction vectorize along rows of static
    length (:mod:`.reduction_order`); over rows of a symbolic length LLVM's vector loop
    needs more iterations than a small image's row has, and the loops run scalar (a 1x1
    convolution over a symbolic 8x8 image: 56 us native, 5 us in BLAS)."""
    return all(
        (loop.upper - loop.lower).is_Integer
        for loops in _contraction_loops(func, blas)
        for loop in loops[1:]
    )


def _contraction_work(func: PrimFuncOp, blas: set[int]) -> sympy.Expr:
    """The multiply-adds of the nests numbered ``blas``: the product of the extents of
    the loops of each (more than that where a nest has loops side by side)."""
    work = sympy.Add(
        *(
            sympy.Mul(*(loop.upper - loop.lower for loop in loops))
            for loops in _contraction_loops(func, blas)
        )
    )
    return sympy.expand(work)


def _counter(func: PrimFuncOp, size: sympy.Expr) -> Callable[[tuple], int] | None:
    """``size`` (an expression of ``func``'s symbolic sizes) at a call's buffers, read
    from their shapes; None where a size is not a whole dimension of a buffer."""
    where = {name: f"args[{k}].shape[{d}]" for name, (k, d) in _dimension_sites(func).items()}
    if not symbolic.free_vars(size) <= where.keys():
        return None
    return eval(f"lambda args: {symbolic.to_python(size, where)}")  # noqa: S307 - generated from the prim_func's sizes


def _dimension_sites(func: PrimFuncOp) -> dict[str, tuple[int, int]]:
    """Each symbolic variable that is a whole dimension of a buffer, at its first such
    dimension: ``(buffer, dimension)``, where the kernels bind it."""
    sites: dict[str, tuple[int, int]] = {}
    for k, type_ in enumerate(func.buffer_types):
        for d, dim in enumerate(type_.dims):
            if dim.is_Symbol:
                sites.setdefault(dim.name, (k, d))
    return sites


def _by_size(
    func: PrimFuncOp,
    size: sympy.Expr,
    bound: int,
    small: CompiledKernel,
    large: Callable[[], CompiledKernel],
    note: str,
) -> CompiledKernel:
    """One kernel that runs ``small`` when ``size`` (an expression of the symbolic
    sizes) is at most ``bound`` at the call's sizes, else ``large`` (made at its first
    call). The sizes are read from the buffers' shapes."""
    count = _counter(func, size)
    if count is None:
        return large()
    made: list[CompiledKernel] = []

    def pick(args: tuple) -> CompiledKernel:
        try:
            is_small = count(args) <= bound
        except (AttributeError, IndexError, TypeError):  # not buffers: the checks say why
            is_small = True
        if is_small:
            return small
        if not made:
            made.append(large())
        return made[0]

    direct = small.direct
    if direct is not None:
        placeholders = {name: f"{{{k}}}" for k, name in enumerate(signature_vars(func))}
        guard = f"{symbolic.to_python(size, placeholders)} <= {bound}"
        if direct.guard is not None:  # a kernel that switches again within
            guard = f"{guard} and ({direct.guard})"
        direct = DirectEntry(direct.function, direct.variables, direct.address, guard)
    return CompiledKernel(
        lambda name, *args: pick(args).function(name, *args),
        lambda name, *args: pick(args).unchecked(name, *args),
        small.source,
        (KernelPath(0, "kernel", "native", note), *small.paths),
        small.buffers,
        small.sym_params,
        direct,
    )


def _native(func: PrimFuncOp, key: str, tiles: int = 0) -> CompiledKernel:
    """The machine code of ``func`` wrapped (:class:`NotLowerable` if it cannot be, or
    if fewer than ``tiles`` of its nests were lowered as register tiles: a contraction
    planned for them and changed by the lowering's own rewrites would run as naive
    loops, far slower than BLAS)."""
    check_lowerable(func)
    symbol = "xrelax_" + hashlib.sha256(key.encode()).hexdigest()[:24]
    # Keyed by the prim_func's text and the lowering's source: a cached kernel (which
    # the lowering once covered) is loaded without lowering it again, and a refusal
    # of the lowering is remembered as well.
    source = f"{_LOWERING_VERSION}\n{key}"
    address = jit().cached(source, symbol)
    if address is None:
        if (refusal := jit().refusal(source)) is not None:
            raise NotLowerable(refusal)
        clone = func.clone()
        clone.sym_name = type(func.sym_name)(symbol)
        module = ModuleOp([clone])
        try:
            if lower_module(module) < tiles:
                raise NotLowerable("a contraction planned for register tiles was not tiled")
        except NotLowerable as reason:
            jit().refuse(source, str(reason))
            raise
        address = jit().address(source, symbol, lambda: jit().ir(module))
    jit().pool.ensure()
    return _wrap(func, address)


def _hybrid(
    func: PrimFuncOp, blas: set[int], fallback: CompiledKernel, tiled: set[int]
) -> CompiledKernel:
    """``func`` as a sequence of kernels: the runs of nests the numpy kernel hands to
    BLAS stay numpy, the runs between are native (the nests numbered ``tiled`` in
    register tiles); local buffers become arrays the entry allocates and passes to
    both."""
    block = func.body.block
    nests = _nests(block)
    runs: list[list[int]] = []
    for index in range(len(nests)):
        if runs and (index in blas) == (runs[-1][0] in blas):
            runs[-1].append(index)
        else:
            runs.append([index])
    if all(run[0] in blas for run in runs):
        return _with_note(fallback, func, "kept for BLAS")
    locals_ = [op for op in block.ops if isinstance(op, AllocBufferOp)]
    parts: list[CompiledKernel] = []
    for run in runs:
        part = _segment(func, set(run), locals_)
        stream = StringIO()
        Printer(stream=stream).print_op(part)
        if run[0] in blas:
            parts.append(_resting(numpy_kernels.compile_prim_func(part).compiled, part))
            continue
        try:
            text = stream.getvalue().replace(f"@{func.sym_name.data}(", "@kernel(", 1)
            parts.append(_native(part, "part " + text, len(tiled & set(run))))
        except NotLowerable as reason:
            numpy_part = numpy_kernels.compile_prim_func(part).compiled
            parts.append(_with_note(numpy_part, part, f"native: {reason}"))
    return _sequence(func, locals_, parts, fallback)


def _segment(func: PrimFuncOp, keep: set[int], locals_: list[AllocBufferOp]) -> PrimFuncOp:
    """A copy of ``func`` with only the nests numbered ``keep`` (and every other top-level
    op), its local buffers as parameters after the original ones."""
    clone = func.clone()
    block = clone.body.block
    nests = _nests(block)
    for op in list(block.ops):
        if isinstance(op, AllocBufferOp):
            arg = block.insert_arg(op.buffer.type, len(block.args))
            arg.name_hint = op.buffer.name_hint
            op.buffer.replace_all_uses_with(arg)
            block.erase_op(op)
    for index, op in enumerate(nests):
        if index not in keep:
            block.erase_op(op)
    assert len(block.args) == len(func.body.block.args) + len(locals_)
    region = clone.detach_region(clone.body)
    return PrimFuncOp(
        func.sym_name.data, [a.type for a in block.args], func.sym_param_names, region
    )


def _sequence(
    func: PrimFuncOp,
    locals_: list[AllocBufferOp],
    parts: list[CompiledKernel],
    fallback: CompiledKernel,
) -> CompiledKernel:
    """One kernel running ``parts`` in order on the parameters and fresh local arrays
    (``fallback``, the numpy kernel, where a written buffer overlaps another)."""
    src = Source()
    kname = src.kernel_name
    function = src.fresh("kernel")
    unchecked = src.fresh("kernel_unchecked")
    params = parameter_names(src, func)
    with src.indented(f"def {unchecked}({', '.join([kname, *params.all])}):"):
        emit_bindings(src, func, params)
        arrays = []
        for op in locals_:
            type_ = op.buffer.type
            name = src.fresh(op.buffer.name_hint or "local")
            shape = "".join(f"{src.py(d)}, " for d in type_.dims)
            dtype = src.dtype(dtypes.numpy_dtype(type_.dtype))
            src.line(f"{name} = np.empty(({shape}), {dtype})")
            arrays.append(name)
        for part in parts:
            entry = src.value("part", part.unchecked)
            src.line(f"{entry}({', '.join([kname, *params.buffers, *arrays, *params.syms])})")
    with src.indented(f"def {function}({kname}, *args):"):
        emit_checks(src, func, kname, params)
        _emit_alias_guard(src, func, kname, params, src.value("numpy_kernel", fallback.unchecked))
        src.line(f"{unchecked}({', '.join([kname, *params.all])})")
    text = src.text()
    namespace = {"np": np, "ndarray": np.ndarray, "rt": runtime, **src.namespace}
    exec(compile(text, f"<xrelax-native-{func.sym_name.data}>", "exec"), namespace)
    return CompiledKernel(
        namespace[function],
        namespace[unchecked],
        "\n".join([text, *(part.source for part in parts)]),
        tuple(path for part in parts for path in part.paths),
        len(func.body.block.args),
        tuple(func.sym_param_names),
    )


def _with_note(compiled: CompiledKernel, func: PrimFuncOp, note: str) -> CompiledKernel:
    """The numpy kernel of ``func``, its paths led by why the native path does not
    apply."""
    path = KernelPath(0, "kernel", "numpy", note)
    compiled = _resting(compiled, func)
    return CompiledKernel(
        compiled.function,
        compiled.unchecked,
        compiled.source,
        (path, *compiled.paths),
        compiled.buffers,
        compiled.sym_params,
    )


def _resting(compiled: CompiledKernel, func: PrimFuncOp) -> CompiledKernel:
    """``compiled``, a numpy kernel of ``func``, whose entries, where it calls BLAS,
    run BLAS on the calling thread for a call of at most
    :data:`.blas_threads.SOLO_WORK` multiply-adds, and otherwise first send the thread
    pool's spinning workers to sleep (:meth:`.parallel.Pool.rest`): the threads of the
    one would wait for the cores the other's spin on."""
    blas = {p.nest for p in compiled.paths if p.path in _BLAS_PATHS}
    if not blas:
        return compiled
    rest = jit().pool.rest
    work = _contraction_work(func, blas)
    count = _counter(func, work)

    def resting(entry: Callable[..., None]) -> Callable[..., None]:
        alone = blas_threads.alone(entry)

        def rested(name: str, *args: object) -> None:
            rest()
            entry(name, *args)

        if work.is_Integer:  # (decided once)
            return alone if int(work) <= blas_threads.SOLO_WORK else rested

        def by_work(name: str, *args: object) -> None:
            try:
                small = count is not None and count(args) <= blas_threads.SOLO_WORK
            except (AttributeError, IndexError, TypeError):  # not buffers: the checks say why
                small = True
            (alone if small else rested)(name, *args)

        return by_work

    return dataclasses.replace(
        compiled, function=resting(compiled.function), unchecked=resting(compiled.unchecked)
    )


def _wrap(func: PrimFuncOp, address: int) -> CompiledKernel:
    """The Python entries around the machine code at ``address``."""
    args = func.body.block.args
    variables = signature_vars(func)
    signature = ", ".join(["void *"] * len(args) + ["int64_t"] * len(variables)) or "void"
    native = _FFI.cast(f"int32_t (*)({signature})", address)
    src = Source()
    kname = src.kernel_name
    function = src.fresh("kernel")
    unchecked = src.fresh("kernel_unchecked")
    params = parameter_names(src, func)
    call = src.value("native", native)
    numpy_entry = src.value("numpy_kernel", _NumpyEntry(func))
    failure = src.value("native_failure", _native_failure)
    with src.indented(f"def {unchecked}({', '.join([kname, *params.all])}):"):
        entry = emit_bindings(src, func, params)
        src.contiguous.update(params.buffers)
        address_of = src.value("address_of", _FFI.from_buffer)
        pointers = [f"{address_of}({name})" for name in params.buffers]
        sizes = [src.bind_symbol(v) for v in variables]
        with src.indented(f"if {call}({', '.join([*pointers, *sizes])}):"):
            src.line(f"{numpy_entry}({', '.join([kname, *params.all])})")
            src.line(f"{failure}({kname})")
        for line in emit_contiguity(src, entry):
            src.line(line)
    with src.indented(f"def {function}({kname}, *args):"):
        emit_checks(src, func, kname, params)
        _emit_alias_guard(src, func, kname, params, numpy_entry)
        src.line(f"{unchecked}({', '.join([kname, *params.all])})")
    text = src.text()
    namespace = {"np": np, "ndarray": np.ndarray, "rt": runtime, **src.namespace}
    exec(compile(text, f"<xrelax-native-{func.sym_name.data}>", "exec"), namespace)
    stores = [op for op in func.walk() if isinstance(op, StoreOp)]
    paths = tuple(
        KernelPath(0, f"%{op.buffer.name_hint or '?'}", "native", "llvm") for op in stores[:1]
    )
    return CompiledKernel(
        namespace[function],
        namespace[unchecked],
        text,
        paths,
        len(args),
        tuple(func.sym_param_names),
        _direct_entry(func, address),
    )


def _direct_entry(func: PrimFuncOp, address: int) -> DirectEntry:
    """The machine code at ``address`` taking the buffers' addresses as integers."""
    variables = signature_vars(func)
    signature = ", ".join(["intptr_t"] * len(func.buffer_types) + ["int64_t"] * len(variables))
    sym_params, sites = list(func.sym_param_names), _dimension_sites(func)
    where = tuple(sym_params.index(v) if v in sym_params else sites[v] for v in variables)
    function = _FFI.cast(f"int32_t (*)({signature or 'void'})", address)
    return DirectEntry(function, where, address_of)


def address_of(array: np.ndarray) -> int:
    """The address of an array's data: through ctypes (0.3 us; numpy's ``ctypes.data``
    takes 1), or cffi (0.5 us) where ctypes refuses the buffer (read-only or empty)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError):
        return int(_FFI.cast("intptr_t", _FFI.from_buffer(array)))


def _emit_alias_guard(
    src: Source, func: PrimFuncOp, kname: str, params: Parameters, numpy_entry: str
) -> None:
    """In a checked entry: where a buffer the kernel writes shares memory with another
    argument (a direct call; the VM never passes such), run the numpy kernel instead,
    since the machine code takes its buffers to be apart (``noalias``)."""
    args = list(func.body.block.args)
    written = {op.buffer for op in func.walk() if isinstance(op, StoreOp)}
    pairs = [
        (params.buffers[k], params.buffers[j])
        for k, arg in enumerate(args)
        if arg in written
        for j in range(len(args))
        if j != k and (j < k or args[j] not in written)
    ]
    if not pairs:
        return
    may_share = src.value("may_share", np.may_share_memory)
    overlap = " or ".join(f"{may_share}({a}, {b})" for a, b in pairs)
    with src.indented(f"if {overlap}:"):
        src.line(f"{numpy_entry}({', '.join([kname, *params.all])})")
        src.line("return")


class _NumpyEntry:
    """The numpy kernel's unchecked entry, compiled when first called (a native kernel
    calls it only to report a failed check)."""

    def __init__(self, func: PrimFuncOp) -> None:
        self.func = func

    def __call__(self, *args: object) -> None:
        numpy_kernels.compile_prim_func(self.func).compiled.unchecked(*args)


def _native_failure(name: str) -> None:
    """A check of the machine code failed where the numpy kernel's passed (a defect)."""
    raise runtime.KernelError(f"kernel @{name}: a run-time check failed")
