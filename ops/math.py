"""More elementwise maps: trigonometric, hyperbolic and special functions (``sin``,
``atanh``, ``erf``, ``log1p``, ...), rounding (``floor``, ``ceil``, ``round``), ``isnan``,
C's remainder ``fmod``, and the bitwise operators on integers and booleans
(``bitwise_and``, ``bitwise_or``, ``bitwise_xor``)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition

from xrelax.dialects import dtypes
from xrelax.dialects.shapes.obligations import Facts
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
from xrelax.ops.erf import erf

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
class TanOp(FloatUnaryOp):
    """``relax.tan``: the tangent of x (radians)."""

    name = "relax.tan"
    NUMPY_FN = staticmethod(np.tan)
    TE_FN = staticmethod(te.tan)


@irdl_op_definition
class SinhOp(FloatUnaryOp):
    """``relax.sinh``: the hyperbolic sine of x."""

    name = "relax.sinh"
    NUMPY_FN = staticmethod(np.sinh)
    TE_FN = staticmethod(te.sinh)


@irdl_op_definition
class CoshOp(FloatUnaryOp):
    """``relax.cosh``: the hyperbolic cosine of x."""

    name = "relax.cosh"
    NUMPY_FN = staticmethod(np.cosh)
    TE_FN = staticmethod(te.cosh)


@irdl_op_definition
class AsinOp(FloatUnaryOp):
    """``relax.asin``: the arcsine of x (NaN outside [-1, 1])."""

    name = "relax.asin"
    NUMPY_FN = staticmethod(np.arcsin)
    TE_FN = staticmethod(te.asin)


@irdl_op_definition
class AcosOp(FloatUnaryOp):
    """``relax.acos``: the arccosine of x (NaN outside [-1, 1])."""

    name = "relax.acos"
    NUMPY_FN = staticmethod(np.arccos)
    TE_FN = staticmethod(te.acos)


@irdl_op_definition
class AtanOp(FloatUnaryOp):
    """``relax.atan``: the arctangent of x."""

    name = "relax.atan"
    NUMPY_FN = staticmethod(np.arctan)
    TE_FN = staticmethod(te.atan)


@irdl_op_definition
class AsinhOp(FloatUnaryOp):
    """``relax.asinh``: the inverse hyperbolic sine of x."""

    name = "relax.asinh"
    NUMPY_FN = staticmethod(np.arcsinh)
    TE_FN = staticmethod(te.asinh)


@irdl_op_definition
class AcoshOp(FloatUnaryOp):
    """``relax.acosh``: the inverse hyperbolic cosine of x (NaN below 1)."""

    name = "relax.acosh"
    NUMPY_FN = staticmethod(np.arccosh)
    TE_FN = staticmethod(te.acosh)


@irdl_op_definition
class AtanhOp(FloatUnaryOp):
    """``relax.atanh``: the inverse hyperbolic tangent of x (NaN outside [-1, 1])."""

    name = "relax.atanh"
    NUMPY_FN = staticmethod(np.arctanh)
    TE_FN = staticmethod(te.atanh)


@irdl_op_definition
class FloorOp(FloatUnaryOp):
    """``relax.floor``: x rounded toward -inf."""

    name = "relax.floor"
    NUMPY_FN = staticmethod(np.floor)
    TE_FN = staticmethod(te.floor)


@irdl_op_definition
class CeilOp(FloatUnaryOp):
    """``relax.ceil``: x rounded toward +inf."""

    name = "relax.ceil"
    NUMPY_FN = staticmethod(np.ceil)
    TE_FN = staticmethod(te.ceil)


@irdl_op_definition
class RoundOp(FloatUnaryOp):
    """``relax.round``: x rounded to the nearest integer, halves to even (numpy, ONNX
    ``Round``, torch)."""

    name = "relax.round"
    NUMPY_FN = staticmethod(np.rint)
    TE_FN = staticmethod(te.roundeven)


@irdl_op_definition
class Log1pOp(FloatUnaryOp):
    """``relax.log1p``: log(1 + x), accurate for small x."""

    name = "relax.log1p"
    NUMPY_FN = staticmethod(np.log1p)
    TE_FN = staticmethod(te.log1p)


@irdl_op_definition
class Expm1Op(FloatUnaryOp):
    """``relax.expm1``: exp(x) - 1, accurate for small x."""

    name = "relax.expm1"
    NUMPY_FN = staticmethod(np.expm1)
    TE_FN = staticmethod(te.expm1)


@irdl_op_definition
class Log2Op(FloatUnaryOp):
    """``relax.log2``: the logarithm of x to base 2."""

    name = "relax.log2"
    NUMPY_FN = staticmethod(np.log2)
    TE_FN = staticmethod(te.log2)


@irdl_op_definition
class Log10Op(FloatUnaryOp):
    """``relax.log10``: the logarithm of x to base 10."""

    name = "relax.log10"
    NUMPY_FN = staticmethod(np.log10)
    TE_FN = staticmethod(te.log10)


@irdl_op_definition
class Exp2Op(FloatUnaryOp):
    """``relax.exp2``: 2 to the power of x."""

    name = "relax.exp2"
    NUMPY_FN = staticmethod(np.exp2)
    TE_FN = staticmethod(te.exp2)


@irdl_op_definition
class IsNanOp(FloatUnaryOp):
    """``relax.isnan``: whether x is NaN (an ``i1`` tensor of the shape of x)."""

    name = "relax.isnan"
    NUMPY_FN = staticmethod(np.isnan)
    TE_FN = staticmethod(lambda x: x != x)  # only NaN is unordered with itself

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
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


FLOAT_MAPS = (
    SinOp, CosOp, ErfOp, TanOp, SinhOp, CoshOp, AsinOp, AcosOp, AtanOp, AsinhOp, AcoshOp,
    AtanhOp, FloorOp, CeilOp, RoundOp, Log1pOp, Expm1Op, Log2Op, Log10Op, Exp2Op,
)  # fmt: skip
"""The float maps of this module (the same shape of tests applies to each)."""
MATH_OPS = (*FLOAT_MAPS, IsNanOp, FmodOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp)
