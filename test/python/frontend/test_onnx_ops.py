"""ONNX operators written by hand (not as torch exports them) against onnxruntime:
LSTM and GRU in each direction and layout, GRU with the reset gate before or after the
hidden projection, HardSigmoid with its attributes, Pad, ScatterND and ceil_mode
pooling; a symbolic batch at two sizes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402

TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}
RNG = np.random.default_rng(7)


def _model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(v, n) for n, v in initializers],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _check(
    model: onnx.ModelProto,
    shapes: list[list[tuple[int, ...]]],
    reference: onnx.ModelProto | None = None,
    convert: Any = None,
) -> None:
    """``model`` imported against onnxruntime running ``reference`` (absent: ``model``)
    on the inputs made ``convert``-ible to it (and its outputs back)."""
    session = ort.InferenceSession((reference or model).SerializeToString())
    imported = frontend.from_onnx(model)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    names = [i.name for i in session.get_inputs()]
    for sizes in shapes:
        arrays = [RNG.standard_normal(s).astype(np.float32) for s in sizes]
        given = arrays if convert is None else convert.inputs(arrays)
        expected = session.run(None, dict(zip(names, given, strict=True)))
        if convert is not None:
            expected = convert.outputs(expected)
        got = main(*arrays, **imported.params)
        got = [got] if isinstance(got, np.ndarray) else list(got)
        for value, want in zip(got, expected, strict=True):
            np.testing.assert_allclose(value, want, **TOLERANCE)


def _weights(*shape: int) -> np.ndarray:
    return (RNG.standard_normal(shape) * 0.4).astype(np.float32)


@pytest.mark.parametrize(
    ("cell", "direction", "layout", "linear_before_reset"),
    [
        ("LSTM", "bidirectional", 0, 0),
        ("LSTM", "reverse", 1, 0),
        ("GRU", "forward", 0, 0),
        ("GRU", "bidirectional", 1, 1),
    ],
)
def test_recurrent(cell: str, direction: str, layout: int, linear_before_reset: int) -> None:
    steps, features, hidden = 4, 3, 5
    dirs = 2 if direction == "bidirectional" else 1
    gates = 4 if cell == "LSTM" else 3
    initializers = [
        ("W", _weights(dirs, gates * hidden, features)),
        ("R", _weights(dirs, gates * hidden, hidden)),
        ("B", _weights(dirs, 2 * gates * hidden)),
    ]

    def declared(batch_first: int) -> list[tuple[str, list]]:
        x = ["n", steps, features] if batch_first else [steps, "n", features]
        h = ["n", dirs, hidden] if batch_first else [dirs, "n", hidden]
        return [("X", x), ("H0", h)] + ([("C0", h)] * (cell == "LSTM"))

    outputs = ["Y", "Y_h"] + ["Y_c"] * (cell == "LSTM")
    attrs = {"hidden_size": hidden, "direction": direction, "layout": layout}
    if cell == "GRU":
        attrs["linear_before_reset"] = linear_before_reset
    node_inputs = ["X", "W", "R", "B", "", "H0"] + ["C0"] * (cell == "LSTM")
    node = helper.make_node(cell, node_inputs, outputs, **attrs)
    model = _model([node], declared(layout), outputs, initializers)
    # onnxruntime runs no batch-first (layout 1) layer: compare with the time-first one.
    reference = convert = None
    if layout:
        node = helper.make_node(cell, node_inputs, outputs, **(attrs | {"layout": 0}))
        reference = _model([node], declared(0), outputs, initializers)
        convert = _TimeFirst()

    def sizes(n: int) -> list[tuple[int, ...]]:
        x = (n, steps, features) if layout else (steps, n, features)
        h = (n, dirs, hidden) if layout else (dirs, n, hidden)
        return [x, h] + [h] * (cell == "LSTM")

    _check(model, [sizes(2), sizes(3)], reference, convert)


class _TimeFirst:
    """Batch-first recurrent inputs and outputs to time-first and back."""

    @staticmethod
    def inputs(arrays: list[np.ndarray]) -> list[np.ndarray]:
        return [np.ascontiguousarray(np.swapaxes(a, 0, 1)) for a in arrays]

    @staticmethod
    def outputs(arrays: list[np.ndarray]) -> list[np.ndarray]:
        y, *states = arrays
        return [np.transpose(y, (2, 0, 1, 3)), *(np.swapaxes(s, 0, 1) for s in states)]


def test_hard_sigmoid_pad_and_ceil_pooling() -> None:
    nodes = [
        helper.make_node("HardSigmoid", ["x"], ["s"], alpha=0.3, beta=0.4),
        helper.make_node("Constant", [], ["pads"], value_ints=[0, 0, 1, -1, 0, 0, 2, 1]),
        helper.make_node("Constant", [], ["v"], value_float=-1.5),
        helper.make_node("Pad", ["s", "pads", "v"], ["p"]),
        helper.make_node("MaxPool", ["p"], ["m"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        helper.make_node(
            "AveragePool", ["x"], ["a"], kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1],
            ceil_mode=1, count_include_pad=1,
        ),
        helper.make_node("HardSwish", ["a"], ["y"]),
    ]  # fmt: skip
    model = _model(nodes, [("x", ["n", 2, 6, 7])], ["m", "y"])
    _check(model, [[(1, 2, 6, 7)], [(3, 2, 6, 7)]])


def test_scatter_nd_with_known_indices() -> None:
    indices = np.array([[[0, 1], [2, 0]], [[1, 1], [0, 1]]], np.int64)  # [0, 1] twice
    nodes = [
        helper.make_node("Constant", [], ["i"], value=numpy_helper.from_array(indices)),
        helper.make_node("ScatterND", ["x", "i", "u"], ["y"]),
    ]
    model = _model(nodes, [("x", [3, 2, "n"]), ("u", [2, 2, "n"])], ["y"])
    _check(model, [[(3, 2, 1), (2, 2, 1)], [(3, 2, 4), (2, 2, 4)]])
