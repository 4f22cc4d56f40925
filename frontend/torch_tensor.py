"""ATen converters of tensor and math operators beyond the core set in
:mod:`xrelax.frontend.torch`: indexing, sorting, data-dependent shapes and
element-wise math (registered on import)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy
import torch
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.common import FrontendError, Unsupported
from xrelax.frontend.torch_importer import Importer, binary_operands, converts, unary

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
    "log2": "log2",
    "log10": "log10",
    "exp2": "exp2",
}.items():
    converts(f"aten.{_aten}")(unary(_relax))


@converts("aten.floor", "aten.ceil", "aten.round", "aten.trunc")
def _rounding(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """Floats rounded (``round`` halves to even); integers are already whole."""
    x = a["self"]
    if not dtypes.is_float(imp.em.dtype(x)):
        return x
    name = str(node.target._overloadpacket).removeprefix("aten.")
    if a.get("decimals"):
        return _round_decimals(imp, x, a["decimals"])
    return truncated(imp, x) if name == "trunc" else imp.em.op(name, x)


def _round_decimals(imp: Importer, x: SSAValue, decimals: int) -> SSAValue:
    """x rounded to ``decimals`` places as torch does: scaled by 10 ** |decimals| in the
    element type, rounded (halves to even), scaled back."""
    em = imp.em
    scale = em.scalar(10.0 ** abs(decimals), x)
    if decimals > 0:
        return em.op("divide", em.op("round", em.op("multiply", x, scale)), scale)
    return em.op("multiply", em.op("round", em.op("divide", x, scale)), scale)


def truncated(imp: Importer, x: SSAValue) -> SSAValue:
    """x rounded toward zero: ceil below zero, floor elsewhere (-0.5 gives -0.0)."""
    em = imp.em
    negative = em.op("less", x, em.scalar(0, x))
    return em.op("where", negative, em.op("ceil", x), em.op("floor", x))


@converts("aten.sign", "aten.sgn")
def _sign(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """1, -1 or 0 by the sign (torch: 0 also for NaN and -0.0); booleans as they are."""
    em, x = imp.em, a["self"]
    if dtypes.is_bool(em.dtype(x)):
        return x
    zero = em.scalar(0, x)
    negative = em.op("where", em.op("less", x, zero), em.scalar(-1, x), zero)
    return em.op("where", em.op("greater", x, zero), em.scalar(1, x), negative)


@converts("aten.reciprocal")
def _reciprocal(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = imp.cast(a["self"], imp.out_dtype(node))
    return imp.em.op("divide", imp.em.scalar(1, x), x)


@converts("aten.fmax", "aten.fmin")
def _fmax(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """The larger (smaller) of a and b, ignoring a NaN unless both are."""
    em, dtype = imp.em, imp.out_dtype(node)
    lhs, rhs = binary_operands(imp, a["self"], a["other"], dtype)
    largest = str(node.target._overloadpacket) == "aten.fmax"
    extreme = em.op("maximum" if largest else "minimum", lhs, rhs)
    if not dtypes.is_float(dtype):
        return extreme
    extreme = em.op("where", em.op("isnan", lhs), rhs, extreme)
    return em.op("where", em.op("isnan", rhs), lhs, extreme)


@converts("aten.clamp_min", "aten.clamp_max")
def _clamp_bound(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, dtype = imp.em, imp.out_dtype(node)
    x, bound = binary_operands(imp, a["self"], a["min"] if "min" in a else a["max"], dtype)
    lower = str(node.target._overloadpacket) == "aten.clamp_min"
    return em.op("maximum" if lower else "minimum", x, bound)


def floor_divide(imp: Importer, a: SSAValue, b: SSAValue) -> SSAValue:
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


def _no_zero_integer_divisor(imp: Importer, divisor: Any, b: SSAValue) -> None:
    """torch raises on an integer division by zero, where relax's divide gives 0: an
    integer divisor must be a non-zero number."""
    if dtypes.is_float(imp.em.dtype(b)):
        return
    if isinstance(divisor, SSAValue) or divisor == 0:
        raise Unsupported("an integer divisor that may be 0 (torch raises)")


@converts("aten.div")
def _div(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """True division, or with ``rounding_mode`` "trunc" or "floor"."""
    em, dtype = imp.em, imp.out_dtype(node)
    mode = a.get("rounding_mode")
    if mode is None:
        lhs, rhs = binary_operands(imp, a["self"], a["other"], dtype)
        return em.op("divide", lhs, rhs)
    lhs, rhs = binary_operands(imp, a["self"], a["other"], dtype)
    _no_zero_integer_divisor(imp, a["other"], rhs)
    if mode == "trunc":
        quotient = em.op("divide", lhs, rhs)  # integers: truncated already
        return truncated(imp, quotient) if dtypes.is_float(dtype) else quotient
    if mode == "floor":
        return floor_divide(imp, lhs, rhs)
    raise FrontendError(f"rounding_mode is {mode!r}, expected 'trunc' or 'floor'")


@converts("aten.floor_divide")
def _floor_divide(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    lhs, rhs = binary_operands(imp, a["self"], a["other"], imp.out_dtype(node))
    _no_zero_integer_divisor(imp, a["other"], rhs)
    return floor_divide(imp, lhs, rhs)


# ------------------------------------------------------------------ sorting


def _axis(imp: Importer, x: SSAValue, dim: int) -> int:
    rank = max(imp.em.ndim(x), 1)
    if not -rank <= dim < rank:
        raise FrontendError(f"dim {dim} is out of range for a tensor of rank {imp.em.ndim(x)}")
    return dim % rank


@converts("aten.sort")
def _sort(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """Values and i64 positions in stable order (NaN largest, as torch)."""
    em, x = imp.em, a["self"]
    if em.ndim(x) == 0:
        return [x, em.full([], 0, dtypes.I64)]
    axis = _axis(imp, x, a["dim"])
    order = em.op("argsort", x, axis=axis, descending=bool(a["descending"]))
    return [em.op("gather_elements", x, order, axis=axis), order]


@converts("aten.argsort")
def _argsort(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    if em.ndim(x) == 0:
        return em.full([], 0, dtypes.I64)
    axis = _axis(imp, x, a["dim"])
    return em.op("argsort", x, axis=axis, descending=bool(a["descending"]))


@converts("aten.topk")
def _topk(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """The ``k`` largest (smallest) values in order and their positions; equal values
    by position (torch leaves their order open)."""
    em, x = imp.em, a["self"]
    if em.ndim(x) == 0:
        return [x, em.full([], 0, dtypes.I64)]
    axis = _axis(imp, x, a["dim"])
    order = em.op("argsort", x, axis=axis, descending=bool(a["largest"]))
    positions = em.slice(order, axis, 0, a["k"])
    return [em.op("gather_elements", x, positions, axis=axis), positions]


@converts("aten.flip")
def _flip(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
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


@converts("aten.scatter", "aten.scatter_add", "aten.scatter_reduce")
def _scatter(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """``relax.scatter_elements``. torch refuses a negative index: it is moved out of
    range, so the kernel's range check reports it. Without ``include_self`` the
    scattered positions start from the reduction's neutral value; ``mean`` divides the
    sum by the count of the values combined."""
    em, x = imp.em, a["self"]
    key = str(node.target._overloadpacket)
    if em.ndim(x) == 0:
        raise Unsupported("scatter into a 0-d tensor")
    axis = _axis(imp, x, a["dim"])
    reduction = "add" if key == "aten.scatter_add" else a.get("reduce")
    if reduction is not None and reduction not in (*_SCATTER_REDUCTIONS, "mean"):
        raise Unsupported(f"reduce={reduction!r}")
    dtype = em.dtype(x)
    if reduction == "mean" and not dtypes.is_float(dtype):
        raise Unsupported("reduce='mean' of integers")
    index = a["index"]
    if "value" in a and a.get("src") is None:
        src = em.full(em.dims(index), a["value"], dtype)
    else:
        src = a["src"]
        for d, (n, m) in enumerate(zip(em.dims(index), em.dims(src), strict=True)):
            if n != m:
                src = em.slice(src, d, 0, n)
    size = em.full([], em.dims(x)[axis], dtypes.I64)
    index = em.cast(index, dtypes.I64)
    index = em.op("where", em.op("less", index, em.scalar(0, index)), size, index)

    def scatter(target: SSAValue, updates: SSAValue, how: str | None) -> SSAValue:
        if how in ("add", "mul") and dtypes.is_bool(em.dtype(target)):
            how = "max" if how == "add" else "min"
        return em.op(
            "scatter_elements",
            target,
            index,
            updates,
            axis=axis or None,
            reduction=None if how is None else StringAttr(how),
        )

    if reduction is None:
        return scatter(x, src, None)
    how = "add" if reduction == "mean" else _SCATTER_REDUCTIONS[reduction]
    start = x
    if key == "aten.scatter_reduce" and not a.get("include_self", True):
        neutral = {"add": 0, "mul": 1, "max": _lowest(dtype), "min": _highest(dtype)}[how]
        start = scatter(x, em.full(em.dims(index), neutral, dtype), None)
    combined = scatter(start, src, how)
    if reduction != "mean":
        return combined
    counted = em.full(em.dims(x), 0 if start is not x else 1, dtype)
    counts = scatter(counted, em.full(em.dims(index), 1, dtype), "add")
    mean = em.op("divide", combined, em.op("maximum", counts, em.scalar(1, counts)))
    return em.op("where", em.op("equal", counts, em.scalar(0, counts)), x, mean)


def _lowest(dtype: Any) -> Any:
    if dtypes.is_float(dtype):
        return float("-inf")
    return False if dtypes.is_bool(dtype) else int(np.iinfo(dtypes.numpy_dtype(dtype)).min)


def _highest(dtype: Any) -> Any:
    if dtypes.is_float(dtype):
        return float("inf")
    return True if dtypes.is_bool(dtype) else int(np.iinfo(dtypes.numpy_dtype(dtype)).max)


# ------------------------------------------------------------------ data-dependent lengths


def _nonzero_columns(imp: Importer, x: SSAValue) -> SSAValue:
    """``relax.nonzero`` of x, ``[rank, count]``, its count a new symbolic variable."""
    em = imp.em
    found = imp.builder.variable(object(), "nonzero")
    return em.match(em.op("nonzero", x), [em.ndim(x), found])


@converts("aten.nonzero")
def _nonzero(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """The positions of the non-zero elements, one row each (the safety net)."""
    em, x = imp.em, a["self"]
    if em.ndim(x) == 0:  # one row without columns when x is non-zero
        found = em.dims(_nonzero_columns(imp, em.reshape(x, [1])))[1]
        return em.full([found, 0], 0, dtypes.I64)
    return em.permute(_nonzero_columns(imp, x), [1, 0])


@converts("aten.masked_select")
def _masked_select(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """The elements of x where the mask is true (both broadcast), in row-major order."""
    em = imp.em
    x, mask = a["self"], a["mask"]
    dims_x, dims_m = list(em.dims(x)), list(em.dims(mask))
    rank = max(len(dims_x), len(dims_m))
    dims_x = [sympy.Integer(1)] * (rank - len(dims_x)) + dims_x
    dims_m = [sympy.Integer(1)] * (rank - len(dims_m)) + dims_m
    # the broadcast shape; sizes torch has proven to broadcast are checked when it runs
    common = [m if d == 1 else d for d, m in zip(dims_x, dims_m, strict=True)]
    flat_x = em.flatten(em.broadcast_to(x, common))
    flat_mask = em.flatten(em.broadcast_to(mask, common))
    positions = _nonzero_columns(imp, flat_mask)
    positions = em.reshape(positions, [em.dims(positions)[1]])
    return em.op("take", flat_x, positions, axis=0)


# ------------------------------------------------------------------ median, index_put


@converts("aten.median")
def _median(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """The lower median along ``dim`` (absent: of all elements) and, with a dim, its
    position: element ``(n - 1) // 2`` of the stable ascending order (equal values by
    position), or the first NaN when there is one (torch propagates NaN)."""
    em, x = imp.em, a["self"]
    dim = a.get("dim")
    whole = dim is None
    if whole:
        x = em.reshape(x, [sympy.expand(math.prod(em.dims(x)))])
        dim = 0
    if em.ndim(x) == 0:
        return [x, em.full([], 0, dtypes.I64)]
    axis = _axis(imp, x, dim)
    size = em.dims(x)[axis]
    if size.is_Integer and int(size) == 0:
        raise FrontendError("median of an empty axis")
    order = em.op("argsort", x, axis=axis)
    middle = em.full([], symbolic.floordiv(size - 1, 2), dtypes.I64)
    chosen = middle
    if dtypes.is_float(em.dtype(x)):
        nans = em.op("sum", em.cast(em.op("isnan", x), dtypes.I64), axis=[axis], keepdims=True)
        first_nan = em.op("subtract", em.full([], size, dtypes.I64), nans)
        chosen = em.op("where", em.op("greater", nans, em.scalar(0, nans)), first_nan, middle)
    else:
        chosen = em.broadcast_to(
            em.reshape(middle, [1] * em.ndim(x)),
            [1 if d == axis else n for d, n in enumerate(em.dims(x))],
        )
    position = em.op("gather_elements", order, chosen, axis=axis)
    value = em.op("gather_elements", x, position, axis=axis)
    if whole:
        return em.reshape(value, [])
    if not a.get("keepdim"):
        value, position = em.squeeze(value, [axis]), em.squeeze(position, [axis])
    return [value, position]


def _integer_indices(imp: Importer, index: SSAValue | None) -> list[SSAValue | None]:
    """An index tensor as integer index tensors: a boolean mask becomes the positions of
    its true elements, one tensor per axis it covers."""
    em = imp.em
    if index is None or not dtypes.is_bool(em.dtype(index)):
        return [index]
    columns = _nonzero_columns(imp, index)
    count = em.dims(columns)[1]
    rows = em.items(
        em.op("split", columns, indices_or_sections=em.ndim(index), axis=0), em.ndim(index)
    )
    return [em.reshape(row, [count]) for row in rows]


@converts("aten.index_put")
def _index_put(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """``x[i0, i1, ...] = values`` (``accumulate``: ``+=``) for integer index tensors of
    the leading axes: a ``scatter_elements`` over the flattened indexed axes. An index
    out of range is a run-time error (each is checked by a ``take``); of duplicates
    without ``accumulate`` the last write wins (torch leaves it open)."""
    em, x = imp.em, a["self"]
    indices = list(a["indices"])
    while indices and indices[-1] is None:
        indices.pop()
    if not indices or any(i is None for i in indices):
        raise Unsupported("indices of other than the leading axes")
    indices = [i for index in indices for i in _integer_indices(imp, index)]
    dims = list(em.dims(x))
    k = len(indices)
    linear = None
    for axis, index in enumerate(indices):
        steps = em.op("arange", em.prim(0), em.prim(dims[axis]), em.prim(1), dtype=dtypes.I64)
        checked = em.op("take", steps, em.cast(index, dtypes.I64), axis=0)  # range-checked
        scaled = (
            checked
            if linear is None
            else em.op(
                "add", em.op("multiply", linear, em.full([], dims[axis], dtypes.I64)), checked
            )
        )
        linear = scaled
    shape = list(em.dims(linear))
    count = sympy.expand(math.prod(shape))
    rest = dims[k:]
    values = em.cast(a["values"], em.dtype(x))
    values = em.reshape(em.broadcast_to(values, [*shape, *rest]), [count, *rest])
    positions = em.reshape(linear, [count, *([1] * len(rest))])
    positions = em.broadcast_to(positions, [count, *rest])
    flat = em.reshape(x, [sympy.expand(math.prod(dims[:k])), *rest])
    how = "add" if a.get("accumulate") else None
    if how == "add" and dtypes.is_bool(em.dtype(x)):
        how = "max"
    updated = em.op(
        "scatter_elements",
        flat,
        positions,
        values,
        reduction=None if how is None else StringAttr(how),
    )
    return em.reshape(updated, dims)
