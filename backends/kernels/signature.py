"""A kernel's entries: unpack the arguments, bind the symbolic variables, check shapes.

A kernel has two entries. The checked one (``kernel(*args)``, what every caller gets)
checks everything below, then calls the unchecked one, which only binds the variables
and runs the body: the VM calls it directly where the compiler proved that the
arguments' types match the kernel's buffers (``vm.builtin.call_tir_unchecked``).

Buffers bind the variables they use as whole dimensions (the first such occurrence,
in parameter order; ``sym`` integers come first); every other dimension is checked
once all variables are bound. This is where a shape question the compiler could not
decide becomes a run-time error: a :class:`KernelError` with a one-line message.
The buffers that the body reads or writes as raw memory (``Source.contiguous``) are
made C-contiguous (an output is computed in a contiguous copy and copied back); the
others are used with whatever strides they have.

The entry runs on every call, so its common case is kept to a few attribute reads: an
exact-type test, a dtype identity test and one tuple comparison per buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy
from xdsl.ir import SSAValue

from xrelax.backends.kernels.buffers import Buffer
from xrelax.backends.kernels.source import Source
from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import PrimFuncOp, StoreOp


@dataclass(frozen=True)
class Entry:
    """The emitted unchecked entry: the buffers, and where the contiguity copies go."""

    buffers: dict[SSAValue, Buffer]
    """The parameters' buffers (the body adds the ones it allocates)."""
    params: tuple[Buffer, ...]
    written: frozenset[str]
    """The Python names of the buffers the kernel stores to."""
    end: int
    """The line after the entry."""
    depth: int
    """Its indentation."""


@dataclass(frozen=True)
class Parameters:
    """The Python names of a kernel's parameters: buffers, then ``sym`` integers."""

    labels: list[str]
    buffers: list[str]
    syms: list[str]

    @property
    def all(self) -> list[str]:
        return [*self.buffers, *self.syms]


def parameter_names(src: Source, func: PrimFuncOp) -> Parameters:
    """Fresh names for the parameters of ``func``'s kernel."""
    labels = [a.name_hint or f"arg{k}" for k, a in enumerate(func.body.block.args)]
    return Parameters(
        labels,
        [src.fresh(label) for label in labels],
        [src.bind_symbol(s) for s in func.sym_param_names],
    )


def emit_bindings(src: Source, func: PrimFuncOp, params: Parameters) -> Entry:
    """The entry of a call whose arguments the compiler proved to match the signature
    (``Kernel.unchecked``): bind each variable from the first dimension it is, check
    nothing."""
    args = list(func.body.block.args)
    bound = set(func.sym_param_names)
    for arg, name in zip(args, params.buffers, strict=True):
        for d, dim in enumerate(arg.type.dims):
            if dim.is_Symbol and dim.name not in bound:
                bound.add(dim.name)
                src.line(f"{src.bind_symbol(dim.name)} = {name}.shape[{d}]")
    buffers = {
        arg: Buffer(name, label, arg.type.dims, dtypes.numpy_dtype(arg.type.dtype))
        for arg, label, name in zip(args, params.labels, params.buffers, strict=True)
    }
    written = {op.buffer for op in func.walk() if isinstance(op, StoreOp)}
    return Entry(
        buffers,
        tuple(buffers.values()),
        frozenset(buffers[a].name for a in args if a in written),
        len(src.lines),
        src.depth,
    )


