"""Gathers by index tensors: ``gather_elements`` (torch.gather, ONNX GatherElements) and
``gather_nd`` (ONNX GatherND; torch's advanced indexing ``x[i, j]`` is built on it). A
negative index counts from the end of its axis, as in numpy; an index out of range is a
run-time error of the kernel."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import Pure

from xrelax.dialects.relax import RelaxError, TensorType, show_type
from xrelax.ops import te
from xrelax.ops.base import (
    I64_PROP,
    INTEGER,
    OUTPUT,
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
    tensor,
)


def _wrapped(index: te.Expr, size: sympy.Expr) -> te.Expr:
    """``index``, counted from the end of an axis of ``size`` when negative."""
    return te.if_then_else(index < 0, index + te.index(size, index.dtype), index)


def _index_operand(type_: Attribute) -> TensorType:
    indices = expect_tensor(type_, "indices operand")
    check_dtype(indices, INTEGER, "indices")
    return indices


@irdl_op_definition
class GatherElementsOp(OperatorOp):
    """``relax.gather_elements``: ``out[i] = x[i with i[axis] replaced by indices[i]]``
    (axis absent: 0); indices has the rank of x and is no larger along the other axes;
    the result has the shape of indices."""

    name = "relax.gather_elements"

    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        x = expect_tensor(operand_types[0])
        indices = _index_operand(operand_types[1])
        if x.ndim is None or indices.ndim is None:
            return tensor(x.ndim if indices.ndim is None else indices.ndim, x.dtype)
        if x.ndim != indices.ndim:
            raise RelaxError(
                f"expected indices of the rank of x, got {show_type(indices)} for {show_type(x)}"
            )
        axis = normalize_axis(prop_int(properties, "axis", 0), x.ndim)
        if x.dims is None or indices.dims is None:
            return tensor(x.ndim, x.dtype)
        for d, (size, count) in enumerate(zip(x.dims, indices.dims, strict=True)):
            if d != axis:
                require_le(count, size, f"relax.gather_elements: indices fit in x along axis {d}")
        return tensor(indices.dims, x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, indices = inputs
        axis = normalize_axis(prop_int(props, "axis", 0), x.ndim)
        # Along the other axes, indices may be smaller than x: gather from x's front part.
        front = x[
            tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(indices.shape))
        ]
        return numpy_result(np.take_along_axis(front, indices.astype(np.int64), axis), x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        x, indices = inputs
        axis = normalize_axis(prop_int(props, "axis", 0), x.ndim)
        return te.compute(
            result_dims(result_type),
            lambda *i: x[(*i[:axis], _wrapped(indices[i], x.shape[axis]), *i[axis + 1 :])],
            OUTPUT,
        )


@irdl_op_definition
class GatherNDOp(OperatorOp):
    """``relax.gather_nd``: indices ``[..., k]`` pick slices of x: after the leading
    ``batch_dims`` axes (absent: 0), which x and indices share, the last axis of indices
    gives the positions along the next k axes of x. The result has the shape
    ``indices.shape[:-1] + x.shape[batch_dims + k:]`` (ONNX GatherND)."""

    name = "relax.gather_nd"

    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    batch_dims = opt_prop_def(I64_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        x = expect_tensor(operand_types[0])
        indices = _index_operand(operand_types[1])
        batch = prop_int(properties, "batch_dims", 0)
        if batch < 0:
            raise RelaxError(f"expected batch_dims >= 0, got {batch}")
        if indices.ndim is not None and indices.ndim < batch + 1:
            raise RelaxError(
                f"expected indices of rank > batch_dims = {batch}, got {show_type(indices)}"
            )
        if indices.dims is None or not indices.dims[-1].is_Integer:
            return tensor(None, x.dtype)
        depth = int(indices.dims[-1])
        if x.ndim is not None and x.ndim < batch + depth:
            raise RelaxError(
                f"indices {show_type(indices)} address {batch + depth} axes (batch_dims = "
                f"{batch}), but x is {show_type(x)}"
            )
        if x.dims is None:
            rank = None if x.ndim is None else indices.ndim - 1 + x.ndim - batch - depth
            return tensor(rank, x.dtype)
        for d in range(batch):
            require_equal(
                indices.dims[d], x.dims[d], f"relax.gather_nd: indices and x share batch axis {d}"
            )
        return tensor((*indices.dims[:-1], *x.dims[batch + depth :]), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, indices = inputs
        batch = prop_int(props, "batch_dims", 0)
        indices = indices.astype(np.int64)
        grids = np.indices(indices.shape[:-1], sparse=True)[:batch]
        positions = tuple(np.moveaxis(indices, -1, 0))
        return numpy_result(x[(*grids, *positions)], x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        x, indices = inputs
        batch = prop_int(props, "batch_dims", 0)
        depth = int(indices.shape[-1])
        lead = indices.ndim - 1

        def body(*i: sympy.Expr) -> te.Expr:
            outer, inner = i[:lead], i[lead:]
            positions = [_wrapped(indices[(*outer, m)], x.shape[batch + m]) for m in range(depth)]
            return x[(*outer[:batch], *positions, *inner)]

        return te.compute(result_dims(result_type), body, OUTPUT)


GATHER_OPS = (GatherElementsOp, GatherNDOp)
