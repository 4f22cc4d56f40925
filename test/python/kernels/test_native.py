"""The native kernels (tir-to-llvm + llvmlite) against the numpy kernels: the same
results (bitwise for integers, float tolerance otherwise, numpy's NaN and wrap-around
rules), the same checks and error messages, the numpy fallback where the lowering
does not apply, and the same programs end to end through the VM."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from cffi import FFI
from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp

pytest.importorskip("llvmlite")
pytest.importorskip("cffi")

import te_programs as tp  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import xrelax  # noqa: E402
from xrelax.backends.kernels import KernelError  # noqa: E402
from xrelax.backends.kernels import compiler as numpy_kernels  # noqa: E402
from xrelax.backends.native import compiler as native  # noqa: E402
from xrelax.backends.native import jit as native_jit  # noqa: E402
from xrelax.backends.native.reduction_order import SinkOutputLoopsPass  # noqa: E402
from xrelax.backends.native.register_tiles import plan_tiles  # noqa: E402
from xrelax.backends.native.tir_to_llvm import lower_module  # noqa: E402
from xrelax.dialects import dtypes  # noqa: E402
from xrelax.dialects.tir import ForOp  # noqa: E402
from xrelax.ops import te  # noqa: E402

sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
from random_programs import PACKED_COPY, programs  # noqa: E402

xrelax.register_func(PACKED_COPY, lambda x: x.copy(), override=True)

RNG = np.random.default_rng(0)
F32, F64, I32, I64, I1 = dtypes.F32, dtypes.F64, dtypes.I32, dtypes.I64, dtypes.I1


def both(tensors, name="k"):
    """The numpy and native kernels of a TE program."""
    func, _ = te.create_prim_func(name, tensors)
    return numpy_kernels.compile_prim_func(func), native.compile_prim_func(func)


def run_both(tensors, inputs, out_shapes, out_dtype, syms=()):
    return _run(both(tensors), inputs, out_shapes, out_dtype, syms)


def run_library(text, name, inputs, out_shapes, out_dtype=np.float32):
    """:func:`run_both` for the prim_func ``name`` of a TIR text; its kernel must be
    native throughout."""
    kernels = numpy_kernels.load_library(text)[name], native.load_library(text)[name]
    assert native_paths(kernels[1]) == ["native"]
    return _run(kernels, inputs, out_shapes, out_dtype, ())


def _run(kernels, inputs, out_shapes, out_dtype, syms):
    """(the native kernel, the numpy kernel's outputs, the native one's), every output
    filled with 77 before the call."""
    outs = []
    for k in kernels:
        out = [np.full(s, 77, out_dtype) for s in out_shapes]
        k(*inputs, *out, *syms)
        outs.append(out)
    return kernels[1], outs[0], outs[1]


def assert_same(expected, actual, rtol=1e-6, atol=1e-7):
    for want, got in zip(expected, actual, strict=True):
        assert got.dtype == want.dtype
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
            assert np.array_equal(np.isnan(got), np.isnan(want))
        else:
            np.testing.assert_array_equal(got, want)


def native_paths(kernel) -> list[str]:
    return [p.path for p in kernel.paths]


EDGES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -3.5, 88.0, -100.0], np.float32)


@pytest.mark.parametrize("op", sorted(tp.UNARY))
def test_unary_ops_match_numpy_including_nan_and_inf(op):
    X, Y = tp.unary(op, 2)
    x = RNG.uniform(-3, 3, (7, 9)).astype(np.float32)
    x.flat[: EDGES.size] = EDGES
    kernel, want, got = run_both([X, Y], [x], [x.shape], np.float32)
    assert native_paths(kernel) == ["native"]
    assert_same(want, got, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize(
    ("op", "dtype"),
    # Integer division takes the numpy kernel (test_integer_division_...).
    [
        (op, t)
        for op in sorted(tp.BINARY)
        for t in (F32, F64, I32, I64)
        if not (op == "divide" and dtypes.is_integer(t))
    ],
)
def test_binary_broadcast_ops_match_numpy(op, dtype):
    n = tp.sym("n")
    fn, _ = tp.BINARY[op]
    A, B, C = tp.binary(fn, [n, 5], [5], dtype=dtype)
    npd = dtypes.numpy_dtype(dtype)
    if npd.kind == "f":
        a = RNG.uniform(0.5, 2, (4, 5)).astype(npd)
        b = RNG.uniform(0.5, 2, 5).astype(npd)
        a.flat[:3] = [np.nan, np.inf, -0.0]
    else:
        info = np.iinfo(npd)
        a = RNG.integers(-5, 6, (4, 5)).astype(npd)
        b = RNG.integers(0, 4, 5).astype(npd)
        a.flat[:2] = [info.max, info.min]  # products and sums wrap around, as numpy's
    kernel, want, got = run_both([A, B, C], [a, b], [(4, 5)], npd)
    assert "native" in native_paths(kernel) or op == "power" and npd.kind == "i"
    assert_same(want, got)


@pytest.mark.parametrize("op", sorted(tp.COMPARE))
def test_comparisons_write_numpy_bools(op):
    fn, _ = tp.COMPARE[op]
    A, B, C = tp.binary(fn, [6], [6])
    a = np.array([1, 2, np.nan, 0.0, -0.0, np.inf], np.float32)
    b = np.array([1, 3, np.nan, -0.0, 0.0, 1.0], np.float32)
    kernel, want, got = run_both([A, B, C], [a, b], [(6,)], np.bool_)
    assert native_paths(kernel) == ["native"]
    assert_same(want, got)


@pytest.mark.parametrize("op", sorted(tp.COMPARE))
def test_comparisons_of_bools_order_false_before_true(op):
    # numpy's order (and the numpy kernels'): a signed i1 comparison reads True as -1.
    fn, _ = tp.COMPARE[op]
    A, B, C = tp.binary(fn, [4], [4], dtype=I1)
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    kernel, want, got = run_both([A, B, C], [a, b], [(4,)], np.bool_)
    assert native_paths(kernel) == ["native"]
    assert_same(want, got)


@pytest.mark.parametrize("combiner", ["sum", "max", "min", "prod"])
@pytest.mark.parametrize("dtype", [F32, I32])
def test_reductions_over_the_innermost_axis(combiner, dtype):
    n, m = tp.sym("n"), tp.sym("m")
    A = te.placeholder([n, m], dtype, "A")
    k = te.reduce_axis(0, m, "k")
    S = te.compute([n], lambda i: getattr(te, combiner)(A[i, k], k), "S")
    npd = dtypes.numpy_dtype(dtype)
    if npd.kind == "f":
        a = RNG.uniform(0.5, 1.5, (6, 300)).astype(npd)
        a[1, 7] = np.nan  # max and min propagate NaN, as numpy's
        a[2, 9] = np.inf
    else:
        a = RNG.integers(-9, 10, (6, 300)).astype(npd)  # products wrap around
    kernel, want, got = run_both([A, S], [a], [(6,)], npd)
    assert native_paths(kernel) == ["native"]
    # Sums and products are reassociated (vectorized): the float tolerance of 300 terms.
    assert_same(want, got, rtol=2e-5)


def test_integer_division_keeps_the_numpy_kernel_and_its_zero_rule():
    A = te.placeholder([4], I32, "A")
    B = te.placeholder([4], I32, "B")
    C = te.compute([4], lambda i: te.floordiv(A[i], B[i]), "C")
    reference, kernel = both([A, B, C], "div")
    assert kernel.paths[0].path == "numpy" and "floordivsi" in kernel.paths[0].detail
    a = np.array([7, -7, 5, np.iinfo(np.int32).min], np.int32)
    b = np.array([2, 2, 0, -1], np.int32)  # a divisor of 0 gives 0 (docs/semantics.md)
    outs = [np.full(4, 9, np.int32) for _ in range(2)]
    reference(a, b, outs[0])
    kernel(a, b, outs[1])
    np.testing.assert_array_equal(outs[1], outs[0])
    assert outs[1][2] == 0


def test_signature_checks_and_messages_are_the_numpy_kernels():
    n = tp.sym("n")
    A, B, C = tp.binary(lambda a, b: a + b, [n, 3], [3])
    reference, kernel = both([A, B, C], "add")
    bad_calls = [
        (np.ones((2, 3), np.float32), np.ones(4, np.float32), np.empty((2, 3), np.float32)),
        (np.ones((2, 3), np.float64), np.ones(3, np.float32), np.empty((2, 3), np.float32)),
        (np.ones((2, 3), np.float32), np.ones(3, np.float32)),
        (np.ones((2, 3), np.float32), np.ones(3, np.float32), np.empty((3, 3), np.float32)),
    ]
    for args in bad_calls:
        messages = []
        for k in (reference, kernel):
            with pytest.raises(KernelError) as err:
                k(*args)
            messages.append(str(err.value))
        assert messages[0] == messages[1]


ASSERTING = """
tir.prim_func @checked(%X: !tir.buffer<[n], f32>, %Y: !tir.buffer<[n], f32>) {
  tir.assert [n] <= [4], "n is at most 4"
  tir.for i in [0, n) {
    %x = tir.load %X[i] : f32
    tir.store %Y[i], %x : f32
  }
}
"""


def test_a_failed_assert_raises_the_numpy_kernels_error():
    reference = numpy_kernels.load_library(ASSERTING)["checked"]
    kernel = native.load_library(ASSERTING)["checked"]
    assert native_paths(kernel) == ["native"]
    x = np.arange(3, dtype=np.float32)
    y = np.zeros(3, np.float32)
    kernel(x, y)
    np.testing.assert_array_equal(y, x)
    messages = []
    for k in (reference, kernel):
        with pytest.raises(KernelError) as err:
            k(np.arange(5, dtype=np.float32), np.zeros(5, np.float32))
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "n is at most 4" in messages[0]


PADDED = """
tir.prim_func @shifted(%X: !tir.buffer<[n, m], f32>, %Y: !tir.buffer<[n, m], f32>) {
  %p = arith.constant -5.000000e+00 : f32
  %T = tir.alloc_buffer : !tir.buffer<[n, m], f32>
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %x = tir.load %X[i - 1, j + 2] pad %p : f32
      tir.store %T[i, j], %x : f32
    }
  }
  tir.for i2 in [0, n) {
    tir.for j2 in [0, m) {
      %t = tir.load %T[i2, j2] : f32
      %u = tir.load %X[i2, m - 1 - j2] : f32
      %s = arith.addf %t, %u : f32
      tir.store %Y[i2, j2], %s : f32
    }
  }
}
"""


@pytest.mark.parametrize("shape", [(3, 5), (1, 1), (0, 4), (4, 0)])
def test_padded_loads_local_buffers_and_empty_sizes(shape):
    x = RNG.uniform(-1, 1, shape).astype(np.float32)
    _, want, got = run_library(PADDED, "shifted", [x], [shape])
    np.testing.assert_array_equal(got[0], want[0])


STATIC_NESTS = """
tir.prim_func @depthwise(%X: !tir.buffer<[2, 3, 5, 5], f32>, %W: !tir.buffer<[3, 3, 3], f32>, %B: !tir.buffer<[3], f32>, %Y: !tir.buffer<[2, 3, 5, 5], f32>, %Z: !tir.buffer<[2, 3, 5, 5], f32>) {
  tir.for i in [0, 2) {
    tir.for c in [0, 3) {
      tir.for h in [0, 5) {
        tir.for w in [0, 5) {
          %z = arith.constant 0.000000e+00 : f32
          tir.store %Y[i, c, h, w], %z : f32
          tir.for r0 in [0, 3) {
            tir.for r1 in [0, 3) {
              %acc = tir.load %Y[i, c, h, w] : f32
              %p = arith.constant -2.000000e+00 : f32
              %x = tir.load %X[i, c, h + r0 - 1, w + r1 - 1] pad %p : f32
              %k = tir.load %W[c, r0, r1] : f32
              %m = arith.mulf %x, %k : f32
              %s = arith.addf %acc, %m : f32
              tir.store %Y[i, c, h, w], %s : f32
            }
          }
        }
      }
    }
  }
  tir.for i in [0, 2) {
    tir.for c in [0, 3) {
      tir.for h in [0, 5) {
        tir.for w in [0, 5) {
          %y = tir.load %Y[i, c, h, w] : f32
          %b = tir.load %B[c] : f32
          %t = arith.addf %y, %b : f32
          tir.store %Y[i, c, h, w], %t : f32
        }
      }
    }
  }
  tir.for i in [0, 2) {
    tir.for c in [0, 3) {
      tir.for h in [0, 5) {
        tir.for w in [0, 5) {
          %y = tir.load %Y[i, c, h, w] : f32
          %f = tir.load %X[i, c, h, 4 - w] : f32
          %t = arith.mulf %y, %f : f32
          tir.store %Z[i, c, h, w], %t : f32
        }
      }
    }
  }
}
"""


def test_clamped_padded_loads_and_collapsed_nests_match_numpy():
    # The padded load on static axes is clamped, not branched; the bias nest collapses
    # its image loops, the mirrored one (w read backwards) collapses none.
    inputs = [RNG.uniform(-1, 1, s).astype(np.float32) for s in [(2, 3, 5, 5), (3, 3, 3), (3,)]]
    _, want, got = run_library(STATIC_NESTS, "depthwise", inputs, [(2, 3, 5, 5)] * 2)
    assert_same(want, got, rtol=1e-5, atol=1e-6)


def test_a_written_buffer_overlapping_another_runs_the_numpy_kernel(monkeypatch):
    # The machine code takes its buffers to be apart (noalias); a direct call passing
    # one array as input and output runs the numpy kernel, whose result it gets.
    text = """
    tir.prim_func @shift(%X: !tir.buffer<[1000], f32>, %Y: !tir.buffer<[1000], f32>) {
      tir.for i in [0, 1000) {
        %p = arith.constant 0.000000e+00 : f32
        %x = tir.load %X[i - 1] pad %p : f32
        tir.store %Y[i], %x : f32
      }
    }
    """
    kernel = native.load_library(text)["shift"]
    compiled = []
    numpy_compile = numpy_kernels.compile_prim_func
    monkeypatch.setattr(
        numpy_kernels, "compile_prim_func", lambda f: compiled.append(f) or numpy_compile(f)
    )
    a, out = np.arange(1000, dtype=np.float32), np.empty(1000, np.float32)
    kernel(a, out)
    assert compiled == []
    kernel(a, a)
    assert len(compiled) == 1
    np.testing.assert_array_equal(a, np.concatenate([[0], np.arange(999)]).astype(np.float32))


def test_non_contiguous_arguments_and_outputs():
    n = tp.sym("n")
    A, B, C = tp.binary(lambda a, b: a * b, [n, 4], [4])
    reference, kernel = both([A, B, C], "mul")
    a = RNG.uniform(-1, 1, (8, 4)).astype(np.float32)[::2]
    b = RNG.uniform(-1, 1, 8).astype(np.float32)[::2]
    outs = [np.zeros((4, 8), np.float32)[:, ::2] for _ in range(2)]
    reference(a, b, outs[0])
    kernel(a, b, outs[1])
    np.testing.assert_array_equal(outs[1], outs[0])


def _matmul_relu(m, k, n):
    A, B, C = tp.matmul([m, k], [k, n])
    D = te.compute(C.shape, lambda i, j: te.maximum(C[i, j], te.const(0.0, F32)), "D")
    return both([A, B, D], "mm_relu")


def _check_matmul_relu(reference, kernel, m, k, n):
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    b = RNG.uniform(-1, 1, (k, n)).astype(np.float32)
    outs = [np.empty((m, n), np.float32) for _ in range(2)]
    reference(a, b, outs[0])
    kernel(a, b, outs[1])
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-5)


def test_large_contractions_out_of_register_tiles_keep_blas_and_a_native_epilogue():
    # Four columns: too few for a vector (register tiles take eight or more).
    reference, kernel = _matmul_relu(256, 512, 4)  # 524,288 multiply-adds
    paths = native_paths(kernel)
    assert "matmul" in paths and "native" in paths
    _check_matmul_relu(reference, kernel, 256, 512, 4)


def _fused_multiply_adds(func) -> list[str]:
    """The types of the vector fused multiply-adds of ``func`` lowered by tir-to-llvm."""
    module = ModuleOp([func.clone()])
    lower_module(module)
    return [str(op.res.type) for op in module.walk() if isinstance(op, llvm.FMAOp)]


@pytest.mark.parametrize(
    "m, k, n",
    [
        (64, 128, 32),  # two full vectors per row of the tile
        (13, 20, 37),  # rows past the tile's height, columns past the vector width
        (2, 300, 100),  # two rows: wider tiles (up to 8 vectors)
        (30, 7, 200),  # full tiles of three vectors, then a masked one
        (12, 16, 8),  # the shortest vector axis tiled
        (100, 3, 9),
    ],
)
def test_float32_contractions_run_in_register_tiles(m, k, n):
    A, B, C = tp.matmul([m, k], [k, n])
    func, _ = te.create_prim_func(f"mm_{m}_{k}_{n}", [A, B, C])
    fmas = _fused_multiply_adds(func)
    assert fmas and all(t.startswith("vector<") for t in fmas)
    kernel = native.compile_prim_func(func)
    assert native_paths(kernel) == ["native"]
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    b = RNG.uniform(-1, 1, (k, n)).astype(np.float32)
    out = np.full((m, n), 77, np.float32)
    kernel(a, b, out)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))


def test_a_vector_matrix_product_is_not_tiled():
    # One row: the tile would read a short run of each row of B; BLAS streams them.
    A, B, C = tp.matmul([1, 300], [300, 400])
    func, _ = te.create_prim_func("vm_1_300_400", [A, B, C])
    assert _fused_multiply_adds(func) == []
    assert "matmul" in native_paths(native.compile_prim_func(func))


CONV = """
relax.func @main(%x: !relax.tensor<[n, {ci}, {size}, {size}], f32>, %w: !relax.tensor<[{co}, {ci}, {kernel}, {kernel}], f32>, %b: !relax.tensor<[{co}, 1, 1], f32>) -> !relax.tensor<[n, {co}, {out}, {out}], f32> {{
  %out = relax.dataflow -> !relax.tensor<[n, {co}, {out}, {out}], f32> {{
    %c = relax.conv2d %x, %w {{strides = array<i64: {stride}, {stride}>, padding = array<i64: {pad}, {pad}>}} : (!relax.tensor<[n, {ci}, {size}, {size}], f32>, !relax.tensor<[{co}, {ci}, {kernel}, {kernel}], f32>)
    %s = relax.add %c, %b : (!relax.tensor<[n, {co}, {out}, {out}], f32>, !relax.tensor<[{co}, 1, 1], f32>)
    %r = relax.relu %s : (!relax.tensor<[n, {co}, {out}, {out}], f32>)
    relax.output %r : !relax.tensor<[n, {co}, {out}, {out}], f32>
  }}
  relax.return %out : !relax.tensor<[n, {co}, {out}, {out}], f32>
}}
"""


@pytest.mark.parametrize(
    "ci, co, size, kernel, stride, pad",
    [
        (16, 24, 11, 3, 1, 1),  # 11-element rows: through a window copy along the image
        (3, 16, 23, 3, 2, 0),  # strided: through a window copy
        (8, 20, 7, 1, 1, 0),  # contiguous along the 7x7 image: read as it is
        (4, 8, 56, 3, 1, 1),  # 56-element rows fill 7/8 of the lanes: the padded input
        (6, 5, 9, 5, 1, 2),  # fewer output channels than a tile's rows
    ],
)
def test_convolutions_in_register_tiles_match_the_numpy_backend(ci, co, size, kernel, stride, pad):
    out = (size + 2 * pad - kernel) // stride + 1
    shape = {"ci": ci, "co": co, "size": size, "kernel": kernel, "stride": stride, "pad": pad}
    module = xrelax.parse(CONV.format(out=out, **shape))
    x = RNG.uniform(-1, 1, (2, ci, size, size)).astype(np.float32)
    w = RNG.uniform(-1, 1, (co, ci, kernel, kernel)).astype(np.float32)
    b = RNG.uniform(-1, 1, (co, 1, 1)).astype(np.float32)
    exe = xrelax.compile(module, kernels="native")
    kernels = native.load_executable_kernels(exe)
    (conv,) = [k for name, k in kernels.items() if "conv2d" in name]
    assert native_paths(conv) == ["native"]
    # The bias and the ReLU are applied to the tiles' accumulators (no pass of their
    # own): the maximum is on vectors.
    (func,) = [op for op in exe.unprinted.ops if "conv2d" in op.sym_name.data]
    assert _vector_maxima(ModuleOp([func.clone()]))
    got = xrelax.VirtualMachine(exe, kernels="native")["main"](x, w, b)
    want = xrelax.VirtualMachine(xrelax.compile(module), kernels="numpy")["main"](x, w, b)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


DEPTHWISE = """
relax.func @main(%x: !relax.tensor<[2, {c}, {size}, {size}], f32>, %w: !relax.tensor<[{c}, 1, {kernel}, {kernel}], f32>, %b: !relax.tensor<[{c}, 1, 1], f32>) -> !relax.tensor<[2, {c}, {out}, {out}], f32> {{
  %out = relax.dataflow -> !relax.tensor<[2, {c}, {out}, {out}], f32> {{
    %d = relax.conv2d %x, %w {{strides = array<i64: {stride}, {stride}>, padding = array<i64: {pad}, {pad}>, groups = {c} : i64}} : (!relax.tensor<[2, {c}, {size}, {size}], f32>, !relax.tensor<[{c}, 1, {kernel}, {kernel}], f32>)
    %s = relax.add %d, %b : (!relax.tensor<[2, {c}, {out}, {out}], f32>, !relax.tensor<[{c}, 1, 1], f32>)
    relax.output %s : !relax.tensor<[2, {c}, {out}, {out}], f32>
  }}
  relax.return %out : !relax.tensor<[2, {c}, {out}, {out}], f32>
}}
"""


@pytest.mark.parametrize(
    "c, size, kernel, stride",
    [
        (16, 12, 3, 1),  # one vector of channels, stride 1: the padded copy
        (24, 9, 5, 2),  # a masked vector, stride 2: read clamped near the borders
        (72, 14, 3, 2),  # several vectors, a tile of rows and a remainder
        (40, 7, 5, 1),  # a 7x7 image: every tile is near a border
        (8, 20, 3, 2),  # the fewest lanes tiled
    ],
)
def test_depthwise_convolutions_with_bound_weights_run_channels_last_in_tiles(
    c, size, kernel, stride
):
    pad = kernel // 2
    out = (size + 2 * pad - kernel) // stride + 1
    shape = {"c": c, "size": size, "kernel": kernel, "stride": stride, "pad": pad, "out": out}
    module = xrelax.parse(DEPTHWISE.format(**shape))
    x = RNG.uniform(-1, 1, (2, c, size, size)).astype(np.float32)
    w = RNG.uniform(-1, 1, (c, 1, kernel, kernel)).astype(np.float32)
    w[0, 0, 0, 0] = np.inf  # reads the padding at the top left: 0 * inf is NaN there
    b = RNG.uniform(-1, 1, (c, 1, 1)).astype(np.float32)
    params = {"w": w, "b": b}
    exe = xrelax.compile(module, params=params, kernels="native")
    (func,) = [op for op in exe.unprinted.ops if "conv2d" in op.sym_name.data]
    assert tuple(func.buffer_types[1].dims) == (kernel, kernel, 1, c)  # weights channels-last
    conv = native.load_executable_kernels(exe)[func.sym_name.data]
    assert native_paths(conv) == ["native"]
    fmas = _fused_multiply_adds(func)
    assert fmas and all(t.startswith("vector<") for t in fmas)
    got = xrelax.VirtualMachine(exe, kernels="native")["main"](x)
    reference = xrelax.compile(module, params=params, kernels="numpy")
    want = xrelax.VirtualMachine(reference, kernels="numpy")["main"](x)
    assert np.isnan(want).any()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)
    assert np.array_equal(np.isnan(got), np.isnan(want))


def test_a_convolution_over_a_one_pixel_image_has_its_rows_in_the_batch():
    # A squeeze-and-excitation block's 1x1 convolution over the pooled 1x1 image: the
    # output's pixel loops run once, so the tile's rows are the images (two share each
    # weight vector), not a one-pixel row left to BLAS.
    shape = {"ci": 96, "co": 40, "size": 1, "kernel": 1, "stride": 1, "pad": 0, "out": 1}
    module = xrelax.parse(CONV.format(**shape))
    w = RNG.uniform(-1, 1, (40, 96, 1, 1)).astype(np.float32)
    b = RNG.uniform(-1, 1, (40, 1, 1)).astype(np.float32)
    exe = xrelax.compile(module, params={"w": w, "b": b}, kernels="native")
    (func,) = [op for op in exe.unprinted.ops if "conv2d" in op.sym_name.data]
    tiled = [n for n in func.body.block.ops if isinstance(n, ForOp) and plan_tiles(n)]
    (nest,) = tiled
    assert plan_tiles(nest).row.var_name == nest.var_name  # the batch's loop
    x = RNG.uniform(-1, 1, (2, 96, 1, 1)).astype(np.float32)
    got = xrelax.VirtualMachine(exe, kernels="native")["main"](x)
    reference = xrelax.compile(module, params={"w": w, "b": b}, kernels="numpy")
    want = xrelax.VirtualMachine(reference, kernels="numpy")["main"](x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


PRODUCT = """
relax.func @main(%x: !relax.tensor<[n, {k}], f32>, %w: !relax.tensor<[{k}, {m}], f32>, %b: !relax.tensor<[{m}], f32>) -> !relax.tensor<[n, {m}], f32> {{
  %y = relax.matmul %x, %w : (!relax.tensor<[n, {k}], f32>, !relax.tensor<[{k}, {m}], f32>)
  %z = relax.add %y, %b : (!relax.tensor<[n, {m}], f32>, !relax.tensor<[{m}], f32>)
  relax.return %z : !relax.tensor<[n, {m}], f32>
}}
"""


def _packed_operands(exe) -> list[tuple]:
    """The shapes of the kernels' parameters laid out in panels (rank 3 here)."""
    return [
        tuple(int(d) for d in t.dims)
        for op in exe.unprinted.ops
        for t in op.buffer_types
        if len(t.dims) == 3 and all(d.is_Integer for d in t.dims)
    ]


