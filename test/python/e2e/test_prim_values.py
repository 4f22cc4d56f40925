"""Prim values (symbolic integers as values) through the Python API: the VM and the
reference interpreter agree on results and on the one-line errors, whatever integer
form the caller passes."""

from __future__ import annotations

import numpy as np
import pytest

import xrelax
from xrelax.backends.interpreter import InterpreterError

PROGRAM = """
relax.func @g(%k: !relax.prim<i64, k>, %x: !relax.tensor<[m], f32>) -> !relax.prim<i64> {
  %r = relax.prim_value k * m + 1
  relax.return %r : !relax.prim<i64, k * m + 1>
}
relax.func @main(%a: !relax.prim<i64>, %b: !relax.prim<i64, n + 1>, %x: !relax.tensor<[n], f32>) -> !relax.tuple<!relax.prim<i64>, !relax.prim<i64>, !relax.tensor<ndim=1, i64>> {
  %c = relax.call @g(%b, %x) : (!relax.prim<i64, n + 1>, !relax.tensor<[n], f32>) -> !relax.prim<i64>
  %d = relax.match_shape %c [q] : (!relax.prim<i64>)
  %zero = relax.prim_value 0
  %two = relax.prim_value 2
  %s = relax.arange %zero, %d, %two : (!relax.prim<i64, 0>, !relax.prim<i64, q>, !relax.prim<i64, 2>)
  %t = relax.tuple %a, %d, %s : (!relax.prim<i64>, !relax.prim<i64, q>, !relax.tensor<[floordiv(q + 1, 2)], i64>)
  relax.return %t : !relax.tuple<!relax.prim<i64>, !relax.prim<i64, q>, !relax.tensor<[floordiv(q + 1, 2)], i64>>
}
"""


@pytest.fixture(scope="module")
def module():
    return xrelax.parse(PROGRAM)


@pytest.fixture(scope="module")
def vm(module):
    return xrelax.VirtualMachine(xrelax.compile(module))


@pytest.mark.parametrize("as_value", [int, np.int64, np.array], ids=["int", "np.int64", "0-d"])
def test_results_are_ints(module, vm, as_value) -> None:
    x = np.ones(3, np.float32)
    for run in (vm["main"], lambda *a: xrelax.interpret(module, "main", *a)):
        a, d, s = run(as_value(-7), as_value(4), x)
        # An unknown prim value may be negative; g returns (n + 1) * n + 1 = 13.
        assert (a, d) == (-7, 13) and type(a) is int and type(d) is int
        np.testing.assert_array_equal(s, np.arange(0, 13, 2))


@pytest.mark.parametrize(
    ("b", "message"),
    [
        (5, "main: parameter 'b': value (symbolic expression n + 1): expected 4, got 5"),
        (True, "main: parameter 'b': expected an integer, got bool"),
        (np.array([4]), "main: parameter 'b': expected an integer, got "),
    ],
)
def test_bad_prim_arguments(module, vm, b, message) -> None:
    x = np.ones(3, np.float32)
    with pytest.raises(xrelax.VMError) as vm_error:
        vm["main"](0, b, x)
    with pytest.raises(InterpreterError) as interpreter_error:
        xrelax.interpret(module, "main", 0, b, x)
    for err in (vm_error, interpreter_error):
        assert str(err.value).startswith(message), str(err.value)
