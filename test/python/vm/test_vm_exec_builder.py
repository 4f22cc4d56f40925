"""ExecBuilder: operands, CheckExecutable, Formalize and misuse errors."""

import warnings

import numpy as np
import pytest

from xrelax.backends.vm import (
    Arg,
    ArgKind,
    Call,
    ExecBuilder,
    Goto,
    If,
    Ret,
    VirtualMachine,
    VMError,
    register_func,
)

register_func("test.builder.add", lambda a, b: a + b, override=True)


def test_operands() -> None:
    ib = ExecBuilder()
    assert ib.r(3) == Arg(ArgKind.REGISTER, 3)
    assert ib.imm(-7) == Arg(ArgKind.IMMEDIATE, -7)
    assert ib.imm(np.int32(4)) == Arg(ArgKind.IMMEDIATE, 4)
    assert ib.c(ib.convert_constant(1.5)) == Arg(ArgKind.CONST_IDX, 0)
    assert ib.f("g") == Arg(ArgKind.FUNC_IDX, 0)
    assert ib.f("h") == Arg(ArgKind.FUNC_IDX, 1)
    assert ib.f("g") == Arg(ArgKind.FUNC_IDX, 0)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda ib: ib.r(-1), "invalid register number -1"),
        (lambda ib: ib.r(1 << 54), f"invalid register number {1 << 54}"),
        (lambda ib: ib.c(0), "constant index 0 out of range [0, 0)"),
        (lambda ib: ib.imm(1.5), "immediate must be an integer, got float"),
        (
            lambda ib: ib.imm(1 << 55),
            f"immediate {1 << 55} out of range [{-(1 << 55)}, {(1 << 55) - 1}]; use a constant",
        ),
        (
            lambda ib: ib.convert_constant([1, 2]),
            "unsupported constant of type builtins.list; constants are arrays, int, float, "
            "str, None or tuples of those",
        ),
        (
            lambda ib: ib.convert_constant(np.array([None])),
            "constant arrays of dtype object are not supported",
        ),
        (
            lambda ib: ib.emit_ret(ib.r(0)),
            "ret outside of a function; use `with ib.function(...)`",
        ),
    ],
)
def test_operand_errors(make: object, message: str) -> None:
    with pytest.raises(VMError) as info:
        make(ExecBuilder())
    assert str(info.value) == message


def test_convert_constant_dedupes() -> None:
    ib = ExecBuilder()
    arr = np.zeros(3)
    assert ib.convert_constant(arr) == 0
    assert ib.convert_constant(arr) == 0
    assert ib.convert_constant(np.zeros(3)) == 1
    assert ib.convert_constant((32, 16)) == 2
    assert ib.convert_constant((32, 16)) == 2
    assert ib.convert_constant(1) == 3
    assert ib.convert_constant(1.0) == 4
    assert ib.convert_constant(True) == 5
    assert ib.convert_constant("float32") == 6
    assert ib.convert_constant("float32") == 6
    assert ib.convert_constant(None) == 7
    assert ib.convert_constant(1, dedupe=False) == 8
    assert ib.get().constants[2] == (32, 16)


