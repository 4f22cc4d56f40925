"""Set operators and other data-dependent selections: ``unique``, ``unique_all`` (the
array API's: values, first positions, inverse positions and counts) and ``nonzero``.
Their result lengths depend on the values: they run on the safety net, and the
importers name the lengths with ``relax.match_shape``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType, TupleType, show_type
from xrelax.dialects.shapes.obligations import Facts
from xrelax.ops.base import (
    FLOAT,
    I64_PROP,
    INTEGER,
    OperatorOp,
    Props,
    check_dtype,
    dims_product,
    expect_tensor,
    normalize_axis,
    numpy_result,
    prop_bool,
    prop_int,
    tensor,
)


@irdl_op_definition
class UniqueOp(OperatorOp):
    """``relax.unique``: the sorted distinct elements of x, as a 1-D tensor whose length
    depends on the values."""

    name = "relax.unique"

    x = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        return tensor(1, x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        return numpy_result(np.unique(x))


@irdl_op_definition
class UniqueAllOp(OperatorOp):
    """``relax.unique_all``: the distinct elements of x (absent ``axis``: of the flattened
    x; else the distinct slices along ``axis``), sorted (``sorted = false``: in order of
    first occurrence), with the i64 position of each one's first occurrence, the position
    of each element (slice) of x among them, and how often each occurs."""

    name = "relax.unique_all"

    x = operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    sorted = opt_prop_def(BoolAttr)
    result = result_def(TupleType)
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        axis = prop_int(properties, "axis")
        i64 = dtypes.I64
        if axis is None:
            count = (dims_product(x.dims),) if x.dims is not None else 1
            return TupleType.of(
                [tensor(1, x.dtype), tensor(1, i64), tensor(count, i64), tensor(1, i64)]
            )
        if x.ndim is None:
            values, count = tensor(None, x.dtype), 1
        else:
            if x.ndim == 0:
                raise RelaxError(f"expected x of rank at least 1 for an axis, got {show_type(x)}")
            axis = normalize_axis(axis, x.ndim)
            values = tensor(x.ndim, x.dtype)
            count = (x.dims[axis],) if x.dims is not None else 1
        return TupleType.of([values, tensor(1, i64), tensor(count, i64), tensor(1, i64)])

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        axis = prop_int(props, "axis")
        if axis is not None:
            axis = normalize_axis(axis, x.ndim)
        values, first, inverse, counts = np.unique(
            x, return_index=True, return_inverse=True, return_counts=True, axis=axis
        )
        inverse = inverse.reshape(-1)
        if not prop_bool(props, "sorted", True):
            order = np.argsort(first, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            values = np.take(values, order, axis=0 if axis is None else axis)
            first, counts, inverse = first[order], counts[order], rank[inverse]
        return (
            numpy_result(values, x.dtype),
            numpy_result(first, np.int64),
            numpy_result(inverse, np.int64),
            numpy_result(counts, np.int64),
        )


@irdl_op_definition
class NonzeroOp(OperatorOp):
    """``relax.nonzero``: the i64 positions of the non-zero elements of x, one column per
    element in row-major order and one row per axis (numpy.nonzero stacked)."""

    name = "relax.nonzero"

    x = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        if x.ndim == 0:
            raise RelaxError(f"expected x of rank at least 1, got {show_type(x)}")
        return tensor(2, dtypes.I64)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        positions = np.nonzero(x)
        return numpy_result(np.stack(positions).astype(np.int64).reshape(x.ndim, -1))


def _corners(boxes: np.ndarray, center: bool) -> np.ndarray:
    """[y_min, x_min, y_max, x_max] of ONNX boxes (corners in any order, or centers)."""
    boxes = boxes.astype(np.float64)
    if center:
        x, y, w, h = (boxes[..., k] for k in range(4))
        return np.stack([y - h / 2, x - w / 2, y + h / 2, x + w / 2], axis=-1)
    y = np.sort(boxes[..., [0, 2]], axis=-1)
    x = np.sort(boxes[..., [1, 3]], axis=-1)
    return np.stack([y[..., 0], x[..., 0], y[..., 1], x[..., 1]], axis=-1)


def _overlaps(box: np.ndarray, others: np.ndarray, threshold: float) -> np.ndarray:
    """Whether the intersection over union of ``box`` with each of ``others`` is above
    ``threshold`` (never for an empty intersection or box)."""
    top = np.maximum(box[0], others[:, 0])
    left = np.maximum(box[1], others[:, 1])
    bottom = np.minimum(box[2], others[:, 2])
    right = np.minimum(box[3], others[:, 3])
    inter = np.where((bottom > top) & (right > left), (bottom - top) * (right - left), 0.0)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    union = area + areas - inter
    valid = (inter > 0) & (area > 0) & (areas > 0) & (union > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return valid & (inter / np.where(valid, union, 1.0) > threshold)


@irdl_op_definition
class NonMaxSuppressionOp(OperatorOp):
    """``relax.non_max_suppression``: ONNX's NonMaxSuppression. For each batch and class,
    boxes by descending score (equal scores by position) whose score is above
    ``score_threshold`` (-inf: every box), each kept unless its intersection over union
    with a kept one is above ``iou_threshold``, at most ``max_output`` of them; the rows
    ``[batch, class, box]`` (i64). Boxes are ``[y1, x1, y2, x2]`` corners
    (``center_point_box``: ``[x, y, width, height]``)."""

    name = "relax.non_max_suppression"

    boxes = operand_def(TensorType)
    scores = operand_def(TensorType)
    max_output = operand_def(TensorType)
    iou_threshold = operand_def(TensorType)
    score_threshold = operand_def(TensorType)
    center_point_box = opt_prop_def(BoolAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        boxes, scores, limit, iou, score = (expect_tensor(t) for t in operand_types)
        check_dtype(boxes, FLOAT, "boxes")
        check_dtype(scores, FLOAT, "scores")
        check_dtype(limit, INTEGER, "max_output")
        check_dtype(iou, FLOAT, "iou_threshold")
        check_dtype(score, FLOAT, "score_threshold")
        for what, t, rank in (("boxes", boxes, 3), ("scores", scores, 3)):
            if t.ndim is not None and t.ndim != rank:
                raise RelaxError(f"expected {what} of rank {rank}, got {show_type(t)}")
        for what, t in (("max_output", limit), ("iou_threshold", iou), ("score_threshold", score)):
            if t.dims is not None and dims_product(t.dims) != 1 and dims_product(t.dims).is_Integer:
                raise RelaxError(f"expected one value as {what}, got {show_type(t)}")
        if boxes.dims is not None and boxes.dims[2] != 4 and boxes.dims[2].is_Integer:
            raise RelaxError(f"expected boxes of 4 coordinates, got {show_type(boxes)}")
        return tensor(2, dtypes.I64)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        boxes, scores, limit, iou, score = inputs
        if boxes.shape[0] != scores.shape[0] or boxes.shape[1] != scores.shape[2]:
            raise RelaxError(
                f"boxes {list(boxes.shape)} and scores {list(scores.shape)} differ in "
                "their batches or boxes"
            )
        limit, iou, score = (
            int(limit.reshape(-1)[0]),
            float(iou.reshape(-1)[0]),
            float(score.reshape(-1)[0]),
        )
        corners = _corners(boxes, prop_bool(props, "center_point_box"))
        rows = []
        for b in range(scores.shape[0]):
            for c in range(scores.shape[1]):
                values = scores[b, c]
                order = stable_descending(values)
                if score != float("-inf"):
                    order = order[values[order] > score]
                kept: list[int] = []
                for i in order:
                    if len(kept) >= limit:
                        break
                    if not kept or not _overlaps(corners[b, i], corners[b, kept], iou).any():
                        kept.append(int(i))
                rows += [(b, c, i) for i in kept]
        return numpy_result(np.array(rows, np.int64).reshape(len(rows), 3))


def stable_descending(values: np.ndarray) -> np.ndarray:
    """Positions by descending value, equal values by position."""
    return np.argsort(-values.astype(np.float64), kind="stable")


SET_OPS = (UniqueOp, UniqueAllOp, NonzeroOp, NonMaxSuppressionOp)
