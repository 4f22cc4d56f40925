"""A kernel's entry: unpack the arguments, bind the symbolic variables, check shapes.

Buffers bind the variables they use as whole dimensions (the first such occurrence,
in parameter order; ``sym`` integers come first); every other dimension is checked
once all variables are bound. This is where a shape question the compiler could not
decide becomes a run-time error: a :class:`KernelError` with a one-line message.
Buffers are made C-contiguous (an output is computed in a contiguous copy and
copied back).
"""

from __future__ import annotations

import sympy
from xdsl.ir import SSAValue

from xrelax.backends.kernels.buffers import Buffer
from xrelax.backends.kernels.source import Source
from xrelax.dialects import dtypes, symbolic
from xrelax.dialects.tir import PrimFuncOp, StoreOp


def emit_entry(
    src: Source, func: PrimFuncOp, kname: str
) -> tuple[dict[SSAValue, Buffer], list[str]]:
    """Emit the entry of ``func``'s kernel; the buffers by SSA value and the lines that
    copy contiguous copies of outputs back (to emit at the end)."""
    args = list(func.body.block.args)
    syms = func.sym_param_names
    labels = [a.name_hint or f"arg{k}" for k, a in enumerate(args)]
    names = [src.fresh(label) for label in labels]
    sym_names = [src.bind_symbol(s) for s in syms]
    total = len(args) + len(syms)
    src.line(f"if len(args) != {total}:")
    src.line(f"    rt.arity_error({kname}, {len(args)}, {len(syms)}, len(args))")
    src.line(f"{''.join(n + ', ' for n in [*names, *sym_names])}= args")
    for k, (var, name) in enumerate(zip(syms, sym_names, strict=True)):
        src.line(f"{name} = rt.sym_int({kname}, {k}, {var!r}, {name})")
    buffers: dict[SSAValue, Buffer] = {}
    shapes: list[str] = []
    for k, (arg, label, name) in enumerate(zip(args, labels, names, strict=True)):
        type_ = arg.type
        dtype = dtypes.numpy_dtype(type_.dtype)
        dtype_name = src.dtype(dtype)
        rank = len(type_.dims)
        # The common case costs an exact-type test and a dtype identity test; ndarray
        # subclasses and equal but distinct dtype objects take the slow path.
        src.line(
            f"if type({name}) is not np.ndarray or {name}.ndim != {rank} "
            f"or {name}.dtype is not {dtype_name}:"
        )
        src.line(f"    rt.check_buffer({kname}, {k}, {label!r}, {name}, {rank}, {dtype_name})")
        shape = src.fresh(f"{name}_shape")
        src.line(f"{shape} = {name}.shape")
        shapes.append(shape)
        buffers[arg] = Buffer(name, label, type_.dims, dtype)
    bound = set(syms)
    checks: list[tuple[int, int, sympy.Expr]] = []
    for k, arg in enumerate(args):
        for d, dim in enumerate(arg.type.dims):
            if dim.is_Symbol and dim.name not in bound:
                bound.add(dim.name)
                src.line(f"{src.bind_symbol(dim.name)} = {shapes[k]}[{d}]")
            else:
                checks.append((k, d, dim))
    for k, d, dim in checks:
        expected = src.py(dim)
        variables = ", ".join(f"{v!r}: {src.py_names[v]}" for v in sorted(symbolic.free_vars(dim)))
        src.line(f"if {shapes[k]}[{d}] != {expected}:")
        src.line(
            f"    rt.dim_error({kname}, {k}, {labels[k]!r}, {d}, {shapes[k]}[{d}], "
            f"{expected}, {symbolic.format_expr(dim)!r}, {{{variables}}})"
        )
    written = {op.buffer for op in func.walk() if isinstance(op, StoreOp)}
    copy_back: list[str] = []
    for arg, name in zip(args, names, strict=True):
        if arg in written:
            given = src.fresh(f"{name}_given")
            src.line(f"{given} = {name}")
            copy_back += [f"if {name} is not {given}:", f"    np.copyto({given}, {name})"]
        src.line(f"if not {name}.flags.c_contiguous:")
        src.line(f"    {name} = np.ascontiguousarray({name})")
    return buffers, copy_back
