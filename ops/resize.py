"""Resampling: ``relax.resize``, ONNX Resize's interpolation of a tensor to a new shape
(nearest with its rounding modes, linear, cubic; every coordinate transformation), and
``relax.grid_sample``, ONNX GridSample's sampling at the coordinates a grid gives.

A resize resamples each axis on its own (the interpolations are separable): each
output position ``y`` maps to a source coordinate ``x``, which gives the taps (source
indices, clamped to the axis, and their weights). A grid sample takes the taps of
every spatial axis at each output position and sums their products. One set of
formulas (:func:`_taps`, :func:`_grid_taps`) serves the numpy reference and the TE
kernel, over numpy arrays or TE expressions (:class:`_NumpyMath`, :class:`_TeMath`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import sympy
from xdsl.dialects.builtin import BoolAttr, FloatAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, ShapeType, TensorType, show_type
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.obligations import Facts
from xrelax.ops import te
from xrelax.ops.base import (
    FLOAT,
    I64_ARRAY_PROP,
    NUMERIC,
    OUTPUT,
    OperatorOp,
    Props,
    check_dtype,
    expect_shape,
    expect_tensor,
    normalize_axes,
    numpy_result,
    prop_bool,
    prop_float,
    prop_ints,
    require_equal,
    require_le,
    result_dims,
    tensor,
)

MODES = ("nearest", "linear", "cubic")
COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _choice(props: Props, name: str, default: str | None, allowed: Sequence[str]) -> str:
    attr = props.get(name)
    if attr is None:
        if default is None:
            raise RelaxError(f"expected a '{name}' property")
        return default
    value = attr.data if isinstance(attr, StringAttr) else None
    if value not in allowed:
        raise RelaxError(f"expected '{name}' to be one of {', '.join(allowed)}, got {attr}")
    return value


@dataclass(frozen=True)
class Sampling:
    """The properties of a resize, checked, for a tensor of ``rank`` axes."""

    mode: str
    coordinates: str
    rounding: str
    cubic_a: float
    exclude_outside: bool
    extrapolation: float
    axes: list[int]
    """The axes resampled, in order (the others keep their size)."""

    @staticmethod
    def of(props: Props, rank: int) -> Sampling:
        axes = normalize_axes(prop_ints(props, "axes", list(range(rank))), rank, "axes")
        coordinates = _choice(
            props, "coordinate_transformation_mode", "half_pixel", COORDINATE_MODES
        )
        return Sampling(
            _choice(props, "mode", None, MODES),
            coordinates,
            _choice(props, "nearest_mode", "round_prefer_floor", NEAREST_MODES),
            prop_float(props, "cubic_coeff_a", -0.75),
            prop_bool(props, "exclude_outside"),
            prop_float(props, "extrapolation_value", 0.0),
            axes,
        )

    def fills(self) -> list[float]:
        """The values of the positions :func:`_taps` masks, in order: 0 where a nearest
        tap lies outside the input (with ``exclude_outside``), the extrapolation value
        where tf_crop_and_resize's coordinate does."""
        fills = [0.0] if self.mode == "nearest" and self.exclude_outside else []
        return fills + ([self.extrapolation] if self.coordinates == "tf_crop_and_resize" else [])


class _NumpyMath:
    """The operations of the tap formulas, on numpy arrays (the reference): ``real`` a
    size or number as f64, ``wide`` a value as f64, ``single`` as f32, ``integer`` a size
    as i64, ``to_int`` a value truncated to i64, ``times`` a value times a size in the
    value's type, ``clip`` an index into ``[0, high]``; ``floor``, ``where``, ``rint``
    (halves to even), ``trunc``."""

    floor = staticmethod(np.floor)
    where = staticmethod(np.where)

    @staticmethod
    def real(value: Any) -> Any:
        return np.float64(value)

    @staticmethod
    def to_int(x: Any) -> Any:
        return np.asarray(x).astype(np.int64)

    @staticmethod
    def integer(value: Any) -> Any:
        return np.int64(value)

    @staticmethod
    def wide(value: Any) -> Any:
        return np.float64(value)

    @staticmethod
    def times(value: Any, size: Any) -> Any:
        return value * value.dtype.type(size)

    @staticmethod
    def clip(i: Any, high: Any) -> Any:
        return np.clip(i, 0, high)

    rint = staticmethod(np.rint)
    trunc = staticmethod(np.trunc)

    @staticmethod
    def single(value: Any) -> Any:
        return np.asarray(value).astype(np.float32)


