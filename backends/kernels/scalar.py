"""Ops as scalar Python: the fallback for loop nests the vectorizer does not recognise,
and the ops outside any loop (computed once, before the nests that use them).

Every op becomes one line on numpy scalars, with the same numpy functions as the
vectorized code, so both paths share numpy's semantics.
"""

from __future__ import annotations

import sympy
from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from xrelax.backends import buffer_pool
from xrelax.backends.kernels.affine import proven_inside
from xrelax.backends.kernels.buffers import Buffer
from xrelax.backends.kernels.nest import constant_value
from xrelax.backends.kernels.numpy_ops import CAST, SELECT, numpy_op
from xrelax.backends.kernels.source import Source, dtype_code
from xrelax.dialects import dtypes
from xrelax.dialects.tir import (
    AllocBufferOp,
    AssertOp,
    BufferType,
    ForOp,
    IndexOp,
    LetOp,
    LoadOp,
    StoreOp,
)


def pooled_size(type_: BufferType) -> sympy.Expr | None:
    """The size in bytes of a local buffer of ``type_`` when it may be large enough for
    the buffer pool (symbolic, or statically at least ``MIN_POOLED``), else None."""
    size = sympy.Mul(*type_.dims) * dtypes.numpy_dtype(type_.dtype).itemsize
    return None if size.is_Integer and int(size) < buffer_pool.MIN_POOLED else size


