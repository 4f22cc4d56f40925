"""Tensor creation: zeros, ones and full of a shape value, arange, and (as in TVM) the
triangular parts tril and triu."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
import sympy
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xrelax.dialects import dtypes
from xrelax.dialects.relax import PrimType, RelaxError, ShapeType, TensorType, show_type
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.obligations import Facts
from xrelax.dialects.shapes.symbolic import Dims
from xrelax.ops import te
from xrelax.ops.base import (
    I64_PROP,
    OUTPUT,
    OperatorOp,
    Props,
    expect_dtype,
    expect_shape,
    expect_tensor,
    known_shape,
    numpy_result,
    prop_int,
    require_le,
    require_props,
    result_dims,
    tensor,
)


def _shape_of(shape: ShapeType) -> Dims | int | None:
    """The result shape given by a shape operand: dims, else the rank, else None."""
    return shape.dims if shape.dims is not None else shape.ndim


def _expect_scalar(type_: Attribute, what: str) -> TensorType:
    scalar = expect_tensor(type_, what)
    if scalar.ndim is not None and scalar.ndim != 0:
        raise RelaxError(f"expected a 0-d tensor as {what}, got {show_type(scalar)}")
    return scalar


class FilledOp(OperatorOp):
    """``%r = relax.NAME %shape {dtype = f32}``: a tensor of the given shape and element
    type with every element set to ``FILL``."""

    shape = operand_def(ShapeType)
    dtype = prop_def(TypeAttribute)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    FILL: ClassVar[int]

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        shape = expect_shape(operand_types[0], "shape operand")
        require_props(properties, "dtype")
        return tensor(_shape_of(shape), expect_dtype(properties["dtype"]))

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (shape,) = inputs
        return np.full(tuple(shape), cls.FILL, dtypes.numpy_dtype(props["dtype"]))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        fill = te.const(cls.FILL, props["dtype"])
        return te.compute(result_dims(result_type), lambda *i: fill, OUTPUT)


@irdl_op_definition
class ZerosOp(FilledOp):
    """``relax.zeros``: a tensor of zeros."""

    name = "relax.zeros"
    FILL: ClassVar[int] = 0


@irdl_op_definition
class OnesOp(FilledOp):
    """``relax.ones``: a tensor of ones."""

    name = "relax.ones"
    FILL: ClassVar[int] = 1


@irdl_op_definition
class FullOp(OperatorOp):
    """``relax.full``: a tensor of the given shape with every element ``fill``, a 0-d
    tensor or a prim value (a symbolic integer), of ``dtype`` (absent: the element type
    of ``fill``)."""

    name = "relax.full"

    shape = operand_def(ShapeType)
    fill = operand_def(TensorType | PrimType)
    dtype = opt_prop_def(TypeAttribute)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        shape = expect_shape(operand_types[0], "shape operand")
        fill = operand_types[1]
        if not isinstance(fill, PrimType):
            fill = _expect_scalar(fill, "fill value")
        dtype = properties.get("dtype")
        return tensor(_shape_of(shape), fill.dtype if dtype is None else expect_dtype(dtype))

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        shape, fill = inputs
        fill = np.asarray(fill, np.int64 if isinstance(fill, int) else None)
        dtype = fill.dtype if "dtype" not in props else dtypes.numpy_dtype(props["dtype"])
        return np.full(tuple(shape), fill, dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        _, fill = inputs
        if isinstance(fill, sympy.Expr):
            value = te.index(fill, props.get("dtype", dtypes.I64))
        else:
            value = te.cast(fill[()], props.get("dtype", fill.dtype))
        return te.compute(result_dims(result_type), lambda *i: value, OUTPUT)


def _arange_length(
    start: sympy.Expr, end: sympy.Expr, step: sympy.Expr, facts: Facts
) -> sympy.Expr:
    """The number of elements of ``arange(start, end, step)`` for symbolic bounds; the
    facts it relies on (a positive symbolic step, a range that is not reversed) are
    required."""
    if step.is_Integer and step < 0:
        length = symbolic.floordiv(start - end - step - 1, -step)
    else:
        if step == 0:
            raise RelaxError("relax.arange: the step is 0")
        require_le(facts, 1, step, "relax.arange: a symbolic step is positive")
        length = symbolic.floordiv(end - start + step - 1, step)
    require_le(
        facts, 0, length, "relax.arange: the range is not reversed (its length is not negative)"
    )
    return length


@irdl_op_definition
class ArangeOp(OperatorOp):
    """``relax.arange``: start, start + step, ... up to (excluding) end (``dtype`` absent:
    i64). With ``!relax.prim`` operands of known values the length is symbolic
    (``[n]`` for 0, n, 1); with 0-d i64 tensors it depends on their values (the safety
    net)."""

    name = "relax.arange"

    start = operand_def(TensorType | PrimType)
    end = operand_def(TensorType | PrimType)
    step = operand_def(TensorType | PrimType)
    dtype = opt_prop_def(TypeAttribute)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        values: list[sympy.Expr | None] = []
        for type_, what in zip(operand_types, ("start", "end", "step"), strict=True):
            if isinstance(type_, PrimType):
                values.append(type_.expr)
                continue
            scalar = _expect_scalar(type_, what)
            if scalar.known_dtype is not None and scalar.dtype != dtypes.I64:
                raise RelaxError(f"expected an i64 tensor as {what}, got {show_type(scalar)}")
            values.append(None)
        dtype = properties.get("dtype")
        dtype = dtypes.I64 if dtype is None else expect_dtype(dtype)
        start, end, step = values
        if start is None or end is None or step is None:
            return tensor(1, dtype)
        return tensor((_arange_length(start, end, step, facts),), dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        start, end, step = (int(v) for v in inputs)
        dtype = dtypes.numpy_dtype(props.get("dtype", dtypes.I64))
        return numpy_result(np.arange(start, end, step), dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        start, _, step = inputs
        dtype = props.get("dtype", dtypes.I64)
        return te.compute(
            result_dims(result_type), lambda i: te.index(start + i * step, dtype), OUTPUT
        )


class TriangularOp(OperatorOp):
    """``%r = relax.NAME %x {k = 1 : i64}``: x (rank >= 2) with the entries of each matrix
    of its last two axes outside one side of diagonal ``k`` (absent: 0) set to zero."""

    x = operand_def(TensorType)
    k = opt_prop_def(I64_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    NUMPY_FN: ClassVar[Callable[[np.ndarray, int], np.ndarray]]
    KEEP: ClassVar[Callable[[Any, int], Any]]
    """``KEEP(j - i, k)``: whether the entry in row i, column j is kept."""

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        if x.ndim is not None and x.ndim < 2:
            raise RelaxError(f"expected a tensor of rank >= 2, got {show_type(x)}")
        return tensor(known_shape(x), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        # A diagonal beyond the matrix keeps everything or nothing: clamped, numpy can
        # compute k - 1 and k + 1 (it cannot at the i64 limits).
        rows, columns = x.shape[-2:]
        k = min(max(prop_int(props, "k", 0), -rows - 1), columns + 1)
        return numpy_result(cls.NUMPY_FN(x, k), x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        k = prop_int(props, "k", 0)
        zero = te.const(0, x.dtype)
        return te.compute(
            result_dims(result_type),
            lambda *i: te.if_then_else(cls.KEEP(i[-1] - i[-2], k), x[i], zero),
            OUTPUT,
        )


@irdl_op_definition
class TrilOp(TriangularOp):
    """``relax.tril``: the lower triangle, on and below diagonal k (numpy.tril)."""

    name = "relax.tril"
    NUMPY_FN = staticmethod(np.tril)
    KEEP = staticmethod(operator.le)


@irdl_op_definition
class TriuOp(TriangularOp):
    """``relax.triu``: the upper triangle, on and above diagonal k (numpy.triu)."""

    name = "relax.triu"
    NUMPY_FN = staticmethod(np.triu)
    KEEP = staticmethod(operator.ge)


CREATE_OPS = (ZerosOp, OnesOp, FullOp, ArangeOp, TrilOp, TriuOp)