class _TeMath:
    """The operations of the tap formulas (see :class:`_NumpyMath`), on TE expressions
    (the kernel)."""

    floor = staticmethod(te.floor)
    where = staticmethod(te.if_then_else)

    @staticmethod
    def real(value: Any) -> Any:
        if isinstance(value, sympy.Expr) and not value.is_Number:
            return te.index(value, dtypes.F64)
        return te.const(float(value), dtypes.F64)

    @staticmethod
    def to_int(x: Any) -> Any:
        return te.cast(x, dtypes.I64)

    @staticmethod
    def integer(value: Any) -> Any:
        return te.index(value, dtypes.I64)

    @staticmethod
    def wide(value: Any) -> Any:
        return te.cast(value, dtypes.F64)

    @staticmethod
    def times(value: Any, size: Any) -> Any:
        return value * te.cast(te.index(size, dtypes.I64), value.dtype)

    @staticmethod
    def clip(i: Any, high: Any) -> Any:
        return te.minimum(te.maximum(i, te.const(0, dtypes.I64)), high)

    rint = staticmethod(te.roundeven)
    trunc = staticmethod(te.trunc)

    @staticmethod
    def single(value: Any) -> Any:
        if isinstance(value, sympy.Expr):
            return te.index(value, dtypes.F32)
        return te.cast(value, dtypes.F32)


def _near(a: float, d: Any) -> Any:
    """The cubic convolution kernel at distance ``d`` in [0, 1]."""
    return ((a + 2) * d - (a + 3)) * d * d + 1


def _far(a: float, d: Any) -> Any:
    """The cubic convolution kernel at distance ``d`` in [1, 2]."""
    return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a


def _taps(
    math: Any, s: Sampling, y: Any, size: Any, out: Any, scale: Any, region: Any
) -> tuple[list[Any], list[Any] | None, list[Any]]:
    """For output positions ``y`` of an axis of ``size`` resampled to ``out``: the taps'
    source indices (clamped to the axis), their weights (None for nearest) and where
    the masks of the positions given :meth:`Sampling.fills`. ``size`` and
    ``out`` are integers or symbolic sizes; ``scale`` the given scale (a float value of
    ``math``), if any."""
    n, m = math.real(size), math.real(out)
    factor = m / n if scale is None else scale
    width = factor * n  # ONNX's "output width": the scale times the input size
    masks = []
    mode = s.coordinates
    if mode == "half_pixel":
        x = (y + 0.5) / factor - 0.5
    elif mode == "half_pixel_symmetric":
        offset = n / 2 * (1 - m / width)
        x = offset + (y + 0.5) / factor - 0.5
    elif mode == "pytorch_half_pixel":
        # The ONNX spec and onnxruntime sample an output axis of length 1 at 0; onnx's
        # reference samples it at -0.5 (a different number with cubic or exclude_outside).
        x = math.where(m == 1, y * 0, (y + 0.5) / factor - 0.5)
    elif mode == "align_corners":
        x = math.where(width == 1, y * 0, y * (n - 1) / (width - 1))
    elif mode == "asymmetric":
        x = y / factor
    else:
        # In the roi's own precision where onnx's reference computes so (its bounds,
        # their difference and their products with a size are float32 for a float32 roi).
        start, end = region
        extent = end - start
        x = math.where(
            width == 1,
            y * 0 + math.wide(math.times(extent, size - 1) / 2),
            y * math.wide(extent) * (n - 1) / (width - 1),
        )
        x = x + math.wide(math.times(start, size - 1))
        extrapolated = (x < 0) | (x > n - 1)
    floor = math.floor(x)
    ratio = x - floor
    p = math.to_int(floor)
    last = math.integer(size - 1)
    if s.mode == "nearest":
        if s.rounding != "floor":
            threshold = {"round_prefer_floor": ratio > 0.5, "round_prefer_ceil": ratio >= 0.5}
            p = math.where(threshold.get(s.rounding, ratio > 0), p + 1, p)
        if s.exclude_outside:
            # ONNX's reference weighs a nearest tap outside the input 0.
            masks.append((p < 0) | (p > last))
        if mode == "tf_crop_and_resize":
            masks.append(extrapolated)
        return [math.clip(p, last)], None, masks
    if s.mode == "linear":
        offsets, weights = [0, 1], [1 - ratio, ratio]
    else:
        a = s.cubic_a
        weights = [_far(a, ratio + 1), _near(a, ratio), _near(a, 1 - ratio), _far(a, 2 - ratio)]
        offsets = [-1, 0, 1, 2]
    indices = [p + k for k in offsets]
    if s.exclude_outside:
        weights = [
            math.where((i >= 0) & (i <= last), w, w * 0)
            for i, w in zip(indices, weights, strict=True)
        ]
        total = weights[0]
        for w in weights[1:]:
            total = total + w
        total = math.where(total == 0, total * 0 + 1, total)
        weights = [w / total for w in weights]
    if mode == "tf_crop_and_resize":
        masks.append(extrapolated)
    return [math.clip(i, last) for i in indices], weights, masks


