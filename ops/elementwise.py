"""Elementwise operators: unary maps and numpy-broadcasting binary maps."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from xrelax.dialects.relax import TensorType
from xrelax.ops.base import (
    OperatorOp,
    Props,
    broadcast_shape,
    expect_tensor,
    known_shape,
    same_dtype,
    tensor,
)


class UnaryOp(OperatorOp):
    """``%r = relax.NAME %x : (T) -> T``: a map of one tensor, same shape and dtype."""

    x = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    NUMPY_FN: ClassVar[Callable[[np.ndarray], np.ndarray]]

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        x = expect_tensor(operand_types[0])
        return tensor(known_shape(x), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        return np.asarray(cls.NUMPY_FN(x)).astype(x.dtype, copy=False)


@irdl_op_definition
class ExpOp(UnaryOp):
    """``relax.exp``: e to the power of x."""

    name = "relax.exp"
    NUMPY_FN = staticmethod(np.exp)


@irdl_op_definition
class NegativeOp(UnaryOp):
    """``relax.negative``: -x."""

    name = "relax.negative"
    NUMPY_FN = staticmethod(np.negative)


class BinaryOp(OperatorOp):
    """``%r = relax.NAME %a, %b : (A, B) -> R``: numpy-broadcasting map of two tensors."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    NUMPY_FN: ClassVar[Callable[[np.ndarray, np.ndarray], np.ndarray]]

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        a, b = (expect_tensor(t) for t in operand_types)
        return tensor(broadcast_shape([a, b]), same_dtype([a, b]))

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        a, b = inputs
        return np.asarray(cls.NUMPY_FN(a, b)).astype(a.dtype, copy=False)


@irdl_op_definition
class AddOp(BinaryOp):
    """``relax.add``: a + b."""

    name = "relax.add"
    NUMPY_FN = staticmethod(np.add)


ELEMENTWISE_OPS = (ExpOp, NegativeOp, AddOp)