@pytest.mark.parametrize("k, m", [(64, 100), (96, 200), (40, 1000)])
def test_products_by_bound_weights_read_them_packed_in_panels(k, m):
    # relax-pack-weights lays the weights out in panels of the tiles' width (zero past
    # the last column); the tiles run over any number of rows, one included (BLAS would
    # read the panels through a copy), the rows left of a tile in tiles of halving
    # heights. A weight of inf gives NaN down its column exactly as numpy's kernels do.
    module = xrelax.parse(PRODUCT.format(k=k, m=m))
    w = RNG.uniform(-1, 1, (k, m)).astype(np.float32)
    w[3, m - 1] = np.inf
    b = RNG.uniform(-1, 1, (m,)).astype(np.float32)
    exe = xrelax.compile(module, params={"w": w, "b": b}, kernels="native")
    ((panels, depth, width),) = _packed_operands(exe)
    assert depth == k and panels * width >= m > (panels - 1) * width
    kernel = native.load_executable_kernels(exe)["matmul"]
    assert [(p.path, p.detail) for p in kernel.paths] == [("native", "llvm")]  # no BLAS
    reference = xrelax.compile(module, params={"w": w, "b": b}, kernels="numpy")
    got_vm = xrelax.VirtualMachine(exe, kernels="native")["main"]
    want_vm = xrelax.VirtualMachine(reference, kernels="numpy")["main"]
    for rows in (1, 2, 7, 9, 23):
        x = RNG.uniform(-1, 1, (rows, k)).astype(np.float32)
        x[0, 3] = 0.0  # 0 * inf: NaN in the last column of the first row
        got, want = got_vm(x), want_vm(x)
        assert np.isnan(want[0, m - 1])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)
        assert np.array_equal(np.isnan(got), np.isnan(want))


