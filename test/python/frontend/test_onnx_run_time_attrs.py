"""ONNX operators whose attribute inputs (axes, k, pads, starts, shapes, repeats,
splits, bounds) are graph inputs, known only when the model runs, against
onnxruntime: one compiled model per case, run at two batch sizes and with several
attribute values; a value the operator refuses is a one-line error, as in onnxruntime.
Also Pad's reflect, edge and wrap modes, ReduceProd and CumProd."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402

RNG = np.random.default_rng(11)
F32, I64 = TensorProto.FLOAT, TensorProto.INT64


def _model(op: str, x_shape: list, attr_inputs: list[tuple[str, list]], **attrs: Any):
    """``op`` of x (a symbolic batch first) and the integer inputs ``attr_inputs``."""
    inputs = [helper.make_tensor_value_info("x", F32, x_shape)]
    inputs += [helper.make_tensor_value_info(n, I64, s) for n, s in attr_inputs]
    names = ["x", *(n for n, _ in attr_inputs)]
    node = helper.make_node(op, [n if n != "-" else "" for n in names], ["y"], **attrs)
    graph = helper.make_graph(
        [node], "g", [i for i in inputs if i.name != "-"],
        [helper.make_tensor_value_info("y", F32, None)],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _compare(model, runs: list[tuple[tuple[int, ...], list[Any]]]) -> None:
    session = ort.InferenceSession(model.SerializeToString())
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    names = [i.name for i in session.get_inputs()]
    for shape, values in runs:
        args = [RNG.standard_normal(shape).astype(np.float32)]
        args += [np.asarray(v, np.int64) for v in values]
        (want,) = session.run(None, dict(zip(names, args, strict=True)))
        got = main(*args)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


CASES = {
    "ReduceSum": (
        _model("ReduceSum", ["n", 3, 4], [("axes", [2])], keepdims=0),
        [((2, 3, 4), [[0, 2]]), ((5, 3, 4), [[-1, 1]])],
    ),
    "ReduceMax-keepdims": (
        _model("ReduceMax", ["n", 3, 4], [("axes", [1])]),
        [((2, 3, 4), [[1]]), ((1, 3, 4), [[-3]])],
    ),
    "ReduceMean-empty-axes": (
        _model("ReduceMean", ["n", 3], [("axes", [0])], keepdims=0),
        [((4, 3), [[]])],
    ),
    "ReduceProd": (
        _model("ReduceProd", ["n", 3], [("axes", [1])], keepdims=0),
        [((4, 3), [[0]]), ((2, 3), [[1]])],
    ),
    "ReduceL2": (
        _model("ReduceL2", ["n", 3], [("axes", [1])]),
        [((4, 3), [[0]]), ((2, 3), [[-1]])],
    ),
    "ReduceLogSumExp": (
        _model("ReduceLogSumExp", ["n", 3], [("axes", [1])], keepdims=0),
        [((4, 3), [[1]])],
    ),
    "Trilu": (
        _model("Trilu", ["n", 4, 5], [("k", [])], upper=0),
        [((2, 4, 5), [1]), ((3, 4, 5), [-2]), ((1, 4, 5), [9])],
    ),
    "CumSum-reverse": (
        _model("CumSum", ["n", 4], [("axis", [])], reverse=1, exclusive=1),
        [((3, 4), [0]), ((2, 4), [-1])],
    ),
    "Slice": (
        _model("Slice", ["n", 6], [("starts", [2]), ("ends", [2]), ("axes", [2]), ("steps", [2])]),
        [
            ((5, 6), [[1, -1], [100, 0], [0, 1], [2, -2]]),
            ((3, 6), [[-1, 0], [-100, 4], [0, 1], [-1, 1]]),
        ],
    ),
    "Squeeze": (
        _model("Squeeze", ["n", 1, 4, 1], [("axes", [2])]),
        [((2, 1, 4, 1), [[1, -1]])],
    ),
    "Unsqueeze": (
        _model("Unsqueeze", ["n", 4], [("axes", [2])]),
        [((3, 4), [[0, -1]]), ((2, 4), [[1, 2]])],
    ),
    "Reshape": (
        _model("Reshape", ["n", 6], [("shape", [3])]),
        [((4, 6), [[2, -1, 3]]), ((2, 6), [[0, 2, 3]]), ((3, 6), [[-1, 1, 9]])],
    ),
    "Expand": (
        _model("Expand", ["n", 1], [("shape", [3])]),
        [((2, 1), [[3, 1, 4]]), ((3, 1), [[1, 3, 1]])],
    ),
    "Tile": (
        _model("Tile", ["n", 2], [("repeats", [2])]),
        [((2, 2), [[2, 3]]), ((1, 2), [[0, 1]])],
    ),
    "Pad-constant": (
        _model("Pad", ["n", 4], [("pads", [4])]),
        [((2, 4), [[1, 0, 0, 2]]), ((3, 4), [[0, -1, 2, -2]])],
    ),
    "Pad-axes": (
        _model("Pad", ["n", 4], [("pads", [2]), ("-", []), ("axes", [1])]),
        [((2, 4), [[1, 3], [-1]]), ((3, 4), [[2, 0], [0]])],
    ),
    "Pad-reflect": (
        _model("Pad", ["n", 4], [("pads", [4])], mode="reflect"),
        [((3, 4), [[1, 2, 2, 3]]), ((2, 4), [[0, 0, 1, 0]])],
    ),
    "Pad-edge": (
        _model("Pad", ["n", 4], [("pads", [4])], mode="edge"),
        [((3, 4), [[2, 1, 0, 5]])],
    ),
    "Pad-wrap": (
        _model("Pad", ["n", 4], [("pads", [4])], mode="wrap"),
        [((3, 4), [[1, 4, 3, 2]])],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_onnxruntime(name: str) -> None:
    model, runs = CASES[name]
    _compare(model, runs)


def _constant_of_shape() -> onnx.ModelProto:
    node = helper.make_node(
        "ConstantOfShape", ["shape"], ["y"], value=helper.make_tensor("v", F32, [1], [2.5])
    )
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("shape", I64, [2])],
        [helper.make_tensor_value_info("y", F32, None)],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_constant_of_shape_and_refusals() -> None:
    model = _constant_of_shape()
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    np.testing.assert_array_equal(main(np.array([2, 3])), np.full((2, 3), 2.5, np.float32))
    with pytest.raises(xrelax.VMError, match="relax.tensor_to_shape: expected non-negative"):
        main(np.array([-2, 3]))


def test_split_sizes_at_run_time() -> None:
    node = helper.make_node("Split", ["x", "split"], ["a", "b"], axis=1)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", F32, ["n", 5]),
         helper.make_tensor_value_info("split", I64, [2])],
        [helper.make_tensor_value_info(o, F32, None) for o in ("a", "b")],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    a, b = main(x, np.array([2, 3]))
    np.testing.assert_array_equal(a, x[:, :2])
    np.testing.assert_array_equal(b, x[:, 2:])
    with pytest.raises(Exception, match="4"):
        main(x, np.array([1, 3]))  # adds up to 4, not the axis size 5


@pytest.mark.parametrize(
    ("name", "values", "message"),
    [
        ("ReduceSum", [[0, 3]], "relax.sum: axis 3 is out of range for rank 3"),
        ("Reshape", [[-1, -1, 2]], "relax.tensor_to_shape: expected non-negative sizes"),
        ("Reshape", [[5, 5, 5]], "the element count is kept"),
        ("Pad-reflect", [[3, 0, 0, 0]], r"index -1 out of range \[0, 3\)"),
        ("Tile", [[-1, 2]], "expected non-negative sizes"),
    ],
)
def test_wrong_values_are_refused(name: str, values: list, message: str) -> None:
    model, runs = CASES[name]
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    shape = runs[0][0]
    args = [RNG.standard_normal(shape).astype(np.float32), *(np.asarray(v) for v in values)]
    with pytest.raises(xrelax.VMError, match=message):  # a kernel's error is one too
        main(*args)


def test_float_range_adds_in_order() -> None:
    inputs = [helper.make_tensor_value_info(n, F32, []) for n in ("start", "limit", "delta")]
    node = helper.make_node("Range", ["start", "limit", "delta"], ["y"])
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", F32, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    session = ort.InferenceSession(model.SerializeToString())
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    for bounds in ((0.1, 7.3, 0.3), (5.0, -1.0, -0.7), (1.0, 1.0, 0.5), (2.0, 1.0, 1.0)):
        args = [np.asarray(b, np.float32) for b in bounds]
        (want,) = session.run(None, dict(zip(("start", "limit", "delta"), args, strict=True)))
        np.testing.assert_array_equal(main(*(np.asarray(a) for a in args)), want)
    with pytest.raises(xrelax.VMError, match="relax.arange"):
        main(np.asarray(np.float32(0)), np.asarray(np.float32(1)), np.asarray(np.float32(0)))


@pytest.mark.parametrize("pads", [[1, 2, 2, 3], [-1, 2, 1, -1]], ids=["grow", "crop"])
@pytest.mark.parametrize("mode", ["reflect", "edge", "wrap"])
def test_pad_modes_with_constant_pads(mode: str, pads: list[int]) -> None:
    pads = helper.make_tensor("pads", I64, [4], pads)
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", F32, ["n", 4])],
        [helper.make_tensor_value_info("y", F32, None)], [pads],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    session = ort.InferenceSession(model.SerializeToString())
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    for batch in (3, 5):
        x = RNG.standard_normal((batch, 4)).astype(np.float32)
        np.testing.assert_array_equal(main(x), session.run(None, {"x": x})[0])


def test_cumprod() -> None:
    axis = helper.make_tensor("axis", I64, [], [1])
    node = helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=1, reverse=1)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", F32, ["n", 4])],
        [helper.make_tensor_value_info("y", F32, None)], [axis],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26)])
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    reversed_ = np.flip(x, 1)
    expected = np.ones_like(x)
    expected[:, 1:] = np.cumprod(reversed_, axis=1)[:, :-1]
    np.testing.assert_allclose(main(x), np.flip(expected, 1), rtol=1e-6)


def test_reduce_log_sum_exp_does_not_overflow() -> None:
    model, _ = CASES["ReduceLogSumExp"]
    session = ort.InferenceSession(model.SerializeToString())
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    x = np.array([[100, 99, -1], [3e38, 3e38, 1], [-np.inf] * 3, [np.inf, 0, 1]], np.float32)
    axes = np.array([1], np.int64)
    np.testing.assert_allclose(main(x, axes), session.run(None, {"x": x, "axes": axes})[0])
