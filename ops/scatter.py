"""Scatters by index tensors: ``scatter_elements`` (ONNX ScatterElements and Scatter,
torch's ``scatter``, ``scatter_add`` and ``scatter_reduce``), the inverse of
``gather_elements``.

Indices follow the gathers' rule (docs/semantics.md): any integer type, in ``[-n, n)``
on an axis of size ``n`` (negative ones count from the end), anything else a run-time
error. Where several indices name one position, ``reduction = "none"`` keeps the last
update in row-major order of ``indices`` (onnxruntime, torch on CPU); the reductions
combine the position's value with every update there (``add`` and ``mul`` in an
order of their own: float results may differ from a sequential loop by rounding)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import sympy
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import Pure

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType, show_type
from xrelax.dialects.shapes.obligations import Facts
from xrelax.ops import te
from xrelax.ops.base import (
    I64_PROP,
    OUTPUT,
    SIGNED,
    OperatorOp,
    Props,
    check_dtype,
    expect_tensor,
    normalize_axis,
    numpy_result,
    prop_int,
    require_equal,
    require_le,
    result_dims,
    same_dtype,
    tensor,
)
from xrelax.ops.gather import reference_indices

REDUCTIONS = ("none", "add", "mul", "max", "min")

_UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _reduction(props: Props) -> str:
    attr = props.get("reduction")
    value = "none" if attr is None else attr.data  # type: ignore[attr-defined]
    if value not in REDUCTIONS:
        raise RelaxError(f"reduction is '{value}', expected one of {', '.join(REDUCTIONS)}")
    return value


def _extreme(dtype: Attribute, largest: bool) -> Any:
    """The neutral element of ``min`` (``largest``) or ``max`` in ``dtype``."""
    if dtypes.is_float(dtype):
        return float("inf") if largest else float("-inf")
    if dtypes.is_bool(dtype):
        return largest
    info = np.iinfo(dtypes.numpy_dtype(dtype))
    return int(info.max if largest else info.min)


@irdl_op_definition
class ScatterElementsOp(OperatorOp):
    """``relax.scatter_elements``: x with ``x[i with i[axis] = indices[i]]`` set to (or
    combined by ``reduction`` with) ``updates[i]`` for every position ``i`` of
    ``indices`` (axis absent: 0; reduction absent: "none")."""

    name = "relax.scatter_elements"

    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    reduction = opt_prop_def(StringAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    REDUCTIONS: ClassVar[tuple[str, ...]] = REDUCTIONS

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        indices = expect_tensor(operand_types[1], "indices operand")
        updates = expect_tensor(operand_types[2], "updates operand")
        check_dtype(indices, SIGNED, "indices")
        dtype = same_dtype([x, updates])
        reduction = _reduction(properties)
        if reduction != "none" and dtype == dtypes.I1 and reduction in ("add", "mul"):
            raise RelaxError(f"reduction '{reduction}' is not defined on {show_type(x)}")
        ranks = {t.ndim for t in (x, indices, updates) if t.ndim is not None}
        if len(ranks) > 1:
            shown = ", ".join(show_type(t) for t in (x, indices, updates))
            raise RelaxError(f"expected x, indices and updates of one rank, got {shown}")
        if x.ndim is None:
            return tensor(None, dtype)
        if x.ndim == 0:
            raise RelaxError(f"expected x of rank at least 1, got {show_type(x)}")
        axis = normalize_axis(prop_int(properties, "axis", 0), x.ndim)
        if x.dims is not None and indices.dims is not None:
            for d, (size, count) in enumerate(zip(x.dims, indices.dims, strict=True)):
                if d != axis:
                    what = f"relax.scatter_elements: indices fit in x along axis {d}"
                    require_le(facts, count, size, what)
        if indices.dims is not None and updates.dims is not None:
            for d, (a, b) in enumerate(zip(indices.dims, updates.dims, strict=True)):
                what = f"relax.scatter_elements: updates has the shape of indices (axis {d})"
                require_equal(facts, a, b, what)
        return tensor(x.dims if x.dims is not None else x.ndim, dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, indices, updates = inputs
        result = x.copy()
        axis = normalize_axis(prop_int(props, "axis", 0), x.ndim)
        positions = reference_indices(indices, x.shape[axis], props)
        grid = list(np.indices(indices.shape, sparse=True))
        grid[axis] = positions
        where = tuple(np.broadcast_arrays(*grid))
        reduction = _reduction(props)
        if reduction == "none":
            # the last update in row-major order of indices wins
            result[where] = updates
        else:
            _UFUNCS[reduction].at(result, where, updates)
        return numpy_result(result, x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        """Each position of x combines the updates whose index names it: a reduction
        over the indices along ``axis`` (O(n * m) in the two sizes) that vectorizes."""
        x, indices, updates = inputs
        axis = normalize_axis(prop_int(props, "axis", 0), x.ndim)
        size = x.shape[axis]
        reduction = _reduction(props)

        def position(*j: sympy.Expr) -> te.Expr:
            index = te.cast(indices[j], dtypes.I64)
            from_end = index + te.index(size)
            position = te.if_then_else((index < 0) & (from_end >= 0), from_end, index)
            # The load of x at the position is the kernel's range check of the index;
            # an index in range gives a position >= 0, so the result is the position.
            probe = x[(*j[:axis], position, *j[axis + 1 :])]
            kept = (probe == probe) | (position >= 0)  # noqa: PLR0124
            return te.if_then_else(kept, position, te.const(-1, dtypes.I64))

        positions = te.compute(indices.shape, position, "position")
        count = indices.shape[axis]
        none = te.const(-1, dtypes.I64)

        def names(i: tuple, k: te.IterVar) -> tuple[te.Expr, tuple]:
            at = (*i[:axis], k, *i[axis + 1 :])
            return positions.get(at, pad=none) == te.index(i[axis]), at

        if reduction == "none":

            def last(*i: sympy.Expr) -> te.Expr:
                k = te.reduce_axis(0, count, "k")
                hit, _ = names(i, k)
                return te.max(te.if_then_else(hit, te.index(k), none), k)

            chosen = te.compute(x.shape, last, "last")

            def body(*i: sympy.Expr) -> te.Expr:
                k = chosen[i]
                value = updates.get((*i[:axis], k, *i[axis + 1 :]), pad=te.const(0, x.dtype))
                return te.if_then_else(k >= 0, value, x[i])

            return te.compute(result_dims(result_type), body, OUTPUT)

        neutral = {
            "add": 0,
            "mul": 1,
            "max": _extreme(x.dtype, largest=False),
            "min": _extreme(x.dtype, largest=True),
        }[reduction]
        combine = {"add": te.sum, "mul": te.prod, "max": te.max, "min": te.min}[reduction]
        merge = {
            "add": lambda a, b: a + b,
            "mul": lambda a, b: a * b,
            "max": te.maximum,
            "min": te.minimum,
        }[reduction]
        if dtypes.is_bool(x.dtype):
            merge = {"max": lambda a, b: a | b, "min": lambda a, b: a & b}[reduction]

        def combined(*i: sympy.Expr) -> te.Expr:
            k = te.reduce_axis(0, count, "k")
            hit, at = names(i, k)
            value = updates.get(at, pad=te.const(neutral, x.dtype))
            return combine(te.if_then_else(hit, value, te.const(neutral, x.dtype)), k)

        gathered = te.compute(x.shape, combined, "combined")
        return te.compute(result_dims(result_type), lambda *i: merge(x[i], gathered[i]), OUTPUT)


SCATTER_OPS = (ScatterElementsOp,)
