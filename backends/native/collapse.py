"""Loops that run as one: a perfect nest whose variables index every buffer with
row-major strides is one loop over the product of its extents, which LLVM vectorizes
where the rows alone are too short."""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from xdsl.ir import Block

from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import AssertOp, ForOp, IndexOp, LetOp, LoadOp, StoreOp

__all__ = ["collapses", "collapsible_chain"]


def collapsible_chain(loop: ForOp) -> list[ForOp]:
    """``loop`` and the loops perfectly nested in it, when they can run as one loop over
    the product of their extents (else ``[loop]``): each starts at 0 with an extent the
    others do not change, and their variables appear only in load and store indices,
    linearly, with the coefficients of row-major strides (``A[i, j]`` of an ``[n, m]``
    buffer: ``m * i + j``; ``A[k, i, j]`` too, a bias ``b[k]`` not at all). An
    element-wise nest over a 14x14 image is then one loop of ``n * c * 196`` that LLVM
    vectorizes, not 14-element rows it leaves scalar."""
    chain = loop.perfect_nest()
    while len(chain) > 1 and not collapses(chain, chain[-1].body.block):
        chain.pop()
    return chain


def collapses(chain: list[ForOp], body: Block) -> bool:
    """Whether the loops ``chain`` (outermost first) around the ops of ``body`` can run
    as one loop (see :func:`collapsible_chain`)."""
    names = [loop.var_name for loop in chain]
    group = set(names)
    extents = []
    for loop in chain:
        if loop.lower != 0 or _mentions((loop.upper,), group):
            return False
        extents.append(sympy.sympify(loop.upper))
    strides = {name: sympy.Mul(*extents[k + 1 :]) for k, name in enumerate(names)}
    for op in body.walk():
        if isinstance(op, LoadOp | StoreOp):
            if isinstance(op, LoadOp) and op.pad is not None and _mentions(op.indices.data, group):
                return False
            offset = symbolic.flat_offset(op.indices.data, op.buffer.type.dims)
            variables = [s for s in offset.free_symbols if s.name in group]
            if not variables:
                continue
            try:
                poly = sympy.Poly(offset, *variables)
            except sympy.PolynomialError:  # a variable under floordiv or floormod
                return False
            if poly.total_degree() > 1:
                return False
            coefficient = {s.name: poly.coeff_monomial(s) for s in variables}
            unit = coefficient.get(names[-1], 0)
            for name, stride in strides.items():
                if sympy.expand(coefficient.get(name, 0) - unit * stride) != 0:
                    return False
        elif isinstance(op, ForOp):
            if _mentions((op.lower, op.upper), group):
                return False
        elif isinstance(op, IndexOp):
            if _mentions((op.expr,), group):
                return False
        elif isinstance(op, AssertOp | LetOp):
            return False
    return True


def _mentions(exprs: Sequence, names: set[str]) -> bool:
    return any(names & symbolic.free_vars(sympy.sympify(e)) for e in exprs)
