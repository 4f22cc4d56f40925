"""How each scalar op of a prim_func (``arith``, ``math``) is computed with numpy.

One table serves both code paths: the vectorized kernels apply a function to whole
arrays, the scalar fallback applies the same function to numpy scalars, so both have
numpy's semantics on the buffers' dtypes (f32 stays f32, integer division floors, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation

from xrelax.dialects import dtypes


@dataclass(frozen=True)
class NumpyOp:
    """``fn(*args)``; ``ufunc`` says whether ``fn`` is a numpy ufunc (takes ``out=``)."""

    fn: str
    ufunc: bool = True


SELECT = NumpyOp("select", ufunc=False)
"""``arith.select``: ``np.where`` (or a fill through a mask into a destination)."""

MULTIPLY = NumpyOp("np.multiply")

CAST = NumpyOp("cast", ufunc=False)
"""A conversion with numpy ``astype`` semantics to the result type."""

_BY_NAME: dict[str, NumpyOp] = {
    "arith.addf": NumpyOp("np.add"),
    "arith.addi": NumpyOp("np.add"),
    "arith.subf": NumpyOp("np.subtract"),
    "arith.subi": NumpyOp("np.subtract"),
    "arith.mulf": MULTIPLY,
    "arith.muli": NumpyOp("np.multiply"),
    "arith.divf": NumpyOp("np.divide"),
    "arith.divsi": NumpyOp("rt.truncdiv", ufunc=False),
    "arith.floordivsi": NumpyOp("np.floor_divide"),
    "arith.remsi": NumpyOp("np.fmod"),
    # The unsigned ops run on buffers of numpy's unsigned dtypes, where numpy's
    # division, remainder and extrema are the unsigned ones (a divisor of 0 gives 0).
    "arith.divui": NumpyOp("np.floor_divide"),
    "arith.remui": NumpyOp("np.fmod"),
    "arith.maxui": NumpyOp("np.maximum"),
    "arith.minui": NumpyOp("np.minimum"),
    "tir.remf": NumpyOp("np.fmod"),
    "arith.negf": NumpyOp("np.negative"),
    "arith.maximumf": NumpyOp("np.maximum"),
    "arith.minimumf": NumpyOp("np.minimum"),
    "arith.maxnumf": NumpyOp("np.fmax"),
    "arith.minnumf": NumpyOp("np.fmin"),
    "arith.maxsi": NumpyOp("np.maximum"),
    "arith.minsi": NumpyOp("np.minimum"),
    "arith.andi": NumpyOp("np.bitwise_and"),
    "arith.ori": NumpyOp("np.bitwise_or"),
    "arith.xori": NumpyOp("np.bitwise_xor"),
    "arith.select": SELECT,
    "arith.sitofp": CAST,
    "arith.uitofp": CAST,
    "arith.fptosi": CAST,
    "arith.fptoui": CAST,
    "arith.extf": CAST,
    "arith.truncf": CAST,
    "arith.extsi": CAST,
    "arith.extui": CAST,
    "math.exp": NumpyOp("np.exp"),
    "math.exp2": NumpyOp("np.exp2"),
    "math.expm1": NumpyOp("np.expm1"),
    "math.log": NumpyOp("np.log"),
    "math.log2": NumpyOp("np.log2"),
    "math.log10": NumpyOp("np.log10"),
    "math.log1p": NumpyOp("np.log1p"),
    "math.sqrt": NumpyOp("np.sqrt"),
    "math.cbrt": NumpyOp("np.cbrt"),
    "math.rsqrt": NumpyOp("rt.rsqrt", ufunc=False),
    "math.erf": NumpyOp("rt.erf", ufunc=False),
    "math.tanh": NumpyOp("np.tanh"),
    "math.sin": NumpyOp("np.sin"),
    "math.cos": NumpyOp("np.cos"),
    "math.tan": NumpyOp("np.tan"),
    "math.sinh": NumpyOp("np.sinh"),
    "math.cosh": NumpyOp("np.cosh"),
    "math.asin": NumpyOp("np.arcsin"),
    "math.acos": NumpyOp("np.arccos"),
    "math.atan": NumpyOp("np.arctan"),
    "math.asinh": NumpyOp("np.arcsinh"),
    "math.acosh": NumpyOp("np.arccosh"),
    "math.atanh": NumpyOp("np.arctanh"),
    "math.atan2": NumpyOp("np.arctan2"),
    "math.copysign": NumpyOp("np.copysign"),
    "math.absf": NumpyOp("np.absolute"),
    "math.absi": NumpyOp("np.absolute"),
    "math.powf": NumpyOp("np.power"),
    "math.ipowi": NumpyOp("np.power"),
    "tir.powui": NumpyOp("np.power"),
    "math.floor": NumpyOp("np.floor"),
    "math.ceil": NumpyOp("np.ceil"),
    "math.trunc": NumpyOp("np.trunc"),
    "math.roundeven": NumpyOp("np.rint"),
}

_CMPF = {
    "oeq": "np.equal",
    "ogt": "np.greater",
    "oge": "np.greater_equal",
    "olt": "np.less",
    "ole": "np.less_equal",
    "une": "np.not_equal",
}
_CMPI = {
    "eq": "np.equal",
    "ne": "np.not_equal",
    "slt": "np.less",
    "sle": "np.less_equal",
    "sgt": "np.greater",
    "sge": "np.greater_equal",
    "ult": "np.less",
    "ule": "np.less_equal",
    "ugt": "np.greater",
    "uge": "np.greater_equal",
}

REDUCTIONS = {
    "np.add",
    "np.multiply",
    "np.maximum",
    "np.minimum",
    "np.fmax",
    "np.fmin",
    "np.bitwise_and",
    "np.bitwise_or",
}
"""Combining ufuncs a reduction may use (associative and commutative)."""


class UnsupportedOp(ValueError):
    """A scalar op the kernel backend cannot compute."""


def numpy_op(op: Operation) -> NumpyOp:
    """The numpy function computing ``op``; :class:`UnsupportedOp` if there is none."""
    if isinstance(op, arith.CmpfOp | arith.CmpiOp):
        table = _CMPF if isinstance(op, arith.CmpfOp) else _CMPI
        names = (
            arith.CMPF_COMPARISON_OPERATIONS
            if table is _CMPF
            else (arith.CMPI_COMPARISON_OPERATIONS)
        )
        predicate = names[op.predicate.value.data]
        if predicate not in table:
            raise UnsupportedOp(f"the kernel backend cannot compute '{op.name} {predicate}'")
        return NumpyOp(table[predicate])
    if op.name == "arith.bitcast" and all(
        isinstance(v.type, IntegerType) for v in (*op.operands, *op.results)
    ):
        return CAST  # same-width integers: numpy's astype keeps the bits
    if op.name == "arith.extsi" and op.operands[0].type == dtypes.I1:
        raise UnsupportedOp("the kernel backend cannot compute 'arith.extsi' of an i1")
    if op.name == "arith.trunci":
        return (
            NumpyOp("rt.truncate_to_bool", ufunc=False) if op.results[0].type == dtypes.I1 else CAST
        )
    if op.name not in _BY_NAME:
        raise UnsupportedOp(f"the kernel backend cannot compute '{op.name}'")
    return _BY_NAME[op.name]
