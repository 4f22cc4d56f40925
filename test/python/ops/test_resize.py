"""``relax.resize`` and ``relax.grid_sample``: their reference kernels against onnx's
reference implementations of Resize (every mode, coordinate transformation, rounding,
scale or size, region and axis choice) and GridSample (every mode, padding and
align_corners, 2-D and 3-D); and the deduction property tests (the reference result
has the deduced shape and dtype, less specific operand types deduce a type containing
it)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opcheck import Case, bindings, bool_attr, ints
from test_deduce_reference import run, seeds, tensor_operand
from xdsl.dialects.builtin import FloatAttr, StringAttr, f64

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, ShapeType, TensorType
from xrelax.ops.resize import (
    COORDINATE_MODES,
    MODES,
    NEAREST_MODES,
    PADDING_MODES,
    GridSampleOp,
    ResizeOp,
)

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

F32, F64, I32 = dtypes.F32, dtypes.F64, dtypes.I32


@st.composite
def resizes(draw, rank: int = 4):
    """A Resize: x, its attributes, scales or sizes, roi and axes."""
    rng = draw(seeds())
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 2))]
    shape += [draw(st.integers(1, 5)) for _ in range(rank - 2)]
    attrs = {
        "mode": draw(st.sampled_from(MODES)),
        "coordinate_transformation_mode": draw(st.sampled_from(COORDINATE_MODES)),
        "nearest_mode": draw(st.sampled_from(NEAREST_MODES)),
        "exclude_outside": int(draw(st.booleans())),
        "cubic_coeff_a": draw(st.sampled_from([-0.75, -0.5])),
        "extrapolation_value": draw(st.sampled_from([0.0, 2.5])),
    }
    axes = draw(
        st.sampled_from([list(range(rank)), list(range(2, rank)), sorted({rank - 1, 2})[::-1]])
    )
    if draw(st.booleans()):
        scales = [draw(st.sampled_from([0.5, 0.6, 0.8, 1.0, 1.5, 2.0, 2.3])) for _ in axes]
        scales = [
            float(np.float32(s)) if a >= 2 else 1.0 for s, a in zip(scales, axes, strict=True)
        ]
        out = list(shape)
        for s, a in zip(scales, axes, strict=True):
            out[a] = int(np.float64(s) * shape[a])
        if min(out) < 1:
            scales = [1.0] * len(axes)
            out = list(shape)
        sizes = None
    else:
        scales = None
        sizes = [draw(st.integers(1, 7)) if a >= 2 else shape[a] for a in axes]
        out = list(shape)
        for size, a in zip(sizes, axes, strict=True):
            out[a] = size
    roi = None
    if attrs["coordinate_transformation_mode"] == "tf_crop_and_resize":
        starts = [draw(st.sampled_from([0.0, 0.1, -0.2, 0.4])) for _ in axes]
        ends = [draw(st.sampled_from([1.0, 0.9, 1.2, 0.6])) for _ in axes]
        roi = [float(np.float32(v)) for v in starts + ends]
    x = rng.uniform(-3, 3, size=shape).astype(np.float32)
    return x, attrs, axes, scales, sizes, out, roi


def onnx_resize(x, attrs, axes, scales, sizes, roi) -> np.ndarray:
    """onnx's reference Resize (opset 19)."""
    names = ["x", "roi" if roi else "", "scales" if scales else "", "sizes" if sizes else ""]
    node = helper.make_node("Resize", names, ["y"], axes=axes, **attrs)
    feeds = {"x": x}
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)]
    for name, value, kind, dtype in (
        ("roi", roi, TensorProto.FLOAT, np.float32),
        ("scales", scales, TensorProto.FLOAT, np.float32),
        ("sizes", sizes, TensorProto.INT64, np.int64),
    ):
        if value:
            feeds[name] = np.array(value, dtype)
            inputs.append(helper.make_tensor_value_info(name, kind, None))
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([node], "resize", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    return ReferenceEvaluator(model).run(None, feeds)[0]


def spec_resize(x, attrs, axes, scales, sizes, roi) -> np.ndarray:
    """Resize as the ONNX spec and onnxruntime define it: onnx's reference, except that
    pytorch_half_pixel samples an output axis of length 1 at 0 (the reference: at -0.5).
    There the axes are resized one at a time, such an axis with align_corners (which
    also samples it at 0)."""
    if attrs["coordinate_transformation_mode"] != "pytorch_half_pixel":
        return onnx_resize(x, attrs, axes, scales, sizes, roi)
    for i, axis in enumerate(axes):
        size = sizes[i] if sizes else int(np.float64(scales[i]) * x.shape[axis])
        mode = "align_corners" if size == 1 else "pytorch_half_pixel"
        x = onnx_resize(
            x,
            {**attrs, "coordinate_transformation_mode": mode},
            [axis],
            [scales[i]] if scales else None,
            [size] if sizes else None,
            None,
        )
    return x


def relax_props(attrs: dict, axes: list[int]) -> dict:
    return {
        "mode": StringAttr(attrs["mode"]),
        "axes": ints(*axes),
        "coordinate_transformation_mode": StringAttr(attrs["coordinate_transformation_mode"]),
        "nearest_mode": StringAttr(attrs["nearest_mode"]),
        "exclude_outside": bool_attr(bool(attrs["exclude_outside"])),
        "cubic_coeff_a": FloatAttr(attrs["cubic_coeff_a"], f64),
        "extrapolation_value": FloatAttr(attrs["extrapolation_value"], f64),
    }


def relax_parameters(x, axes, scales, out, roi) -> list[np.ndarray]:
    """The scales and roi operands: scales given, else output / input size when a roi
    needs them."""
    if roi is None:
        return [] if scales is None else [np.array(scales, np.float64)]
    if scales is None:
        scales = [out[a] / x.shape[a] for a in axes]
    return [np.array(scales, np.float64), np.array(roi, np.float32)]


@settings(max_examples=150, deadline=None)
@given(case=resizes())
def test_reference_is_onnx_reference(case):
    x, attrs, axes, scales, sizes, out, roi = case
    expected = spec_resize(x, attrs, axes, scales, sizes, roi)
    parameters = relax_parameters(x, axes, scales, out, roi)
    got = ResizeOp.reference([x, tuple(out), *parameters], relax_props(attrs, axes))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@given(data=st.data())
def test_deduction(data):
    x, attrs, axes, scales, sizes, out, roi = data.draw(resizes(rank=data.draw(st.integers(3, 5))))
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = F32 if attrs["mode"] != "nearest" else data.draw(st.sampled_from([F32, I32]))
    x_type, x_value = data.draw(tensor_operand(x.shape, dtype, env, rng))
    kept = [x_type.dims[a] for a in range(x.ndim)]
    dims = [kept[a] if a not in axes else out[a] for a in range(x.ndim)]
    parameters = relax_parameters(x, axes, scales, out, roi)
    types = [x_type, ShapeType.of(dims)]
    types += [TensorType.of([len(p)], dtypes.from_numpy(p.dtype)) for p in parameters]
    case = Case(ResizeOp, types, relax_props(attrs, axes), [x_value, tuple(out), *parameters], env)
    run(case, data)


def test_provable_errors():
    x = TensorType.of([2, 3, 4], F32)
    props = {"mode": StringAttr("linear"), "axes": ints(2)}
    with pytest.raises(RelaxError, match="axis 1, not resampled, to keep its size"):
        ResizeOp.deduction([x, ShapeType.of([2, 5, 8])], props)
    with pytest.raises(RelaxError, match=r"expected scales of shape \[1\]"):
        ResizeOp.deduction([x, ShapeType.of([2, 3, 8]), TensorType.of([2], F64)], props)
    with pytest.raises(RelaxError, match="exactly for tf_crop_and_resize"):
        crop = {**props, "coordinate_transformation_mode": StringAttr("tf_crop_and_resize")}
        ResizeOp.deduction([x, ShapeType.of([2, 3, 8])], crop)
    with pytest.raises(RelaxError, match="'mode' to be one of"):
        ResizeOp.deduction([x, ShapeType.of([2, 3, 8])], {"mode": StringAttr("area")})
    ints_x = TensorType.of([2, 3, 4], I32)
    with pytest.raises(RelaxError):
        ResizeOp.deduction([ints_x, ShapeType.of([2, 3, 8])], props)


@st.composite
def grid_samples(draw):
    """A GridSample: x, grid and the attributes."""
    rng = draw(seeds())
    spatial = draw(st.integers(1, 3))
    mode = draw(st.sampled_from(MODES))
    attrs = {
        "mode": mode,
        "padding_mode": draw(st.sampled_from(PADDING_MODES)),
        "align_corners": int(draw(st.booleans())),
    }
    batch = draw(st.integers(1, 2))
    sizes = [draw(st.integers(2, 4)) for _ in range(spatial)]
    x = rng.uniform(-3, 3, size=[batch, draw(st.integers(1, 2)), *sizes]).astype(np.float32)
    out = [draw(st.integers(1, 3)) for _ in range(spatial)]
    grid = rng.uniform(-1.6, 1.6, size=[batch, *out, spatial]).astype(np.float32)
    return x, grid, attrs


def grid_props(attrs: dict) -> dict:
    return {
        "mode": StringAttr(attrs["mode"]),
        "padding_mode": StringAttr(attrs["padding_mode"]),
        "align_corners": bool_attr(bool(attrs["align_corners"])),
    }


@settings(max_examples=100, deadline=None)
@given(case=grid_samples())
def test_grid_sample_reference_is_onnx_reference(case):
    x, grid, attrs = case
    if (attrs["mode"], attrs["padding_mode"]) == ("cubic", "border"):
        # onnx's reference clamps the coordinate, relax (as onnxruntime) each tap.
        attrs = {**attrs, "padding_mode": "zeros"}
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], **attrs)
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("x", "grid")]
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([node], "grid_sample", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    expected = ReferenceEvaluator(model).run(None, {"x": x, "grid": grid})[0]
    got = GridSampleOp.reference([x, grid], grid_props(attrs))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@given(data=st.data())
def test_grid_sample_deduction(data):
    x, grid, attrs = data.draw(grid_samples())
    env, rng = data.draw(bindings()), data.draw(seeds())
    x_type, x_value = data.draw(tensor_operand(x.shape, F32, env, rng))
    grid_type, grid_value = data.draw(tensor_operand(grid.shape, F32, env, rng, -1.5, 1.5))
    case = Case(GridSampleOp, [x_type, grid_type], grid_props(attrs), [x_value, grid_value], env)
    run(case, data)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("exclude_outside", [False, True])
def test_pytorch_half_pixel_samples_an_output_of_one_at_zero(mode, exclude_outside):
    # The ONNX spec (x_original = 0 when length_resized is 1), as onnxruntime computes
    # it: a 3x3 image resized to 1x1 is its first pixel in every mode.
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    attrs = {
        "mode": mode,
        "coordinate_transformation_mode": "pytorch_half_pixel",
        "nearest_mode": "round_prefer_floor",
        "exclude_outside": int(exclude_outside),
        "cubic_coeff_a": -0.75,
        "extrapolation_value": 0.0,
    }
    got = ResizeOp.reference([x, (1, 1, 1, 1)], relax_props(attrs, [2, 3]))
    np.testing.assert_array_equal(got, [[[[1.0]]]])
