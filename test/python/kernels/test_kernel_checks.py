"""What a kernel checks when it runs (docs/shape-safety.md, "Kernels"): ``tir.assert``
facts, ``sym`` sizes, and indices it cannot prove inside a buffer (data-dependent ones
above all) — on the vectorized and the scalar path alike, with one-line messages."""

from __future__ import annotations

import numpy as np
import pytest

import xrelax
from xrelax.backends.kernels import KernelError, compile_prim_func
from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import Fact, sym
from xrelax.dialects.tir import AssertOp, PrimFuncOp
from xrelax.ops import te


def prim_func(body: str) -> PrimFuncOp:
    (func,) = (
        op
        for op in xrelax.parse(f"builtin.module {{\n{body}\n}}").body.block.ops
        if isinstance(op, PrimFuncOp)
    )
    return func


def both_paths(body: str):
    """The vectorized kernel and the scalar-loop kernel of the prim_func ``body``."""
    func = prim_func(body)
    return compile_prim_func(func), compile_prim_func(func, vectorize=False)


def refusal(kernel, *args) -> str:
    with pytest.raises(KernelError) as info:
        kernel(*args)
    return str(info.value)


# ----------------------------------------------------------------------------- tir.assert

MATMUL = """
tir.prim_func @matmul(%A: !tir.buffer<[n, k], f32>, %B: !tir.buffer<[m, 4], f32>, %C: !tir.buffer<[n, 4], f32>) {
  tir.assert [k] == [m], "relax.matmul: the lhs columns equal the rhs rows"
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %z = arith.constant 0.0 : f32
      tir.store %C[i, j], %z : f32
      tir.for r in [0, k) {
        %a = tir.load %A[i, r] : f32
        %b = tir.load %B[r, j] : f32
        %c = tir.load %C[i, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}"""


@pytest.mark.parametrize("vectorize", [True, False])
def test_an_assert_runs_before_any_loop_reads_memory(vectorize):
    kernel = compile_prim_func(prim_func(MATMUL), vectorize=vectorize)
    out = np.empty((2, 4), np.float32)
    a, b = np.ones((2, 3), np.float32), np.ones((5, 4), np.float32)
    assert refusal(kernel, a, b, out) == (
        "kernel @matmul: relax.matmul: the lhs columns equal the rhs rows: "
        "expected k == m, got k = 3, m = 5"
    )
    # Here the loops would read rows of B that do not exist: the assert speaks first.
    assert refusal(kernel, np.ones((2, 5), np.float32), np.ones((3, 4), np.float32), out) == (
        "kernel @matmul: relax.matmul: the lhs columns equal the rhs rows: "
        "expected k == m, got k = 5, m = 3"
    )
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    kernel(a, b, out)
    np.testing.assert_array_equal(out, a @ b)


RELATIONS = """
tir.prim_func @relations(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[p], f32>) sym [s] {
  tir.assert [n, floormod(m * 3, 4)] == [p, 0], "equal"
  tir.assert [m * 2] <= [p + s], "at most"
  tir.assert [s] < [7], "below"
  tir.for i in [0, p) {
    %z = arith.constant 1.0 : f32
    tir.store %B[i], %z : f32
  }
}"""


@pytest.mark.parametrize("vectorize", [True, False])
@pytest.mark.parametrize(
    ("shape", "p", "s", "message"),
    [
        ((4, 4), 4, 4, None),
        ((4, 4), 4, 6, None),
        ((3, 4), 4, 0, "equal: expected n == p, got n = 3, p = 4"),
        (
            (4, 2),
            4,
            0,
            "equal: expected floormod(m * 3, 4) == 0, got m = 2 (floormod(m * 3, 4) = 2)",
        ),
        (
            (4, 8),
            4,
            6,
            "at most: expected m * 2 <= p + s, got m = 8, p = 4, s = 6 (m * 2 = 16, p + s = 10)",
        ),
        ((4, 4), 4, 7, "below: expected s < 7, got s = 7"),
    ],
)
def test_each_relation_holds_or_names_the_failing_pair(vectorize, shape, p, s, message):
    kernel = compile_prim_func(prim_func(RELATIONS), vectorize=vectorize)
    args = (np.zeros(shape, np.float32), np.zeros(p, np.float32), s)
    if message is None:
        kernel(*args)
        np.testing.assert_array_equal(args[1], 1)
    else:
        assert refusal(kernel, *args) == f"kernel @relations: {message}"


