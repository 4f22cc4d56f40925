"""torch's semantics where they differ from numpy's and ONNX's: index rules, type
promotion, 0-d tensors, booleans, inputs without a batch axis, float16 computed in
float32; each against eager torch, and refusals as one line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.export import Dim  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402
from xrelax.backends.vm import VMError  # noqa: E402
from xrelax.frontend import FrontendError, UnsupportedOperatorsError  # noqa: E402


class Function(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *tensors: Any) -> Any:
        return self.fn(*tensors)


def compiled(fn: Callable[..., Any], *tensors: Any, dynamic: bool = True) -> Callable[..., Any]:
    """``fn`` exported with every dimension ``Dim.AUTO`` (or static), imported, compiled."""
    shapes = (tuple({d: Dim.AUTO for d in range(t.ndim)} for t in tensors),)
    program = torch.export.export(Function(fn), tensors, dynamic_shapes=shapes if dynamic else None)
    imported = frontend.from_exported_program(program)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    return lambda *arrays: main(*arrays, **imported.params)


HALF_TOLERANCE = {"rtol": 4e-3, "atol": 1e-3}
"""float16 within a few units in the last place: torch's CPU kernels round some
intermediate float16 steps, xrelax computes them in float32 and rounds once."""


def check(fn: Callable[..., Any], *tensors: Any, dynamic: bool = True) -> None:
    """The VM gives what eager gives: element type, shape, values (torch's tolerances)."""
    got = compiled(fn, *tensors, dynamic=dynamic)(*[t.numpy() for t in tensors])
    expected = fn(*tensors)
    if isinstance(expected, torch.Tensor):
        expected, got = [expected], [got]
    for want, have in zip(expected, got, strict=True):
        assert have.dtype == want.numpy().dtype and have.shape == tuple(want.shape)
        tolerance = HALF_TOLERANCE if want.dtype == torch.float16 else {}
        torch.testing.assert_close(
            torch.from_numpy(np.array(have)), want, equal_nan=True, **tolerance
        )


def refusal(fn: Callable[..., Any], *tensors: Any) -> str:
    with pytest.raises(UnsupportedOperatorsError) as refused:
        compiled(fn, *tensors)
    return str(refused.value)


X = torch.arange(12, dtype=torch.float32).reshape(3, 4)


@pytest.mark.parametrize(
    ("fn", "index"),
    [
        (lambda x, i: torch.index_select(x, 1, i), torch.tensor([0, -1])),
        (lambda x, i: torch.gather(x, 1, i), torch.tensor([[0], [-1], [1]])),
        (lambda x, i: torch.nn.functional.embedding(i, x), torch.tensor([0, -1])),
        (lambda x, i: torch.take_along_dim(x, i), torch.tensor([0, -1])),
    ],
    ids=["index_select", "gather", "embedding", "take_along_dim-flat"],
)
def test_negative_index_is_an_error_as_in_torch(fn, index) -> None:
    with pytest.raises((IndexError, RuntimeError)):
        fn(X, index)
    main = compiled(fn, X, index.abs())
    np.testing.assert_array_equal(main(X.numpy(), index.abs().numpy()), fn(X, index.abs()))
    with pytest.raises(VMError, match=r"index -1 out of range \[0, (3|4|12)\)"):
        main(X.numpy(), index.numpy())


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, i: x[i],
        lambda x, i: x[:, i],
        lambda x, i: torch.take_along_dim(x, i.reshape(1, -1), 1),
    ],
    ids=["index", "index-axis-1", "take_along_dim"],
)
def test_negative_index_counts_from_the_end_as_in_torch(fn) -> None:
    check(fn, X, torch.tensor([0, -1, -3]))


