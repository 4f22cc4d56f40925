"""The TE-style builder: the prim_funcs it creates (signature, intermediates, sym
parameters, loop nests), their print/parse round trip, and its errors."""

from __future__ import annotations

import numpy as np
import pytest
import te_programs as tp
from xdsl.dialects.builtin import ModuleOp

import xrelax
from xrelax.backends.kernels import compile_prim_func
from xrelax.dialects import dtypes
from xrelax.dialects.ir.diagnostics import verify_module
from xrelax.dialects.shapes.symbolic import floordiv, sym
from xrelax.dialects.tir import AllocBufferOp, PrimFuncOp
from xrelax.ops import te

F32, I32, I64 = dtypes.F32, dtypes.I32, dtypes.I64


def text_of(func: PrimFuncOp) -> str:
    module = ModuleOp([func])
    verify_module(module)
    return xrelax.print_module(module)


def programs() -> dict[str, list[te.Tensor]]:
    """One instance of every TE program of ``te_programs``."""
    a, b, c = tp.binary(tp.BINARY["add"][0], tp.shape_vars("n", 2), [1, sym("n1")])
    x, y = tp.softmax(2, 1, log=True)
    ln_inputs, ln = tp.layer_norm(2)
    cx, cw, cy = tp.conv(2, [3, 3], [2, 1], [1, 0], [1, 2], 2, (4, 6))
    px, py = tp.pool2d("avg", [3, 2], [2, 2], [1, 1])
    tx, ti, ty = tp.take(1)
    concat_inputs, concat = tp.concat(3, 1)
    sx, souts = tp.split(2, 0)
    full_inputs, full = tp.full(None, I32)
    ax, ay = tp.astype(F32, dtypes.I1)
    return {
        "add": [a, b, c],
        "log_softmax": [x, y],
        "layer_norm": [*ln_inputs, ln],
        "conv2d": [cx, cw, cy],
        "avg_pool2d": [px, py],
        "take": [tx, ti, ty],
        "concat": [*concat_inputs, concat],
        "split": [sx, *souts],
        "matmul": list(tp.matmul([sym("b"), 1, sym("n"), sym("k")], [sym("k"), sym("m")])),
        "reshape": list(
            tp.reshape([sym("a"), sym("b") * sym("c")], [sym("b") * sym("c"), sym("a")])
        ),
        "where": list(
            tp.where([sym("n0"), 1], [sym("n1")], tp.shape_vars("n", 2), tp.shape_vars("n", 2))
        ),
        "full": [*full_inputs, full],
        "astype": [ax, ay],
        "arange": [tp.arange(F32)],
        "mean": list(tp.reduce("mean", 3, [0, 2], True)),
        "slice": list(tp.strided_slice(9, 7, 1, -2)),
        "call_tir_dyn": list(tp.call_tir_dyn()),
    }


@pytest.mark.parametrize("name", sorted(programs()))
def test_generated_prim_funcs_verify_print_and_reparse_identically(name):
    func, _ = te.create_prim_func(name, programs()[name])
    text = text_of(func)
    assert xrelax.print_module(xrelax.parse(text)) == text
    generic = xrelax.print_module(xrelax.parse(text), generic=True)
    assert xrelax.print_module(xrelax.parse(generic)) == text


def test_softmax_stages_become_loop_nests_over_intermediates():
    x, y = tp.softmax(2, 1)
    func, sym_params = te.create_prim_func("softmax", [x, y])
    assert sym_params == []
    allocs = [op.buffer.name_hint for op in func.body.block.ops if isinstance(op, AllocBufferOp)]
    assert allocs == ["max", "exp", "sum"]
    text = text_of(func)
    assert text.startswith(
        "builtin.module {\n  tir.prim_func @softmax(%x: !tir.buffer<[n0, n1], f32>, "
        "%softmax: !tir.buffer<[n0, n1], f32>) {\n"
    )
    assert text.count("tir.for i0 in [0, n0)") == 4
    assert "%0 = arith.constant 0xff800000 : f32" in text
    assert "arith.maximumf" in text


