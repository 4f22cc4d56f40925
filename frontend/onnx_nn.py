"""ONNX converters of the neural-network family: convolutions, pooling, resizing and
normalisation beyond the core set in :mod:`xrelax.frontend.onnx` (registered on import)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
import sympy

from xrelax.dialects import symbolic
from xrelax.frontend.common import FrontendError, Unsupported
from xrelax.frontend.onnx import (
    _axis,
    _converts,
    _flag,
    _given,
    _Importer,
    _static,
    _string,
    _Value,
)

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
    if len([o for o in node.output if o]) > 1:
        raise Unsupported("the indices output")
    kernel = list(attrs["kernel_shape"])
    dims = em.dims(x)
    if len(kernel) != len(dims) - 2:
        raise FrontendError(f"kernel_shape {kernel} does not fit an input of rank {len(dims)}")
    _spatial_rank(len(dims), "X")
    strides, pads, dilations = _window(attrs, dims[2:], kernel, pool=True)
    ceil_mode = _flag(attrs, "ceil_mode")
    if node.op_type == "MaxPool":
        return em.max_pool(x, kernel, strides, pads, dilations, ceil_mode)
    include = _flag(attrs, "count_include_pad")
    return em.avg_pool(x, kernel, strides, pads, include, ceil_mode, dilations)


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
