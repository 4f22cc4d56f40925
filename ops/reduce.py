"""Reductions: sum, mean, max, min and prod over axes, optionally keeping reduced axes as
size 1; argmax and argmin, the position of the extreme element along an axis."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

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
    I64_ARRAY_PROP,
    I64_PROP,
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
    normalize_axis,
    numpy_accumulator,
    numpy_result,
    prop_bool,
    prop_int,
    prop_ints,
    reference_mean,
    require_le,
    result_dims,
    sum_of,
    tensor,
)
from xrelax.ops.manipulate import reshaped


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
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
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
                require_le(facts, 1, count, f"{cls.name}: the reduced axes are not empty")
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


class ArgReduceOp(OperatorOp):
    """``%r = relax.NAME %x {axis = 1 : i64, keepdims = true, select_last_index = true}``:
    the i64 position along ``axis`` (absent: of x flattened) of the extreme element; a
    NaN counts as the extreme (numpy, torch); the first such position, or the last with
    ``select_last_index``; ``keepdims`` keeps the axis as size 1."""

    x = operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    keepdims = opt_prop_def(BoolAttr)
    select_last_index = opt_prop_def(BoolAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    NUMPY_FN: ClassVar[Callable[..., np.ndarray]]
    TE_FN: ClassVar[Callable[[te.Expr, list[te.IterVar]], te.Expr]]

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        prop_bool(properties, "select_last_index")
        axis = prop_int(properties, "axis")
        keepdims = prop_bool(properties, "keepdims")
        if axis is None:
            if x.dims is not None:
                require_le(facts, 1, dims_product(x.dims), f"{cls.name}: x is not empty")
            if not keepdims:
                return tensor((), dtypes.I64)
            return tensor(None if x.ndim is None else (sympy.Integer(1),) * x.ndim, dtypes.I64)
        if x.ndim is None:
            return tensor(None, dtypes.I64)
        axis = normalize_axis(axis, x.ndim)
        if x.dims is None:
            return tensor(x.ndim if keepdims else x.ndim - 1, dtypes.I64)
        require_le(facts, 1, x.dims[axis], f"{cls.name}: the axis is not empty")
        dims = list(x.dims)
        if keepdims:
            dims[axis] = sympy.Integer(1)
        else:
            del dims[axis]
        return tensor(tuple(dims), dtypes.I64)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        axis = prop_int(props, "axis")
        keepdims = prop_bool(props, "keepdims")
        data = x.reshape(-1) if axis is None else x
        along = 0 if axis is None else normalize_axis(axis, x.ndim)
        if prop_bool(props, "select_last_index"):
            flipped = np.flip(data, along)
            found = data.shape[along] - 1 - cls.NUMPY_FN(flipped, axis=along)
        else:
            found = cls.NUMPY_FN(data, axis=along)
        if keepdims:
            found = found.reshape((1,) * x.ndim) if axis is None else np.expand_dims(found, along)
        return numpy_result(found, np.int64)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        axis = prop_int(props, "axis")
        if axis is None:
            x, axis = reshaped(x, (dims_product(x.shape),), "flat"), 0
        axis = normalize_axis(axis, x.ndim)
        size = x.shape[axis]
        kept = [d for a, d in enumerate(x.shape) if a != axis]

        def at(i: Sequence[Any], k: Any) -> te.Expr:
            return x[(*i[:axis], k, *i[axis:])]

        def extreme_of(*i: Any) -> te.Expr:
            k = te.reduce_axis(0, size, "k")
            return cls.TE_FN(at(i, k), [k])

        extreme = te.compute(kept, extreme_of, "extreme")
        last = prop_bool(props, "select_last_index")
        keepdims = prop_bool(props, "keepdims") and prop_int(props, "axis") is not None

        def body(*i: Any) -> te.Expr:
            i = (*i[:axis], *i[axis + 1 :]) if keepdims else i
            if prop_int(props, "axis") is None:
                i = ()
            k = te.reduce_axis(0, size, "k")
            value = at(i, k)
            hit = value == extreme[i]
            if dtypes.is_float(x.dtype):
                hit = hit | (value != value)  # a NaN is the extreme
            position = te.index(k)
            if last:
                return te.max(te.if_then_else(hit, position, te.index(-1)), [k])
            return te.min(te.if_then_else(hit, position, te.index(size)), [k])

        return te.compute(result_dims(result_type), body, OUTPUT)


@irdl_op_definition
class ArgmaxOp(ArgReduceOp):
    """``relax.argmax``: the position of the largest element (see :class:`ArgReduceOp`)."""

    name = "relax.argmax"
    NUMPY_FN = staticmethod(np.argmax)
    TE_FN = staticmethod(te.max)


@irdl_op_definition
class ArgminOp(ArgReduceOp):
    """``relax.argmin``: the position of the smallest element (see :class:`ArgReduceOp`)."""

    name = "relax.argmin"
    NUMPY_FN = staticmethod(np.argmin)
    TE_FN = staticmethod(te.min)


REDUCE_OPS = (SumOp, MeanOp, MaxOp, MinOp, ProdOp)
ARG_REDUCE_OPS = (ArgmaxOp, ArgminOp)
