"""Property tests of every operator: over random symbolic shapes, random values of the
symbolic variables and random inputs, the reference kernel's result has the deduced
shape (evaluated at those values) and the deduced dtype; and with less specific operand
types, deduction gives a type that still contains the specific result (the safety net)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from opcheck import (
    Case,
    bindings,
    bool_attr,
    check_case,
    check_safety_net,
    dims_for,
    erasures,
    int_attr,
    ints,
    random_array,
    shapes,
)
from xdsl.dialects.builtin import FloatAttr, f32

from xrelax.dialects import dtypes
from xrelax.dialects.relax import ShapeType, TensorType
from xrelax.ops.base import NUMERIC
from xrelax.ops.create import ArangeOp, FullOp, OnesOp, TrilOp, TriuOp, ZerosOp
from xrelax.ops.elementwise import (
    BINARY_OPS,
    COMPARE_OPS,
    UNARY_OPS,
    AstypeOp,
    DivideOp,
    LogOp,
    PowerOp,
    RsqrtOp,
    SqrtOp,
    WhereOp,
)
from xrelax.ops.gather import TakeOp
from xrelax.ops.layout import LAYOUT_OPS
from xrelax.ops.library import OPERATORS
from xrelax.ops.linalg import MatmulOp
from xrelax.ops.manipulate import (
    ConcatOp,
    ExpandDimsOp,
    FlattenOp,
    PermuteDimsOp,
    ReshapeOp,
    SplitOp,
    SqueezeOp,
    StridedSliceOp,
)
from xrelax.ops.nn import (
    AvgPool2dOp,
    Conv1dOp,
    Conv2dOp,
    LayerNormOp,
    LogSoftmaxOp,
    MaxPool2dOp,
    SoftmaxOp,
)
from xrelax.ops.reduce import REDUCE_OPS
from xrelax.ops.set import UniqueOp

F16, F32, I1, I32, I64 = dtypes.F16, dtypes.F32, dtypes.I1, dtypes.I32, dtypes.I64


def seeds() -> st.SearchStrategy[np.random.Generator]:
    return st.integers(0, 2**32 - 1).map(np.random.default_rng)


def dtypes_for(op: type, kinds: tuple = (F32, I32)) -> list:
    allowed = getattr(op, "DTYPES", NUMERIC).members
    return [d for d in kinds if d in allowed]


def run(case: Case, data: st.DataObject) -> None:
    deduced = check_case(case)
    check_safety_net(case, deduced, data.draw(erasures(len(case.types))))


def name(op: type) -> str:
    return op.name


def broadcast_operand(draw: st.DrawFn, out: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``out``: a suffix of it, some dims set to 1."""
    rank = draw(st.integers(0, len(out)))
    suffix = out[len(out) - rank :]
    return tuple(1 if draw(st.booleans()) else d for d in suffix)


@st.composite
def tensor_operand(draw, shape, dtype, env, rng, low=-3.0, high=3.0):
    """A (type, value) pair for a tensor operand of a concrete shape."""
    return TensorType.of(draw(dims_for(shape, env)), dtype), random_array(
        rng, shape, dtype, low, high
    )


# ------------------------------------------------------------------------------ elementwise


@st.composite
def unary_cases(draw, op):
    env, rng = draw(bindings()), draw(seeds())
    dtype = draw(st.sampled_from(dtypes_for(op, (F32, F16, I32, I64))))
    positive = op in (LogOp, SqrtOp, RsqrtOp)
    x = draw(tensor_operand(draw(shapes()), dtype, env, rng, 1 if positive else -3, 4))
    return Case(op, [x[0]], {}, [x[1]], env)


@pytest.mark.parametrize("op", UNARY_OPS, ids=name)
@given(data=st.data())
def test_unary(op, data):
    run(data.draw(unary_cases(op)), data)


def _binary_ranges(op, dtype):
    if op is DivideOp and dtype != F32:
        return (-4, 5), (1, 5)
    if op is PowerOp:
        return ((0.5, 3), (-2, 2)) if dtype == F32 else ((-3, 4), (0, 4))
    return (-4, 5), (-4, 5)


