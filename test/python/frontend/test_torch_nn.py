"""The ATen neural-network converters of frontend/torch_nn.py against eager torch, every
dimension symbolic (``Dim.AUTO``) unless the case needs a static one: N-d and transposed
convolutions, N-d pooling, group and instance normalisation, glu, weight norm and
torch's affine_grid decomposition."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_torch_semantics import check, compiled  # noqa: E402

F = torch.nn.functional
G = torch.Generator().manual_seed(0)


def rand(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=G)


@pytest.mark.parametrize(
    ("fn", "shapes"),
    [
        (lambda x, w: F.conv3d(x, w, stride=(1, 2, 1), padding=1, dilation=(2, 1, 1)),
         [(2, 4, 5, 6, 5), (3, 4, 2, 3, 2)]),
        (lambda x, w: F.conv3d(x, w, groups=2), [(1, 4, 3, 4, 5), (6, 2, 1, 2, 2)]),
        (lambda x, w: F.conv1d(x, w, padding="valid"), [(2, 3, 7), (4, 3, 2)]),
        (lambda x, w: F.conv_transpose1d(x, w, stride=3, padding=1, output_padding=2),
         [(2, 4, 5), (4, 3, 3)]),
        (lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=(1, 0), groups=2,
                                         dilation=(1, 2), output_padding=(1, 0)),
         [(2, 4, 5, 4), (4, 3, 3, 2)]),
        (lambda x, w: F.conv_transpose3d(x, w, stride=(2, 1, 2)), [(1, 2, 3, 2, 3), (2, 2, 2, 2, 2)]),
        (lambda x, w: F.conv_transpose2d(x, w), [(4, 5, 3), (4, 2, 3, 3)]),
    ],
    ids=["conv3d", "conv3d-groups", "conv1d-valid", "conv_transpose1d",
         "conv_transpose2d", "conv_transpose3d", "conv_transpose2d-unbatched"],
)  # fmt: skip
def test_convolution(fn, shapes) -> None:
    check(fn, *(rand(*s) for s in shapes))


def test_transposed_convolution_in_float16_rounds_once() -> None:
    """float16 computed in float32 and rounded once (torch's CPU kernel adds the
    overlapping windows in float16, less exactly)."""
    x, w, b = rand(2, 4, 5, 5).half(), rand(4, 2, 3, 3).half(), rand(2).half()

    def fn(x, w, b):
        return F.conv_transpose2d(x, w, b, stride=2)

    got = compiled(fn, x, w, b)(x.numpy(), w.numpy(), b.numpy())
    expected = fn(x.float(), w.float(), b.float()).half()
    assert got.dtype == np.float16
    np.testing.assert_allclose(
        got.astype(np.float32), expected.float().numpy(), rtol=1e-3, atol=1e-3
    )


@pytest.mark.parametrize(
    ("fn", "shape", "dynamic"),
    [
        (lambda x: F.max_pool1d(x, 3, 2, 1, dilation=2), (2, 3, 9), True),
        (lambda x: F.max_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), dilation=(2, 1, 1)),
         (1, 2, 5, 6, 5), True),
        (lambda x: F.max_pool3d(x, 2, ceil_mode=True), (1, 2, 5, 5, 3), False),
        (lambda x: F.avg_pool1d(x, 3, 2, 1), (2, 3, 8), True),
        (lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False, ceil_mode=True),
         (2, 3, 8), False),
        (lambda x: F.avg_pool3d(x, 3, 2, 1, count_include_pad=False), (1, 2, 5, 6, 4), True),
        (lambda x: F.max_pool1d(x, 2), (3, 8), True),
    ],
    ids=["max_pool1d", "max_pool3d", "max_pool3d-ceil", "avg_pool1d", "avg_pool1d-ceil",
         "avg_pool3d", "max_pool1d-unbatched"],
)  # fmt: skip
def test_pooling(fn, shape, dynamic) -> None:
    check(fn, rand(*shape), dynamic=dynamic)


@pytest.mark.parametrize(
    ("fn", "shapes"),
    [
        (lambda x, w, b: F.group_norm(x, 2, w, b, eps=1e-3), [(2, 4, 5, 3), (4,), (4,)]),
        (lambda x: F.group_norm(x, 3), [(2, 6, 7)]),
        (lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [(2, 3, 4, 5), (3,), (3,)]),
        (lambda x: F.instance_norm(x), [(2, 3, 6)]),
        (lambda x: F.glu(x, 1), [(2, 6, 3)]),
        (lambda v, g: torch._weight_norm(v, g, 0), [(4, 3, 2), (4, 1, 1)]),
        (lambda v, g: torch._weight_norm(v, g, 1), [(4, 3, 2), (1, 3, 1)]),
        (lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=False), [(2, 2, 3)]),
    ],
    ids=["group_norm", "group_norm-no-affine", "instance_norm", "instance_norm-no-affine",
         "glu", "weight_norm", "weight_norm-dim1", "affine_grid"],
)  # fmt: skip
def test_normalisation(fn, shapes) -> None:
    check(fn, *(rand(*s) for s in shapes))


def module(layer: torch.nn.Module) -> torch.nn.Module:
    """``layer`` for inference: its parameters random and without gradients."""
    for parameter in layer.parameters():
        parameter.requires_grad_(False).copy_(torch.randn(parameter.shape, generator=G))
    return layer.eval()


def test_same_padding_of_a_module() -> None:
    conv = module(torch.nn.Conv2d(3, 4, (2, 3), padding="same", dilation=2))
    check(conv, rand(2, 3, 7, 6))


def test_group_norm_module_in_float16() -> None:
    check(module(torch.nn.GroupNorm(2, 4)).half(), rand(2, 4, 3, 3).half())


@pytest.mark.parametrize(
    ("fn", "shape"),
    [
        (lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (2, 3, 4, 5)),
        (lambda x: F.interpolate(x, size=(7, 3), mode="nearest"), (2, 3, 4, 5)),
        (lambda x: F.interpolate(x, scale_factor=1.5, mode="nearest-exact"), (1, 2, 5, 4)),
        (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), (2, 3, 4, 5)),
        (lambda x: F.interpolate(x, size=(3, 8), mode="bilinear", align_corners=True),
         (2, 3, 4, 5)),
        (lambda x: F.interpolate(x, scale_factor=0.5, mode="bicubic"), (1, 2, 6, 7)),
        (lambda x: F.interpolate(x, size=(9, 4), mode="bicubic", align_corners=True),
         (1, 2, 6, 7)),
        (lambda x: F.interpolate(x, scale_factor=3, mode="linear"), (2, 3, 5)),
        (lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (1, 2, 3, 2, 4)),
        (lambda x: F.interpolate(x, size=(4, 3, 5), mode="trilinear"), (1, 2, 3, 2, 4)),
    ],
    ids=["nearest2d-scale", "nearest2d-size", "nearest-exact", "bilinear", "bilinear-corners",
         "bicubic-down", "bicubic-corners", "linear1d", "nearest3d", "trilinear"],
)  # fmt: skip
def test_interpolate(fn, shape) -> None:
    check(fn, rand(*shape))


GRID_SAMPLINGS = [
    (mode, padding, (m + p) % 2 == 1)
    for m, mode in enumerate(("bilinear", "nearest", "bicubic"))
    for p, padding in enumerate(("zeros", "border", "reflection"))
] + [("bilinear", "reflection", False), ("bicubic", "border", False)]


def test_grid_sample() -> None:
    """Every mode with every padding, align_corners both ways, in one program."""
    grid = torch.rand(2, 3, 4, 2, generator=G) * 2.6 - 1.3

    def fn(x, g):
        return tuple(F.grid_sample(x, g, m, p, align_corners=a) for m, p, a in GRID_SAMPLINGS)

    check(fn, rand(2, 3, 5, 4), grid)


def test_grid_sample_volumetric() -> None:
    grid = torch.rand(1, 2, 3, 2, 3, generator=G) * 2.6 - 1.3
    check(lambda x, g: F.grid_sample(x, g, "bilinear", "border"), rand(1, 2, 3, 4, 5), grid)


def test_max_pool_indices_and_unpool() -> None:
    """The indices of the maxima (per plane, the first of equal ones, a NaN winning) and
    max_unpool putting the maxima back."""
    x = rand(2, 3, 6, 7)
    x[0, 0, 1, 1] = float("nan")
    x[1, 2, :2, :2] = 1.0

    def fn(x):
        values, indices = F.max_pool2d(x, 2, 2, return_indices=True)
        wide, wide_indices = F.max_pool2d(x, 3, (2, 1), 1, dilation=(1, 2), return_indices=True)
        volume, volume_indices = F.max_pool3d(x.unsqueeze(1), 2, return_indices=True)
        unpooled = F.max_unpool2d(values, indices, 2, 2, output_size=(6, 7))
        return values, indices, wide, wide_indices, volume_indices, unpooled

    check(fn, x)