def test_a_product_of_one_row_by_bound_weights_runs_in_tiles_not_blas():
    # A decoding step's products ([1, 768] x [768, 3072] in GPT-2): BLAS streams a row
    # of B every N floats faster than tiles would, panels not (docs/performance.md).
    module = xrelax.parse(PRODUCT.replace("n,", "1,").format(k=96, m=1000))
    w = RNG.uniform(-1, 1, (96, 1000)).astype(np.float32)
    b = RNG.uniform(-1, 1, (1000,)).astype(np.float32)
    exe = xrelax.compile(module, params={"w": w, "b": b}, kernels="native")
    assert _packed_operands(exe)
    kernel = native.load_executable_kernels(exe)["matmul"]
    assert [(p.path, p.detail) for p in kernel.paths] == [("native", "llvm")]
    x = RNG.uniform(-1, 1, (1, 96)).astype(np.float32)
    got = xrelax.VirtualMachine(exe, kernels="native")["main"](x)
    np.testing.assert_allclose(got, x @ w + b, rtol=1e-5, atol=1e-5)
    unbound = xrelax.compile(module, kernels="native")  # not packed: BLAS
    assert not _packed_operands(unbound)
    kernel = native.load_executable_kernels(unbound)["matmul"]
    assert "numpy" in native_paths(kernel)


