"""Running executables built with ExecBuilder on the VirtualMachine."""

import numpy as np
import pytest

from xrelax.backends.vm import ExecBuilder, Executable, VirtualMachine, VMError, register_func

register_func("test.vm.move", lambda src: src, override=True)
register_func("test.vm.add", lambda a, b: a + b, override=True)
register_func("test.vm.mul", lambda a, b: a * b, override=True)
register_func("test.vm.sub", lambda a, b: a - b, override=True)
register_func("test.vm.less", lambda a, b: np.asarray(a < b), override=True)
register_func("test.vm.equal", lambda a, b: a == b, override=True)


def test_design_example_move_add_mul() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_call("test.vm.move", [ib.c(ib.convert_constant(np.arange(4.0)))], dst=ib.r(1))
        ib.emit_call("test.vm.add", [ib.r(0), ib.imm(10)], dst=ib.r(2))
        ib.emit_call("test.vm.mul", [ib.r(2), ib.r(1)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    vm = VirtualMachine(ib.get())
    x = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(vm["main"](x), (x + 10) * np.arange(4.0))


def test_design_example_func0_func1() -> None:
    ib = ExecBuilder()
    with ib.function("func0", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    with ib.function("func1", num_inputs=2):
        ib.emit_call("test.vm.mul", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    vm = VirtualMachine(ib.get())
    rng = np.random.default_rng(0)
    a, b = rng.random(4), rng.random(4)
    np.testing.assert_allclose(vm["func1"](a, b), a * b)
    np.testing.assert_allclose(vm["func0"](a, b), a + b)
    assert vm.functions() == ["func0", "func1"]
    assert "func0" in vm and "func2" not in vm


def test_design_example_shape_heap() -> None:
    ib = ExecBuilder()
    x = np.random.default_rng(0).random((32, 16))
    with ib.function("main", num_inputs=0):
        ib.emit_call("vm.builtin.alloc_shape_heap", args=[ib.imm(2)], dst=ib.r(0))
        ib.emit_call("vm.builtin.shape_of", args=[x], dst=ib.r(1))
        ib.emit_call("vm.builtin.store_shape", args=[ib.r(1), ib.r(0), ib.imm(0), ib.imm(1)])
        ib.emit_call("vm.builtin.load_shape", args=[ib.r(0), ib.imm(0), ib.imm(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    result = VirtualMachine(ib.get())["main"]()
    assert result == (32, 16)
    assert all(type(d) is int for d in result)


def test_negative_immediates_reach_the_callee() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.imm(-(2**55))], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    assert VirtualMachine(ib.get())["main"](7) == 7 - 2**55


def _sum_below() -> Executable:
    """main(n): s = 0; i = 0; while i < n: s += i; i += 1; return s."""
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1, param_names=("n",)):
        ib.emit_call("test.vm.move", args=[ib.imm(0)], dst=ib.r(1))  # s
        ib.emit_call("test.vm.move", args=[ib.imm(0)], dst=ib.r(2))  # i
        loop = ib.emit_call("test.vm.less", args=[ib.r(2), ib.r(0)], dst=ib.r(3))
        branch = ib.emit_if(ib.r(3), 0)
        ib.emit_call("test.vm.add", args=[ib.r(1), ib.r(2)], dst=ib.r(1))
        ib.emit_call("test.vm.add", args=[ib.r(2), ib.imm(1)], dst=ib.r(2))
        back = ib.emit_goto(0)
        ib.patch_offset(back, loop - back)
        ib.patch_offset(branch, ib.current_pc() - branch)
        ib.emit_ret(ib.r(1))
    return ib.get()


def test_loop_computes_sum() -> None:
    run = VirtualMachine(_sum_below())["main"]
    assert run(10) == 45
    assert run(0) == 0
    assert run(n=100) == 4950


def _select() -> Executable:
    """main(c, a, b): if c: return a + b else: return a * b."""
    ib = ExecBuilder()
    with ib.function("main", num_inputs=3):
        ib.emit_if(ib.r(0), 3)
        ib.emit_call("test.vm.add", args=[ib.r(1), ib.r(2)], dst=ib.r(3))
        ib.emit_goto(2)
        ib.emit_call("test.vm.mul", args=[ib.r(1), ib.r(2)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    return ib.get()


@pytest.mark.parametrize(
    ("cond", "expected"),
    [
        (np.array(True), [4.0, 6.0]),
        (np.array(False), [3.0, 8.0]),
        (np.bool_(True), [4.0, 6.0]),
        (0, [3.0, 8.0]),
        (1, [4.0, 6.0]),
    ],
)
def test_if_takes_each_branch(cond: object, expected: list[float]) -> None:
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_array_equal(VirtualMachine(_select())["main"](cond, a, b), expected)


def test_if_on_ambiguous_condition_is_a_vm_error() -> None:
    run = VirtualMachine(_select())["main"]
    with pytest.raises(VMError, match=r"^main: instruction 0: cannot test if condition: "):
        run(np.array([True, False]), 1, 2)


def test_recursive_factorial() -> None:
    ib = ExecBuilder()
    with ib.function("fact", num_inputs=1):
        ib.emit_call("test.vm.less", args=[ib.r(0), ib.imm(2)], dst=ib.r(1))
        ib.emit_if(ib.r(1), 3)
        ib.emit_call("test.vm.move", args=[ib.imm(1)], dst=ib.r(2))
        ib.emit_goto(4)
        ib.emit_call("test.vm.sub", args=[ib.r(0), ib.imm(1)], dst=ib.r(3))
        ib.emit_call("fact", args=[ib.r(3)], dst=ib.r(4))
        ib.emit_call("test.vm.mul", args=[ib.r(0), ib.r(4)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    with ib.function("main", num_inputs=1):
        ib.emit_call("fact", args=[ib.r(0)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    vm = VirtualMachine(ib.get())
    assert vm["main"](10) == 3628800
    assert vm["fact"](np.int64(5)) == 120


def test_function_value_and_call_tir_dyn_unpacking() -> None:
    calls = []

    def ewise(a: np.ndarray, out: np.ndarray, m: int, k: int) -> None:
        calls.append((m, k))
        np.multiply(a, m + k, out=out)

    register_func("test.vm.ewise", ewise, override=True)
    ib = ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_call("vm.builtin.alloc_tensor_direct", args=[(2, 3), "float32"], dst=ib.r(2))
        ib.emit_call(
            "vm.builtin.call_tir_dyn", args=[ib.f("test.vm.ewise"), ib.r(0), ib.r(2), ib.r(1)]
        )
        ib.emit_ret(ib.r(2))
    x = np.ones((2, 3), "float32")
    out = VirtualMachine(ib.get())["main"](x, (4, 5))
    np.testing.assert_array_equal(out, np.full((2, 3), 9.0, "float32"))
    assert calls == [(4, 5)]


def test_vm_function_as_value() -> None:
    ib = ExecBuilder()
    with ib.function("double", num_inputs=1):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(0)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    with ib.function("main", num_inputs=1):
        ib.emit_call("vm.builtin.call_tir_dyn", args=[ib.f("double"), ib.r(0), ()], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    assert VirtualMachine(ib.get())["main"](21) == 42


def test_planned_tensors_share_one_storage() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=0):
        ib.emit_call("vm.builtin.alloc_storage", args=[ib.imm(64), "float32"], dst=ib.r(0))
        ib.emit_call(
            "vm.builtin.alloc_tensor", args=[ib.r(0), ib.imm(0), (4,), "float32"], dst=ib.r(1)
        )
        ib.emit_call(
            "vm.builtin.alloc_tensor", args=[ib.r(0), ib.imm(16), (2, 2), "int32"], dst=ib.r(2)
        )
        ib.emit_call("vm.builtin.make_tuple", args=[ib.r(0), ib.r(1), ib.r(2)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    storage, t1, t2 = VirtualMachine(ib.get())["main"]()
    assert isinstance(storage, np.ndarray) and storage.dtype == np.uint8 and storage.nbytes == 64
    assert np.shares_memory(t1, storage) and np.shares_memory(t2, storage)
    assert not np.shares_memory(t1, t2)
    t1[:] = [1.0, 2.0, 3.0, 4.0]
    t2[:] = 7
    np.testing.assert_array_equal(storage[:16].view("float32"), [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(storage[16:32].view("int32"), [7, 7, 7, 7])


def test_free_and_move_are_handled_inline() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_call("vm.builtin.move", args=[ib.r(0)], dst=ib.r(1))
        ib.emit_call("vm.builtin.alloc_storage", args=[ib.imm(8), "uint8"], dst=ib.r(4))
        ib.emit_call("vm.builtin.free_storage", args=[ib.r(4)], dst=ib.r(2))
        ib.emit_call("vm.builtin.make_tuple", args=[ib.r(1), ib.r(2)], dst=ib.r(3))
        ib.emit_call("vm.builtin.free_tensor", args=[ib.r(1)])
        ib.emit_ret(ib.r(3))
    vm = VirtualMachine(ib.get())
    x = np.zeros(2)
    moved, freed = vm["main"](x)
    assert moved is x and freed is None
    assert "r1 = r0" in vm.source and "free_tensor" not in vm.source


def test_tuple_result() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_call("vm.builtin.make_tuple", args=[ib.r(2), ib.r(0)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    result = VirtualMachine(ib.get())["main"](np.ones(2), np.ones(2))
    assert isinstance(result, tuple) and len(result) == 2
    np.testing.assert_array_equal(result[0], [2.0, 2.0])


def _add_exe() -> Executable:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=2, param_names=("x", "y")):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    return ib.get()


def test_wrong_argument_count() -> None:
    run = VirtualMachine(_add_exe())["main"]
    with pytest.raises(VMError, match=r"^main: expected 2 arguments, got 3 \(parameters: x, y\)$"):
        run(1, 2, 3)
    with pytest.raises(VMError, match=r"^main: missing argument 'y' \(parameters: x, y\)$"):
        run(1)
    with pytest.raises(VMError, match=r"^main: missing arguments 'x', 'y' \(parameters: x, y\)$"):
        run()


def test_arguments_by_parameter_name() -> None:
    run = VirtualMachine(_add_exe())["main"]
    assert run(x=1, y=2) == 3
    assert run(1, y=5) == 6
    with pytest.raises(VMError, match=r"^main: unexpected argument 'z' \(parameters: x, y\)$"):
        run(1, z=2)
    with pytest.raises(VMError, match=r"^main: missing argument 'y' \(parameters: x, y\)$"):
        run(x=1)
    with pytest.raises(VMError, match=r"^main: argument 'x' given twice$"):
        run(1, x=2)


def test_unknown_function_name() -> None:
    vm = VirtualMachine(_add_exe())
    with pytest.raises(VMError, match=r"^no function named 'nope' in the executable"):
        vm["nope"]


def _calls(name: str) -> Executable:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_call(name, args=[ib.r(0)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    return ib.get()


def test_missing_packed_function_at_load_time() -> None:
    with pytest.raises(
        VMError, match=r"^missing packed function 'no.such' used by function 'main'$"
    ):
        VirtualMachine(_calls("no.such"))


def test_allow_missing_fails_at_run_time() -> None:
    run = VirtualMachine(_calls("no.such"), allow_missing=True)["main"]
    with pytest.raises(
        VMError, match=r"^main: instruction 0 calls missing packed function 'no.such'$"
    ):
        run(1)


def test_packed_funcs_belong_to_one_vm() -> None:
    exe = _calls("test.vm.per_vm")
    assert VirtualMachine(exe, packed_funcs={"test.vm.per_vm": lambda x: x * 3})["main"](2) == 6
    with pytest.raises(VMError, match="missing packed function 'test.vm.per_vm'"):
        VirtualMachine(exe)
    # they come before the registry
    register_func("vm.test.registered", lambda x: x + 1, override=True)
    local = {"vm.test.registered": lambda x: x - 1}
    assert VirtualMachine(_calls("vm.test.registered"), packed_funcs=local)["main"](2) == 1
    assert VirtualMachine(_calls("vm.test.registered"))["main"](2) == 3


def test_exception_in_packed_function_is_wrapped() -> None:
    def boom(x: object) -> None:
        raise ValueError(f"bad value\n{x}")

    register_func("test.vm.boom", boom, override=True)
    with pytest.raises(VMError) as info:
        VirtualMachine(_calls("test.vm.boom"))["main"](3)
    assert str(info.value) == (
        "main: packed function 'test.vm.boom' (instruction 0) failed: ValueError: bad value 3"
    )
    assert isinstance(info.value.__cause__, ValueError)


def test_error_names_the_innermost_vm_function() -> None:
    register_func("test.vm.fail", lambda x: 1 // 0, override=True)
    ib = ExecBuilder()
    with ib.function("inner", num_inputs=1):
        ib.emit_call("test.vm.fail", args=[ib.r(0)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    with ib.function("main", num_inputs=1):
        ib.emit_call("inner", args=[ib.r(0)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    with pytest.raises(
        VMError,
        match=r"^inner: packed function 'test.vm.fail' \(instruction 0\) "
        r"failed: ZeroDivisionError: integer division or modulo by zero$",
    ):
        VirtualMachine(ib.get())["main"](1)


def test_vm_errors_from_builtins_name_the_function_once() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_call("vm.builtin.alloc_storage", args=[ib.imm(8), "float32"], dst=ib.r(1))
        ib.emit_call("vm.builtin.check_tensor_info", args=[ib.r(0), ib.imm(1), "", "main: x"])
        ib.emit_call("vm.builtin.shape_of", args=[ib.r(0)], dst=ib.r(3))
        ib.emit_call(
            "vm.builtin.alloc_tensor",
            args=[ib.r(1), ib.imm(0), ib.r(3), "float32"],
            dst=ib.r(2),
            value_name="y",
        )
        ib.emit_ret(ib.r(2))
    run = VirtualMachine(ib.get())["main"]
    assert run(np.zeros(2)).shape == (2,)
    with pytest.raises(VMError) as info:
        run(np.zeros((1, 1)))
    assert str(info.value) == "main: x: expected rank 1, got rank 2"
    with pytest.raises(VMError) as info:
        run(np.zeros(3))
    assert str(info.value) == (
        "cannot allocate a tensor of shape [3] in main (%y): 12 bytes of float32 at offset 0 "
        "do not fit in its storage of 8 bytes"
    )


def test_inlined_allocation_errors_name_the_value() -> None:
    """alloc_tensor_direct is inlined (numpy's error has no shape): the message is the
    builtin's, with the function and the relax value; it survives save and load."""
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1, param_names=("s",)):
        ib.emit_call("vm.builtin.alloc_tensor_direct", args=[ib.r(0), "float32"], dst=ib.r(1))
        ib.emit_call(
            "vm.builtin.alloc_tensor_direct", args=[ib.r(0), "float32"], dst=ib.r(2), value_name="y"
        )
        ib.emit_ret(ib.r(2))
    exe = Executable.from_bytes(ib.get().to_bytes())
    assert exe.value_names == {1: "y"}
    run = VirtualMachine(exe)["main"]
    assert run((2, 3)).shape == (2, 3)
    with pytest.raises(VMError, match=r"^cannot allocate a tensor of shape \[-2, 4\] in main$"):
        run((-2, 4))
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_call(
            "vm.builtin.alloc_tensor_direct", args=[ib.r(0), "float32"], dst=ib.r(1), value_name="y"
        )
        ib.emit_ret(ib.r(1))
    with pytest.raises(
        VMError, match=r"^cannot allocate a tensor of shape \[-2, 4\] in main \(%y\)$"
    ):
        VirtualMachine(ib.get())["main"]((-2, 4))


def test_register_read_before_write_on_some_path() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1):
        ib.emit_if(ib.r(0), 2)
        ib.emit_call("test.vm.move", args=[ib.imm(1)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    run = VirtualMachine(ib.get())["main"]
    assert run(True) == 1
    with pytest.raises(
        VMError, match=r"^main: instruction 2 reads register %1 before it is written$"
    ):
        run(False)


def test_kernels_come_from_the_loader_before_the_registry() -> None:
    ib = ExecBuilder()
    ib.set_library("module { kernels }")
    with ib.function("main", num_inputs=1):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.imm(1)], dst=ib.r(1))
        ib.emit_call("kernel.neg", args=[ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    seen = []

    def loader(library: str) -> dict[str, object]:
        seen.append(library)
        return {"kernel.neg": lambda x: -x, "test.vm.add": lambda a, b: a - b}

    assert VirtualMachine(ib.get(), kernel_loader=loader)["main"](5) == -4
    assert seen == ["module { kernels }"]


def test_loader_not_called_without_library() -> None:
    def loader(library: str) -> dict[str, object]:
        raise AssertionError("called")

    assert VirtualMachine(_add_exe(), kernel_loader=loader)["main"](1, 2) == 3


def test_vm_call_with_wrong_arity_is_refused_at_load() -> None:
    ib = ExecBuilder()
    with ib.function("f", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    with ib.function("main", num_inputs=1):
        ib.emit_call("f", args=[ib.r(0)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    with pytest.raises(
        VMError,
        match=r"^function 'main': instruction 0 calls VM function 'f' "
        r"with 1 arguments, expected 2$",
    ):
        VirtualMachine(ib.get())


def test_malformed_executables_are_refused_at_load() -> None:
    exe = _add_exe()
    exe.instr_data[exe.instr_offset[1] + 1] = 9
    with pytest.raises(
        VMError,
        match=r"^function 'main': instruction 1: register %9 outside the "
        r"register file of size 3$",
    ):
        VirtualMachine(exe)
    exe = _add_exe()
    exe.instr_data[exe.instr_offset[1]] = 7
    with pytest.raises(VMError, match=r"^function 'main': instruction 1: unknown opcode 7$"):
        VirtualMachine(exe)
