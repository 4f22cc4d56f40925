"""The torch.export importer on what text models build from symbolic sizes: arange of a
symbolic length, full/ones of symbolic shapes, slices with symbolic bounds, masks
(comparisons, ``&``, advanced indexing, gather, cumsum, diff, masked_fill) and the
maps rotary embeddings and relative positions use. Each keeps symbolic result shapes
(no safety net) and matches eager at two values of every dynamic dimension."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.export import Dim  # noqa: E402
from torch_models import compiled_main  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402


class CausalMask(nn.Module):
    """The mask transformers builds: causal & padding, by arange and advanced indexing."""

    def forward(self, x: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        batch, length = x.shape[0], x.shape[1]
        rows = torch.arange(batch)[:, None, None]
        q, kv = torch.arange(length)[None, :, None], torch.arange(length)[None, None, :]
        allowed = x.new_ones((), dtype=torch.bool) & (kv <= q) & padding.bool()[rows, kv]
        scores = x @ x.transpose(1, 2)
        return scores.masked_fill(~allowed, -1.0e4).softmax(-1)


class Positions(nn.Module):
    """Position ids from a mask (cumsum), rotary sin/cos of an arange, a slice of a
    buffer to the sequence length, and relative-position arithmetic."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("table", torch.randn(64, 8))

    def forward(self, x: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        length = x.shape[1]
        positions = (padding.cumsum(-1) - 1).clamp(min=0)
        frequencies = torch.arange(4, dtype=torch.float32) * 0.5
        angles = torch.arange(0, length, dtype=torch.float32)[:, None] * frequencies
        rotary = torch.cat([angles.sin(), angles.cos()], -1)
        table = self.table[:length]
        relative = torch.arange(length)[None, :] - torch.arange(length)[:, None]
        bucket = torch.fmod(relative, 3) + torch.remainder(relative, 4)
        bucket = torch.min(bucket, torch.full_like(bucket, 4)).float()
        gathered = torch.gather(table, 0, positions[:1].T.expand(-1, 8))
        steps = torch.diff(padding.float(), dim=-1).sum()
        return x + rotary + table + gathered + bucket.mean(-1, keepdim=True) + steps


class Scalars(nn.Module):
    """Symbolic sizes used as values: full of a size, a scalar tensor of a size, a tensor
    of zeros of a symbolic shape, a repeat, isnan and erf."""

    def forward(self, x: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        length = x.shape[1]
        count = torch.full((x.shape[0], 1), length, dtype=torch.float32)
        scale = torch.scalar_tensor(length, dtype=torch.float32)
        zeros = x.new_zeros((length, 4))
        tiled = zeros.repeat(1, 2) + torch.erf(x[0])
        return (x / count[:, :, None] + scale + tiled).masked_fill(torch.isnan(x), 0.0)


MODELS = {"causal_mask": CausalMask, "positions": Positions, "scalars": Scalars}


def _inputs(batch: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(batch * 100 + length)
    x = torch.randn(batch, length, 8, generator=generator)
    padding = torch.ones(batch, length, dtype=torch.long)
    padding[0, : length // 3] = 0
    return x, padding


@pytest.mark.parametrize("name", list(MODELS))
def test_sizes_as_values_match_eager(name: str) -> None:
    model = MODELS[name]().eval()
    # diff's result must not be broadcast from one element: a sequence of 3 at least.
    batch, length = Dim("batch", min=1, max=8), Dim("seq", min=3, max=32)
    shapes = ({0: batch, 1: length}, {0: batch, 1: length})
    program = torch.export.export(model, _inputs(2, 6), dynamic_shapes=shapes)
    imported = frontend.from_exported_program(program.run_decompositions({}))
    text = imported.text()
    assert "relax.prim_value seq" in text
    compiled = xrelax.compile(imported.module)
    assert not [n for n in compiled.func_names if n.startswith("relax.op.")], "safety net"
    main = compiled_main(imported.module)
    for size in ((1, 5), (3, 11)):
        inputs = _inputs(*size)
        with torch.no_grad():
            expected = model(*inputs).numpy()
        got = main(*(t.numpy() for t in inputs), **imported.params)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_arange_keeps_its_symbolic_length() -> None:
    class Ramp(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + torch.arange(x.shape[0], dtype=torch.float32)

    program = torch.export.export(Ramp(), (torch.randn(5),), dynamic_shapes=({0: Dim("n")},))
    text = frontend.from_exported_program(program).text()
    assert (
        "relax.arange %0, %1, %2 {dtype = f32} : (!relax.prim<i64, 0>, !relax.prim<i64, n>, "
        "!relax.prim<i64, 1>) -> !relax.tensor<[n], f32>"
    ) in text
