"""A function that returns its call of itself (a loop written as recursion, as the
importers write loops) runs as a jump back to its start: no Python frame per iteration,
its parameters checked again as a call checks them; other self calls stay calls."""

from __future__ import annotations

import numpy as np
import pytest

import xrelax

_COUNT = """
relax.func @count(%i: !relax.tensor<[], i64>, %m: !relax.tensor<[], i64>, %x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %go = relax.less %i, %m : (!relax.tensor<[], i64>, !relax.tensor<[], i64>) -> !relax.tensor<[], i1>
  %r = relax.if %go -> !relax.tensor<[n], f32> {
    %one = relax.const dense<1> : !relax.tensor<[], i64>
    %next = relax.add %i, %one : (!relax.tensor<[], i64>, !relax.tensor<[], i64>) -> !relax.tensor<[], i64>
    %y = relax.add %x, %x : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %c = relax.call @count(%next, %m, %y) : (!relax.tensor<[], i64>, !relax.tensor<[], i64>, !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    relax.yield %c : !relax.tensor<[n], f32>
  } else {
    relax.yield %x : !relax.tensor<[n], f32>
  }
  relax.return %r : !relax.tensor<[n], f32>
}
"""

_DEPTH = """
relax.func @depth(%i: !relax.tensor<[], i64>) -> !relax.tensor<[], i64> {
  %zero = relax.const dense<0> : !relax.tensor<[], i64>
  %go = relax.less %zero, %i : (!relax.tensor<[], i64>, !relax.tensor<[], i64>) -> !relax.tensor<[], i1>
  %r = relax.if %go -> !relax.tensor<[], i64> {
    %one = relax.const dense<1> : !relax.tensor<[], i64>
    %less = relax.subtract %i, %one : (!relax.tensor<[], i64>, !relax.tensor<[], i64>) -> !relax.tensor<[], i64>
    %c = relax.call @depth(%less) : (!relax.tensor<[], i64>) -> !relax.tensor<[], i64>
    %d = relax.add %c, %one : (!relax.tensor<[], i64>, !relax.tensor<[], i64>) -> !relax.tensor<[], i64>
    relax.yield %d : !relax.tensor<[], i64>
  } else {
    relax.yield %zero : !relax.tensor<[], i64>
  }
  relax.return %r : !relax.tensor<[], i64>
}
"""


def _vm(text: str) -> xrelax.VirtualMachine:
    return xrelax.VirtualMachine(xrelax.compile(xrelax.parse(text)))


def test_a_returned_self_call_is_a_jump() -> None:
    vm = _vm(_COUNT)
    x = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(vm["count"](np.array(0), np.array(0), x), x)
    np.testing.assert_array_equal(vm["count"](np.array(0), np.array(3), x), x * 8)
    # Far deeper than Python's recursion limit; doubling 1 stays exact up to 2**127.
    ones = np.ones(3, np.float32)
    np.testing.assert_array_equal(vm["count"](np.array(0), np.array(5000), ones), ones * np.inf)
    np.testing.assert_array_equal(vm["count"](np.array(0), np.array(127), ones), ones * 2.0**127)


def test_a_self_call_whose_result_is_used_stays_a_call() -> None:
    vm = _vm(_DEPTH)
    assert vm["depth"](np.array(50)) == 50
    with pytest.raises(xrelax.VMError, match="calls nested too deeply"):
        vm["depth"](np.array(100_000))