def test_call_tir_dyn_binds_the_unbound_variable_as_sym_param():
    A, B = tp.call_tir_dyn()
    func, sym_params = te.create_prim_func("ewise", [A, B])
    assert sym_params == ["m"]
    assert text_of(func).splitlines()[1] == (
        "  tir.prim_func @ewise(%A: !tir.buffer<[n, floordiv(m, 2) * 2], f32>, "
        "%B: !tir.buffer<[n, floordiv(m, 2) * 2], f32>) sym [m] {"
    )


def test_loop_variables_never_capture_shape_variables():
    i = sym("i")
    A = te.placeholder((i,), F32, "A")
    B = te.compute((i,), lambda i_: A[i_] + te.index(i, F32), "B")
    func, _ = te.create_prim_func("f", [A, B])
    text = text_of(func)
    assert "tir.for i_ in [0, i)" in text
    a = np.arange(4, dtype=np.float32)
    b = np.empty_like(a)
    compile_prim_func(func)(a, b)
    np.testing.assert_array_equal(b, a + 4)


def test_nested_reduction_is_computed_by_its_own_stage():
    X, Y = tp.reduce("mean", 2, [1], False)
    func, _ = te.create_prim_func("mean", [X, Y])
    allocs = [op.buffer.name_hint for op in func.body.block.ops if isinstance(op, AllocBufferOp)]
    assert allocs == ["mean_sum0"]


def test_shared_subexpressions_are_emitted_once():
    X = te.placeholder((sym("n"),), F32, "x")
    k = te.reduce_axis(0, sym("n"), "k")

    def body(i):
        d = X[k] - X[i]
        return te.sum(d * d, axis=k) / 2.0

    func, _ = te.create_prim_func("spread", [X, te.compute((sym("n"),), body, "spread")])
    assert text_of(func).count("arith.subf") == 1


def test_data_dependent_index_is_let_bound():
    X, Idx, Y = tp.take(0)
    func, _ = te.create_prim_func("take", [X, Idx, Y])
    text = text_of(func)
    assert "tir.let t = %0 : i64" in text
    assert "tir.load %x[t, i1] : f32" in text


def test_index_condition_becomes_integer_comparison():
    n = sym("n")
    A = te.placeholder((n,), F32, "A")
    B = te.compute((n,), lambda i: te.if_then_else(i < 3, A[i], 0.0), "B")
    text = text_of(te.create_prim_func("f", [A, B])[0])
    assert "tir.index i : i64" in text and "arith.cmpi slt" in text and "arith.select" in text


def test_builder_errors():
    n = sym("n")
    A = te.placeholder((n,), F32, "A")
    J = te.placeholder((n,), I32, "J")
    with pytest.raises(TypeError, match="'add' of f32 and i32; use te.cast"):
        _ = A[0] + J[0]
    with pytest.raises(TypeError, match="no truth value"):
        bool(A[0] < A[1])
    with pytest.raises(TypeError, match="element type of the constant"):
        te.compute((n,), lambda i: 1.0, "C")
    with pytest.raises(IndexError, match="2 indices for tensor 'A' of rank 1"):
        _ = A[0, 1]
    B = te.compute((n,), lambda i: A[i] * 2.0, "B")
    with pytest.raises(ValueError, match="placeholders .* must come before"):
        te.create_prim_func("f", [B, A])
    with pytest.raises(ValueError, match="placeholder 'A' is read but not a parameter"):
        te.create_prim_func("f", [B])
    k = te.reduce_axis(0, n, "k")
    r = te.reduce_axis(0, n, "r")
    with pytest.raises(TypeError, match="nested reduction may only depend"):
        te.compute((n,), lambda i: te.sum(te.max(A[r] * A[k], axis=r) + 1.0, axis=k), "C")


def test_floordiv_shapes_and_index_arithmetic_stay_symbolic():
    n = sym("n")
    A = te.placeholder((n,), F32, "A")
    B = te.compute((floordiv(n, 2),), lambda i: A[2 * i + 1], "B")
    func, sym_params = te.create_prim_func("odd", [A, B])
    assert sym_params == []
    assert "tir.load %A[i * 2 + 1] : f32" in text_of(func)
    a = np.arange(7, dtype=np.float32)
    b = np.empty(3, np.float32)
    compile_prim_func(func)(a, b)
    np.testing.assert_array_equal(b, a[1::2])
