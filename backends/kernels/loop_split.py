"""Splitting a loop by a constant factor its indices divide it by.

An index ``floordiv(o, c)`` or ``floormod(o, c)`` of a loop ``o`` over ``[0, c * q)`` is
not affine, but with ``o = c * o_hi + o_lo`` (``o_hi`` over ``[0, q)``, ``o_lo`` over
``[0, c)``) it becomes ``o_hi`` or ``o_lo``. A grouped convolution reads the input
channel ``floordiv(o, out_per_group) * in_per_group + rc``; split, that read is a
strided view and the contraction a matrix product batched over the groups.
"""

from __future__ import annotations

import sympy

from xrelax.backends.kernels.affine import drop_vanishing_floors
from xrelax.backends.kernels.tree import Index, Load, Loop, Node, Statement, map_indices, walk
from xrelax.dialects.shapes.symbolic import FloorDiv, FloorMod, sym


def split_divided_loops(statement: Statement, lets: dict[str, Node]) -> Statement:
    """``statement`` with each loop that an index divides by a constant factor split
    (statements whose indices use let-bound values stay as they are)."""
    exprs = _index_exprs(statement)
    if any(s.name in lets for e in exprs for s in e.free_symbols):
        return statement
    for loop in statement.loops:
        factor = _factor(exprs, loop)
        if factor is not None:
            return split_divided_loops(_split(statement, loop, factor, exprs), lets)
    return statement


def _index_exprs(statement: Statement) -> list[sympy.Expr]:
    exprs = list(statement.indices)
    for node in walk(statement.value, {}):
        if isinstance(node, Load):
            exprs += node.indices
        elif isinstance(node, Index):
            exprs.append(node.expr)
    return exprs


def _factor(exprs: list[sympy.Expr], loop: Loop) -> int | None:
    """A constant ``c > 1`` with ``floordiv(var, c)`` or ``floormod(var, c)`` in an index,
    when the loop starts at 0 and ``c`` divides its extent."""
    if loop.lo != 0:
        return None
    var = sym(loop.var)
    for expr in exprs:
        for term in expr.atoms(FloorDiv, FloorMod):
            divisor = term.args[1]
            if term.args[0] == var and divisor.is_Integer and divisor > 1:
                quotient = sympy.expand(loop.extent / divisor)
                if all(t.as_coeff_Mul()[0].is_Integer for t in sympy.Add.make_args(quotient)):
                    return int(divisor)
    return None


def _split(statement: Statement, loop: Loop, factor: int, exprs: list[sympy.Expr]) -> Statement:
    taken = {s.name for e in exprs for s in e.free_symbols} | set(statement.loop_vars)
    outer = _fresh(f"{loop.var}_o", taken)
    inner = _fresh(f"{loop.var}_i", taken | {outer})
    loops: list[Loop] = []
    for other in statement.loops:
        if other is loop:
            loops.append(Loop(outer, sympy.Integer(0), sympy.expand(loop.extent / factor), loop.op))
            loops.append(Loop(inner, sympy.Integer(0), sympy.Integer(factor), loop.op))
        else:
            loops.append(other)
    names = [other.var for other in loops]
    lows = {other.var: other.lo for other in loops}
    extents = {other.var: other.extent for other in loops}
    replacement = {sym(loop.var): factor * sym(outer) + sym(inner)}

    def rewrite(expr: sympy.Expr) -> sympy.Expr:
        return drop_vanishing_floors(sympy.expand(expr.xreplace(replacement)), names, lows, extents)

    return Statement(
        tuple(loops),
        statement.buffer,
        tuple(rewrite(i) for i in statement.indices),
        map_indices(statement.value, rewrite, {}),
        statement.position,
    )


def _fresh(base: str, taken: set[str]) -> str:
    name, k = base, 1
    while name in taken:
        name, k = f"{base}{k}", k + 1
    return name
