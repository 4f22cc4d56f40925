"""The ONNX importer validates like ONNX and onnxruntime: numbers as onnxruntime
computes them where its old results were wrong (Flatten's negative axis, Reduce* with
empty axes, integer Div folded at import, a NaN Clip bound, '?' dimensions), and a
one-line error naming the node where onnxruntime refuses the model (out-of-range axes,
indices and split sizes, training-mode Dropout, folds and weights larger than the VM
allocates, malformed initializers), also from ``relax-import`` (exit code 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402
from xrelax.frontend import FrontendError, UnsupportedOperatorsError  # noqa: E402
from xrelax.tools import relax_import  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _model(nodes, inputs, outputs, initializers=(), opset: int = 18) -> onnx.ModelProto:
    """A model of ``nodes``; inputs are (name, element type, shape), outputs (name,
    element type), initializers (name, array) or TensorProtos."""
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        [v if isinstance(v, onnx.TensorProto) else numpy_helper.from_array(np.asarray(v[1]), v[0])
         for v in initializers],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _against_onnxruntime(model: onnx.ModelProto, *arrays: np.ndarray) -> list[np.ndarray]:
    """The model's outputs on the VM, checked equal to onnxruntime's."""
    imported = frontend.from_onnx(model)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    got = main(*arrays, **imported.params)
    got = [got] if isinstance(got, np.ndarray) else list(got)
    session = ort.InferenceSession(model.SerializeToString())
    names = [i.name for i in session.get_inputs()]
    expected = session.run(None, dict(zip(names, arrays, strict=True)))
    for value, want in zip(got, expected, strict=True):
        assert value.shape == want.shape and value.dtype == want.dtype
        np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-6)
    return got


def _refused_by_onnxruntime(model: onnx.ModelProto, *arrays: np.ndarray) -> None:
    session = None
    with pytest.raises(Exception):  # noqa: B017, PT011 - onnxruntime's own exception types
        session = ort.InferenceSession(model.SerializeToString())
        names = [i.name for i in session.get_inputs()]
        session.run(None, dict(zip(names, arrays, strict=True)))


# ---------------------------------------------------------------- numbers as onnxruntime's


def test_flatten_with_a_negative_axis() -> None:
    model = _model([helper.make_node("Flatten", ["x"], ["y"], axis=-1)], [("x", F, [3, 4, 8, 32])], [("y", F)])  # fmt: skip
    x = np.random.default_rng(0).standard_normal((3, 4, 8, 32)).astype(np.float32)
    (y,) = _against_onnxruntime(model, x)
    assert y.shape == (96, 32)


@pytest.mark.parametrize("noop", [0, 1])
def test_reduce_with_empty_axes(noop: int) -> None:
    """Empty axes reduce every axis, unless noop_with_empty_axes makes it the identity."""
    node = helper.make_node(
        "ReduceSum", ["x", "axes"], ["y"], keepdims=0, noop_with_empty_axes=noop
    )
    model = _model([node], [("x", F, [3, 4])], [("y", F)], [("axes", np.zeros(0, np.int64))])
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (y,) = _against_onnxruntime(model, x)
    assert y.shape == ((3, 4) if noop else ())


def test_integer_div_and_mod_fold_as_onnx() -> None:
    """Folded at import: Div truncates toward zero (-5 / 2 is -2), Mod takes the
    divisor's sign (fmod=0) or the dividend's (fmod=1)."""
    a, b = np.array([-5, 5, -7, 7], np.int64), np.array([2, -2, -3, 3], np.int64)
    nodes = [
        helper.make_node("Div", ["a", "b"], ["q"]),
        helper.make_node("Mod", ["a", "b"], ["m"]),
        helper.make_node("Mod", ["a", "b"], ["f"], fmod=1),
        helper.make_node("Add", ["x", "q"], ["y"]),
    ]
    model = _model(nodes, [("x", I64, [4])], [("y", I64), ("m", I64), ("f", I64)], [("a", a), ("b", b)])  # fmt: skip
    assert "relax.divide" not in frontend.from_onnx(model).text()
    y, m, f = _against_onnxruntime(model, np.zeros(4, np.int64))
    assert y.tolist() == [-2, -2, 2, 2]
    assert m.tolist() == [1, -1, -1, 1] and f.tolist() == [-1, 1, -1, 1]


@pytest.mark.parametrize(("fmod", "opset"), [(0, 28), (1, 18)])
def test_floating_point_mod_is_exact(fmod: int, opset: int) -> None:
    """Mod of floats as ONNX's reference (numpy's fmod and mod) gives it, bit for bit:
    infinite divisors, large quotients, NaNs and the sign of a zero remainder."""
    x = [
        0.0,
        -0.0,
        0.0,
        -0.0,
        -3.0,
        3.0,
        -1.0,
        1.0,
        np.inf,
        -np.inf,
        1.0,
        1.0,
        np.nan,
        1.0,
        7.2,
        1e10,
    ]
    y = [
        -2.0,
        2.0,
        2.0,
        -2.0,
        np.inf,
        np.inf,
        -np.inf,
        -np.inf,
        2.0,
        2.0,
        0.0,
        -0.0,
        2.0,
        np.nan,
        -3.4,
        3.3,
    ]
    a, b = np.array(x, np.float32), np.array(y, np.float32)
    node = helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod)
    model = _model([node], [("a", F, [len(x)]), ("b", F, [len(x)])], [("y", F)], opset=opset)
    imported = frontend.from_onnx(model)
    got = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"](a, b)
    with np.errstate(all="ignore"):
        expected = np.fmod(a, b) if fmod else np.mod(a, b)
    np.testing.assert_array_equal(got, expected)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]))


@pytest.mark.parametrize("bound_at_run_time", [False, True])
def test_clip_with_a_nan_bound_is_no_bound(bound_at_run_time: bool) -> None:
    node = helper.make_node("Clip", ["x", "low", "high"], ["y"])
    low = np.array(np.nan, np.float32)
    x = np.array([-2.0, 0.5, np.nan, 3.0], np.float32)
    inputs = [("x", F, [4])] + [("low", F, [])] * bound_at_run_time
    initializers = [("high", np.array(1.0, np.float32))] + [("low", low)] * (not bound_at_run_time)
    model = _model([node], inputs, [("y", F)], initializers)
    (y,) = _against_onnxruntime(model, x, *[low] * bound_at_run_time)
    np.testing.assert_array_equal(y, [-2.0, 0.5, np.nan, 1.0])


def test_question_mark_dimensions_are_each_their_own() -> None:
    nodes = [helper.make_node("MatMul", ["a", "b"], ["y"])]
    model = _model(nodes, [("a", F, ["?", "?"]), ("b", F, ["?", 16])], [("y", F)])
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((32, 48), np.float32), rng.standard_normal((48, 16), np.float32)
    (y,) = _against_onnxruntime(model, a, b)
    assert y.shape == (32, 16)


def test_lrn_window_wider_than_the_channels() -> None:
    node = helper.make_node("LRN", ["x"], ["y"], size=7, alpha=0.3, beta=0.7, bias=1.5)
    model = _model([node], [("x", F, [2, 3, 3, 2])], [("y", F)], opset=13)
    _against_onnxruntime(model, np.random.default_rng(2).standard_normal((2, 3, 3, 2), np.float32))


def test_dropout_in_training_mode_with_ratio_zero_is_the_identity() -> None:
    node = helper.make_node("Dropout", ["x", "ratio", "training"], ["y", "mask"])
    initializers = [("ratio", np.array(0.0, np.float32)), ("training", np.array(True))]
    model = _model([node], [("x", F, [2, 3])], [("y", F), ("mask", TensorProto.BOOL)], initializers)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y, mask = _against_onnxruntime(model, x)
    np.testing.assert_array_equal(y, x)
    assert mask.all()


# ---------------------------------------------------------------- refused as onnxruntime refuses

REFUSED = {
    "scatter_nd_index_out_of_range": (
        _model(
            [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="scatter")],
            [("x", F, [4, 2])],
            [("y", F)],
            [("i", np.array([[5]], np.int64)), ("u", np.ones((1, 2), np.float32))],
        ),
        "node 'scatter' (ScatterND): index 5 into axis 0 is out of range: expected [-4, 3]",
    ),
    "split_sizes_do_not_add_up": (
        _model(
            [helper.make_node("Split", ["x", "s"], ["a", "b"])],
            [("x", F, [4])],
            [("a", F), ("b", F)],
            [("s", np.array([1, 1], np.int64))],
        ),
        "node #0 (Split): Mismatch between the sum of 'split' (2) and the split dimension of "
        "the input (4)",
    ),
    "split_sizes_computed_at_import_do_not_add_up": (
        _model(
            [
                helper.make_node("Abs", ["s"], ["sizes"]),
                helper.make_node("Split", ["x", "sizes"], ["a", "b"], name="split"),
            ],
            [("x", F, [4])],
            [("a", F), ("b", F)],
            [("s", np.array([1, -1], np.int64))],
        ),
        "node 'split' (Split): split [1, 1] adds up to 2, expected the axis size 4",
    ),
    "squeeze_axis_out_of_range": (
        _model(
            [helper.make_node("Squeeze", ["x", "axes"], ["y"], name="sq")],
            [("x", F, [4, 1])],
            [("y", F)],
            [("axes", np.array([9], np.int64))],
        ),
        "node 'sq' (Squeeze): Unexpected axis value: 9. Expected range [-2, 2)",
    ),
    "squeeze_of_a_dimension_not_one": (
        _model(
            [
                helper.make_node("Abs", ["a"], ["axes"]),
                helper.make_node("Squeeze", ["x", "axes"], ["y"], name="sq"),
            ],
            [("x", F, [4, 3])],
            [("y", F)],
            [("a", np.array([-1], np.int64))],
        ),
        "node 'sq' (Squeeze): axis 1 has size 3, expected 1 to squeeze it",
    ),
    "softmax_axis_out_of_range": (
        _model([helper.make_node("Softmax", ["x"], ["y"], axis=5)], [("x", F, [4, 3])], [("y", F)]),
        "node #0 (Softmax): 'axis' must be in [-2 , 1]. Its actual value is: 5",
    ),
    "gather_index_out_of_range_folded": (
        _model(
            [
                helper.make_node("Abs", ["i"], ["index"]),
                helper.make_node("Gather", ["x", "index"], ["y"], name="take"),
            ],
            [],
            [("y", I64)],
            [("x", np.arange(3, dtype=np.int64)), ("i", np.array([-5], np.int64))],
        ),
        "node 'take' (Gather): index 5 into axis 0 is out of range: expected [-3, 2]",
    ),
    "range_longer_than_the_vm_allocates": (
        _model(
            [helper.make_node("Range", ["a", "b", "c"], ["y"], name="range")],
            [],
            [("y", I64)],
            [("a", np.int64(0)), ("b", np.int64(2**40)), ("c", np.int64(1))],
        ),
        "node 'range' (Range): the range of shape [1099511627776] would take 8796093022208 "
        "bytes, more than the VM allocates",
    ),
    "pad_larger_than_the_vm_allocates": (
        _model(
            [helper.make_node("Pad", ["x", "p"], ["y"], name="pad")],
            [],
            [("y", I64)],
            [("x", np.arange(3, dtype=np.int64)), ("p", np.array([0, 2**40], np.int64))],
        ),
        "node 'pad' (Pad): the result of shape [1099511627779] would take 8796093022232 "
        "bytes, more than the VM allocates",
    ),
    "tile_larger_than_a_dimension_holds": (
        _model(
            [helper.make_node("Tile", ["x", "r"], ["y"], name="tile")],
            [],
            [("y", I64)],
            [("x", np.arange(3, dtype=np.int64)), ("r", np.array([2**62], np.int64))],
        ),
        "node 'tile' (Tile): Integer overflow while multiplying dimension values 3 and "
        "4611686018427387904",
    ),
    "tile_of_an_input_larger_than_the_vm_allocates": (
        _model(
            [
                helper.make_node("Abs", ["r"], ["repeats"]),
                helper.make_node("Tile", ["x", "repeats"], ["y"], name="tile"),
            ],
            [("x", F, [3])],
            [("y", F)],
            [("r", np.array([2**40], np.int64))],
        ),
        "node 'tile' (Tile): the result of shape [3298534883328] would take 13194139533312 "
        "bytes, more than the VM allocates",
    ),
    "constant_of_shape_larger_than_the_vm_allocates": (
        _model(
            [helper.make_node("ConstantOfShape", ["s"], ["y"], name="fill")],
            [],
            [("y", F)],
            [("s", np.array([2**20, 2**20], np.int64))],
        ),
        "node 'fill' (ConstantOfShape): the result of shape [1048576, 1048576] would take "
        "4398046511104 bytes, more than the VM allocates",
    ),
    "output_of_undefined_element_type": (
        _model(
            [helper.make_node("Relu", ["x"], ["y"])],
            [("x", F, [2])],
            [("y", TensorProto.UNDEFINED)],
        ),
        "graph output 'y' has element type UNDEFINED",
    ),
    "declared_shape_contradicted": (
        helper.make_model(
            helper.make_graph(
                [
                    helper.make_node("Abs", ["s"], ["shape"]),
                    helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
                    helper.make_node("Relu", ["r"], ["y"]),
                ],
                "g",
                [helper.make_tensor_value_info("x", F, [2, 3])],
                [helper.make_tensor_value_info("y", F, None)],
                [numpy_helper.from_array(np.array([6, -1], np.int64), "s")],
                value_info=[helper.make_tensor_value_info("r", F, [3, 2])],
            ),
            opset_imports=[helper.make_opsetid("", 18)],
        ),
        "node 'reshape' (Reshape): 'r' has shape [6, 1], but the model declares [3, 2]",
    ),
    "cast_to_element_type_zero": (
        _model([helper.make_node("Cast", ["x"], ["y"], to=0)], [("x", F, [2])], [("y", F)]),
        "the model is not valid ONNX: Invalid tensor data type 0.",
    ),
    "input_dimension_negative": (
        _model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [-5, 2])], [("y", F)]),
        "input 'x': dimension 0 is -5, expected a size >= 0",
    ),
    "flatten_axis_out_of_range": (
        _model(
            [
                helper.make_node("Abs", ["x"], ["a"]),
                helper.make_node("Flatten", ["a"], ["y"], axis=-5, name="flat"),
            ],
            [("x", F, [2, 3, 4, 5])],
            [("y", F)],
        ),
        "node 'flat' (Flatten): Invalid value(-1) for attribute 'axis'",  # onnx's words
    ),
    "concat_axis_out_of_range": (
        _model(
            [helper.make_node("Concat", ["x", "x"], ["y"], axis=2, name="cat")],
            [("x", F, ["n", 3])],
            [("y", F)],
        ),
        "node 'cat' (Concat): axis must be in [-rank, rank-1].",
    ),
    "transpose_perm_not_a_permutation": (
        _model(
            [helper.make_node("Transpose", ["x"], ["y"], perm=[0, 0], name="t")],
            [("x", F, [2, 3])],
            [("y", F)],
        ),
        "node 't' (Transpose): Attribute perm for Transpose has repeated value: 0",
    ),
    "expand_to_an_incompatible_shape": (
        _model(
            [
                helper.make_node("Abs", ["s"], ["shape"]),
                helper.make_node("Expand", ["x", "shape"], ["y"], name="e"),
            ],
            [("x", F, [3, 1])],
            [("y", F)],
            [("s", np.array([4, 5], np.int64))],
        ),
        "node 'e' (Expand): cannot expand [3, 1] to [4, 5]",
    ),
    "reshape_with_two_minus_ones": (
        _model(
            [
                helper.make_node("Abs", ["s"], ["a"]),
                helper.make_node("Neg", ["a"], ["shape"]),
                helper.make_node("Reshape", ["x", "shape"], ["y"], name="r"),
            ],
            [("x", F, [2, 3])],
            [("y", F)],
            [("s", np.array([1, 1], np.int64))],
        ),
        "node 'r' (Reshape): shape [-1, -1] has more than one -1",
    ),
    "cumsum_axis_out_of_range": (
        _model(
            [
                helper.make_node("Abs", ["a"], ["axis"]),
                helper.make_node("CumSum", ["x", "axis"], ["y"], name="c"),
            ],
            [("x", F, [2, 3])],
            [("y", F)],
            [("a", np.array(2, np.int64))],
        ),
        "node 'c' (CumSum): axis 2 is out of range: expected [-2, 1]",
    ),
    "reduce_axes_repeated": (
        _model(
            [
                helper.make_node("Abs", ["a"], ["axes"]),
                helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="r"),
            ],
            [("x", F, [2, 3])],
            [("y", F)],
            [("a", np.array([1, -1], np.int64))],
        ),
        "node 'r' (ReduceMax): axes [1, 1] name an axis twice",
    ),
    "pads_of_the_wrong_length": (
        _model(
            [
                helper.make_node("Abs", ["p"], ["pads"]),
                helper.make_node("Pad", ["x", "pads"], ["y"], name="pad"),
            ],
            [("x", F, [2, 3])],
            [("y", F)],
            [("p", np.array([1, 1, 1], np.int64))],
        ),
        "node 'pad' (Pad): pads has 3 values, expected 4",
    ),
    "range_with_delta_zero": (
        _model(
            [helper.make_node("Range", ["a", "b", "c"], ["y"], name="range")],
            [],
            [("y", I64)],
            [("a", np.int64(0)), ("b", np.int64(5)), ("c", np.int64(0))],
        ),
        "node 'range' (Range): delta is 0",
    ),
    "range_of_a_bound_not_a_scalar": (
        _model(
            [
                helper.make_node("Abs", ["a"], ["start"]),
                helper.make_node("Range", ["start", "b", "c"], ["y"], name="range"),
            ],
            [],
            [("y", I64)],
            [("a", np.zeros(0, np.int64)), ("b", np.int64(5)), ("c", np.int64(1))],
        ),
        "node 'range' (Range): start has shape [0], expected a scalar",
    ),
    "lrn_of_an_even_size": (
        _model(
            [helper.make_node("LRN", ["x"], ["y"], size=4, name="lrn")],
            [("x", F, [1, 5, 2, 2])],
            [("y", F)],
        ),
        "node 'lrn' (LRN): size is 4, expected an odd number (as onnxruntime does)",
    ),
    "integer_division_by_zero_folded": (
        _model(
            [helper.make_node("Div", ["a", "b"], ["y"], name="div")],
            [],
            [("y", I64)],
            [("a", np.array([4], np.int64)), ("b", np.array([0], np.int64))],
        ),
        "node 'div' (Div): integer division by zero",
    ),
    "integer_remainder_by_a_constant_zero": (
        _model(
            [helper.make_node("Mod", ["x", "b"], ["y"], name="mod")],
            [("x", I64, [2])],
            [("y", I64)],
            [("b", np.array([3, 0], np.int64))],
        ),
        "node 'mod' (Mod): integer remainder by zero",
    ),
    "float_mod_with_fmod_zero_before_opset_28": (
        _model(
            [helper.make_node("Mod", ["x", "x"], ["y"], name="mod")],
            [("x", F, [2])],
            [("y", F)],
        ),
        "node 'mod' (Mod): fmod is 0 with floating-point operands; expected 1 before opset 28 "
        "(got 18)",
    ),
    "gelu_with_an_unknown_approximation": (
        _model(
            [helper.make_node("Gelu", ["x"], ["y"], approximate="fast", name="g")],
            [("x", F, [2])],
            [("y", F)],
            opset=20,
        ),
        "node 'g' (Gelu): attribute approximate is 'fast', expected one of 'none', 'tanh'",
    ),
    "conv_group_not_dividing_the_filters": (
        _model(
            [helper.make_node("Conv", ["x", "w"], ["y"], group=2, name="conv")],
            [("x", F, [1, 2, 5, 5])],
            [("y", F)],
            [("w", np.ones((3, 1, 3, 3), np.float32))],
        ),
        "node 'conv' (Conv): group is 2, expected a divisor of the 3 filters",
    ),
}


@pytest.mark.parametrize("name", REFUSED)
def test_invalid_models_are_refused_in_one_line(name: str) -> None:
    model, message = REFUSED[name]
    with pytest.raises(FrontendError) as info:
        frontend.from_onnx(model)
    text = str(info.value)
    assert "\n" not in text
    assert text == message


@pytest.mark.parametrize(
    "name",
    [
        "scatter_nd_index_out_of_range",
        "split_sizes_do_not_add_up",
        "squeeze_axis_out_of_range",
        "softmax_axis_out_of_range",
        "output_of_undefined_element_type",
        "integer_remainder_by_a_constant_zero",
    ],
)  # fmt: skip
def test_onnxruntime_refuses_them_too(name: str) -> None:
    model, _ = REFUSED[name]
    tensor = model.graph.input[0].type.tensor_type
    dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
    x = np.ones([d.dim_value for d in tensor.shape.dim], dtype)
    _refused_by_onnxruntime(model, x)


def test_dropout_in_training_mode_is_unsupported() -> None:
    node = helper.make_node("Dropout", ["x", "ratio", "training"], ["y"])
    initializers = [("ratio", np.array(0.5, np.float32)), ("training", np.array(True))]
    model = _model([node], [("x", F, [4])], [("y", F)], initializers)
    with pytest.raises(UnsupportedOperatorsError) as info:
        frontend.from_onnx(model)
    assert info.value.counts == {"Dropout (training mode with ratio 0.5 (random))": 1}


def _short_raw_data() -> onnx.TensorProto:
    tensor = numpy_helper.from_array(np.arange(6, dtype=np.float32), "w")
    tensor.raw_data = tensor.raw_data[:10]
    return tensor


def _huge_dims() -> onnx.TensorProto:
    tensor = onnx.TensorProto(name="w", data_type=F, dims=[2**40])
    tensor.raw_data = b"1234"
    return tensor


@pytest.mark.parametrize(
    ("tensor", "message"),
    [
        (
            _short_raw_data(),
            "the model is not valid ONNX: TensorProto (tensor name: w) raw_data size (10 bytes) "
            "is too small for the declared shape and type (24 bytes required).",
        ),
        (
            _huge_dims(),
            "the model is not valid ONNX: TensorProto (tensor name: w) raw_data size (4 bytes) "
            "is too small for the declared shape and type (4398046511104 bytes required).",
        ),
    ],
)
def test_malformed_initializers_are_refused(tensor: onnx.TensorProto, message: str) -> None:
    model = _model([helper.make_node("Identity", ["w"], ["y"])], [], [("y", F)], [tensor])
    with pytest.raises(FrontendError) as info:
        frontend.from_onnx(model)
    assert str(info.value) == message


@pytest.mark.parametrize("name", REFUSED)
def test_relax_import_reports_them_with_exit_code_1(tmp_path: Path, capsys, name: str) -> None:
    model, message = REFUSED[name]
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    assert relax_import.main([str(path), "-o", str(tmp_path / "m.mlir")]) == 1
    assert capsys.readouterr().err == f"relax-import: error: {path}: {message}\n"


CRASHING_ONNX_INFERENCE = {
    "gather_nd_negative_batch_dims": (
        _model(
            [helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=-5, name="g")],
            [("x", TensorProto.INT32, [2, 2]), ("i", I64, [2, 2])],
            [("y", TensorProto.INT32)],
        ),
        "node 'g' (GatherND): batch_dims is -5, expected >= 0",
    ),
    "layer_norm_axis_outside_int32": (
        _model(
            [
                helper.make_node(
                    "LayerNormalization", ["x", "s", "b"], ["y", "m", "v"], axis=2**31, name="ln"
                )
            ],
            [("x", F, [2, 3]), ("s", F, [3]), ("b", F, [3])],
            [("y", F), ("m", F), ("v", F)],
        ),
        "node 'ln' (LayerNormalization): axis 2147483648 is out of range",
    ),
    "split_num_outputs_not_its_outputs": (
        _model(
            [helper.make_node("Split", ["x"], ["y", "z", "w"], num_outputs=2, name="split")],
            [("x", F, [6])],
            [("y", F), ("z", F), ("w", F)],
        ),
        "node 'split' (Split): num_outputs is 2, but the node has 3 outputs",
    ),
}


@pytest.mark.parametrize("name", CRASHING_ONNX_INFERENCE)
def test_attributes_crashing_onnx_inference_are_refused_first(tmp_path: Path, name: str) -> None:
    """onnx's shape inference kills the process on these (a segmentation fault or an
    abort): relax-import refuses them before it runs, in its own process here."""
    model, message = CRASHING_ONNX_INFERENCE[name]
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    command = [sys.executable, "-m", "xrelax.tools.relax_import", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (1, f"relax-import: error: {path}: {message}\n")


def test_models_over_protobufs_limit_are_checked_from_their_file(
    tmp_path: Path, monkeypatch
) -> None:
    """onnx checks a model over 2 GB only from its file: one given in memory is refused
    with a hint, one given by path is checked from it and imported (the limit is
    lowered here to make a small model 'large')."""
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [3])], [("y", F)])
    model.graph.output[0].type.tensor_type.shape.dim.add().dim_value = 3
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    monkeypatch.setattr(onnx.checker, "MAXIMUM_PROTOBUF", 10)
    with pytest.raises(FrontendError) as info:
        frontend.from_onnx(model)
    assert str(info.value) == (
        "the model is over 2 GB, which onnx checks only from its file: import it from its path"
    )
    imported = frontend.from_onnx(path)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    np.testing.assert_array_equal(main(np.array([-1.0, 0.0, 2.0], np.float32)), [0.0, 0.0, 2.0])