def test_a_weight_other_operators_also_read_is_packed_for_the_tiles_alone():
    # A row of the weights is also added to the product: that slice reads the constant
    # as it was, the product's kernel its panels.
    text = """
relax.func @main(%x: !relax.tensor<[n, 32], f32>, %w: !relax.tensor<[32, 64], f32>) -> !relax.tensor<[n, 64], f32> {
  %y = relax.matmul %x, %w : (!relax.tensor<[n, 32], f32>, !relax.tensor<[32, 64], f32>)
  %r = relax.strided_slice %w {axes = array<i64: 0>, begin = array<i64: 5>, end = array<i64: 6>} : (!relax.tensor<[32, 64], f32>)
  %s = relax.add %y, %r : (!relax.tensor<[n, 64], f32>, !relax.tensor<[1, 64], f32>)
  relax.return %s : !relax.tensor<[n, 64], f32>
}
"""
    module = xrelax.parse(text)
    w = RNG.uniform(-1, 1, (32, 64)).astype(np.float32)
    exe = xrelax.compile(module, params={"w": w}, kernels="native")
    assert _packed_operands(exe)
    x = RNG.uniform(-1, 1, (5, 32)).astype(np.float32)
    got = xrelax.VirtualMachine(exe, kernels="native")["main"](x)
    np.testing.assert_allclose(got, x @ w + w[5:6], rtol=1e-5, atol=1e-5)


def test_convolutions_with_bound_weights_read_them_packed_in_panels():
    # Channels-last, the output channels are the tiles' vector axis: the HWIO weights
    # go in panels along them ([panels, 3, 3, 16, width]).
    shape = {"ci": 16, "co": 70, "size": 9, "kernel": 3, "stride": 1, "pad": 1, "out": 9}
    module = xrelax.parse(CONV.format(**shape))
    w = RNG.uniform(-1, 1, (70, 16, 3, 3)).astype(np.float32)
    w[69, 2, 0, 0] = np.inf  # reads the padding at the top left: 0 * inf is NaN there
    b = RNG.uniform(-1, 1, (70, 1, 1)).astype(np.float32)
    exe = xrelax.compile(module, params={"w": w, "b": b}, kernels="native")
    (func,) = [op for op in exe.unprinted.ops if "conv2d" in op.sym_name.data]
    panels, *middle, width = (int(d) for d in func.buffer_types[1].dims)
    assert middle == [3, 3, 16] and panels * width >= 70 > (panels - 1) * width
    x = RNG.uniform(-1, 1, (2, 16, 9, 9)).astype(np.float32)
    got = xrelax.VirtualMachine(exe, kernels="native")["main"](x)
    reference = xrelax.compile(module, params={"w": w, "b": b}, kernels="numpy")
    want = xrelax.VirtualMachine(reference, kernels="numpy")["main"](x)
    assert np.isnan(want).any()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)
    assert np.array_equal(np.isnan(got), np.isnan(want))


SILU = """
relax.func @main(%x: !relax.tensor<[n, 64], f32>, %w: !relax.tensor<[64, 200], f32>) -> !relax.tensor<[n, 200], f32> {
  %out = relax.dataflow -> !relax.tensor<[n, 200], f32> {
    %y = relax.matmul %x, %w : (!relax.tensor<[n, 64], f32>, !relax.tensor<[64, 200], f32>)
    %s = relax.sigmoid %y : (!relax.tensor<[n, 200], f32>)
    %z = relax.multiply %y, %s : (!relax.tensor<[n, 200], f32>, !relax.tensor<[n, 200], f32>)
    relax.output %z : !relax.tensor<[n, 200], f32>
  }
  relax.return %out : !relax.tensor<[n, 200], f32>
}
"""


def test_an_epilogue_with_exp_is_applied_in_the_tiles_with_numpys_nan_and_inf():
    # A SiLU after a product (EfficientNet's after its convolutions): the sigmoid's exp
    # on the accumulators' vectors, Cephes' expf as in a loop; NaN in, NaN out, and
    # inf and -inf where numpy's kernels give them.
    module = xrelax.parse(SILU)
    w = RNG.uniform(-3, 3, (64, 200)).astype(np.float32)
    w[0, 5], w[1, 7], w[2, 9] = np.inf, -np.inf, np.nan
    exe = xrelax.compile(module, params={"w": w}, kernels="native")
    (func,) = exe.unprinted.ops
    nests = [n for n in func.body.block.ops if isinstance(n, ForOp)]
    (plan,) = [plan for plan in map(plan_tiles, nests) if plan is not None]
    assert plan.epilogue is not None
    reference = xrelax.compile(module, params={"w": w}, kernels="numpy")
    x = RNG.uniform(-30, 30, (9, 64)).astype(np.float32)
    x[3, 0] = 0.0  # 0 * inf: NaN
    got = xrelax.VirtualMachine(exe, kernels="native")["main"](x)
    want = xrelax.VirtualMachine(reference, kernels="numpy")["main"](x)
    assert np.isnan(want).any() and np.isposinf(want).any() and (want == 0).any()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True)
    for kind in (np.isnan, np.isposinf, np.isneginf):
        assert np.array_equal(kind(got), kind(want))


def test_small_contractions_are_native_loops():
    reference, kernel = _matmul_relu(5, 8, 6)
    assert native_paths(kernel) == ["native"]
    _check_matmul_relu(reference, kernel, 5, 8, 6)


def test_a_contraction_of_symbolic_size_picks_native_or_blas_per_call(monkeypatch):
    # Sizes no other test compiles: the kernel (and its BLAS kernel, once made) is
    # shared by every prim_func of the same text in the process. Four columns: no
    # register tiles.
    reference, kernel = _matmul_relu("n", 96, 4)  # 384 multiply-adds per row
    assert "else BLAS" in kernel.paths[0].detail
    made = []
    original = native._hybrid
    monkeypatch.setattr(native, "_hybrid", lambda *a: made.append(1) or original(*a))
    _check_matmul_relu(reference, kernel, 3, 96, 4)
    assert made == []  # 1,152: native
    _check_matmul_relu(reference, kernel, 200, 96, 4)
    assert made == [1]  # 76,800: the BLAS kernel, made at its first call
    _check_matmul_relu(reference, kernel, 200, 96, 4)
    assert made == [1]


