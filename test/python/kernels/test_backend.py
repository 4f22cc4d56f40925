"""The kernel backend on hand-written prim_funcs: the call_tir.mlir example, the entry's
shape checks and their messages, the cache, ``load_library``, the scalar fallback and
the debug listing, and what vectorized code must get right (strides, empty loops,
out-of-bounds accesses, non-constant reduction starts)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xrelax
from xrelax.backends.kernels import DEBUG_ENV, KernelError, compile_prim_func, load_library
from xrelax.dialects.tir import PrimFuncOp

EXAMPLES = Path(__file__).parents[3] / "examples"
RNG = np.random.default_rng(1)


def prim_funcs(text: str) -> dict[str, PrimFuncOp]:
    module = xrelax.parse(text)
    return {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, PrimFuncOp)}


def kernel_of(body: str):
    """Compile the single prim_func of ``builtin.module { body }``."""
    (func,) = prim_funcs(f"builtin.module {{\n{body}\n}}").values()
    return compile_prim_func(func)


ADD = """
tir.prim_func @add(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[m], f32>, %C: !tir.buffer<[n, m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %a = tir.load %A[i, j] : f32
      %b = tir.load %B[j] : f32
      %c = arith.addf %a, %b : f32
      tir.store %C[i, j], %c : f32
    }
  }
}"""


def test_tir_exp_of_the_call_tir_example_runs():
    funcs = prim_funcs((EXAMPLES / "call_tir.mlir").read_text())
    kernel = compile_prim_func(funcs["tir_exp"])
    assert [p.path for p in kernel.paths] == ["elementwise"]
    for n in (0, 1, 7, 1000):
        x = RNG.standard_normal(n).astype(np.float32)
        y = np.empty_like(x)
        assert kernel(x, y) is None
        np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)


def test_load_library_compiles_every_prim_func():
    exp_text = (EXAMPLES / "call_tir.mlir").read_text()
    start = exp_text.index("tir.prim_func")
    exp_func = exp_text[start : exp_text.index("relax.func")]
    kernels = load_library(f"builtin.module {{\n{ADD}\n{exp_func}\n}}\n")
    assert sorted(kernels) == ["add", "tir_exp"]
    a, b = RNG.random((2, 3), np.float32), RNG.random(3, np.float32)
    c = np.empty_like(a)
    kernels["add"](a, b, c)
    np.testing.assert_allclose(c, a + b)


def test_identical_prim_funcs_share_one_compiled_kernel():
    first = kernel_of(ADD)
    renamed = kernel_of(ADD.replace("@add", "@plus"))
    assert renamed.compiled is first.compiled
    assert renamed.name == "plus" and first.name == "add"
    assert kernel_of(ADD) is first
    other = kernel_of(ADD.replace("arith.addf", "arith.mulf"))
    assert other.compiled is not first.compiled


# ----------------------------------------------------------------------------- shape checks

SCALE = """
tir.prim_func @scale(%A: !tir.buffer<[n, 4], f32>, %B: !tir.buffer<[n * 2, 4], f32>) sym [s] {
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %a = tir.load %A[i, j] : f32
      tir.store %B[i * 2, j], %a : f32
      tir.store %B[i * 2 + 1, j], %a : f32
    }
  }
}"""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            lambda: (
                np.ones((3, 4), np.float32),
                np.ones(5, np.float32),
                np.ones((3, 4), np.float32),
            ),
            "kernel @add: buffer #1 %B dimension 0 is 5, expected m = 4",
        ),
        (
            lambda: (
                np.ones((3, 4), np.float32),
                np.ones(4, np.float32),
                np.ones((2, 4), np.float32),
            ),
            "kernel @add: buffer #2 %C dimension 0 is 2, expected n = 3",
        ),
        (
            lambda: (np.ones((3, 4)), np.ones(4, np.float32), np.ones((3, 4), np.float32)),
            "kernel @add: buffer #0 %A: expected dtype float32, got float64",
        ),
        (
            lambda: (np.ones(3, np.float32), np.ones(4, np.float32), np.ones((3, 4), np.float32)),
            "kernel @add: buffer #0 %A: expected rank 2, got rank 1 (shape (3,))",
        ),
        (
            lambda: ([[1.0]], np.ones(4, np.float32), np.ones((3, 4), np.float32)),
            "kernel @add: buffer #0 %A: expected a numpy array, got list",
        ),
        (
            lambda: (np.ones((3, 4), np.float32), np.ones(4, np.float32)),
            "kernel @add: expected 3 arguments (3 buffers, 0 sym values), got 2",
        ),
    ],
)
def test_signature_mismatch_messages(args, message):
    kernel = kernel_of(ADD)
    with pytest.raises(KernelError) as info:
        kernel(*args())
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_subclasses_and_equal_dtype_objects_are_accepted():
    kernel = kernel_of(ADD)
    tagged = np.dtype(np.float32, metadata={"unit": "m"})
    assert tagged == np.float32 and tagged is not np.dtype(np.float32)
    a = np.ones((2, 3), tagged)
    b = np.ones(3, np.float32).view(np.ma.MaskedArray)
    c = np.zeros((2, 3), np.float32)
    kernel(a, b, c)
    np.testing.assert_array_equal(c, 2)


def test_floating_point_errors_are_silent_and_the_error_state_is_restored():
    kernel = kernel_of(ADD)
    big = np.full((1, 2), 3e38, np.float32)
    out = np.empty((1, 2), np.float32)
    before = np.geterr()
    with np.errstate(all="raise"):
        kernel(big, big[0], out)
        assert np.geterr()["over"] == "raise"
        with pytest.raises(FloatingPointError):
            np.multiply(big, big)
    assert np.isinf(out).all()
    shift = kernel_of(
        """
