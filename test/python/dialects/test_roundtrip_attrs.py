"""Every operation of the relax dialect keeps a discardable attribute through print and
parse, and strings holding ``"`` and ``\\`` (callee names, symbol names, attribute
values) re-parse to the same text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import StringAttr

import xrelax
from xrelax.ops.registry import relax_dialect

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parents[1] / "ops"))

from discardable import check_round_trip, tagged  # noqa: E402
from test_roundtrip import CASES  # noqa: E402
from test_textual_form import EXAMPLES, module_text  # noqa: E402

MEMORY = """
tir.prim_func @k(%a: !tir.buffer<[n], f32>, %b: !tir.buffer<[n], f32>) sym [n] {
}
tir.prim_func @k2(%a: !tir.buffer<[n], f32>, %b: !tir.buffer<[n], f32>) {
}
relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %s = relax.memory.alloc_storage [n * 4] : !relax.object
  %t = relax.memory.alloc_tensor %s [0] : !relax.tensor<[n], f32>
  relax.call_dps @k(%x, %t) sym [n] : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  relax.call_dps @k2(%x, %t) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  %u = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.memory.kill_tensor %u : !relax.tensor<[n], f32>
  relax.memory.kill_storage %s : !relax.object
  relax.return %t : !relax.tensor<[n], f32>
}
"""

PROGRAMS = [
    *CASES,
    ("memory", MEMORY),
    *((f"relax.{name}", module_text(name)) for name in sorted(EXAMPLES)),
]


@pytest.mark.parametrize(("name", "text"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_discardable_attribute_round_trips(name: str, text: str) -> None:
    check_round_trip(text, name, ("relax.",))


def test_every_relax_op_is_covered() -> None:
    covered: set[str] = set()
    for name, text in PROGRAMS:
        covered |= tagged(text, name, ("relax.",))[1]
    assert {op.name for op in relax_dialect().operations} <= covered


QUOTED = r"""
relax.func @"we\22ird\\name"(%x: !relax.tensor<[2], f32>) -> !relax.tensor<[2], f32> attributes {note = "a\22b\\c"} {
  %y = relax.call_packed "pack\22ed\\fn\0A"(%x) {pure, label = "x\22\\"} : (!relax.tensor<[2], f32>) -> !relax.tensor<[2], f32>
  %z = relax.match_shape %y [2] {label = "m\22\\"} : (!relax.tensor<[2], f32>) -> !relax.tensor<[2], f32>
  %w = relax.call @"we\22ird\\name"(%z) {label = "c\22"} : (!relax.tensor<[2], f32>) -> !relax.tensor<[2], f32>
  relax.return %w : !relax.tensor<[2], f32>
}
"""


def test_quoted_strings_round_trip() -> None:
    module = xrelax.parse(QUOTED)
    printed = xrelax.print_module(module)
    assert xrelax.print_module(xrelax.parse(printed)) == printed
    ops = {op.name: op for op in module.walk()}
    assert ops["relax.func"].sym_name == StringAttr('we"ird\\name')
    assert ops["relax.call_packed"].callee == StringAttr('pack"ed\\fn\n')
    assert ops["relax.match_shape"].attributes["label"] == StringAttr('m"\\')
    assert ops["relax.call"].callee.string_value() == 'we"ird\\name'
