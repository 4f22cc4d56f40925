"""Legalization of the math (sin, cos, erf, isnan, fmod, bitwise), scan (cumsum) and
gather (take, gather_elements, gather_nd) operators: vectorized kernels equal to the reference
over random symbolic shapes and values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from legalcheck import (
    F32,
    F64,
    I1,
    I8,
    I32,
    I64,
    SETTINGS,
    Symbols,
    build,
    check,
    random_array,
    seeds,
    tensor,
)
from test_elementwise import broadcast_operands, name
from test_manipulate import operand

import xrelax
from xrelax.backends.interpreter import InterpreterError
from xrelax.dialects import dtypes
from xrelax.ops.gather import GATHER_OPS, GatherElementsOp, GatherNDOp, TakeOp
from xrelax.ops.math import (
    FLOAT_MAPS,
    MATH_OPS,
    BitwiseAndOp,
    BitwiseOrOp,
    BitwiseXorOp,
    CosOp,
    ErfOp,
    FmodOp,
    IsNanOp,
    SinOp,
)
from xrelax.ops.scan import SCAN_OPS, CumprodOp, CumsumOp


@pytest.mark.parametrize("op", [SinOp, CosOp, ErfOp], ids=name)
@SETTINGS
@given(data=st.data())
def test_float_maps(op, data):
    operands, env = data.draw(broadcast_operands([F32], [(-6, 6)]))
    check(op, operands, env=env, rtol=2e-6, atol=1e-6)


@SETTINGS
@given(data=st.data())
def test_isnan(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    sizes = data.draw(st.lists(st.integers(0, 4), max_size=3))
    value = random_array(rng, sizes, F32)
    value[rng.random(sizes) < 0.3] = np.nan
    check(IsNanOp, [tensor(symbols.dims(sizes), F32, value)], env=symbols.env)


@SETTINGS
@given(data=st.data())
def test_fmod(data):
    dtype = data.draw(st.sampled_from([F32, I32, I64]))
    operands, env = data.draw(broadcast_operands([dtype, dtype], [(-20, 20), (1, 6)]))
    # Negative divisors too: the sign of the result is the dividend's.
    sign = data.draw(st.sampled_from([1, -1]))
    divisor = operands[1]
    operands[1] = (divisor[0], np.asarray(divisor[1] * np.asarray(sign, divisor[1].dtype)))
    check(FmodOp, operands, env=env, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("dtype", "a", "b"),
    [
        # Exact where a - trunc(a / b) * b is not: a large quotient, an infinite divisor.
        (
            F64,
            [1e10, 5.0, -1.0, -0.0, 7.0, np.inf, np.nan],
            [3.0, np.inf, -np.inf, 2.0, 0.0, 2.0, 1.0],
        ),
        (F32, [1e10, 16777217.0, -3.5], [3.0, 5.0, np.inf]),
        # An integer divisor of 0 gives 0, as numpy does.
        (I32, [7, -5, np.iinfo(np.int32).min, 9], [0, 0, -1, -4]),
        (I64, [np.iinfo(np.int64).min, 2**62 + 1, -7], [-1, 2**61, 0]),
    ],
)
def test_fmod_edge_values(dtype, a, b):
    npdtype = {F32: np.float32, F64: np.float64, I32: np.int32, I64: np.int64}[dtype]
    a, b = np.array(a, npdtype), np.array(b, npdtype)
    legalized = check(FmodOp, [tensor([len(a)], dtype, a), tensor([len(b)], dtype, b)])
    with np.errstate(all="ignore"):
        expected = np.fmod(a, b)
    np.testing.assert_array_equal(xrelax.interpret(legalized, "main", a, b), expected)


@pytest.mark.parametrize("op", [BitwiseAndOp, BitwiseOrOp, BitwiseXorOp], ids=name)
@SETTINGS
@given(data=st.data())
def test_bitwise(op, data):
    dtype = data.draw(st.sampled_from([I1, I32, I64]))
    operands, env = data.draw(broadcast_operands([dtype, dtype], [(-9, 9), (-9, 9)]))
    check(op, operands, env=env)


@pytest.mark.parametrize("op", SCAN_OPS, ids=name)
@SETTINGS
@given(data=st.data())
def test_scan(op, data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    sizes = data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=3))
    props = {
        "axis": data.draw(st.none() | st.integers(-len(sizes), len(sizes) - 1)),
        "exclusive": data.draw(st.none() | st.booleans()),
        "dtype": data.draw(st.none() | st.sampled_from([F32, I64])),
    }
    x = tensor(symbols.dims(sizes), dtype, random_array(rng, sizes, dtype))
    check(op, [x], props, symbols.env, rtol=1e-5, atol=1e-5)


@SETTINGS
@given(data=st.data())
def test_take(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = data.draw(st.none() | st.integers(-len(sizes), len(sizes) - 1))
    x = data.draw(operand(symbols, sizes))
    extent = math.prod(sizes) if axis is None else sizes[axis]
    index_sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=2))
    index_dtype = data.draw(st.sampled_from([I32, I64, I8]))
    # numpy.take counts negative indices from the end.
    indices = rng.integers(-extent, extent, size=index_sizes).astype(
        np.dtype({I32: np.int32, I64: np.int64, I8: np.int8}[index_dtype])
    )
    check(
        TakeOp,
        [x, tensor(symbols.dims(index_sizes), index_dtype, indices)],
        {"axis": axis},
        symbols.env,
    )


def test_take_with_a_scalar_index():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    check(TakeOp, [tensor(["n", 4], F32, x), tensor([], I64, np.array(-1))], {"axis": 1})


@SETTINGS
@given(data=st.data())
def test_gather_elements(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = data.draw(st.integers(-len(sizes), len(sizes) - 1))
    index_sizes = [
        data.draw(st.integers(0, 4)) if d == axis % len(sizes) else data.draw(st.integers(0, n))
        for d, n in enumerate(sizes)
    ]
    size = sizes[axis]
    x = tensor(symbols.dims(sizes), F32, random_array(rng, sizes, F32))
    indices = rng.integers(-size, size, index_sizes)
    operands = [x, tensor(symbols.dims(index_sizes), I64, indices)]
    check(GatherElementsOp, operands, {"axis": axis}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_gather_nd(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    batch = data.draw(st.integers(0, len(sizes) - 1))
    depth = data.draw(st.integers(1, len(sizes) - batch))
    middle = data.draw(st.lists(st.integers(0, 3), max_size=2))
    dims = symbols.dims(sizes)
    positions = [
        rng.integers(-sizes[batch + m], sizes[batch + m], (*sizes[:batch], *middle))
        for m in range(depth)
    ]
    indices = np.stack(positions, axis=-1).astype(np.int32)
    index_dims = [*dims[:batch], *symbols.dims(middle), depth]
    operands = [
        tensor(dims, F32, random_array(rng, sizes, F32)),
        tensor(index_dims, I32, indices),
    ]
    check(GatherNDOp, operands, {"batch_dims": batch or None}, symbols.env)


I16 = dtypes.I16
NARROW = {I8: np.int8, I16: np.int16}


@pytest.mark.parametrize(("index_dtype", "size"), [(I8, 300), (I16, 70_000)])
@pytest.mark.parametrize("op", [TakeOp, GatherElementsOp])
def test_a_narrow_index_type_counts_from_the_end_of_a_longer_axis(op, index_dtype, size):
    # The axis size does not fit the index type: the position is computed in i64.
    x = np.arange(size, dtype=np.int64)
    low = int(np.iinfo(NARROW[index_dtype]).min)
    indices = np.array([-1, low, 5], NARROW[index_dtype])
    legalized = check(op, [tensor(["n"], I64, x), tensor([3], index_dtype, indices)], {"axis": 0})
    result = xrelax.interpret(legalized, "main", x, indices)
    np.testing.assert_array_equal(result, [size - 1, size + low, 5])


def test_a_narrow_index_type_in_gather_nd():
    x = np.arange(300, dtype=np.int64)
    indices = np.array([[-1], [-128]], np.int8)
    legalized = check(GatherNDOp, [tensor([300], I64, x), tensor([2, 1], I8, indices)])
    np.testing.assert_array_equal(xrelax.interpret(legalized, "main", x, indices), [299, 172])


@pytest.mark.parametrize(
    ("op", "props", "indices"),
    [
        (TakeOp, {"axis": 0}, np.array([2, -1], np.int32)),
        (GatherElementsOp, {"axis": 0}, np.array([2, -1], np.int32)),
        (GatherNDOp, {}, np.array([[2], [-1]], np.int32)),
    ],
)
def test_negative_indices_false_refuses_a_negative_index(op, props, indices):
    # torch's rule: gather, index_select and embedding refuse index -1.
    x = np.arange(4, dtype=np.float32)
    module, args = build(
        op,
        [tensor(["n"], F32, x), tensor(list(indices.shape), I32, indices)],
        {**props, "negative_indices": False},
        {"n": 4},
    )
    with pytest.raises(InterpreterError, match=r"index -1 out of range \[0, 4\)"):
        xrelax.interpret(module, "main", *args)
    legalized = xrelax.apply(module, "relax-legalize-ops")
    with pytest.raises(InterpreterError, match=r"index -1 out of range \[0, 4\)"):
        xrelax.interpret(legalized, "main", *args)
    vm = xrelax.VirtualMachine(xrelax.compile(legalized))
    with pytest.raises(xrelax.VMError, match=r"index -1 out of range \[0, 4\)"):
        vm["main"](*args)


def test_families_are_covered():
    assert set(MATH_OPS) == {
        *FLOAT_MAPS, IsNanOp, FmodOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp,
    }  # fmt: skip
    assert set(SCAN_OPS) == {CumsumOp, CumprodOp}
    assert set(GATHER_OPS) == {TakeOp, GatherElementsOp, GatherNDOp}
