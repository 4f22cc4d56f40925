"""Index-set splitting: a select whose condition compares a loop variable with a bound
(``j < n`` in a concat, ``h >= pad`` in a hand-written padding) splits that loop's range
into the part where the condition holds and the rest, each with the select resolved.
Vectorized, both branches of a select would otherwise be evaluated everywhere, reading
out of bounds where the condition excludes them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from xrelax.backends.kernels.affine import affine
from xrelax.backends.kernels.numpy_ops import SELECT
from xrelax.backends.kernels.tree import Apply, Const, Index, Load, Loop, Node
from xrelax.dialects.shapes.symbolic import floordiv

_COMPARISONS = {"np.less", "np.less_equal", "np.greater", "np.greater_equal"}
_LOGICAL = {"np.bitwise_and", "np.bitwise_or", "np.bitwise_xor"}

MAX_PIECES = 64


@dataclass(frozen=True)
class Piece:
    """A part of a statement's domain with the selects decided there resolved.

    ``first`` is false when an earlier piece already contributed to the same elements
    (the split was on a reduction variable)."""

    loops: tuple[Loop, ...]
    value: Node
    first: bool = True


def split(loops: tuple[Loop, ...], value: Node, reduce_vars: set[str]) -> list[Piece]:
    """The pieces of ``value`` over ``loops`` (just one when no select can be split)."""
    pieces = [Piece(loops, value)]
    done: list[Piece] = []
    while pieces:
        piece = pieces.pop(0)
        found = None if len(done) + len(pieces) >= MAX_PIECES else _find(piece)
        if found is None:
            done.append(piece)
            continue
        atom, position, point, below = found
        loop = piece.loops[position]
        cut = sympy.Max(loop.lo, sympy.Min(loop.hi, point))
        lower = Loop(loop.var, loop.lo, cut, loop.op)
        upper = Loop(loop.var, cut, loop.hi, loop.op)
        first_upper = piece.first and loop.var not in reduce_vars
        parts = []
        for part, truth, first in ((lower, below, piece.first), (upper, not below, first_upper)):
            new_loops = piece.loops[:position] + (part,) + piece.loops[position + 1 :]
            parts.append(Piece(new_loops, _decide(piece.value, atom, truth, {}), first))
        pieces[0:0] = parts
    return done


def _find(piece: Piece) -> tuple[Apply, int, sympy.Expr, bool] | None:
    """A comparison deciding a select, as ``(node, loop position, S, below)``: the
    comparison holds exactly for ``var < S`` (``below``) or for ``var >= S``."""
    names = [loop.var for loop in piece.loops]
    stack, seen = [piece.value], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, Apply):
            if node.op is SELECT:
                for atom in _atoms(node.args[0]):
                    found = _analyse(atom, names)
                    if found is not None:
                        return (atom, *found)
            stack.extend(node.args)
        elif isinstance(node, Load) and node.pad is not None:
            stack.append(node.pad)
    return None


def _atoms(cond: Node) -> list[Apply]:
    if isinstance(cond, Apply) and cond.op.fn in _COMPARISONS:
        return [cond]
    if isinstance(cond, Apply) and cond.op.fn in _LOGICAL:
        return [a for arg in cond.args for a in _atoms(arg)]
    return []


def _integer(node: Node) -> sympy.Expr | None:
    if isinstance(node, Index):
        return node.expr
    if isinstance(node, Const) and node.dtype.kind == "i":
        return sympy.Integer(int(node.value))
    return None


def _analyse(atom: Apply, names: list[str]) -> tuple[int, sympy.Expr, bool] | None:
    lhs, rhs = (_integer(a) for a in atom.args)
    if lhs is None or rhs is None:
        return None
    form = affine(sympy.expand(lhs - rhs), names)
    if form is None or len(form.coeffs) != 1:
        return None
    ((var, coeff),) = form.coeffs.items()
    if not coeff.is_Integer:
        return None
    c, r = int(coeff), form.rest
    fn = atom.op.fn
    if fn in ("np.less_equal", "np.greater"):
        r = r - 1  # c*v + r <= 0  <=>  c*v + (r - 1) < 0
    if c > 0:
        point, below = -floordiv(r, c), True  # c*v + r < 0  <=>  v < ceil(-r / c)
    else:
        point, below = floordiv(r, -c) + 1, False  # <=>  v > r / -c
    if fn in ("np.greater", "np.greater_equal"):
        below = not below
    return names.index(var), sympy.expand(point), below


def _decide(node: Node, atom: Apply, truth: bool, memo: dict[int, Node]) -> Node:
    """``node`` with the comparison ``atom`` replaced by ``truth`` and simplified."""
    if id(node) in memo:
        return memo[id(node)]
    result = node
    if node is atom:
        result = Const(np.dtype(np.bool_), np.bool_(truth))
    elif isinstance(node, Apply):
        args = tuple(_decide(a, atom, truth, memo) for a in node.args)
        if any(a is not b for a, b in zip(args, node.args, strict=True)):
            result = _simplify(Apply(node.dtype, node.op, args))
    elif isinstance(node, Load) and node.pad is not None:
        pad = _decide(node.pad, atom, truth, memo)
        if pad is not node.pad:
            result = Load(node.dtype, node.buffer, node.indices, pad, node.position)
    memo[id(node)] = result
    return result


def _simplify(node: Apply) -> Node:
    consts = [
        bool(a.value) if isinstance(a, Const) and a.dtype == np.bool_ else None for a in node.args
    ]
    if node.op is SELECT and consts[0] is not None:
        return node.args[1] if consts[0] else node.args[2]
    if node.op.fn == "np.bitwise_xor" and None not in consts:
        return Const(node.dtype, np.bool_(consts[0] != consts[1]))
    if node.op.fn == "np.bitwise_and" and node.dtype == np.bool_:
        for k in (0, 1):
            if consts[k] is not None:
                return node.args[1 - k] if consts[k] else node.args[k]
    if node.op.fn == "np.bitwise_or" and node.dtype == np.bool_:
        for k in (0, 1):
            if consts[k] is not None:
                return node.args[k] if consts[k] else node.args[1 - k]
    return node
