"""f32 ``exp``, ``tanh`` and ``erf`` as LLVM ops computed inline (Cephes' ``expf`` and
``tanhf``, the numpy kernels' ``erf``): a call to libm keeps a loop scalar, these ops
vectorize. :mod:`.tir_to_llvm` lowers a scalar ``math`` op to them, which LLVM then
vectorizes with its loop; the register tiles' epilogues (:mod:`.register_tiles`) build
``exp`` on vectors directly (:func:`expf` with ``lanes``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import llvm, math
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xrelax.ops.erf import ERF_DENOMINATOR, ERF_NUMERATOR

__all__ = ["INLINE_F32", "expf"]

F32, I32 = Float32Type(), IntegerType(32)


class _Ops:
    """Ops computing one f32 function inline, in order (their last result is its
    value), on a scalar or, given ``lanes``, on vectors of that many lanes."""

    def __init__(self, lanes: int | None = None) -> None:
        self.ops: list[Operation] = []
        self.lanes = lanes
        self.float: Attribute = F32 if lanes is None else VectorType(F32, [lanes])
        self.int: Attribute = I32 if lanes is None else VectorType(I32, [lanes])
        self.suffix = "f32" if lanes is None else f"v{lanes}f32"

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def constant(self, value: float | int, element: Attribute) -> SSAValue:
        """``value`` as ``element`` (F32 or I32), splat over the lanes if any."""
        if self.lanes is None:
            attr = FloatAttr(value, F32) if element == F32 else IntegerAttr(value, I32)
            return self.add(llvm.ConstantOp(attr, element))
        type_ = VectorType(element, [self.lanes])
        attr = DenseIntOrFPElementsAttr.from_list(type_, [value] * self.lanes)
        return self.add(llvm.ConstantOp(attr, type_))

    def f32(self, value: float) -> SSAValue:
        return self.constant(value, F32)

    def i32(self, value: int) -> SSAValue:
        return self.constant(value, I32)

    def call(self, name: str, *args: SSAValue) -> SSAValue:
        return self.add(llvm.CallIntrinsicOp(f"{name}.{self.suffix}", list(args), [self.float]))

    def horner(self, x: SSAValue, coefficients: Sequence[float], fused: bool = False) -> SSAValue:
        """The polynomial of ``coefficients`` (highest power first) at ``x``; ``fused``:
        each step one fused multiply-add (one rounding, half the ops)."""
        value = self.f32(coefficients[0])
        for c in coefficients[1:]:
            if fused:
                value = self.add(llvm.FMAOp(value, x, self.f32(c)))
            else:
                value = self.add(llvm.FAddOp(self.add(llvm.FMulOp(value, x)), self.f32(c)))
        return value

    def power_of_two(self, exponent: SSAValue) -> SSAValue:
        """2 ** exponent (i32 in the normal range) as f32."""
        biased = self.add(llvm.AddOp(exponent, self.i32(127)))
        return self.add(llvm.BitcastOp(self.add(llvm.ShlOp(biased, self.i32(23))), self.float))


def expf(x: SSAValue, lanes: int | None = None) -> list[Operation]:
    """exp in f32 as Cephes' ``expf`` computes it (within 1 ulp): x = n ln 2 + r, exp(r)
    by a degree-7 polynomial, times 2 ** n in two steps so that results below the
    normal range round once to subnormals; the clamp makes exp(-inf) 0 and exp(inf)
    inf. NaN stays NaN: on a scalar the clamp (``minnum``, which LLVM vectorizes best)
    drops it and a select restores it; on vectors of ``lanes`` (xDSL's ``llvm`` dialect
    has no vector select) the clamp is ``minimum``, which keeps it through every op."""
    seq = _Ops(lanes)
    kind = "num" if lanes is None else "imum"
    clamped = seq.call(
        f"llvm.max{kind}", seq.call(f"llvm.min{kind}", x, seq.f32(89.0)), seq.f32(-105.0)
    )
    # n = round(x / ln 2) by the 1.5 * 2 ** 23 trick: the sum rounds to an integer
    # (to even), whose bits hold n (LLVM's fptosi has no xDSL op).
    # Fused multiply-adds throughout (one rounding each: as accurate, half the ops).
    shifted = seq.add(llvm.FMAOp(clamped, seq.f32(1.44269504088896341), seq.f32(_MAGIC)))
    n = seq.add(llvm.FSubOp(shifted, seq.f32(_MAGIC)))
    r = seq.add(llvm.FMAOp(n, seq.f32(-0.693359375), clamped))
    r = seq.add(llvm.FMAOp(n, seq.f32(2.12194440e-4), r))
    p = seq.horner(r, _EXPF_POLYNOMIAL, fused=True)
    rr = seq.add(llvm.FMulOp(r, r))
    y = seq.add(llvm.FAddOp(seq.add(llvm.FMAOp(p, rr, r)), seq.f32(1.0)))
    bits = seq.add(llvm.BitcastOp(shifted, seq.int))
    whole = seq.add(llvm.SubOp(bits, seq.i32(0x4B400000)))
    half = seq.add(llvm.AShrOp(whole, seq.i32(1)))
    rest = seq.add(llvm.SubOp(whole, half))
    y = seq.add(llvm.FMulOp(y, seq.power_of_two(half)))
    y = seq.add(llvm.FMulOp(y, seq.power_of_two(rest)))
    if lanes is None:
        nan = seq.add(llvm.FCmpOp(x, x, "uno"))
        seq.add(llvm.SelectOp(nan, x, y))
    return seq.ops


_MAGIC = 12582912.0
"""1.5 * 2 ** 23, whose f32 bits are 0x4B400000."""
_EXPF_POLYNOMIAL = (
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
)
"""Cephes' ``expf``: exp(r) = 1 + r + r * r * P(r) on [-ln 2 / 2, ln 2 / 2]."""


