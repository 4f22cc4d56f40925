"""Values out of the range of their declared type, or of the wrong kind, at every entry of
a VM function (parameters and the results of packed functions): one line naming the
function and the parameter or call, the expected range and the value given."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xrelax
from xrelax.backends.interpreter import InterpreterError
from xrelax.backends.vm import VMError

INT64 = "[-9223372036854775808, 9223372036854775807]"


def run(text: str, *args: Any, entry: str = "main") -> Any:
    return xrelax.VirtualMachine(xrelax.compile(xrelax.parse(text)))[entry](*args)


def refusal(text: str, *args: Any) -> str:
    with pytest.raises(VMError) as info:
        run(text, *args)
    return str(info.value)


def prim_identity(type_: str) -> str:
    return f"relax.func @main(%i: {type_}) -> {type_} {{\n  relax.return %i : {type_}\n}}\n"


@pytest.mark.parametrize(
    "type_",
    ["!relax.prim<i64, i>", "!relax.prim<i64>", "!relax.prim<i32>", "!relax.prim<i64, 3>"],
    ids=["binding a variable", "unconstrained", "i32", "a constant"],
)
@pytest.mark.parametrize(
    "value",
    [2**63, -(2**63) - 1, np.uint64(2**64 - 1), np.array(2**64 - 1, np.uint64), 10**30],
    ids=["2**63", "-2**63 - 1", "uint64", "0-d uint64", "10**30"],
)
def test_a_prim_parameter_outside_int64(type_: str, value: Any) -> None:
    text = prim_identity(type_)
    assert refusal(text, value) == (
        f"main: parameter 'i': expected an int64 in {INT64}, got {int(value)}"
    )
    assert run(text, 3) == 3


@pytest.mark.parametrize(
    ("value", "kind"),
    [(np.array(7, dtype=object), "object"), (np.array(7.0), "float64"), (np.float32(7), "float32")],
)
def test_a_prim_parameter_of_the_wrong_kind(value: Any, kind: str) -> None:
    assert refusal(prim_identity("!relax.prim<i64>"), value) == (
        f"main: parameter 'i': expected an integer, got {kind}"
    )


def test_the_bounds_of_int64_are_accepted() -> None:
    text = prim_identity("!relax.prim<i64>")
    assert run(text, 2**63 - 1) == 2**63 - 1
    assert run(text, -(2**63)) == -(2**63)
    assert run(prim_identity("!relax.prim<i64, i>"), np.int64(2**63 - 1)) == 2**63 - 1


SHAPE = """
relax.func @main(%s: !relax.shape<[n, 2]>) -> !relax.shape<[n, 2]> {
  relax.return %s : !relax.shape<[n, 2]>
}
"""


@pytest.mark.parametrize(
    ("shape", "index", "dim"),
    [((2**63, 2), 0, 2**63), ((3, 2**64), 1, 2**64), ((np.uint64(2**64 - 1), 2), 0, 2**64 - 1)],
)
def test_a_shape_parameter_outside_int64(shape: tuple, index: int, dim: int) -> None:
    assert refusal(SHAPE, shape) == (
        f"main: parameter 's': dimension {index}: expected an int64 in {INT64}, got {dim}"
    )
    assert run(SHAPE, (3, 2)) == (3, 2)


ANY_DTYPE = """
relax.func @main(%x: !relax.tensor<[n], ?>) -> !relax.tensor<[n], ?> {
  relax.return %x : !relax.tensor<[n], ?>
}
"""


@pytest.mark.parametrize(
    ("array", "dtype"),
    [
        (np.zeros(3, np.complex128), "complex128"),
        (np.array([None, None]), "object"),
        (np.array(["a", "b"]), "str32"),
        (np.zeros(2, "datetime64[s]"), "datetime64[s]"),
    ],
)
def test_a_tensor_of_unknown_dtype_must_have_a_relax_dtype(array: np.ndarray, dtype: str) -> None:
    assert refusal(ANY_DTYPE, array) == (
        f"main: parameter 'x': expected a tensor of a boolean, integer or floating-point "
        f"dtype, got {dtype}"
    )
    for ok in (np.zeros(2, np.float16), np.zeros(2, np.uint8), np.zeros(2, bool)):
        assert run(ANY_DTYPE, ok) is ok


PACKED = """
relax.func @prim(%x: !relax.tensor<[n], f32>) -> !relax.prim<i64> {
  %p = relax.call_packed "test.ranges.prim"(%x) : (!relax.tensor<[n], f32>) -> !relax.prim<i64>
  relax.return %p : !relax.prim<i64>
}
relax.func @shape(%x: !relax.tensor<[n], f32>) -> !relax.shape<[n, 2]> {
  %p = relax.call_packed "test.ranges.shape"(%x) : (!relax.tensor<[n], f32>) -> !relax.shape<[n, 2]>
  relax.return %p : !relax.shape<[n, 2]>
}
relax.func @tensor(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], ?> {
  %p = relax.call_packed "test.ranges.tensor"(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], ?>
  relax.return %p : !relax.tensor<[n], ?>
}
"""


def test_packed_function_results_outside_their_type() -> None:
    xrelax.register_func("test.ranges.prim", lambda x: 2**63, override=True)
    xrelax.register_func("test.ranges.shape", lambda x: (x.shape[0], 2**64), override=True)
    xrelax.register_func("test.ranges.tensor", lambda x: x.astype(np.complex64), override=True)
    vm = xrelax.VirtualMachine(xrelax.compile(xrelax.parse(PACKED)))
    x = np.zeros(3, np.float32)
    expected = {
        "prim": f"prim: relax.call_packed 'test.ranges.prim' (%p): result: expected an int64 "
        f"in {INT64}, got {2**63}",
        "shape": f"shape: relax.call_packed 'test.ranges.shape' (%p): result: dimension 1: "
        f"expected an int64 in {INT64}, got {2**64}",
        "tensor": "tensor: relax.call_packed 'test.ranges.tensor' (%p): result: expected a "
        "tensor of a boolean, integer or floating-point dtype, got complex64",
    }
    for entry, message in expected.items():
        with pytest.raises(VMError) as info:
            vm[entry](x)
        assert str(info.value) == message


@pytest.mark.parametrize(
    ("type_", "value", "expected"),
    [
        ("!relax.prim<i8>", 300, "an int8 in [-128, 127], got 300"),
        ("!relax.prim<i16, n>", -40_000, "an int16 in [-32768, 32767], got -40000"),
        ("!relax.prim<i32>", 2**31, "an int32 in [-2147483648, 2147483647], got 2147483648"),
    ],
)
def test_a_prim_parameter_outside_its_narrower_type(type_: str, value: int, expected: str) -> None:
    text = prim_identity(type_)
    assert refusal(text, value) == f"main: parameter 'i': expected {expected}"
    assert run(text, 7) == 7


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (prim_identity("!relax.prim<i64>"), 2**63),
        (prim_identity("!relax.prim<i8>"), -129),
        (SHAPE, (3, 2**64)),
        (ANY_DTYPE, np.zeros(3, np.complex128)),
    ],
)
def test_the_interpreter_refuses_what_the_vm_refuses(text: str, value: Any) -> None:
    message = refusal(text, value)
    with pytest.raises(InterpreterError) as info:
        xrelax.interpret(xrelax.parse(text), "main", value)
    assert str(info.value) == message