tir.prim_func @shift(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %a = tir.load %A[i + 1] : f32
    tir.store %B[i], %a : f32
  }
}"""
    )
    with pytest.raises(KernelError):
        shift(np.ones(3, np.float32), np.ones(3, np.float32))
    assert np.geterr() == before


def test_a_plain_matrix_product_is_one_dot_of_the_buffers():
    kernel = kernel_of(
        """
tir.prim_func @mm(%A: !tir.buffer<[n, k], f32>, %B: !tir.buffer<[k, m], f32>, %C: !tir.buffer<[n, m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %z = arith.constant 0.0 : f32
      tir.store %C[i, j], %z : f32
      tir.for r in [0, k) {
        %c = tir.load %C[i, j] : f32
        %a = tir.load %A[i, r] : f32
        %b = tir.load %B[r, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}"""
    )
    assert [p.path for p in kernel.paths] == ["init", "matmul"]
    assert "np.dot(A, B, out=C)" in kernel.source
    assert ".transpose(" not in kernel.source and ".reshape(" not in kernel.source
    a, b = RNG.random((3, 5), np.float32), RNG.random((5, 4), np.float32)
    c = np.empty((3, 4), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-6)
    strided = np.zeros((3, 8), np.float32)[:, ::2]
    kernel(a, b, strided)
    np.testing.assert_allclose(strided, a @ b, rtol=1e-6)


@pytest.mark.parametrize("batch", [1, 3])
def test_an_output_axis_in_neither_operand_is_a_broadcast_batch(batch):
    # A batch of one that an operand indexes at 0 (a [1, n, k] x [k, m] matmul, BERT's
    # at batch 1) and an axis the product does not depend on: one matrix product,
    # broadcast along that axis, not an elementwise product of every (i, j, r).
    kernel = kernel_of(
        f"""
tir.prim_func @mm(%A: !tir.buffer<[1, n, k], f32>, %B: !tir.buffer<[k, m], f32>, %C: !tir.buffer<[{batch}, n, m], f32>) {{
  tir.for b in [0, {batch}) {{
    tir.for i in [0, n) {{
      tir.for j in [0, m) {{
        %z = arith.constant 0.0 : f32
        tir.store %C[b, i, j], %z : f32
        tir.for r in [0, k) {{
          %c = tir.load %C[b, i, j] : f32
          %a = tir.load %A[0, i, r] : f32
          %w = tir.load %B[r, j] : f32
          %p = arith.mulf %a, %w : f32
          %s = arith.addf %c, %p : f32
          tir.store %C[b, i, j], %s : f32
        }}
      }}
    }}
  }}
}}"""
    )
    assert [p.path for p in kernel.paths] == ["init", "matmul"]
    a, b = RNG.random((1, 5, 6), np.float32), RNG.random((6, 4), np.float32)
    c = np.empty((batch, 5, 4), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, np.broadcast_to(a @ b, c.shape), rtol=1e-6)


def test_expression_and_constant_dimension_messages():
    kernel = kernel_of(SCALE)
    a = np.ones((3, 4), np.float32)
    with pytest.raises(
        KernelError,
        match=r"^kernel @scale: buffer #1 %B dimension 0 is 5, expected n \* 2 = 6 \(n = 3\)$",
    ):
        kernel(a, np.ones((5, 4), np.float32), 0)
    with pytest.raises(
        KernelError, match=r"^kernel @scale: buffer #1 %B dimension 1 is 3, expected 4$"
    ):
        kernel(a, np.ones((6, 3), np.float32), 0)
    with pytest.raises(
        KernelError, match=r"^kernel @scale: sym argument #0 's' must be an integer, got float$"
    ):
        kernel(a, np.ones((6, 4), np.float32), 1.5)
    b = np.zeros((6, 4), np.float32)
    kernel(a, b, np.int64(2))
    np.testing.assert_array_equal(b, 1)


def test_out_of_bounds_access_is_an_error():
    kernel = kernel_of(
        """
tir.prim_func @shift(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %a = tir.load %A[i + 1] : f32
    tir.store %B[i], %a : f32
  }
}"""
    )
    with pytest.raises(KernelError) as info:
        kernel(np.ones(3, np.float32), np.ones(3, np.float32))
    assert str(info.value) == (
        "kernel @shift: buffer %A dimension 0 is accessed at indices [1, 3], outside [0, 3)"
    )


# ----------------------------------------------------------------------------- fallback

CUMSUM = """
tir.prim_func @cumsum(%A: !tir.buffer<[n], f32>, %C: !tir.buffer<[n], f32>) {
  %first = tir.load %A[0] : f32
  tir.store %C[0], %first : f32
  tir.for i in [1, n) {
    %p = tir.load %C[i - 1] : f32
    %a = tir.load %A[i] : f32
    %s = arith.addf %p, %a : f32
    tir.store %C[i], %s : f32
  }
}"""


def test_unrecognised_nest_falls_back_to_correct_scalar_loops(capsys, monkeypatch):
    monkeypatch.setenv(DEBUG_ENV, "1")
    kernel = kernel_of(CUMSUM)
    assert [p.path for p in kernel.paths] == ["elementwise", "scalar"]
    assert (
        kernel.paths[1].detail == "a statement reads a buffer written in the nest at another index"
    )
    listing = capsys.readouterr().err
    assert "[xrelax.kernels] @cumsum nest 1: %C[i]: scalar (a statement reads a buffer" in listing
    x = RNG.random(9).astype(np.float32)
    c = np.empty_like(x)
    kernel(x, c)
    np.testing.assert_allclose(c, np.cumsum(x), rtol=1e-6)


def test_triangular_loop_falls_back():
    kernel = kernel_of(
        """
tir.prim_func @tril_sum(%A: !tir.buffer<[n, n], f32>, %S: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %z = arith.constant 0.0 : f32
    tir.store %S[i], %z : f32
    tir.for j in [0, i + 1) {
      %s = tir.load %S[i] : f32
      %a = tir.load %A[i, j] : f32
      %t = arith.addf %s, %a : f32
      tir.store %S[i], %t : f32
    }
  }
}"""
    )
    assert {p.path for p in kernel.paths} == {"scalar"}
    a = RNG.random((5, 5)).astype(np.float32)
    s = np.empty(5, np.float32)
    kernel(a, s)
    np.testing.assert_allclose(s, np.tril(a).sum(1), rtol=1e-6)


# ----------------------------------------------------------------------------- vectorized edge cases


CHAIN = """
tir.prim_func @chain(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
  %T = tir.alloc_buffer : !tir.buffer<[n], f32>
  %U = tir.alloc_buffer : !tir.buffer<[n], f32>
  %V = tir.alloc_buffer : !tir.buffer<[n], f32>
  tir.for i in [0, n) {
    %a = tir.load %A[i] : f32
    %t = arith.addf %a, %a : f32
    tir.store %T[i], %t : f32
  }
  tir.for i in [0, n) {
    %t = tir.load %T[i] : f32
    %one = arith.constant 1.0 : f32
    %u = arith.addf %t, %one : f32
    tir.store %U[i], %u : f32
  }
  tir.for i in [0, n) {
    %u = tir.load %U[i] : f32
    %v = arith.mulf %u, %u : f32
    tir.store %V[i], %v : f32
  }
  tir.for i in [0, n) {
    %v = tir.load %V[i] : f32
    %u = tir.load %U[i] : f32
    %b = arith.addf %v, %u : f32
    tir.store %B[i], %b : f32
  }
}"""
"""Four stages over three local buffers: V reuses T's array, U overlaps both."""


def test_local_buffers_with_disjoint_lifetimes_share_an_array():
    kernel = kernel_of(CHAIN)
    assert kernel.source.count("pool.empty(") == 2
    for n in (5, 300_000):  # below and above the buffer pool's minimum
        a = RNG.random(n).astype(np.float32)
        b = np.empty_like(a)
        kernel(a, b)
        np.testing.assert_allclose(b, (2 * a + 1) ** 2 + (2 * a + 1), rtol=1e-6)


def test_large_local_buffers_come_from_the_pool_and_go_back():
    from xrelax.backends import buffer_pool

    kernel = kernel_of(CHAIN)
    buffer_pool.clear()
    a = RNG.random(100_000).astype(np.float32)
    b = np.empty_like(a)
    kernel(a, b)
    assert buffer_pool.cached_bytes() == 800_000  # the arrays of T (and V) and U
    kernel(a + 1, b)  # takes the pooled buffers and gives them back
    assert buffer_pool.cached_bytes() == 800_000
    np.testing.assert_allclose(b, (2 * a + 3) ** 2 + (2 * a + 3), rtol=1e-6)
    kernel(a[:10], b[:10])  # small: np.empty
    assert buffer_pool.cached_bytes() == 800_000
    buffer_pool.clear()


def test_non_contiguous_arguments():
    kernel = kernel_of(ADD)
    a = RNG.random((4, 3)).astype(np.float32).T
    b = RNG.random(8).astype(np.float32)[::2]
    c = np.zeros((4, 3), np.float32).T
    kernel(a, b, c)
    np.testing.assert_allclose(c, a + b)


def test_empty_loops_do_nothing():
    kernel = kernel_of(ADD)
    c = np.zeros((0, 3), np.float32)
    kernel(np.zeros((0, 3), np.float32), np.ones(3, np.float32), c)
    assert c.shape == (0, 3)


def test_reduction_accumulates_onto_a_computed_start():
    kernel = kernel_of(
        """
tir.prim_func @bias_rowsum(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[n], f32>, %C: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %b = tir.load %B[i] : f32
    tir.store %C[i], %b : f32
    tir.for k in [0, m) {
      %c = tir.load %C[i] : f32
      %a = tir.load %A[i, k] : f32
      %s = arith.addf %c, %a : f32
      tir.store %C[i], %s : f32
    }
  }
}"""
    )
    assert [p.path for p in kernel.paths] == ["elementwise", "reduce"]
    a, b = RNG.random((3, 5)).astype(np.float32), RNG.random(3).astype(np.float32)
    c = np.empty(3, np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, b + a.sum(1), rtol=1e-6)


def test_top_level_scalars_and_data_dependent_select():
    kernel = kernel_of(
        """
tir.prim_func @pick(%A: !tir.buffer<[n], f32>, %K: !tir.buffer<[], i64>, %B: !tir.buffer<[n], f32>, %S: !tir.buffer<[], f32>) {
  %k = tir.load %K[] : i64
  tir.let t = %k : i64
  %at = tir.load %A[t] : f32
  tir.store %S[], %at : f32
  tir.for i in [0, n) {
    %a = tir.load %A[i] : f32
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %a, %zero : f32
    %neg = arith.negf %a : f32
    %v = arith.select %pos, %a, %neg : f32
    %w = arith.addf %v, %at : f32
    tir.store %B[i], %w : f32
  }
}"""
    )
    assert [p.path for p in kernel.paths] == ["elementwise", "elementwise"]
    a = RNG.standard_normal(6).astype(np.float32)
    b, s = np.empty_like(a), np.empty((), np.float32)
    kernel(a, np.asarray(4), b, s)
    assert s == a[4]
    np.testing.assert_allclose(b, np.abs(a) + a[4])


def test_integer_semantics_match_numpy():
    kernel = kernel_of(
        """
tir.prim_func @int_ops(%A: !tir.buffer<[n], i32>, %B: !tir.buffer<[n], i32>, %Q: !tir.buffer<[n], i32>, %R: !tir.buffer<[n], i32>, %T: !tir.buffer<[n], i32>) {
  tir.for i in [0, n) {
    %a = tir.load %A[i] : i32
    %b = tir.load %B[i] : i32
    %q = arith.floordivsi %a, %b : i32
    tir.store %Q[i], %q : i32
    %r = arith.remsi %a, %b : i32
    tir.store %R[i], %r : i32
    %t = arith.divsi %a, %b : i32
    tir.store %T[i], %t : i32
  }
}"""
    )
    a = np.array([7, -7, 7, -7, 0, 5], np.int32)
    b = np.array([2, 2, -2, -2, 3, 5], np.int32)
    q, r, t = (np.empty_like(a) for _ in range(3))
    kernel(a, b, q, r, t)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, np.fmod(a, b))
    np.testing.assert_array_equal(t, np.trunc(a / b).astype(np.int32))


