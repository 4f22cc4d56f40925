"""Elementwise operators: unary maps, numpy-broadcasting binary maps and comparisons,
``where`` and ``astype``."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType, show_type
from xrelax.dialects.shapes.obligations import Facts
from xrelax.ops import te
from xrelax.ops.base import (
    ANY_DTYPE,
    FLOAT,
    NUMERIC,
    OUTPUT,
    DtypeKind,
    OperatorOp,
    Props,
    accumulator,
    broadcast_load,
    broadcast_shape,
    check_dtype,
    expect_dtype,
    expect_tensor,
    known_shape,
    numpy_accumulator,
    numpy_result,
    require_props,
    result_dims,
    same_dtype,
    tensor,
)
from xrelax.ops.canonicalize import (
    NeutralElementCanonicalization,
    ShapeOperatorCanonicalization,
)
from xrelax.ops.erf import erf

# ------------------------------------------------------------------------------ numerics


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp of a non-positive argument never overflows and keeps the relative accuracy of
    # tiny results, unlike 1 / (1 + exp(-x)) and the tanh form.
    x = np.asarray(x, np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _gelu(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float64)
    return 0.5 * x * (1 + erf(x / np.sqrt(2.0)))


def _silu(x: np.ndarray) -> np.ndarray:
    return x * _sigmoid(x)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, np.zeros((), x.dtype))


def _te_gelu(x: te.Expr) -> te.Expr:
    return x * 0.5 * (1.0 + te.erf(x * (1 / math.sqrt(2.0))))


def _te_maximum(a: te.Expr, b: te.Expr) -> te.Expr:
    return a | b if a.dtype == dtypes.I1 else te.maximum(a, b)


def _te_minimum(a: te.Expr, b: te.Expr) -> te.Expr:
    return a & b if a.dtype == dtypes.I1 else te.minimum(a, b)


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.integer):
        # Integer division truncates toward zero, as TIR's Div does: the floored quotient,
        # plus one where it was inexact and the signs differ (|INT_MIN| does not exist).
        with np.errstate(divide="ignore", over="ignore"):
            quotient = np.floor_divide(a, b)
            inexact = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        return np.where(inexact, quotient + 1, quotient).astype(quotient.dtype)
    return np.true_divide(a, b)


# ------------------------------------------------------------------------------ unary


class UnaryOp(OperatorOp):
    """``%r = relax.NAME %x : (T) -> T``: a map of one tensor, same shape and dtype."""

    x = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    DTYPES: ClassVar[DtypeKind] = NUMERIC
    NUMPY_FN: ClassVar[Callable[[np.ndarray], np.ndarray]]
    TE_FN: ClassVar[Callable[[te.Expr], te.Expr]]

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        check_dtype(x, cls.DTYPES)
        return tensor(known_shape(x), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        return numpy_result(cls.NUMPY_FN(x), x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        return te.compute(result_dims(result_type), lambda *i: cls.TE_FN(x[i]), OUTPUT)


class FloatUnaryOp(UnaryOp):
    """A unary map defined on floating-point tensors only; f16 and bf16 are computed in
    f32 and rounded once (``gelu``'s ``1 + erf`` in f16 cancels to 0)."""

    DTYPES: ClassVar[DtypeKind] = FLOAT

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        result = cls.NUMPY_FN(x.astype(numpy_accumulator(x.dtype), copy=False))
        return numpy_result(result, None if result.dtype == np.bool_ else x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        wide, dtype = accumulator(x.dtype), result_type.dtype  # type: ignore[attr-defined]
        return te.compute(
            result_dims(result_type),
            lambda *i: te.cast(cls.TE_FN(te.cast(x[i], wide)), dtype),
            OUTPUT,
        )


@irdl_op_definition
class ExpOp(FloatUnaryOp):
    """``relax.exp``: e to the power of x."""

    name = "relax.exp"
    NUMPY_FN = staticmethod(np.exp)
    TE_FN = staticmethod(te.exp)


@irdl_op_definition
class LogOp(FloatUnaryOp):
    """``relax.log``: the natural logarithm of x."""

    name = "relax.log"
    NUMPY_FN = staticmethod(np.log)
    TE_FN = staticmethod(te.log)


@irdl_op_definition
class SqrtOp(FloatUnaryOp):
    """``relax.sqrt``: the square root of x."""

    name = "relax.sqrt"
    NUMPY_FN = staticmethod(np.sqrt)
    TE_FN = staticmethod(te.sqrt)


@irdl_op_definition
class RsqrtOp(FloatUnaryOp):
    """``relax.rsqrt``: 1 / sqrt(x)."""

    name = "relax.rsqrt"
    NUMPY_FN = staticmethod(_rsqrt)
    TE_FN = staticmethod(te.rsqrt)


@irdl_op_definition
class TanhOp(FloatUnaryOp):
    """``relax.tanh``: the hyperbolic tangent of x."""

    name = "relax.tanh"
    NUMPY_FN = staticmethod(np.tanh)
    TE_FN = staticmethod(te.tanh)


@irdl_op_definition
class SigmoidOp(FloatUnaryOp):
    """``relax.sigmoid``: 1 / (1 + exp(-x))."""

    name = "relax.sigmoid"
    NUMPY_FN = staticmethod(_sigmoid)
    TE_FN = staticmethod(te.sigmoid)


@irdl_op_definition
class ReluOp(UnaryOp):
    """``relax.relu``: max(x, 0)."""

    name = "relax.relu"
    NUMPY_FN = staticmethod(_relu)
    TE_FN = staticmethod(lambda x: te.maximum(x, te.const(0, x.dtype)))


@irdl_op_definition
class GeluOp(FloatUnaryOp):
    """``relax.gelu``: x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))) (the exact, erf form)."""

    name = "relax.gelu"
    NUMPY_FN = staticmethod(_gelu)
    TE_FN = staticmethod(_te_gelu)


@irdl_op_definition
class SiluOp(FloatUnaryOp):
    """``relax.silu``: x * sigmoid(x)."""

    name = "relax.silu"
    NUMPY_FN = staticmethod(_silu)
    TE_FN = staticmethod(lambda x: x * te.sigmoid(x))


@irdl_op_definition
class NegativeOp(UnaryOp):
    """``relax.negative``: -x."""

    name = "relax.negative"
    NUMPY_FN = staticmethod(np.negative)
    TE_FN = staticmethod(operator.neg)


@irdl_op_definition
class AbsOp(UnaryOp):
    """``relax.abs``: |x|."""

    name = "relax.abs"
    NUMPY_FN = staticmethod(np.abs)
    TE_FN = staticmethod(te.abs)


# ------------------------------------------------------------------------------ binary


class BinaryOp(OperatorOp):
    """``%r = relax.NAME %a, %b : (A, B) -> R``: numpy-broadcasting map of two tensors
    of one element type."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    DTYPES: ClassVar[DtypeKind] = NUMERIC
    BROADCASTS: ClassVar[bool] = True
    NUMPY_FN: ClassVar[Callable[[np.ndarray, np.ndarray], np.ndarray]]
    TE_FN: ClassVar[Callable[[te.Expr, te.Expr], te.Expr]]

    @classmethod
    def result_dtype(cls, operand_dtype: Attribute) -> Attribute:
        """The result element type, given the (common) operand element type."""
        return operand_dtype

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        a, b = (expect_tensor(t) for t in operand_types)
        check_dtype(a, cls.DTYPES)
        check_dtype(b, cls.DTYPES)
        return tensor(broadcast_shape([a, b]), cls.result_dtype(same_dtype([a, b])))

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        a, b = inputs
        return numpy_result(cls.NUMPY_FN(a, b), a.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        a, b = inputs
        return te.compute(
            result_dims(result_type),
            lambda *i: cls.TE_FN(broadcast_load(a, i), broadcast_load(b, i)),
            OUTPUT,
        )


@irdl_op_definition
class AddOp(BinaryOp):
    """``relax.add``: a + b."""

    name = "relax.add"
    traits = traits_def(NeutralElementCanonicalization())
    NUMPY_FN = staticmethod(np.add)
    TE_FN = staticmethod(operator.add)


@irdl_op_definition
class SubtractOp(BinaryOp):
    """``relax.subtract``: a - b."""

    name = "relax.subtract"
    traits = traits_def(NeutralElementCanonicalization())
    NUMPY_FN = staticmethod(np.subtract)
    TE_FN = staticmethod(operator.sub)


@irdl_op_definition
class MultiplyOp(BinaryOp):
    """``relax.multiply``: a * b."""

    name = "relax.multiply"
    traits = traits_def(NeutralElementCanonicalization())
    NUMPY_FN = staticmethod(np.multiply)
    TE_FN = staticmethod(operator.mul)


@irdl_op_definition
class DivideOp(BinaryOp):
    """``relax.divide``: a / b; integer division truncates toward zero (TIR's Div)."""

    name = "relax.divide"
    traits = traits_def(NeutralElementCanonicalization())
    NUMPY_FN = staticmethod(_divide)
    TE_FN = staticmethod(operator.truediv)


def _power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not np.issubdtype(a.dtype, np.signedinteger):
        return np.power(a, b)
    # numpy refuses a negative integer exponent; C, torch and TVM truncate 1 / a ** -b.
    with np.errstate(over="ignore"):
        powers = np.power(a, np.maximum(b, 0))
    return np.where(b >= 0, powers, _inverse_power(a, b, np.where, a.dtype.type))


def _inverse_power(a: Any, b: Any, select: Any, scalar: Any) -> Any:
    """``a ** b`` for a negative integer ``b``, truncated: 1 for a = 1, ±1 for a = -1
    (the sign by b's parity), 0 otherwise (also for a = 0, as torch gives)."""
    odd = (b % 2) != 0
    minus_one = select(odd, scalar(-1), scalar(1))
    return select(a == 1, scalar(1), select(a == -1, minus_one, scalar(0)))


def _te_power(a: te.Expr, b: te.Expr) -> te.Expr:
    if dtypes.is_float(a.dtype) or dtypes.is_unsigned(a.dtype):
        return te.power(a, b)
    zero = te.const(0, b.dtype)
    powers = te.power(a, te.maximum(b, zero))
    inverse = _inverse_power(a, b, te.if_then_else, lambda v: te.const(v, a.dtype))
    return te.if_then_else(b >= zero, powers, inverse)


@irdl_op_definition
class PowerOp(BinaryOp):
    """``relax.power``: a to the power of b; an integer power with a negative exponent
    truncates ``1 / a ** -b`` (1, ±1 for a = -1, else 0), as C and torch do (numpy
    refuses it)."""

    name = "relax.power"
    NUMPY_FN = staticmethod(_power)
    TE_FN = staticmethod(_te_power)


@irdl_op_definition
class MaximumOp(BinaryOp):
    """``relax.maximum``: the larger of a and b."""

    name = "relax.maximum"
    DTYPES: ClassVar[DtypeKind] = ANY_DTYPE
    NUMPY_FN = staticmethod(np.maximum)
    TE_FN = staticmethod(_te_maximum)


@irdl_op_definition
class MinimumOp(BinaryOp):
    """``relax.minimum``: the smaller of a and b."""

    name = "relax.minimum"
    DTYPES: ClassVar[DtypeKind] = ANY_DTYPE
    NUMPY_FN = staticmethod(np.minimum)
    TE_FN = staticmethod(_te_minimum)


class CompareOp(BinaryOp):
    """A broadcasting comparison of two tensors of one element type; the result is ``i1``."""

    DTYPES: ClassVar[DtypeKind] = ANY_DTYPE

    @classmethod
    def result_dtype(cls, operand_dtype: Attribute) -> Attribute:
        return dtypes.I1

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        a, b = inputs
        return numpy_result(cls.NUMPY_FN(a, b), np.bool_)


@irdl_op_definition
class EqualOp(CompareOp):
    """``relax.equal``: a == b."""

    name = "relax.equal"
    NUMPY_FN = staticmethod(np.equal)
    TE_FN = staticmethod(operator.eq)


@irdl_op_definition
class NotEqualOp(CompareOp):
    """``relax.not_equal``: a != b."""

    name = "relax.not_equal"
    NUMPY_FN = staticmethod(np.not_equal)
    TE_FN = staticmethod(operator.ne)


@irdl_op_definition
class LessOp(CompareOp):
    """``relax.less``: a < b."""

    name = "relax.less"
    NUMPY_FN = staticmethod(np.less)
    TE_FN = staticmethod(operator.lt)


@irdl_op_definition
class LessEqualOp(CompareOp):
    """``relax.less_equal``: a <= b."""

    name = "relax.less_equal"
    NUMPY_FN = staticmethod(np.less_equal)
    TE_FN = staticmethod(operator.le)


@irdl_op_definition
class GreaterOp(CompareOp):
    """``relax.greater``: a > b."""

    name = "relax.greater"
    NUMPY_FN = staticmethod(np.greater)
    TE_FN = staticmethod(operator.gt)


@irdl_op_definition
class GreaterEqualOp(CompareOp):
    """``relax.greater_equal``: a >= b."""

    name = "relax.greater_equal"
    NUMPY_FN = staticmethod(np.greater_equal)
    TE_FN = staticmethod(operator.ge)


# ------------------------------------------------------------------------------ where, astype


@irdl_op_definition
class WhereOp(OperatorOp):
    """``relax.where``: a where cond is true, else b (three-way numpy broadcasting)."""

    name = "relax.where"
    BROADCASTS: ClassVar[bool] = True

    cond = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        cond, a, b = (expect_tensor(t) for t in operand_types)
        if cond.known_dtype is not None and cond.dtype != dtypes.I1:
            raise RelaxError(f"expected an i1 condition, got {show_type(cond)}")
        return tensor(broadcast_shape([cond, a, b]), same_dtype([a, b]))

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        cond, a, b = inputs
        return numpy_result(np.where(cond, a, b), a.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        cond, a, b = inputs
        return te.compute(
            result_dims(result_type),
            lambda *i: te.if_then_else(
                broadcast_load(cond, i), broadcast_load(a, i), broadcast_load(b, i)
            ),
            OUTPUT,
        )


@irdl_op_definition
class AstypeOp(OperatorOp):
    """``relax.astype``: x converted to the element type ``dtype``."""

    name = "relax.astype"

    x = operand_def(TensorType)
    dtype = prop_def(TypeAttribute)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ShapeOperatorCanonicalization())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        require_props(properties, "dtype")
        return tensor(known_shape(x), expect_dtype(properties["dtype"]))

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        dtype = dtypes.numpy_dtype(props["dtype"])
        return numpy_result(dtypes.astype(x, dtype), dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        return te.compute(
            result_dims(result_type), lambda *i: te.cast(x[i], props["dtype"]), OUTPUT
        )


UNARY_OPS = (
    ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, SigmoidOp, ReluOp, GeluOp, SiluOp, NegativeOp, AbsOp,
)  # fmt: skip
BINARY_OPS = (AddOp, SubtractOp, MultiplyOp, DivideOp, PowerOp, MaximumOp, MinimumOp)
COMPARE_OPS = (EqualOp, NotEqualOp, LessOp, LessEqualOp, GreaterOp, GreaterEqualOp)
ELEMENTWISE_OPS = (*UNARY_OPS, *BINARY_OPS, *COMPARE_OPS, WhereOp, AstypeOp)
