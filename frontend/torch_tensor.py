"""ATen converters of tensor and math operators beyond the core set in
:mod:`xrelax.frontend.torch`: indexing, sorting, data-dependent shapes and
element-wise math (registered on import)."""

from __future__ import annotations

from typing import Any

import torch
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import SSAValue

from xrelax.dialects import dtypes
from xrelax.frontend.common import FrontendError, Unsupported
from xrelax.frontend.torch import _converts, _Importer, _operands, _unary

# ------------------------------------------------------------------ element-wise math

for _aten, _relax in {
    "tan": "tan",
    "sinh": "sinh",
    "cosh": "cosh",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
    "asinh": "asinh",
    "acosh": "acosh",
    "atanh": "atanh",
    "log1p": "log1p",
    "expm1": "expm1",
}.items():
    _converts(f"aten.{_aten}")(_unary(_relax))


@_converts("aten.floor", "aten.ceil", "aten.round", "aten.trunc")
def _rounding(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """Floats rounded (``round`` halves to even); integers are already whole."""
    x = a["self"]
    if not dtypes.is_float(imp.em.dtype(x)):
        return x
    if a.get("decimals"):
        raise Unsupported(f"decimals={a['decimals']}")
    name = str(node.target._overloadpacket).removeprefix("aten.")
    return truncated(imp, x) if name == "trunc" else imp.em.op(name, x)


def truncated(imp: _Importer, x: SSAValue) -> SSAValue:
    """x rounded toward zero: ceil below zero, floor elsewhere (-0.5 gives -0.0)."""
    em = imp.em
    negative = em.op("less", x, em.scalar(0, x))
    return em.op("where", negative, em.op("ceil", x), em.op("floor", x))


@_converts("aten.clamp_min", "aten.clamp_max")
def _clamp_bound(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, dtype = imp.em, imp.out_dtype(node)
    x, bound = _operands(imp, a["self"], a["min"] if "min" in a else a["max"], dtype)
    lower = str(node.target._overloadpacket) == "aten.clamp_min"
    return em.op("maximum" if lower else "minimum", x, bound)


def floor_divide(imp: _Importer, a: SSAValue, b: SSAValue) -> SSAValue:
    """a // b as torch computes it: for integers the truncated quotient less one where
    the remainder is non-zero and the signs differ; for floats Python's algorithm
    (``(a - fmod(a, b)) / b`` corrected and rounded, a zero quotient with the sign of
    a / b, a divisor of 0 giving a / b)."""
    em = imp.em
    zero = em.scalar(0, a)
    remainder = em.op("fmod", a, b)
    differ = em.op("not_equal", em.op("less", remainder, zero), em.op("less", b, zero))
    adjust = em.op("bitwise_and", em.op("not_equal", remainder, zero), differ)
    one = em.scalar(1, a)
    if not dtypes.is_float(em.dtype(a)):
        quotient = em.op("divide", a, b)
        return em.op("where", adjust, em.op("subtract", quotient, one), quotient)
    quotient = em.op("divide", em.op("subtract", a, remainder), b)
    quotient = em.op("where", adjust, em.op("subtract", quotient, one), quotient)
    floored = em.op("floor", quotient)
    up = em.op("greater", em.op("subtract", quotient, floored), em.scalar(0.5, a))
    floored = em.op("where", up, em.op("add", floored, one), floored)
    true_quotient = em.op("divide", a, b)
    signed_zero = em.op("multiply", zero, true_quotient)
    floored = em.op("where", em.op("equal", quotient, zero), signed_zero, floored)
    return em.op("where", em.op("equal", b, zero), true_quotient, floored)


def _no_zero_integer_divisor(imp: _Importer, divisor: Any, b: SSAValue) -> None:
    """torch raises on an integer division by zero, where relax's divide gives 0: an
    integer divisor must be a non-zero number."""
    if dtypes.is_float(imp.em.dtype(b)):
        return
    if isinstance(divisor, SSAValue) or divisor == 0:
        raise Unsupported("an integer divisor that may be 0 (torch raises)")


@_converts("aten.div")
def _div(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """True division, or with ``rounding_mode`` "trunc" or "floor"."""
    em, dtype = imp.em, imp.out_dtype(node)
    mode = a.get("rounding_mode")
    if mode is None:
        lhs, rhs = _operands(imp, a["self"], a["other"], dtype)
        return em.op("divide", lhs, rhs)
    lhs, rhs = _operands(imp, a["self"], a["other"], dtype)
    _no_zero_integer_divisor(imp, a["other"], rhs)
    if mode == "trunc":
        quotient = em.op("divide", lhs, rhs)  # integers: truncated already
        return truncated(imp, quotient) if dtypes.is_float(dtype) else quotient
    if mode == "floor":
        return floor_divide(imp, lhs, rhs)
    raise FrontendError(f"rounding_mode is {mode!r}, expected 'trunc' or 'floor'")


@_converts("aten.floor_divide")
def _floor_divide(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    lhs, rhs = _operands(imp, a["self"], a["other"], imp.out_dtype(node))
    _no_zero_integer_divisor(imp, a["other"], rhs)
    return floor_divide(imp, lhs, rhs)


# ------------------------------------------------------------------ sorting


def _axis(imp: _Importer, x: SSAValue, dim: int) -> int:
    rank = max(imp.em.ndim(x), 1)
    if not -rank <= dim < rank:
        raise FrontendError(f"dim {dim} is out of range for a tensor of rank {imp.em.ndim(x)}")
    return dim % rank


@_converts("aten.sort")
def _sort(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """Values and i64 positions in stable order (NaN largest, as torch)."""
    em, x = imp.em, a["self"]
    if em.ndim(x) == 0:
        return [x, em.full([], 0, dtypes.I64)]
    axis = _axis(imp, x, a["dim"])
    order = em.op("argsort", x, axis=axis, descending=bool(a["descending"]))
    return [em.op("gather_elements", x, order, axis=axis), order]


@_converts("aten.argsort")
def _argsort(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    if em.ndim(x) == 0:
        return em.full([], 0, dtypes.I64)
    axis = _axis(imp, x, a["dim"])
    return em.op("argsort", x, axis=axis, descending=bool(a["descending"]))


@_converts("aten.topk")
def _topk(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """The ``k`` largest (smallest) values in order and their positions; equal values
    by position (torch leaves their order open)."""
    em, x = imp.em, a["self"]
    if em.ndim(x) == 0:
        return [x, em.full([], 0, dtypes.I64)]
    axis = _axis(imp, x, a["dim"])
    order = em.op("argsort", x, axis=axis, descending=bool(a["largest"]))
    positions = em.slice(order, axis, 0, a["k"])
    return [em.op("gather_elements", x, positions, axis=axis), positions]


@_converts("aten.flip")
def _flip(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    axes = sorted({_axis(imp, x, d) for d in a["dims"]})
    if not axes or em.ndim(x) == 0:
        return x
    ends = [-(2**62)] * len(axes)
    return em.op(
        "strided_slice", x, axes=axes, begin=[-1] * len(axes), end=ends, strides=[-1] * len(axes)
    )


# ------------------------------------------------------------------ scatter

_SCATTER_REDUCTIONS = {
    "add": "add",
    "sum": "add",
    "multiply": "mul",
    "prod": "mul",
    "amax": "max",
    "amin": "min",
}


@_converts("aten.scatter", "aten.scatter_add", "aten.scatter_reduce")
def _scatter(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """``relax.scatter_elements``. torch refuses a negative index: it is moved out of
    range, so the kernel's range check reports it."""
    em, x = imp.em, a["self"]
    key = str(node.target._overloadpacket)
    if em.ndim(x) == 0:
        raise Unsupported("scatter into a 0-d tensor")
    axis = _axis(imp, x, a["dim"])
    index = a["index"]
    reduction = "add" if key == "aten.scatter_add" else a.get("reduce")
    if reduction is not None and reduction not in _SCATTER_REDUCTIONS:
        raise Unsupported(f"reduce={reduction!r}")
    if key == "aten.scatter_reduce" and not a.get("include_self", True):
        raise Unsupported("include_self=False")
    if "value" in a and a.get("src") is None:
        src = em.full(em.dims(index), a["value"], em.dtype(x))
    else:
        src = a["src"]
        index_dims, src_dims = em.dims(index), em.dims(src)
        for d, (n, m) in enumerate(zip(index_dims, src_dims, strict=True)):
            if n != m:
                src = em.slice(src, d, 0, n)
    size = em.full([], em.dims(x)[axis], dtypes.I64)
    index = em.cast(index, dtypes.I64)
    index = em.op("where", em.op("less", index, em.scalar(0, index)), size, index)
    relax_reduction = None if reduction is None else _SCATTER_REDUCTIONS[reduction]
    if relax_reduction in ("add", "mul") and dtypes.is_bool(em.dtype(x)):
        relax_reduction = "max" if relax_reduction == "add" else "min"
    return em.op(
        "scatter_elements",
        x,
        index,
        src,
        axis=axis or None,
        reduction=None if relax_reduction is None else StringAttr(relax_reduction),
    )