def emit_checks(src: Source, func: PrimFuncOp, kname: str, params: Parameters) -> None:
    """The checked entry's body: unpack ``args``, check the arity, each buffer's type,
    rank and dtype, the ``sym`` integers, and every dimension against the variables
    (bound at their first occurrence as a whole dimension)."""
    args = list(func.body.block.args)
    syms = func.sym_param_names
    labels, names = params.labels, params.buffers
    total = len(args) + len(syms)
    src.line(f"if len(args) != {total}:")
    src.line(f"    rt.arity_error({kname}, {len(args)}, {len(syms)}, len(args))")
    src.line(f"{''.join(n + ', ' for n in params.all)}= args")
    for k, (var, name) in enumerate(zip(syms, params.syms, strict=True)):
        src.line(f"if type({name}) is not int or {name} < 0:")
        src.line(f"    {name} = rt.sym_int({kname}, {k}, {var!r}, {name})")
    for k, (arg, label, name) in enumerate(zip(args, labels, names, strict=True)):
        type_ = arg.type
        dtype_name = src.dtype(dtypes.numpy_dtype(type_.dtype))
        rank = len(type_.dims)
        # ndarray subclasses and equal but distinct dtype objects take the slow path.
        src.line(
            f"if type({name}) is not ndarray or {name}.ndim != {rank} "
            f"or {name}.dtype is not {dtype_name}:"
        )
        src.line(f"    rt.check_buffer({kname}, {k}, {label!r}, {name}, {rank}, {dtype_name})")
    # Bind the variables (unpacking the shapes that bind any), then check the other dims.
    bound = set(syms)
    checks: list[tuple[int, list[tuple[int, sympy.Expr, str]]]] = []
    for k, (arg, name) in enumerate(zip(args, names, strict=True)):
        dims = arg.type.dims
        binds = []
        for dim in dims:
            binds.append(dim.is_Symbol and dim.name not in bound)
            if binds[-1]:
                bound.add(dim.name)
        if not any(binds):
            checks.append((k, [(d, dim, f"{name}.shape[{d}]") for d, dim in enumerate(dims)]))
            continue
        targets = [
            src.bind_symbol(dim.name) if bind else src.fresh(f"{name}_{d}")
            for d, (dim, bind) in enumerate(zip(dims, binds, strict=True))
        ]
        src.line(f"{''.join(t + ', ' for t in targets)}= {name}.shape")
        rest = [(d, dims[d], targets[d]) for d, bind in enumerate(binds) if not bind]
        if rest:
            checks.append((k, rest))
    for k, dims in checks:
        whole = len(dims) == len(args[k].type.dims)
        _check_dims(src, kname, k, labels[k], names[k], dims, whole)


def _check_dims(
    src: Source,
    kname: str,
    k: int,
    label: str,
    name: str,
    dims: list[tuple[int, sympy.Expr, str]],
    whole: bool,
) -> None:
    """Check dimensions ``(d, expected, actual code)`` of buffer ``k``; a buffer checked
    ``whole`` compares its shape as one tuple."""

    def error(d: int, dim: sympy.Expr, actual: str) -> str:
        expected = src.py(dim)
        variables = ", ".join(f"{v!r}: {src.py_names[v]}" for v in sorted(symbolic.free_vars(dim)))
        return (
            f"rt.dim_error({kname}, {k}, {label!r}, {d}, {actual}, {expected}, "
            f"{symbolic.format_expr(dim)!r}, {{{variables}}})"
        )

    if whole and len(dims) > 1:
        expected = ", ".join(src.py(dim) for _, dim, _ in dims)
        src.line(f"if {name}.shape != ({expected}):")
        for d, dim, actual in dims:
            src.line(f"    if {actual} != {src.py(dim)}:")
            src.line(f"        {error(d, dim, actual)}")
        return
    for d, dim, actual in dims:
        src.line(f"if {actual} != {src.py(dim)}:")
        src.line(f"    {error(d, dim, actual)}")


def emit_contiguity(src: Source, entry: Entry) -> list[str]:
    """Insert, at the end of the entry, the copies that make the buffers the body needs
    contiguous so; the lines that copy outputs back (to emit at the end)."""
    lines: list[str] = []
    copy_back: list[str] = []
    for buffer in entry.params:
        name = buffer.name
        if name not in src.contiguous:
            continue
        if name in entry.written:
            given = src.fresh(f"{name}_given")
            lines.append(f"{given} = {name}")
            copy_back += [f"if {name} is not {given}:", f"    np.copyto({given}, {name})"]
        lines.append(f"if not {name}.flags.c_contiguous:")
        lines.append(f"    {name} = np.ascontiguousarray({name})")
    indent = "    " * entry.depth
    src.lines[entry.end : entry.end] = [indent + line for line in lines]
    return copy_back
