"""Symbol lookups during verification answer as xDSL's SymbolTable scan does."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.traits import SymbolTable

import xrelax
from xrelax.dialects.ir.diagnostics import IRError, verify_module
from xrelax.dialects.ir.symbol_index import indexed, lookup_symbol, symbol_fact
from xrelax.dialects.relax import CallTIROp

TEXT = """
tir.prim_func @k(%a: !tir.buffer<[n], f32>, %b: !tir.buffer<[n], f32>) {
}
relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %r = relax.call_tir @k(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  relax.return %r : !relax.tensor<[n], f32>
}
"""


def test_indexed_lookup_matches_the_scan() -> None:
    module = xrelax.parse(TEXT)
    call = next(op for op in module.walk() if isinstance(op, CallTIROp))
    for name in ("k", "main", "missing"):
        ref = SymbolRefAttr(name)
        expected = SymbolTable.lookup_symbol(call, ref)
        with indexed(module):
            assert lookup_symbol(call, ref) is expected
        assert lookup_symbol(call, ref) is expected


def test_op_of_another_module_is_looked_up_in_its_own() -> None:
    module, other = xrelax.parse(TEXT), xrelax.parse(TEXT)
    call = next(op for op in other.walk() if isinstance(op, CallTIROp))
    kernel = SymbolTable.lookup_symbol(call, SymbolRefAttr("k"))
    assert kernel is not None and kernel.parent_op() is other
    with indexed(module):
        assert lookup_symbol(call, SymbolRefAttr("k")) is kernel


def test_verifier_reports_a_missing_callee_while_indexed() -> None:
    module = xrelax.parse(TEXT)
    kernel = module.body.block.first_op
    assert kernel is not None
    kernel.detach()
    ModuleOp([kernel])  # @k now lives in another module
    with pytest.raises(IRError, match="'@k' does not reference a tir.prim_func"):
        verify_module(module)


def test_symbol_fact_is_computed_once_per_verification() -> None:
    module = xrelax.parse(TEXT)
    kernel = module.body.block.first_op
    assert kernel is not None
    seen: list[object] = []

    def compute(op: object) -> int:
        seen.append(op)
        return len(seen)

    with indexed(module):
        assert symbol_fact(kernel, "fact", compute) == 1
        assert symbol_fact(kernel, "fact", compute) == 1
    assert symbol_fact(kernel, "fact", compute) == 2
    assert seen == [kernel, kernel]
