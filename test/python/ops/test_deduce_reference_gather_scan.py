"""Property tests of the math, scan and gather operators (as test_deduce_reference.py
does for the others): the reference kernel's result has the deduced shape and dtype,
and less specific operand types deduce a type that still contains it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from opcheck import Case, bindings, bool_attr, check_case, check_safety_net, erasures, int_attr
from test_deduce_reference import (
    binary_cases,
    broadcast_operand,
    name,
    seeds,
    shapes,
    tensor_operand,
    unary_cases,
)

from xrelax.dialects import dtypes
from xrelax.ops.gather import GatherElementsOp, GatherNDOp
from xrelax.ops.math import (
    BitwiseAndOp,
    BitwiseOrOp,
    BitwiseXorOp,
    CosOp,
    ErfOp,
    FmodOp,
    IsNanOp,
    SinOp,
)
from xrelax.ops.scan import CumprodOp, CumsumOp

F32, I1, I32, I64 = dtypes.F32, dtypes.I1, dtypes.I32, dtypes.I64

TESTED = {
    SinOp, CosOp, ErfOp, IsNanOp, FmodOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, CumsumOp,
    CumprodOp, GatherElementsOp, GatherNDOp,
}  # fmt: skip
"""The operators this module tests (test_every_operator_has_a_property_test)."""


def run(case: Case, data: st.DataObject) -> None:
    deduced = check_case(case)
    check_safety_net(case, deduced, data.draw(erasures(len(case.types))))


@pytest.mark.parametrize("op", [SinOp, CosOp, ErfOp, IsNanOp], ids=name)
@given(data=st.data())
def test_unary(op, data):
    run(data.draw(unary_cases(op)), data)


@pytest.mark.parametrize("op", [BitwiseAndOp, BitwiseOrOp, BitwiseXorOp], ids=name)
@given(data=st.data())
def test_bitwise(op, data):
    run(data.draw(binary_cases(op)), data)


@given(data=st.data())
def test_fmod(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    out = data.draw(shapes(0, 3))
    a = data.draw(tensor_operand(broadcast_operand(data.draw, out), dtype, env, rng, -9, 9))
    b = data.draw(tensor_operand(broadcast_operand(data.draw, out), dtype, env, rng, 1, 4))
    run(Case(FmodOp, [a[0], b[0]], {}, [a[1], b[1]], env), data)


@pytest.mark.parametrize("op", [CumsumOp, CumprodOp], ids=name)
@given(data=st.data())
def test_scan(op, data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    shape = data.draw(shapes(1, 3))
    x = data.draw(tensor_operand(shape, dtype, env, rng))
    props = {}
    if data.draw(st.booleans()):
        props["axis"] = int_attr(data.draw(st.integers(-len(shape), len(shape) - 1)))
    if data.draw(st.booleans()):
        props["exclusive"] = bool_attr(data.draw(st.booleans()))
    if data.draw(st.booleans()):
        props["dtype"] = data.draw(st.sampled_from([F32, I64]))
    run(Case(op, [x[0]], props, [x[1]], env), data)


@given(data=st.data())
def test_gather_elements(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(1, 3))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = tuple(
        data.draw(st.integers(1, 4)) if d == axis % len(shape) else data.draw(st.integers(1, n))
        for d, n in enumerate(shape)
    )
    size = shape[axis]
    x = data.draw(tensor_operand(shape, F32, env, rng))
    indices = data.draw(tensor_operand(index_shape, I64, env, rng, -size, size))
    props = {"axis": int_attr(axis)}
    run(Case(GatherElementsOp, [x[0], indices[0]], props, [x[1], indices[1]], env), data)


@given(data=st.data())
def test_gather_nd(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(1, 4))
    batch = data.draw(st.integers(0, len(shape) - 1))
    depth = data.draw(st.integers(1, len(shape) - batch))
    middle = data.draw(shapes(0, 2))
    x = data.draw(tensor_operand(shape, F32, env, rng))
    rng_indices = [
        rng.integers(-shape[batch + m], shape[batch + m], (*shape[:batch], *middle))
        for m in range(depth)
    ]
    value = np.stack(rng_indices, axis=-1).astype(np.int64)
    indices = data.draw(tensor_operand(value.shape, I64, env, rng))
    props = {"batch_dims": int_attr(batch)} if batch or data.draw(st.booleans()) else {}
    run(Case(GatherNDOp, [x[0], indices[0]], props, [x[1], value], env), data)