def test_ops_without_a_numpy_equivalent_are_a_compile_error():
    with pytest.raises(ValueError, match=r"^the kernel backend cannot compute 'arith.cmpf ult'$"):
        kernel_of(
            """
tir.prim_func @unordered(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], i1>) {
  tir.for i in [0, n) {
    %a = tir.load %A[i] : f32
    %c = arith.cmpf ult, %a, %a : f32
    tir.store %B[i], %c : i1
  }
}"""
        )


def test_loop_divided_by_a_constant_is_split_into_views():
    kernel = kernel_of(
        """
tir.prim_func @upsample(%A: !tir.buffer<[n, 3], f32>, %B: !tir.buffer<[n * 2, 3], f32>) {
  tir.for i in [0, n * 2) {
    tir.for j in [0, 3) {
      %a = tir.load %A[floordiv(i, 2), j] : f32
      %p = tir.index floormod(i, 2) : i64
      %f = arith.sitofp %p : i64 to f32
      %s = arith.addf %a, %f : f32
      tir.store %B[i, j], %s : f32
    }
  }
}"""
    )
    assert [(p.path, p.detail) for p in kernel.paths] == [
        ("elementwise", "strided, view, loops split")
    ]
    a = RNG.random((4, 3)).astype(np.float32)
    b = np.empty((8, 3), np.float32)
    kernel(a, b)
    np.testing.assert_allclose(b, np.repeat(a, 2, axis=0) + np.tile([[0], [1]], (4, 1)))


