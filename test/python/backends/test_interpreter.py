"""The reference interpreter runs the contract programs and matches plain numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xrelax
from xrelax.backends.interpreter import InterpreterError

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
RNG = np.random.default_rng(0)


def load(name: str):
    return xrelax.parse((EXAMPLES / name).read_text(), name)


def mlp_reference(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    e = np.exp(h - h.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mlp_inputs(n: int) -> list[np.ndarray]:
    shapes = [(n, 784), (784, 128), (128,), (128, 10), (10,)]
    return [RNG.standard_normal(s).astype(np.float32) for s in shapes]


@pytest.mark.parametrize("n", [1, 7])
def test_mlp(n: int) -> None:
    inputs = mlp_inputs(n)
    out = xrelax.interpret(load("mlp.mlir"), "main", *inputs)
    np.testing.assert_allclose(out, mlp_reference(*inputs), rtol=1e-5, atol=1e-6)
    assert out.dtype == np.float32 and out.shape == (n, 10)


@pytest.mark.parametrize("cond", [True, False])
def test_control_flow(cond: bool) -> None:
    x = RNG.standard_normal(5).astype(np.float32)
    out = xrelax.interpret(load("control_flow.mlir"), "main", np.array(cond), x)
    np.testing.assert_allclose(out, np.exp(x) if cond else -x, rtol=1e-6)


def test_shape_cases_with_repeated_values() -> None:
    x = np.array([3, 1, 2, 3, 1, 1, 5, 2], dtype=np.float32).reshape(2, 2, 2)
    out = xrelax.interpret(load("shape_cases.mlir"), "main", x)
    np.testing.assert_allclose(out, np.exp(np.unique(x.reshape(2, 4).ravel())), rtol=1e-6)


def test_parameter_checks_name_function_parameter_and_variable() -> None:
    inputs = mlp_inputs(3)
    inputs[1] = inputs[1][:100]
    with pytest.raises(
        InterpreterError, match=r"main: parameter 'w1': dimension 0: expected 784, got 100"
    ):
        xrelax.interpret(load("mlp.mlir"), "main", *inputs)
    inputs = mlp_inputs(3)
    inputs[2] = inputs[2].astype(np.float64)
    with pytest.raises(
        InterpreterError, match=r"main: parameter 'b1': expected dtype float32, got float64"
    ):
        xrelax.interpret(load("mlp.mlir"), "main", *inputs)
    with pytest.raises(InterpreterError, match=r"main: parameter 'x': expected rank 2, got rank 1"):
        xrelax.interpret(load("mlp.mlir"), "main", inputs[0][0], *inputs[1:])


def test_symbolic_variable_mismatch_and_match_shape() -> None:
    module = xrelax.parse(
        """
relax.func @main(%x: !relax.tensor<[n, k], f32>, %y: !relax.tensor<[k], f32>, %w: !relax.tensor<ndim=2, f32>) -> !relax.tensor<ndim=2, f32> {
  %v = relax.match_shape %w [k, m] : (!relax.tensor<ndim=2, f32>)
  relax.return %v : !relax.tensor<[k, m], f32>
}
"""
    )
    x, y, w = np.zeros((2, 3), np.float32), np.zeros(3, np.float32), np.zeros((3, 4), np.float32)
    assert xrelax.interpret(module, "main", x, y, w).shape == (3, 4)
    with pytest.raises(
        InterpreterError,
        match=r"parameter 'y': dimension 0 \(symbolic variable k\): expected 3, got 4",
    ):
        xrelax.interpret(module, "main", x, np.zeros(4, np.float32), w)
    with pytest.raises(
        InterpreterError,
        match=r"match_shape \[k, m\]: dimension 0 \(symbolic variable k\): expected 3, got 5",
    ):
        xrelax.interpret(module, "main", x, y, np.zeros((5, 4), np.float32))


def test_packed_calls_and_relax_calls() -> None:
    calls = []

    @xrelax.register_func("test.interpreter.record", override=True)
    def record(t):
        calls.append(t.copy())

    module = xrelax.parse(
        """
relax.func @double(%a: !relax.tensor<[k], f32>) -> !relax.tensor<[k], f32> {
  %b = relax.add %a, %a : (!relax.tensor<[k], f32>, !relax.tensor<[k], f32>)
  relax.return %b : !relax.tensor<[k], f32>
}
relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n, 2]>> {
  %y = relax.call @double(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  relax.call_packed "test.interpreter.record"(%y) : (!relax.tensor<[n], f32>) -> ()
  %s = relax.shape [n, 2]
  %t = relax.tuple %y, %s : (!relax.tensor<[n], f32>, !relax.shape<[n, 2]>)
  relax.return %t : !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n, 2]>>
}
"""
    )
    x = np.arange(3, dtype=np.float32)
    y, s = xrelax.interpret(module, "main", x)
    np.testing.assert_array_equal(y, 2 * x)
    np.testing.assert_array_equal(calls[0], 2 * x)
    assert s == (3, 2)
