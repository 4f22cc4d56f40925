"""``relax.runtime_attrs`` and ``relax.tensor_to_shape``: attributes and shapes that are
tensor values at run time. The operator's numbers on the VM and in the interpreter are
numpy's with the attribute given; wrong values are the operator's own one-line errors;
the deduced type (rank and element type) contains every result (property test)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from opcheck import Case, bool_attr, check_case, check_safety_net, erasures
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr

import xrelax
from xrelax.dialects import dtypes
from xrelax.dialects.relax import ShapeType, TensorType
from xrelax.frontend.block_builder import BlockBuilder
from xrelax.ops.runtime_attrs import RuntimeAttrsOp, TensorToShapeOp, runtime_attrs

TESTED = {RuntimeAttrsOp, TensorToShapeOp}
"""The operators this module tests (test_every_operator_has_a_property_test)."""

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)

# (operator, static attributes, given attribute values, numpy's result)
CASES = [
    ("sum", {}, {"axis": [0, 2]}, lambda x: x.sum(axis=(0, 2))),
    ("sum", {"keepdims": True}, {"axis": [-1]}, lambda x: x.sum(axis=-1, keepdims=True)),
    ("mean", {}, {"axis": [1]}, lambda x: x.mean(axis=1)),
    ("max", {}, {"axis": [2, 0]}, lambda x: x.max(axis=(2, 0))),
    ("min", {"keepdims": True}, {"axis": [0, 1, 2]}, lambda x: x.min(axis=None, keepdims=True)),
    ("triu", {}, {"k": 1}, lambda x: np.triu(x, 1)),
    ("tril", {}, {"k": -2}, lambda x: np.tril(x, -2)),
    ("cumsum", {}, {"axis": -2}, lambda x: np.cumsum(x, axis=-2)),
    ("expand_dims", {}, {"axis": [0, 4]}, lambda x: np.expand_dims(x, (0, 4))),
    ("permute_dims", {}, {"axes": [2, 0, 1]}, lambda x: x.transpose(2, 0, 1)),
    (
        "strided_slice",
        {"axes": [0, 2]},
        {"begin": [-2, 4], "end": [100, -6], "strides": [1, -2]},
        lambda x: x[-2:100, :, 4:-6:-2],
    ),
    ("pad", {}, {"pad_width": [0, 1, 2, 0, 1, 1]}, lambda x: np.pad(x, [(0, 1), (2, 0), (1, 1)])),
]


def _compiled(op_name: str, static: dict, attrs: dict) -> tuple:
    """A function of x (``[n, 4, 5]``) and the attribute tensors applying the operator."""
    bb = BlockBuilder()
    params = [("x", TensorType.of(["n", 4, 5], dtypes.F32))]
    for name, value in attrs.items():
        params.append((name, TensorType.of(list(np.shape(value)), dtypes.I64)))
    with bb.function("main", params) as values:
        x, *given_values = values
        operands = [x]
        if op_name == "pad":
            operands.append(bb.const(np.array(0, np.float32)))
        given = dict(zip(attrs, given_values, strict=True))
        bb.emit_func_output(bb.emit(runtime_attrs(op_name, operands, given, **static)))
    module = bb.get()
    return module, xrelax.VirtualMachine(xrelax.compile(module))["main"]


@pytest.mark.parametrize(
    ("op_name", "static", "attrs", "expected"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_numbers_are_numpys(op_name, static, attrs, expected):
    module, main = _compiled(op_name, static, attrs)
    args = [np.asarray(v, np.int64) for v in attrs.values()]
    want = expected(X)
    np.testing.assert_array_equal(main(X, *args), want)
    np.testing.assert_array_equal(xrelax.interpret(module, "main", X, *args), want)


def test_the_result_type_is_rank_and_dtype():
    module, _ = _compiled("sum", {}, {"axis": [0, 2]})
    assert "-> !relax.tensor<ndim=1, f32>" in xrelax.print_module(module)


@pytest.mark.parametrize(
    ("op_name", "attrs", "message"),
    [
        ("sum", {"axis": [3]}, "relax.runtime_attrs: relax.sum: axis 3 is out of range for rank 3"),
        ("sum", {"axis": [0, -3]}, "relax.sum: axis [0, -3] repeats an axis (rank 3)"),
        ("pad", {"pad_width": [0, -1, 0, 0, 0, 0]}, "relax.pad: expected non-negative 'pad_width'"),
        ("max", {"axis": [0]}, "relax.max: the reduced axes are not empty"),
    ],
)
def test_wrong_values_are_the_operators_errors(op_name, attrs, message):
    module, main = _compiled(op_name, {}, attrs)
    args = [np.asarray(v, np.int64) for v in attrs.values()]
    x = X[:0] if op_name == "max" else X
    with pytest.raises(xrelax.VMError, match=re.escape(message)):
        main(x, *args)
    with pytest.raises(Exception, match=re.escape(message.split(": ")[-1])):
        xrelax.interpret(module, "main", x, *args)


def test_tensor_to_shape_gives_symbolic_kernels():
    bb = BlockBuilder()
    params = [("x", TensorType.of(["n", 4], dtypes.F32)), ("t", TensorType.of([2], dtypes.I64))]
    with bb.function("main", params) as (x, t):
        shape = bb.match_shape(bb.emit(TensorToShapeOp.build_deduced([t])), ["a", "b"])
        y = bb.emit_op("relax.reshape", x, shape)
        bb.emit_func_output(bb.emit_op("relax.exp", y))
    main = xrelax.VirtualMachine(xrelax.compile(bb.get()))["main"]
    x = RNG.standard_normal((6, 4)).astype(np.float32)
    np.testing.assert_allclose(main(x, np.array([3, 8])), np.exp(x.reshape(3, 8)), rtol=1e-6)
    with pytest.raises(xrelax.VMError, match=r"relax.tensor_to_shape: expected non-negative"):
        main(x, np.array([-1, 24]))
    with pytest.raises(Exception, match="the element count is kept"):
        main(x, np.array([5, 5]))


@st.composite
def reduction_cases(draw: st.DrawFn) -> Case:
    rank = draw(st.integers(1, 3))
    shape = draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    axes = draw(st.lists(st.integers(-rank, rank - 1), unique_by=lambda a: a % rank, min_size=1))
    keepdims = draw(st.booleans())
    x = TensorType.of(list(shape), dtypes.F32)
    axes_type = TensorType.of([len(axes)], dtypes.I64)
    props = {
        "op": StringAttr(draw(st.sampled_from(["relax.sum", "relax.max", "relax.mean"]))),
        "names": ArrayAttr([StringAttr("axis")]),
        "attrs": DictionaryAttr({"keepdims": bool_attr(keepdims)}),
    }
    inputs = [RNG.standard_normal(shape).astype(np.float32), np.array(axes, np.int64)]
    return Case(RuntimeAttrsOp, [x, axes_type], props, inputs)


@given(data=st.data())
def test_runtime_attrs_property(data):
    case = data.draw(reduction_cases())
    deduced = check_case(case)
    check_safety_net(case, deduced, data.draw(erasures(len(case.types))))


@given(sizes=st.lists(st.integers(0, 5), max_size=4), erased=st.booleans())
def test_tensor_to_shape_property(sizes, erased):
    length = None if erased else len(sizes)
    deduced = TensorToShapeOp.deduction(
        [TensorType.of(["k" if erased else length], dtypes.I32)], {}
    ).type
    shape = TensorToShapeOp.reference([np.array(sizes, np.int32)], {})
    assert shape == tuple(sizes)
    assert deduced == ShapeType.of(length)
