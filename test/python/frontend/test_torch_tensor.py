"""ATen tensor and math operators of frontend/torch_tensor.py against eager torch, with
every dimension symbolic: the element-wise maps, rounding, ``div`` with a
``rounding_mode`` and ``floor_divide``, ``clamp_min``/``clamp_max``, ``sort``,
``argsort``, ``topk``, ``flip`` and the scatters; refusals as one line."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_torch_semantics import check, refusal  # noqa: E402

from xrelax.backends.vm import VMError  # noqa: E402

RNG = np.random.default_rng(3)


def _floats(*shape: int) -> torch.Tensor:
    return torch.from_numpy(RNG.standard_normal(shape).astype(np.float32))


def test_float_maps():
    """Each map in one program (one export and compilation)."""
    maps = (
        torch.tan, torch.sinh, torch.cosh, torch.atan, torch.asinh, torch.log1p, torch.expm1,
        torch.exp2, torch.sign, torch.reciprocal,
    )  # fmt: skip
    check(lambda t: tuple(f(t) for f in maps), _floats(3, 4) * 0.9)
    # outside the domain: NaN
    edges = torch.tensor([[-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 10.0]])
    domain = (torch.asin, torch.acos, torch.atanh, torch.acosh, torch.log2, torch.log10)
    check(lambda t: tuple(f(t) for f in domain), edges)
    nans = torch.tensor([[float("nan"), 1.0, float("nan"), -0.0, 0.0, 2.0]])
    check(lambda t: (torch.fmax(t, t.flip(1)), torch.fmin(t, t.flip(1) * 0.5), torch.sign(t)), nans)


def test_rounding():
    rounding = (torch.floor, torch.ceil, torch.round, torch.trunc)
    halves = torch.tensor([[-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 2.4, float("nan"), 1e30]])
    check(lambda t: (*(f(t) for f in rounding), torch.round(t, decimals=1)), halves)
    check(lambda t: tuple(f(t) for f in rounding), torch.tensor([[1, -3, 7]]))  # whole already


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_div_rounding_mode(mode):
    a = torch.tensor([[7.0, -7.0, 7.0, -7.0, 1.0, -1.0, 0.0, 5.0, 1.0, -0.0]])
    b = torch.tensor([[2.0, 2.0, -2.0, -2.0, 0.1, 3.0, -3.0, 0.0, float("inf"), 4.0]])
    check(lambda x, y: torch.div(x, y, rounding_mode=mode), a, b)


def test_integer_floor_division_by_a_number():
    a = torch.tensor([[7, -7, 6, -6, 0]])
    check(lambda x: torch.div(x, 2, rounding_mode="floor"), a)
    check(lambda x: x // -3, a)
    check(lambda x: torch.div(x, 4, rounding_mode="trunc"), a)


def test_integer_division_by_a_tensor_is_refused():
    a = torch.tensor([[7, -7]])
    message = refusal(lambda x, y: torch.floor_divide(x, y), a, a)
    assert "integer divisor that may be 0" in message


def test_clamp_min_max():
    x = _floats(3, 5)
    check(lambda t: torch.clamp_min(t, -0.2), x)
    check(lambda t: torch.clamp_max(t, 0.3), x)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort(descending):
    x = torch.tensor([[3.0, 1.0, float("nan"), 1.0, -0.0, 0.0, 5.0], [2.0, 2.0, 2.0, 1.0, 0, 0, 0]])
    check(lambda t: torch.sort(t, dim=1, descending=descending, stable=True), x)
    check(lambda t: torch.argsort(t, dim=0, descending=descending, stable=True), x)
    check(lambda t: torch.sort(t, dim=-1, descending=descending, stable=True), x.to(torch.int32))


@pytest.mark.parametrize("largest", [True, False])
def test_topk(largest):
    x = _floats(4, 6)
    check(lambda t: torch.topk(t, 3, dim=1, largest=largest), x)
    check(lambda t: torch.topk(t, 2, dim=0, largest=largest), x)


def test_flip():
    x = _floats(2, 3, 4)
    check(lambda t: torch.flip(t, [0, 2]), x)
    check(lambda t: torch.flip(t, [-1]), x)


@pytest.mark.parametrize("reduce", [None, "add", "multiply"])
def test_scatter(reduce):
    x = _floats(3, 5)
    index = torch.tensor([[0, 4, 1], [2, 2, 3]])
    src = _floats(2, 4)
    if reduce is None:
        # distinct positions: torch leaves the order of duplicate writes open
        check(lambda t, s: torch.scatter(t, 1, index, s), x, src)
        check(lambda t: torch.scatter(t, 0, index[:, :2] % 3, 2.5), x)
    else:
        check(lambda t, s: torch.scatter(t, 1, index, s, reduce=reduce), x, src)


@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin", "mean"])
def test_scatter_reduce(reduce):
    x = _floats(3, 5)
    index = torch.tensor([[0, 4, 4], [2, 2, 3]])
    src = _floats(2, 3)

    def fn(t, s):
        return (
            torch.scatter_reduce(t, 1, index, s, reduce),
            torch.scatter_reduce(t, 1, index, s, reduce, include_self=False),
            torch.scatter_add(t, 1, index, s),
        )

    check(fn, x, src)


def test_scatter_negative_index_is_an_error():
    x, src = _floats(2, 3), _floats(1, 1)
    from test_torch_semantics import compiled

    run = compiled(lambda t, s, i: torch.scatter(t, 1, i, s), x, src, torch.tensor([[1]]))
    with pytest.raises(VMError, match="out of range"):
        run(x.numpy(), src.numpy(), np.array([[-1]]))


def test_nonzero_and_masked_select():
    x = torch.tensor([[0.0, 1.5, -0.0, 2.0], [3.0, 0.0, float("nan"), 0.0], [0.0, 0.0, 0.0, 1.0]])
    check(torch.nonzero, x)
    check(lambda t: torch.masked_select(t, t > 0.5), x)
    check(lambda t, m: torch.masked_select(t, m), x, torch.tensor([True, False, True, True]))


def test_median():
    x = torch.tensor([[3.0, float("nan"), 1.0, float("nan"), 2.0], [4.0, 1.5, 1.0, 2.5, 0.0]])
    check(lambda t: torch.median(t, dim=1), x)
    check(lambda t: torch.median(t, dim=0, keepdim=True), x[1:].reshape(5, 1))
    check(torch.median, _floats(3, 4))
    check(lambda t: torch.median(t, dim=-1), torch.tensor([[5, 1, 4, 2], [0, -3, 7, 7]]))


def test_index_put():
    x = _floats(4, 3)
    rows = torch.tensor([0, 2, -1])
    check(lambda t, v: t.index_put((rows,), v), x, _floats(3, 3))
    check(
        lambda t, v: t.index_put((torch.tensor([0, 2, 2]),), v, accumulate=True), x, _floats(3, 3)
    )
    columns = torch.tensor([[1], [2]])
    check(lambda t: t.index_put((torch.tensor([0, 3]), columns), torch.tensor(9.0)), x)


def test_index_put_with_a_mask():
    x = _floats(4, 3)
    check(lambda t: t.index_put((t > 0.3,), torch.tensor(0.0)), x)
    check(lambda t: t.index_put((t[:, 0] > 0,), torch.tensor(-1.0), accumulate=True), x)
