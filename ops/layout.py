"""Operators that place elements without computing new ones: broadcast_to, pad and
slice_scatter (the functional form of writing into a slice, ``x[a:b:s] = src``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xrelax.dialects.relax import RelaxError, ShapeType, TensorType, show_type
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.obligations import Facts
from xrelax.dialects.shapes.symbolic import Fact
from xrelax.ops import te
from xrelax.ops.base import (
    I64_ARRAY_PROP,
    I64_PROP,
    OUTPUT,
    OperatorOp,
    Props,
    expect_shape,
    expect_tensor,
    normalize_axis,
    numpy_result,
    prop_int,
    prop_ints,
    require,
    require_equal,
    require_props,
    result_dims,
    same_dtype,
    tensor,
)
from xrelax.ops.manipulate import slice_length, slice_start


def _expect_fill(type_: Attribute, x: TensorType) -> None:
    fill = expect_tensor(type_, "fill value")
    if fill.ndim is not None and fill.ndim != 0:
        raise RelaxError(f"expected a 0-d tensor as the fill value, got {show_type(fill)}")
    same_dtype([x, fill])


# ------------------------------------------------------------------------------ broadcast_to


@irdl_op_definition
class BroadcastToOp(OperatorOp):
    """``relax.broadcast_to``: x repeated along its size-1 (or missing leading) axes to
    the shape of the ``shape`` operand (numpy.broadcast_to), for any element type."""

    name = "relax.broadcast_to"

    x = operand_def(TensorType)
    shape = operand_def(ShapeType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        shape = expect_shape(operand_types[1], "shape operand")
        rank = shape.ndim
        if rank is None:
            return tensor(None, x.dtype)
        if x.ndim is not None and x.ndim > rank:
            raise RelaxError(f"cannot broadcast {show_type(x)} to rank {rank}")
        if shape.dims is None:
            return tensor(rank, x.dtype)
        target = shape.dims
        if x.dims is not None:
            offset = rank - len(x.dims)
            shown = symbolic.format_dims(target)
            for axis, dim in enumerate(x.dims):
                wanted = target[offset + axis]
                if dim == 1 or symbolic.prove_equal(dim, wanted):
                    continue
                if symbolic.prove_not_equal(dim, wanted) and symbolic.prove_not_equal(dim, 1):
                    raise RelaxError(
                        f"cannot broadcast {show_type(x)} to {shown}: dimension {axis} is "
                        f"{symbolic.format_expr(dim)}, neither 1 nor {symbolic.format_expr(wanted)}"
                    )
                # A size that is 1 only at run time broadcasts too, as in numpy (the
                # kernel reads such an axis at min(i, dim - 1)).
                require(
                    facts,
                    Fact(
                        (dim - 1) * (dim - wanted),
                        "==",
                        sympy.Integer(0),
                        f"relax.broadcast_to {shown}: dimension {axis} of the input is 1 or "
                        "the target's",
                    ),
                )
        return tensor(target, x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, shape = inputs
        return numpy_result(np.broadcast_to(x, tuple(int(d) for d in shape)).copy())

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x, _) = inputs
        dims = result_dims(result_type)
        offset = len(dims) - x.ndim

        def position(axis: int, i: sympy.Expr) -> sympy.Expr:
            dim, wanted = x.shape[axis], dims[offset + axis]
            if dim == 1:
                return sympy.Integer(0)
            if symbolic.prove_equal(dim, wanted):
                return i
            return symbolic.smin(i, dim - 1)  # 1 or the target's size, known at run time

        return te.compute(
            dims, lambda *i: x[tuple(position(a, i[offset + a]) for a in range(x.ndim))], OUTPUT
        )


# ------------------------------------------------------------------------------ pad


def _pad_width(props: Props, rank: int) -> list[tuple[int, int]]:
    """``(before, after)`` per axis from ``pad_width``: the pairs of each axis in order."""
    require_props(props, "pad_width")
    widths = prop_ints(props, "pad_width")
    if len(widths) != 2 * rank:
        raise RelaxError(
            f"expected 'pad_width' to have 2 values per axis ({2 * rank}), got {widths}"
        )
    if any(w < 0 for w in widths):
        raise RelaxError(f"expected non-negative 'pad_width', got {widths}")
    return [(widths[2 * a], widths[2 * a + 1]) for a in range(rank)]


@irdl_op_definition
class PadOp(OperatorOp):
    """``relax.pad``: x surrounded along each axis by ``pad_width`` (before and after
    counts, one pair per axis) elements of the 0-d ``fill`` (numpy.pad, constant mode)."""

    name = "relax.pad"

    x = operand_def(TensorType)
    fill = operand_def(TensorType)
    pad_width = prop_def(I64_ARRAY_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        _expect_fill(operand_types[1], x)
        if x.ndim is None:
            require_props(properties, "pad_width")
            return tensor(None, x.dtype)
        widths = _pad_width(properties, x.ndim)
        if x.dims is None:
            return tensor(x.ndim, x.dtype)
        dims = tuple(
            sympy.expand(d + before + after)
            for d, (before, after) in zip(x.dims, widths, strict=True)
        )
        return tensor(dims, x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, fill = inputs
        widths = _pad_width(props, x.ndim)
        if not widths:
            return numpy_result(x.copy())
        return numpy_result(np.pad(x, widths, constant_values=fill), x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        x, fill = inputs
        widths = _pad_width(props, x.ndim)
        if any(dim == 0 for dim in x.shape):
            return te.compute(result_dims(result_type), lambda *i: fill[()], OUTPUT)

        def body(*i: sympy.Expr) -> te.Expr:
            index = [k - before for k, (before, _) in zip(i, widths, strict=True)]
            inside = sympy.And(
                *(
                    sympy.And(k >= before, k < before + size)
                    for k, (before, after), size in zip(i, widths, x.shape, strict=True)
                    if before or after
                )
            )
            # A padded load: no element of an empty x is read.
            return te.if_then_else(inside, x.get(index, pad=_zero(x.dtype)), fill[()])

        return te.compute(result_dims(result_type), body, OUTPUT)


# ------------------------------------------------------------------------------ slice_scatter


def _scatter_spec(props: Props, rank: int) -> tuple[int, int | None, int | None, int]:
    require_props(props, "axis")
    axis = normalize_axis(prop_int(props, "axis"), rank)
    begin, end = prop_int(props, "begin"), prop_int(props, "end")
    step = prop_int(props, "step", 1)
    if step < 1:
        raise RelaxError(f"expected a positive step, got {step}")
    return axis, begin, end, step


@irdl_op_definition
class SliceScatterOp(OperatorOp):
    """``relax.slice_scatter``: x with the slice ``x[begin:end:step]`` along ``axis``
    replaced by ``src`` (torch.slice_scatter; ``begin`` absent: 0, ``end`` absent: the
    size, ``step`` absent: 1; the bounds as in numpy slicing)."""

    name = "relax.slice_scatter"

    x = operand_def(TensorType)
    src = operand_def(TensorType)
    axis = prop_def(I64_PROP)
    begin = opt_prop_def(I64_PROP)
    end = opt_prop_def(I64_PROP)
    step = opt_prop_def(I64_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        src = expect_tensor(operand_types[1], "src operand")
        dtype = same_dtype([x, src])
        if x.ndim is None:
            return tensor(None, dtype)
        if src.ndim is not None and src.ndim != x.ndim:
            raise RelaxError(f"expected src of rank {x.ndim}, got {show_type(src)}")
        axis, begin, end, step = _scatter_spec(properties, x.ndim)
        if x.dims is None:
            return tensor(x.ndim, dtype)
        if src.dims is not None:
            expected = list(x.dims)
            expected[axis] = slice_length(begin, end, step, x.dims[axis])
            for k, (want, got) in enumerate(zip(expected, src.dims, strict=True)):
                if symbolic.prove_not_equal(want, got):
                    raise RelaxError(
                        f"expected src of shape {symbolic.format_dims(tuple(expected))} (the "
                        f"slice), got {show_type(src)} (dimension {k})"
                    )
                require_equal(
                    facts, got, want, f"relax.slice_scatter: src dimension {k} is the slice's"
                )
        return tensor(x.dims, dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, src = inputs
        axis, begin, end, step = _scatter_spec(props, x.ndim)
        result = x.copy()
        index = [slice(None)] * x.ndim
        index[axis] = slice(begin, end, step)
        result[tuple(index)] = src
        return numpy_result(result)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        x, src = inputs
        axis, begin, _, step = _scatter_spec(props, x.ndim)
        start = slice_start(begin, step, x.shape[axis])
        count = src.shape[axis]
        if count == 0:
            return te.compute(result_dims(result_type), lambda *i: x[i], OUTPUT)

        def body(*i: sympy.Expr) -> te.Expr:
            k = i[axis] - start
            inside = sympy.And(i[axis] >= start, k < count * step)
            position = k
            if step != 1:
                inside = sympy.And(inside, sympy.Eq(symbolic.floormod(k, step), 0))
                position = symbolic.floordiv(k, step)
            # A padded load: an empty src is never read.
            value = src.get((*i[:axis], position, *i[axis + 1 :]), pad=_zero(src.dtype))
            return te.if_then_else(inside, value, x[i])

        return te.compute(result_dims(result_type), body, OUTPUT)


def _zero(dtype: Attribute) -> te.Expr:
    return te.const(0, dtype)


LAYOUT_OPS = (BroadcastToOp, PadOp, SliceScatterOp)