def test_an_assert_of_constants_says_what_it_expected():
    kernel = compile_prim_func(
        prim_func(
            "tir.prim_func @fixed(%A: !tir.buffer<[n], f32>) {\n"
            '  tir.assert [5] == [4], "@addb: buffer #1 %B dimension 0 is m"\n}'
        )
    )
    assert refusal(kernel, np.zeros(1, np.float32)) == (
        "kernel @fixed: @addb: buffer #1 %B dimension 0 is m: expected 5 == 4"
    )


def test_an_assert_inside_a_loop_checks_each_iteration_on_the_scalar_path():
    body = """
tir.prim_func @rows(%A: !tir.buffer<[n], i64>, %B: !tir.buffer<[n], i64>) {
  tir.for i in [0, n) {
    %a = tir.load %A[i] : i64
    tir.let t = %a : i64
    tir.assert [t] <= [i], "a row looks back"
    tir.store %B[i], %a : i64
  }
}"""
    fast, slow = both_paths(body)
    assert [p.path for p in fast.paths] == ["scalar"]
    for kernel in (fast, slow):
        out = np.zeros(3, np.int64)
        kernel(np.array([0, 1, 1]), out)
        np.testing.assert_array_equal(out, [0, 1, 1])
        assert refusal(kernel, np.array([0, 2, 1]), out) == (
            "kernel @rows: a row looks back: expected t <= i, got i = 1, t = 2"
        )


def test_assert_op_of_fact_and_back():
    fact = Fact(sym("k"), "==", sym("m") * 2, "relax.matmul: why")
    op = AssertOp.of_fact(fact)
    assert op.facts() == [fact]
    two = AssertOp(["n", 3], "<", ["m", "n + 1"], "two")
    assert [str(f) for f in two.facts()] == ["n < m", "3 < n + 1"]


def test_create_prim_func_puts_asserts_first_and_binds_their_variables():
    n, k, m = sym("n"), sym("k"), sym("m")
    A = te.placeholder((n, k), dtypes.F32, "A")
    B = te.compute((n,), lambda i: A[i, 0], "B")
    facts = [
        Fact(k, "<=", m, "the window fits"),
        Fact(symbolic.floormod(k, 2), "==", symbolic.as_expr(0), "k is even"),
    ]
    func, sym_params = te.create_prim_func("first", [A, B], facts)
    assert sym_params == ["m"]
    ops = list(func.body.block.ops)
    assert [op.facts() for op in ops[:2]] == [[facts[0]], [facts[1]]]
    kernel = compile_prim_func(func)
    out = np.empty(2, np.float32)
    kernel(np.ones((2, 4), np.float32), out, 4)
    np.testing.assert_array_equal(out, 1)
    assert refusal(kernel, np.ones((2, 3), np.float32), out, 4) == (
        "kernel @first: k is even: expected floormod(k, 2) == 0, got k = 3 (floormod(k, 2) = 1)"
    )


# ----------------------------------------------------------------------------- sizes


def test_the_entry_binds_at_the_first_whole_dimension_outputs_included():
    # n first appears whole in the output: it is bound there, and the input's compound
    # dimension and the repeated dimension are checked against it.
    kernel = compile_prim_func(
        prim_func(
            """
tir.prim_func @halve(%A: !tir.buffer<[n * 2], f32>, %B: !tir.buffer<[n, n], f32>) {
  tir.for i in [0, n) {
    %a = tir.load %A[i * 2] : f32
    tir.store %B[i, i], %a : f32
  }
}"""
        )
    )
    kernel(np.arange(6, dtype=np.float32), out := np.zeros((3, 3), np.float32))
    np.testing.assert_array_equal(np.diag(out), [0, 2, 4])
    assert refusal(kernel, np.zeros(5, np.float32), np.zeros((3, 3), np.float32)) == (
        "kernel @halve: buffer #0 %A dimension 0 is 5, expected n * 2 = 6 (n = 3)"
    )
    assert refusal(kernel, np.zeros(6, np.float32), np.zeros((3, 2), np.float32)) == (
        "kernel @halve: buffer #1 %B dimension 1 is 2, expected n = 3"
    )


def test_a_negative_sym_value_is_refused():
    kernel = compile_prim_func(prim_func(RELATIONS))
    args = (np.zeros((4, 4), np.float32), np.zeros(4, np.float32))
    assert refusal(kernel, *args, -3) == (
        "kernel @relations: sym argument #0 's': expected a size >= 0, got -3"
    )
    kernel(*args, np.int32(4))


