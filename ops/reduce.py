"""Reductions: sum, mean, max, min and prod over axes, optionally keeping reduced axes as size 1."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
import sympy
from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import Pure

from xrelax.dialects.relax import TensorType
from xrelax.ops import te
from xrelax.ops.base import (
    ANY_DTYPE,
    I64_ARRAY_PROP,
    INTEGER,
    NUMERIC,
    OUTPUT,
    DtypeKind,
    OperatorOp,
    Props,
    accumulator,
    check_dtype,
    dims_product,
    expect_tensor,
    mean_of,
    normalize_axes,
    numpy_accumulator,
    numpy_result,
    prop_bool,
    prop_ints,
    reference_mean,
    require_le,
    result_dims,
    sum_of,
    tensor,
)


class ReduceOp(OperatorOp):
    """``%r = relax.NAME %x {axis = array<i64: ...>, keepdims = true}``: a reduction over
    ``axis`` (absent: all axes); the result keeps the element type of x."""

    x = operand_def(TensorType)
    axis = opt_prop_def(I64_ARRAY_PROP)
    keepdims = opt_prop_def(BoolAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    DTYPES: ClassVar[DtypeKind] = NUMERIC
    HAS_IDENTITY: ClassVar[bool] = True
    """False when the reduction of no elements is undefined (max, min): it is an error."""
    INTEGER_NEEDS_ELEMENTS: ClassVar[bool] = False
    """True when the reduction of no integers is undefined (mean): it is an error."""
    NUMPY_FN: ClassVar[Callable[..., np.ndarray]]
    TE_FN: ClassVar[Callable[[te.Expr, list[te.IterVar]], te.Expr]]

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        x = expect_tensor(operand_types[0])
        check_dtype(x, cls.DTYPES)
        axis = prop_ints(properties, "axis")
        keepdims = prop_bool(properties, "keepdims")
        reduced = None
        if x.ndim is not None:
            reduced = set(range(x.ndim) if axis is None else normalize_axes(axis, x.ndim))
            needs_elements = not cls.HAS_IDENTITY or (
                cls.INTEGER_NEEDS_ELEMENTS and x.known_dtype in INTEGER.members
            )
            if needs_elements and x.dims is not None:
                count = dims_product([x.dims[a] for a in sorted(reduced)])
                require_le(1, count, f"{cls.name}: the reduced axes are not empty")
        if axis is None and not keepdims:
            return tensor((), x.dtype)
        if reduced is None:
            return tensor(None, x.dtype)
        one = sympy.Integer(1)
        if keepdims:
            if x.dims is None and len(reduced) < x.ndim:
                return tensor(x.ndim, x.dtype)
            kept = x.dims if x.dims is not None else (one,) * x.ndim
            return tensor(tuple(one if i in reduced else d for i, d in enumerate(kept)), x.dtype)
        if x.dims is None:
            return tensor(x.ndim - len(reduced), x.dtype)
        return tensor(tuple(d for i, d in enumerate(x.dims) if i not in reduced), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        axis = prop_ints(props, "axis")
        value = cls.NUMPY_FN(
            x, axis=None if axis is None else tuple(axis), keepdims=prop_bool(props, "keepdims")
        )
        return numpy_result(value, x.dtype)

    @classmethod
    def reduce(cls, value: te.Expr, axes: list[te.IterVar], count: sympy.Expr) -> te.Expr:
        """The reduction of ``value`` over ``axes`` (``count`` elements)."""
        return cls.TE_FN(value, axes)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        axis = prop_ints(props, "axis")
        reduced = range(x.ndim) if axis is None else normalize_axes(axis, x.ndim)
        axes = {a: te.reduce_axis(0, x.shape[a], f"k{a}") for a in sorted(reduced)}
        keepdims = prop_bool(props, "keepdims")
        count = dims_product([x.shape[a] for a in axes])
        kept = [a for a in range(x.ndim) if a not in axes]

        def body(*i: sympy.Expr) -> te.Expr:
            index = [
                axes[a] if a in axes else i[a if keepdims else kept.index(a)] for a in range(x.ndim)
            ]
            return cls.reduce(x[index], list(axes.values()), count) if axes else x[index]

        return te.compute(result_dims(result_type), body, OUTPUT)


def _sum(x: np.ndarray, axis: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    """The sum, rounded once to x's type: floats in their accumulator type, integers in
    numpy's i64 (which wraps to the same bits as a sum in x's type)."""
    wide = numpy_accumulator(x.dtype) if np.issubdtype(x.dtype, np.floating) else None
    return np.sum(x, axis=axis, dtype=wide, keepdims=keepdims)


def _mean(x: np.ndarray, axis: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    reduced = range(x.ndim) if axis is None else axis
    count = int(np.prod([x.shape[a] for a in reduced], dtype=np.int64))
    return reference_mean(x, axis, count, keepdims)


@irdl_op_definition
class SumOp(ReduceOp):
    """``relax.sum``: the sum of the elements, in the element type of x (f16 and bf16
    accumulate in f32)."""

    name = "relax.sum"
    NUMPY_FN = staticmethod(_sum)
    TE_FN = staticmethod(sum_of)


@irdl_op_definition
class MeanOp(ReduceOp):
    """``relax.mean``: the mean of the elements, in the element type of x (f16 and bf16
    accumulate in f32; integers: exact, truncated toward zero, and at least one)."""

    name = "relax.mean"
    NUMPY_FN = staticmethod(_mean)
    INTEGER_NEEDS_ELEMENTS: ClassVar[bool] = True

    @classmethod
    def reduce(cls, value: te.Expr, axes: list[te.IterVar], count: sympy.Expr) -> te.Expr:
        return mean_of(value, axes, count)


@irdl_op_definition
class MaxOp(ReduceOp):
    """``relax.max``: the largest element."""

    name = "relax.max"
    DTYPES: ClassVar[DtypeKind] = ANY_DTYPE
    HAS_IDENTITY: ClassVar[bool] = False
    NUMPY_FN = staticmethod(np.max)
    TE_FN = staticmethod(te.max)


@irdl_op_definition
class MinOp(ReduceOp):
    """``relax.min``: the smallest element."""

    name = "relax.min"
    DTYPES: ClassVar[DtypeKind] = ANY_DTYPE
    HAS_IDENTITY: ClassVar[bool] = False
    NUMPY_FN = staticmethod(np.min)
    TE_FN = staticmethod(te.min)


def _prod(x: np.ndarray, axis: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    """The product, rounded once to x's type: floats in their accumulator type, integers
    in numpy's i64 (which wraps to the same bits as a product in x's type)."""
    wide = numpy_accumulator(x.dtype) if np.issubdtype(x.dtype, np.floating) else None
    return np.prod(x, axis=axis, dtype=wide, keepdims=keepdims)


def _prod_of(value: te.Expr, axes: list[te.IterVar]) -> te.Expr:
    wide = accumulator(value.dtype)
    return te.cast(te.prod(te.cast(value, wide), axes), value.dtype)


@irdl_op_definition
class ProdOp(ReduceOp):
    """``relax.prod``: the product of the elements, in the element type of x (f16 and
    bf16 accumulate in f32; integers wrap); of no elements, 1."""

    name = "relax.prod"
    NUMPY_FN = staticmethod(_prod)
    TE_FN = staticmethod(_prod_of)


REDUCE_OPS = (SumOp, MeanOp, MaxOp, MinOp, ProdOp)