@st.composite
def binary_cases(draw, op):
    env, rng = draw(bindings()), draw(seeds())
    dtype = draw(st.sampled_from(dtypes_for(op, (F32, I32, I1))))
    out = draw(shapes(0, 4))
    (alo, ahi), (blo, bhi) = _binary_ranges(op, dtype)
    a = draw(tensor_operand(broadcast_operand(draw, out), dtype, env, rng, alo, ahi))
    b = draw(tensor_operand(broadcast_operand(draw, out), dtype, env, rng, blo, bhi))
    if op is DivideOp and dtype != F32:
        b = (b[0], b[1] * rng.choice(np.array([-1, 1], b[1].dtype), size=b[1].shape))
    return Case(op, [a[0], b[0]], {}, [a[1], b[1]], env)


@pytest.mark.parametrize("op", BINARY_OPS + COMPARE_OPS, ids=name)
@given(data=st.data())
def test_binary(op, data):
    run(data.draw(binary_cases(op)), data)


@given(data=st.data())
def test_where(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    out = data.draw(shapes(0, 4))
    cond = data.draw(tensor_operand(broadcast_operand(data.draw, out), I1, env, rng))
    a = data.draw(tensor_operand(broadcast_operand(data.draw, out), dtype, env, rng))
    b = data.draw(tensor_operand(broadcast_operand(data.draw, out), dtype, env, rng))
    run(Case(WhereOp, [cond[0], a[0], b[0]], {}, [cond[1], a[1], b[1]], env), data)


@given(data=st.data())
def test_astype(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    source = data.draw(st.sampled_from([F16, F32, I32, I1]))
    target = data.draw(st.sampled_from([dtypes.F16, F32, dtypes.F64, dtypes.I8, I32, I64, I1]))
    x = data.draw(tensor_operand(data.draw(shapes()), source, env, rng))
    run(Case(AstypeOp, [x[0]], {"dtype": target}, [x[1]], env), data)


# ------------------------------------------------------------------------------ matmul


@given(data=st.data())
def test_matmul(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    batch = data.draw(shapes(0, 2))
    rows, inner, columns = (data.draw(st.integers(1, 4)) for _ in range(3))
    a_shape = (
        (inner,)
        if data.draw(st.booleans())
        else (*broadcast_operand(data.draw, batch), rows, inner)
    )
    b_shape = (
        (inner,)
        if data.draw(st.booleans())
        else (*broadcast_operand(data.draw, batch), inner, columns)
    )
    a = data.draw(tensor_operand(a_shape, dtype, env, rng))
    b = data.draw(tensor_operand(b_shape, dtype, env, rng))
    run(Case(MatmulOp, [a[0], b[0]], {}, [a[1], b[1]], env), data)


# ------------------------------------------------------------------------------ manipulate


def _divisors(value: int) -> list[int]:
    return [d for d in range(1, value + 1) if value % d == 0]


@given(data=st.data())
def test_reshape(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(0, 3))
    x = data.draw(tensor_operand(shape, F32, env, rng))
    remaining, target = math.prod(shape), []
    for _ in range(data.draw(st.integers(0, 3))):
        target.append(data.draw(st.sampled_from(_divisors(remaining))))
        remaining //= target[-1]
    target = data.draw(st.permutations([*target, remaining]))
    dims = list(data.draw(dims_for(target, env)))
    if data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(target) - 1))
        target[index], dims[index] = -1, sympy.Integer(-1)
    case = Case(ReshapeOp, [x[0], ShapeType.of(dims)], {}, [x[1], tuple(target)], env)
    run(case, data)


@given(data=st.data())
def test_flatten(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    x = data.draw(tensor_operand(data.draw(shapes(0, 4)), I32, env, rng))
    run(Case(FlattenOp, [x[0]], {}, [x[1]], env), data)


def _maybe_negative(draw, axes: list[int], rank: int) -> list[int]:
    return [a - rank if draw(st.booleans()) else a for a in axes]


@given(data=st.data())
def test_permute_dims(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(0, 4))
    x = data.draw(tensor_operand(shape, F32, env, rng))
    props = {}
    if data.draw(st.booleans()):
        order = data.draw(st.permutations(range(len(shape))))
        props["axes"] = ints(*_maybe_negative(data.draw, list(order), len(shape)))
    run(Case(PermuteDimsOp, [x[0]], props, [x[1]], env), data)


@given(data=st.data())
def test_expand_dims(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(0, 3))
    x = data.draw(tensor_operand(shape, F32, env, rng))
    rank = len(shape) + data.draw(st.integers(1, 3))
    positions = data.draw(
        st.lists(
            st.integers(0, rank - 1),
            min_size=rank - len(shape),
            max_size=rank - len(shape),
            unique=True,
        )
    )
    props = {"axis": ints(*_maybe_negative(data.draw, positions, rank))}
    run(Case(ExpandDimsOp, [x[0]], props, [x[1]], env), data)


@given(data=st.data())
def test_squeeze(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(st.lists(st.sampled_from([1, 1, 2, 3]), max_size=4).map(tuple))
    x = data.draw(tensor_operand(shape, F32, env, rng))
    props = {}
    if data.draw(st.booleans()):
        ones = [i for i, d in enumerate(shape) if d == 1]
        chosen = data.draw(st.lists(st.sampled_from(ones), unique=True)) if ones else []
        props["axis"] = ints(*_maybe_negative(data.draw, chosen, len(shape)))
    run(Case(SqueezeOp, [x[0]], props, [x[1]], env), data)


@given(data=st.data())
def test_concat(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(1, 3))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    operands = []
    for _ in range(data.draw(st.integers(1, 3))):
        part = list(shape)
        part[axis] = data.draw(st.integers(1, 4))
        operands.append(data.draw(tensor_operand(tuple(part), I32, env, rng)))
    props = {"axis": int_attr(axis)} if axis or data.draw(st.booleans()) else {}
    case = Case(ConcatOp, [t for t, _ in operands], props, [v for _, v in operands], env)
    run(case, data)


@given(data=st.data())
def test_split(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = list(data.draw(shapes(1, 3)))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    shape[axis] = data.draw(st.integers(1, 6))
    x = data.draw(tensor_operand(tuple(shape), F32, env, rng))
    if data.draw(st.booleans()):
        points = int_attr(data.draw(st.sampled_from(_divisors(shape[axis]))))
    else:
        points = ints(*data.draw(st.lists(st.integers(-7, 7), max_size=3)))
    props = {"indices_or_sections": points}
    if axis or data.draw(st.booleans()):
        props["axis"] = int_attr(axis)
    run(Case(SplitOp, [x[0]], props, [x[1]], env), data)


@given(data=st.data())
def test_take(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(1, 3))
    x = data.draw(tensor_operand(shape, F32, env, rng))
    props = {}
    if data.draw(st.booleans()):
        axis = data.draw(st.integers(-len(shape), len(shape) - 1))
        props["axis"] = int_attr(axis)
        size = shape[axis]
    else:
        size = math.prod(shape)
    index_shape = data.draw(shapes(0, 2))
    index_dtype = data.draw(st.sampled_from([I32, I64]))
    indices = data.draw(tensor_operand(index_shape, index_dtype, env, rng, -size, size))
    run(Case(TakeOp, [x[0], indices[0]], props, [x[1], indices[1]], env), data)


@given(data=st.data())
def test_strided_slice(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(1, 3, high=6))
    x = data.draw(tensor_operand(shape, F32, env, rng))
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True))
    bound = st.one_of(
        st.integers(-8, 8), st.sampled_from([2**31 - 1, -(2**31), 2**63 - 1, -(2**63)])
    )
    count = len(axes)
    props = {
        "axes": ints(*_maybe_negative(data.draw, axes, len(shape))),
        "begin": ints(*data.draw(st.lists(bound, min_size=count, max_size=count))),
        "end": ints(*data.draw(st.lists(bound, min_size=count, max_size=count))),
    }
    if data.draw(st.booleans()):
        stride = st.integers(-3, 3).filter(bool)
        props["strides"] = ints(*data.draw(st.lists(stride, min_size=count, max_size=count)))
    run(Case(StridedSliceOp, [x[0]], props, [x[1]], env), data)


# ------------------------------------------------------------------------------ reductions


@pytest.mark.parametrize("op", REDUCE_OPS, ids=name)
@given(data=st.data())
def test_reduce(op, data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(0, 4))
    dtype = data.draw(st.sampled_from(dtypes_for(op, (F32, I32, I64))))
    x = data.draw(tensor_operand(shape, dtype, env, rng, -5, 6))
    props = {}
    if data.draw(st.booleans()):
        axes = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True)) if shape else []
        props["axis"] = ints(*_maybe_negative(data.draw, axes, len(shape)))
    if data.draw(st.booleans()):
        props["keepdims"] = bool_attr(data.draw(st.booleans()))
    run(Case(op, [x[0]], props, [x[1]], env), data)