def test_register_tiles_over_a_symbolic_batch_of_rows_leave_one_row_to_blas(monkeypatch):
    # A classifier's product over a symbolic batch: one row is a vector-matrix product
    # (BLAS streams it), two or more run in tiles (made at the first such call).
    reference, kernel = _matmul_relu("n", 80, 40)
    assert "rows: BLAS for one, else register tiles" in kernel.paths[0].detail
    made = []
    original = native._compose
    monkeypatch.setattr(native, "_compose", lambda *a: made.append(a[-1]) or original(*a))
    _check_matmul_relu(reference, kernel, 1, 80, 40)
    assert made == []
    for rows in (2, 9, 17):  # whole tiles, then the rows left one at a time
        _check_matmul_relu(reference, kernel, rows, 80, 40)
    assert made == [{0}]  # the tiled kernel, made once


CONV_1X1 = """
tir.prim_func @conv(%X: !tir.buffer<[n, 24, 2, 3], f32>, %W: !tir.buffer<[8, 24, 1, 1], f32>, %Y: !tir.buffer<[n, 8, 2, 3], f32>) {
  tir.for i0 in [0, n) {
    tir.for i1 in [0, 8) {
      tir.for i2 in [0, 2) {
        tir.for i3 in [0, 3) {
          %zero = arith.constant 0.000000e+00 : f32
          tir.store %Y[i0, i1, i2, i3], %zero : f32
          tir.for rc in [0, 24) {
            %y = tir.load %Y[i0, i1, i2, i3] : f32
            %x = tir.load %X[i0, rc, i2, i3] : f32
            %w = tir.load %W[i1, rc, 0, 0] : f32
            %p = arith.mulf %x, %w : f32
            %s = arith.addf %y, %p : f32
            tir.store %Y[i0, i1, i2, i3], %s : f32
          }
        }
      }
    }
  }
}
"""


def test_contractions_striding_through_memory_run_with_the_output_loops_inside():
    # A 1x1 convolution over a 2x3 image (too small for register tiles): its reduction
    # over channels reads the input an image apart; with the output loops sunk inside
    # it, each step is a vector multiply-add. (Small: native at any batch of this test;
    # the per-call choice is the note's.)
    module = xrelax.parse(CONV_1X1)
    SinkOutputLoopsPass().apply(Context(), module)
    # (before: i0, i1, i2, i3, rc) the image's loops initialize, then run inside rc
    loops = [op.var_name for op in module.walk() if isinstance(op, ForOp)]
    assert loops == ["i0", "i1", "i2", "i3", "rc", "i2", "i3"]
    kernels = numpy_kernels.load_library(CONV_1X1)["conv"], native.load_library(CONV_1X1)["conv"]
    assert set(native_paths(kernels[1])) == {"native"}
    x = RNG.uniform(-1, 1, (3, 24, 2, 3)).astype(np.float32)
    w = RNG.uniform(-1, 1, (8, 24, 1, 1)).astype(np.float32)
    _, want, got = _run(kernels, [x, w], [(3, 8, 2, 3)], np.float32, ())
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def test_a_small_contraction_over_rows_of_symbolic_length_keeps_blas():
    # A 1x1 convolution over a symbolic image: its rows' length is unknown to LLVM, whose
    # vector loop would leave a small image's rows scalar.
    X, W, Y = tp.conv(2, [1, 1], [1, 1], [0, 0], [1, 1], 1, (16, 96))
    reference, kernel = both([X, W, Y], "conv1x1")
    assert native_paths(kernel)[:1] == ["numpy"] and "matmul" in native_paths(kernel)
    x = RNG.uniform(-1, 1, (1, 16, 3, 3)).astype(np.float32)
    w = RNG.uniform(-1, 1, (96, 16, 1, 1)).astype(np.float32)
    _, want, got = _run((reference, kernel), [x, w], [(1, 96, 3, 3)], np.float32, ())
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def test_batched_matrix_vector_products_are_native_not_blas():
    # A depthwise convolution over a 5x5 window: the numpy kernel's batched matmul of
    # one column per image and channel; native loops do it without the im2col copy.
    channels = 4
    X, W, Y = tp.conv(2, [5, 5], [2, 2], [2, 2], [1, 1], channels, (channels, channels))
    reference, kernel = both([X, W, Y], "depthwise")
    assert "matrix-vector" in reference.paths[-1].detail
    assert native_paths(kernel) == ["native"]
    x = RNG.uniform(-1, 1, (2, channels, 9, 9)).astype(np.float32)
    w = RNG.uniform(-1, 1, (channels, 1, 5, 5)).astype(np.float32)
    _, want, got = _run((reference, kernel), [x, w], [(2, channels, 5, 5)], np.float32, ())
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)


def test_compiled_code_is_cached_on_disk_and_loaded_by_a_fresh_jit(tmp_path, monkeypatch):
    monkeypatch.setenv(native_jit.CACHE_ENV, str(tmp_path))
    module = ModuleOp([xrelax.parse(ASSERTING).body.block.first_op.clone()])
    lower_module(module)
    first = native_jit._Jit()  # compiles the thread pool's runtime (.parallel)
    ir = first.ir(module)
    runtime = set(tmp_path.glob("*.o"))
    first.address(ir, "checked")
    assert len(set(tmp_path.glob("*.o")) - runtime) == 1
    fresh = native_jit._Jit()
    monkeypatch.setattr(fresh, "_compile", None)  # loads the object file, compiles nothing
    ffi = FFI()
    call = ffi.cast("int32_t (*)(void *, void *, int64_t)", fresh.address(ir, "checked"))
    x, y = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    assert call(ffi.from_buffer(x), ffi.from_buffer(y), 3) == 0
    np.testing.assert_array_equal(y[:3], x[:3])
    assert call(ffi.from_buffer(x), ffi.from_buffer(y), 8) == 1  # the assert fails


@pytest.mark.parametrize("example", ["cnn.mlir", "transformer.mlir", "mlp.mlir"])
def test_examples_run_the_same_through_the_vm(example):
    path = Path(xrelax.__file__).parent / "examples" / example
    module = xrelax.parse(path.read_text(), str(path))
    exe = xrelax.compile(module)
    params = [p.type for p in _main(module).body.block.args]
    inputs = [
        RNG.uniform(-1, 1, [d if isinstance(d, int) else 3 for d in _dims(t)]).astype(
            dtypes.numpy_dtype(t.dtype)
        )
        for t in params
    ]
    try:
        want = xrelax.VirtualMachine(exe, kernels="numpy")["main"](*inputs)
    except xrelax.VMError as err:
        with pytest.raises(xrelax.VMError) as native_err:
            xrelax.VirtualMachine(exe, kernels="native")["main"](*inputs)
        assert str(native_err.value) == str(err)
        return
    got = xrelax.VirtualMachine(exe, kernels="native")["main"](*inputs)
    # Sums accumulate in another order than numpy's pairwise ones: the error is relative
    # to the magnitudes summed, so to the output's scale.
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6 * np.abs(want).max())


def _main(module):
    return next(
        op
        for op in module.body.block.ops
        if getattr(op, "sym_name", None) and op.sym_name.data == "main"
    )


def _dims(type_):
    return [int(d) if d.is_Integer else str(d) for d in type_.dims]


def _outcome(vm, inputs):
    try:
        return vm["main"](*inputs), None
    except xrelax.VMError as err:
        return None, str(err)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 5), st.integers(0, 5), st.integers(0, 2**32 - 1))
def test_random_programs_give_the_numpy_kernels_results_or_errors(program, n, m, seed):
    inputs = program.inputs(np.random.default_rng(seed), n, m)
    exe = xrelax.compile(program.module)
    want, refused = _outcome(xrelax.VirtualMachine(exe, kernels="numpy"), inputs)
    got, native_refused = _outcome(xrelax.VirtualMachine(exe, kernels="native"), inputs)
    assert native_refused == refused, program.text
    if refused is None:
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, err_msg=program.text)
        assert got.dtype == want.dtype and got.shape == want.shape


def test_unknown_kernel_backend_is_refused():
    exe = xrelax.compile(
        xrelax.parse((Path(xrelax.__file__).parent / "examples" / "mlp.mlir").read_text())
    )
    with pytest.raises(ValueError, match="unknown kernel backend 'cuda'"):
        xrelax.VirtualMachine(exe, kernels="cuda")


