"""In-place ATen operators in the programs torch.export returns: converted as their
functional forms and written back through views (matching eager), writes to model
inputs returned as the inputs' new values, and writes to parameters and buffers
reported, never dropped."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.export import Dim  # noqa: E402
from torch_models import compiled_main  # noqa: E402

from xrelax import frontend  # noqa: E402
from xrelax.frontend import UnsupportedOperatorsError  # noqa: E402


class Views(nn.Module):
    """Writes through slices, selects, a transpose, a view and split pieces of a fresh
    tensor, reads views taken before the writes, and chains in-place results."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        z = x.clone()
        before = z[:, 1]  # a view read after the writes below: it sees them
        z[:, 1:3] = 5.0  # fill_ of a slice
        z[0].mul_(-2.0)  # a select: row 0 of every batch
        z.transpose(0, 1)[2].add_(1.0)  # through a transpose
        flat = z.view(-1)
        flat[::3].relu_()  # a strided slice of a view
        a, b = z.split([2, 2], dim=1)
        b.masked_fill_(b > 1.0, -1.0)
        copied = z.t().reshape(-1)  # reshape of a transpose copies: unaffected later
        nn.functional.hardtanh(z.sigmoid_().add_(x), -0.5, 0.5, inplace=True)
        return z, before * 2, copied, a


class Fresh(nn.Module):
    """Creation, copy_ and in-place activations on new tensors (batch dynamic)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mask = x.new_zeros((x.shape[0], 4))
        mask[:, :2].fill_(1.0)
        out = torch.zeros_like(x)
        out.copy_(x * 3)
        out[:, 3:].zero_()
        return torch.nn.functional.silu(out, inplace=True) + mask.unsqueeze(1).sum(-1)


@pytest.mark.parametrize("saved", [False, True], ids=["in_memory", "pt2"])
@pytest.mark.parametrize("model", [Views(), Fresh()], ids=["views", "fresh"])
def test_in_place_operators_match_eager(model: nn.Module, saved: bool, tmp_path) -> None:
    example = torch.randn(3, 4)
    batch = Dim("batch", min=2, max=64)
    program = torch.export.export(model, (example,), dynamic_shapes={"x": {0: batch}})
    names = {str(n.target) for n in program.graph.nodes}
    assert any(name.split(".")[1].endswith("_") for name in names if name.startswith("aten"))
    if saved:
        # A loaded program has lost which tensors share memory: the importer tells from
        # the recorded strides.
        torch.export.save(program, tmp_path / "model.pt2")
        imported = frontend.import_model(tmp_path / "model.pt2")
    else:
        imported = frontend.from_exported_program(program)
    main = compiled_main(imported.module)
    for n in (2, 5):
        x = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
        with torch.no_grad():
            expected = model(torch.from_numpy(x))
        got = main(x, **imported.params)
        for value, want in zip(
            got if isinstance(got, tuple) else [got],
            expected if isinstance(expected, tuple) else [expected],
            strict=True,
        ):
            np.testing.assert_allclose(value, want.numpy(), rtol=1e-5, atol=1e-6)


class WritesInputs(nn.Module):
    """Writes both its inputs in place, one through views, and reads them after; with
    ``unconverted``, also uses an operator torch decomposes (so the program imported is
    the functional one, whose writes are outputs)."""

    def __init__(self, unconverted: bool = False) -> None:
        super().__init__()
        self.unconverted = unconverted

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        y.add_(1.0)
        x[:, 0].mul_(-2.0)
        x.transpose(0, 1)[1].copy_(y[:, 1])
        out = x * y
        return torch.addcdiv(out, x, y.abs() + 1) if self.unconverted else out


@pytest.mark.parametrize("form", ["exported", "decomposed", "pt2", "unconverted"])
def test_writes_to_model_inputs_are_returned(form: str, tmp_path) -> None:
    model = WritesInputs(unconverted=form == "unconverted")
    batch = Dim("batch", min=2, max=64)
    program = torch.export.export(
        model, (torch.randn(3, 4), torch.randn(3, 4)), dynamic_shapes=({0: batch}, {0: batch})
    )
    if form == "decomposed":
        program = program.run_decompositions()
    if form == "pt2":
        torch.export.save(program, tmp_path / "model.pt2")
        imported = frontend.import_model(tmp_path / "model.pt2")
    else:
        imported = frontend.from_exported_program(program)
    assert imported.written_inputs == ["x", "y"]
    main = compiled_main(imported.module)
    for n in (2, 5):
        rng = np.random.default_rng(n)
        x, y = (rng.standard_normal((n, 4)).astype(np.float32) for _ in range(2))
        written = [torch.from_numpy(x.copy()), torch.from_numpy(y.copy())]
        with torch.no_grad():
            expected = model(*written)
        got = main(x, y, **imported.params)
        for value, want in zip(got, [*written, expected], strict=True):
            np.testing.assert_allclose(value, want.numpy(), rtol=1e-5, atol=1e-6)


class State(nn.Module):
    def __init__(self, unconverted: bool = False) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros(4))
        self.scale = nn.Parameter(torch.ones(4), requires_grad=False)
        self.unconverted = unconverted

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.count.add_(1)
        self.scale.clamp_(max=3.0)
        y = x * self.count + self.scale
        return torch.addcdiv(y, x, y.abs() + 1) if self.unconverted else y


@pytest.mark.parametrize("unconverted", [False, True], ids=["in_place", "functional"])
def test_writes_to_caller_state_are_reported(unconverted: bool) -> None:
    program = torch.export.export(State(unconverted), (torch.randn(2, 4),))
    with pytest.raises(UnsupportedOperatorsError) as info:
        frontend.from_exported_program(program)
    assert info.value.counts == {
        "aten.add_.Tensor (writes to the buffer 'count')": 1,
        "aten.clamp_.default (writes to the parameter 'scale')": 1,
    }


class Unwritable(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = x.clone()
        z.diagonal().fill_(0.0)
        return z


class Reshaped(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = x.clone()
        w.unsqueeze_(0)
        return x + w[0]


def test_unsupported_writes_are_reported() -> None:
    # diagonal has no converter: torch decomposes it (to as_strided with gaps) and
    # functionalizes the write through it (to diagonal_scatter)
    program = torch.export.export(Unwritable(), (torch.randn(3, 3),))
    with pytest.raises(UnsupportedOperatorsError) as info:
        frontend.from_exported_program(program)
    assert info.value.counts == {
        "aten.diagonal.default (decomposes to aten.as_strided.default: strides that overlap "
        "or leave gaps)": 1,
        "aten.fill_.Scalar (decomposes to aten.diagonal_scatter.default)": 1,
    }
    program = torch.export.export(Reshaped(), (torch.randn(3, 3),))
    with pytest.raises(UnsupportedOperatorsError) as info:
        frontend.from_exported_program(program)
    assert info.value.counts == {
        "aten.unsqueeze_.default (changes the shape of its argument in place)": 1,
    }
