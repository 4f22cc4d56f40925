"""The ONNX importer on what text models build from sizes: Range up to a symbolic size,
Slice to a symbolic end, sizes used as tensors, and the mask and position operators
(And, IsNaN, GatherND, GatherElements, CumSum, Mod, Tile, Erf, Sin, Cos): against
onnxruntime at two values of the dynamic dimension, with symbolic result shapes."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
onnxruntime = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402
from torch_models import compiled_main  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402


def _const(name: str, values: list, dtype: int = TensorProto.INT64) -> onnx.NodeProto:
    tensor = helper.make_tensor(name, dtype, [len(values)], values)
    return helper.make_node("Constant", [], [name], value=tensor)


def _scalar(name: str, value: int) -> onnx.NodeProto:
    return helper.make_node(
        "Constant", [], [name], value=helper.make_tensor(name, TensorProto.INT64, [], [value])
    )


def _model() -> onnx.ModelProto:
    """x [n, 4] f32 and ids [n, 2] i64 -> the sum of several size-built computations."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, ["n", 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])
    table = helper.make_tensor(
        "table", TensorProto.FLOAT, [16, 4], np.arange(64, dtype=np.float32) / 10
    )
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], start=0, end=1),
        helper.make_node("Squeeze", ["shape"], ["n"]),
        _scalar("zero", 0),
        _scalar("one", 1),
        _const("start0", [0]),
        _const("axis0", [0]),
        # Range(0, n): a symbolic length; as float, a column of positions.
        helper.make_node("Range", ["zero", "n", "one"], ["positions"]),
        helper.make_node("Cast", ["positions"], ["pos_f"], to=TensorProto.FLOAT),
        _const("col", [-1, 1]),
        helper.make_node("Reshape", ["pos_f", "col"], ["pos_col"]),
        helper.make_node("Sin", ["pos_col"], ["sin"]),
        helper.make_node("Cos", ["pos_col"], ["cos"]),
        # The first n rows of a table: a Slice to a symbolic end.
        helper.make_node("Slice", ["table", "start0", "shape", "axis0"], ["rows"]),
        # A causal mask: positions[None] <= positions[:, None], And, then Where.
        helper.make_node("Unsqueeze", ["positions", "axis0"], ["pos_row"]),
        helper.make_node("Reshape", ["positions", "col"], ["pos_c"]),
        helper.make_node("LessOrEqual", ["pos_row", "pos_c"], ["causal"]),
        helper.make_node("IsNaN", ["x"], ["nan"]),
        helper.make_node("Not", ["nan"], ["finite"]),
        helper.make_node("And", ["causal", "causal"], ["causal_and"]),
        helper.make_node("Cast", ["causal_and"], ["causal_f"], to=TensorProto.FLOAT),
        _const("one_axis", [1]),
        helper.make_node("ReduceSum", ["causal_f", "one_axis"], ["causal_count"], keepdims=1),
        # Gathers by index tensors.
        helper.make_node("Slice", ["ids", "start0", "one_axis", "one_axis"], ["first_id"]),
        helper.make_node("GatherND", ["rows", "first_id"], ["picked"]),
        _const("tile4", [1, 4]),
        helper.make_node("Tile", ["first_id", "tile4"], ["ids4"]),
        helper.make_node("GatherElements", ["table", "ids4"], ["elements"], axis=0),
        # Running sums, Mod, Erf, and the size n as a tensor.
        helper.make_node("CumSum", ["x", "axis0"], ["cumsum"], exclusive=1),
        _const("three", [3]),
        helper.make_node("Mod", ["ids", "three"], ["mod"], fmod=1),
        helper.make_node("Cast", ["mod"], ["mod_f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["mod_f", "one_axis"], ["mod_sum"], keepdims=1),
        helper.make_node("Erf", ["x"], ["erf"]),
        helper.make_node("Cast", ["n"], ["n_f"], to=TensorProto.FLOAT),
        helper.make_node("Where", ["finite", "x", "erf"], ["clean"]),
        helper.make_node("Add", ["clean", "sin"], ["a"]),
        helper.make_node("Add", ["a", "cos"], ["b"]),
        helper.make_node("Add", ["b", "rows"], ["c"]),
        helper.make_node("Add", ["c", "causal_count"], ["d"]),
        helper.make_node("Add", ["d", "picked"], ["e"]),
        helper.make_node("Add", ["e", "elements"], ["f"]),
        helper.make_node("Add", ["f", "cumsum"], ["g"]),
        helper.make_node("Add", ["g", "mod_sum"], ["h"]),
        helper.make_node("Add", ["h", "erf"], ["i"]),
        helper.make_node("Add", ["i", "n_f"], ["y"]),
    ]
    # The exporter's shape of the sliced rows (the first n of 16) makes them [n, 4]:
    # matched at run time (the slice alone is [min(16, n), 4]).
    rows = helper.make_tensor_value_info("rows", TensorProto.FLOAT, ["n", 4])
    graph = helper.make_graph(nodes, "sizes", [x, ids], [y], [table], value_info=[rows])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_sizes_as_values_match_onnxruntime() -> None:
    model = _model()
    onnx.checker.check_model(model)
    imported = frontend.from_onnx(model)
    text = imported.text()
    assert "relax.prim_value n" in text
    assert "relax.match_shape %9 [n, 4] : (!relax.tensor<[min(16, n), 4], f32>)" in text
    compiled = xrelax.compile(imported.module)
    assert not [n for n in compiled.func_names if n.startswith("relax.op.")], "safety net"
    main = compiled_main(imported.module)
    session = onnxruntime.InferenceSession(model.SerializeToString())
    rng = np.random.default_rng(0)
    for n in (3, 9):
        x = rng.standard_normal((n, 4)).astype(np.float32)
        x[0, 1] = np.nan
        ids = rng.integers(0, n, (n, 2))
        (expected,) = session.run(None, {"x": x, "ids": ids})
        np.testing.assert_allclose(main(x, ids, **imported.params), expected, rtol=1e-5)