# ----------------------------------------------------------------------------- indices

GATHER = """
tir.prim_func @take(%X: !tir.buffer<[v, d], f32>, %I: !tir.buffer<[b], i64>, %Y: !tir.buffer<[b, d], f32>) {
  tir.for i in [0, b) {
    tir.for j in [0, d) {
      %p = tir.load %I[i] : i64
      tir.let t = %p : i64
      %x = tir.load %X[t, j] : f32
      tir.store %Y[i, j], %x : f32
    }
  }
}"""


@pytest.mark.parametrize("bad", [-1, -3, 2, 7])
def test_a_data_dependent_index_outside_the_buffer_is_an_error_not_a_wrap(bad):
    fast, slow = both_paths(GATHER)
    assert "gather" in fast.paths[0].detail
    assert slow.paths[0].path == "scalar"
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for kernel in (fast, slow):
        out = np.empty((3, 3), np.float32)
        kernel(x, np.array([1, 0, 1]), out)
        np.testing.assert_array_equal(out, x[[1, 0, 1]])
        assert refusal(kernel, x, np.array([0, bad, 1]), out) == (
            f"kernel @take: index {bad} out of range [0, 2) for axis 0 of buffer %X"
        )


def test_the_vectorized_check_is_one_test_over_the_whole_index_array():
    fast, _ = both_paths(GATHER)
    tests = [line.strip() for line in fast.source.splitlines() if "< 0) |" in line]
    assert len(tests) == 1 and tests[0].endswith(".any():"), fast.source


SCATTER = """
tir.prim_func @scatter(%V: !tir.buffer<[b], f32>, %I: !tir.buffer<[b], i32>, %Y: !tir.buffer<[n], f32>) {
  tir.for i in [0, b) {
    %p = tir.load %I[i] : i32
    tir.let t = %p : i32
    %v = tir.load %V[i] : f32
    tir.store %Y[t], %v : f32
  }
}"""


def test_a_data_dependent_store_index_is_checked():
    fast, slow = both_paths(SCATTER)
    for kernel in (fast, slow):
        out = np.zeros(3, np.float32)
        kernel(np.array([1, 2], np.float32), np.array([2, 0], np.int32), out)
        np.testing.assert_array_equal(out, [2, 0, 1])
        assert refusal(kernel, np.ones(2, np.float32), np.array([0, -1], np.int32), out) == (
            "kernel @scatter: index -1 out of range [0, 3) for axis 0 of buffer %Y"
        )


def test_scalar_loops_check_what_their_bounds_do_not_prove():
    body = """
tir.prim_func @shift(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[m], f32>) {
  %first = tir.load %A[0] : f32
  tir.for i in [0, m) {
    %a = tir.load %A[i - 1] : f32
    %s = arith.addf %a, %first : f32
    tir.store %B[i], %s : f32
  }
}"""
    _, slow = both_paths(body)
    assert refusal(slow, np.ones(3, np.float32), np.zeros(2, np.float32)) == (
        "kernel @shift: index -1 out of range [0, 3) for axis 0 of buffer %A"
    )
    # A value loaded outside the buffer is an error where it is used: %first is read
    # at i = 0 (A[-1] comes first), and not at all when the loop is empty.
    assert refusal(slow, np.zeros(0, np.float32), np.zeros(2, np.float32)) == (
        "kernel @shift: index -1 out of range [0, 0) for axis 0 of buffer %A"
    )
    slow(np.zeros(0, np.float32), np.zeros(0, np.float32))


def test_a_select_discards_an_out_of_range_load_on_both_paths():
    # relax.concat's form: where i < n the second operand's index is negative.
    body = """
tir.prim_func @concat(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[m], f32>, %C: !tir.buffer<[n + m], f32>) {
  tir.for i in [0, n + m) {
    %a = tir.load %A[i] : f32
    %b = tir.load %B[i - n] : f32
    %k = tir.index i : i64
    %e = tir.index n : i64
    %c = arith.cmpi slt, %k, %e : i64
    %v = arith.select %c, %a, %b : f32
    tir.store %C[i], %v : f32
  }
}"""
    fast, slow = both_paths(body)
    assert "split" in fast.paths[0].detail
    a, b = np.arange(3, dtype=np.float32), np.arange(5, dtype=np.float32) + 10
    for kernel, x, y in ((fast, a, b), (slow, a, b), (fast, b, a), (slow, b, a)):
        out = np.empty(8, np.float32)
        kernel(x, y, out)
        np.testing.assert_array_equal(out, np.concatenate([x, y]))