# ------------------------------------------------------------------------------ nn


@pytest.mark.parametrize("op", [SoftmaxOp, LogSoftmaxOp], ids=name)
@given(data=st.data())
def test_softmax(op, data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(1, 3))
    x = data.draw(tensor_operand(shape, data.draw(st.sampled_from([F32, F16])), env, rng))
    props = {}
    if data.draw(st.booleans()):
        props["axis"] = int_attr(data.draw(st.integers(-len(shape), len(shape) - 1)))
    run(Case(op, [x[0]], props, [x[1]], env), data)


@given(data=st.data())
def test_layer_norm(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(1, 3, low=2))
    x = data.draw(tensor_operand(shape, F32, env, rng))
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True))
    params = [
        data.draw(tensor_operand(tuple(shape[a] for a in axes), F32, env, rng)) for _ in range(2)
    ]
    props = {"axes": ints(*_maybe_negative(data.draw, axes, len(shape)))}
    if data.draw(st.booleans()):
        props["epsilon"] = FloatAttr(data.draw(st.sampled_from([1e-5, 1e-3])), f32)
    types = [x[0], *(p[0] for p in params)]
    run(Case(LayerNormOp, types, props, [x[1], *(p[1] for p in params)], env), data)


@st.composite
def window_props(draw, rank: int, dilated: bool):
    """Strides, padding (every accepted form), dilation; returns (props, strides, before,
    after, dilation) with absent properties at their defaults."""
    props = {}
    strides = [draw(st.integers(1, 2)) for _ in range(rank)]
    if strides != [1] * rank or draw(st.booleans()):
        props["strides"] = ints(*strides)
    form = draw(st.sampled_from(["absent", "one", "each", "both"]))
    values = [draw(st.integers(0, 2)) for _ in range(2 * rank)]
    if form == "absent":
        before = after = [0] * rank
    elif form == "one":
        before = after = [values[0]] * rank
        props["padding"] = ints(values[0])
    elif form == "each":
        before = after = values[:rank]
        props["padding"] = ints(*before)
    else:
        before, after = values[:rank], values[rank:]
        props["padding"] = ints(*values)
    dilation = [draw(st.integers(1, 2)) if dilated else 1 for _ in range(rank)]
    if dilated and dilation != [1] * rank:
        props["dilation"] = ints(*dilation)
    return props, before, after, dilation