def test_relax_run_kernels_flag_selects_the_backend(tmp_path, capsys):
    from xrelax.tools.relax_run import main

    example = Path(xrelax.__file__).parent / "examples"
    outputs = {}
    for backend in ("numpy", "native"):
        out = tmp_path / f"{backend}.npz"
        args = [str(example / "control_flow.mlir"), "--inputs"]
        args += [str(example / "control_flow_inputs.npz"), "--outputs", str(out)]
        assert main([*args, "--kernels", backend]) == 0
        outputs[backend] = dict(np.load(out))
    assert outputs["native"].keys() == outputs["numpy"].keys()
    for name, want in outputs["numpy"].items():
        np.testing.assert_allclose(outputs["native"][name], want, rtol=1e-6)
    with pytest.raises(SystemExit):
        main([str(example / "control_flow.mlir"), "--kernels", "cuda"])
    assert "invalid choice: 'cuda'" in capsys.readouterr().err


UNPROVEN = """
tir.prim_func @copy(%X: !tir.buffer<[m], f32>, %Y: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %x = tir.load %X[i] : f32
    tir.store %Y[i], %x : f32
  }
}
"""


def test_a_refusal_of_the_lowering_is_cached_too(tmp_path, monkeypatch):
    monkeypatch.setenv(native_jit.CACHE_ENV, str(tmp_path))
    # The kernel runs as the numpy kernel, whose run-time check reports the index.
    kernel = native.load_library(UNPROVEN)["copy"]
    assert kernel.paths[0].path == "numpy"
    with pytest.raises(KernelError):
        kernel(np.zeros(2, np.float32), np.zeros(3, np.float32))
    func = xrelax.parse(UNPROVEN).body.block.first_op
    with pytest.raises(native.NotLowerable, match="index of X not proven inside"):
        native._native(func, "unproven copy")
    assert len(list(tmp_path.glob("*.refused"))) == 2

    def no_lowering(module):
        raise AssertionError("lowered again")

    monkeypatch.setattr(native, "lower_module", no_lowering)
    with pytest.raises(native.NotLowerable, match="index of X not proven inside"):
        native._native(func, "unproven copy")


def test_an_executable_built_for_either_backend_runs_on_both():
    # relax-to-vm{kernels=native} builds a 5x5 depthwise convolution as a direct window
    # sum (numpy: a banded product); every executable runs on both backends, the same.
    text = """
    relax.func @main(%x: !relax.tensor<[n, 8, 12, 12], f32>, %w: !relax.tensor<[8, 1, 5, 5], f32>) -> !relax.tensor<[n, 8, 12, 12], f32> {
      %c = relax.conv2d %x, %w {padding = array<i64: 2, 2>, groups = 8 : i64} : (!relax.tensor<[n, 8, 12, 12], f32>, !relax.tensor<[8, 1, 5, 5], f32>)
      relax.return %c : !relax.tensor<[n, 8, 12, 12], f32>
    }
    """
    x = RNG.uniform(-1, 1, (2, 8, 12, 12)).astype(np.float32)
    w = RNG.uniform(-1, 1, (8, 1, 5, 5)).astype(np.float32)
    module = xrelax.parse(text)
    results = []
    for built_for in ("numpy", "native"):
        exe = xrelax.compile(module, kernels=built_for)
        assert ("band" in exe.library) == (built_for == "numpy")
        for backend in ("numpy", "native"):
            results.append(xrelax.VirtualMachine(exe, kernels=backend)["main"](x, w))
    for result in results[1:]:
        np.testing.assert_allclose(result, results[0], rtol=1e-5, atol=1e-6)


CHAIN = """
tir.prim_func @chain(%X: !tir.buffer<[n, 4], f32>, %B: !tir.buffer<[4], f32>, %Y: !tir.buffer<[n, 4], f32>, %Z: !tir.buffer<[n, 4], f32>) {
  %T = tir.alloc_buffer : !tir.buffer<[n, 4], f32>
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %x = tir.load %X[i, j] : f32
      %e = math.exp %x : f32
      tir.store %T[i, j], %e : f32
    }
  }
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %t = tir.load %T[i, j] : f32
      %b = tir.load %B[j] : f32
      %s = arith.addf %t, %b : f32
      tir.store %T[i, j], %s : f32
    }
  }
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %t = tir.load %T[i, j] : f32
      %x = tir.load %X[i, j] : f32
      %m = arith.mulf %t, %x : f32
      tir.store %Y[i, j], %m : f32
    }
  }
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %r = tir.load %T[n - 1 - i, 3 - j] : f32
      tir.store %Z[i, j], %r : f32
    }
  }
}
"""


def test_fused_element_wise_nests_match_numpy():
    # The first three nests run as one pass (in-place update of %T included); the last
    # reads %T reversed, so it stays after them.
    x = RNG.uniform(-1, 1, (5, 4)).astype(np.float32)
    b = RNG.uniform(-1, 1, 4).astype(np.float32)
    _, want, got = run_library(CHAIN, "chain", [x, b], [(5, 4)] * 2)
    assert_same(want, got, rtol=1e-6, atol=1e-7)


IN_PLACE = """
tir.prim_func @smooth(%X: !tir.buffer<[n, 40], f32>, %Y: !tir.buffer<[n, 40], f32>) {
  %T = tir.alloc_buffer : !tir.buffer<[n, 40], f32>
  tir.for i in [0, n) {
    tir.for j in [0, 40) {
      %x = tir.load %X[i, j] : f32
      %e = math.exp %x : f32
      tir.store %T[i, j], %e : f32
      %t = tir.load %T[i, j] : f32
      %d = arith.addf %t, %t : f32
      tir.store %T[i, j], %d : f32
    }
  }
  tir.for i in [0, n) {
    tir.for j in [0, 40) {
      %z = arith.constant 0.000000e+00 : f32
      tir.store %Y[i, j], %z : f32
      tir.for k in [0, 5) {
        %acc = tir.load %Y[i, j] : f32
        %p = arith.constant -1.000000e+00 : f32
        %t = tir.load %T[i, j + k - 2] pad %p : f32
        %s = arith.addf %acc, %t : f32
        tir.store %Y[i, j], %s : f32
      }
    }
  }
}
"""


def test_a_local_buffer_read_through_a_window_is_written_padded_in_place():
    # %T (rows of 40) is only written and read back by the nest before the window: it
    # becomes the padded copy itself, its border filled with the pad value (-1).
    x = RNG.uniform(-1, 1, (3, 40)).astype(np.float32)
    _, want, got = run_library(IN_PLACE, "smooth", [x], [(3, 40)])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-6)


def test_the_vm_calls_native_code_with_addresses_and_guards_the_contraction_size():
    # Tensors the VM allocates and bound weights have addresses it knows: a native
    # kernel's machine code is called with them (no Python wrapper); a contraction
    # native only while small runs the BLAS kernel beyond (six columns, too few for
    # register tiles; 2 rows: 72 multiply-adds per matmul, native; 2,000 rows: 72,000,
    # BLAS).
    text = """
    relax.func @main(%x: !relax.tensor<[n, 6], f32>, %w: !relax.tensor<[6, 6], f32>) -> !relax.tensor<[n, 6], f32> {
      %h = relax.matmul %x, %w : (!relax.tensor<[n, 6], f32>, !relax.tensor<[6, 6], f32>) -> !relax.tensor<[n, 6], f32>
      %r = relax.relu %h : (!relax.tensor<[n, 6], f32>)
      %y = relax.matmul %r, %w : (!relax.tensor<[n, 6], f32>, !relax.tensor<[6, 6], f32>) -> !relax.tensor<[n, 6], f32>
      %z = relax.relu %y : (!relax.tensor<[n, 6], f32>)
      %t = relax.add %z, %x : (!relax.tensor<[n, 6], f32>, !relax.tensor<[n, 6], f32>)
      relax.return %t : !relax.tensor<[n, 6], f32>
    }
    """
    w = RNG.uniform(-0.2, 0.2, (6, 6)).astype(np.float32)
    exe = xrelax.compile(xrelax.parse(text), params={"w": w}, kernels="native")
    vm = xrelax.VirtualMachine(exe, kernels="native")
    assert "<= 65536 or n" in vm.source  # the second matmul: its input is the VM's
    for rows in (2, 2000, 2):
        x = RNG.uniform(-1, 1, (rows, 6)).astype(np.float32)
        want = np.maximum(np.maximum(x @ w, 0) @ w, 0) + x
        np.testing.assert_allclose(vm["main"](x), want, rtol=1e-5, atol=1e-5)


