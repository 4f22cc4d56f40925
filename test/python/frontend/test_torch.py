"""The torch.export importer: models against torch eager for two values of each
symbolic dimension, names, dimension relations, and the unsupported-operator report."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.export import Dim  # noqa: E402
from torch_models import CASES, compiled_main, randomized  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402
from xrelax.backends.vm import VMError  # noqa: E402
from xrelax.frontend import UnsupportedOperatorsError  # noqa: E402

TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


@pytest.mark.parametrize("decompose", [False, True], ids=["exported", "decomposed"])
@pytest.mark.parametrize("name", list(CASES))
def test_model_matches_eager(name: str, decompose: bool) -> None:
    case = CASES[name]()
    imported = frontend.from_exported_program(case.export(decompose))
    main = compiled_main(imported.module)
    for index in range(len(case.sizes)):
        arrays = case.inputs(index)
        np.testing.assert_allclose(
            main(*arrays, **imported.params), case.eager(arrays), **TOLERANCE
        )


def test_signature_names_inputs_then_weights() -> None:
    case = CASES["cnn"]()
    imported = frontend.from_exported_program(case.export())
    text = imported.text()
    assert "relax.func @main(%x: !relax.tensor<[batch, 1, 28, 28], f32>, %conv1_weight:" in text
    assert imported.inputs == ["x"]
    state = case.model.state_dict()
    expected = [k.replace(".", "_") for k in state if not k.endswith("num_batches_tracked")]
    assert sorted(imported.params) == sorted(expected)
    np.testing.assert_array_equal(imported.params["bn1_running_var"], state["bn1.running_var"])
    assert xrelax.print_module(xrelax.parse(text)) == text


def test_pt2_file_names_variables_s0(tmp_path) -> None:
    case = CASES["transformer"]()
    path = tmp_path / "model.pt2"
    torch.export.save(case.export(), path)
    imported = frontend.import_model(path)
    assert "%src: !relax.tensor<[s0, s1, 64], f32>" in imported.text()
    arrays = case.inputs(1)
    main = compiled_main(imported.module)
    np.testing.assert_allclose(main(*arrays, **imported.params), case.eager(arrays), **TOLERANCE)


class Concat(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.cat([x, y], 0) * 2


def test_derived_dimension_is_solved_and_checked() -> None:
    batch = Dim("batch", min=2, max=64)
    program = torch.export.export(
        Concat(),
        (torch.randn(4, 3), torch.randn(8, 3)),
        dynamic_shapes={"x": {0: 2 * batch}, "y": {0: 4 * batch}},
    )
    imported = frontend.from_exported_program(program)
    text = imported.text()
    assert "relax.match_shape" in text and "batch * 4" in text
    main = compiled_main(imported.module)
    for n in (2, 5):
        x, y = np.ones((2 * n, 3), np.float32), np.ones((4 * n, 3), np.float32)
        assert main(x, y).shape == (6 * n, 3)
    with pytest.raises(VMError, match="batch"):
        main(np.ones((4, 3), np.float32), np.ones((6, 3), np.float32))


class Add(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x + y


def test_shared_dimension_is_one_variable() -> None:
    n = Dim("n")
    program = torch.export.export(
        Add(), (torch.randn(3, 4), torch.randn(3, 4)), dynamic_shapes={"x": {0: n}, "y": {0: n}}
    )
    text = frontend.from_exported_program(program).text()
    assert "%x: !relax.tensor<[n, 4], f32>, %y: !relax.tensor<[n, 4], f32>" in text


class Unsupported(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = torch.lgamma(x)
        b = torch.lgamma(a)
        c = torch.nn.functional.scaled_dot_product_attention(b, b, b, is_causal=True)
        return torch.digamma(c) + torch.relu(x)


def test_unsupported_operators_are_reported_at_once() -> None:
    program = torch.export.export(Unsupported(), (torch.randn(3, 4),))
    with pytest.raises(UnsupportedOperatorsError) as info:
        frontend.from_exported_program(program)
    assert info.value.counts == {"aten.lgamma.default": 2, "aten.digamma.default": 1}
    assert str(info.value) == (
        "2 unsupported ATen operators in 3 nodes: aten.lgamma.default (2), aten.digamma.default (1)"
    )


class MaskedCausal(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        f = torch.nn.functional
        return f.scaled_dot_product_attention(x, x, x, attn_mask=mask, is_causal=True)


def test_unsupported_use_of_an_operator_is_named() -> None:
    example = (torch.randn(2, 4, 5, 8), torch.ones(5, 5, dtype=torch.bool))
    program = torch.export.export(MaskedCausal(), example)
    with pytest.raises(UnsupportedOperatorsError, match=r"attn_mask with is_causal=True\) \(1\)"):
        frontend.from_exported_program(program)


class CausalAttention(nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


def test_causal_attention_matches_eager() -> None:
    queries, keys = Dim("queries", min=2, max=64), Dim("keys", min=2, max=64)
    example = (torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 8))
    dynamic = {"q": {2: queries}, "k": {2: keys}, "v": {2: keys}}
    program = torch.export.export(CausalAttention(), example, dynamic_shapes=dynamic)
    imported = frontend.from_exported_program(program)
    text = imported.text()
    assert "relax.tril" in text and "!relax.tensor<[queries, keys], i1>" in text
    main = compiled_main(imported.module)
    rng = np.random.default_rng(0)
    # One length for queries and keys (self-attention), and the top-left aligned mask
    # of fewer or more queries than keys.
    for length, key_length in [(4, 4), (9, 9), (3, 6), (6, 2)]:
        q = rng.standard_normal((2, 3, length, 8)).astype(np.float32)
        k, v = (rng.standard_normal((2, 3, key_length, 8)).astype(np.float32) for _ in "kv")
        with torch.no_grad():
            expected = CausalAttention()(*(torch.from_numpy(a) for a in (q, k, v))).numpy()
        np.testing.assert_allclose(main(q, k, v), expected, **TOLERANCE)


class Triangles(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tril(x, diagonal=1) - 2 * torch.triu(x) + torch.triu(x, diagonal=-2)


def test_tril_triu_match_eager() -> None:
    rows, columns = Dim("rows", min=2, max=64), Dim("columns", min=2, max=64)
    program = torch.export.export(
        Triangles(), (torch.randn(2, 4, 5),), dynamic_shapes={"x": {1: rows, 2: columns}}
    )
    imported = frontend.from_exported_program(program)
    assert "relax.tril %x {k = 1 : i64}" in imported.text()
    main = compiled_main(imported.module)
    for shape in [(2, 3, 6), (2, 7, 4)]:
        x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
        with torch.no_grad():
            expected = Triangles()(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(main(x), expected, **TOLERANCE)


class Assorted(nn.Module):
    """Operators the three models do not use, in one graph."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.pool = nn.AvgPool2d(3, stride=2, padding=1)
        self.adaptive = nn.AdaptiveAvgPool2d(1)
        self.conv = nn.Conv1d(4, 4, 3, padding=1, groups=2)

    def forward(self, x: torch.Tensor, tokens: torch.Tensor) -> tuple[torch.Tensor, ...]:
        f = torch.nn.functional
        a = f.gelu(x, approximate="tanh") + f.leaky_relu(x, 0.1) - f.hardtanh(x, -0.5, 0.5)
        b, c = torch.chunk(a, 2, dim=-1)
        s = torch.stack([b, c], dim=1).mean(dim=(2,), keepdim=True).sum(-1)
        img = a.reshape(a.shape[0], 1, 4, 4)
        p = self.adaptive(self.pool(img)).flatten(1)
        q = f.scaled_dot_product_attention(x[:, None], x[:, None], x[:, None], scale=0.3)
        e = self.embed(tokens).sum(1)
        conv = self.conv(x.reshape(x.shape[0], 4, 4)).amax(-1)
        return s * p, q.squeeze(1) * torch.sigmoid(e[:, :1]), torch.where(x > 0, x, -x), conv


def test_assorted_operators_match_eager() -> None:
    model = randomized(Assorted())
    batch = Dim("batch", min=2, max=64)
    example = (torch.randn(3, 16), torch.randint(0, 10, (3, 5)))
    program = torch.export.export(
        model, example, dynamic_shapes={"x": {0: batch}, "tokens": {0: batch}}
    )
    imported = frontend.from_exported_program(program)
    main = compiled_main(imported.module)
    for n in (2, 6):
        x = np.random.default_rng(n).standard_normal((n, 16)).astype(np.float32)
        tokens = np.random.default_rng(n).integers(0, 10, (n, 5))
        with torch.no_grad():
            expected = model(torch.from_numpy(x), torch.from_numpy(tokens))
        for got, want in zip(main(x, tokens, **imported.params), expected, strict=True):
            np.testing.assert_allclose(got, want.numpy(), **TOLERANCE)