def test_sparse_buffer_is_refused_in_one_line() -> None:
    class Sparse(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("w", torch.eye(3).to_sparse())

        def forward(self, x):
            return x + 1

    program = torch.export.export(Sparse(), (torch.ones(3),))
    with pytest.raises(FrontendError) as refused:
        frontend.from_exported_program(program)
    assert str(refused.value) == "weight 'w' is a torch.sparse_coo tensor (not dense)"


INTEGERS = torch.tensor([[-3, 0, 2], [5, 1, -1]])


@pytest.mark.parametrize(
    "fn",
    [
        torch.exp,
        torch.sigmoid,
        torch.tanh,
        torch.sqrt,
        torch.rsqrt,
        torch.log,
        torch.sin,
        torch.erf,
    ],
    ids=lambda fn: fn.__name__,
)
def test_float_functions_of_integers_are_float32(fn) -> None:
    check(fn, INTEGERS)


def test_isnan_of_integers_is_false() -> None:
    check(torch.isnan, INTEGERS)


def test_comparisons_promote_as_torch() -> None:
    check(lambda x: (x < 0.5, x == 1.0, x >= -2.5), INTEGERS)
    check(lambda x, y: (x < y, x != y), INTEGERS, torch.tensor([0.5, 0.0, 2.5]))


def test_boolean_arithmetic() -> None:
    a, b = torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False])
    check(lambda a, b: (a + b, a * b, torch.maximum(a, b), torch.minimum(a, b)), a, b)


def test_integer_powers_with_negative_exponents() -> None:
    base = torch.tensor([2, -1, -1, 1, 0, 3, -2])
    exponent = torch.tensor([-1, -3, -2, -5, -1, 2, 3])
    check(torch.pow, base, exponent)
    check(lambda e: 2**e, exponent)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.sum(x, 0),
        lambda x: torch.mean(x, -1, keepdim=True),
        lambda x: torch.amax(x, 0),
        lambda x: torch.cumsum(x, 0),
        lambda x: torch.any(x, 0),
        lambda x: torch.index_select(x, 0, torch.tensor([0])),
        lambda x: torch.gather(x, 0, torch.tensor(0)),
    ],
    ids=["sum", "mean", "amax", "cumsum", "any", "index_select", "gather"],
)
def test_dimension_zero_of_a_0d_tensor(fn) -> None:
    check(fn, torch.tensor(2.5))


def test_native_layer_norm_mean_and_inverse_deviation() -> None:
    x = torch.randn(2, 3, 4)
    check(lambda x: torch.ops.aten.native_layer_norm(x, [4], None, None, 1e-5), x)


def test_max_along_a_dimension_gives_values_and_indices() -> None:
    check(lambda x: (x.max(1).values, x.min(0, keepdim=True).values), X)
    check(lambda x: (x.max(1).indices, x.min(0, keepdim=True).indices), X)


def test_inputs_without_a_batch_axis() -> None:
    check(lambda x, w: torch.nn.functional.conv1d(x, w), torch.randn(2, 7), torch.randn(3, 2, 3))
    image = torch.randn(2, 6, 6)
    check(lambda x, w: torch.nn.functional.conv2d(x, w, padding=1), image, torch.randn(3, 2, 3, 3))
    check(lambda x: torch.nn.functional.max_pool2d(x, 2), image)
    check(lambda x: torch.nn.functional.avg_pool2d(x, 3, 2, 1), image)
    check(lambda x: torch.nn.functional.adaptive_avg_pool2d(x, (2, 3)), image, dynamic=False)


def test_matrix_transpose() -> None:
    check(lambda x: (x.mT, x.mH, x.adjoint()), torch.randn(2, 3, 4))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.nn.functional.layer_norm(x, [16]),
        lambda x: torch.softmax(x, -1),
        lambda x: torch.log_softmax(x, -1),
        lambda x: torch.cumsum(x, 1),
        lambda x: torch.nn.functional.gelu(x),
        lambda x: torch.nn.functional.hardswish(x),
        lambda x: x @ x.mT,
    ],
    ids=["layer_norm", "softmax", "log_softmax", "cumsum", "gelu", "hardswish", "matmul"],
)
def test_float16_computed_in_float32_as_torch(fn) -> None:
    torch.manual_seed(0)
    check(fn, (torch.randn(8, 16) * 3).half())


def test_unsupported_element_type_is_named() -> None:
    assert "aten.to.dtype (element type torch.float8_e4m3fn) (1)" in refusal(
        lambda x: x.to(torch.float8_e4m3fn).float() + 1, INTEGERS
    )
