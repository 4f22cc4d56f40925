"""Sorting: ``argsort``, the stable order of a tensor along an axis. ``sort`` and
``topk`` are compositions (``gather_elements`` of ``argsort``, a slice of it): the
importers build them so.

The order (the frameworks' ``stable`` sort): ascending or descending, equal elements in
the order of their positions; NaN is larger than every number (numpy's ``argsort``,
torch's ``sort`` and ``topk``), so it comes last ascending and first descending; -0.0
equals 0.0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import Pure

from xrelax.dialects import dtypes
from xrelax.dialects.relax import TensorType
from xrelax.dialects.shapes.obligations import Facts
from xrelax.ops import te
from xrelax.ops.base import (
    ANY_DTYPE,
    I64_PROP,
    OUTPUT,
    OperatorOp,
    Props,
    check_dtype,
    expect_tensor,
    known_shape,
    normalize_axis,
    numpy_result,
    prop_bool,
    prop_int,
    result_dims,
    tensor,
)


def stable_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """The stable order of ``x`` along ``axis`` (NaN largest) as i64 positions."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable").astype(np.int64)
    # Descending and stable: sort the reversed axis ascending, read the order backwards
    # (equal elements then keep their positions' order), map back to positions.
    size = x.shape[axis]
    reversed_order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (size - 1 - np.flip(reversed_order, axis)).astype(np.int64)


def _before(a: te.Expr, b: te.Expr, descending: bool) -> te.Expr:
    """Whether ``a`` sorts strictly before ``b`` (NaN largest)."""
    if dtypes.is_bool(a.dtype):
        return (a & ~b) if descending else (~a & b)
    if not dtypes.is_float(a.dtype):
        return a > b if descending else a < b
    a_nan, b_nan = a != a, b != b  # noqa: PLR0124 - only NaN is unordered with itself
    if descending:
        return (a > b) | (a_nan & ~b_nan)
    return (a < b) | (b_nan & ~a_nan)


def _same(a: te.Expr, b: te.Expr) -> te.Expr:
    """Whether ``a`` and ``b`` are equal in the order (two NaNs are)."""
    if dtypes.is_float(a.dtype):
        return (a == b) | ((a != a) & (b != b))  # noqa: PLR0124
    return a == b


@irdl_op_definition
class ArgsortOp(OperatorOp):
    """``relax.argsort``: the positions of the elements of x along ``axis`` (absent: -1)
    in stable ascending order (``descending``: descending), as i64."""

    name = "relax.argsort"

    x = operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    descending = opt_prop_def(BoolAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        check_dtype(x, ANY_DTYPE)
        if x.ndim is not None:
            normalize_axis(prop_int(properties, "axis", -1), max(x.ndim, 1))
        return tensor(known_shape(x), dtypes.I64)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        if x.ndim == 0:
            return numpy_result(np.zeros((), np.int64))
        axis = normalize_axis(prop_int(props, "axis", -1), x.ndim)
        return numpy_result(stable_argsort(x, axis, prop_bool(props, "descending")))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        """Each element's rank (how many sort before it), then each rank's position:
        two reductions over the axis, O(n^2) in its size, that vectorize."""
        (x,) = inputs
        dims = result_dims(result_type)
        if x.ndim == 0:
            return te.compute(dims, lambda: te.const(0, dtypes.I64), OUTPUT)
        axis = normalize_axis(prop_int(props, "axis", -1), x.ndim)
        descending = prop_bool(props, "descending")
        size = x.shape[axis]

        def rank_of(*i: sympy.Expr) -> te.Expr:
            j = te.reduce_axis(0, size, "j")
            other = (*i[:axis], j, *i[axis + 1 :])
            a, b = x[other], x[i]
            earlier = _before(a, b, descending) | (_same(a, b) & (te.index(j) < te.index(i[axis])))
            return te.sum(te.cast(earlier, dtypes.I64), j)

        rank = te.compute(dims, rank_of, "rank")

        def position_of(*r: sympy.Expr) -> te.Expr:
            j = te.reduce_axis(0, size, "j")
            at = rank[(*r[:axis], j, *r[axis + 1 :])]
            hit = at == te.index(r[axis])
            return te.sum(te.if_then_else(hit, te.index(j), te.const(0, dtypes.I64)), j)

        return te.compute(dims, position_of, OUTPUT)


SORT_OPS = (ArgsortOp,)
