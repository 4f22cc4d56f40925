"""ATen operators of vision models and the importer bugs of issue 14, in small models
against eager at two batch sizes: boolean expand, roll, pad (also cropping),
index_select, index, ceil_mode pooling, adaptive pooling to sizes that do not divide,
unbind of a dynamic batch, cat of an empty 1-d tensor, as_strided from decompositions."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.export import Dim  # noqa: E402
from torch_models import compiled_main, randomized  # noqa: E402

from xrelax import frontend  # noqa: E402

TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
F = nn.functional


class Windows(nn.Module):
    """Pooling and padding of images [N, 3, 7, 9]."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("rows", torch.tensor([2, 0, 1, 1]))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        a = F.max_pool2d(x, 3, stride=2, ceil_mode=True)
        b = F.avg_pool2d(x, 2, stride=2, padding=1, ceil_mode=True, count_include_pad=True)
        c = F.avg_pool2d(x, 3, stride=2, ceil_mode=True, count_include_pad=False)
        d = F.adaptive_avg_pool2d(x, (3, 4))
        e = F.pad(x, (1, -2, 2, 0), value=-1.0)
        g = torch.index_select(x, 2, self.rows) + x[:, :, self.rows]
        return a, b, c, d, e, F.hardswish(g) + F.hardsigmoid(g)


class Rolls(nn.Module):
    """Swin's shifted windows (its decomposition uses aten.arange and aten.fmod)."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return torch.roll(x, shifts=(2, -3), dims=(2, 3)), torch.roll(x[0], 5) * x


class Masks(nn.Module):
    """A boolean mask broadcast to the batch, unbind of a batch, the legacy empty cat."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        mask = (x[0] > 0).expand(x.shape[0], -1, -1, -1)
        masked = x.masked_fill(mask, 0.5)
        first, *rest = torch.unbind(x, dim=1)
        joined = torch.cat([torch.zeros(0), masked])  # torch skips the empty 1-d tensor
        # as_strided over contiguous storage: a permutation, and a window of a slice.
        permuted = x.as_strided((x.shape[0], 9, 7, 3), (189, 1, 9, 63))
        window = x[0].as_strided((4, 5), (5, 1), 2)
        stacked = torch.stack(torch.unbind(masked, 2), 1)
        return joined, first * 2 + rest[-1], stacked, permuted.sum(1) + window.sum()


@pytest.mark.parametrize(
    ("model", "decompose"),
    [(Windows(), False), (Windows(), True), (Masks(), False), (Masks(), True), (Rolls(), False)],
    ids=["windows", "windows-decomposed", "masks", "masks-decomposed", "rolls"],
)
def test_vision_operators_match_eager(model: nn.Module, decompose: bool) -> None:
    model = randomized(model)
    batch = Dim("batch", min=2, max=64)
    program = torch.export.export(
        model, (torch.randn(2, 3, 7, 9),), dynamic_shapes={"x": {0: batch}}
    )
    if decompose:
        program = program.run_decompositions()
    imported = frontend.from_exported_program(program)
    main = compiled_main(imported.module)
    for n in (2, 5):
        x = np.random.default_rng(n).standard_normal((n, 3, 7, 9)).astype(np.float32)
        with torch.no_grad():
            expected = model(torch.from_numpy(x))
        got = main(x, **imported.params)
        for value, want in zip(got, expected, strict=True):
            np.testing.assert_allclose(value, want.numpy(), **TOLERANCE)
