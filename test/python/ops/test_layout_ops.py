"""The layout operators (``broadcast_to``, ``pad``, ``slice_scatter``): property tests of
deduction against the reference kernel, exact deductions, and provable mismatches."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from opcheck import (
    Case,
    bindings,
    check_case,
    check_safety_net,
    dims_for,
    erasures,
    ints,
    random_array,
    shapes,
)
from test_deduce_reference import seeds, tensor_operand
from test_deduction_cases import deduce, expect_error, shape, tensor
from xdsl.dialects.builtin import IntegerAttr, i64

from xrelax.dialects import dtypes
from xrelax.dialects.relax import ShapeType, TensorType
from xrelax.ops.layout import BroadcastToOp, PadOp, SliceScatterOp

F32, I1, I32 = dtypes.F32, dtypes.I1, dtypes.I32


def run(case: Case, data: st.DataObject) -> None:
    deduced = check_case(case)
    check_safety_net(case, deduced, data.draw(erasures(len(case.types))))


def _int(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


@given(data=st.data())
def test_broadcast_to(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    target = data.draw(shapes(0, 4))
    rank = data.draw(st.integers(0, len(target)))
    source = tuple(1 if data.draw(st.booleans()) else d for d in target[len(target) - rank :])
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    target_dims = data.draw(dims_for(target, env))
    # An axis that broadcasts is statically 1; the others have the target's size.
    source_dims = [
        sympy.Integer(1) if size == 1 else data.draw(st.sampled_from([want, sympy.Integer(size)]))
        for size, want in zip(source, target_dims[len(target) - rank :], strict=True)
    ]
    x = (TensorType.of(source_dims, dtype), random_array(rng, source, dtype))
    target_type = ShapeType.of(target_dims)
    run(Case(BroadcastToOp, [x[0], target_type], {}, [x[1], target], env), data)


@given(data=st.data())
def test_pad(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    sizes = data.draw(shapes(0, 3))
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    x = data.draw(tensor_operand(sizes, dtype, env, rng))
    fill = data.draw(tensor_operand((), dtype, env, rng))
    widths = data.draw(
        st.lists(st.integers(0, 3), min_size=2 * len(sizes), max_size=2 * len(sizes))
    )
    case = Case(PadOp, [x[0], fill[0]], {"pad_width": ints(*widths)}, [x[1], fill[1]], env)
    run(case, data)


@given(data=st.data())
def test_slice_scatter(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    sizes = data.draw(shapes(1, 3, high=6))
    axis = data.draw(st.integers(0, len(sizes) - 1))
    begin = data.draw(st.none() | st.integers(-7, 7))
    end = data.draw(st.none() | st.integers(-7, 7))
    step = data.draw(st.integers(1, 3))
    dtype = data.draw(st.sampled_from([F32, I32]))
    x = data.draw(tensor_operand(sizes, dtype, env, rng))
    picked = np.empty(sizes)[(slice(None),) * axis + (slice(begin, end, step),)].shape
    src = data.draw(tensor_operand(picked, dtype, env, rng))
    props = {"axis": _int(axis - len(sizes) if data.draw(st.booleans()) else axis)}
    props |= {"step": _int(step)} if step != 1 else {}
    props |= {"begin": _int(begin)} if begin is not None else {}
    props |= {"end": _int(end)} if end is not None else {}
    run(Case(SliceScatterOp, [x[0], src[0]], props, [x[1], src[1]], env), data)


def test_exact_deductions():
    assert deduce(BroadcastToOp, tensor("[1, 4]", "i1"), shape("[n, m, 4]")) == tensor(
        "[n, m, 4]", "i1"
    )
    assert deduce(BroadcastToOp, tensor("[n, 1]"), shape("[n, m]")) == tensor("[n, m]")
    pads = {"pad_width": ints(1, 2, 0, 3)}
    assert deduce(PadOp, tensor("[n, m]"), tensor("[]"), **pads) == tensor("[n + 3, m + 3]")
    scatter = {"axis": _int(1), "begin": _int(1), "step": _int(2)}
    assert deduce(SliceScatterOp, tensor("[n, 5]"), tensor("[n, 2]"), **scatter) == tensor("[n, 5]")


def test_safety_net():
    assert deduce(BroadcastToOp, tensor("*"), shape("[n, 4]")) == tensor("[n, 4]")
    assert deduce(BroadcastToOp, tensor("[2]"), shape("ndim=3")) == tensor("ndim=3")
    assert deduce(PadOp, tensor("ndim=2"), tensor("[]"), pad_width=ints(1, 1, 1, 1)) == tensor(
        "ndim=2"
    )
    # Whether m equals the slice's length is checked at run time.
    scatter = {"axis": _int(0), "end": _int(3)}
    assert deduce(SliceScatterOp, tensor("[n, 4]"), tensor("[m, 4]"), **scatter) == tensor("[n, 4]")


@pytest.mark.parametrize(
    ("op", "types", "props", "fragment"),
    [
        (BroadcastToOp, [tensor("[3, 4]"), shape("[n, 5, 4]")], {}, "dimension 0 is 3"),
        (BroadcastToOp, [tensor("[2, 3, 4]"), shape("[3, 4]")], {}, "to rank 2"),
        (PadOp, [tensor("[n, 4]"), tensor("[]")], {"pad_width": ints(1, 1)}, "2 values per axis"),
        (PadOp, [tensor("[n]"), tensor("[]")], {"pad_width": ints(-1, 1)}, "non-negative"),
        (PadOp, [tensor("[n]"), tensor("[2]")], {"pad_width": ints(1, 1)}, "0-d tensor"),
        (PadOp, [tensor("[n]"), tensor("[]", "i32")], {"pad_width": ints(1, 1)}, "same element"),
        (
            SliceScatterOp,
            [tensor("[n, 6]"), tensor("[n, 4]")],
            {"axis": _int(1), "begin": _int(1), "step": _int(2)},
            "(the slice), got !relax.tensor<[n, 4], f32> (dimension 1)",
        ),
        (SliceScatterOp, [tensor("[n, 6]"), tensor("[6]")], {"axis": _int(0)}, "src of rank 2"),
        (
            SliceScatterOp,
            [tensor("[n]"), tensor("[n]")],
            {"axis": _int(0), "step": _int(0)},
            "positive step",
        ),
    ],
)
def test_provable_mismatch(op, types, props, fragment):
    expect_error(op, types, props, fragment)
