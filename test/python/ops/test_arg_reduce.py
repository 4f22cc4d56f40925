"""Property tests of argmax and argmin (as test_deduce_reference.py does for the other
operators): the reference kernel's result has the deduced shape and dtype, less specific
operand types deduce a type that still contains it, and the positions are numpy's (a
NaN is the extreme; the first position, or the last with ``select_last_index``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from opcheck import (
    Case,
    bindings,
    bool_attr,
    check_case,
    check_safety_net,
    erasures,
    int_attr,
    shapes,
)
from test_deduce_reference import name, seeds, tensor_operand

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType
from xrelax.ops.reduce import ArgmaxOp, ArgminOp

TESTED = {ArgmaxOp, ArgminOp}
"""The operators this module tests (test_every_operator_has_a_property_test)."""


@pytest.mark.parametrize("op", [ArgmaxOp, ArgminOp], ids=name)
@given(data=st.data())
def test_arg_reduce(op, data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([dtypes.F32, dtypes.I32, dtypes.I1]))
    shape = data.draw(shapes(1, 3))
    x = data.draw(tensor_operand(shape, dtype, env, rng))
    props = {}
    if data.draw(st.booleans()):
        props["axis"] = int_attr(data.draw(st.integers(-len(shape), len(shape) - 1)))
    for key in ("keepdims", "select_last_index"):
        if data.draw(st.booleans()):
            props[key] = bool_attr(data.draw(st.booleans()))
    case = Case(op, [x[0]], props, [x[1]], env)
    deduced = check_case(case)
    check_safety_net(case, deduced, data.draw(erasures(1)))


@pytest.mark.parametrize(
    ("op", "props", "expected"),
    [
        (ArgmaxOp, {"axis": int_attr(1)}, [1, 1, 0]),
        (ArgmaxOp, {"axis": int_attr(1), "select_last_index": bool_attr(True)}, [2, 3, 3]),
        (ArgminOp, {"axis": int_attr(-1)}, [3, 1, 0]),
        (ArgmaxOp, {}, 5),
        (ArgminOp, {"select_last_index": bool_attr(True)}, 7),
    ],
)
def test_positions(op, props, expected):
    x = np.array([[1, 3, 3, 0], [2, np.nan, 1, np.nan], [0, 0, 0, 0]], np.float32)
    np.testing.assert_array_equal(op.run_reference([x], props), expected)


def test_empty_axis_is_refused():
    x = TensorType.of([3, 0], dtypes.F32)
    with pytest.raises(RelaxError, match="relax.argmax: the axis is not empty: 1 <= 0 is false"):
        ArgmaxOp.deduction([x], {"axis": int_attr(1)})
