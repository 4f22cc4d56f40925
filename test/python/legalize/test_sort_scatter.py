"""Legalization of the float maps of ops/math.py beyond sin/cos/erf, ``argsort`` and
``scatter_elements``: vectorized kernels equal to the reference over random symbolic
shapes and values (ties, NaNs, duplicate and negative indices), and the kernel's range
check of scatter indices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from legalcheck import F32, I1, I32, I64, SETTINGS, Symbols, build, check, seeds, tensor
from test_elementwise import broadcast_operands
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i64

import xrelax
from xrelax.backends.interpreter import InterpreterError
from xrelax.dialects import dtypes
from xrelax.dialects.relax import TensorType
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
from xrelax.ops.sort import ArgsortOp

RANGES = {
    Log2Op: (0.1, 9),
    Log10Op: (0.1, 9),
    AcoshOp: (1, 6),
    AsinOp: (-1, 1),
    AcosOp: (-1, 1),
    AtanhOp: (-0.99, 0.99),
}


MAPS = (
    TanOp, SinhOp, CoshOp, AsinOp, AcosOp, AtanOp, AsinhOp, AcoshOp, AtanhOp, Log1pOp, Expm1Op,
    Log2Op, Log10Op, Exp2Op,
)  # fmt: skip


@SETTINGS
@given(data=st.data())
def test_float_maps(data):
    op = data.draw(st.sampled_from(MAPS))
    operands, env = data.draw(broadcast_operands([F32], [RANGES.get(op, (-0.9, 4))]))
    check(op, operands, env=env, rtol=2e-6, atol=1e-6)


@SETTINGS
@given(data=st.data())
def test_rounding_is_exact(data):
    op = data.draw(st.sampled_from([FloorOp, CeilOp, RoundOp]))
    operands, env = data.draw(broadcast_operands([F32], [(-4, 4)]))
    (x,) = operands
    halves = np.asarray(np.round(x[1] * 2) / 2, np.float32)  # halves: round goes to even
    check(op, [(x[0], halves)], env=env, rtol=0, atol=0)


@SETTINGS
@given(data=st.data())
def test_argsort(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    sizes = data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=3))
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    value = rng.integers(-2, 3, sizes).astype(dtypes.numpy_dtype(dtype))  # many ties
    if dtype == F32:
        value[rng.random(sizes) < 0.2] = np.nan
        value[value == 0] = rng.choice(np.array([0.0, -0.0], np.float32))
    axis = data.draw(st.integers(-len(sizes), len(sizes) - 1))
    props = {
        "axis": IntegerAttr(axis, i64),
        "descending": IntegerAttr.from_bool(data.draw(st.booleans())),
    }
    check(ArgsortOp, [tensor(symbols.dims(sizes), dtype, value)], props, symbols.env)


@SETTINGS
@given(data=st.data())
def test_scatter_elements(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = data.draw(st.integers(-len(sizes), len(sizes) - 1))
    index_sizes = [
        data.draw(st.integers(0, 5)) if d == axis % len(sizes) else data.draw(st.integers(1, n))
        for d, n in enumerate(sizes)
    ]
    dtype = data.draw(st.sampled_from([F32, I32]))
    reduction = data.draw(st.sampled_from(REDUCTIONS))
    size = sizes[axis]
    x = rng.integers(-5, 6, sizes).astype(np.float32 if dtype == F32 else np.int32)
    updates = rng.integers(-5, 6, index_sizes).astype(x.dtype)
    indices = rng.integers(-size, size, index_sizes).astype(np.int64)
    operands = [
        tensor(symbols.dims(sizes), dtype, x),
        tensor(symbols.dims(index_sizes), I64, indices),
        tensor(symbols.dims(index_sizes), dtype, updates),
    ]
    props = {"axis": IntegerAttr(axis, i64), "reduction": StringAttr(reduction)}
    check(ScatterElementsOp, operands, props, symbols.env)


@pytest.mark.parametrize("index", [3, -4])
def test_scatter_index_out_of_range_is_an_error(index):
    types = [
        TensorType.of(["n", 3], F32),
        TensorType.of(["n", 1], I64),
        TensorType.of(["n", 1], F32),
    ]
    x, updates = np.zeros((2, 3), np.float32), np.ones((2, 1), np.float32)
    indices = np.array([[0], [index]])
    module, args = build(
        ScatterElementsOp,
        [(types[0], x), (types[1], indices), (types[2], updates)],
        {"axis": IntegerAttr(1, i64)},
        {},
    )
    with pytest.raises(InterpreterError, match=rf"index {index} out of range \[-3, 3\)"):
        xrelax.interpret(module, "main", *args)
    legalized = xrelax.apply(module, "relax-legalize-ops")
    with pytest.raises(InterpreterError, match=rf"index {index} out of range \[0, 3\)"):
        xrelax.interpret(legalized, "main", *args)
    vm = xrelax.VirtualMachine(xrelax.compile(legalized))
    with pytest.raises(xrelax.VMError, match=rf"index {index} out of range \[0, 3\)"):
        vm["main"](*args)