class ScalarEmitter:
    """Emits ops one by one; ``values`` names the SSA values computed so far."""

    def __init__(
        self,
        src: Source,
        kname: str,
        buffers: dict[SSAValue, Buffer],
        values: dict[SSAValue, str],
        shares: dict[SSAValue, SSAValue] | None = None,
        pooled: str | None = None,
    ):
        self.src = src
        self.kname = kname
        """The Python name holding the kernel's name (for messages)."""
        self.buffers = buffers
        self.values = values
        self.shares = shares or {}
        """Local buffers that use another's array (see :mod:`local_buffers`)."""
        self.pooled = pooled
        """The list of pooled buffers the kernel gives back; ``None``: no pooling."""
        self._arrays: dict[SSAValue, str] = {}
        self._loops: dict[str, tuple[sympy.Expr, sympy.Expr]] = {}
        """The enclosing loops' bounds, by variable."""
        self._lets: set[str] = set()
        """The let variables (values read from data)."""
        self.top_lets: dict[str, str] = {}
        """The let variables bound outside any loop, with their Python names."""

    def ops(self, ops: list[Operation], names: dict[str, str]) -> None:
        """Emit ``ops``; ``names`` maps the enclosing loop variables to Python names."""
        names = dict(names)
        for op in ops:
            self.op(op, names)

    def op(self, op: Operation, names: dict[str, str]) -> None:
        """Emit one op (a loop with its body); a let adds to ``names``."""
        src = self.src
        if isinstance(op, ForOp):
            var = src.fresh(op.var_name)
            lo, hi = src.py(op.lower, names), src.py(op.upper, names)
            self._loops[op.var_name] = (op.lower, op.upper)
            with src.indented(f"for {var} in range({lo}, {hi}):"):
                self.ops(list(op.body.block.ops), {**names, op.var_name: var})
            del self._loops[op.var_name]
        elif isinstance(op, AllocBufferOp):
            self.allocate(op)
        elif isinstance(op, LoadOp):
            buffer = self.buffers[op.buffer]
            index = self._index(op.indices.data, names)
            name = self._name(op.result)
            unproven = self._unproven(buffer, op.indices.data, names) if op.pad is None else []
            if unproven:
                # Poisoned, not raised: a select may discard the value (see OutOfRange).
                inside = " and ".join(f"0 <= {v} < {n}" for _, v, n in unproven)
                dims, values, sizes = (", ".join(str(u[k]) for u in unproven) for k in range(3))
                src.line(
                    f"{name} = {buffer.name}[{index}] if {inside} else rt.OutOfRange("
                    f"{self.kname}, {buffer.label!r}, ({dims},), ({values},), ({sizes},))"
                )
            elif op.pad is None:
                src.line(f"{name} = {buffer.name}[{index}]")
            else:
                inside = (
                    " and ".join(
                        f"0 <= {src.py(i, names)} < {src.py(d)}"
                        for i, d in zip(op.indices.data, buffer.dims, strict=True)
                    )
                    or "True"
                )
                pad = self.values[op.pad]
                src.line(f"{name} = {buffer.name}[{index}] if {inside} else {pad}")
        elif isinstance(op, StoreOp):
            buffer = self.buffers[op.buffer]
            for d, value, n in self._unproven(buffer, op.indices.data, names):
                src.line(f"if not 0 <= {value} < {n}:")
                src.line(f"    rt.index_error({self.kname}, {buffer.label!r}, {d}, {value}, {n})")
            src.line(
                f"{buffer.name}[{self._index(op.indices.data, names)}] = {self.values[op.value]}"
            )
        elif isinstance(op, IndexOp):
            dtype = dtype_code(dtypes.numpy_dtype(op.result.type))
            src.line(f"{self._name(op.result)} = {dtype}({src.py(op.expr, names)})")
        elif isinstance(op, LetOp):
            var = src.fresh(op.var_name)
            src.line(f"{var} = int({self.values[op.value]})")
            names[op.var_name] = var
            self._lets.add(op.var_name)
            if not isinstance(op.parent_op(), ForOp):
                src.py_names[op.var_name] = var
                self.top_lets[op.var_name] = var
        elif isinstance(op, AssertOp):
            self.check(op, names)
        elif isinstance(op, arith.ConstantOp):
            dtype = dtypes.numpy_dtype(op.result.type)
            self.values[op.result] = src.const(constant_value(op), dtype)
        else:
            self._compute(op)

    def check(self, op: AssertOp, names: dict[str, str]) -> None:
        """One integer comparison; the message is made only when it fails."""
        src = self.src
        facts = op.facts()
        condition = " and ".join(
            f"{src.py(f.lhs, names)} {f.relation} {src.py(f.rhs, names)}" for f in facts
        )
        variables = sorted(set().union(*(f.free_vars() for f in facts)))
        known = {**src.py_names, **names}
        bindings = ", ".join(f"{v!r}: {known[v]}" for v in variables)
        src.line(f"if not ({condition}):")
        src.line(
            f"    rt.assert_error({self.kname}, {src.value('facts', tuple(facts))}, {{{bindings}}})"
        )

    def _unproven(
        self, buffer: Buffer, indices: tuple, names: dict[str, str]
    ) -> list[tuple[int, str, str]]:
        """``(dimension, index code, size code)`` of the indices not proven inside the
        buffer (data-dependent ones, or beyond what the enclosing loops' bounds prove):
        they are checked, a negative index is never a read from the end."""
        lows = {v: lo for v, (lo, _) in self._loops.items()}
        extents = {v: sympy.expand(hi - lo) for v, (lo, hi) in self._loops.items()}
        return [
            (d, self.src.py(index, names), self.src.py(size))
            for d, (index, size) in enumerate(zip(indices, buffer.dims, strict=True))
            if not proven_inside(index, size, lows, extents, self._lets)
        ]

    def allocate(self, op: AllocBufferOp) -> None:
        """``T = np.empty(shape, dtype)`` for a local buffer (or the array it shares)."""
        type_ = op.buffer.type
        dtype = dtypes.numpy_dtype(type_.dtype)
        array = self.shares.get(op.buffer, op.buffer)
        name = self._arrays.get(array)
        if name is None:
            name = self._arrays[array] = self.src.fresh(op.buffer.name_hint or "buffer")
            shape = "".join(f"{self.src.py(d)}, " for d in type_.dims)
            code = f"np.empty(({shape}), {dtype_code(dtype)})"
            size = pooled_size(type_) if self.pooled is not None else None
            if size is not None:
                nbytes = self.src.fresh("nbytes")
                self.src.line(f"{nbytes} = {self.src.py(size)}")
                args = f"{nbytes}, ({shape}), {dtype_code(dtype)}, {self.pooled}"
                code = f"{code} if {nbytes} < {buffer_pool.MIN_POOLED} else pool.empty({args})"
            self.src.line(f"{name} = {code}")
        self.buffers[op.buffer] = Buffer(name, op.buffer.name_hint or name, type_.dims, dtype)

    def _compute(self, op: Operation) -> None:
        fn = numpy_op(op)
        args = [self.values[v] for v in op.operands]
        name = self._name(op.results[0])
        if fn is SELECT:
            # A condition read out of range poisons the select instead of raising: an
            # enclosing select may still discard it, as the vectorized code never
            # evaluates a branch where it is not chosen.
            cond, then, otherwise = args
            self.src.line(
                f"{name} = {cond} if type({cond}) is rt.OutOfRange "
                f"else ({then} if {cond} else {otherwise})"
            )
        elif fn is CAST:
            dtype = dtype_code(dtypes.numpy_dtype(op.results[0].type))
            self.src.line(f"{name} = rt.cast({args[0]}, np.dtype({dtype}))")
        else:
            self.src.line(f"{name} = {fn.fn}({', '.join(args)})")

    def _name(self, value: SSAValue) -> str:
        name = self.src.fresh(f"v_{value.name_hint}" if value.name_hint else "v")
        self.values[value] = name
        return name

    def _index(self, indices: tuple, names: dict[str, str]) -> str:
        if not indices:
            return "()"
        return ", ".join(self.src.py(i, names) for i in indices)
