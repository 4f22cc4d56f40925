"""The ONNX importer: the models exported from torch against onnxruntime for two values
of each symbolic dimension, dim_param names, initializers, size computations, Trilu,
and the unsupported-operator report."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402

from xrelax import frontend  # noqa: E402
from xrelax.frontend import UnsupportedOperatorsError  # noqa: E402

TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


def compiled_main(module):
    import xrelax

    return xrelax.VirtualMachine(xrelax.compile(module))["main"]


@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer"])
def test_exported_model_matches_onnxruntime(tmp_path, name: str) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnxscript")
    import torch
    from torch_models import CASES

    case = CASES[name]()
    path = tmp_path / f"{name}.onnx"
    # optimize=False keeps BatchNormalization (the optimizer folds it into the Conv).
    torch.onnx.export(
        case.model,
        case.example,
        str(path),
        dynamo=True,
        dynamic_shapes=case.dynamic_shapes,
        optimize=name != "cnn",
        verbose=False,
    )
    model = onnx.load(str(path))
    if name == "cnn":
        assert "BatchNormalization" in {n.op_type for n in model.graph.node}
    imported = frontend.from_onnx(model)
    main = compiled_main(imported.module)
    session = ort.InferenceSession(str(path))
    names = [i.name for i in session.get_inputs()]
    for index in range(len(case.sizes)):
        arrays = case.inputs(index)
        (expected,) = session.run(None, dict(zip(names, arrays, strict=True)))
        np.testing.assert_allclose(main(*arrays, **imported.params), expected, **TOLERANCE)


def reshape_model() -> onnx.ModelProto:
    """``y = reshape(x @ w, [N, -1]) + b`` with the target shape computed from ``Shape``,
    an input dimension without a name, and a one-element initializer."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", None, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = helper.make_tensor("w.weight", TensorProto.FLOAT, [4, 3], np.arange(12) / 10)
    b = helper.make_tensor("b", TensorProto.FLOAT, [1], [0.5])
    zero = helper.make_tensor("zero", TensorProto.INT64, [], [0])
    minus_one = helper.make_tensor("minus_one", TensorProto.INT64, [1], [-1])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [0])
    nodes = [
        helper.make_node("MatMul", ["x", "w.weight"], ["xw"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["xw", "target"], ["flat"]),
        helper.make_node("Add", ["flat", "b"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y], [w, b, zero, minus_one, axes])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_dim_params_initializers_and_size_computations() -> None:
    model = reshape_model()
    imported = frontend.from_onnx(model)
    text = imported.text()
    assert "%x: !relax.tensor<[N, x1, 4], f32>, %w_weight: !relax.tensor<[4, 3], f32>" in text
    assert "relax.shape [N, x1 * 3]" in text
    assert list(imported.params) == ["w_weight"]
    main = compiled_main(imported.module)
    session = ort.InferenceSession(model.SerializeToString())
    for shape in [(2, 3, 4), (5, 1, 4)]:
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        (expected,) = session.run(None, {"x": x})
        np.testing.assert_allclose(main(x, **imported.params), expected, **TOLERANCE)


def test_unsupported_operators_are_reported_at_once() -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N"])
    nodes = [
        helper.make_node("Bernoulli", ["x"], ["h"]),
        helper.make_node("Det", ["h"], ["a"]),
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Det", ["r"], ["b"]),
        helper.make_node("Add", ["a", "b"], ["y"]),
    ]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y]))
    with pytest.raises(UnsupportedOperatorsError) as info:
        frontend.from_onnx(model)
    assert info.value.counts == {
        "Bernoulli (nondeterministic: random numbers)": 1,
        "Det (a matrix larger than 3x3 or of a symbolic size)": 1,
    }
    assert str(info.value) == (
        "2 unsupported ONNX operators in 2 nodes: Bernoulli (nondeterministic: random "
        "numbers) (1), Det (a matrix larger than 3x3 or of a symbolic size) (1)"
    )


def trilu_model(k_input: bool = False) -> onnx.ModelProto:
    """``triu(tril(x, -1) + x)`` and ``triu(x, k)``: Trilu with ``upper`` and ``k`` given
    and left out; ``k`` an initializer, or a graph input when ``k_input``."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "M"])
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in "yz"]
    inputs, initializers = [x], [helper.make_tensor("minus_one", TensorProto.INT64, [], [-1])]
    if k_input:
        inputs.append(helper.make_tensor_value_info("k", TensorProto.INT64, []))
    else:
        initializers.append(helper.make_tensor("k", TensorProto.INT64, [], [2]))
    nodes = [
        helper.make_node("Trilu", ["x", "minus_one"], ["lower"], upper=0),
        helper.make_node("Add", ["lower", "x"], ["sum"]),
        helper.make_node("Trilu", ["sum"], ["y"]),
        helper.make_node("Trilu", ["x", "k"], ["z"], upper=1),
    ]
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_trilu_matches_onnxruntime() -> None:
    model = trilu_model()
    imported = frontend.from_onnx(model)
    text = imported.text()
    assert "relax.tril %x {k = -1 : i64}" in text and "relax.triu %x {k = 2 : i64}" in text
    main = compiled_main(imported.module)
    session = ort.InferenceSession(model.SerializeToString())
    for shape in [(4, 6), (7, 3)]:
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        for got, expected in zip(main(x), session.run(None, {"x": x}), strict=True):
            np.testing.assert_allclose(got, expected, **TOLERANCE)


def test_trilu_with_k_computed_at_run_time_matches_onnxruntime() -> None:
    model = trilu_model(k_input=True)
    imported = frontend.from_onnx(model)
    assert 'relax.runtime_attrs %x, %k {op = "relax.triu", names = ["k"]}' in imported.text()
    main = compiled_main(imported.module)
    session = ort.InferenceSession(model.SerializeToString())
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    for k in (-3, 0, 2, 9):
        given = {"x": x, "k": np.array(k, np.int64)}
        for got, expected in zip(main(x, given["k"]), session.run(None, given), strict=True):
            np.testing.assert_allclose(got, expected, **TOLERANCE)
