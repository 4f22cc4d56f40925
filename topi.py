"""A TOPI-style library of TE compute definitions: one function per relax operator.

``topi.NAME(*tensors, **attributes)`` builds, from ``te.Tensor`` operands, the
tensor the operator ``relax.NAME`` computes (``topi.matmul(A, B)``,
``topi.sum(X, axis=[1], keepdims=True)``, ``topi.reshape(X, [n, 4])``), for use in
``te.compute`` programs and :meth:`BlockBuilder.emit_te`::

    def dense_relu(x, w):
        return topi.relu(topi.matmul(x, w))

    y = bb.emit_te(dense_relu, x, w)     # one kernel: matmul then relu

Each function is the operator's own legalization (its ``emit_te``), with the result
shape from the operator's deduction, so the kernels are the ones
``relax-legalize-ops`` generates and a new operator gets its function for free.
Operands and attributes are given as to the :mod:`xrelax.op` functions, with
``te.Tensor`` operands (a shape operand is a list of dims). Operators whose result
shape depends on tensor values (``unique``) have none.

A fact about the shapes the deduction relies on but cannot prove (``k == m`` for
``topi.matmul`` of ``[n, k]`` and ``[m, 2]``) becomes a ``tir.assert`` of the kernel
``BlockBuilder.emit_te`` builds; outside ``emit_te`` (nobody collecting the facts, see
:func:`xrelax.dialects.shapes.obligations.collect`) it is an error.

Errors: a ``TypeError`` for a call that does not fit the operator, a
:class:`~xrelax.dialects.relax.RelaxError` when the deduction fails or cannot give the
result shape (operands whose shapes are not provably compatible: ``match_shape`` them
to common variables first).
"""

from __future__ import annotations

from collections.abc import Callable

from xrelax.ops.functions import ComputeResult, OperatorSignature, compute_function
from xrelax.ops.library import OPERATORS

FUNCTIONS: dict[str, Callable[..., ComputeResult]] = {
    OperatorSignature.of(op_type).function_name: compute_function(op_type)
    for op_type in OPERATORS
    if not op_type.DATA_DEPENDENT
}
"""The compute function of each operator, by its name without ``relax.``."""

# The functions are this module's names (``topi.sum`` shadows the builtin here only).
globals().update(FUNCTIONS)

__all__ = ["FUNCTIONS", *FUNCTIONS]