def test_the_vm_guards_a_direct_call_by_rows_and_by_size():
    # A product over a symbolic batch: one row is native loops called directly (when
    # the contraction is small too: both guards inline), more rows register tiles
    # through the kernel's entry.
    text = """
    relax.func @main(%x: !relax.tensor<[n, 80], f32>, %w: !relax.tensor<[80, 40], f32>) -> !relax.tensor<[n, 40], f32> {
      %a = relax.relu %x : (!relax.tensor<[n, 80], f32>)
      %h = relax.matmul %a, %w : (!relax.tensor<[n, 80], f32>, !relax.tensor<[80, 40], f32>) -> !relax.tensor<[n, 40], f32>
      relax.return %h : !relax.tensor<[n, 40], f32>
    }
    """
    w = RNG.uniform(-0.2, 0.2, (80, 40)).astype(np.float32)
    exe = xrelax.compile(xrelax.parse(text), params={"w": w}, kernels="native")
    vm = xrelax.VirtualMachine(exe, kernels="native")
    assert re.search(r"<= 1 and \(.*<= 65536\)", vm.source)
    for rows in (1, 3, 1, 30):
        x = RNG.uniform(-1, 1, (rows, 80)).astype(np.float32)
        np.testing.assert_allclose(vm["main"](x), np.maximum(x, 0) @ w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("index_dtype", [dtypes.I64, dtypes.I32])
@pytest.mark.parametrize("axis", [0, 1])
def test_data_dependent_indices_are_native_and_checked(axis, index_dtype):
    X, Idx, Y = tp.take(axis, index_dtype)
    reference, kernel = both([X, Idx, Y], "take")
    assert native_paths(kernel) == ["native"]
    x = RNG.uniform(-1, 1, (5, 6)).astype(np.float32)
    indices = np.array([4, 0, 2, 2], dtypes.numpy_dtype(index_dtype))
    out_shape = (4, 6) if axis == 0 else (5, 4)
    _, want, got = _run((reference, kernel), [x, indices], [out_shape], np.float32, ())
    np.testing.assert_array_equal(got[0], want[0])
    # An index outside the axis (or negative: an error, not a read from the end): the
    # machine code returns a failure code and the numpy kernel reports the index.
    for bad in (x.shape[axis], -1):
        indices[1] = bad
        errors = []
        for k in (reference, kernel):
            with pytest.raises(KernelError) as info:
                k(x, indices, np.empty(out_shape, np.float32))
            errors.append(str(info.value))
        assert errors[0] == errors[1] and f"index {bad} out of range" in errors[0]


TAKE_UNDER_SELECT = """
tir.prim_func @pick(%X: !tir.buffer<[4], f32>, %I: !tir.buffer<[3], i64>, %Y: !tir.buffer<[3], f32>) {
  tir.for i in [0, 3) {
    %k = tir.load %I[i] : i64
    tir.let t = %k : i64
    %zero = arith.constant 0 : i64
    %keep = arith.cmpi sge, %k, %zero : i64
    %x = tir.load %X[t] : f32
    %z = arith.constant 0.000000e+00 : f32
    %y = arith.select %keep, %x, %z : f32
    tir.store %Y[i], %y : f32
  }
}
"""


def test_a_data_dependent_index_a_select_may_drop_keeps_the_numpy_kernel():
    # The numpy kernel checks such an index only where the select keeps the load (-1
    # here is dropped, not an error); the machine code would check it everywhere.
    kernel = native.load_library(TAKE_UNDER_SELECT)["pick"]
    assert "data-dependent index under a select" in kernel.paths[0].detail
    y = np.empty(3, np.float32)
    kernel(np.arange(4, dtype=np.float32), np.array([3, -1, 1]), y)
    np.testing.assert_array_equal(y, [3, 0, 1])


BIAS_OVER_IMAGES = """
tir.prim_func @bias(%X: !tir.buffer<[64, 4, 4], f32>, %B: !tir.buffer<[64], f32>, %Y: !tir.buffer<[64, 4, 4], f32>) {
  tir.for c in [0, 64) {
    tir.for h in [0, 4) {
      tir.for w in [0, 4) {
        %x = tir.load %X[c, h, w] : f32
        %b = tir.load %B[c] : f32
        %y = arith.addf %x, %b : f32
        tir.store %Y[c, h, w], %y : f32
      }
    }
  }
}
"""


SCALE_OVER_PIXELS = """
tir.prim_func @scale(%X: !tir.buffer<[2, 40, 32], f32>, %S: !tir.buffer<[2, 32], f32>, %Y: !tir.buffer<[2, 40, 32], f32>) {
  tir.for n in [0, 2) {
    tir.for p in [0, 40) {
      tir.for c in [0, 32) {
        %x = tir.load %X[n, p, c] : f32
        %s = tir.load %S[n, c] : f32
        %y = arith.mulf %x, %s : f32
        tir.store %Y[n, p, c], %y : f32
      }
    }
  }
}
"""


@pytest.mark.parametrize(
    "text, name, shapes",
    [
        # a bias per channel around each 4x4 image (NCHW)
        (BIAS_OVER_IMAGES, "bias", [(64, 4, 4), (64,)]),
        # a scale per channel in the channels of each pixel (channels-last)
        (SCALE_OVER_PIXELS, "scale", [(2, 40, 32), (2, 32)]),
    ],
)
def test_loops_kept_rolled_carry_llvm_loop_metadata(text, name, shapes):
    # The JIT gives the branch of each xrelax_rolled latch a distinct, self-referencing
    # loop ID with llvm.loop.unroll.disable (what xDSL's llvm dialect cannot express).
    module = xrelax.parse(text)
    lower_module(module)
    ir = native_jit.jit().ir(module)
    loop_id = re.search(r"br label %\S+, !llvm\.loop !(\d+)", ir).group(1)
    assert re.search(rf"!{loop_id} = distinct !\{{!{loop_id}, !\d+\}}", ir)
    assert '!{ !"llvm.loop.unroll.disable" }' in ir
    inputs = [RNG.uniform(-1, 1, shape).astype(np.float32) for shape in shapes]
    _, want, got = run_library(text, name, inputs, [shapes[0]])
    np.testing.assert_array_equal(got[0], want[0])


def test_a_check_failing_in_a_direct_call_reports_as_the_numpy_kernel_does():
    # take's indices and data are tensors the VM allocated, so the VM calls the machine
    # code directly; an index outside returns a failure code, and the call through the
    # kernel's entry reports it: the same error on both backends.
    text = """
    relax.func @main(%x: !relax.tensor<[6], f32>, %i: !relax.tensor<[3], i64>) -> !relax.tensor<[3], f32> {
      %one = relax.const dense<1> : !relax.tensor<[], i64>
      %j = relax.add %i, %one : (!relax.tensor<[3], i64>, !relax.tensor<[], i64>)
      %y = relax.multiply %x, %x : (!relax.tensor<[6], f32>, !relax.tensor<[6], f32>)
      %t = relax.take %y, %j {axis = 0 : i64} : (!relax.tensor<[6], f32>, !relax.tensor<[3], i64>)
      relax.return %t : !relax.tensor<[3], f32>
    }
    """
    module = xrelax.parse(text)
    x = np.arange(6, dtype=np.float32)
    errors = []
    for backend in ("numpy", "native"):
        vm = xrelax.VirtualMachine(xrelax.compile(module, kernels=backend), kernels=backend)
        np.testing.assert_array_equal(vm["main"](x, np.array([0, 2, 4])), [1, 9, 25])
        with pytest.raises(KernelError) as info:
            vm["main"](x, np.array([0, 5, 4]))
        errors.append(str(info.value))
    assert re.search(r"if n\d+\(a\d+, a\d+, a\d+\): u\d+\(", vm.source)  # a direct call
    assert (
        errors[0]
        == errors[1]
        == ("main: kernel @take: index 6 out of range [0, 6) for axis 0 of buffer %x0")
    )


PADDED_COPIES = """
tir.prim_func @pads(%X: !tir.buffer<[2, 3, 3], f32>, %W: !tir.buffer<[3, 4], f32>, %Y: !tir.buffer<[2, 5, 5], f32>, %Z: !tir.buffer<[5, 6], f32>) {
  tir.for a in [0, 2) {
    tir.for i in [0, 5) {
      tir.for j in [0, 5) {
        %p = arith.constant 0.000000e+00 : f32
        %x = tir.load %X[a, i - 1, j - 1] pad %p : f32
        tir.store %Y[a, i, j], %x : f32
      }
    }
  }
  tir.for i in [0, 5) {
    tir.for j in [0, 6) {
      %q = arith.constant 0.000000e+00 : f32
      %w = tir.load %W[i - 1, j - 1] pad %q : f32
      tir.store %Z[i, j], %w : f32
    }
  }
}
"""


def test_clamped_reads_of_two_nests_keep_their_own_indices():
    # Each padded load reads its clamped indices through names the lowering binds; a
    # second nest with fewer loops once reused the first nest's name for both of its
    # indices and read every row at its column's index.
    x = RNG.uniform(-1, 1, (2, 3, 3)).astype(np.float32)
    w = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
    _, want, got = run_library(PADDED_COPIES, "pads", [x, w], [(2, 5, 5), (5, 6)])
    np.testing.assert_array_equal(got[1], np.pad(w, ((1, 1), (1, 1))))
    assert_same(want, got)


def test_a_contraction_the_lowering_does_not_tile_as_planned_keeps_blas(tmp_path, monkeypatch):
    # Planned for register tiles from the prim_func, but not tiled by the lowering (its
    # own rewrites changed the nest): not naive loops over a large product, BLAS.
    from xrelax.backends.native import tir_to_llvm

    monkeypatch.setenv(native_jit.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(tir_to_llvm, "plan_tiles", lambda *args, **kwargs: None)
    reference, kernel = _matmul_relu(96, 160, 48)  # sizes no other test compiles
    assert "matmul" in native_paths(kernel)
    _check_matmul_relu(reference, kernel, 96, 160, 48)


_PRODUCT = """
  tir.for i in [0, 16) {
    tir.for j in [0, COLUMNS) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 20) {
        %c = tir.load %C[i, j] : f32
        %a = tir.load %A[i, k] : f32
        %b = tir.load %B[k, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
"""


def _product_then(columns: int, signature: str, epilogue: str) -> str:
    """A prim_func ``@k(%A, %B, <signature>)``: ``C = A @ B`` (``[16, 20] x [20,
    columns]``) in one nest, then ``epilogue``."""
    head = f"%A: !tir.buffer<[16, 20], f32>, %B: !tir.buffer<[20, {columns}], f32>"
    body = _PRODUCT.replace("COLUMNS", str(columns))
    return f"tir.prim_func @k({head}, {signature}) {{{body}{epilogue}}}\n"


def _vector_maxima(module: ModuleOp) -> bool:
    """Whether ``module`` lowered by tir-to-llvm takes a maximum of vectors (an
    epilogue's ReLU applied to the tiles' accumulators)."""
    lower_module(module)
    calls = [op for op in module.walk() if isinstance(op, llvm.CallIntrinsicOp)]
    return any(op.intrin.data.startswith("llvm.maximum.v") for op in calls)


EPILOGUE_READING_ANOTHER_ELEMENT = _product_then(
    40,
    "%C: !tir.buffer<[16, 40], f32>, %D: !tir.buffer<[16, 40], f32>",
    """  tir.for i in [0, 16) {
    tir.for j in [0, 40) {
      %c = tir.load %C[i, j] : f32
      %first = tir.load %C[i, 0] : f32
      %s = arith.addf %c, %first : f32
      tir.store %D[i, j], %s : f32
    }
  }
""",
)


def test_an_epilogue_reading_another_output_element_runs_after_the_tiles():
    # C[i, 0] is not computed yet when a tile of later columns is stored: that nest is
    # not applied to the accumulators, it runs after every tile.
    a = RNG.uniform(-1, 1, (16, 20)).astype(np.float32)
    b = RNG.uniform(-1, 1, (20, 40)).astype(np.float32)
    _, want, got = run_library(EPILOGUE_READING_ANOTHER_ELEMENT, "k", [a, b], [(16, 40)] * 2)
    c = a @ b
    np.testing.assert_allclose(got[1], c + c[:, :1], rtol=1e-5, atol=1e-5)
    assert_same(want, got, rtol=1e-5, atol=1e-5)


EPILOGUE_OVER_OTHER_NAMES = _product_then(
    16,
    "%bias: !tir.buffer<[16], f32>, %C: !tir.buffer<[16, 16], f32>",
    """  tir.for j in [0, 16) {
    tir.for i in [0, 16) {
      %c = tir.load %C[j, i] : f32
      %b = tir.load %bias[j] : f32
      %s = arith.addf %c, %b : f32
      %z = arith.constant 0.000000e+00 : f32
      %r = arith.maximumf %s, %z : f32
      tir.store %C[j, i], %r : f32
    }
  }
""",
)


def test_an_epilogue_whose_loops_are_named_otherwise_is_applied_in_the_tiles():
    # The epilogue's loops are the contraction's under each other's names (j, i): its
    # accesses are read in the contraction's variables, bias per row included.
    assert _vector_maxima(xrelax.parse(EPILOGUE_OVER_OTHER_NAMES))
    a = RNG.uniform(-1, 1, (16, 20)).astype(np.float32)
    b = RNG.uniform(-1, 1, (20, 16)).astype(np.float32)
    bias = RNG.uniform(-1, 1, 16).astype(np.float32)
    _, want, got = run_library(EPILOGUE_OVER_OTHER_NAMES, "k", [a, b, bias], [(16, 16)])
    np.testing.assert_allclose(got[0], np.maximum(a @ b + bias[:, None], 0), rtol=1e-5, atol=1e-5)
    assert_same(want, got, rtol=1e-5, atol=1e-5)


_SUM_OF_SQUARES = """
tir.prim_func @squares(%X: !tir.buffer<[300, 768], f32>, %S: !tir.buffer<[300], f32>) {
  tir.for i in [0, 300) {
    %zero = arith.constant 0.000000e+00 : f32
    tir.store %S[i], %zero : f32
    tir.for k in [0, 768) {
      %s = tir.load %S[i] : f32
      %x = tir.load %X[i, k] : f32
      %y = tir.load %X[i, k] : f32
      %p = arith.mulf %x, %y : f32
      %a = arith.addf %s, %p : f32
      tir.store %S[i], %a : f32
    }
  }
}
"""


def test_a_sum_of_element_wise_products_is_native_not_blas():
    # numpy hands it to einsum (a variance's sum of squares); no operand is read for
    # two outputs, so native loops stream it as fast, without BLAS's call.
    reference = numpy_kernels.load_library(_SUM_OF_SQUARES)["squares"]
    assert "einsum" in [p.path for p in reference.paths]
    x = RNG.uniform(-1, 1, (300, 768)).astype(np.float32)
    _, want, got = run_library(_SUM_OF_SQUARES, "squares", [x], [(300,)])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)


@pytest.mark.parametrize("m, k, n", [(133, 201, 97), (257, 256, 257)])
def test_a_kernel_calling_blas_keeps_its_threads_and_the_pools_apart(
    tmp_path, monkeypatch, m, k, n
):
    # OpenBLAS's threads and the pool's spinning workers would wait for each other's
    # cores: a small product (at most SOLO_WORK multiply-adds) runs BLAS on the calling
    # thread alone, the workers left spinning; a larger one keeps BLAS's threads and
    # sends the workers to sleep first.
    from xrelax.backends.native import blas_threads, tir_to_llvm

    rests, counts = [], [4]
    monkeypatch.setattr(native_jit.jit().pool, "rest", lambda: rests.append(1))
    monkeypatch.setattr(blas_threads, "_openblas", lambda: (counts.append, lambda: counts[-1]))
    monkeypatch.setenv(native_jit.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(tir_to_llvm, "plan_tiles", lambda *args, **kwargs: None)
    reference, kernel = _matmul_relu(m, k, n)  # sizes no other test compiles
    assert "matmul" in native_paths(kernel)
    _check_matmul_relu(reference, kernel, m, k, n)
    if m * k * n <= blas_threads.SOLO_WORK:
        assert not rests and counts[1:] == [1, 4]  # one thread, then as it was
    else:
        assert rests and counts == [4]


_TRIANGLE = """
tir.prim_func @upper(%X: !tir.buffer<[512, 512], f32>, %Y: !tir.buffer<[512, 512], f32>) {
  tir.for i in [0, 512) {
    tir.for j in [i, 512) {
      %x = tir.load %X[i, j] : f32
      %e = math.exp %x : f32
      tir.store %Y[i, j], %e : f32
    }
  }
}
"""


def test_a_loop_bound_on_an_outer_variable_is_native_when_split():
    # The work the entry passes the thread pool counts the inner loop at the middle of
    # the outer one's range; it read the outer variable outside its loop and the kernel
    # fell back to numpy ("the data-dependent variable 'i'").
    x = RNG.uniform(-1, 1, (512, 512)).astype(np.float32)
    _, want, got = run_library(_TRIANGLE, "upper", [x], [(512, 512)])
    assert_same(want, got)


_ROWS_OUTSIDE = """
tir.prim_func @rows_outside(%A: !tir.buffer<[8, 4, 512], f32>, %B: !tir.buffer<[4, 512, 64], f32>, %C: !tir.buffer<[8, 4, 64], f32>) {
  tir.for i in [0, 8) {
    tir.for b in [0, 4) {
      tir.for j in [0, 64) {
        %zero = arith.constant 0.000000e+00 : f32
        tir.store %C[i, b, j], %zero : f32
        tir.for k in [0, 512) {
          %c = tir.load %C[i, b, j] : f32
          %a = tir.load %A[i, b, k] : f32
          %x = tir.load %B[b, k, j] : f32
          %p = arith.mulf %a, %x : f32
          %s = arith.addf %c, %p : f32
          tir.store %C[i, b, j], %s : f32
        }
      }
    }
  }
}
"""


def test_a_short_first_loop_that_is_the_tiles_rows_is_split_alone():
    # i is the tiles' rows (they run inside the columns) and shorter than 16: split
    # with b as a pair, b's part of the slice read i before it was bound, and the
    # kernel went to BLAS.
    a = RNG.uniform(-1, 1, (8, 4, 512)).astype(np.float32)
    b = RNG.uniform(-1, 1, (4, 512, 64)).astype(np.float32)
    _, want, got = run_library(_ROWS_OUTSIDE, "rows_outside", [a, b], [(8, 4, 64)])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-4)
