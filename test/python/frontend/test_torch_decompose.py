"""ATen operators without a converter, decomposed by torch's own tables before importing
(``xrelax.frontend.torch_decompose``): results match eager with a dynamic batch, the
native converters stay, and what cannot be imported is reported as the user's operator."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402
from torch.export import Dim  # noqa: E402
from torch_models import compiled_main  # noqa: E402

from xrelax import frontend  # noqa: E402
from xrelax.frontend import UnsupportedOperatorsError, torch_decompose  # noqa: E402
from xrelax.frontend import torch as torch_frontend  # noqa: E402

OPERATORS = {
    "aten.addcdiv": lambda x: torch.addcdiv(x, x, x.abs() + 1, value=0.3),
    "aten.addcmul": lambda x: torch.addcmul(x, x, x * 2, value=-0.5),
    "aten.lerp": lambda x: torch.lerp(x, x * 2 - 1, 0.3),
    "aten.hardshrink": lambda x: F.hardshrink(x, 0.4),
    "aten.logit": lambda x: torch.logit(torch.sigmoid(x), eps=1e-3),
    "aten.threshold": lambda x: F.threshold(x, 0.1, 2.0),
    "aten.cosine_similarity": lambda x: F.cosine_similarity(x, x + 1, dim=1),
    "aten.mse_loss": lambda x: F.mse_loss(x, x * 0.5, reduction="none"),
    "aten.smooth_l1_loss": lambda x: F.smooth_l1_loss(x, x * 0.25, reduction="none", beta=0.5),
    "aten.huber_loss": lambda x: F.huber_loss(x, -x, reduction="none", delta=0.7),
    "aten.pixel_shuffle": lambda x: F.pixel_shuffle(x.reshape(-1, 1, 2, 3).repeat(1, 4, 1, 1), 2),
    "aten.special_entr": lambda x: torch.special.entr(x.abs()),
}
"""Operators users meet that have no converter and that torch decomposes into converted
ones, each on a ``[batch, 6]`` input."""


class Operators(nn.Module):
    """Every operator of :data:`OPERATORS`, and one in place on a fresh tensor."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        results = [f(x) for f in OPERATORS.values()]
        return (*results, x.clone().addcmul_(x, x, value=2.0))


def test_unconverted_operators_decompose_and_match_eager() -> None:
    program = torch.export.export(
        Operators(), (torch.randn(3, 6),), dynamic_shapes=({0: Dim("batch")},)
    )
    exported = {str(n.target._overloadpacket) for n in program.graph.nodes if n.op != "output"
                and isinstance(n.target, torch._ops.OpOverload)}  # fmt: skip
    for name in OPERATORS:
        assert name in exported, f"{name} is not in the exported program"
        assert name not in torch_frontend.SUPPORTED, f"{name} has a converter now: test another"
    imported = frontend.from_exported_program(program)
    main = compiled_main(imported.module)
    for batch in (2, 5):
        x = np.random.default_rng(batch).standard_normal((batch, 6)).astype(np.float32)
        with torch.no_grad():
            expected = Operators()(torch.from_numpy(x))
        got = main(x, **imported.params)
        for name, value, want in zip([*OPERATORS, "addcmul_"], got, expected, strict=True):
            np.testing.assert_allclose(value, want.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


class Transformer(nn.Module):
    """Operators with converters that torch would decompose (layer_norm, softmax,
    attention, linear) beside one without (addcdiv)."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.proj(self.norm(x))
        y = F.scaled_dot_product_attention(y, y, y).softmax(-1)
        return torch.addcdiv(y, x, y.abs() + 1)


def test_only_unconverted_operators_are_decomposed() -> None:
    program = torch.export.export(Transformer().eval(), (torch.randn(2, 5, 8),))
    result = torch_decompose.decompose(program, torch_frontend.needs_decomposition)
    assert result.decomposed == {"aten.addcdiv.default"}
    kept = {str(n.target) for n in result.program.graph.nodes}
    assert {
        "aten.layer_norm.default",
        "aten.linear.default",
        "aten.scaled_dot_product_attention.default",
        "aten.softmax.int",
    } <= kept
    assert "aten.addcdiv.default" not in kept


class LogSumExp(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.logsumexp(x, dim=1)


def test_decomposition_repeats_until_nothing_it_needs_is_left() -> None:
    # logsumexp decomposes to masked_fill among others; when masked_fill is needed too,
    # torch decomposes the original program again with both.
    program = torch.export.export(LogSumExp(), (torch.randn(3, 4),))
    wanted = {torch.ops.aten.logsumexp.default, torch.ops.aten.masked_fill.Scalar}
    result = torch_decompose.decompose(program, lambda n: n.target if n.target in wanted else None)
    assert result.decomposed == {str(op) for op in wanted}
    left = {n.target for n in result.program.graph.nodes}
    assert not left & wanted
    # every node of the decomposition remembers the user's operator
    origins = {
        torch_decompose.origin(n, program.graph)
        for n in result.program.graph.nodes
        if n.op == "call_function"
    }
    assert origins == {"logsumexp"}


class Unimportable(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            torch.bernoulli(torch.sigmoid(x)),  # decomposes to rand: random numbers
            torch.special.i0e(x),  # to a primitive without a converter
            torch.polygamma(1, x),  # no decomposition
            torch.lgamma(x),  # to its own primitive: named as itself
        )


def test_unsupported_operators_name_the_users_operator() -> None:
    program = torch.export.export(Unimportable(), (torch.randn(3, 4),))
    with pytest.raises(UnsupportedOperatorsError) as info:
        frontend.from_exported_program(program)
    assert info.value.counts == {
        "aten.bernoulli.default (decomposes to aten.rand.default)": 1,
        "aten.special_i0e.default (decomposes to prims.bessel_i0e.default)": 1,
        "aten.polygamma.default": 1,
        "aten.lgamma.default": 1,
    }


def test_a_failing_decomposition_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    program = torch.export.export(LogSumExp(), (torch.randn(3, 4),))

    def fail(self: object, table: object) -> None:
        raise RuntimeError("Cannot view a tensor\nwith more lines")

    if "aten.logsumexp" in torch_frontend.SUPPORTED:
        pytest.fail("aten.logsumexp has a converter now: test another operator")
    monkeypatch.setattr(torch.export.ExportedProgram, "run_decompositions", fail)
    with pytest.raises(UnsupportedOperatorsError) as info:
        frontend.from_exported_program(program)
    assert info.value.counts == {
        "aten.logsumexp.default (torch cannot decompose it: RuntimeError: Cannot view a tensor)": 1
    }
