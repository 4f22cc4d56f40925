"""The importers' shared pieces, without torch or onnx: names, parameter files, and the
function builder's handling of dimensions that are expressions."""

from __future__ import annotations

import numpy as np
import pytest

import xrelax
from xrelax.dialects import dtypes
from xrelax.frontend import FrontendError, load_params, save_params
from xrelax.frontend.common import Names, UnsupportedOperatorsError, sanitize_name
from xrelax.frontend.model_builder import ModelBuilder


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("fc1.weight", "fc1_weight"),
        ("layers.0", "layers0"),
        ("val_21", "val21"),
        ("0.bias", "_0_bias"),
        ("a-b", "a_b"),
        ("1", "v1"),
    ],
)
def test_sanitize_name(name: str, expected: str) -> None:
    assert sanitize_name(name) == expected


def test_names_are_unique() -> None:
    names = Names(["x"])
    assert [names.unique("x"), names.unique("x"), names.unique("y")] == ["x_v1", "x_v2", "y"]


def test_params_round_trip(tmp_path) -> None:
    params = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(3, np.float32)}
    save_params(tmp_path / "w.npz", params)
    loaded = load_params(tmp_path / "w.npz")
    assert list(loaded) == ["w", "b"]
    np.testing.assert_array_equal(loaded["w"], params["w"])


def test_expression_dimensions_are_solved() -> None:
    builder = ModelBuilder("test")
    n = builder.variable("n", "n")
    builder.add_input("x", [2 * n + 1, 3], dtypes.F32)
    builder.add_input("y", [n, 3], dtypes.F32)
    builder.add_weight("unused", np.zeros(2, np.float32))
    imported = builder.build(lambda bb, values: [bb.emit_op("relax.relu", values["x"])])
    assert imported.params == {}
    text = imported.text()
    assert "%x: !relax.tensor<[x0, 3], f32>, %y: !relax.tensor<[n, 3], f32>" in text
    assert "relax.match_shape %x [n * 2 + 1, 3]" in text
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    assert main(np.ones((7, 3), np.float32), np.ones((3, 3), np.float32)).shape == (7, 3)


def test_unsolvable_dimension_is_an_error() -> None:
    builder = ModelBuilder("test")
    n = builder.variable("n", "n")
    builder.add_input("x", [n * n, 3], dtypes.F32)
    with pytest.raises(FrontendError, match="cannot bind symbolic dimension n"):
        builder.build(lambda bb, values: [values["x"]])


def test_unsupported_message_counts() -> None:
    error = UnsupportedOperatorsError("ONNX", {"B": 1, "A": 1, "C": 3})
    assert str(error) == "3 unsupported ONNX operators in 5 nodes: C (3), A (1), B (1)"
