"""Affine index functions: ``index = sum(coeff[v] * v) + rest`` over loop variables.

The coefficients and ``rest`` may use symbolic variables (known when the kernel
runs) but no loop variable. :func:`~xrelax.dialects.shapes.symbolic.flat_offset` turns a
multi-dimensional access into its row-major element offset and cancels
``floordiv``/``floormod`` pairs, so the index functions of reshape-like accesses
become affine again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import sympy

from xrelax.dialects.shapes.symbolic import FloorDiv, FloorMod, prove_le, prove_lt


@dataclass(frozen=True)
class Affine:
    """``sum(coeffs[v] * v) + rest``."""

    coeffs: Mapping[str, sympy.Expr]
    rest: sympy.Expr

    def at(self, origin: Mapping[str, sympy.Expr]) -> sympy.Expr:
        """The value when each variable ``v`` is ``origin[v]``."""
        return sympy.expand(self.rest + sum(c * origin[v] for v, c in self.coeffs.items()))

    def bounds(
        self, lo: Mapping[str, sympy.Expr], extent: Mapping[str, sympy.Expr]
    ) -> tuple[sympy.Expr, sympy.Expr]:
        """The smallest and largest value over a non-empty box ``[lo, lo + extent)``."""
        low = high = self.at(lo)
        for var, coeff in self.coeffs.items():
            # The box is not empty: the span has the sign of the coefficient.
            span = coeff * (extent[var] - 1)
            if prove_le(0, coeff):
                high += span
            elif prove_le(coeff, 0):
                low += span
            else:
                low, high = low + sympy.Min(0, span), high + sympy.Max(0, span)
        return sympy.expand(low), sympy.expand(high)


def affine(
    expr: sympy.Expr, variables: Collection[str], opaque: Collection[str] = ()
) -> Affine | None:
    """``expr`` as an affine function of ``variables``; None when it is not one or uses a
    name of ``opaque`` (values that differ per iteration, e.g. let-bound loads)."""
    expr = sympy.expand(expr)
    names = {s.name for s in expr.free_symbols}
    if names & set(opaque):
        return None
    coeffs: dict[str, sympy.Expr] = {}
    rest = sympy.Integer(0)
    for term in sympy.Add.make_args(expr):
        used = [s for s in term.free_symbols if s.name in variables]
        if not used:
            rest += term
            continue
        if len(used) > 1:
            return None
        var = used[0]
        coeff = sympy.expand(term / var)
        if var in coeff.free_symbols:
            return None
        coeffs[var.name] = coeffs.get(var.name, sympy.Integer(0)) + coeff
    return Affine({v: c for v, c in coeffs.items() if c != 0}, rest)


def drop_vanishing_floors(
    expr: sympy.Expr,
    variables: Collection[str],
    lows: Mapping[str, sympy.Expr],
    extents: Mapping[str, sympy.Expr],
) -> sympy.Expr:
    """``expr`` with ``floordiv(x, c) -> 0`` and ``floormod(x, c) -> x`` wherever
    ``0 <= x < c`` over the box (e.g. the wrap-around of an unravelled leading index),
    until none is left (``floormod(o + floordiv(i, 4), 4)`` -> ``floormod(o, 4)`` -> ``o``)."""
    while True:
        replaced = {}
        for term in expr.atoms(FloorDiv, FloorMod):
            form = affine(term.args[0], variables)
            if form is None or not set(form.coeffs) <= set(lows):
                continue
            low, high = form.bounds(lows, extents)
            if prove_le(0, low) and prove_lt(high, term.args[1]):
                replaced[term] = sympy.Integer(0) if isinstance(term, FloorDiv) else term.args[0]
        if not replaced:
            return expr
        expr = sympy.expand(expr.xreplace(replaced))


def index_bounds(
    expr: sympy.Expr,
    lows: Mapping[str, sympy.Expr],
    extents: Mapping[str, sympy.Expr],
    opaque: Collection[str] = (),
) -> tuple[sympy.Expr, sympy.Expr] | None:
    """The smallest and largest value of an index over the non-empty box of the loop
    variables ``[lows, lows + extents)``: affine terms, constant multiples, and
    ``floordiv``/``floormod`` by positive constants; None when unknown (a name of
    ``opaque``, a data-dependent value, or another form)."""
    form = affine(expr, lows, opaque)
    if form is not None:
        return form.bounds(lows, extents)
    if expr.is_Add:
        low = high = sympy.Integer(0)
        for term in expr.args:
            bounds = index_bounds(term, lows, extents, opaque)
            if bounds is None:
                return None
            low, high = low + bounds[0], high + bounds[1]
        return sympy.expand(low), sympy.expand(high)
    coeff, rest = expr.as_coeff_Mul()
    if expr.is_Mul and coeff.is_Integer and coeff != 1:
        bounds = index_bounds(rest, lows, extents, opaque)
        if bounds is None:
            return None
        low, high = (sympy.expand(coeff * b) for b in bounds)
        return (low, high) if coeff > 0 else (high, low)
    if isinstance(expr, FloorDiv | FloorMod):
        x, divisor = expr.args
        if not (divisor.is_Integer and divisor > 0):
            return None
        inner = index_bounds(x, lows, extents, opaque)
        if isinstance(expr, FloorDiv):
            if inner is None:
                return None
            return FloorDiv(inner[0], divisor), FloorDiv(inner[1], divisor)
        if inner is not None and prove_le(0, inner[0]) and prove_lt(inner[1], divisor):
            return inner
        return sympy.Integer(0), divisor - 1
    return None


def proven_inside(
    index: sympy.Expr,
    size: sympy.Expr,
    lows: Mapping[str, sympy.Expr],
    extents: Mapping[str, sympy.Expr],
    opaque: Collection[str] = (),
) -> bool:
    """Whether ``0 <= index < size`` is proven over the box (see :func:`index_bounds`)."""
    bounds = index_bounds(index, lows, extents, opaque)
    return bounds is not None and prove_le(0, bounds[0]) and prove_lt(bounds[1], size)
