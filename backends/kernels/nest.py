"""A loop nest as statements, and whether they may run one after another (fission).

Vectorizing runs each statement of a nest over its whole iteration domain before
the next one starts. That is legal when a statement reads a buffer that an earlier
statement of the nest writes only at the same index function (the value of the same
outer iteration, e.g. a reduction's initial value), and reads the buffer it writes
itself only as a reduction's accumulator or at the element it writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import sympy
from xdsl.dialects import arith
from xdsl.ir import Block, Operation, SSAValue

from xrelax.backends.kernels.numpy_ops import MULTIPLY, numpy_op
from xrelax.backends.kernels.tree import (
    Apply,
    Const,
    Index,
    Load,
    Loop,
    Node,
    Statement,
    walk,
)
from xrelax.dialects import dtypes
from xrelax.dialects.shapes.symbolic import sym
from xrelax.dialects.tir import AllocBufferOp, AssertOp, ForOp, IndexOp, LetOp, LoadOp, StoreOp


class NotVectorizable(Exception):
    """A loop nest or statement the vectorizer does not recognise (the message says why)."""


@dataclass
class Nest:
    """The statements of one top-level loop nest (or of one top-level store)."""

    statements: list[Statement] = field(default_factory=list)
    lets: dict[str, Node] = field(default_factory=dict)
    """The values of the let variables bound inside the nest, by unique name."""


def constant_value(op: arith.ConstantOp) -> object:
    """The numpy scalar of an ``arith.constant``."""
    dtype = dtypes.numpy_dtype(op.result.type)
    value = op.value.value.data
    return dtype.type(bool(value)) if dtype.kind == "b" else dtype.type(value)


def read_nest(
    ops: list[Operation],
    outer: Callable[[SSAValue], Node],
    outer_lets: dict[str, Node] | None = None,
) -> Nest:
    """The statements of ``ops`` (a ``tir.for`` or a top-level store); values defined
    outside come from ``outer``, the let variables bound before the nest from
    ``outer_lets`` (data-dependent like the nest's own)."""
    reader = _Reader(outer)
    reader.nest.lets.update(outer_lets or {})
    for op in ops:
        reader.op(op, (), {})
    return reader.nest


class _Reader:
    def __init__(self, outer: Callable[[SSAValue], Node]) -> None:
        self.outer = outer
        self.nest = Nest()
        self.values: dict[SSAValue, Node] = {}
        self.position = 0

    def value(self, value: SSAValue) -> Node:
        return self.values[value] if value in self.values else self.outer(value)

    def block(self, block: Block, loops: tuple[Loop, ...], names: dict[str, sympy.Expr]) -> None:
        names = dict(names)
        for op in block.ops:
            self.op(op, loops, names)

    def op(self, op: Operation, loops: tuple[Loop, ...], names: dict[str, sympy.Expr]) -> None:
        self.position += 1

        def rename(expr: sympy.Expr) -> sympy.Expr:
            return expr.xreplace({sym(k): v for k, v in names.items()}) if names else expr

        if isinstance(op, ForOp):
            loop = Loop(op.var_name, rename(op.lower), rename(op.upper), op)
            self.block(op.body.block, (*loops, loop), names)
        elif isinstance(op, StoreOp):
            self.nest.statements.append(
                Statement(
                    loops,
                    op.buffer,
                    tuple(rename(i) for i in op.indices.data),
                    self.value(op.value),
                    self.position,
                )
            )
        elif isinstance(op, LoadOp):
            pad = None if op.pad is None else self.value(op.pad)
            indices = tuple(rename(i) for i in op.indices.data)
            dtype = dtypes.numpy_dtype(op.result.type)
            self.values[op.result] = Load(dtype, op.buffer, indices, pad, self.position)
        elif isinstance(op, LetOp):
            unique, k = op.var_name, 1
            while unique in self.nest.lets:
                unique, k = f"{op.var_name}_{k}", k + 1
            self.nest.lets[unique] = self.value(op.value)
            names[op.var_name] = sym(unique)
        elif isinstance(op, IndexOp):
            dtype = dtypes.numpy_dtype(op.result.type)
            self.values[op.result] = Index(dtype, rename(op.expr))
        elif isinstance(op, arith.ConstantOp):
            dtype = dtypes.numpy_dtype(op.result.type)
            self.values[op.result] = Const(dtype, constant_value(op))
        elif isinstance(op, arith.BitcastOp) and isinstance(self.value(op.input), Const):
            # an unsigned constant: the signless constant of its bits (ops/te.py)
            dtype = dtypes.numpy_dtype(op.result.type)
            bits = self.value(op.input).value
            self.values[op.result] = Const(dtype, np.asarray(bits).astype(dtype)[()])
        elif isinstance(op, AllocBufferOp):
            raise NotVectorizable("a buffer is allocated inside the loop nest")
        elif isinstance(op, AssertOp):
            raise NotVectorizable("a tir.assert inside the loop nest")
        elif isinstance(op, arith.NegfOp):
            # numpy 2.4's np.negative reads 32-bit strided inputs wrongly when the output
            # is strided too; multiplying by -1 is exact (signed zeros and NaN included).
            dtype = dtypes.numpy_dtype(op.result.type)
            minus_one = Const(dtype, dtype.type(-1))
            self.values[op.result] = Apply(dtype, MULTIPLY, (self.value(op.operand), minus_one))
        else:
            args = tuple(self.value(v) for v in op.operands)
            dtype = dtypes.numpy_dtype(op.results[0].type)
            self.values[op.results[0]] = Apply(dtype, numpy_op(op), args)


def check_fission(nest: Nest) -> None:
    """Raise :class:`NotVectorizable` unless the statements may run one after another."""
    writers: dict[SSAValue, list[Statement]] = {}
    for statement in nest.statements:
        writers.setdefault(statement.buffer, []).append(statement)
    for statements in writers.values():
        for first, second in zip(statements, statements[1:], strict=False):
            if not _same_element(first, second.indices, second.loops):
                raise NotVectorizable(
                    "two statements write the same buffer at different index functions"
                )
    for statement in nest.statements:
        for node in walk(statement.value, nest.lets):
            if not isinstance(node, Load):
                continue
            for writer in writers.get(node.buffer, []):
                if writer is statement or writer.position < node.position:
                    if not _same_element(writer, node.indices, statement.loops):
                        raise NotVectorizable(
                            "a statement reads a buffer written in the nest at another index"
                        )
                else:
                    raise NotVectorizable(
                        "a statement reads a buffer that a later statement of the nest writes"
                    )


def _same_element(
    writer: Statement, indices: tuple[sympy.Expr, ...], loops: tuple[Loop, ...]
) -> bool:
    """Whether ``indices`` (read or written inside ``loops``) name the element ``writer``
    writes in the same iteration of the loops both share."""
    if len(indices) != len(writer.indices):
        return False
    if any(sympy.expand(a - b) != 0 for a, b in zip(indices, writer.indices, strict=True)):
        return False
    shared = set()
    for mine, theirs in zip(writer.loops, loops, strict=False):
        if mine.op is not theirs.op:
            break
        shared.add(mine.var)
    used = set()
    for index in writer.indices:
        used |= {s.name for s in index.free_symbols}
    return not (used & ({loop.var for loop in writer.loops} - shared))
