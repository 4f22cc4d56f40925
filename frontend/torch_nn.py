"""ATen converters of the neural-network family beyond the core set in
:mod:`xrelax.frontend.torch`: convolutions, pooling, upsampling and normalisation
(registered on import)."""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy
import torch
from xdsl.dialects.builtin import StringAttr

from xrelax.dialects import dtypes
from xrelax.dialects.shapes.symbolic import floordiv
from xrelax.frontend.common import Unsupported
from xrelax.frontend.torch_importer import (
    Importer,
    batched,
    converter_key,
    converts,
    items_used,
)
from xrelax.ops.base import dims_product

# ------------------------------------------------------------------ windows


def _spatial(values: Any, spatial: int) -> list[int]:
    """A per-spatial-axis argument as one value per axis (torch allows one for all)."""
    values = [values] if isinstance(values, int) else list(values)
    return values * spatial if len(values) == 1 else values


def _same_padding(kernel: list[int], dilation: list[int]) -> list[int]:
    """``padding='same'``: the window's reach less one, the odd element at the end."""
    total = [d * (k - 1) for k, d in zip(kernel, dilation, strict=True)]
    return [t // 2 for t in total] + [t - t // 2 for t in total]


@converts(
    "aten.conv1d",
    "aten.conv2d",
    "aten.conv3d",
    "aten.convolution",
    "aten._convolution",
    "aten.conv_transpose1d",
    "aten.conv_transpose2d",
    "aten.conv_transpose3d",
    half_in_float=True,
)
def _conv(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """A convolution or, transposed, its gradient; unbatched input as a batch of one."""
    em, weight = imp.em, a["weight"]
    spatial = em.ndim(weight) - 2
    transposed = a.get("transposed") or "transpose" in converter_key(node)
    strides = _spatial(a["stride"], spatial)
    dilation = _spatial(a["dilation"], spatial)
    padding = a["padding"]
    if padding == "valid":
        padding = [0] * spatial
    elif padding == "same":
        kernel = em.dims(weight)[2:]
        if not all(k.is_Integer for k in kernel):
            raise Unsupported("padding='same' with a kernel of symbolic size")
        padding = _same_padding([int(k) for k in kernel], dilation)
    else:
        padding = _spatial(padding, spatial)

    def apply(x: Any) -> Any:
        if not transposed:
            return em.conv(x, weight, a["bias"], strides, padding, dilation, a["groups"])
        extra = _spatial(a["output_padding"], spatial)
        return em.conv_transpose(
            x, weight, a["bias"], strides, padding, extra, dilation, a["groups"]
        )

    return batched(em, a["input"], spatial + 2, apply)


def _pool_spatial(node: torch.fx.Node) -> int:
    """The number of spatial axes of a pooling operator, from its name."""
    return int(converter_key(node).removesuffix("_with_indices")[-2])


@converts(
    "aten.max_pool1d",
    "aten.max_pool2d",
    "aten.max_pool3d",
    "aten.max_pool1d_with_indices",
    "aten.max_pool2d_with_indices",
    "aten.max_pool3d_with_indices",
)
def _max_pool(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """Max pooling; the indices (when used) are flat positions in each plane of N, C,
    of the first maximum of a window (a NaN wins, as in torch)."""
    em = imp.em
    spatial = _pool_spatial(node)
    kernel = _spatial(a["kernel_size"], spatial)
    strides = _spatial(a["stride"], spatial) if a["stride"] else kernel
    padding = _spatial(a["padding"], spatial)
    dilation = _spatial(a["dilation"], spatial)
    with_indices = converter_key(node).endswith("_with_indices")
    if not with_indices or 1 not in items_used(node):
        y = batched(
            em,
            a["self"],
            spatial + 2,
            lambda x: em.max_pool(x, kernel, strides, padding, dilation, a["ceil_mode"]),
        )
        return [y, None] if with_indices else y

    def pooled(x: Any) -> Any:
        after = padding
        if a["ceil_mode"]:
            after = em.ceil_padding(x, kernel, strides, dilation, padding, padding)
        values, indices = em.max_pool_with_indices(
            x, kernel, strides, padding + after, dilation, planes=True, nan_wins=True
        )
        return values, indices

    x = a["self"]
    if em.ndim(x) == spatial + 1:
        values, indices = pooled(em.unsqueeze(x, [0]))
        return [em.squeeze(values, [0]), em.squeeze(indices, [0])]
    return list(pooled(x))


@converts("aten.max_unpool2d", "aten.max_unpool3d")
def _max_unpool(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """The values placed at their indices (flat positions in each plane of N, C) of
    zeros of ``output_size``."""
    em = imp.em
    spatial = len(a["output_size"])
    out = [imp._expr(d) if not isinstance(d, sympy.Expr) else d for d in a["output_size"]]

    def unpool(x: Any) -> Any:
        batch, channels, *sizes = em.dims(x)
        count = dims_product(sizes)
        values = em.reshape(x, [batch, channels, count])
        # (Unbatched, the indices have no batch axis: the same elements.)
        indices = em.reshape(em.cast(a["indices"], dtypes.I64), [batch, channels, count])
        zeros = em.full([batch, channels, dims_product(out)], 0, em.dtype(x))
        scattered = em.op("scatter_elements", zeros, indices, values, axis=2)
        return em.reshape(scattered, [batch, channels, *out])

    return batched(em, a["self"], spatial + 2, unpool)


@converts("aten.avg_pool1d", "aten.avg_pool2d", "aten.avg_pool3d", half_in_float=True)
def _avg_pool(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    if a.get("divisor_override") is not None:
        raise Unsupported("divisor_override")
    spatial = _pool_spatial(node)
    kernel = _spatial(a["kernel_size"], spatial)
    strides = _spatial(a["stride"], spatial) if a["stride"] else kernel
    padding, include, ceil = _spatial(a["padding"], spatial), a["count_include_pad"], a["ceil_mode"]
    return batched(
        imp.em,
        a["self"],
        spatial + 2,
        lambda x: imp.em.avg_pool(x, kernel, strides, padding, include, ceil),
    )


# ------------------------------------------------------------------ normalisation


def _normalised(imp: Importer, x: Any, axes: list[int], eps: float) -> tuple[Any, Any, Any]:
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` (the biased variance), with the mean
    and the inverse deviation (the axes kept)."""
    em = imp.em
    mean = em.op("mean", x, axis=axes, keepdims=True)
    centred = em.op("subtract", x, mean)
    variance = em.op("mean", em.op("multiply", centred, centred), axis=axes, keepdims=True)
    inverse = em.op("rsqrt", em.op("add", variance, em.scalar(eps, variance)))
    return em.op("multiply", centred, inverse), mean, inverse


def _affine(imp: Importer, y: Any, weight: Any, bias: Any) -> Any:
    """``y * weight + bias`` per channel (axis 1); absent ones leave y as it is."""
    em, rank = imp.em, imp.em.ndim(y)
    if weight is not None:
        y = em.op("multiply", y, em.channel_vector(weight, rank))
    if bias is not None:
        y = em.op("add", y, em.channel_vector(bias, rank))
    return y


@converts("aten.group_norm", "aten.native_group_norm", half_in_float=True)
def _group_norm(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """Each sample's channels in ``num_groups`` groups, each normalised over its
    channels and spatial axes, then scaled and shifted per channel; native_group_norm
    also gives the mean and inverse deviation per sample and group."""
    em, x = imp.em, a["input"]
    groups = a.get("num_groups", a.get("group"))
    dims = list(em.dims(x))
    batch, channels, *sizes = dims
    grouped = em.reshape(x, [batch, groups, dims_product([floordiv(channels, groups), *sizes])])
    y, mean, inverse = _normalised(imp, grouped, [2], a["eps"])
    y = _affine(imp, em.reshape(y, dims), a["weight"], a["bias"])
    if converter_key(node) == "aten.group_norm":
        return y
    if not {1, 2} & items_used(node):
        return [y, None, None]
    return [y, em.reshape(mean, [batch, groups]), em.reshape(inverse, [batch, groups])]


@converts("aten.instance_norm", half_in_float=True)
def _instance_norm(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """Each channel of each sample normalised over its spatial axes (the input's own
    statistics: ``use_input_stats``), then scaled and shifted per channel."""
    em, x = imp.em, a["input"]
    if not a["use_input_stats"]:
        # Normalised by the running statistics: batch normalisation in inference.
        return em.batch_norm(
            x, a["running_mean"], a["running_var"], a["weight"], a["bias"], a["eps"]
        )
    y, _, _ = _normalised(imp, x, list(range(2, em.ndim(x))), a["eps"])
    return _affine(imp, y, a["weight"], a["bias"])


@converts("aten.glu")
def _glu(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """The first half along ``dim`` times the sigmoid of the second."""
    em, x = imp.em, a["self"]
    rank = em.ndim(x)
    dim = a["dim"] % rank
    size = em.dims(x)[dim]
    half = floordiv(size, 2)
    first = em.slice(x, dim, 0, half)
    second = em.slice(x, dim, half, size)
    return em.op("multiply", first, em.op("sigmoid", second))


@converts("aten._weight_norm")
def _weight_norm(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """``v * g / ||v||``, the norm over every axis but ``dim``."""
    em, v, g = imp.em, a["v"], a["g"]
    rank = em.ndim(v)
    dim = a["dim"] % rank if a["dim"] != -1 else -1
    axes = [k for k in range(rank) if k != dim] if dim != -1 else list(range(rank))
    norm = em.op("sqrt", em.op("sum", em.op("multiply", v, v), axis=axes, keepdims=True))
    return em.op("multiply", v, em.op("divide", g, norm))


# ------------------------------------------------------------------ upsampling

_UPSAMPLING = {
    "nearest": ("nearest", "asymmetric", "floor"),
    "_upsample_nearest_exact": ("nearest", "half_pixel", "round_prefer_ceil"),
    "linear": ("linear", "half_pixel", "round_prefer_floor"),
    "bilinear": ("linear", "half_pixel", "round_prefer_floor"),
    "trilinear": ("linear", "half_pixel", "round_prefer_floor"),
    "bicubic": ("cubic", "half_pixel", "round_prefer_floor"),
}
"""torch's interpolations as relax.resize's mode, coordinate transformation and
rounding: nearest takes the element at ``floor(y * in / out)``, nearest-exact at
``floor((y + 0.5) * in / out)``; linear and cubic sample at ``(y + 0.5) * in / out -
0.5`` (``y * (in - 1) / (out - 1)`` with ``align_corners``), the taps clamped to the
input, cubic with A = -0.75."""


@converts(
    *(f"aten.upsample_{kind}{rank}d" for kind in ("nearest", "linear", "bilinear", "trilinear",
                                                   "bicubic") for rank in (1, 2, 3)),
    *(f"aten._upsample_nearest_exact{rank}d" for rank in (1, 2, 3)),
)  # fmt: skip
def _upsample(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em = imp.em
    x = a.get("self", a.get("input"))
    name = converter_key(node).removeprefix("aten.").removeprefix("upsample_")[:-2]
    mode, coordinates, rounding = _UPSAMPLING[name]
    rank = em.ndim(x)
    axes = list(range(2, rank))
    out = [imp._expr(d) for d in node.meta["val"].shape]
    align = bool(a.get("align_corners"))
    if align:
        coordinates = "align_corners"
    given = a.get("scale_factors")
    if given is None:
        given = [a.get(k) for k in ("scales", "scales_d", "scales_h", "scales_w") if k in a]
        given = None if not given or any(s is None for s in given) else given
    # torch divides by the given scales (not with align_corners), else by out / in.
    scales = None
    if given is not None and not align:
        scales = em.const(np.array(_spatial(list(given), len(axes)), np.float64))
    return em.resize(x, out, mode, axes, scales, coordinates, rounding)


@converts("aten.grid_sampler", "aten.grid_sampler_2d", "aten.grid_sampler_3d")
def _grid_sampler(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """``relax.grid_sample``; torch numbers the modes (bilinear, nearest, bicubic) and the
    paddings (zeros, border, reflection)."""
    if imp.em.dtype(a["input"]) == dtypes.F16:
        # torch's CPU kernel computes float16 sampling in float16 steps (coordinates,
        # weights and each product and sum rounded), 0.02 away from the sum computed in
        # f32 and rounded once that relax.grid_sample gives.
        raise Unsupported("float16 (torch computes it in float16 steps)")
    modes, paddings = ("linear", "nearest", "cubic"), ("zeros", "border", "reflection")
    mode, padding = modes[a["interpolation_mode"]], paddings[a["padding_mode"]]
    return imp.em.op(
        "grid_sample",
        a["input"],
        a["grid"],
        mode=StringAttr(mode),
        padding_mode=StringAttr(padding),
        align_corners=bool(a["align_corners"]),
    )
