"""Gathers by index tensors: ``take`` (numpy.take, ONNX Gather, torch.index_select),
``gather_elements`` (torch.gather, ONNX GatherElements) and ``gather_nd`` (ONNX GatherND;
torch's advanced indexing ``x[i, j]`` is built on it).

The index rule (docs/semantics.md): an index of any integer type addresses an axis of
size ``n`` as an i64 (a narrow index type never wraps the arithmetic). With
``negative_indices`` (the default, numpy's and ONNX's rule) an index in ``[-n, 0)``
counts from the end; with ``negative_indices = false`` (torch's rule) it is an error.
Any other index outside ``[0, n)`` is a run-time error, reported with the index as
given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from xdsl.dialects.builtin import BoolAttr
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
    dims_product,
    expect_tensor,
    known_shape,
    normalize_axis,
    numpy_result,
    prop_bool,
    prop_int,
    require_equal,
    require_le,
    result_dims,
    tensor,
)
from xrelax.ops.manipulate import reshaped


class IndexedGatherOp(OperatorOp):
    """A gather whose ``indices`` operand addresses axes of x (the index rule above)."""

    negative_indices = opt_prop_def(BoolAttr)
    """Whether an index in ``[-n, 0)`` counts from the end (absent: true)."""


def _from_end(props: Props) -> bool:
    return prop_bool(props, "negative_indices", True)


def _position(index: te.Expr, size: sympy.Expr, props: Props) -> te.Expr:
    """The position an ``index`` addresses on an axis of ``size``, as an i64: counted
    from the end when it is in ``[-size, 0)`` and the rule allows it; any other index
    outside ``[0, size)`` is left as given for the kernel's range check to report."""
    index = te.cast(index, dtypes.I64)
    if not _from_end(props):
        return index
    from_end = index + te.index(size)
    return te.if_then_else((index < 0) & (from_end >= 0), from_end, index)


def reference_indices(indices: np.ndarray, sizes: Any, props: Props) -> np.ndarray:
    """``indices`` as i64 positions on axes of ``sizes`` (broadcast against the last axis
    of ``indices`` or a scalar), checked by the index rule: the reference kernels' and
    the safety net's view of what the kernels check."""
    positions = indices.astype(np.int64)
    sizes = np.asarray(sizes, dtype=np.int64)
    low = -sizes if _from_end(props) else np.zeros_like(sizes)
    bad = (positions < low) | (positions >= sizes)
    if bad.any():
        where = np.argwhere(bad)[0]
        value = int(positions[tuple(where)])
        size = int(np.broadcast_to(sizes, positions.shape)[tuple(where)])
        allowed = f"[{-size}, {size})" if _from_end(props) else f"[0, {size})"
        raise RelaxError(f"index {value} out of range {allowed}")
    return np.where(positions < 0, positions + sizes, positions)


def _index_operand(type_: Attribute) -> TensorType:
    indices = expect_tensor(type_, "indices operand")
    check_dtype(indices, SIGNED, "indices")
    return indices


@irdl_op_definition
class TakeOp(IndexedGatherOp):
    """``relax.take``: the entries of x at ``indices`` along ``axis`` (absent: of the
    flattened x), as numpy.take."""

    name = "relax.take"

    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        indices = expect_tensor(operand_types[1], "indices operand")
        check_dtype(indices, SIGNED, "indices")
        axis = prop_int(properties, "axis")
        if axis is None:
            return tensor(known_shape(indices), x.dtype)
        if x.ndim is None:
            return tensor(None, x.dtype)
        axis = normalize_axis(axis, x.ndim)
        if indices.ndim is None:
            return tensor(None, x.dtype)
        if x.dims is None or indices.dims is None:
            return tensor(x.ndim - 1 + indices.ndim, x.dtype)
        return tensor((*x.dims[:axis], *indices.dims, *x.dims[axis + 1 :]), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, indices = inputs
        axis = prop_int(props, "axis")
        size = x.size if axis is None else x.shape[normalize_axis(axis, x.ndim)]
        positions = reference_indices(indices, size, props)
        return numpy_result(np.take(x, positions, axis=axis))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        x, indices = inputs
        axis = prop_int(props, "axis")
        if axis is None:
            x, axis = reshaped(x, (dims_product(x.shape),), "flat"), 0
        axis = normalize_axis(axis, x.ndim)
        rank = indices.ndim

        def body(*i: sympy.Expr) -> te.Expr:
            position = _position(indices[i[axis : axis + rank]], x.shape[axis], props)
            return x[(*i[:axis], position, *i[axis + rank :])]

        return te.compute(result_dims(result_type), body, OUTPUT)


@irdl_op_definition
class GatherElementsOp(IndexedGatherOp):
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
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
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
                require_le(
                    facts, count, size, f"relax.gather_elements: indices fit in x along axis {d}"
                )
        return tensor(indices.dims, x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, indices = inputs
        axis = normalize_axis(prop_int(props, "axis", 0), x.ndim)
        positions = reference_indices(indices, x.shape[axis], props)
        # Along the other axes, indices may be smaller than x: gather from x's front part.
        front = x[
            tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(indices.shape))
        ]
        return numpy_result(np.take_along_axis(front, positions, axis), x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        x, indices = inputs
        axis = normalize_axis(prop_int(props, "axis", 0), x.ndim)
        return te.compute(
            result_dims(result_type),
            lambda *i: x[(*i[:axis], _position(indices[i], x.shape[axis], props), *i[axis + 1 :])],
            OUTPUT,
        )


@irdl_op_definition
class GatherNDOp(IndexedGatherOp):
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
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
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
                facts,
                indices.dims[d],
                x.dims[d],
                f"relax.gather_nd: indices and x share batch axis {d}",
            )
        return tensor((*indices.dims[:-1], *x.dims[batch + depth :]), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, indices = inputs
        batch = prop_int(props, "batch_dims", 0)
        depth = indices.shape[-1]
        indices = reference_indices(indices, x.shape[batch : batch + depth], props)
        lead = indices.shape[:-1]
        if depth == 0:
            # Each index picks the whole of x past the batch axes: numpy's x[()] has no
            # index axes, so spread x over them.
            spread = x.reshape((*x.shape[:batch], *(1,) * (len(lead) - batch), *x.shape[batch:]))
            return numpy_result(np.broadcast_to(spread, (*lead, *x.shape[batch:])).copy())
        grids = np.indices(lead, sparse=True)[:batch]
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
            positions = [
                _position(indices[(*outer, m)], x.shape[batch + m], props) for m in range(depth)
            ]
            return x[(*outer[:batch], *positions, *inner)]

        return te.compute(result_dims(result_type), body, OUTPUT)


GATHER_OPS = (TakeOp, GatherElementsOp, GatherNDOp)
