"""ONNX converters of the neural-network family: convolutions, pooling, resizing and
normalisation beyond the core set in :mod:`xrelax.frontend.onnx` (registered on import)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import onnx
import sympy
from xdsl.dialects.builtin import StringAttr

from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.common import FrontendError, Unsupported
from xrelax.frontend.onnx_importer import (
    _axis,
    _converts,
    _flag,
    _given,
    _Importer,
    _Known,
    _run_time_sizes,
    _sizes_value,
    _static,
    _string,
    _Value,
)
from xrelax.ops.base import dims_product

_AUTO_PAD = ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")

# ------------------------------------------------------------------ windows


def _window(
    attrs: dict, sizes: Sequence[sympy.Expr], kernel: Sequence[int], pool: bool = False
) -> tuple[list[int], list[int], list[int]]:
    """Strides, padding (starts then ends) and dilations of a Conv or pooling node,
    checked; ``auto_pad`` SAME_UPPER / SAME_LOWER pads so that the output has
    ``ceil(size / stride)`` elements (the extra one at the end for SAME_UPPER), which
    needs static sizes unless every stride is 1."""
    spatial = len(kernel)
    strides = list(attrs.get("strides", [1] * spatial))
    dilations = list(attrs.get("dilations", [1] * spatial))
    for name, values in (("strides", strides), ("dilations", dilations)):
        if len(values) != spatial or any(v < 1 for v in values):
            raise FrontendError(f"{name} is {values}, expected {spatial} values >= 1")
    if any(k < 1 for k in kernel):
        raise FrontendError(f"kernel_shape is {list(kernel)}, expected values >= 1")
    auto_pad = _string(attrs, "auto_pad", "NOTSET", _AUTO_PAD)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        before, after = [], []
        for size, stride, k, d in zip(sizes, strides, kernel, dilations, strict=True):
            if stride == 1:
                total = (k - 1) * d
            elif size.is_Integer:
                out = -(-int(size) // stride)
                total = max((out - 1) * stride + (k - 1) * d + 1 - int(size), 0)
            else:
                raise Unsupported(f"auto_pad={auto_pad} with a stride over a symbolic size")
            small, large = total // 2, total - total // 2
            before.append(small if auto_pad == "SAME_UPPER" else large)
            after.append(large if auto_pad == "SAME_UPPER" else small)
        return strides, before + after, dilations
    pads = (
        [0] * (2 * spatial) if auto_pad == "VALID" else list(attrs.get("pads", [0] * 2 * spatial))
    )
    if len(pads) != 2 * spatial or any(p < 0 for p in pads):
        raise FrontendError(f"pads is {pads}, expected {2 * spatial} values >= 0")
    if pool and any(p >= k for p, k in zip(pads, list(kernel) * 2, strict=True)):
        raise FrontendError(f"pads {pads} must be smaller than kernel_shape {list(kernel)}")
    return strides, pads, dilations


def _spatial_rank(rank: int, what: str) -> int:
    """The number of spatial axes of an N, C, *spatial input: 1 to 3."""
    if rank < 3:
        raise FrontendError(f"{what} has rank {rank}, expected N, C and spatial axes")
    if rank > 5:
        raise Unsupported(f"{rank - 2}-d windows")
    return rank - 2


def _weights(imp: _Importer, inputs: list[_Value], attrs: dict) -> tuple[Any, Any, list[int]]:
    """X and W of a Conv or ConvTranspose node and the kernel's (static) size."""
    em = imp.em
    x, w = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    x_dims, w_dims = em.dims(x), em.dims(w)
    _spatial_rank(len(x_dims), "X")
    if len(w_dims) != len(x_dims):
        raise FrontendError(f"W has rank {len(w_dims)}, expected {len(x_dims)} (the rank of X)")
    kernel = _static(w_dims[2:])
    if kernel is None:
        raise Unsupported("a kernel of symbolic size")
    given = list(attrs.get("kernel_shape", kernel))
    if given != kernel:
        raise FrontendError(f"kernel_shape is {given}, but W's kernel is {kernel}")
    return x, w, kernel


