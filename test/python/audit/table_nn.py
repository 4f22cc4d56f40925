"""The audit of conv3d, the transposed convolutions, the 1-D and 3-D poolings, resize and
grid_sample: their specs and the oracles conv3d and the poolings do not share with
their 2-D relatives (oracle.py), registered on import by table.py.

Few, small cases per dtype (the full edge-value sets run on the 2-D relatives, whose
oracles these share): a basic case, strides and padding, an empty batch and a size
that breaks the contract, in f32 and i32 (or f64); the other dtypes one basic case.
resize and grid_sample are judged against torch.nn.functional (interpolate,
grid_sample), the transposed convolutions against a scatter of each input element's
weighted kernel written here."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from hypothesis import strategies as st
from oracle import (
    ORACLES,
    Expected,
    Refused,
    _padding,
    _spatial,
    accumulation_bound,
    eps,
    finite_abs,
    is_float,
    rounded,
    wrapped,
)
from table import (
    FLOATS,
    NUMERIC,
    Case,
    Shape,
    array,
    maker,
    ramp,
    random_values,
    rank_only,
    seeds,
    spec,
    specials,
)

FULL = ("f32", "f64", "i32")
"""The dtypes that get every fixed case (the others: the first)."""

# ----------------------------------------------------------------------------- oracles


def _conv_transpose(args: list[Any], props: dict[str, Any]) -> Expected:
    x, w = args
    rank = x.ndim - 2
    groups = props.get("groups", 1)
    strides = _spatial(props, "strides", rank, 1)
    dilation = _spatial(props, "dilation", rank, 1)
    extra = _spatial(props, "output_padding", rank, 0)
    before, after = _padding(props, rank)
    batch, channels, *sizes = x.shape
    in_channels, per_group, *kernel = w.shape
    if in_channels != channels or channels % groups:
        raise Refused(f"channels {channels}, weights {w.shape}, groups {groups}")
    if not all(sizes):
        raise Refused(f"an empty spatial dimension: {x.shape}")
    full = [
        (n - 1) * s + d * (k - 1) + 1 + e
        for n, s, d, k, e in zip(sizes, strides, dilation, kernel, extra, strict=True)
    ]
    out_sizes = [f - b - a for f, b, a in zip(full, before, after, strict=True)]
    if min(out_sizes) < 1:
        raise Refused(f"the padding leaves no output: {out_sizes}")
    floats = is_float(x)
    kind = np.float64 if floats else object
    data, weights = x.astype(kind), w.astype(kind)
    out = np.zeros((batch, per_group * groups, *out_sizes), dtype=kind)
    magnitude = np.zeros(out.shape)
    per_input = channels // groups
    # each input element adds its weighted kernel at stride steps (only the products
    # that exist: no zeros between the input elements, as torch's col2im)
    for c in range(channels):
        group = c // per_input
        for j in range(per_group):
            o = group * per_group + j
            for i in np.ndindex(*sizes):
                value = data[(slice(None), c, *i)]
                for t in np.ndindex(*kernel):
                    p = [i[a] * strides[a] + t[a] * dilation[a] - before[a] for a in range(rank)]
                    if not all(0 <= p[a] < out_sizes[a] for a in range(rank)):
                        continue
                    weight = weights[(c, j, *t)]
                    out[(slice(None), o, *p)] = out[(slice(None), o, *p)] + value * weight
                    if floats:
                        magnitude[(slice(None), o, *p)] += finite_abs(value) * finite_abs(weight)
    if not floats:
        return Expected(wrapped(out, x.dtype))
    terms = per_input * math.prod(kernel)
    return Expected(rounded(out, x.dtype), 1, accumulation_bound(terms, x.dtype, magnitude))


for _rank in (1, 2, 3):
    ORACLES[f"relax.conv_transpose{_rank}d"] = _conv_transpose

_TORCH_MODES = {"nearest": "nearest", "linear": "bilinear", "cubic": "bicubic"}
_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}


def _unquote(value: str) -> str:
    return value.strip('"')


def _resize(args: list[Any], props: dict[str, Any]) -> Expected:
    """torch's interpolate over the spatial axes (N and C keep their sizes): nearest
    (asymmetric, floor) gathers the indices torch's nearest picks; linear (half_pixel
    or align_corners) and cubic (half_pixel, a = -0.75) in float64, rounded once."""
    x, shape = args
    mode = _unquote(props["mode"])
    coordinates = _unquote(props.get("coordinate_transformation_mode", '"half_pixel"'))
    axes = props.get("axes", list(range(x.ndim)))
    for axis in range(x.ndim):
        if axis not in axes and shape[axis] != x.shape[axis]:
            raise Refused(f"axis {axis}, not resampled, changes size")
        if axis in axes and x.shape[axis] == 0:
            raise Refused(f"an empty resampled axis {axis}")
    assert list(shape[:2]) == list(x.shape[:2]), "the oracle resamples spatial axes only"
    size = list(shape[2:])
    if not x.size or not math.prod(shape):
        return Expected(np.zeros(shape, x.dtype))
    if mode == "nearest":
        assert coordinates == "asymmetric" and _unquote(props["nearest_mode"]) == "floor"
        flat = torch.arange(x.size, dtype=torch.float64).reshape(x.shape)
        picked = F.interpolate(flat, size=size, mode="nearest").numpy().astype(np.int64)
        return Expected(x.reshape(-1)[picked])
    torch_mode = _LINEAR[x.ndim - 2] if mode == "linear" else "bicubic"
    align = coordinates == "align_corners"
    assert align or coordinates == "half_pixel"
    value = F.interpolate(
        torch.from_numpy(x.astype(np.float64)), size=size, mode=torch_mode, align_corners=align
    ).numpy()
    bound = 64 * eps(np.dtype(np.float64)) * np.max(finite_abs(x))
    return Expected(rounded(value, x.dtype), 1, bound)


ORACLES["relax.resize"] = _resize


def _grid_sample(args: list[Any], props: dict[str, Any]) -> Expected:
    """torch's grid_sample in float64, rounded once; the paths compute the coordinates
    and sums in f32 (f16 and f32): within f32 rounding of the coordinates."""
    x, grid = args
    if x.shape[0] != grid.shape[0] or grid.shape[-1] != x.ndim - 2:
        raise Refused(f"x {x.shape} and grid {grid.shape}")
    if not all(x.shape[2:]):
        raise Refused(f"an empty spatial axis: {x.shape}")
    mode = _TORCH_MODES[_unquote(props.get("mode", '"linear"'))]
    value = F.grid_sample(
        torch.from_numpy(x.astype(np.float64)),
        torch.from_numpy(grid.astype(np.float64)),
        mode=mode,
        padding_mode=_unquote(props.get("padding_mode", '"zeros"')),
        align_corners=props.get("align_corners", False),
    ).numpy()
    wide = np.float64 if x.dtype == np.float64 else np.float32
    size = max(x.shape[2:])
    bound = 64 * size * eps(np.dtype(wide)) * np.max(finite_abs(x), initial=0.0)
    return Expected(rounded(value, x.dtype), 1, bound)


ORACLES["relax.grid_sample"] = _grid_sample

# ----------------------------------------------------------------------------- specs


def _first_unless_full(dtype: str, found: list[Case]) -> list[Case]:
    return found if dtype in FULL else found[:1]


def _small_random(op: str, spatial: int, transposed: bool) -> Any:
    """A random (transposed) convolution, window 1 or 2 per axis, sizes up to 3."""

    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        rng = draw(seeds())
        groups = draw(st.integers(1, 2))
        kernel = [draw(st.integers(1, 2)) for _ in range(spatial)]
        padding = [draw(st.integers(0, 1)) for _ in range(2 * spatial)]
        if transposed:
            sizes = [draw(st.integers(1, 3)) for _ in range(spatial)]
            strides = [draw(st.integers(1, 2)) for _ in range(spatial)]
            x = random_values(rng, (draw(st.integers(0, 2)), groups, *sizes), dtype)
            w = random_values(rng, (groups, draw(st.integers(1, 2)), *kernel), dtype)
            extra = [draw(st.integers(0, s - 1)) for s in strides]
            # an output of at least one element on each axis
            padding = [
                min(padding[a], max(0, ((sizes[a % spatial] - 1) * strides[a % spatial]
                                        + kernel[a % spatial]) // 2 - 1))
                for a in range(2 * spatial)
            ]  # fmt: skip
            props = {"strides": strides, "padding": padding, "output_padding": extra}
        else:
            sizes = [draw(st.integers(max(0, kernel[a] - 1), 3)) for a in range(spatial)]
            x = random_values(rng, (draw(st.integers(0, 2)), groups, *sizes), dtype)
            w = random_values(rng, (groups * draw(st.integers(1, 2)), 1, *kernel), dtype)
            props = {"strides": [draw(st.integers(1, 2)) for _ in range(spatial)]}
        return maker(op, dtype)("random", x, w, groups=groups, **props)

    return lambda dtype: draw_case(dtype)


def _conv3d_cases(dtype: str) -> list[Case]:
    make = maker("relax.conv3d", dtype)
    return _first_unless_full(
        dtype,
        [
            make("basic", ramp((1, 2, 3, 3, 3), dtype), ramp((2, 2, 2, 2, 2), dtype)),
            make(
                "strided-padded",
                ramp((1, 2, 3, 4, 3), dtype),
                ramp((2, 1, 2, 2, 2), dtype),
                strides=[2],
                padding=[1, 0, 1, 0, 1, 0],
                groups=2,
                static=True,
            ),
            make("empty-batch", ramp((0, 1, 3, 3, 3), dtype), ramp((1, 1, 2, 2, 2), dtype)),
            make(
                "window-too-large",
                ramp((1, 1, 1, 2, 2), dtype),
                ramp((1, 1, 2, 2, 2), dtype),
                static=True,
            ),
        ],
    )


spec(
    "relax.conv3d",
    NUMERIC,
    _conv3d_cases,
    _small_random("relax.conv3d", 3, transposed=False),
    lambda dtype: ([rank_only(5, dtype), rank_only(5, dtype)], {}),
)


def conv_transpose_cases(op: str, spatial: int) -> Any:
    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        lead = (1,) * (spatial - 1)
        found = [
            make("basic", ramp((1, 2, *lead, 3), dtype), ramp((2, 2, *lead, 2), dtype)),
            make(
                "strided",
                ramp((2, 2, *lead, 3), dtype),
                ramp((2, 1, *lead, 3), dtype),
                strides=[2],
                padding=[1],
                output_padding=[1],
                dilation=[1] * (spatial - 1) + [2],
                groups=2,
                static=True,
            ),
            make("empty-batch", ramp((0, 1, *lead, 3), dtype), ramp((1, 1, *lead, 2), dtype)),
            make(
                "cropped-away",
                ramp((1, 1, *lead, 1), dtype),
                ramp((1, 1, *lead, 1), dtype),
                padding=[0] * (2 * spatial - 1) + [1],
                static=True,
            ),
        ]
        if dtype in FLOATS:
            # edge values in the data and the weights, strided: only the products that
            # exist are summed (no 0 * inf between the input elements)
            values = specials(dtype)
            found.append(
                make(
                    "specials",
                    values.reshape(1, 1, *lead, -1),
                    values[:2].reshape(1, 1, *lead, 2) * 0 + values[7],
                    strides=[2],
                    static=True,
                )
            )
        return _first_unless_full(dtype, found)

    return cases


for _rank in (1, 2, 3):
    spec(
        f"relax.conv_transpose{_rank}d",
        NUMERIC,
        conv_transpose_cases(f"relax.conv_transpose{_rank}d", _rank),
        _small_random(f"relax.conv_transpose{_rank}d", _rank, transposed=True),
        lambda dtype, s=_rank: ([rank_only(s + 2, dtype), rank_only(s + 2, dtype)], {}),
    )


def nd_pool_cases(op: str, spatial: int) -> Any:
    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        image = (3,) * (spatial - 1)
        found = [
            make("basic", ramp((1, 2, *image, 4), dtype), pool_size=[2], strides=[2]),
            make(
                "padded",
                ramp((1, 1, *image, 5), dtype),
                pool_size=[3] * (spatial - 1) + [2],
                padding=[1] * (2 * spatial),
                strides=[2],
                static=True,
            ),
            make("empty-batch", ramp((0, 1, *image, 4), dtype), pool_size=[2], static=True),
            make("window-too-large", ramp((1, 1, *image, 1), dtype), pool_size=[2]),
            make(
                "specials",
                specials(dtype).reshape(1, 1, *(1,) * (spatial - 1), -1),
                pool_size=[1] * (spatial - 1) + [3],
                padding=[0] * (2 * spatial - 1) + [1],
                static=True,
            ),
        ]
        return _first_unless_full(dtype, found)

    return cases


def nd_pool_random(op: str, spatial: int) -> Any:
    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        pool = [draw(st.integers(1, 2)) for _ in range(spatial)]
        padding = [draw(st.integers(0, p - 1)) for p in pool * 2]
        sizes = [draw(st.integers(max(1, pool[a] - 1), 3)) for a in range(spatial)]
        x = random_values(draw(seeds()), (draw(st.integers(0, 2)), 1, *sizes), dtype)
        strides = [draw(st.integers(1, 2)) for _ in range(spatial)]
        return maker(op, dtype)("random", x, pool_size=pool, strides=strides, padding=padding)

    return lambda dtype: draw_case(dtype)


for _name in ("max_pool", "avg_pool"):
    for _rank in (1, 3):
        spec(
            f"relax.{_name}{_rank}d",
            NUMERIC,
            nd_pool_cases(f"relax.{_name}{_rank}d", _rank),
            nd_pool_random(f"relax.{_name}{_rank}d", _rank),
            lambda dtype, s=_rank: ([rank_only(s + 2, dtype)], {"pool_size": [2]}),
        )


def _resize_cases(dtype: str) -> list[Case]:
    make = maker("relax.resize", dtype)
    nearest = {"mode": '"nearest"', "coordinate_transformation_mode": '"asymmetric"',
               "nearest_mode": '"floor"'}  # fmt: skip
    found = [
        make("nearest-up", ramp((1, 2, 2, 3), dtype), Shape((1, 2, 5, 4)), **nearest),
        make("nearest-down", ramp((2, 1, 4, 5), dtype), Shape((2, 1, 3, 2)), axes=[2, 3],
             **nearest),
        make("nearest-specials", specials(dtype).reshape(1, 1, -1), Shape((1, 1, 5)),
             static=True, **nearest),
        make("nearest-empty-batch", ramp((0, 1, 3), dtype), Shape((0, 1, 4)), axes=[2],
             **nearest),
        make("empty-axis", ramp((1, 1, 0), dtype), Shape((1, 1, 2)), static=True, **nearest),
    ]  # fmt: skip
    if dtype in FLOATS:
        found[4:4] = [
            make("linear", ramp((1, 2, 3, 4), dtype), Shape((1, 2, 5, 3)), mode='"linear"',
                 axes=[2, 3]),
            make("linear-align-corners", ramp((1, 1, 3), dtype), Shape((1, 1, 7)),
                 mode='"linear"', coordinate_transformation_mode='"align_corners"'),
            make("cubic", ramp((1, 1, 4, 4), dtype), Shape((1, 1, 6, 3)), mode='"cubic"',
                 static=True),
        ]  # fmt: skip
    return _first_unless_full(dtype, found)


@st.composite
def _resize_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    sizes = [draw(st.integers(1, 4)) for _ in range(2)]
    x = random_values(rng, (draw(st.integers(0, 2)), 1, *sizes), dtype, edges=False)
    out = Shape((x.shape[0], 1, *(draw(st.integers(1, 5)) for _ in range(2))))
    modes = ["nearest", "linear", "cubic"] if dtype in FLOATS else ["nearest"]
    mode = draw(st.sampled_from(modes))
    props: dict[str, Any] = {"mode": f'"{mode}"', "axes": [2, 3]}
    if mode == "nearest":
        props.update(coordinate_transformation_mode='"asymmetric"', nearest_mode='"floor"')
    elif mode == "linear" and draw(st.booleans()):
        props["coordinate_transformation_mode"] = '"align_corners"'
    return maker("relax.resize", dtype)("random", x, out, **props)


spec(
    "relax.resize",
    NUMERIC,
    _resize_cases,
    _resize_random,
    lambda dtype: ([rank_only(4, dtype), "!relax.shape<ndim=4>"], {"mode": '"nearest"'}),
)


def _grid(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Coordinates in eighths over [-1.25, 1.25] (some outside the input)."""
    k = np.arange(math.prod(shape))
    return array(((k * 7 + 3) % 21 - 10) / 8, dtype).reshape(shape)


