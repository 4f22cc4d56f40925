"""The prim_func scoping walk: SSA dominance and isolation, which xDSL's verifier does
not check, reported as one located error."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, f32

from xrelax.dialects import tir
from xrelax.dialects.ir.diagnostics import IRError, verify_module


def _copy_kernel() -> tuple[tir.PrimFuncOp, tir.ForOp]:
    """``B[i] = A[i]`` over ``[0, n)``, built with the Python API."""
    buffer = tir.BufferType.of(["n"], f32)
    func = tir.PrimFuncOp("copy", [buffer, buffer])
    a, b = func.body.block.args
    loop = tir.ForOp("i", 0, "n")
    load = tir.LoadOp(a, ["i"])
    loop.body.block.add_ops([load, tir.StoreOp(b, ["i"], load.result)])
    func.body.block.add_op(loop)
    return func, loop


def test_built_kernel_verifies() -> None:
    func, _ = _copy_kernel()
    verify_module(func)


def test_value_of_another_function_is_refused() -> None:
    func, loop = _copy_kernel()
    outside = arith.ConstantOp(FloatAttr(1.0, f32))
    store = loop.body.block.last_op
    assert isinstance(store, tir.StoreOp)
    store.operands[1] = outside.result
    with pytest.raises(IRError, match="uses a value defined outside its tir.prim_func"):
        verify_module(func)


def test_use_before_definition_is_refused() -> None:
    func, loop = _copy_kernel()
    load, store = list(loop.body.block.ops)
    load.detach()
    loop.body.block.add_op(load)  # now after the store that uses it
    with pytest.raises(IRError, match="operand #1 does not dominate this use"):
        verify_module(func)
