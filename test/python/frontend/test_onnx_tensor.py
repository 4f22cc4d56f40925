"""ONNX tensor and math operators of frontend/onnx_tensor.py against onnxruntime, with a
symbolic batch at two sizes: the element-wise maps, Round (halves to even), Softplus at
large magnitudes, OneHot, TopK (ties by position), ScatterElements with each reduction;
operators refused by name."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402
from xrelax.frontend import UnsupportedOperatorsError  # noqa: E402

RNG = np.random.default_rng(11)
ELEM = {
    np.float32: TensorProto.FLOAT,
    np.int64: TensorProto.INT64,
    np.int32: TensorProto.INT32,
    np.int8: TensorProto.INT8,
    np.uint8: TensorProto.UINT8,
}


def _model(nodes, inputs, outputs, initializers=(), opset=18):
    """A node or a list of them; ``inputs``: (name, dtype, dims with 'n' symbolic);
    outputs likewise."""
    graph = helper.make_graph(
        nodes if isinstance(nodes, list) else [nodes],
        "g",
        [helper.make_tensor_value_info(n, ELEM[t], d) for n, t, d in inputs],
        [helper.make_tensor_value_info(n, ELEM[t], None) for n, t in outputs],
        [numpy_helper.from_array(v, n) for n, v in initializers],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _check(model, feeds_per_size, exact=False):
    session = ort.InferenceSession(model.SerializeToString())
    imported = frontend.from_onnx(model)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    for feeds in feeds_per_size:
        expected = session.run(None, feeds)
        got = main(*feeds.values(), **imported.params)
        got = [got] if isinstance(got, np.ndarray) else list(got)
        for value, want in zip(got, expected, strict=True):
            assert value.dtype == want.dtype and value.shape == want.shape
            if exact:
                np.testing.assert_array_equal(value, want)
            else:
                np.testing.assert_allclose(value, want, rtol=2e-6, atol=1e-7)


MAPS = {
    "Tan": (-1.5, 1.5), "Sinh": (-5, 5), "Cosh": (-5, 5), "Asin": (-1, 1), "Acos": (-1, 1),
    "Atan": (-9, 9), "Asinh": (-9, 9), "Acosh": (1, 9), "Atanh": (-0.99, 0.99),
    "Floor": (-9, 9), "Ceil": (-9, 9),
}  # fmt: skip


def test_float_maps():
    """Each map in one model (one compilation), at two batch sizes."""
    ops = sorted(MAPS)
    model = _model(
        [helper.make_node(op, [f"x{op}"], [f"y{op}"]) for op in ops],
        [(f"x{op}", np.float32, ["n", 3]) for op in ops],
        [(f"y{op}", np.float32) for op in ops],
    )
    feeds = [
        {f"x{op}": RNG.uniform(*MAPS[op], (n, 3)).astype(np.float32) for op in ops} for n in (1, 4)
    ]
    _check(model, feeds)


def test_round_halves_to_even_and_softplus_at_large_magnitudes():
    values = np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -100.0, 100.0, 1e30]], np.float32)
    for op, exact in (("Round", True), ("Softplus", False)):
        model = _model(
            helper.make_node(op, ["x"], ["y"]), [("x", np.float32, ["n", 10])], [("y", np.float32)]
        )
        _check(model, [{"x": np.repeat(values, n, 0)} for n in (1, 3)], exact=exact)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    node = helper.make_node("OneHot", ["i", "depth", "values"], ["y"], axis=axis)
    model = _model(
        node,
        [("i", np.int64, ["n", 3])],
        [("y", np.float32)],
        [("depth", np.array(5, np.int64)), ("values", np.array([-1.0, 2.0], np.float32))],
    )
    # negative indices count from the end of depth; outside [-5, 4] a row of "off"
    feeds = [{"i": np.array([[0, 4, -1]] * n + [[-5, 5, -6]], np.int64)} for n in (1, 2)]
    _check(model, feeds, exact=True)


@pytest.mark.parametrize(("largest", "axis"), [(1, 1), (0, 1), (1, 0)])
def test_top_k(largest, axis):
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=axis, largest=largest)
    model = _model(
        node,
        [("x", np.float32, ["n", 6])],
        [("v", np.float32), ("i", np.int64)],
        [("k", np.array([1 if axis == 0 else 3], np.int64))],
    )
    # few distinct values: ties come by position, as onnxruntime orders them
    feeds = [{"x": RNG.integers(-2, 3, (n, 6)).astype(np.float32)} for n in (2, 5)]
    _check(model, feeds, exact=True)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_elements(reduction):
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1, reduction=reduction)
    model = _model(
        node,
        [("x", np.float32, ["n", 5]), ("i", np.int64, ["n", 3]), ("u", np.float32, ["n", 3])],
        [("y", np.float32)],
    )
    feeds = []
    for n in (1, 3):
        # distinct positions per row for "none" (onnxruntime leaves duplicates open)
        index = np.stack([RNG.permutation(5)[:3] - 2 for _ in range(n)]).astype(np.int64)
        if reduction != "none":
            index[:, 1] = index[:, 0]
        feeds.append(
            {
                "x": RNG.integers(-4, 5, (n, 5)).astype(np.float32),
                "i": index,
                "u": RNG.integers(-4, 5, (n, 3)).astype(np.float32),
            }
        )
    _check(model, feeds, exact=True)


@pytest.mark.parametrize(
    ("op", "reason"),
    [
        ("RandomUniformLike", "nondeterministic: random numbers"),
        ("Bernoulli", "nondeterministic: random numbers"),
    ],
)
def test_refused_by_name(op, reason):
    model = _model(
        helper.make_node(op, ["x"], ["y"]), [("x", np.float32, ["n", 3])], [("y", np.float32)]
    )
    with pytest.raises(UnsupportedOperatorsError) as caught:
        frontend.from_onnx(model)
    assert f"{op} ({reason}) (1)" in str(caught.value)
    assert "\n" not in str(caught.value)


EINSUMS = [
    ("ij,jk->ik", [["n", 3], [3, 4]]),
    ("bij,bjk->bik", [["n", 2, 3], ["n", 3, 4]]),
    ("bhqd,bhkd->bhqk", [["n", 2, 3, 4], ["n", 2, 5, 4]]),
    ("i,i", [["n"], ["n"]]),
    ("ij->ji", [["n", 3]]),
    ("ij->", [["n", 3]]),
    ("ii->i", [[3, 3]]),
    ("...ii->...i", [["n", 3, 3]]),
    ("i,j->ij", [["n"], [4]]),
    ("ij,jk,kl->il", [["n", 3], [3, 4], [4, 2]]),
    ("bij,jk", [["n", 2, 3], [3, 4]]),
    ("...j,jk->...k", [["n", 2, 3], [3, 4]]),
    ("ab,ab->a", [["n", 3], [1, 3]]),
]


def test_einsum():
    """Every equation in one model (one compilation), at two batch sizes."""
    nodes, inputs, outputs, names = [], [], [], []
    for k, (equation, shapes) in enumerate(EINSUMS):
        operands = [f"e{k}x{m}" for m in range(len(shapes))]
        nodes.append(helper.make_node("Einsum", operands, [f"e{k}"], equation=equation))
        inputs += [(name, np.float32, shape) for name, shape in zip(operands, shapes, strict=True)]
        outputs.append((f"e{k}", np.float32))
        names += list(zip(operands, shapes, strict=True))
    model = _model(nodes, inputs, outputs)
    feeds = []
    for n in (1, 3):
        feeds.append(
            {
                name: RNG.standard_normal([n if d == "n" else d for d in shape]).astype(np.float32)
                for name, shape in names
            }
        )
    _check(model, feeds)


@pytest.mark.parametrize(("batch_axis", "time_axis"), [(1, 0), (0, 1)])
def test_reverse_sequence(batch_axis, time_axis):
    node = helper.make_node(
        "ReverseSequence", ["x", "lens"], ["y"], batch_axis=batch_axis, time_axis=time_axis
    )
    shape = ["t", "n", 2] if time_axis == 0 else ["n", "t", 2]
    model = _model(node, [("x", np.float32, shape), ("lens", np.int64, ["n"])], [("y", np.float32)])
    feeds = []
    for n, t in ((2, 4), (3, 5)):
        dims = [t, n, 2] if time_axis == 0 else [n, t, 2]
        lens = RNG.integers(1, t + 1, n).astype(np.int64)
        feeds.append({"x": RNG.standard_normal(dims).astype(np.float32), "lens": lens})
    _check(model, feeds, exact=True)


def test_data_dependent_lengths():
    """NonZero, Compress and Unique: their lengths are named by match_shape after the
    safety net computes them."""
    x = np.array([[0.0, 1.5, -0.0, 2.0], [3.0, 0.0, 2.0, 0.0], [1.5, 1.5, 0.0, 1.0]], np.float32)
    cases = [
        (helper.make_node("NonZero", ["x"], ["y"]), [("y", np.int64)]),
        (
            helper.make_node("Unique", ["x"], ["y", "i", "v", "c"], sorted=0),
            [("y", np.float32), ("i", np.int64), ("v", np.int64), ("c", np.int64)],
        ),
        (
            helper.make_node("Unique", ["x"], ["y", "i", "v", "c"], axis=1),
            [("y", np.float32), ("i", np.int64), ("v", np.int64), ("c", np.int64)],
        ),
    ]
    for node, outputs in cases:
        model = _model(node, [("x", np.float32, ["n", 4])], outputs)
        _check(model, [{"x": x[:n]} for n in (1, 3)], exact=True)
    node = helper.make_node("Compress", ["x", "c"], ["y"], axis=1)
    model = _model(node, [("x", np.float32, ["n", 4]), ("c", np.int64, [3])], [("y", np.float32)])
    model.graph.input[1].type.tensor_type.elem_type = TensorProto.BOOL
    feeds = [{"x": x[:n], "c": np.array([True, False, True])} for n in (1, 3)]
    _check(model, feeds, exact=True)


@pytest.mark.parametrize("zero_type", [np.uint8, np.int8])
@pytest.mark.parametrize("layout", ["tensor", "axis", "blocked"])
def test_quantize_dequantize(zero_type, layout):
    """QuantizeLinear then DequantizeLinear: halves to even, saturation at both ends."""
    scale = {"tensor": np.array(0.5, np.float32), "axis": np.array([0.5, 0.25, 1, 2], np.float32)}
    zero = {"tensor": np.array(3, zero_type), "axis": np.array([0, 1, 2, 3], zero_type)}
    attrs = {"axis": 1} if layout != "blocked" else {"axis": 1, "block_size": 2}
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], **attrs),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], **attrs),
    ]
    inputs = [("x", np.float32, ["n", 4])]
    if layout == "blocked":
        inputs += [("s", np.float32, ["n", 2]), ("z", zero_type, ["n", 2])]
        initializers = []
    else:
        initializers = [("s", scale[layout]), ("z", zero[layout])]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, ELEM[t], d) for n, t, d in inputs],
        [
            helper.make_tensor_value_info("q", ELEM[zero_type], None),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
        ],
        [numpy_helper.from_array(v, n) for n, v in initializers],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    feeds = []
    for n in (1, 3):
        x = (RNG.integers(-600, 600, (n, 4)) / 4).astype(np.float32)  # many exact halves
        feed = {"x": x}
        if layout == "blocked":
            feed["s"] = RNG.choice(np.array([0.5, 0.25, 2], np.float32), (n, 2))
            feed["z"] = RNG.integers(0, 5, (n, 2)).astype(zero_type)
        feeds.append(feed)
    _check(model, feeds, exact=True)


def test_integer_matmuls():
    a_type, b_type = np.uint8, np.int8
    node = helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])
    model = _model(
        node,
        [("a", a_type, ["n", 3]), ("b", b_type, [3, 2])],
        [("y", np.int32)],
        [("az", np.array(7, a_type)), ("bz", np.array([1, -2], b_type))],
    )
    feeds = [
        {
            "a": RNG.integers(0, 256, (n, 3)).astype(a_type),
            "b": RNG.integers(-128, 128, (3, 2)).astype(b_type),
        }
        for n in (1, 4)
    ]
    _check(model, feeds, exact=True)
    names = ["a", "as", "az", "b", "bs", "bz", "ys", "yz"]
    node = helper.make_node("QLinearMatMul", names, ["y"])
    model = _model(
        node,
        [("a", a_type, ["n", 3]), ("b", a_type, [3, 2])],
        [("y", a_type)],
        [
            ("as", np.array(0.05, np.float32)),
            ("az", np.array(100, a_type)),
            ("bs", np.array(0.02, np.float32)),
            ("bz", np.array(120, a_type)),
            ("ys", np.array(0.3, np.float32)),
            ("yz", np.array(110, a_type)),
        ],
    )
    feeds = [
        {
            "a": RNG.integers(0, 256, (n, 3)).astype(a_type),
            "b": RNG.integers(0, 256, (3, 2)).astype(a_type),
        }
        for n in (1, 4)
    ]
    _check(model, feeds, exact=True)


@pytest.mark.parametrize("center", [0, 1])
def test_non_max_suppression(center):
    node = helper.make_node(
        "NonMaxSuppression", ["b", "s", "m", "iou", "t"], ["y"], center_point_box=center
    )
    model = _model(
        node,
        [("b", np.float32, [1, "n", 4]), ("s", np.float32, [1, 2, "n"])],
        [("y", np.int64)],
        [
            ("m", np.array([2], np.int64)),
            ("iou", np.array([0.4], np.float32)),
            ("t", np.array([0.1], np.float32)),
        ],
    )
    feeds = []
    for n in (3, 6):
        boxes = (RNG.integers(0, 12, (1, n, 4)) / 4).astype(np.float32)
        scores = (RNG.integers(0, 8, (1, 2, n)) / 8).astype(np.float32)  # ties by position
        feeds.append({"b": boxes, "s": scores})
    _check(model, feeds, exact=True)


def test_det():
    nodes = [helper.make_node("Det", [f"x{k}"], [f"y{k}"]) for k in (1, 2, 3)]
    model = _model(
        nodes,
        [(f"x{k}", np.float32, ["n", k, k]) for k in (1, 2, 3)],
        [(f"y{k}", np.float32) for k in (1, 2, 3)],
    )
    feeds = [
        {f"x{k}": RNG.standard_normal((n, k, k)).astype(np.float32) for k in (1, 2, 3)}
        for n in (1, 3)
    ]
    _check(model, feeds)


def test_integer_convolutions():
    u8 = np.uint8
    nodes = [
        helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["q"]),
    ]
    model = _model(
        nodes,
        [("x", u8, ["n", 2, 4, 4])],
        [("c", np.int32), ("q", u8)],
        [
            ("w", RNG.integers(0, 256, (3, 2, 3, 3)).astype(u8)),
            ("xz", np.array(128, u8)),
            ("wz", np.array(100, u8)),
            ("xs", np.array(0.02, np.float32)),
            ("ws", np.array([0.01, 0.02, 0.03], np.float32)),
            ("ys", np.array(0.5, np.float32)),
            ("yz", np.array(120, u8)),
            ("b", np.array([5, -7, 100], np.int32)),
        ],
    )
    feeds = [{"x": RNG.integers(0, 256, (n, 2, 4, 4)).astype(u8)} for n in (1, 2)]
    _check(model, feeds, exact=True)
