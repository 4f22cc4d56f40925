"""Property tests of the float maps of ops/math.py beyond sin/cos/erf, ``argsort`` and
``scatter_elements`` (as test_deduce_reference.py does for the others): the reference
kernel's result has the deduced shape and dtype, and less specific operand types
deduce a type that still contains it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from opcheck import Case, bindings, bool_attr, int_attr, shapes
from test_deduce_reference import name, seeds, tensor_operand, unary_cases
from test_deduce_reference_gather_scan import run
from xdsl.dialects.builtin import StringAttr

from xrelax.dialects import dtypes
from xrelax.ops.math import (
    AcoshOp,
    AcosOp,
    AsinhOp,
    AsinOp,
    AtanhOp,
    AtanOp,
    CeilOp,
    CoshOp,
    Exp2Op,
    Expm1Op,
    FloorOp,
    Log1pOp,
    Log2Op,
    Log10Op,
    RoundOp,
    SinhOp,
    TanOp,
)
from xrelax.ops.scatter import REDUCTIONS, ScatterElementsOp
from xrelax.ops.set import NonMaxSuppressionOp, NonzeroOp, UniqueAllOp
from xrelax.ops.sort import ArgsortOp

F32, I1, I32, I64 = dtypes.F32, dtypes.I1, dtypes.I32, dtypes.I64

MAPS = (
    TanOp, SinhOp, CoshOp, AsinOp, AcosOp, AtanOp, AsinhOp, AcoshOp, AtanhOp, FloorOp, CeilOp,
    RoundOp, Log1pOp, Expm1Op, Log2Op, Log10Op, Exp2Op,
)  # fmt: skip
TESTED = {*MAPS, ArgsortOp, ScatterElementsOp, UniqueAllOp, NonzeroOp, NonMaxSuppressionOp}
"""The operators this module tests (test_every_operator_has_a_property_test)."""


@pytest.mark.parametrize("op", MAPS, ids=name)
@given(data=st.data())
def test_float_map(op, data):
    run(data.draw(unary_cases(op)), data)


@given(data=st.data())
def test_argsort(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    shape = data.draw(shapes(0, 3))
    x = data.draw(tensor_operand(shape, dtype, env, rng, -2, 3))
    props = {}
    if shape and data.draw(st.booleans()):
        props["axis"] = int_attr(data.draw(st.integers(-len(shape), len(shape) - 1)))
    if data.draw(st.booleans()):
        props["descending"] = bool_attr(data.draw(st.booleans()))
    run(Case(ArgsortOp, [x[0]], props, [x[1]], env), data)


@given(data=st.data())
def test_scatter_elements(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    shape = data.draw(shapes(1, 3))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = tuple(
        data.draw(st.integers(0, 4)) if d == axis % len(shape) else data.draw(st.integers(1, n))
        for d, n in enumerate(shape)
    )
    size = shape[axis]
    x = data.draw(tensor_operand(shape, dtype, env, rng))
    indices = data.draw(tensor_operand(index_shape, I64, env, rng, -size, size))
    updates = data.draw(tensor_operand(index_shape, dtype, env, rng))
    props = {"axis": int_attr(axis)}
    reduction = data.draw(st.sampled_from(REDUCTIONS))
    if reduction != "none" or data.draw(st.booleans()):
        props["reduction"] = StringAttr(reduction)
    case = Case(
        ScatterElementsOp,
        [x[0], indices[0], updates[0]],
        props,
        [x[1], indices[1], updates[1]],
        env,
    )
    run(case, data)


@given(data=st.data())
def test_unique_all(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    shape = data.draw(shapes(0, 3))
    x = data.draw(tensor_operand(shape, dtype, env, rng, -2, 3))
    props = {}
    if shape and data.draw(st.booleans()):
        props["axis"] = int_attr(data.draw(st.integers(-len(shape), len(shape) - 1)))
    if data.draw(st.booleans()):
        props["sorted"] = bool_attr(data.draw(st.booleans()))
    run(Case(UniqueAllOp, [x[0]], props, [x[1]], env), data)


@given(data=st.data())
def test_nonzero(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    x = data.draw(tensor_operand(data.draw(shapes(1, 3)), dtype, env, rng, -1, 2))
    run(Case(NonzeroOp, [x[0]], {}, [x[1]], env), data)


@given(data=st.data())
def test_non_max_suppression(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    batches, classes, count = (data.draw(st.integers(1, 3)) for _ in range(3))
    boxes = data.draw(tensor_operand((batches, count, 4), F32, env, rng, 0, 4))
    scores = data.draw(tensor_operand((batches, classes, count), F32, env, rng, 0, 1))
    limit = data.draw(tensor_operand((), I64, env, rng, 0, 4))
    iou = data.draw(tensor_operand((1,), F32, env, rng, 0, 1))
    score = data.draw(tensor_operand((), F32, env, rng, 0, 1))
    props = {"center_point_box": bool_attr(True)} if data.draw(st.booleans()) else {}
    operands = [boxes, scores, limit, iou, score]
    case = Case(NonMaxSuppressionOp, [o[0] for o in operands], props, [o[1] for o in operands], env)
    run(case, data)
