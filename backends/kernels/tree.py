"""Scalar expression trees: what a ``tir.store`` writes, read back through its SSA ops.

A loop nest's SSA graph becomes one tree per store. Leaves are constants, loads,
index values and scalars computed before the nest; inner nodes apply numpy functions.
Let-bound variables (``tir.let``) stay symbols in the load indices; their value trees
are kept beside the statements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy
from xdsl.ir import SSAValue

from xrelax.backends.kernels.numpy_ops import NumpyOp
from xrelax.dialects.tir import ForOp


@dataclass(eq=False)
class Node:
    """A scalar expression of numpy dtype ``dtype``."""

    dtype: np.dtype


@dataclass(eq=False)
class Const(Node):
    """A constant."""

    value: Any


@dataclass(eq=False)
class Scalar(Node):
    """A value computed once before the loop nest, held in the Python variable ``name``."""

    name: str


@dataclass(eq=False)
class Index(Node):
    """The integer value of a symbolic index expression."""

    expr: sympy.Expr


@dataclass(eq=False)
class Load(Node):
    """``buffer[indices]`` (``pad`` outside the buffer); ``position`` orders it in the nest."""

    buffer: SSAValue
    indices: tuple[sympy.Expr, ...]
    pad: Node | None
    position: int


@dataclass(eq=False)
class Apply(Node):
    """``op(*args)``."""

    op: NumpyOp
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Loop:
    """A loop of the nest: ``var`` over ``[lo, hi)``; ``op`` identifies the ``tir.for``."""

    var: str
    lo: sympy.Expr
    hi: sympy.Expr
    op: ForOp

    @property
    def extent(self) -> sympy.Expr:
        """``hi - lo``."""
        return sympy.expand(self.hi - self.lo)


@dataclass(eq=False)
class Statement:
    """``buffer[indices] = value`` inside ``loops`` (outermost first)."""

    loops: tuple[Loop, ...]
    buffer: SSAValue
    indices: tuple[sympy.Expr, ...]
    value: Node
    position: int

    @property
    def loop_vars(self) -> list[str]:
        """The loop variable names, outermost first."""
        return [loop.var for loop in self.loops]


def children(node: Node) -> tuple[Node, ...]:
    """The operands of ``node`` (a load's pad value included)."""
    if isinstance(node, Apply):
        return node.args
    if isinstance(node, Load) and node.pad is not None:
        return (node.pad,)
    return ()


def _operands(node: Node, lets: dict[str, Node]) -> list[Node]:
    """The operands of ``node`` and the values of the let variables its indices use."""
    found = list(children(node))
    if isinstance(node, Load | Index):
        exprs = node.indices if isinstance(node, Load) else (node.expr,)
        for expr in exprs:
            found += [lets[s.name] for s in expr.free_symbols if s.name in lets]
    return found


def walk(root: Node, lets: dict[str, Node]) -> Iterator[Node]:
    """Every node of ``root`` once, including the values of let variables its loads use."""
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(_operands(node, lets))


def use_counts(root: Node, lets: dict[str, Node]) -> dict[int, int]:
    """How many times each node (by id) is used within ``root`` (as an operand or as the
    value of a let variable an index uses)."""
    counts: dict[int, int] = {}
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for operand in _operands(node, lets):
            counts[id(operand)] = counts.get(id(operand), 0) + 1
            stack.append(operand)
    return counts


def map_indices(node: Node, fn: Callable[[sympy.Expr], sympy.Expr], memo: dict[int, Node]) -> Node:
    """``node`` with ``fn`` applied to every index expression (loads and index values)."""
    if id(node) in memo:
        return memo[id(node)]
    result = node
    if isinstance(node, Load):
        pad = None if node.pad is None else map_indices(node.pad, fn, memo)
        indices = tuple(fn(i) for i in node.indices)
        result = Load(node.dtype, node.buffer, indices, pad, node.position)
    elif isinstance(node, Index):
        result = Index(node.dtype, fn(node.expr))
    elif isinstance(node, Apply):
        result = Apply(node.dtype, node.op, tuple(map_indices(a, fn, memo) for a in node.args))
    memo[id(node)] = result
    return result