def _grid_sample_cases(dtype: str) -> list[Case]:
    make = maker("relax.grid_sample", dtype)
    x = ramp((1, 2, 3, 4), dtype)
    found = [
        make("linear", x, _grid((1, 3, 2, 2), dtype)),
        make("nearest-border-aligned", x, _grid((1, 2, 3, 2), dtype), mode='"nearest"',
             padding_mode='"border"', align_corners=True),
        make("cubic-reflection", x, _grid((1, 2, 2, 2), dtype), mode='"cubic"',
             padding_mode='"reflection"', static=True),
        make("volume", ramp((1, 1, 2, 3, 2), dtype), _grid((1, 2, 1, 2, 3), dtype)),
        make("empty-batch", x[:0], _grid((0, 2, 2, 2), dtype), static=True),
        make("empty-axis", x[:, :, :0], _grid((1, 2, 2, 2), dtype), static=True),
    ]  # fmt: skip
    return found if dtype in ("f32", "f64") else found[:1]


@st.composite
def _grid_sample_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    x = random_values(rng, (1, 1, draw(st.integers(1, 3)), draw(st.integers(1, 3))), dtype,
                      edges=False)  # fmt: skip
    grid = array(rng.integers(-10, 11, (1, 2, 2, 2)) / 8, dtype)
    props = {
        "mode": f'"{draw(st.sampled_from(["nearest", "linear"]))}"',
        "padding_mode": f'"{draw(st.sampled_from(["zeros", "border"]))}"',
        "align_corners": draw(st.booleans()),
    }
    return maker("relax.grid_sample", dtype)("random", x, grid, **props)


spec(
    "relax.grid_sample",
    FLOATS,
    _grid_sample_cases,
    _grid_sample_random,
    lambda dtype: ([rank_only(4, dtype), rank_only(4, dtype)], {}),
)
