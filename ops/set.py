"""Set operators and other data-dependent selections: ``unique``, ``unique_all`` (the
array API's: values, first positions, inverse positions and counts) and ``nonzero``.
Their result lengths depend on the values: they run on the safety net, and the
importers name the lengths with ``relax.match_shape``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType, TupleType, show_type
from xrelax.ops.base import (
    I64_PROP,
    OperatorOp,
    Props,
    dims_product,
    expect_tensor,
    normalize_axis,
    numpy_result,
    prop_bool,
    prop_int,
    tensor,
)


@irdl_op_definition
class UniqueOp(OperatorOp):
    """``relax.unique``: the sorted distinct elements of x, as a 1-D tensor whose length
    depends on the values."""

    name = "relax.unique"

    x = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        x = expect_tensor(operand_types[0])
        return tensor(1, x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        return numpy_result(np.unique(x))


@irdl_op_definition
class UniqueAllOp(OperatorOp):
    """``relax.unique_all``: the distinct elements of x (absent ``axis``: of the flattened
    x; else the distinct slices along ``axis``), sorted (``sorted = false``: in order of
    first occurrence), with the i64 position of each one's first occurrence, the position
    of each element (slice) of x among them, and how often each occurs."""

    name = "relax.unique_all"

    x = operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    sorted = opt_prop_def(BoolAttr)
    result = result_def(TupleType)
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        x = expect_tensor(operand_types[0])
        axis = prop_int(properties, "axis")
        i64 = dtypes.I64
        if axis is None:
            count = (dims_product(x.dims),) if x.dims is not None else 1
            return TupleType.of(
                [tensor(1, x.dtype), tensor(1, i64), tensor(count, i64), tensor(1, i64)]
            )
        if x.ndim is None:
            values, count = tensor(None, x.dtype), 1
        else:
            if x.ndim == 0:
                raise RelaxError(f"expected x of rank at least 1 for an axis, got {show_type(x)}")
            axis = normalize_axis(axis, x.ndim)
            values = tensor(x.ndim, x.dtype)
            count = (x.dims[axis],) if x.dims is not None else 1
        return TupleType.of([values, tensor(1, i64), tensor(count, i64), tensor(1, i64)])

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        axis = prop_int(props, "axis")
        if axis is not None:
            axis = normalize_axis(axis, x.ndim)
        values, first, inverse, counts = np.unique(
            x, return_index=True, return_inverse=True, return_counts=True, axis=axis
        )
        inverse = inverse.reshape(-1)
        if not prop_bool(props, "sorted", True):
            order = np.argsort(first, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            values = np.take(values, order, axis=0 if axis is None else axis)
            first, counts, inverse = first[order], counts[order], rank[inverse]
        return (
            numpy_result(values, x.dtype),
            numpy_result(first, np.int64),
            numpy_result(inverse, np.int64),
            numpy_result(counts, np.int64),
        )


@irdl_op_definition
class NonzeroOp(OperatorOp):
    """``relax.nonzero``: the i64 positions of the non-zero elements of x, one column per
    element in row-major order and one row per axis (numpy.nonzero stacked)."""

    name = "relax.nonzero"

    x = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        x = expect_tensor(operand_types[0])
        if x.ndim == 0:
            raise RelaxError(f"expected x of rank at least 1, got {show_type(x)}")
        return tensor(2, dtypes.I64)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        positions = np.nonzero(x)
        return numpy_result(np.stack(positions).astype(np.int64).reshape(x.ndim, -1))


SET_OPS = (UniqueOp, UniqueAllOp, NonzeroOp)