@pytest.mark.parametrize("op", [Conv1dOp, Conv2dOp], ids=name)
@given(data=st.data())
def test_conv(op, data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    rank = op.SPATIAL
    props, before, after, dilation = data.draw(window_props(rank, dilated=True))
    groups = data.draw(st.integers(1, 2))
    if groups > 1 or data.draw(st.booleans()):
        props["groups"] = int_attr(groups)
    group_in, group_out = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    kernel = [data.draw(st.integers(1, 3)) for _ in range(rank)]
    sizes = []
    for axis in range(rank):
        reach = dilation[axis] * (kernel[axis] - 1) + 1
        low = max(1, reach - before[axis] - after[axis])
        sizes.append(data.draw(st.integers(low, low + 3)))
    dtype = data.draw(st.sampled_from([F32, I32]))
    batch = data.draw(st.integers(1, 2))
    x = data.draw(tensor_operand((batch, groups * group_in, *sizes), dtype, env, rng))
    w = data.draw(tensor_operand((groups * group_out, group_in, *kernel), dtype, env, rng))
    run(Case(op, [x[0], w[0]], props, [x[1], w[1]], env), data)


@pytest.mark.parametrize("op", [MaxPool2dOp, AvgPool2dOp], ids=name)
@given(data=st.data())
def test_pool(op, data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    props, before, after, _ = data.draw(window_props(2, dilated=False))
    pool = [max(data.draw(st.integers(1, 3)), before[a] + 1, after[a] + 1) for a in range(2)]
    props["pool_size"] = ints(*pool)
    sizes = [data.draw(st.integers(max(1, pool[a] - before[a] - after[a]), 6)) for a in range(2)]
    dtype = data.draw(st.sampled_from([F32, I32]))
    x = data.draw(tensor_operand((data.draw(st.integers(1, 2)), 2, *sizes), dtype, env, rng))
    run(Case(op, [x[0]], props, [x[1]], env), data)


# ------------------------------------------------------------------------------ creation, set


@pytest.mark.parametrize("op", [ZerosOp, OnesOp], ids=name)
@given(data=st.data())
def test_zeros_ones(op, data):
    env = data.draw(bindings())
    shape = data.draw(shapes(0, 3))
    dtype = data.draw(st.sampled_from([F16, F32, I32, I1]))
    shape_type = ShapeType.of(data.draw(dims_for(shape, env)))
    run(Case(op, [shape_type], {"dtype": dtype}, [shape], env), data)


@given(data=st.data())
def test_full(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    shape = data.draw(shapes(0, 3))
    fill = data.draw(tensor_operand((), data.draw(st.sampled_from([F32, I32])), env, rng))
    props = {"dtype": data.draw(st.sampled_from([F16, I64]))} if data.draw(st.booleans()) else {}
    shape_type = ShapeType.of(data.draw(dims_for(shape, env)))
    run(Case(FullOp, [shape_type, fill[0]], props, [shape, fill[1]], env), data)


@given(data=st.data())
def test_arange(data):
    start, end = data.draw(st.integers(-5, 5)), data.draw(st.integers(-5, 5))
    step = data.draw(st.integers(-3, 3).filter(bool))
    scalar = TensorType.of([], I64)
    props = (
        {"dtype": data.draw(st.sampled_from([F32, I32, I64]))} if data.draw(st.booleans()) else {}
    )
    inputs = [np.array(v, np.int64) for v in (start, end, step)]
    run(Case(ArangeOp, [scalar] * 3, props, inputs), data)


@pytest.mark.parametrize("op", [TrilOp, TriuOp], ids=name)
@given(data=st.data())
def test_triangular(op, data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32, I1]))
    x = data.draw(tensor_operand(data.draw(shapes(2, 4)), dtype, env, rng))
    props = {"k": int_attr(data.draw(st.integers(-5, 5)))} if data.draw(st.booleans()) else {}
    run(Case(op, [x[0]], props, [x[1]], env), data)


@given(data=st.data())
def test_unique(data):
    env, rng = data.draw(bindings()), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    x = data.draw(tensor_operand(data.draw(shapes(0, 3)), dtype, env, rng, -2, 3))
    run(Case(UniqueOp, [x[0]], {}, [x[1]], env), data)


def test_every_operator_has_a_property_test():
    from test_arg_reduce import TESTED as ARG_REDUCE_TESTED
    from test_deduce_reference_gather_scan import TESTED as GATHER_SCAN_TESTED
    from test_deduce_reference_nn import TESTED as NN_TESTED
    from test_deduce_reference_tensor import TESTED as TENSOR_TESTED
    from test_runtime_attrs import TESTED as RUNTIME_ATTRS_TESTED

    tested = {
        *UNARY_OPS, *BINARY_OPS, *COMPARE_OPS, WhereOp, AstypeOp, MatmulOp, ReshapeOp,
        FlattenOp, PermuteDimsOp, ExpandDimsOp, SqueezeOp, ConcatOp, SplitOp, TakeOp,
        StridedSliceOp, *REDUCE_OPS, SoftmaxOp, LogSoftmaxOp, LayerNormOp, Conv1dOp,
        Conv2dOp, MaxPool2dOp, AvgPool2dOp, ZerosOp, OnesOp, FullOp, ArangeOp, TrilOp, TriuOp,
        UniqueOp, *LAYOUT_OPS,
    }  # fmt: skip
    others = (
        NN_TESTED | GATHER_SCAN_TESTED | RUNTIME_ATTRS_TESTED | TENSOR_TESTED | ARG_REDUCE_TESTED
    )
    assert tested | others == set(OPERATORS)
