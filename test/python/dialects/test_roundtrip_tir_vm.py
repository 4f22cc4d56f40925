"""Every operation of the tir and vm dialects keeps a discardable attribute through print
and parse, and every string it prints (assert messages, match labels and contexts,
callee names, constants) re-parses to the same text when it holds ``"`` and ``\\``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import StringAttr
from xdsl.utils.exceptions import VerifyException

import xrelax
from xrelax.dialects import tir, vm

sys.path.insert(0, str(Path(__file__).parents[1]))

from discardable import check_round_trip, tagged  # noqa: E402
from test_roundtrip import CASES  # noqa: E402

MORE = """
tir.prim_func @integers(%A: !tir.buffer<[n], ui32>, %B: !tir.buffer<[n], ui32>) {
  tir.for i in [0, n) {
    %a = tir.load %A[i] : ui32
    %p = tir.powui %a, %a : ui32
    tir.store %B[i], %p : ui32
  }
}
relax.func @prims(%i: !relax.prim<i64, i>, %x: !relax.tensor<[4], f32>) -> !relax.prim<i64, i> {
  %h = vm.alloc_shape_heap 1 : !relax.tensor<[1], i64>
  %j = vm.match_prim %i, %h [store h0 "i"] "prims: parameter 'i'" : !relax.prim<i64, i>, !relax.tensor<[1], i64> -> !relax.prim<i64, i>
  %k = vm.make_prim %h [h0] : !relax.prim<i64, i>
  %d = vm.alloc_tensor_direct shape [4] {dtype = "float32"} : !relax.tensor<[4], f32>
  relax.return %k : !relax.prim<i64, i>
}
"""

PROGRAMS = [
    *((name, text) for name, text in CASES if "dialects/tir" in name or "dialects/vm" in name),
    ("more", MORE),
]

OURS = ("tir.", "vm.")


@pytest.mark.parametrize(("name", "text"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_discardable_attribute_round_trips(name: str, text: str) -> None:
    check_round_trip(text, name, OURS)


def test_every_tir_and_vm_op_is_covered() -> None:
    covered: set[str] = set()
    for name, text in PROGRAMS:
        covered |= tagged(text, name, OURS)[1]
    assert {op.name for op in (*tir.Tir.operations, *vm.VM.operations)} <= covered


QUOTED = r"""
tir.prim_func @k(%X: !tir.buffer<[n], f32>) {
  tir.assert [n] <= [n], "say \"hi\" \\ bye\22"
}
relax.func @main(%x: !relax.tensor<[n, 4], f32>, %i: !relax.prim<i64, i>) -> !relax.tensor<[n, 4], f32> {
  %h = vm.alloc_shape_heap 2 : !relax.tensor<[2], i64>
  vm.check_tensor %x {ndim = 2 : i64, dtype = "float32", context = "t\22\\"} : !relax.tensor<[n, 4], f32>
  %y = vm.match_shape %x, %h [store h0 "n\22\\", equal 4 "\\\""] "c\\\"" : !relax.tensor<[n, 4], f32>, !relax.tensor<[2], i64> -> !relax.tensor<[n, 4], f32>
  %j = vm.match_prim %i, %h [store h1 "i\"\\"] "p\\" : !relax.prim<i64, i>, !relax.tensor<[2], i64> -> !relax.prim<i64, i>
  relax.return %y : !relax.tensor<[n, 4], f32>
}
vm.func @exec(%x) {
  %c = vm.const "a\"b\\c"
  %f = vm.func_ref "k\"\\"
  %r = vm.call "vm.builtin.\"odd\\"(%x, %c, %f) -> !vm.ref
  vm.ret %r
}
"""


def test_quoted_strings_round_trip() -> None:
    module = xrelax.parse(QUOTED)
    printed = xrelax.print_module(module)
    reparsed = xrelax.parse(printed)
    assert xrelax.print_module(reparsed) == printed
    ops = {op.name: op for op in reparsed.walk()}
    assert ops["tir.assert"].message == StringAttr('say "hi" \\ bye"')
    assert ops["vm.check_tensor"].context == StringAttr('t"\\')
    assert ops["vm.match_shape"].entries == [("store", 0, 'n"\\'), ("equal", 4, '\\"')]
    assert ops["vm.match_shape"].context == StringAttr('c\\"')
    assert ops["vm.match_prim"].entries == [("store", 1, 'i"\\')]
    assert ops["vm.match_prim"].context == StringAttr("p\\")
    assert ops["vm.const"].value == StringAttr('a"b\\c')
    assert ops["vm.func_ref"].callee == StringAttr('k"\\')
    assert ops["vm.call"].callee == StringAttr('vm.builtin."odd\\')


def test_symbolic_variable_names_are_identifiers() -> None:
    """tir.for and tir.let print their variable bare: a name that is not an identifier
    would not re-parse, so the verifier refuses it."""
    loop = tir.ForOp("i j", 0, 4)
    with pytest.raises(VerifyException, match="loop variable 'i j' is not an identifier"):
        loop.verify_()
