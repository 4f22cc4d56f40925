"""A safety-net call's operator attributes reach the VM as a constant of the
executable's pool (nested tuples), which the run-time kernel turns back into the
attributes without parsing text; they survive the file format."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import DictionaryAttr, SymbolRefAttr

import xrelax
from xrelax.backends.interpreter import InterpreterError
from xrelax.dialects.ir.diagnostics import LocatingParser
from xrelax.ops.attribute_constants import from_constant, is_dict_constant, to_constant

EVERY_KIND = (
    "{axis = array<i64: 1, -2>, keepdims = true, flip = false, epsilon = 1.0e-05 : f32, "
    'scale = 0.5 : f64, dtype = f16, unsigned = ui8, mode = "linear", count = -3 : i64, '
    'attrs = {axis = 1 : i64}, names = ["axis", "k"], empty = {}}'
)

SUM = """\
relax.func @main(%x: !relax.tensor<ndim=2, f32>) -> !relax.tensor<ndim=2, f32> {
  %y = relax.sum %x {axis = array<i64: 1>, keepdims = true} : (!relax.tensor<ndim=2, f32>)
  relax.return %y : !relax.tensor<ndim=2, f32>
}
"""


def attributes(text: str) -> DictionaryAttr:
    return DictionaryAttr(dict(LocatingParser(xrelax.context(), text).parse_optional_attr_dict()))


def test_every_kind_of_operator_attribute_round_trips():
    attrs = attributes(EVERY_KIND)
    constant = to_constant(attrs)
    assert is_dict_constant(constant)
    assert from_constant(constant) == attrs
    assert constant[1][0] == ("axis", ("array", "i64", (1, -2)))
    assert dict(constant[1])["names"] == ("list", (("str", "axis"), ("str", "k")))


def test_no_run_time_value_looks_like_an_attribute_dictionary():
    for value in ((2, 3), (), (np.zeros(2), np.ones(2)), ("dict",), 4, np.zeros((2, 2))):
        assert not is_dict_constant(value)


def test_an_attribute_no_operator_has_is_refused():
    with pytest.raises(ValueError, match="^cannot pass the attribute @f to run time$"):
        to_constant(DictionaryAttr({"callee": SymbolRefAttr("f")}))


def test_the_executable_holds_the_attributes_as_a_constant():
    exe = xrelax.compile(xrelax.parse(SUM))
    expected = ("dict", (("axis", ("array", "i64", (1,))), ("keepdims", ("int", "i1", -1))))
    assert expected in exe.constants
    assert not any(isinstance(c, str) and "keepdims" in c for c in exe.constants)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    loaded = type(exe).from_bytes(exe.to_bytes())
    for executable in (exe, loaded):
        got = xrelax.VirtualMachine(executable)["main"](x)
        np.testing.assert_array_equal(got, x.sum(axis=1, keepdims=True))


SYMBOL_ATTR = """\
relax.func @main(%x: !relax.tensor<ndim=1, f32>) -> !relax.tensor<ndim=1, f32> {
  %y = relax.call_packed "relax.op.exp"(%x) {pure, op_attrs = {f = @main}} : (!relax.tensor<ndim=1, f32>) -> !relax.tensor<ndim=1, f32>
  relax.return %y : !relax.tensor<ndim=1, f32>
}
"""


def test_an_attribute_the_vm_cannot_hold_is_a_located_error():
    module = xrelax.parse(SYMBOL_ATTR, "attrs.mlir")
    with pytest.raises(xrelax.CompileError) as info:
        xrelax.compile(module)
    assert str(info.value) == (
        "attrs.mlir:2:3: error: 'relax.call_packed' op cannot pass the attribute @main to run time"
    )
    with pytest.raises(InterpreterError) as info:
        xrelax.interpret(module, "main", np.zeros(2, np.float32))
    assert str(info.value) == (
        "main: relax.call_packed 'relax.op.exp' (%y): cannot pass the attribute @main to run time"
    )
