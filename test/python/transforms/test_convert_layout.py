"""Channels-last layouts: ``relax.conv2d`` and 2-D pooling with ``data_layout`` /
``layout`` give the channels-first results, transposed; a small convolution network
compiled with ``relax-convert-layout`` gives torch's numbers."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F  # noqa: N812

import xrelax
from xrelax.dialects.ir.diagnostics import CompileError
from xrelax.ops.nn import AvgPool2dOp, Conv2dOp
from xrelax.transforms.bind_params import bind_params
from xrelax.transforms.relax_to_vm import DEFAULT_PIPELINE

T = "!relax.tensor"


def _run(text: str, *args: np.ndarray, pipeline: str = "relax-to-vm", **params: np.ndarray):
    exe = xrelax.compile(xrelax.parse(text), pipeline=pipeline, params=params or None)
    return xrelax.VirtualMachine(exe)["main"](*args)


def _dims(shape: tuple[int, ...]) -> str:
    return ", ".join(map(str, shape))


@pytest.mark.parametrize(
    ("batch", "channels", "size", "out", "kernel", "stride", "padding", "dilation", "groups"),
    [
        (2, 8, 9, 16, 3, 1, (1, 1), 1, 1),
        (1, 8, 10, 8, 3, 2, (1, 1), 1, 8),
        (2, 6, 7, 4, 1, 1, (0, 0), 1, 1),
        (1, 4, 8, 6, 3, 1, (0, 0), 2, 2),
        (2, 3, 11, 5, 5, 2, (2, 1), 1, 1),
        (1, 12, 9, 12, 7, 1, (3, 3), 1, 12),
    ],
)
def test_channels_last_conv_and_pool(
    batch, channels, size, out, kernel, stride, padding, dilation, groups
) -> None:
    """conv2d NHWC/HWIO then max_pool2d NHWC, against torch's NCHW result transposed."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, channels, size, size)).astype(np.float32)
    w = rng.standard_normal((out, channels // groups, kernel, kernel)).astype(np.float32)
    conv = F.conv2d(
        torch.from_numpy(x),
        torch.from_numpy(w),
        stride=stride,
        padding=padding[0],
        dilation=dilation,
        groups=groups,
    )
    if padding[1] != padding[0]:  # asymmetric: TVM's (top, left, bottom, right)
        conv = F.conv2d(
            F.pad(torch.from_numpy(x), (padding[0], padding[1], padding[0], padding[1])),
            torch.from_numpy(w),
            stride=stride,
            dilation=dilation,
            groups=groups,
        )
    want = F.max_pool2d(conv, 2, 1).numpy().transpose(0, 2, 3, 1)
    x_type = f"{T}<[{_dims((batch, size, size, channels))}], f32>"
    w_type = f"{T}<[{_dims((kernel, kernel, channels // groups, out))}], f32>"
    c_shape = (batch, conv.shape[2], conv.shape[3], out)
    c_type = f"{T}<[{_dims(c_shape)}], f32>"
    p_type = f"{T}<[{_dims(want.shape)}], f32>"
    pads = f"{padding[0]}, {padding[0]}, {padding[1]}, {padding[1]}"
    text = f"""
relax.func @main(%x: {x_type}, %w: {w_type}) -> {p_type} {{
  %c = relax.conv2d %x, %w {{strides = array<i64: {stride}, {stride}>, padding = array<i64: {pads}>, dilation = array<i64: {dilation}, {dilation}>, groups = {groups} : i64, data_layout = "NHWC", kernel_layout = "HWIO"}} : ({x_type}, {w_type}) -> {c_type}
  %p = relax.max_pool2d %c {{pool_size = array<i64: 2, 2>, layout = "NHWC"}} : ({c_type}) -> {p_type}
  relax.return %p : {p_type}
}}"""
    nhwc, hwio = x.transpose(0, 2, 3, 1).copy(), w.transpose(2, 3, 1, 0).copy()
    np.testing.assert_allclose(_run(text, nhwc, hwio), want, rtol=1e-5, atol=1e-4)
    (op,) = [op for op in xrelax.parse(text).walk() if isinstance(op, Conv2dOp)]
    reference = Conv2dOp.reference([nhwc, hwio], dict(op.properties))
    np.testing.assert_allclose(reference, conv.numpy().transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-4)


def test_channels_last_avg_pool_and_reference() -> None:
    """avg_pool2d NHWC (padding not counted), compiled and by its reference (folded)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 7, 7)).astype(np.float32)
    want = F.avg_pool2d(torch.from_numpy(x), 3, 2, 1, count_include_pad=False).numpy()
    want = want.transpose(0, 2, 3, 1)
    text = f"""
relax.func @main(%x: {T}<[2, 7, 7, 5], f32>) -> {T}<[2, 4, 4, 5], f32> {{
  %p = relax.avg_pool2d %x {{pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, layout = "NHWC"}} : ({T}<[2, 7, 7, 5], f32>) -> {T}<[2, 4, 4, 5], f32>
  relax.return %p : {T}<[2, 4, 4, 5], f32>
}}"""
    nhwc = x.transpose(0, 2, 3, 1).copy()
    np.testing.assert_allclose(_run(text, nhwc), want, rtol=1e-5, atol=1e-6)
    module = xrelax.parse(text)
    (pool,) = [op for op in module.walk() if isinstance(op, AvgPool2dOp)]
    reference = AvgPool2dOp.reference([nhwc], dict(pool.properties))
    np.testing.assert_allclose(reference, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("prop", "value", "message"),
    [
        ("data_layout", "NCHX", "expected 'data_layout' to be an order of the axes NCHW"),
        ("kernel_layout", "OIH", "expected 'kernel_layout' to be an order of the axes OIHW"),
    ],
)
def test_bad_layout_is_a_located_error(prop: str, value: str, message: str) -> None:
    text = f"""
relax.func @main(%x: {T}<[1, 4, 4, 2], f32>, %w: {T}<[1, 1, 2, 3], f32>) -> {T}<[1, 4, 4, 3], f32> {{
  %c = relax.conv2d %x, %w {{{prop} = "{value}"}} : ({T}<[1, 4, 4, 2], f32>, {T}<[1, 1, 2, 3], f32>) -> {T}<[1, 4, 4, 3], f32>
  relax.return %c : {T}<[1, 4, 4, 3], f32>
}}"""
    with pytest.raises(CompileError, match=message) as err:
        xrelax.parse(text)
    assert ":3:" in str(err.value).splitlines()[0]


# A ResNet-like block and a depthwise block, NCHW, weights bound at compile time.
NET = f"""
relax.func @main(%x: {T}<[n, 3, 12, 12], f32>, %w1: {T}<[8, 3, 3, 3], f32>, %b1: {T}<[8, 1, 1], f32>, %w2: {T}<[8, 8, 3, 3], f32>, %wd: {T}<[8, 1, 3, 3], f32>, %wp: {T}<[4, 8, 1, 1], f32>) -> {T}<[n, 4], f32> {{
  %y = relax.dataflow -> {T}<[n, 4], f32> {{
    %c1 = relax.conv2d %x, %w1 {{padding = array<i64: 1, 1>}} : ({T}<[n, 3, 12, 12], f32>, {T}<[8, 3, 3, 3], f32>)
    %a1 = relax.add %c1, %b1 : ({T}<[n, 8, 12, 12], f32>, {T}<[8, 1, 1], f32>)
    %r1 = relax.relu %a1 : ({T}<[n, 8, 12, 12], f32>)
    %p1 = relax.max_pool2d %r1 {{pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}} : ({T}<[n, 8, 12, 12], f32>)
    %c2 = relax.conv2d %p1, %w2 {{padding = array<i64: 1, 1>}} : ({T}<[n, 8, 6, 6], f32>, {T}<[8, 8, 3, 3], f32>)
    %s2 = relax.add %c2, %p1 : ({T}<[n, 8, 6, 6], f32>, {T}<[n, 8, 6, 6], f32>)
    %r2 = relax.relu %s2 : ({T}<[n, 8, 6, 6], f32>)
    %d = relax.conv2d %r2, %wd {{strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 8 : i64}} : ({T}<[n, 8, 6, 6], f32>, {T}<[8, 1, 3, 3], f32>)
    %h = relax.sigmoid %d : ({T}<[n, 8, 3, 3], f32>)
    %e = relax.multiply %d, %h : ({T}<[n, 8, 3, 3], f32>, {T}<[n, 8, 3, 3], f32>)
    %q = relax.conv2d %e, %wp : ({T}<[n, 8, 3, 3], f32>, {T}<[4, 8, 1, 1], f32>)
    %m = relax.mean %q {{axis = array<i64: 2, 3>, keepdims = true}} : ({T}<[n, 4, 3, 3], f32>)
    %flat = relax.squeeze %m {{axis = array<i64: 2, 3>}} : ({T}<[n, 4, 1, 1], f32>)
    relax.output %flat : {T}<[n, 4], f32>
  }}
  relax.return %y : {T}<[n, 4], f32>
}}
"""


def _torch_net(x: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
    t = {k: torch.from_numpy(v) for k, v in w.items()}
    y = F.relu(F.conv2d(torch.from_numpy(x), t["w1"], padding=1) + t["b1"])
    p = F.max_pool2d(y, 3, 2, 1)
    r = F.relu(F.conv2d(p, t["w2"], padding=1) + p)
    d = F.conv2d(r, t["wd"], stride=2, padding=1, groups=8)
    q = F.conv2d(d * torch.sigmoid(d), t["wp"])
    return q.mean(dim=(2, 3)).numpy()


def test_network_with_and_without_the_pass() -> None:
    """The compiled network gives torch's result with and without relax-convert-layout,
    and the pass leaves permutes at the network's input and output only."""
    rng = np.random.default_rng(2)
    shapes = {"w1": (8, 3, 3, 3), "b1": (8, 1, 1), "w2": (8, 8, 3, 3), "wd": (8, 1, 3, 3)}
    shapes["wp"] = (4, 8, 1, 1)
    weights = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
    x = rng.standard_normal((2, 3, 12, 12)).astype(np.float32)
    want = _torch_net(x, weights)
    passes = list(DEFAULT_PIPELINE)
    at = passes.index("relax-fold-constant") + 1
    converted = ",".join(
        [*passes[:at], "relax-convert-layout", "relax-fold-constant", *passes[at:]]
    )
    for pipeline in ("relax-to-vm", converted):
        got = _run(NET, x, pipeline=pipeline, **weights)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    module = xrelax.parse(NET)
    bind_params(module, weights)
    module = xrelax.apply(module, "relax-fold-constant,relax-convert-layout,relax-fold-constant")
    ops = [op.name for op in module.walk()]
    assert ops.count("relax.permute_dims") == 2
    assert [
        op.properties["data_layout"].data for op in module.walk() if op.name == "relax.conv2d"
    ] == ["NHWC"] * 4
