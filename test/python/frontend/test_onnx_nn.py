"""The ONNX neural-network converters of frontend/onnx_nn.py against onnxruntime, with a
symbolic batch and symbolic spatial sizes, each model run at two sizes: N-d and
transposed convolutions, N-d pooling (dilations, ceil_mode, the indices and MaxUnpool),
LpPool, LpNormalization, Resize and GridSample."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from test_onnx_ops import _check  # noqa: E402

RNG = np.random.default_rng(11)


def _model(nodes, inputs, outputs, initializers=(), opset: int = 19) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in initializers],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _weights(*shape: int) -> np.ndarray:
    return (RNG.standard_normal(shape) * 0.5).astype(np.float32)


CONVOLUTIONS = {
    "conv3d": (
        helper.make_node("Conv", ["x", "w", "b"], ["y"], strides=[1, 2, 1], pads=[1, 0, 1, 1, 0, 0],
                         dilations=[1, 1, 2], group=2),
        _weights(4, 1, 2, 3, 2), 2, 4,
    ),
    "conv-same-upper": (
        helper.make_node("Conv", ["x", "w", "b"], ["y"], auto_pad="SAME_UPPER"),
        _weights(3, 2, 2, 3), 2, 3,
    ),
    "conv_transpose2d": (
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 3],
                         pads=[1, 0, 0, 2], output_padding=[1, 2], dilations=[1, 2], group=2),
        _weights(2, 3, 3, 2), 2, 6,
    ),
    "conv_transpose1d": (
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2], pads=[1, 1]),
        _weights(2, 4, 3), 2, 4,
    ),
    "conv_transpose3d": (
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[1, 2, 2]),
        _weights(2, 2, 2, 1, 2), 2, 2,
    ),
}  # fmt: skip
"""Each node, its weights, and its input and output channels."""


@pytest.mark.parametrize("name", CONVOLUTIONS)
def test_convolution(name: str) -> None:
    node, weight, channels, outputs = CONVOLUTIONS[name]
    spatial = weight.ndim - 2
    model = _model(
        [node],
        [("x", ["N", channels, *["H", "W", "D"][:spatial]])],
        ["y"],
        [("w", weight), ("b", _weights(outputs))],
    )
    _check(
        model, [[(1, channels, *[4 + k for k in range(spatial)])], [(2, channels, *[5] * spatial)]]
    )


POOLS = {
    "maxpool3d": helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 3, 2],
                                  strides=[1, 2, 1], pads=[1, 1, 0, 0, 1, 1],
                                  dilations=[2, 1, 1]),
    "averagepool1d": helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3],
                                      strides=[2], pads=[1, 2], count_include_pad=1),
    "averagepool2d-dilated": helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2],
                                              pads=[1, 1, 1, 1], dilations=[2, 1]),
    "lppool": helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[3, 2], p=3,
                               strides=[2, 1], pads=[1, 0, 1, 1]),
}  # fmt: skip


@pytest.mark.parametrize("name", POOLS)
def test_pooling(name: str) -> None:
    node = POOLS[name]
    rank = len(next(a.ints for a in node.attribute if a.name == "kernel_shape")) + 2
    spatial = ["H", "W", "D"][: rank - 2]
    model = _model([node], [("x", ["N", 3, *spatial])], ["y"])
    _check(model, [[(1, 3, *[5] * (rank - 2))], [(2, 3, *[6 + k for k in range(rank - 2)])]])


def test_max_pool_indices_and_unpool() -> None:
    """MaxPool's indices (row- and column-major), and MaxUnpool putting the maxima back
    (into a larger output_shape onnxruntime places the flat indices as they are, onnx's
    reference, which the conformance case checks, where they were: not compared)."""
    nodes = [
        helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 2], strides=[2, 2],
                         pads=[1, 0, 1, 1]),
        helper.make_node("MaxPool", ["x"], ["z", "j"], kernel_shape=[2, 2], strides=[1, 2],
                         storage_order=1),
        helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["j"], ["fj"], to=TensorProto.FLOAT),
        helper.make_node("MaxPool", ["x"], ["p", "k"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("MaxUnpool", ["p", "k"], ["u"], kernel_shape=[2, 2], strides=[2, 2]),
    ]  # fmt: skip
    model = _model(nodes, [("x", ["N", 2, 6, 8])], ["y", "fi", "z", "fj", "u"])
    _check(model, [[(1, 2, 6, 8)], [(2, 2, 6, 8)]])


def test_lp_normalization() -> None:
    nodes = [
        helper.make_node("LpNormalization", ["x"], ["y"], axis=1, p=1),
        helper.make_node("LpNormalization", ["x"], ["z"], axis=-1, p=2),
    ]
    model = _model(nodes, [("x", ["N", 3, "W"])], ["y", "z"])
    _check(model, [[(1, 3, 4)], [(2, 3, 5)]])


RESIZES = {
    "linear-scales": ({"mode": "linear"}, None, [1, 1, 2, 1.5]),
    "cubic-sizes-axes": (
        {"mode": "cubic", "axes": [3, 2], "coordinate_transformation_mode": "align_corners"},
        [7, 3],
        None,
    ),
    "nearest-asymmetric-floor": (
        {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
        None,
        [1, 1, 3, 0.5],
    ),
    "linear-pytorch-half-pixel": (
        {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"},
        [1, 3, 1, 9],
        None,
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", RESIZES)
def test_resize(name: str) -> None:
    attrs, sizes, scales = RESIZES[name]
    initializers = []
    names = ["x", "", "", ""]
    if scales is not None:
        initializers.append(("scales", np.array(scales, np.float32)))
        names[2] = "scales"
    if sizes is not None:
        initializers.append(("sizes", np.array(sizes, np.int64)))
        names[3] = "sizes"
    node = helper.make_node("Resize", names[: 4 if sizes is not None else 3], ["y"], **attrs)
    batch = 1 if name == "linear-pytorch-half-pixel" else "N"
    model = _model([node], [("x", [batch, 3, "H", "W"])], ["y"], initializers)
    _check(model, [[(1, 3, 4, 6)], [(1 if batch == 1 else 2, 3, 5, 4)]])


@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
def test_grid_sample(mode: str) -> None:
    nodes = [
        helper.make_node("GridSample", ["x", "grid"], [f"y{k}"], mode=mode, padding_mode=padding,
                         align_corners=k % 2)
        for k, padding in enumerate(("zeros", "border", "reflection"))
    ]  # fmt: skip
    model = _model(
        nodes, [("x", ["N", 2, "H", "W"]), ("grid", ["N", "P", "Q", 2])], ["y0", "y1", "y2"], (), 20
    )
    _check(model, [[(1, 2, 4, 5), (1, 3, 2, 2)], [(2, 2, 5, 3), (2, 2, 4, 2)]])


def test_batch_norm_in_training_mode() -> None:
    """Normalised by the batch's statistics, the running ones updated (against onnx's
    reference: onnxruntime's CPU build runs no training mode)."""
    from onnx.reference import ReferenceEvaluator

    from xrelax import VirtualMachine, compile, frontend

    node = helper.make_node(
        "BatchNormalization",
        ["x", "s", "b", "m", "v"],
        ["y", "rm", "rv"],
        training_mode=1,
        momentum=0.8,
        epsilon=1e-3,
    )
    initializers = [(n, _weights(3)) for n in "sbm"] + [("v", np.abs(_weights(3)) + 0.5)]
    model = _model([node], [("x", ["N", 3, "H"])], ["y", "rm", "rv"], initializers, 15)
    imported = frontend.from_onnx(model)
    main = VirtualMachine(compile(imported.module))["main"]
    reference = ReferenceEvaluator(model)
    for shape in ((2, 3, 4), (5, 3, 2)):
        x = RNG.standard_normal(shape).astype(np.float32)
        got = main(x, **imported.params)
        for value, want in zip(got, reference.run(None, {"x": x}), strict=True):
            np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("op", "opset", "mode", "scales"),
    [
        ("Resize", 10, "nearest", [1, 1, 1.5, 2.5]),
        ("Resize", 10, "linear", [1, 1, 0.5, 0.6]),
        ("Upsample", 9, "nearest", [1, 1, 2, 3]),
        ("Upsample", 9, "linear", [1, 1, 1.5, 2.5]),
    ],
)
def test_resize_before_opset_11(op: str, opset: int, mode: str, scales: list) -> None:
    node = helper.make_node(op, ["x", "s"], ["y"], mode=mode)
    model = _model(
        [node], [("x", ["N", 2, "H", "W"])], ["y"], [("s", np.array(scales, np.float32))], opset
    )
    _check(model, [[(1, 2, 4, 5)], [(2, 2, 3, 6)]])


