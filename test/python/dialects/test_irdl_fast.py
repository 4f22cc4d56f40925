"""xrelax.dialects.ir.irdl_fast through XrelaxOperation: our ops built and verified on the
fast paths end as xDSL's own builder and verifier make and judge them, errors word for
word."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, f32, i64
from xdsl.ir import Block, Operation
from xdsl.irdl import attr_def, irdl_op_definition, opt_prop_def, prop_def
from xdsl.irdl.operations import IRDLOperation, irdl_op_init
from xdsl.utils.exceptions import VerifyException

import xrelax
from xrelax.dialects import vm
from xrelax.dialects.ir import irdl_fast
from xrelax.dialects.ir.operation import XrelaxOperation

EXAMPLE = """
relax.func @main(%x: !relax.tensor<[n, 4], f32>, %y: !relax.tensor<[n, 4], f32>)
    -> !relax.tensor<[n, 4], f32> {
  %a = relax.add %x, %y : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 4], f32>)
  %b = relax.exp %a : (!relax.tensor<[n, 4], f32>)
  %c = relax.call_packed "vm.builtin.shape_of"(%b) : (!relax.tensor<[n, 4], f32>) -> !relax.shape<[n, 4]>
  relax.return %b : !relax.tensor<[n, 4], f32>
}
"""


def _error(verify: Callable[[], None]) -> str | None:
    try:
        verify()
    except VerifyException as err:
        return str(err)
    return None


def _generic(op: Operation) -> str | None:
    return _error(lambda: type(op).get_irdl_definition().verify(op))


def _fast(op: Operation) -> str | None:
    check = irdl_fast.definition_verifier(type(op))
    assert check is not None, op.name
    return _error(lambda: check(op))


def test_compiled_module_verifies_as_xdsl_verifies_it() -> None:
    module = xrelax.parse(EXAMPLE)
    xrelax.apply(module, "relax-to-vm")
    ops = [op for op in module.walk() if isinstance(op, XrelaxOperation)]
    assert len({type(op) for op in ops}) >= 10
    for op in ops:
        assert _fast(op) is None and _generic(op) is None, op.name


def _refs(count: int) -> list:
    return list(Block(arg_types=[vm.REF] * count).args)


def _f32_value():
    return Block(arg_types=[f32]).args[0]


def _invalid_ops() -> list[Operation]:
    a, b = _refs(2)
    missing_property = vm.ImmOp.create(result_types=[vm.REF])
    extra_property = vm.ImmOp(1)
    extra_property.properties["stray"] = StringAttr("x")
    wrong_property = vm.ImmOp.create(properties={"value": StringAttr("1")}, result_types=[vm.REF])
    two_results = vm.CallOp.create(
        operands=[a], properties={"callee": StringAttr("f")}, result_types=[vm.REF, vm.REF]
    )
    bad_result = vm.ImmOp.create(properties={"value": IntegerAttr(1, i64)}, result_types=[f32])
    bad_variadic = vm.CallOp("f", [a, _f32_value(), b])
    no_result = vm.ImmOp.create(properties={"value": IntegerAttr(1, i64)})
    extra_operand = vm.ImmOp.create(
        operands=[a], properties={"value": IntegerAttr(1, i64)}, result_types=[vm.REF]
    )
    return [
        missing_property, extra_property, wrong_property, two_results, bad_result,
        bad_variadic, no_result, extra_operand,
    ]  # fmt: skip


@pytest.mark.parametrize("index", range(8))
def test_invalid_op_gets_xdsl_error(index: int) -> None:
    op = _invalid_ops()[index]
    expected = _generic(op)
    assert expected is not None
    assert _fast(op) == expected
    with pytest.raises(VerifyException, match="Operation does not verify") as caught:
        op.verify()
    assert expected in str(caught.value)
    assert type(op).verify_.__module__.startswith("xrelax.")  # the fast check did it


def test_own_verifier_runs_after_the_definition_check() -> None:
    bad = vm.ConstOp(StringAttr("x"))
    bad.verify()
    bad.properties["value"] = DenseArrayBase.from_list(i64, [1])
    with pytest.raises(VerifyException, match="unsupported vm.const value"):
        bad.verify()
    assert type(bad).verify_.__module__.startswith("xrelax.")


ARGUMENTS = ("operands", "result_types", "properties", "attributes", "successors", "regions")


def _built(op: Operation) -> tuple:
    return (
        type(op),
        [id(v) for v in op.operands],
        list(op.result_types),
        dict(op.properties),
        dict(op.attributes),
        len(op.regions),
    )


def test_fast_builder_builds_what_xdsl_builds() -> None:
    a, b = _refs(2)
    cases: list[tuple[type[IRDLOperation], dict]] = [
        (vm.CallOp, {"operands": [[a, b]], "properties": {"callee": StringAttr("f")},
                     "result_types": [[vm.REF]]}),
        (vm.CallOp, {"operands": [[a]], "properties": {"callee": StringAttr("f")},
                     "result_types": [[]]}),
        (vm.CallOp, {"operands": [[]], "properties": {"callee": StringAttr("f")},
                     "result_types": [None]}),
        (vm.ImmOp, {"properties": {"value": IntegerAttr(2, i64)}, "result_types": [vm.REF]}),
    ]  # fmt: skip
    for cls, kwargs in cases:
        fast = cls.__new__(cls)
        arguments = [kwargs.get(name) for name in ARGUMENTS]
        assert irdl_fast.build_plain(fast, *arguments)  # the fast path built it
        generic = cls.__new__(cls)
        irdl_op_init(generic, cls.get_irdl_definition(), **{
            "operands": [], "result_types": [], "properties": {}, "attributes": {},
            "successors": [], "regions": [], **kwargs,
        })  # fmt: skip
        assert _built(fast) == _built(generic)


def test_fast_builder_leaves_conversions_and_errors_to_xdsl() -> None:
    imm = vm.ImmOp(3)
    call = vm.CallOp("f", [imm])  # an op as an operand: its result
    assert call.operands[0] is imm.results[0]
    with pytest.raises(ValueError, match="Expected 1 result, but got 2"):
        XrelaxOperation.__init__(
            vm.ImmOp.__new__(vm.ImmOp),
            properties={"value": IntegerAttr(1, i64)},
            result_types=[vm.REF, vm.REF],
        )


def test_compiled_program_still_runs() -> None:
    module = xrelax.parse(EXAMPLE)
    run = xrelax.VirtualMachine(xrelax.compile(module))["main"]
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(run(x, x), np.exp(x + x), rtol=1e-6)


@irdl_op_definition
class _DefaultsOp(XrelaxOperation):
    """An op with default-valued properties and attributes (none of ours has any yet)."""

    name = "test.defaults"

    count = prop_def(IntegerAttr, default_value=IntegerAttr(3, i64))
    label = opt_prop_def(StringAttr, default_value=StringAttr("opt"))
    tag = attr_def(StringAttr, default_value=StringAttr("t"))


def test_defaults_filled_as_xdsl_fills_them() -> None:
    given = {"count": IntegerAttr(5, i64)}
    for properties in ({}, given):
        fast = _DefaultsOp.create(properties=dict(properties))
        generic = _DefaultsOp.create()
        generic.properties, generic.attributes = dict(properties), {}
        IRDLOperation.__post_init__(generic)  # xDSL's filling, on the same op
        assert dict(fast.properties) == dict(generic.properties)
        assert dict(fast.attributes) == dict(generic.attributes) == {"tag": StringAttr("t")}


def test_build_of_declarative_formats_takes_the_fast_path() -> None:
    a, b = _refs(2)
    fields = {"operands": [[a, b]], "properties": {"callee": StringAttr("f")}}
    fast = vm.CallOp.build(**fields, result_types=[[vm.REF]])
    generic = IRDLOperation.build.__func__(vm.CallOp, **fields, result_types=[[vm.REF]])
    assert _built(fast) == _built(generic)
