"""The VM takes tensors of other libraries: anything with ``__dlpack__`` (torch, shared
without a copy) or ``__array__``; anything else is refused naming what was passed."""

import numpy as np
import pytest

import xrelax
from xrelax.backends.vm import VMError
from xrelax.backends.vm.builtins import as_tensor

ADD = """
relax.func @main(%a: !relax.tensor<[n, 2], f32>, %b: !relax.tensor<[n, 2], f32>) -> !relax.tensor<[n, 2], f32> {
  %c = relax.add %a, %b : (!relax.tensor<[n, 2], f32>, !relax.tensor<[n, 2], f32>)
  relax.return %c : !relax.tensor<[n, 2], f32>
}
"""


class ArrayLike:
    """An object numpy converts through ``__array__`` only."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.array


@pytest.fixture(scope="module")
def add():
    return xrelax.VirtualMachine(xrelax.compile(xrelax.parse(ADD)))["main"]


def test_torch_tensors_are_taken_without_a_copy(add) -> None:
    torch = pytest.importorskip("torch")
    a = torch.arange(6.0).reshape(3, 2)
    b = torch.ones(3, 2, requires_grad=True)
    np.testing.assert_array_equal(add(a, b), a.numpy() + 1)
    assert np.shares_memory(as_tensor(a), a.numpy())
    transposed = torch.arange(6.0).reshape(2, 3).t()  # a strided view
    np.testing.assert_array_equal(add(transposed, transposed), 2 * transposed.numpy())
    np.testing.assert_array_equal(add(a=a, b=np.ones((3, 2), np.float32)), a.numpy() + 1)


def test_bf16_torch_tensors_keep_their_values() -> None:
    torch = pytest.importorskip("torch")
    t = torch.tensor([1.5, -2.0, 3.25], dtype=torch.bfloat16)
    array = as_tensor(t)
    assert array.dtype.name == "bfloat16"
    np.testing.assert_array_equal(array.astype(np.float32), t.float().numpy())


def test_array_likes_are_converted(add) -> None:
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    np.testing.assert_array_equal(add(ArrayLike(x), x), 2 * x)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([[1.0, 2.0]], "main: parameter 'a': expected a tensor, got list"),
        (3.0, "main: parameter 'a': expected a tensor, got float"),
        (np.float32(3.0), "main: parameter 'a': expected rank 2, got rank 0"),
        (object(), "main: parameter 'a': expected a tensor, got object"),
    ],
)
def test_other_values_are_refused_by_what_they_are(add, value, message) -> None:
    with pytest.raises(VMError) as err:
        add(value, np.ones((1, 2), np.float32))
    assert str(err.value) == message


def test_foreign_tensors_are_checked_like_arrays(add) -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(VMError, match="parameter 'a': expected dtype float32, got float64"):
        add(torch.ones(2, 2, dtype=torch.float64), np.ones((2, 2), np.float32))
    with pytest.raises(VMError, match="parameter 'b'"):
        add(torch.ones(2, 2), torch.ones(3, 2))
