"""torch's higher-order control flow (``torch.cond``, ``while_loop``, ``scan``, ``map``)
as ``torch.export`` keeps it, against torch eager, with a dynamic batch."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch._higher_order_ops.map import map as torch_map  # noqa: E402
from torch._higher_order_ops.scan import scan  # noqa: E402
from torch._higher_order_ops.while_loop import while_loop  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402

BATCH = torch.export.Dim("batch", min=1)


def _check(module, example: tuple, dynamic: dict | None, cases: list[tuple]) -> str:
    """The imported program gives eager's results on each case; returns its text."""
    program = torch.export.export(module, example, dynamic_shapes=dynamic)
    imported = frontend.from_exported_program(program)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    for args in cases:
        with torch.no_grad():
            want = module(*args)
        want = [want] if isinstance(want, torch.Tensor) else list(want)
        got = main(*[a.numpy() for a in args], **imported.params)
        got = [got] if isinstance(got, np.ndarray) else list(got)
        assert len(got) == len(want)
        for value, expected in zip(got, want, strict=True):
            assert value.shape == tuple(expected.shape)
            np.testing.assert_allclose(value, expected.numpy(), rtol=1e-6, atol=1e-6)
    return imported.text()


class _Cond(torch.nn.Module):
    """Branches on a value computed at run time, using a weight and two inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.5, -2.0, 0.5, 3.0]))

    def forward(self, x, y):
        def positive(x, y, s):
            return x.sin() * s + y

        def negative(x, y, s):
            return (x.cos() - y).relu()

        return torch.cond(x.sum() > 0, positive, negative, (x, y, self.scale))


def test_cond_on_a_run_time_predicate() -> None:
    x = torch.randn(3, 4)
    cases = [(v, torch.randn(n, 4)) for n in (1, 5) for v in (torch.rand(n, 4), -torch.rand(n, 4))]
    text = _check(_Cond(), (x, torch.randn(3, 4)), {"x": {0: BATCH}, "y": {0: BATCH}}, cases)
    assert "relax.if" in text


class _WhileLoop(torch.nn.Module):
    """Doubles x until its sum exceeds a bound or ten iterations ran."""

    def forward(self, i, x, bound):
        def cond(i, x):
            return (i < 10) & (x.abs().sum() < bound)

        def body(i, x):
            return i + 1, x * 2 + 0.5

        return while_loop(cond, body, (i, x))


def test_while_loop() -> None:
    cases = [
        (torch.tensor(0), torch.randn(n, 2), torch.tensor(bound))
        for n, bound in ((1, 50.0), (4, 1e6), (3, 0.0))
    ]
    text = _check(
        _WhileLoop(),
        (torch.tensor(0), torch.randn(3, 2), torch.tensor(5.0)),
        {"i": None, "x": {0: BATCH}, "bound": None},
        cases,
    )
    assert "relax.call @while_loop" in text


class _Scan(torch.nn.Module):
    """A running sum over the rows of xs with its partial sums (a cumulative sum)."""

    def forward(self, init, xs):
        def combine(carry, x):
            total = carry + x
            return total, total * 2

        return scan(combine, init, xs)


def test_scan_and_map() -> None:
    cases = [(torch.randn(4), torch.randn(n, 4)) for n in (1, 6)]
    _check(_Scan(), (torch.zeros(4), torch.randn(5, 4)), {"init": None, "xs": {0: BATCH}}, cases)

    class Map(torch.nn.Module):
        def forward(self, xs, y):
            return torch_map(lambda x, y: x * y + 1, xs, y)

    cases = [(torch.randn(n, 4), torch.randn(4)) for n in (1, 3)]
    _check(Map(), (torch.randn(5, 4), torch.randn(4)), {"xs": {0: BATCH}, "y": None}, cases)


class _CondOnSize(torch.nn.Module):
    """A predicate on the dynamic batch, which torch leaves to the run."""

    def forward(self, x):
        return torch.cond(x.shape[0] > 4, lambda x: x * 2, lambda x: x.cos(), (x,))


def test_cond_on_a_size_left_to_the_run() -> None:
    cases = [(torch.randn(n, 3),) for n in (2, 4, 5, 7)]
    _check(_CondOnSize(), (torch.randn(6, 3),), {"x": {0: BATCH}}, cases)


class _CondOfShapes(torch.nn.Module):
    """Branches of different shapes: torch gives the result a size of its own (u0)."""

    def forward(self, x, p):
        return torch.cond(p.sum() > 0, lambda x: x[:2] * 2, lambda x: x[:3].cos(), (x,))


def test_cond_with_branches_of_different_shapes() -> None:
    cases = [(torch.randn(6, 3), sign * torch.ones(2)) for sign in (1, -1)]
    _check(_CondOfShapes(), (torch.randn(6, 3), torch.randn(2)), None, cases)