def _tanhf(x: SSAValue) -> list[Operation]:
    """tanh in f32 as Cephes' ``tanhf``: an odd polynomial below 0.625 in magnitude,
    ``1 - 2 / (exp(2 |x|) + 1)`` (with :func:`expf`) above, with x's sign; NaN and
    signed zeros stay."""
    seq = _Ops()
    magnitude = seq.call("llvm.fabs", x)
    z = seq.add(llvm.FMulOp(x, x))
    small = seq.add(llvm.FMulOp(seq.add(llvm.FMulOp(x, z)), seq.horner(z, _TANHF_POLYNOMIAL)))
    small = seq.add(llvm.FAddOp(small, x))
    exp_ops = expf(seq.add(llvm.FAddOp(magnitude, magnitude)))
    seq.ops += exp_ops
    exp2x = exp_ops[-1].results[0]
    ratio = seq.add(llvm.FDivOp(seq.f32(2.0), seq.add(llvm.FAddOp(exp2x, seq.f32(1.0)))))
    large = seq.call("llvm.copysign", seq.add(llvm.FSubOp(seq.f32(1.0), ratio)), x)
    below = seq.add(llvm.FCmpOp(magnitude, seq.f32(0.625), "olt"))
    value = seq.add(llvm.SelectOp(below, small, large))
    # x itself for NaN, and for zeros (whose sign the polynomial would lose)
    keep = seq.add(llvm.FCmpOp(magnitude, seq.f32(0.0), "ueq"))
    seq.add(llvm.SelectOp(keep, x, value))
    return seq.ops


_TANHF_POLYNOMIAL = (
    -5.70498872745e-3,
    2.06390887954e-2,
    -5.37397155531e-2,
    1.33314422036e-1,
    -3.33332819422e-1,
)
"""Cephes' ``tanhf``: tanh(x) = x + x * z * P(z), z = x * x, for |x| < 0.625."""


def _erff(x: SSAValue) -> list[Operation]:
    """erf in f32 by the rational approximation the numpy kernels use
    (``runtime.erf``, Eigen's): the same operations in the same order, so the same
    values; NaN stays NaN."""
    seq = _Ops()
    clipped = seq.call("llvm.maxnum", seq.call("llvm.minnum", x, seq.f32(4.0)), seq.f32(-4.0))
    x2 = seq.add(llvm.FMulOp(clipped, clipped))
    p = seq.add(llvm.FMulOp(seq.horner(x2, [float(c) for c in ERF_NUMERATOR]), clipped))
    q = seq.horner(x2, [float(c) for c in ERF_DENOMINATOR])
    value = seq.add(llvm.FDivOp(p, q))
    nan = seq.add(llvm.FCmpOp(x, x, "uno"))
    seq.add(llvm.SelectOp(nan, x, value))
    return seq.ops


INLINE_F32: dict[type[Operation], Callable[[SSAValue], list[Operation]]] = {
    math.ExpOp: expf,
    math.TanhOp: _tanhf,
    math.ErfOp: _erff,
}
"""f32 functions computed inline rather than by a libm call, which blocks vectorization."""