def test_select_that_reads_its_own_target_in_place():
    # After tir-reuse-buffers a masked fill updates its output in place: filling the
    # output with one branch first would destroy the other.
    kernel = kernel_of(
        """
tir.prim_func @masked(%M: !tir.buffer<[n], i1>, %F: !tir.buffer<[], f32>, %B: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %m = tir.load %M[i] : i1
    %b = tir.load %B[i] : f32
    %f = tir.load %F[] : f32
    %s = arith.select %m, %b, %f : f32
    tir.store %B[i], %s : f32
  }
}"""
    )
    mask = np.array([True, False, True, False])
    b = np.arange(4, dtype=np.float32)
    kernel(mask, np.array(-1.0, np.float32), b)
    np.testing.assert_array_equal(b, [0, -1, 2, -1])


def test_in_place_update_that_multiplies_is_elementwise():
    # After tir-reuse-buffers, SiLU updates its output in place: B[i] = B[i] * s(B[i])
    # has the form of a product reduction but no reduction axis, so it is elementwise.
    kernel = kernel_of(
        """
tir.prim_func @silu_in_place(%B: !tir.buffer<[n, 2], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, 2) {
      %x = tir.load %B[i, j] : f32
      %one = arith.constant 1.000000e+00 : f32
      %m = arith.negf %x : f32
      %e = math.exp %m : f32
      %d = arith.addf %one, %e : f32
      %s = arith.divf %one, %d : f32
      %y = arith.mulf %x, %s : f32
      tir.store %B[i, j], %y : f32
    }
  }
}"""
    )
    assert [p.path for p in kernel.paths] == ["elementwise"]
    b = np.linspace(-3, 3, 8, dtype=np.float32).reshape(4, 2)
    expected = b / (1 + np.exp(-b))
    kernel(b)
    np.testing.assert_allclose(b, expected, rtol=1e-6)


