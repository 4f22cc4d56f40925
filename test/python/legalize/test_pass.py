"""The ``relax-legalize-ops`` pass as a whole: every operator has a legalization or is
data-dependent, identical kernels are shared, sym arguments for variables no buffer
binds, the safety net, the kernel debug listing, and a whole program."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from legalcheck import F32, I64, build, check, kernels, shape, tensor

import xrelax
from xrelax.backends.kernels import DEBUG_ENV, compile_prim_func
from xrelax.dialects.relax import CallPackedOp, CallTIROp, TensorType, show_type
from xrelax.dialects.shapes.symbolic import sym
from xrelax.frontend.block_builder import BlockBuilder
from xrelax.ops.base import OperatorOp
from xrelax.ops.create import ArangeOp
from xrelax.ops.elementwise import AddOp, ExpOp
from xrelax.ops.library import OPERATORS
from xrelax.ops.manipulate import ReshapeOp
from xrelax.ops.nn import SoftmaxOp
from xrelax.ops.reduce import SumOp
from xrelax.ops.set import UniqueOp

EXAMPLES = Path(__file__).parents[3] / "examples"
RNG = np.random.default_rng(0)


def calls(module, kind):
    return [op for op in module.walk() if isinstance(op, kind)]


@pytest.mark.parametrize("op", OPERATORS, ids=lambda op: op.name)
def test_every_operator_legalizes_or_is_data_dependent(op):
    has_te = op.emit_te.__func__ is not OperatorOp.emit_te.__func__
    assert has_te != op.DATA_DEPENDENT


def test_identical_kernels_are_shared():
    bb = BlockBuilder()
    params = {"a": TensorType.of(["n", 4], F32), "b": TensorType.of([4], F32)}
    with bb.function("main", params) as (a, b):
        first = bb.emit_op("relax.add", a, b)
        second = bb.emit_op("relax.add", a, b)
        other_shape = bb.emit_op("relax.add", first, second)
        bb.emit_func_output(bb.emit_op("relax.add", other_shape, second))
    module = xrelax.apply(bb.get(), "relax-legalize-ops")
    assert [k.sym_name.data for k in kernels(module)] == ["add", "add1"]
    assert [c.callee.string_value() for c in calls(module, CallTIROp)] == [
        "add",
        "add",
        "add1",
        "add1",
    ]
    a, b = RNG.random((3, 4), np.float32), RNG.random(4, np.float32)
    np.testing.assert_allclose(xrelax.interpret(module, "main", a, b), 3 * (a + b), rtol=1e-6)


def test_variables_no_buffer_binds_are_sym_arguments():
    n, m = sym("n"), sym("m")
    x = RNG.random((6, 3), np.float32)
    module = check(ExpOp, [tensor([2 * n, m + 1], F32, x)], env={"n": 3, "m": 2})
    (func,) = kernels(module)
    assert list(func.sym_param_names) == ["n", "m"]
    (call,) = calls(module, CallTIROp)
    assert [str(e) for e in call.sym_args.data] == ["n", "m"]


def test_a_shape_operand_is_static_in_the_kernel():
    n = sym("n")
    x = RNG.random((2, 6), np.float32)
    module = check(ReshapeOp, [tensor([n, 6], F32, x), shape([3, 2 * n], (3, 4))], env={"n": 2})
    (call,) = calls(module, CallTIROp)
    assert len(call.operands) == 1  # the tensor; the shape is in the kernel's types


def safety_net(op, operands, props=None):
    """The op legalized to ``call_packed "relax.op.<name>"``: the same numbers."""
    module, args = build(op, operands, props or {}, {})
    expected = xrelax.interpret(module, "main", *args)
    legalized = xrelax.apply(module.clone(), "relax-legalize-ops")
    (call,) = calls(legalized, CallPackedOp)
    assert call.callee.data == "relax.op." + op.name.removeprefix("relax.")
    assert not kernels(legalized) and not calls(legalized, OperatorOp)
    got = xrelax.interpret(legalized, "main", *args)
    np.testing.assert_array_equal(got, expected)
    return call


def test_unknown_shapes_take_the_safety_net():
    x = RNG.random((2, 3), np.float32)
    call = safety_net(SumOp, [(TensorType.of(2, F32), x)], {"axis": [1], "keepdims": True})
    assert "keepdims = true" in show_type(call.op_attrs)
    safety_net(AddOp, [(TensorType.of(None, F32), x), (TensorType.of([3], F32), x[0])])


def test_data_dependent_operators_take_the_safety_net():
    safety_net(UniqueOp, [tensor([5], I64, np.array([3, 1, 3, 0, 1]))])
    scalars = [tensor([], I64, np.array(v)) for v in (1, 9, 3)]
    safety_net(ArangeOp, scalars)


def test_kernel_debug_listing(monkeypatch, capsys):
    x = RNG.random((3, 5), np.float32)
    module = check(SoftmaxOp, [tensor(["n", 5], F32, x)])
    monkeypatch.setenv(DEBUG_ENV, "1")
    for func in kernels(module):
        compile_prim_func(func)
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("[xrelax.kernels] @softmax nest") for line in lines)
    assert {line.rsplit(": ", 1)[1].split()[0] for line in lines} >= {"reduce", "elementwise"}
    assert not [line for line in lines if ": scalar" in line]


def test_mlp_example_matches_the_reference():
    module = xrelax.parse((EXAMPLES / "mlp.mlir").read_text())
    args = [
        RNG.standard_normal(s).astype(np.float32)
        for s in ((5, 784), (784, 128), (128,), (128, 10), (10,))
    ]
    expected = xrelax.interpret(module, "main", *args)
    legalized = xrelax.apply(module, "relax-legalize-ops")
    assert not calls(legalized, OperatorOp) and not calls(legalized, CallPackedOp)
    for func in kernels(legalized):
        assert all(p.path != "scalar" for p in compile_prim_func(func).paths)
    got = xrelax.interpret(legalized, "main", *args)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
