"""Legalization of the elementwise operators: unary maps, broadcasting binary maps and
comparisons, where and astype, over random symbolic shapes, values and element types."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from legalcheck import F32, I1, I8, I32, I64, SETTINGS, Symbols, check, random_array, seeds, tensor

import xrelax
from xrelax.dialects import dtypes
from xrelax.ops.elementwise import (
    BINARY_OPS,
    COMPARE_OPS,
    ELEMENTWISE_OPS,
    UNARY_OPS,
    AstypeOp,
    DivideOp,
    LogOp,
    PowerOp,
    RsqrtOp,
    SqrtOp,
    WhereOp,
)


def name(op: type) -> str:
    return op.name


def allowed(op: type, kinds: tuple) -> list:
    return [d for d in kinds if d in op.DTYPES.members]


@st.composite
def broadcast_operands(draw, dtypes_, ranges):
    """Operands broadcasting to a common shape: suffixes of it, some dims set to 1."""
    symbols, rng = Symbols(draw), draw(seeds())
    out = draw(st.lists(st.integers(0, 4), max_size=3))
    out_dims = symbols.dims(out)
    operands = []
    for dtype, (low, high) in zip(dtypes_, ranges, strict=True):
        rank = draw(st.integers(0, len(out)))
        ones = [draw(st.booleans()) for _ in range(rank)]
        shape = [1 if one else d for one, d in zip(ones, out[len(out) - rank :], strict=True)]
        dims = [1 if one else d for one, d in zip(ones, out_dims[len(out) - rank :], strict=True)]
        operands.append(tensor(dims, dtype, random_array(rng, shape, dtype, low, high)))
    return operands, symbols.env


@pytest.mark.parametrize("op", UNARY_OPS, ids=name)
@SETTINGS
@given(data=st.data())
def test_unary(op, data):
    dtype = data.draw(st.sampled_from(allowed(op, (F32, I32, I8))))
    low = 0.1 if op in (LogOp, SqrtOp, RsqrtOp) else -4
    operands, env = data.draw(broadcast_operands([dtype], [(low, 5)]))
    check(op, operands, env=env, rtol=2e-6)


def binary_ranges(op: type, dtype) -> list[tuple[float, float]]:
    if op is PowerOp:
        return [(0.5, 3), (-2, 2)] if dtype == F32 else [(-3, 4), (0, 4)]
    if op is DivideOp:
        return [(-9, 10), (1, 4) if dtype == F32 else (-4, 5)]
    return [(-4, 5), (-4, 5)]


@pytest.mark.parametrize("op", BINARY_OPS + COMPARE_OPS, ids=name)
@SETTINGS
@given(data=st.data())
def test_binary(op, data):
    dtype = data.draw(st.sampled_from(allowed(op, (F32, I32, I64, I1))))
    operands, env = data.draw(broadcast_operands([dtype] * 2, binary_ranges(op, dtype)))
    check(op, operands, env=env)


def test_integer_divide_truncates_toward_zero():
    a = np.array([-7, 7, -7, 7, 0, -1], np.int32)
    b = np.array([2, -2, -2, 2, 3, 0], np.int32)
    module = check(DivideOp, [tensor(["n"], I32, a), tensor(["n"], I32, b)])
    assert "arith.divsi" in xrelax.print_module(module)


@SETTINGS
@given(data=st.data())
def test_where(data):
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    operands, env = data.draw(broadcast_operands([I1, dtype, dtype], [(0, 1)] * 3))
    check(WhereOp, operands, env=env)


ASTYPE = [(F32, I32), (I32, F32), (F32, I1), (I1, F32), (I32, I8), (I8, I64), (F32, dtypes.F16)]


@pytest.mark.parametrize("source,target", ASTYPE, ids=str)
@SETTINGS
@given(data=st.data())
def test_astype(source, target, data):
    operands, env = data.draw(broadcast_operands([source], [(-100, 100)]))
    check(AstypeOp, operands, {"dtype": target}, env)


def test_family_is_covered():
    assert set(ELEMENTWISE_OPS) == {*UNARY_OPS, *BINARY_OPS, *COMPARE_OPS, WhereOp, AstypeOp}