def test_an_index_is_checked_where_a_select_chooses_the_value_read():
    # The condition depends on data: the vectorized select reads both operands over the
    # whole box, and checks the gathered one only where it is chosen.
    n, m = sym("n"), sym("m")
    A = te.placeholder((n, m), dtypes.F32, "A")
    idx = te.placeholder((n,), dtypes.I64, "I")
    Y = te.compute((n, m), lambda i, j: te.if_then_else(A[i, j] < 0.0, A[idx[i], j], 0.0), "Y")
    func, _ = te.create_prim_func("guarded", [A, idx, Y])
    fast, slow = compile_prim_func(func), compile_prim_func(func, vectorize=False)
    assert fast.paths[0].path == "elementwise"
    a = np.array([[1, -1], [1, 1]], np.float32)
    for kernel in (fast, slow):
        out = np.empty((2, 2), np.float32)
        kernel(a, np.array([0, -7]), out)  # row 1 never chooses its index
        np.testing.assert_array_equal(out, [[0, -1], [0, 0]])
        assert refusal(kernel, a, np.array([5, 0]), out) == (
            "kernel @guarded: index 5 out of range [0, 2) for axis 0 of buffer %A"
        )


def test_a_row_major_view_past_the_buffer_is_an_error():
    body = """
tir.prim_func @rows(%A: !tir.buffer<[n, 4], f32>, %B: !tir.buffer<[k], f32>) {
  tir.for i in [0, k) {
    %a = tir.load %A[floordiv(i, 4), floormod(i, 4)] : f32
    tir.store %B[i], %a : f32
  }
}"""
    fast, _ = both_paths(body)
    assert "reshape" in fast.paths[0].detail
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    out = np.empty(8, np.float32)
    fast(a, out)
    np.testing.assert_array_equal(out, a.reshape(-1))
    assert refusal(fast, a, np.empty(9, np.float32)) == (
        "kernel @rows: buffer %A is accessed at elements [0, 8], outside [0, 8)"
    )


# ------------------------------------------------------------------ relax.take, end to end

TAKE = """
relax.func @main(%x: !relax.tensor<[v, d], f32>, %i: !relax.tensor<[b], i64>) -> !relax.tensor<[b, d], f32> {
  %r = relax.take %x, %i {axis = 0 : i64} : (!relax.tensor<[v, d], f32>, !relax.tensor<[b], i64>) -> !relax.tensor<[b, d], f32>
  relax.return %r : !relax.tensor<[b, d], f32>
}"""


def test_take_counts_from_the_end_within_the_axis_and_refuses_beyond():
    vm = xrelax.VirtualMachine(xrelax.compile(xrelax.parse(TAKE)))["main"]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    indices = np.array([-2, -1, 0, 1])
    np.testing.assert_array_equal(vm(x, indices), np.take(x, indices, axis=0))
    for bad in (-3, 2):
        with pytest.raises(xrelax.VMError) as info:
            vm(x, np.array([0, bad]))
        assert str(info.value) == (
            f"main: kernel @take: index {bad} out of range [0, 2) for axis 0 of buffer %x0"
        )


def test_folding_a_kernel_that_refuses_its_constants_is_a_located_compile_error():
    text = """
tir.prim_func @pick(%A: !tir.buffer<[n], f32>, %I: !tir.buffer<[1], i64>, %C: !tir.buffer<[1], f32>) {
  tir.for i in [0, 1) {
    %p = tir.load %I[i] : i64
    tir.let t = %p : i64
    %a = tir.load %A[t] : f32
    tir.store %C[i], %a : f32
  }
}
relax.func @main() -> !relax.tensor<[1], f32> {
  %a = relax.const dense<[1.0, 2.0]> : !relax.tensor<[2], f32>
  %i = relax.const dense<[-1]> : !relax.tensor<[1], i64>
  %c = relax.call_tir @pick(%a, %i) : (!relax.tensor<[2], f32>, !relax.tensor<[1], i64>) -> !relax.tensor<[1], f32>
  relax.return %c : !relax.tensor<[1], f32>
}"""
    with pytest.raises(xrelax.CompileError) as info:
        xrelax.apply(xrelax.parse(text, "pick.mlir"), "relax-fold-constant")
    assert str(info.value).splitlines()[0] == (
        "pick.mlir:13:3: error: 'relax.call_tir' op kernel @pick: index -1 out of range [0, 2) "
        "for axis 0 of buffer %A"
    )