@irdl_op_definition
class ResizeOp(OperatorOp):
    """``%r = relax.resize %x, %shape[, %scales[, %roi]] {mode, axes, ...}``: x resampled
    to ``shape`` along ``axes`` (absent: all; the others keep their size) as ONNX Resize
    does. ``mode``: nearest, linear or cubic (linear and cubic of floats, computed in
    f64); ``scales`` (a float per resampled axis) is what coordinates are divided by
    (absent: output / input size); ``roi`` (floats, the starts then the ends per
    resampled axis) is tf_crop_and_resize's region, given exactly for it. Absent:
    coordinate_transformation_mode half_pixel, nearest_mode round_prefer_floor,
    cubic_coeff_a -0.75, exclude_outside false, extrapolation_value 0."""

    name = "relax.resize"

    x = operand_def(TensorType)
    shape = operand_def(ShapeType)
    parameters = var_operand_def(TensorType)
    mode = prop_def(StringAttr)
    axes = opt_prop_def(I64_ARRAY_PROP)
    coordinate_transformation_mode = opt_prop_def(StringAttr)
    nearest_mode = opt_prop_def(StringAttr)
    cubic_coeff_a = opt_prop_def(FloatAttr)
    exclude_outside = opt_prop_def(BoolAttr)
    extrapolation_value = opt_prop_def(FloatAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    TAPS: ClassVar[dict[str, int]] = {"nearest": 1, "linear": 2, "cubic": 4}

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        shape = expect_shape(operand_types[1], "shape operand")
        parameters = [expect_tensor(t, "scales or roi") for t in operand_types[2:]]
        if len(parameters) > 2:
            raise RelaxError(
                f"expected at most scales and roi, got {len(parameters)} more operands"
            )
        mode = _choice(properties, "mode", None, MODES)
        check_dtype(x, NUMERIC if mode == "nearest" else FLOAT)
        rank = x.ndim if x.ndim is not None else shape.ndim
        if x.ndim is not None and shape.ndim is not None and x.ndim != shape.ndim:
            raise RelaxError(
                f"expected a shape of rank {x.ndim} (the rank of x), got {show_type(shape)}"
            )
        if rank is None:
            return tensor(None, x.dtype)
        sampling = Sampling.of(properties, rank)
        cropped = sampling.coordinates == "tf_crop_and_resize"
        if cropped != (len(parameters) == 2):
            raise RelaxError(
                "expected scales and a roi operand exactly for tf_crop_and_resize, got "
                f"{len(parameters)} operands after the shape"
            )
        count = len(sampling.axes)
        for parameter, length, what in zip(
            parameters, (count, 2 * count), ("scales", "roi"), strict=False
        ):
            check_dtype(parameter, FLOAT)
            if parameter.ndim is not None and (
                parameter.ndim != 1 or (parameter.dims is not None and parameter.dims[0] != length)
            ):
                raise RelaxError(f"expected {what} of shape [{length}], got {show_type(parameter)}")
        if x.dims is None or shape.dims is None:
            return tensor(shape.dims if shape.dims is not None else rank, x.dtype)
        for axis, (size, out) in enumerate(zip(x.dims, shape.dims, strict=True)):
            if axis not in sampling.axes:
                if symbolic.prove_not_equal(size, out):
                    raise RelaxError(
                        f"expected axis {axis}, not resampled, to keep its size, got "
                        f"{show_type(x)} and {show_type(shape)}"
                    )
                require_equal(facts, out, size, f"relax.resize: axis {axis} keeps its size")
            elif size == 0:
                raise RelaxError(f"expected axis {axis} of x not empty, got {show_type(x)}")
            else:
                require_le(facts, 1, size, f"relax.resize: resampled axis {axis} is not empty")
        return tensor(shape.dims, x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, shape, *parameters = inputs
        sampling = Sampling.of(props, x.ndim)
        scales, region = _parameters(sampling, parameters, lambda a, k: np.float64(a[k]))
        value = x if sampling.mode == "nearest" else x.astype(np.float64)
        for k, axis in enumerate(sampling.axes):
            size, out = value.shape[axis], shape[axis]
            scale = None if scales is None else scales[k]
            y = np.arange(out, dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):  # the branches not taken
                indices, weights, masks = _taps(
                    _NumpyMath, sampling, y, size, out, scale, region(k)
                )
            along = [1] * x.ndim
            along[axis] = out
            if weights is None:
                value = np.take(value, indices[0], axis=axis)
            else:
                value = sum(
                    np.take(value, i, axis=axis) * w.reshape(along)
                    for i, w in zip(indices, weights, strict=True)
                )
            for mask, fill in zip(masks, sampling.fills(), strict=True):
                value = np.where(mask.reshape(along), fill, value)
        return numpy_result(value, x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        x, _, *parameters = inputs
        rank = x.ndim
        sampling = Sampling.of(props, rank)
        scales, region = _parameters(sampling, parameters, lambda t, k: te.cast(t[k], dtypes.F64))
        dims = result_dims(result_type)
        if not sampling.axes:
            return te.compute(dims, lambda *i: x[i], OUTPUT)
        wide = x.dtype if sampling.mode == "nearest" else dtypes.F64
        value = x
        for k, axis in enumerate(sampling.axes):
            scale = None if scales is None else scales[k]
            stages = _tap_stages(sampling, k, x.shape[axis], dims[axis], scale, region(k))
            done = sampling.axes[: k + 1]
            shape = tuple(dims[a] if a in done else x.shape[a] for a in range(rank))
            last = k == len(sampling.axes) - 1
            name = OUTPUT if last else f"resized{axis}"
            value = _resample(value, axis, stages, sampling, shape, x.dtype if last else wide, name)
        return value


def _parameters(
    sampling: Sampling, parameters: Sequence[Any], read: Callable[[Any, int], Any]
) -> tuple[list[Any] | None, Callable[[int], Any]]:
    """The scales (None: output / input size), read as f64, and the function giving the
    ``k``-th resampled axis's region (start, end, in the roi's type) from the ``scales``
    and ``roi`` operands (numpy arrays or TE tensors)."""
    count = len(sampling.axes)
    scales = [read(parameters[0], k) for k in range(count)] if parameters else None

    def region(k: int) -> tuple[Any, Any] | None:
        if len(parameters) < 2:
            return None
        roi = parameters[1]
        return roi[k], roi[count + k]

    return scales, region


def _tap_stages(
    sampling: Sampling,
    k: int,
    size: sympy.Expr,
    out: sympy.Expr,
    scale: te.Expr | None,
    region: tuple[te.Expr, te.Expr] | None,
) -> tuple[list[te.Tensor], list[te.Tensor] | None, list[te.Tensor]]:
    """The taps of the ``k``-th resampled axis as TE stages over its output positions:
    indices, weights and the masks of :meth:`Sampling.fills`."""

    def taps_at(i: sympy.Expr) -> tuple:
        return _taps(_TeMath, sampling, te.index(i, dtypes.F64), size, out, scale, region)

    count = ResizeOp.TAPS[sampling.mode]
    indices = [
        te.compute((out,), lambda i, t=t: taps_at(i)[0][t], f"index{k}_{t}") for t in range(count)
    ]
    weights = None
    if sampling.mode != "nearest":
        weights = [
            te.compute((out,), lambda i, t=t: taps_at(i)[1][t], f"weight{k}_{t}")
            for t in range(count)
        ]
    masks = [
        te.compute((out,), lambda i, t=t: taps_at(i)[2][t], f"filled{k}_{t}")
        for t in range(len(sampling.fills()))
    ]
    return indices, weights, masks


def _resample(
    value: te.Tensor,
    axis: int,
    stages: tuple[list[te.Tensor], list[te.Tensor] | None, list[te.Tensor]],
    sampling: Sampling,
    shape: tuple,
    dtype: Attribute,
    name: str,
) -> te.Tensor:
    """``value`` resampled along ``axis`` by the tap stages, as ``dtype``."""
    indices, weights, masks = stages

    def body(*i: sympy.Expr) -> te.Expr:
        def tap(k: int) -> te.Expr:
            source = (*i[:axis], indices[k][i[axis]], *i[axis + 1 :])
            return value[source]

        if weights is None:
            result = tap(0)
        else:
            result = None
            for k in range(len(indices)):
                term = te.cast(tap(k), dtypes.F64) * weights[k][i[axis]]
                result = term if result is None else result + term
        for mask, fill in zip(masks, sampling.fills(), strict=True):
            filled = te.cast(te.const(fill, dtypes.F64), result.dtype)
            result = te.if_then_else(mask[i[axis]], filled, result)
        return te.cast(result, dtype)

    return te.compute(shape, body, name)


# ------------------------------------------------------------------------------ grid_sample

PADDING_MODES = ("zeros", "border", "reflection")


def _reflected(math: Any, v: Any, low: float | Any, high: float | Any) -> Any:
    """``v`` reflected at the borders ``low`` and ``high`` until inside them."""
    span = high - low
    below, above = v < low, v > high
    distance = math.where(below, low - v, v - high)
    turns = math.trunc(distance / span)
    rest = distance - turns * span
    even = turns - 2 * math.floor(turns / 2) == 0
    from_below = math.where(even, low + rest, high - rest)
    from_above = math.where(even, high - rest, low + rest)
    return math.where(below, from_below, math.where(above, from_above, v))


def _grid_taps(
    math: Any, mode: str, padding: str, align: bool, v: Any, size: Any, double: bool = False
) -> tuple[list[Any], list[Any] | None, list[Any] | None]:
    """For normalized coordinates ``v`` (in [-1, 1]) along an axis of ``size``: the taps'
    indices (clamped to the axis), their weights (None for nearest) and, for zeros
    padding, whether each tap lies inside the axis (else None). As onnx's reference:
    the coordinate in float32 (float64 when ``double``: f64 data), borders and
    reflection in float64."""
    coordinate = math.wide if double else math.single
    length = math.real(size) if double else math.single(size)
    v = coordinate(v)
    x = (v + 1) / 2 * (length - 1) if align else ((v + 1) * length - 1) / 2
    low = math.real(0) if align else math.real(-0.5)
    high = math.real(size) - (1 if align else 0.5)
    if mode == "nearest":
        x = math.rint(x)
    wide = math.wide(x)
    if padding == "border" and mode != "cubic":
        # Cubic clamps each tap instead, as onnxruntime and torch do (onnx's reference
        # clamps the coordinate first; linear and nearest give the same either way).
        last_position = math.real(size) - 1
        clamped = math.where(
            wide < 0, wide * 0, math.where(wide > last_position, last_position, wide)
        )
        x = coordinate(math.where((wide < low) | (wide > high), clamped, wide))
    elif padding == "reflection":
        x = coordinate(_reflected(math, wide, low, high))
    last = math.integer(size - 1)
    if mode == "nearest":
        taps, weights = [math.to_int(x)], None
    else:
        floor = math.floor(x)
        ratio = x - floor
        p = math.to_int(floor)
        if mode == "linear":
            taps, weights = [p, p + 1], [1 - ratio, ratio]
        else:
            a = -0.75
            taps = [p - 1, p, p + 1, p + 2]
            weights = [_far(a, ratio + 1), _near(a, ratio), _near(a, 1 - ratio), _far(a, 2 - ratio)]
    inside = None
    if padding == "zeros":
        inside = [(t >= 0) & (t <= last) for t in taps]
    elif padding == "reflection":
        taps = [math.to_int(math.trunc(_reflected(math, math.wide(t), low, high))) for t in taps]
    return [math.clip(t, last) for t in taps], weights, inside


@irdl_op_definition
class GridSampleOp(OperatorOp):
    """``%r = relax.grid_sample %x, %grid {mode, padding_mode, align_corners}``: x (N, C,
    *spatial, floats) sampled at the normalized coordinates of grid (N, *out, D; the
    last axis in reversed spatial order: x, y, z) as ONNX GridSample does: ``mode``
    nearest (halves to even), linear or cubic (absent: linear); ``padding_mode`` zeros,
    border or reflection (absent: zeros); ``align_corners`` (absent: false) maps -1 and
    1 to the centres of the corner elements instead of their outer edges. Coordinates,
    weights and the weighted sum are computed in f32 (f64 for f64 x) and rounded once."""

    name = "relax.grid_sample"

    x = operand_def(TensorType)
    grid = operand_def(TensorType)
    mode = opt_prop_def(StringAttr)
    padding_mode = opt_prop_def(StringAttr)
    align_corners = opt_prop_def(BoolAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @staticmethod
    def options(props: Props) -> tuple[str, str, bool]:
        """The mode, the padding mode and align_corners."""
        return (
            _choice(props, "mode", "linear", MODES),
            _choice(props, "padding_mode", "zeros", PADDING_MODES),
            prop_bool(props, "align_corners"),
        )

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x, grid = (expect_tensor(t) for t in operand_types)
        check_dtype(x, FLOAT)
        check_dtype(grid, FLOAT)
        cls.options(properties)
        rank = x.ndim if x.ndim is not None else grid.ndim
        if rank is None:
            return tensor(None, x.dtype)
        for operand in (x, grid):
            if operand.ndim is not None and (operand.ndim != rank or rank < 3):
                raise RelaxError(
                    f"expected x (N, C, *spatial) and grid (N, *out, {rank - 2}) of one rank "
                    f"of at least 3, got {show_type(x)} and {show_type(grid)}"
                )
        if x.dims is None or grid.dims is None:
            return tensor(rank, x.dtype)
        if symbolic.prove_not_equal(grid.dims[-1], rank - 2):
            raise RelaxError(
                f"expected grid's last axis to hold {rank - 2} coordinates, got {show_type(grid)}"
            )
        require_equal(
            facts, grid.dims[-1], rank - 2, "relax.grid_sample: grid holds a coordinate per axis"
        )
        if symbolic.prove_not_equal(x.dims[0], grid.dims[0]):
            raise RelaxError(
                f"expected x and grid of one batch, got {show_type(x)} and {show_type(grid)}"
            )
        require_equal(
            facts, grid.dims[0], x.dims[0], "relax.grid_sample: x and grid have one batch"
        )
        for axis, size in enumerate(x.dims[2:]):
            require_le(facts, 1, size, f"relax.grid_sample: spatial axis {axis} of x is not empty")
        return tensor((x.dims[0], x.dims[1], *grid.dims[1:-1]), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, grid = inputs
        mode, padding, align = cls.options(props)
        spatial = x.ndim - 2
        wide = np.float64 if x.dtype == np.float64 else np.float32
        out = grid.shape[1:-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            taps = [
                _grid_taps(
                    _NumpyMath,
                    mode,
                    padding,
                    align,
                    grid[..., spatial - 1 - d],
                    x.shape[2 + d],
                    wide == np.float64,
                )
                for d in range(spatial)
            ]
        batch = np.arange(x.shape[0]).reshape(-1, *([1] * len(out)))
        total = np.zeros((x.shape[0], *out, x.shape[1]), wide)
        channels_last = np.moveaxis(x, 1, -1)
        for choice in itertools.product(*(range(len(t[0])) for t in taps)):
            index = [taps[d][0][k] for d, k in enumerate(choice)]
            value = channels_last[(batch, *index)].astype(wide)
            factor = np.ones((), wide)
            for d, k in enumerate(choice):
                if taps[d][1] is not None:
                    factor = factor * taps[d][1][k].astype(wide)
                if taps[d][2] is not None:
                    value = np.where(taps[d][2][k][..., None], value, 0)
            total = total + value * factor[..., None]
        return numpy_result(np.moveaxis(total, -1, 1), x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        x, grid = inputs
        mode, padding, align = cls.options(props)
        spatial = x.ndim - 2
        wide = dtypes.F64 if x.dtype == dtypes.F64 else dtypes.F32
        positions = grid.shape[:-1]
        count = {"nearest": 1, "linear": 2, "cubic": 4}[mode]

        def taps_at(d: int, i: Sequence[sympy.Expr]) -> tuple:
            v = grid[(*i, spatial - 1 - d)]
            double = wide == dtypes.F64
            return _grid_taps(_TeMath, mode, padding, align, v, x.shape[2 + d], double)

        stages = []
        for d in range(spatial):
            index = [
                te.compute(positions, lambda *i, d=d, k=k: taps_at(d, i)[0][k], f"index{d}_{k}")
                for k in range(count)
            ]
            weight = None
            if mode != "nearest":
                weight = [
                    te.compute(
                        positions,
                        lambda *i, d=d, k=k: te.cast(taps_at(d, i)[1][k], wide),
                        f"weight{d}_{k}",
                    )
                    for k in range(count)
                ]
            inside = None
            if padding == "zeros":
                inside = [
                    te.compute(
                        positions, lambda *i, d=d, k=k: taps_at(d, i)[2][k], f"inside{d}_{k}"
                    )
                    for k in range(count)
                ]
            stages.append((index, weight, inside))

        def body(b: sympy.Expr, c: sympy.Expr, *o: sympy.Expr) -> te.Expr:
            at = (b, *o)
            total = None
            for choice in itertools.product(range(count), repeat=spatial):
                value = te.cast(
                    x[(b, c, *(stages[d][0][k][at] for d, k in enumerate(choice)))], wide
                )
                for d, k in enumerate(choice):
                    if stages[d][2] is not None:
                        value = te.if_then_else(stages[d][2][k][at], value, te.const(0, wide))
                    if stages[d][1] is not None:
                        value = value * stages[d][1][k][at]
                total = value if total is None else total + value
            return te.cast(total, x.dtype)

        return te.compute(result_dims(result_type), body, OUTPUT)


RESIZE_OPS = (ResizeOp, GridSampleOp)
