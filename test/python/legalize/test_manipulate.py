"""Legalization of the shape manipulation operators over random symbolic shapes."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from legalcheck import (
    F32,
    I32,
    SETTINGS,
    Symbols,
    check,
    prim,
    random_array,
    seeds,
    shape,
    tensor,
)

import xrelax
from xrelax.ops.manipulate import (
    MANIPULATE_OPS,
    ConcatOp,
    ExpandDimsOp,
    FlattenOp,
    PermuteDimsOp,
    ReshapeOp,
    SplitOp,
    SqueezeOp,
    StridedSliceOp,
)

dims = st.lists(st.integers(0, 4), max_size=3)


@st.composite
def operand(draw, symbols, sizes, dtype=None):
    """A tensor of concrete ``sizes`` with symbolic dims and random values."""
    dtype = dtype or draw(st.sampled_from([F32, I32]))
    value = random_array(draw(seeds()), sizes, dtype, -9, 10)
    return tensor(symbols.dims(sizes), dtype, value)


@SETTINGS
@given(data=st.data())
def test_reshape(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(1, 4), max_size=3))
    x = data.draw(operand(symbols, sizes))
    # A target shape with the same elements: a regrouping of the sizes' prime factors.
    factors = [p for s in sizes for p in _factors(s)]
    order = data.draw(st.permutations(factors))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(order)), max_size=3)))
    target = [math.prod(order[a:b]) for a, b in zip([0, *cuts], [*cuts, len(order)], strict=True)]
    target_dims = symbols.dims(target)
    if target and data.draw(st.booleans()):
        inferred = data.draw(st.integers(0, len(target) - 1))
        target_dims[inferred] = target[inferred] = -1
    check(ReshapeOp, [x, shape(target_dims, target)], env=symbols.env)


def _factors(n: int) -> list[int]:
    found, p = [], 2
    while n > 1:
        while n % p == 0:
            found.append(p)
            n //= p
        p += 1
    return found


@SETTINGS
@given(data=st.data())
def test_flatten(data):
    symbols = Symbols(data.draw)
    check(FlattenOp, [data.draw(operand(symbols, data.draw(dims)))], env=symbols.env)


@SETTINGS
@given(data=st.data())
def test_permute_dims(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(dims)
    axes = data.draw(st.none() | st.permutations(range(len(sizes))))
    if axes is not None:
        axes = [a - len(sizes) if data.draw(st.booleans()) else a for a in axes]
    x = data.draw(operand(symbols, sizes))
    check(PermuteDimsOp, [x], {"axes": axes}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_expand_dims(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(dims)
    count = data.draw(st.integers(1, 2))
    rank = len(sizes) + count
    axes = data.draw(
        st.lists(
            st.integers(-rank, rank - 1),
            min_size=count,
            max_size=count,
            unique_by=lambda a: a % rank,
        )
    )
    check(ExpandDimsOp, [data.draw(operand(symbols, sizes))], {"axis": axes}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_squeeze(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.sampled_from([1, 1, 2, 3]), max_size=4))
    ones = [a for a, s in enumerate(sizes) if s == 1]
    axes = data.draw(
        st.none() | st.lists(st.sampled_from(ones), unique=True) if ones else st.none()
    )
    # Squeezing every size-1 axis needs the sizes to be provably 1 or not 1: constants.
    x_dims = [s if axes is None or a in axes else symbols.dim(s) for a, s in enumerate(sizes)]
    value = random_array(data.draw(seeds()), sizes, F32)
    check(SqueezeOp, [tensor(x_dims, F32, value)], {"axis": axes}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_concat(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    axis = data.draw(st.integers(-len(sizes), len(sizes) - 1))
    dtype = data.draw(st.sampled_from([F32, I32]))
    shared = symbols.dims(sizes)
    rng = data.draw(seeds())
    operands = []
    for _ in range(data.draw(st.integers(1, 4))):
        part = list(sizes)
        part[axis] = data.draw(st.integers(0, 3))
        part_dims = list(shared)
        part_dims[axis] = symbols.dim(part[axis])
        operands.append(tensor(part_dims, dtype, random_array(rng, part, dtype)))
    check(ConcatOp, operands, {"axis": axis}, symbols.env)


@SETTINGS
@given(data=st.data())
def test_split(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = data.draw(st.integers(-len(sizes), len(sizes) - 1))
    if data.draw(st.booleans()):
        sections = data.draw(st.integers(1, 3))
        sizes[axis] *= sections
        x_dims = symbols.dims(sizes)
        x_dims[axis] = sections * symbols.dim(sizes[axis] // sections)
        points = sections
    else:
        x_dims = symbols.dims(sizes)
        points = data.draw(st.lists(st.integers(-5, 6), min_size=1, max_size=3))
    value = random_array(data.draw(seeds()), sizes, F32)
    check(
        SplitOp,
        [tensor(x_dims, F32, value)],
        {"indices_or_sections": points, "axis": axis},
        symbols.env,
    )


bounds = st.none() | st.integers(-6, 6)
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


@SETTINGS
@given(data=st.data())
def test_strided_slice(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=3))
    axes = data.draw(st.lists(st.integers(0, len(sizes) - 1), min_size=1, unique=True))
    strides = [data.draw(st.sampled_from([1, 2, 3, -1, -2])) for _ in axes]
    # Out-of-range bounds are clamped; an absent one is written as the i64 limit.
    begin = [data.draw(bounds) for _ in axes]
    end = [data.draw(bounds) for _ in axes]
    spec = {
        "axes": [a - len(sizes) if data.draw(st.booleans()) else a for a in axes],
        "begin": [
            (I64_MIN if s > 0 else I64_MAX) if b is None else b
            for b, s in zip(begin, strides, strict=True)
        ],
        "end": [
            (I64_MAX if s > 0 else I64_MIN) if e is None else e
            for e, s in zip(end, strides, strict=True)
        ],
    }
    if data.draw(st.booleans()) or any(s != 1 for s in strides):
        spec["strides"] = strides
    check(StridedSliceOp, [data.draw(operand(symbols, sizes))], spec, symbols.env)


@SETTINGS
@given(data=st.data())
def test_strided_slice_of_prim_bounds(data):
    symbols = Symbols(data.draw)
    sizes = data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=3))
    axes = data.draw(st.lists(st.integers(0, len(sizes) - 1), min_size=1, unique=True))
    strides = [data.draw(st.sampled_from([1, 2, 3])) for _ in axes]
    # A bound is a constant (negative counts from the end) or a symbolic, non-negative
    # value, possibly beyond the dimension (clamped).
    values = [data.draw(st.integers(-3, 7)) for _ in range(2 * len(axes))]
    bounds = [prim(symbols.dim(v) if v >= 0 and data.draw(st.booleans()) else v, v) for v in values]
    spec = {"axes": axes, "strides": strides}
    operands = [data.draw(operand(symbols, sizes)), *bounds]
    check(StridedSliceOp, operands, spec, symbols.env)


def test_family_is_covered():
    assert set(MANIPULATE_OPS) == {
        ReshapeOp,
        FlattenOp,
        PermuteDimsOp,
        ExpandDimsOp,
        SqueezeOp,
        ConcatOp,
        SplitOp,
        StridedSliceOp,
    }


def test_concat_of_400_operands():
    # The kernel selects its operand by a balanced tree of selects (a chain of 400
    # selects, nested 400 deep, exceeded Python's recursion limit while legalizing).
    count = 400
    params = ", ".join(f"%x{k}: !relax.tensor<[2], f32>" for k in range(count))
    operands = ", ".join(f"%x{k}" for k in range(count))
    types = ", ".join(["!relax.tensor<[2], f32>"] * count)
    module = xrelax.parse(
        f"""relax.func @main({params}) -> !relax.tensor<[{2 * count}], f32> {{
  %r = relax.concat {operands} {{axis = 0 : i64}} : ({types})
  relax.return %r : !relax.tensor<[{2 * count}], f32>
}}"""
    )
    args = [np.full(2, k, np.float32) for k in range(count)]
    result = xrelax.VirtualMachine(xrelax.compile(module))["main"](*args)
    np.testing.assert_array_equal(result, np.concatenate(args))