def test_nested_divisions_split_to_a_matrix_product():
    # A window partition (reshape, permute, reshape) feeding a matmul, as Swin's
    # attention reads its input: after splitting i by 16 and then by 4, the index
    # floormod(floordiv(i, 4), 4) is floormod(o + floordiv(i_lo, 4), 4), which only a
    # second round of simplification reduces to o (not a loop split into extent 1).
    kernel = kernel_of(
        """
tir.prim_func @window_matmul(%A: !tir.buffer<[n, 4, 4, 4, 4, 8], f32>, %W: !tir.buffer<[6, 8], f32>, %C: !tir.buffer<[n * 16, 16, 6], f32>) {
  tir.for i in [0, n * 16) {
    tir.for j in [0, 16) {
      tir.for c in [0, 6) {
        %z = arith.constant 0.000000e+00 : f32
        tir.store %C[i, j, c], %z : f32
        tir.for k in [0, 8) {
          %acc = tir.load %C[i, j, c] : f32
          %a = tir.load %A[floordiv(i, 16), floormod(floordiv(i, 4), 4), floormod(i, 4), floordiv(j, 4), floormod(j, 4), k] : f32
          %w = tir.load %W[c, k] : f32
          %p = arith.mulf %a, %w : f32
          %s = arith.addf %acc, %p : f32
          tir.store %C[i, j, c], %s : f32
        }
      }
    }
  }
}"""
    )
    assert [(p.path, p.detail) for p in kernel.paths] == [
        ("init", "fused into the reduction"),
        ("matmul", "strided, view, loops split"),
    ]
    a = RNG.random((2, 4, 4, 4, 4, 8)).astype(np.float32)
    w = RNG.random((6, 8)).astype(np.float32)
    c = np.empty((32, 16, 6), np.float32)
    kernel(a, w, c)
    np.testing.assert_allclose(c, a.reshape(32, 16, 8) @ w.T, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_negation_of_strided_columns(dtype):
    # np.negative of numpy 2.4 misreads 32-bit strided inputs into strided outputs.
    kernel = kernel_of(
        f"""
tir.prim_func @negate_column(%A: !tir.buffer<[n, 4], {dtype}>, %B: !tir.buffer<[n, 4], {dtype}>) {{
  tir.for i in [0, n) {{
    %a = tir.load %A[i, 1] : {dtype}
    %b = arith.negf %a : {dtype}
    tir.store %B[i, 2], %b : {dtype}
  }}
}}"""
    )
    a = np.arange(16, dtype="float32" if dtype == "f32" else "float64").reshape(4, 4)
    b = np.zeros_like(a)
    kernel(a, b)
    np.testing.assert_array_equal(b[:, 2], -a[:, 1])


def _window_kernel(init: str, combine: str, store_index: str = "[i, j]") -> str:
    """C[i, j] (or as given) = init `combine` A[i, 2*j + r] over r in [0, 3) (and s < 2)."""
    init_lines = (
        f"""      %z = arith.constant {init} : f32
      tir.store %C{store_index}, %z : f32
"""
        if init
        else ""
    )
    return f"""
tir.prim_func @window(%A: !tir.buffer<[n, 2 * m + 1, 2], f32>, %C: !tir.buffer<[n, m], f32>) {{
  tir.for i in [0, n) {{
    tir.for j in [0, m) {{
{init_lines}      tir.for r in [0, 3) {{
        tir.for s in [0, 2) {{
          %c = tir.load %C{store_index} : f32
          %a = tir.load %A[i, j * 2 + r, s] : f32
          %v = {combine} %c, %a : f32
          tir.store %C{store_index}, %v : f32
        }}
      }}
    }}
  }}
}}"""


@pytest.mark.parametrize(
    ("init", "combine", "expected"),
    [
        ("-3.4e38", "arith.maximumf", lambda w, c: w.max(axis=(2, 3))),
        ("1.5", "arith.addf", lambda w, c: 1.5 + w.sum(axis=(2, 3))),
        ("", "arith.addf", lambda w, c: c + w.sum(axis=(2, 3))),
    ],
    ids=["max from identity", "sum from a constant", "update of the output"],
)
def test_a_small_static_window_reduction_is_unrolled_into_ufunc_calls(init, combine, expected):
    kernel = kernel_of(_window_kernel(init, combine))
    assert [p.path for p in kernel.paths][-1] == "reduce"
    # 6 window points: one ufunc call per point from 60 outputs on, else one reduce.
    assert "if (m * n) >= 60:" in kernel.source
    assert kernel.source.count(", t[:, :, ") == 6
    for n, m in [(4, 5), (16, 10)]:
        a = RNG.standard_normal((n, 2 * m + 1, 2)).astype(np.float32)
        c = RNG.standard_normal((n, m)).astype(np.float32)
        windows = np.lib.stride_tricks.sliding_window_view(a, (3, 2), axis=(1, 2))[:, ::2, 0]
        want = expected(windows, c.copy())
        kernel(a, c)
        np.testing.assert_allclose(c, want, rtol=1e-6, atol=1e-6)


def test_a_window_reduction_with_few_static_outputs_stays_one_reduce():
    body = _window_kernel("0.0", "arith.addf")
    for symbolic, static in [
        ("2 * m + 1", "7"),
        ("n, m", "2, 3"),
        ("0, n", "0, 2"),
        ("0, m", "0, 3"),
    ]:
        body = body.replace(symbolic, static)
    kernel = kernel_of(body)
    assert "np.add.reduce(" in kernel.source and ", t[:, :, " not in kernel.source
    a = RNG.standard_normal((2, 7, 2)).astype(np.float32)
    c = np.empty((2, 3), np.float32)
    kernel(a, c)
    windows = np.lib.stride_tricks.sliding_window_view(a, (3, 2), axis=(1, 2))[:, ::2, 0]
    np.testing.assert_allclose(c, windows.sum(axis=(2, 3)), rtol=1e-6)


def test_a_window_larger_than_the_unroll_limit_stays_one_reduce():
    body = _window_kernel("0.0", "arith.addf").replace("[0, 3)", "[0, 9)")
    body = body.replace("2 * m + 1", "2 * m + 7")
    kernel = kernel_of(body)
    assert "np.add.reduce(" in kernel.source
    a = RNG.standard_normal((2, 13, 2)).astype(np.float32)
    c = np.empty((2, 3), np.float32)
    kernel(a, c)
    windows = np.lib.stride_tricks.sliding_window_view(a, (9, 2), axis=(1, 2))[:, ::2, 0]
    np.testing.assert_allclose(c, windows.sum(axis=(2, 3)), rtol=1e-5)


def test_float32_erf_within_7_ulps_of_math_erf():
    import math

    from xrelax.backends.kernels.runtime import erf

    x = np.concatenate(
        [np.linspace(-8, 8, 200001), np.logspace(-30, 1.5, 2000), -np.logspace(-30, 1.5, 2000)]
    ).astype(np.float32)
    expected = np.array([math.erf(float(v)) for v in x])
    result = erf(x)
    assert result.dtype == np.float32
    ulp = np.spacing(np.abs(expected).astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(result - expected) / ulp) <= 7
    special = erf(np.array([np.inf, -np.inf, 0.0, np.nan], np.float32))
    assert special[:3].tolist() == [1.0, -1.0, 0.0] and np.isnan(special[3])
    assert erf(np.float32(0.5)) == pytest.approx(math.erf(0.5), rel=1e-6)


@pytest.mark.parametrize("name", ["pool", "rt", "np", "FP_STATE", "range", "print"])
def test_a_symbolic_variable_may_be_named_like_a_name_kernels_use(name):
    # The kernel's code reads the buffer pool as `pool`, numpy as `np`, ...: a symbolic
    # variable of the same name gets another Python name (the local buffers of size
    # [pool] of 256 KiB and more come from the buffer pool).
    kernel = kernel_of(CHAIN.replace("[n]", f"[{name}]").replace("[0, n)", f"[0, {name})"))
    a = RNG.random(70_000).astype(np.float32)
    b = np.empty_like(a)
    kernel(a, b)
    u = 2 * a + 1
    np.testing.assert_allclose(b, u * u + u, rtol=1e-6)