def test_refused_downsampling_before_opset_11() -> None:
    from xrelax.frontend import FrontendError, UnsupportedOperatorsError, from_onnx

    scales = [("s", np.array([1, 1, 0.5, 1], np.float32))]
    resize = helper.make_node("Resize", ["x", "s"], ["y"], mode="nearest")
    with pytest.raises(UnsupportedOperatorsError, match="nearest downsampling before opset 11"):
        from_onnx(_model([resize], [("x", [1, 2, 4, 4])], ["y"], scales, 10))
    upsample = helper.make_node("Upsample", ["x", "s"], ["y"], mode="nearest")
    with pytest.raises(FrontendError, match="expected values >= 1"):
        from_onnx(_model([upsample], [("x", [1, 2, 4, 4])], ["y"], scales, 9))


@pytest.mark.parametrize(
    ("attrs", "image", "block"),
    [
        ({}, [5, 5], [1, 5]),
        ({"strides": [2, 1], "pads": [1, 0, 1, 1], "dilations": [1, 2]}, [6, 5], [2, 2]),
        ({"strides": [2]}, [9], [3]),
    ],
)
def test_col2im(attrs: dict, image: list, block: list) -> None:
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], **attrs)
    strides = attrs.get("strides", [1] * len(image))
    dilations = attrs.get("dilations", [1] * len(image))
    pads = attrs.get("pads", [0] * 2 * len(image))
    count = 1
    for d, size in enumerate(image):
        reach = dilations[d] * (block[d] - 1) + 1
        count *= (size + pads[d] + pads[len(image) + d] - reach) // strides[d] + 1
    rows = 2 * int(np.prod(block))
    initializers = [("image", np.array(image, np.int64)), ("block", np.array(block, np.int64))]
    model = _model([node], [("x", ["N", rows, count])], ["y"], initializers)
    _check(model, [[(1, rows, count)], [(3, rows, count)]])
