"""Python functions for the relax operators: ``from xrelax import op``.

Every operator class listed in :mod:`xrelax.ops` has a function named after it
(``relax.matmul`` -> ``op.matmul``), generated from its IRDL definition, so a new
operator gets its function for free (so do ``relax.shape_of`` and ``relax.tuple``,
whose result types are deduced too)::

    y = bb.emit(op.matmul(x, w))
    s = bb.emit(op.sum(y, axis=[1], keepdims=True))
    r = bb.emit(op.reshape(x, [n, 4]))          # a list of dims becomes a relax.shape

A function returns the operation with its result type deduced, **not yet inserted**
(as TVM's ``relax.op.*`` return a Call): :meth:`BlockBuilder.emit` inserts it, after
the not-yet-inserted operations its operands come from, so calls nest
(``bb.emit(op.add(op.exp(x), y))``); a rewrite pattern hands it to
``rewriter.replace``.

Operands are given positionally or by their names (``lhs``, ``rhs``, ``x``, ...):
relax values, not-yet-inserted operations, a list of dims for a shape operand
(ints, variable names, sympy expressions), an int, a variable name or a sympy
expression for a prim operand (a ``relax.prim_value``: ``op.arange(0, n, 2)``,
``op.full([n, 3], 7)``), a numpy array for a tensor operand (a ``relax.const``),
and a list of values for a variadic operand (``op.concat([a, b],
axis=0)``). Attributes are keywords, converted to the kind the operator declares:
ints (``axis=1``), lists of ints (``axes=[1, 0]``; an int where a list is declared
is a list of one), bools, floats, element types as names (``dtype="f16"``) or numpy
dtypes, or MLIR attributes as they are; ``None`` leaves an attribute out.

A call that does not fit the operator is a ``TypeError``; a deduction error (shapes
that cannot broadcast, ...) is a :class:`~xrelax.dialects.relax.RelaxError` naming
the operator.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation

from xrelax.ops.library import operator_functions

FUNCTIONS: dict[str, Callable[..., Operation]] = operator_functions()
"""The function of each operator (and of ``shape_of``, ``tuple``), by its name
without ``relax.``."""

# The functions are this module's names (``op.sum`` shadows the builtin here only).
globals().update(FUNCTIONS)

__all__ = ["FUNCTIONS", *FUNCTIONS]