def _bias(imp: _Importer, inputs: list[_Value]) -> Any:
    bias = _given(inputs, 2)
    return None if bias is None else imp.tensor(bias)


@_converts("Conv")
def _conv(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em = imp.em
    x, w, kernel = _weights(imp, inputs, attrs)
    x_dims, w_dims = em.dims(x), em.dims(w)
    group = attrs.get("group", 1)
    if group < 1 or (w_dims[0].is_Integer and int(w_dims[0]) % group):
        raise FrontendError(f"group is {group}, expected a divisor of the {w_dims[0]} filters")
    if symbolic.prove_not_equal(x_dims[1], w_dims[1] * group):
        raise FrontendError(
            f"X has {symbolic.format_expr(x_dims[1])} channels, expected "
            f"{symbolic.format_expr(w_dims[1] * group)} (W's {w_dims[1]} times group {group})"
        )
    strides, pads, dilations = _window(attrs, x_dims[2:], kernel)
    return em.conv(x, w, _bias(imp, inputs), strides, pads, dilations, group)


@_converts("ConvTranspose")
def _conv_transpose(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """The transposed convolution; ``output_shape`` or ``auto_pad`` SAME_* give the
    padding from the wanted output size (static sizes): the total is split evenly, the
    odd element at the end for SAME_UPPER and at the start otherwise, as onnxruntime
    does."""
    em = imp.em
    x, w, kernel = _weights(imp, inputs, attrs)
    x_dims, w_dims = em.dims(x), em.dims(w)
    spatial = len(kernel)
    group = attrs.get("group", 1)
    if group < 1 or (x_dims[1].is_Integer and int(x_dims[1]) % group):
        raise FrontendError(f"group is {group}, expected a divisor of X's {x_dims[1]} channels")
    if symbolic.prove_not_equal(x_dims[1], w_dims[0]):
        raise FrontendError(
            f"X has {symbolic.format_expr(x_dims[1])} channels, expected W's "
            f"{symbolic.format_expr(w_dims[0])}"
        )
    strides = list(attrs.get("strides", [1] * spatial))
    dilations = list(attrs.get("dilations", [1] * spatial))
    extra = list(attrs.get("output_padding", [0] * spatial))
    for name, values, low in (("strides", strides, 1), ("dilations", dilations, 1),
                              ("output_padding", extra, 0)):  # fmt: skip
        if len(values) != spatial or any(v < low for v in values):
            raise FrontendError(f"{name} is {values}, expected {spatial} values >= {low}")
    auto_pad = _string(attrs, "auto_pad", "NOTSET", _AUTO_PAD)
    wanted = list(attrs.get("output_shape", []))
    if len(wanted) == spatial + 2:
        wanted = wanted[2:]
    if wanted and len(wanted) != spatial:
        raise FrontendError(f"output_shape is {wanted}, expected {spatial} values")
    if wanted or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        sizes = _static(x_dims[2:])
        if sizes is None:
            raise Unsupported("output_shape or auto_pad SAME over a symbolic size")
        wanted = wanted or [n * s for n, s in zip(sizes, strides, strict=True)]
        before, after = [], []
        for axis, (n, s, k, d, e) in enumerate(
            zip(sizes, strides, kernel, dilations, extra, strict=True)
        ):
            total = s * (n - 1) + e + (k - 1) * d + 1 - wanted[axis]
            if total < 0:
                # A larger output than the kernels cover: zeros at the end.
                before.append(0)
                after.append(0)
                extra[axis] -= total
                continue
            small, large = total // 2, total - total // 2
            before.append(small if auto_pad == "SAME_UPPER" else large)
            after.append(large if auto_pad == "SAME_UPPER" else small)
        pads = before + after
    else:
        pads = (
            [0] * (2 * spatial)
            if auto_pad == "VALID"
            else list(attrs.get("pads", [0] * 2 * spatial))
        )
        if len(pads) != 2 * spatial or any(p < 0 for p in pads):
            raise FrontendError(f"pads is {pads}, expected {2 * spatial} values >= 0")
    return em.conv_transpose(x, w, _bias(imp, inputs), strides, pads, extra, dilations, group)


@_converts("MaxPool", "AveragePool")
def _pool(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    kernel = list(attrs["kernel_shape"])
    dims = em.dims(x)
    if len(kernel) != len(dims) - 2:
        raise FrontendError(f"kernel_shape {kernel} does not fit an input of rank {len(dims)}")
    _spatial_rank(len(dims), "X")
    strides, pads, dilations = _window(attrs, dims[2:], kernel, pool=True)
    ceil_mode = _flag(attrs, "ceil_mode")
    if node.op_type == "AveragePool":
        include = _flag(attrs, "count_include_pad")
        return em.avg_pool(x, kernel, strides, pads, include, ceil_mode, dilations)
    if len(node.output) < 2 or not node.output[1]:
        return em.max_pool(x, kernel, strides, pads, dilations, ceil_mode)
    spatial = len(kernel)
    before, after = pads[:spatial], pads[spatial:]
    if ceil_mode:
        after = em.ceil_padding(x, kernel, strides, dilations, before, after)
    order = attrs.get("storage_order", 0)
    if order not in (0, 1) or (order == 1 and spatial != 2):
        raise FrontendError(f"storage_order is {order}, expected 0 (or 1 for 2-d pooling)")
    return list(
        em.max_pool_with_indices(
            x, kernel, strides, before + after, dilations, planes=False, column_major=order == 1
        )
    )


@_converts("MaxUnpool")
def _max_unpool(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """X's values placed at their indices (positions in the flattened output) of a
    tensor of zeros: the output shape given, else ``(size - 1) * stride + kernel`` less
    the padding."""
    em = imp.em
    x, indices = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    dims = list(em.dims(x))
    kernel = list(attrs["kernel_shape"])
    spatial = _spatial_rank(len(dims), "X")
    if len(kernel) != spatial:
        raise FrontendError(f"kernel_shape {kernel} does not fit an input of rank {len(dims)}")
    strides = list(attrs.get("strides", [1] * spatial))
    pads = list(attrs.get("pads", [0] * 2 * spatial))
    inferred = dims[:2] + [
        (d - 1) * s + k - pads[a] - pads[spatial + a]
        for a, (d, s, k) in enumerate(zip(dims[2:], strides, kernel, strict=True))
    ]
    given = _given(inputs, 2)
    if given is None:
        out = inferred
    elif isinstance(given, _Known):
        out = imp.sizes(given, "output_shape")
    else:
        out = _run_time_sizes(imp, given, "output_shape")
    if len(out) != len(dims):
        raise FrontendError(f"output_shape has {len(out)} values, expected {len(dims)}")
    flat_indices = em.reshape(em.cast(indices, dtypes.I64), [dims_product(dims)])
    if any(not symbolic.prove_equal(o, i) for o, i in zip(out, inferred, strict=True)):
        # onnx's reference places the values in the inferred shape, then that shape at
        # the start of the given one: each index moves to its place in the larger one.
        flat_indices = _moved(imp, flat_indices, inferred, out)
    zeros = em.full([dims_product(out)], 0, em.dtype(x))
    values = em.reshape(x, [dims_product(dims)])
    scattered = em.op("scatter_elements", zeros, flat_indices, values, axis=0)
    return em.reshape(scattered, out)


def _moved(imp: _Importer, flat: Any, source: list[Any], target: list[Any]) -> Any:
    """Row-major positions in a tensor of shape ``source`` as positions of the same
    element indices in one of shape ``target`` (non-negative positions)."""
    em = imp.em
    moved = None
    for axis in range(len(source)):
        inner = dims_product(source[axis + 1 :])
        coordinate = em.op("divide", flat, em.full([], inner, dtypes.I64))
        coordinate = em.remainder(coordinate, em.full([], source[axis], dtypes.I64))
        term = em.op(
            "multiply", coordinate, em.full([], dims_product(target[axis + 1 :]), dtypes.I64)
        )
        moved = term if moved is None else em.op("add", moved, term)
    return moved


@_converts("LpPool")
def _lp_pool(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``(sum |x| ** p) ** (1 / p)`` over each window, the padding counting as zeros:
    the window sums are a depthwise convolution with a kernel of ones."""
    em, x = imp.em, imp.tensor(inputs[0])
    kernel = list(attrs["kernel_shape"])
    dims = em.dims(x)
    if len(kernel) != len(dims) - 2:
        raise FrontendError(f"kernel_shape {kernel} does not fit an input of rank {len(dims)}")
    _spatial_rank(len(dims), "X")
    p = attrs.get("p", 2)
    if p < 1:
        raise FrontendError(f"p is {p}, expected at least 1")
    channels = dims[1]
    if not channels.is_Integer:
        raise Unsupported("a symbolic number of channels")
    strides, pads, dilations = _window(attrs, dims[2:], kernel, pool=True)
    spatial = len(kernel)
    if _flag(attrs, "ceil_mode"):
        after = em.ceil_padding(x, kernel, strides, dilations, pads[:spatial], pads[spatial:])
        pads = pads[:spatial] + after
    magnitude = em.op("abs", x)
    powered = magnitude if p == 1 else em.op("power", magnitude, em.scalar(float(p), x))
    ones = em.const(np.ones([int(channels), 1, *kernel]), em.dtype(x))
    total = em.conv(powered, ones, None, strides, pads, dilations, int(channels))
    if p == 1:
        return total
    return em.op("power", total, em.scalar(1.0 / p, x))


# ------------------------------------------------------------------ normalisation


@_converts("BatchNormalization")
def _batch_norm(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Normalisation per channel by the running statistics; in training mode (opset 14
    on) by the batch's own (the biased variance), the running statistics updated with
    ``momentum`` as the second and third outputs."""
    training = attrs.get("training_mode", 0) if imp.opset >= 14 else 0
    if imp.opset < 7 and not attrs.get("is_test", 0):
        raise Unsupported("training mode before opset 14")
    if not training and len([o for o in node.output if o]) > 1:
        raise Unsupported("the running statistics outside training mode")
    if imp.opset < 9 and not attrs.get("spatial", 1):
        raise Unsupported("spatial=0")
    em = imp.em
    x, scale, bias, mean, var = (imp.tensor(v) for v in inputs[:5])
    rank = em.ndim(x)
    if rank < 2:
        raise FrontendError(f"X has rank {rank}, expected at least 2")
    epsilon = attrs.get("epsilon", 1e-5)
    if not training:
        return em.batch_norm(x, mean, var, scale, bias, epsilon)
    axes = [0, *range(2, rank)]
    batch_mean = em.op("mean", x, axis=axes)
    centred = em.op("subtract", x, em.channel_vector(batch_mean, rank))
    batch_var = em.op("mean", em.op("multiply", centred, centred), axis=axes)
    y = em.batch_norm(x, batch_mean, batch_var, scale, bias, epsilon)
    momentum = attrs.get("momentum", 0.9)

    def running(value: Any, batch: Any) -> Any:
        kept = em.op("multiply", value, em.scalar(momentum, value))
        return em.op("add", kept, em.op("multiply", batch, em.scalar(1 - momentum, batch)))

    return [y, running(mean, batch_mean), running(var, batch_var)]


@_converts("LpNormalization")
def _lp_normalization(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    """x divided by its L1 or L2 norm along ``axis``; 0 where the norm is 0 (as onnx's
    reference gives)."""
    em, x = imp.em, imp.tensor(inputs[0])
    axis = _axis(attrs.get("axis", -1), max(em.ndim(x), 1))
    p = attrs.get("p", 2)
    if p not in (1, 2):
        raise FrontendError(f"p is {p}, expected 1 or 2")
    if p == 1:
        norm = em.op("sum", em.op("abs", x), axis=[axis], keepdims=True)
    else:
        norm = em.op("sqrt", em.op("sum", em.op("multiply", x, x), axis=[axis], keepdims=True))
    zero = em.scalar(0.0, x)
    return em.op("where", em.op("equal", norm, zero), zero, em.op("divide", x, norm))


# ------------------------------------------------------------------ resizing


def _floats(value: _Value, what: str) -> list[float] | None:
    """An import-time float input (scales, roi); None when absent or empty, or, for
    scales, computed at run time."""
    if value is None or (what == "scales" and not isinstance(value, _Known)):
        return None
    if not isinstance(value, _Known) or value.array.dtype == object:
        raise Unsupported(f"a {what} computed at run time")
    array = np.asarray(value.array, np.float64).reshape(-1)
    return None if array.size == 0 else [float(v) for v in array]


def _scaled(size: sympy.Expr, scale: float) -> sympy.Expr:
    """``floor(size * scale)``, exactly (a float32 scale is a binary fraction)."""
    ratio = Fraction(scale)
    return symbolic.floordiv(size * ratio.numerator, ratio.denominator)


@_converts("Resize")
def _resize(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``relax.resize`` along the axes that change: the output size from ``sizes`` (with
    the keep_aspect_ratio_policy) or ``floor(size * scale)``, computed when the node
    runs if the graph computes them. Before opset 11, as Upsample."""
    em, x = imp.em, imp.tensor(inputs[0])
    dims = list(em.dims(x))
    rank = len(dims)
    mode = _string(attrs, "mode", "nearest", ("nearest", "linear", "cubic"))
    if mode != "nearest" and not dtypes.is_float(em.dtype(x)):
        raise Unsupported(f"{mode} resizing of integers")
    if imp.opset < 11:
        return _upsample(imp, x, _given(inputs, 1), mode, resize=True)
    if attrs.get("antialias", 0) and mode != "nearest":
        raise Unsupported("antialias")
    axes = [_axis(a, rank, "axes") for a in attrs.get("axes", range(rank))]
    if len(set(axes)) != len(axes):
        raise FrontendError(f"axes {attrs['axes']} repeat an axis")
    coordinates = _string(attrs, "coordinate_transformation_mode", "half_pixel", _COORDINATES)
    nearest_mode = _string(attrs, "nearest_mode", "round_prefer_floor", _ROUNDINGS)
    policy = _string(
        attrs, "keep_aspect_ratio_policy", "stretch", ("stretch", "not_larger", "not_smaller")
    )
    scales_value, sizes_value = _given(inputs, 2), _given(inputs, 3)
    if scales_value is not None and imp.dims(scales_value) == [0]:
        scales_value = None
    if sizes_value is not None and imp.dims(sizes_value) == [0]:
        sizes_value = None
    if (scales_value is None) == (sizes_value is None):
        raise FrontendError("expected exactly one of scales and sizes")
    roi = None
    if coordinates == "tf_crop_and_resize":
        roi = _roi(imp, _given(inputs, 1), len(axes))
    if scales_value is not None:
        out, scales, axes = _scaled_output(imp, dims, axes, scales_value, roi is not None)
    else:
        out, scales = _sized_output(imp, dims, axes, sizes_value, policy)
        if roi is not None and scales is None:
            scales = _ratios(imp, [dims[a] for a in axes], [out[a] for a in axes])
        elif scales is None:
            # An axis whose size stays is left alone (as onnx's reference does).
            axes = [a for a in axes if not symbolic.prove_equal(out[a], dims[a])]
    return em.resize(
        x,
        out,
        mode,
        axes,
        scales,
        coordinates,
        nearest_mode,
        roi,
        cubic_coeff_a=attrs.get("cubic_coeff_a", -0.75),
        exclude_outside=_flag(attrs, "exclude_outside"),
        extrapolation_value=attrs.get("extrapolation_value", 0.0),
    )


_COORDINATES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
_ROUNDINGS = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _scaled_output(
    imp: _Importer, dims: list[sympy.Expr], axes: list[int], value: _Value, keep_all: bool
) -> tuple[list[sympy.Expr], Any, list[int]]:
    """The output size ``floor(size * scale)`` of Resize's ``scales`` (computed when the
    node runs if the graph computes them), the scales as an f64 tensor, and the axes
    resampled: a known scale of 1 leaves its axis alone unless ``keep_all`` (as onnx's
    reference does)."""
    em = imp.em
    out = list(dims)
    known = _floats(value, "scales")
    if known is None:
        scales = em.cast(imp.tensor(value), dtypes.F64)
        if list(em.dims(scales)) != [len(axes)]:
            raise FrontendError(f"scales has shape {em.dims(scales)}, expected [{len(axes)}]")
        sizes = em.cast(_sizes_value(imp, [dims[a] for a in axes]), dtypes.F64)
        scaled = em.cast(em.op("floor", em.op("multiply", sizes, scales)), dtypes.I64)
        for axis, size in zip(axes, _run_time_sizes(imp, scaled, "sizes"), strict=True):
            out[axis] = size
        return out, scales, axes
    if len(known) != len(axes) or any(not s > 0 for s in known):
        raise FrontendError(f"scales is {known}, expected {len(axes)} positive values")
    kept = [k for k, s in enumerate(known) if s != 1.0 or keep_all]
    for k in kept:
        out[axes[k]] = _scaled(dims[axes[k]], known[k])
    scales = em.const(np.array([known[k] for k in kept], np.float64))
    return out, scales, [axes[k] for k in kept]


def _roi(imp: _Importer, value: _Value, count: int) -> Any:
    """tf_crop_and_resize's region as a float tensor of ``2 * count`` values."""
    em = imp.em
    if value is None:
        raise FrontendError("tf_crop_and_resize needs a roi")
    roi = imp.tensor(value)
    if list(em.dims(roi)) != [2 * count]:
        raise FrontendError(f"roi has shape {em.dims(roi)}, expected [{2 * count}]")
    return roi


def _ratios(imp: _Importer, sizes: list[sympy.Expr], out: list[sympy.Expr]) -> Any:
    """``out / sizes`` as an f64 tensor (computed when it runs for symbolic sizes)."""
    em = imp.em
    static = _static([*sizes, *out])
    if static is not None:
        count = len(sizes)
        return em.const(np.array(static[count:], np.float64) / np.array(static[:count]))
    wide = [em.cast(_sizes_value(imp, values), dtypes.F64) for values in (out, sizes)]
    return em.op("divide", *wide)


def _sized_output(
    imp: _Importer, dims: list[sympy.Expr], axes: list[int], value: _Value, policy: str
) -> tuple[list[sympy.Expr], Any]:
    """The output size of Resize's ``sizes`` (new symbolic sizes when the graph computes
    them) and, for a policy keeping the aspect ratio, the common scale (the smallest or
    largest of the ratios) as an f64 tensor, the sizes then ``round(size * scale)``."""
    em = imp.em
    out = list(dims)
    if isinstance(value, _Known):
        sizes = imp.sizes(value, "sizes")
    else:
        sizes = _run_time_sizes(imp, value, "sizes")
    if len(sizes) != len(axes):
        raise FrontendError(f"sizes has {len(sizes)} values, expected {len(axes)}")
    if policy == "stretch":
        for axis, size in zip(axes, sizes, strict=True):
            out[axis] = size
        return out, None
    ratios = _ratios(imp, [dims[a] for a in axes], sizes)
    reduce = "min" if policy == "not_larger" else "max"
    scale = em.op(reduce, ratios, axis=[0], keepdims=True)
    scales = em.op("broadcast_to", scale, em.shape([len(axes)]))
    inputs = em.cast(_sizes_value(imp, [dims[a] for a in axes]), dtypes.F64)
    half = em.scalar(0.5, inputs)
    rounded = em.op("floor", em.op("add", em.op("multiply", inputs, scales), half))
    new_sizes = _run_time_sizes(imp, em.cast(rounded, dtypes.I64), "sizes")
    for axis, size in zip(axes, new_sizes, strict=True):
        out[axis] = size
    return out, scales


@_converts("Upsample")
def _upsample_node(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    mode = _string(attrs, "mode", "nearest", ("nearest", "linear", "bilinear"))
    mode = "linear" if mode == "bilinear" else mode
    if mode == "linear" and not dtypes.is_float(imp.em.dtype(x)):
        raise Unsupported("linear resizing of integers")
    if imp.opset < 9:
        return _upsample(imp, x, _Known(np.array(attrs.get("scales", []), np.float32)), mode)
    return _upsample(imp, x, _given(inputs, 1), mode)


def _upsample(imp: _Importer, x: Any, value: _Value, mode: str, resize: bool = False) -> Any:
    """Upsample (and Resize before opset 11, ``resize``): the nearest element below
    ``y / scale`` (asymmetric coordinates), or linear between the two around it.
    onnxruntime refuses an Upsample scale below 1 and rounds Resize-10's nearest
    downsampling otherwise: both refused."""
    dims = list(imp.em.dims(x))
    if mode not in ("nearest", "linear"):
        raise FrontendError(f"mode is '{mode}', expected nearest or linear")
    known = _floats(value, "scales")
    if known is not None and any(s < 1 for s in known):
        if not resize:
            raise FrontendError(f"scales is {known}, expected values >= 1 (as onnxruntime)")
        if mode == "nearest":
            raise Unsupported("nearest downsampling before opset 11")
    out, scales, axes = _scaled_output(imp, dims, list(range(len(dims))), value, False)
    return imp.em.resize(x, out, mode, axes, scales, "asymmetric", "floor")


@_converts("GridSample")
def _grid_sample(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``relax.grid_sample``; opset 16's bilinear and bicubic are linear and cubic."""
    em = imp.em
    x, grid = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    if em.ndim(x) < 3 or em.ndim(grid) != em.ndim(x):
        raise FrontendError(
            f"X of rank {em.ndim(x)} and grid of rank {em.ndim(grid)}: expected one rank of "
            "at least 3"
        )
    mode = _string(attrs, "mode", "linear" if imp.opset >= 20 else "bilinear",
                   ("linear", "nearest", "cubic", "bilinear", "bicubic"))  # fmt: skip
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    padding = _string(attrs, "padding_mode", "zeros", ("zeros", "border", "reflection"))
    if not dtypes.is_float(em.dtype(x)):
        raise Unsupported("grid sampling of integers")
    return em.op(
        "grid_sample",
        x,
        grid,
        mode=StringAttr(mode),
        padding_mode=StringAttr(padding),
        align_corners=_flag(attrs, "align_corners"),
    )


@_converts("Col2Im")
def _col2im(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """The blocks (N, C * prod(block), L) summed into images (N, C, *image_shape): a
    transposed convolution of the blocks laid out on their grid, with a kernel that
    puts each block element at its place (one group per channel)."""
    em, x = imp.em, imp.tensor(inputs[0])
    image = imp.ints(inputs[1], "image_shape")
    block = imp.ints(inputs[2], "block_shape")
    spatial = len(image)
    if len(block) != spatial or any(b < 1 for b in block) or any(s < 1 for s in image):
        raise FrontendError(f"image_shape {image} and block_shape {block} do not match")
    strides = list(attrs.get("strides", [1] * spatial))
    dilations = list(attrs.get("dilations", [1] * spatial))
    pads = list(attrs.get("pads", [0] * 2 * spatial))
    grid = [
        (size + pads[d] + pads[spatial + d] - dilations[d] * (block[d] - 1) - 1) // strides[d] + 1
        for d, size in enumerate(image)
    ]
    batch, rows, count = em.dims(x)
    taps = math.prod(block)
    if not rows.is_Integer or int(rows) % taps:
        raise FrontendError(f"input has {rows} rows, expected a multiple of {taps}")
    if symbolic.prove_not_equal(count, math.prod(grid)):
        raise FrontendError(f"input has {count} blocks, expected {math.prod(grid)}")
    channels = int(rows) // taps
    kernel = np.zeros([channels * taps, 1, *block], np.float32)
    for c in range(channels):
        for k, position in enumerate(itertools.product(*(range(b) for b in block))):
            kernel[(c * taps + k, 0, *position)] = 1
    blocks = em.reshape(x, [batch, rows, *grid])
    weight = em.const(kernel, em.dtype(x))
    return em.conv_transpose(
        blocks, weight, None, strides, pads, [0] * spatial, dilations, channels
    )
