"""torch's plain recurrent layers (``nn.RNN``: ``aten.rnn_tanh``, ``aten.rnn_relu``),
unrolled over their time steps as LSTM and GRU layers are, against eager with a dynamic
batch."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.export import Dim  # noqa: E402
from torch_models import compiled_main  # noqa: E402

from xrelax import frontend  # noqa: E402


class Recurrent(nn.Module):
    def __init__(self, **options: object) -> None:
        super().__init__()
        self.rnn = nn.RNN(4, 6, **options)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.rnn(x, h)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True},
        {"bias": False, "batch_first": True},
    ],
    ids=["tanh", "relu_two_layers_bidirectional", "no_bias_batch_first"],
)
def test_rnn_matches_eager(options: dict[str, object]) -> None:
    torch.manual_seed(0)
    model = Recurrent(**options).eval()
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    batch_axis = 0 if options.get("batch_first") else 1

    def inputs(size: int) -> tuple[torch.Tensor, torch.Tensor]:
        shape = [4, 4]
        shape.insert(batch_axis, size)
        return torch.randn(*shape), torch.randn(layers, size, 6)

    batch = Dim("batch")
    program = torch.export.export(
        model, inputs(3), dynamic_shapes=({batch_axis: batch}, {1: batch})
    )
    name = "rnn_relu" if options.get("nonlinearity") == "relu" else "rnn_tanh"
    assert f"aten.{name}.input" in {str(n.target) for n in program.graph.nodes}
    imported = frontend.from_exported_program(program)
    main = compiled_main(imported.module)
    for size in (2, 5):
        x, h = inputs(size)
        with torch.no_grad():
            expected = model(x, h)
        got = main(x.numpy(), h.numpy(), **imported.params)
        for value, want in zip(got, expected, strict=True):
            np.testing.assert_allclose(value, want.numpy(), rtol=1e-5, atol=1e-6)