def test_raw_values_in_args_become_constants() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_call("test.builder.add", args=[ib.r(0), "s"], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    exe = ib.get()
    assert exe.constants == ["s"]
    assert exe.get_instruction(0) == Call(
        1, 0, (Arg(ArgKind.REGISTER, 0), Arg(ArgKind.CONST_IDX, 0))
    )


def test_read_of_unwritten_register_is_an_error() -> None:
    ib = ExecBuilder()
    with pytest.raises(VMError) as info, ib.function("main", num_inputs=2):
        ib.emit_call("test.builder.add", args=[ib.r(0), ib.r(3)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    assert str(info.value) == (
        "function 'main': instruction 0 reads register %3, which is never written and is "
        "not an input (the function has 2 inputs)"
    )
    # the failed function is not added and the builder is usable again
    with ib.function("main", num_inputs=1):
        ib.emit_ret(ib.r(0))
    assert [f.name for f in ib.get().global_funcs] == ["main"]


def test_unused_input_warns() -> None:
    ib = ExecBuilder()
    with (
        pytest.warns(UserWarning, match=r"^function 'main': input register %1 is never used$"),
        ib.function("main", num_inputs=3),
    ):
        ib.emit_call("test.builder.add", args=[ib.r(0), ib.r(2)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))


def test_all_inputs_used_does_not_warn() -> None:
    ib = ExecBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ib.function("main", num_inputs=2):
            ib.emit_call("test.builder.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
            ib.emit_ret(ib.r(2))


def test_formalize_renumbers_by_first_use() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_call("test.builder.add", args=[ib.r(1), ib.r(0)], dst=ib.r(10000))
        ib.emit_call("test.builder.add", args=[ib.r(10000), ib.r(0)], dst=ib.r(77))
        ib.emit_if(ib.r(77), 2)
        ib.emit_call("test.builder.add", args=[ib.r(77), ib.r(10000)], dst=ib.r(5))
        ib.emit_ret(ib.r(77))
    exe = ib.get()
    assert exe.global_funcs[0].register_file_size == 5
    r = lambda i: Arg(ArgKind.REGISTER, i)  # noqa: E731
    assert [exe.get_instruction(i) for i in range(5)] == [
        Call(2, 0, (r(1), r(0))),
        Call(3, 0, (r(2), r(0))),
        If(3, 2),
        Call(4, 0, (r(3), r(2))),
        Ret(3),
    ]
    assert VirtualMachine(exe)["main"](1, 2) == 4


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (lambda ib: None, "function 'main' has no instructions"),
        (
            lambda ib: ib.emit_call("test.builder.add", args=[ib.r(0), ib.r(0)]),
            "function 'main' does not end with ret or goto",
        ),
        (
            lambda ib: (ib.emit_if(ib.r(0), 5), ib.emit_ret(ib.r(0))),
            "function 'main': instruction 0 jumps by 5 to 5, outside its 2 instructions",
        ),
        (
            lambda ib: (ib.emit_ret(ib.r(0)), ib.emit_goto(-2)),
            "function 'main': instruction 1 jumps by -2 to -1, outside its 2 instructions",
        ),
        (
            lambda ib: ib.emit_call("x", dst=ib.imm(1)),
            "call of 'x': dst must be a register, got Arg(kind=<ArgKind.IMMEDIATE: 1>, value=1)",
        ),
        (lambda ib: ib.emit_ret(ib.imm(0)), "ret: expected a register, got "
         "Arg(kind=<ArgKind.IMMEDIATE: 1>, value=0)"),
        (lambda ib: ib.get(), "get() called inside function 'main'"),
    ],
)  # fmt: skip
def test_malformed_functions(body: object, message: str) -> None:
    ib = ExecBuilder()
    with pytest.raises(VMError) as info, ib.function("main", num_inputs=1):
        body(ib)
    assert str(info.value) == message


def test_function_scope_errors() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        nested = pytest.raises(VMError, match=r"^function 'g' opened inside function 'main'$")
        with nested, ib.function("g", num_inputs=0):
            pass
        ib.emit_ret(ib.r(0))
    twice = pytest.raises(VMError, match=r"^function 'main' is defined twice$")
    with twice, ib.function("main", num_inputs=1):
        pass
    names = pytest.raises(VMError, match=r"^function 'h': 1 parameter names for 2 inputs$")
    with names, ib.function("h", num_inputs=2, param_names=("x",)):
        pass


def test_param_names_default_and_explicit() -> None:
    ib = ExecBuilder()
    with ib.function("f", num_inputs=2):
        ib.emit_call("test.builder.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    with ib.function("g", num_inputs=1, param_names=["x"]):
        ib.emit_ret(ib.r(0))
    f, g = ib.get().global_funcs
    assert f.param_names == ("arg0", "arg1")
    assert g.param_names == ("x",)


def test_current_pc_and_patch_offset() -> None:
    ib = ExecBuilder()
    with ib.function("f", num_inputs=1):
        ib.emit_ret(ib.r(0))
    with ib.function("g", num_inputs=1):
        assert ib.current_pc() == 1
        pc = ib.emit_goto(0)
        assert pc == 1
        ib.emit_ret(ib.r(0))
        ib.patch_offset(pc, 1)
        with pytest.raises(VMError, match=r"^patch_offset: instruction 2 is not a goto or if$"):
            ib.patch_offset(2, 1)
        with pytest.raises(VMError, match=r"^patch_offset: pc 0 is not in the open function 'g'$"):
            ib.patch_offset(0, 1)
    assert ib.get().get_instruction(1) == Goto(1)
