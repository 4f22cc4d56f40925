"""More elementwise maps: trigonometric and special functions (``sin``, ``cos``, ``erf``,
``isnan``), C's remainder ``fmod``, and the bitwise operators on integers and booleans
(``bitwise_and``, ``bitwise_or``, ``bitwise_xor``)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition

from xrelax.backends.kernels.runtime import erf
from xrelax.dialects import dtypes
from xrelax.ops import te
from xrelax.ops.base import (
    INTEGER,
    DtypeKind,
    Props,
    check_dtype,
    expect_tensor,
    known_shape,
    numpy_result,
    tensor,
)
from xrelax.ops.elementwise import BinaryOp, FloatUnaryOp

INTEGER_OR_BOOL = DtypeKind("an integer or i1", INTEGER.members | {dtypes.I1})


@irdl_op_definition
class SinOp(FloatUnaryOp):
    """``relax.sin``: the sine of x (radians)."""

    name = "relax.sin"
    NUMPY_FN = staticmethod(np.sin)
    TE_FN = staticmethod(te.sin)


@irdl_op_definition
class CosOp(FloatUnaryOp):
    """``relax.cos``: the cosine of x (radians)."""

    name = "relax.cos"
    NUMPY_FN = staticmethod(np.cos)
    TE_FN = staticmethod(te.cos)


@irdl_op_definition
class ErfOp(FloatUnaryOp):
    """``relax.erf``: the error function of x."""

    name = "relax.erf"
    NUMPY_FN = staticmethod(erf)
    TE_FN = staticmethod(te.erf)


@irdl_op_definition
class IsNanOp(FloatUnaryOp):
    """``relax.isnan``: whether x is NaN (an ``i1`` tensor of the shape of x)."""

    name = "relax.isnan"
    NUMPY_FN = staticmethod(np.isnan)
    TE_FN = staticmethod(lambda x: x != x)  # only NaN is unordered with itself

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        x = expect_tensor(operand_types[0])
        check_dtype(x, cls.DTYPES)
        return tensor(known_shape(x), dtypes.I1)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        return numpy_result(np.isnan(x))


@irdl_op_definition
class FmodOp(BinaryOp):
    """``relax.fmod``: the remainder of a / b truncated toward zero, with the sign of a
    (C's ``fmod``, numpy.fmod, torch.fmod), exact; an integer divisor of 0 gives 0."""

    name = "relax.fmod"
    NUMPY_FN = staticmethod(np.fmod)
    TE_FN = staticmethod(te.fmod)


class BitwiseOp(BinaryOp):
    """A broadcasting bitwise map of integer or boolean (``i1``) tensors."""

    DTYPES: ClassVar[DtypeKind] = INTEGER_OR_BOOL


@irdl_op_definition
class BitwiseAndOp(BitwiseOp):
    """``relax.bitwise_and``: a & b (logical and on ``i1``)."""

    name = "relax.bitwise_and"
    NUMPY_FN = staticmethod(np.bitwise_and)
    TE_FN = staticmethod(operator.and_)


@irdl_op_definition
class BitwiseOrOp(BitwiseOp):
    """``relax.bitwise_or``: a | b (logical or on ``i1``)."""

    name = "relax.bitwise_or"
    NUMPY_FN = staticmethod(np.bitwise_or)
    TE_FN = staticmethod(operator.or_)


@irdl_op_definition
class BitwiseXorOp(BitwiseOp):
    """``relax.bitwise_xor``: a ^ b (logical exclusive or on ``i1``)."""

    name = "relax.bitwise_xor"
    NUMPY_FN = staticmethod(np.bitwise_xor)
    TE_FN = staticmethod(operator.xor)


MATH_OPS = (SinOp, CosOp, ErfOp, IsNanOp, FmodOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp)
