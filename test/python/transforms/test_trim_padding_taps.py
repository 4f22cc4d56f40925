"""Kernel taps that read only padding are cut from bound convolution weights
(``relax-fold-constant``'s TrimPaddingTaps): over random geometries, the program
compiled with the weights bound gives what it gives with the weights passed at run
time (the full convolution)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import xrelax
from xrelax.ops.nn import Conv1dOp, Conv2dOp

T = "!relax.tensor"


@st.composite
def geometries(draw):
    spatial = draw(st.sampled_from([1, 2]))
    sizes = [draw(st.integers(1, 4)) for _ in range(spatial)]
    kernel = [draw(st.integers(1, 5)) for _ in range(spatial)]
    strides = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilation = [draw(st.integers(1, 2)) for _ in range(spatial)]
    before = [draw(st.integers(0, 4)) for _ in range(spatial)]
    after = [draw(st.integers(0, 4)) for _ in range(spatial)]
    for size, k, d, b, a in zip(sizes, kernel, dilation, before, after, strict=True):
        if size + b + a < d * (k - 1) + 1:  # the window must fit
            return draw(geometries())
    return spatial, sizes, kernel, strides, dilation, before + after


@given(geometry=geometries(), seed=st.integers(0, 2**16))
def test_bound_convolution_with_padding_taps_cut_matches_the_full_weights(geometry, seed):
    spatial, sizes, kernel, strides, dilation, padding = geometry
    op = {1: Conv1dOp, 2: Conv2dOp}[spatial]
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (2, 3, *sizes)).astype(np.float32)
    w = rng.uniform(-1, 1, (4, 3, *kernel)).astype(np.float32)
    props = {"strides": strides, "padding": padding, "dilation": dilation}
    attrs = ", ".join(f"{k} = array<i64: {', '.join(map(str, v))}>" for k, v in props.items())
    half = len(padding) // 2
    out = [
        (n + b + a - d * (k - 1) - 1) // s + 1
        for n, k, s, d, b, a in zip(
            sizes, kernel, strides, dilation, padding[:half], padding[half:], strict=True
        )
    ]
    xt, wt, ot = (f"{T}<[{', '.join(map(str, s))}], f32>" for s in (x.shape, w.shape, [2, 4, *out]))
    text = f"""
    relax.func @main(%x: {xt}, %w: {wt}) -> {ot} {{
      %c = {op.name} %x, %w {{{attrs}}} : ({xt}, {wt})
      relax.return %c : {ot}
    }}
    """
    module = xrelax.parse(text)
    expected = xrelax.VirtualMachine(xrelax.compile(module))["main"](x, w)
    exe = xrelax.compile(module, params={"w": w})
    got = xrelax.VirtualMachine(exe)["main"](x)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
