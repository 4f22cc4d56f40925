"""Hostile executables against the state the VMs of a process share (issue 22).

Each executable is built with the public ExecBuilder and goes through ``to_bytes`` /
``from_bytes`` (a valid checksum). It is refused when loaded (the lifetime verifier) or
when run; a benign model run afterwards gives the very numbers it gave before. The
buffer pool is also checked on its own, with the verifier switched off: it refuses
whatever it did not lend.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import xrelax
from xrelax.backends import buffer_pool
from xrelax.backends.vm import ExecBuilder, Executable, VirtualMachine, VMError, virtual_machine
from xrelax.backends.vm.verifier import WORK_PER_WORD

T = "!relax.tensor<[256, 256], f32>"
BENIGN = f"""
relax.func @main(%x: {T}) -> {T} {{
  %a = relax.exp %x : ({T}) -> {T}
  %b = relax.sin %a : ({T}) -> {T}
  %c = relax.exp %b : ({T}) -> {T}
  %d = relax.sin %c : ({T}) -> {T}
  %e = relax.add %c, %d : ({T}, {T})
  %f = relax.add %e, %x : ({T}, {T})
  relax.return %f : {T}
}}
"""
UNFUSED = (
    "relax-normalize,relax-legalize-ops,relax-call-tir-rewrite,relax-plan-memory,"
    "relax-vm-memory-lower,relax-vm-shape-lower,relax-codegen-vm"
)
"""Without fusion, so that %c and %d live at once in two storages of 256 KiB (pooled),
and %x is read last."""

POOLED = buffer_pool.MIN_POOLED


@pytest.fixture(autouse=True)
def empty_pool():
    buffer_pool.clear()
    yield
    buffer_pool.clear()


class Benign:
    """The benign model, its input and its result with an empty pool."""

    def __init__(self) -> None:
        self.exe = xrelax.compile(xrelax.parse(BENIGN), UNFUSED)
        assert self.exe.as_text().count("vm.builtin.free_storage") == 2
        self.x = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
        buffer_pool.clear()
        self.expected = VirtualMachine(self.exe)["main"](self.x)

    def __call__(self) -> None:
        """Run the model again: the same numbers, bit for bit."""
        np.testing.assert_array_equal(VirtualMachine(self.exe)["main"](self.x), self.expected)


@pytest.fixture(scope="module")
def benign() -> Benign:
    return Benign()


def hostile(body: Callable[[ExecBuilder], None], num_inputs: int = 0) -> Executable:
    """An executable of one function ``main``, through save and load."""
    ib = ExecBuilder()
    with ib.function("main", num_inputs=num_inputs):
        body(ib)
    return Executable.from_bytes(ib.get().to_bytes())


def refused_at_load(exe: Executable) -> str:
    with pytest.raises(VMError) as info:
        VirtualMachine(exe)
    return str(info.value)


@pytest.fixture
def unverified(monkeypatch):
    """Load executables without the lifetime verifier: the pool must hold on its own."""
    monkeypatch.setattr(virtual_machine, "verify_lifetimes", lambda *args: None)


def storage(ib: ExecBuilder, reg: int, nbytes: int = POOLED) -> None:
    ib.emit_call("vm.builtin.alloc_storage", [ib.imm(nbytes), "uint8"], dst=ib.r(reg))


def tensor(ib: ExecBuilder, reg: int, of: int) -> None:
    ib.emit_call("vm.builtin.alloc_tensor", [ib.r(of), ib.imm(0), (4,), "float32"], dst=ib.r(reg))


def free(ib: ExecBuilder, reg: int) -> None:
    ib.emit_call("vm.builtin.free_storage", [ib.r(reg)])


# ------------------------------------------------------------------------ storages


def double_free(ib: ExecBuilder) -> None:
    storage(ib, 0)
    free(ib, 0)
    free(ib, 0)
    ib.emit_ret(ib.r(0))


def test_a_storage_freed_twice(benign) -> None:
    assert refused_at_load(hostile(double_free)) == (
        "function 'main': instruction 2 frees the storage of %0 again (instruction 1 freed it)"
    )
    benign()


def test_the_pool_refuses_a_storage_freed_twice(benign, unverified) -> None:
    run = VirtualMachine(hostile(double_free))["main"]
    with pytest.raises(VMError) as info:
        run()
    assert str(info.value) == (
        "main: a buffer of 262144 bytes was given back to the buffer pool twice"
    )
    assert buffer_pool.cached_bytes() == POOLED
    benign()


def test_a_storage_freed_twice_through_a_copy_in_a_branch(benign) -> None:
    def body(ib: ExecBuilder) -> None:
        storage(ib, 1)
        ib.emit_call("vm.builtin.move", [ib.r(1)], dst=ib.r(2))
        branch = ib.emit_if(ib.r(0), 0)
        free(ib, 2)
        ib.patch_offset(branch, ib.current_pc() - branch)
        free(ib, 1)
        ib.emit_ret(ib.r(0))

    assert refused_at_load(hostile(body, 1)) == (
        "function 'main': instruction 4 frees the storage of %1 again (instruction 3 freed it)"
    )
    benign()


def test_a_view_returned_after_its_storage_is_freed(benign) -> None:
    def body(ib: ExecBuilder) -> None:
        storage(ib, 0)
        tensor(ib, 1, of=0)
        ib.emit_call("vm.builtin.make_tuple", [ib.r(1)], dst=ib.r(2))
        free(ib, 0)
        ib.emit_ret(ib.r(2))

    assert refused_at_load(hostile(body)) == (
        "function 'main': instruction 4 reads %2 after instruction 3 freed its storage"
    )
    benign()


def test_a_view_kept_through_a_packed_call_after_its_storage_is_freed(benign) -> None:
    def body(ib: ExecBuilder) -> None:
        storage(ib, 0)
        tensor(ib, 1, of=0)
        moved = [ib.f("vm.builtin.move"), ib.r(1), ()]
        ib.emit_call("vm.builtin.call_tir_dyn", moved, dst=ib.r(2))
        free(ib, 0)
        ib.emit_ret(ib.r(2))

    assert refused_at_load(hostile(body)) == (
        "function 'main': instruction 4 reads %2 after instruction 3 freed its storage"
    )
    benign()


@pytest.mark.parametrize(
    ("freed_first", "message"),
    [
        (
            False,
            "function 'main': instruction 3 frees %2, which may not be a storage that "
            "vm.builtin.alloc_storage of this function allocated",
        ),
        (
            True,
            "function 'main': instruction 4 frees the storage of %2 again (instruction 3 freed it)",
        ),
    ],
)
def test_a_storage_taken_out_of_a_tuple(benign, freed_first: bool, message: str) -> None:
    def body(ib: ExecBuilder) -> None:
        storage(ib, 0)
        ib.emit_call("vm.builtin.make_tuple", [ib.r(0)], dst=ib.r(1))
        ib.emit_call("vm.builtin.tuple_getitem", [ib.r(1), ib.imm(0)], dst=ib.r(2))
        if freed_first:
            free(ib, 0)
        free(ib, 2)
        ib.emit_ret(ib.r(1))

    assert refused_at_load(hostile(body)) == message
    benign()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            lambda ib: free(ib, 0),
            "function 'main': instruction 0 frees %0, which may not be a storage that "
            "vm.builtin.alloc_storage of this function allocated",
        ),
        (
            lambda ib: (storage(ib, 1), tensor(ib, 2, of=1), free(ib, 2)),
            "function 'main': instruction 2 frees %2, which may not be a storage that "
            "vm.builtin.alloc_storage of this function allocated",
        ),
        (
            lambda ib: ib.emit_call("vm.builtin.free_storage", [np.zeros(POOLED, np.uint8)]),
            "function 'main': instruction 0 calls vm.builtin.free_storage with a constant; "
            "it takes one register",
        ),
        (
            lambda ib: (
                storage(ib, 1),
                ib.emit_call(
                    "vm.builtin.call_tir_dyn", [ib.f("vm.builtin.free_storage"), ib.r(1), ()]
                ),
            ),
            "function 'main': instruction 1 passes vm.builtin.free_storage as a value",
        ),
    ],
    ids=["a parameter", "a view", "a constant", "a function value"],
)
def test_freeing_what_is_not_a_storage_of_the_function(benign, body, message) -> None:
    def function(ib: ExecBuilder) -> None:
        body(ib)
        ib.emit_ret(ib.r(0))

    assert refused_at_load(hostile(function, 1)) == message
    benign()


def test_the_pool_refuses_an_array_it_did_not_lend(benign, unverified) -> None:
    # the benign model's own input, pooled, would be its storage: it would overwrite it
    run = VirtualMachine(hostile(lambda ib: (free(ib, 0), ib.emit_ret(ib.r(0))), 1))["main"]
    with pytest.raises(VMError) as info:
        run(benign.x)
    assert str(info.value) == (
        "main: a buffer of 262144 bytes was given back to the buffer pool, which did not lend it"
    )
    assert buffer_pool.cached_bytes() == 0
    benign()


# ------------------------------------------------------------------------ control flow


def loop(stale_read: bool) -> Executable:
    """Three iterations, each allocating a storage and a view and freeing the storage;
    with ``stale_read``, the view of the previous iteration is printed first."""

    def body(ib: ExecBuilder) -> None:
        ib.emit_call("vm.builtin.move", [ib.imm(3)], dst=ib.r(1))
        ib.emit_call("vm.builtin.alloc_tensor_direct", [(4,), "float32"], dst=ib.r(3))
        top = ib.current_pc()
        if stale_read:
            ib.emit_call("vm.builtin.print", [ib.r(3)])
        storage(ib, 2)
        tensor(ib, 3, of=2)
        ib.emit_call("test.hostile.fill", [ib.r(3)])
        free(ib, 2)
        ib.emit_call("test.hostile.decrement", [ib.r(1)], dst=ib.r(1))
        branch = ib.emit_if(ib.r(1), 0)
        ib.emit_goto(top - ib.current_pc())
        ib.patch_offset(branch, ib.current_pc() - branch)
        ib.emit_ret(ib.r(1))

    return hostile(body)


@pytest.fixture(scope="module", autouse=True)
def packed_functions():
    xrelax.register_func("test.hostile.fill", lambda t: t.fill(1.0), override=True)
    xrelax.register_func("test.hostile.decrement", lambda n: n - 1, override=True)


def test_a_loop_that_allocates_and_frees_each_iteration_is_accepted() -> None:
    assert VirtualMachine(loop(stale_read=False))["main"]() == 0
    assert buffer_pool.cached_bytes() == POOLED


def test_a_view_read_in_the_iteration_after_its_storage_is_freed(benign) -> None:
    assert refused_at_load(loop(stale_read=True)) == (
        "function 'main': instruction 2 reads %1 after instruction 6 freed its storage"
    )
    benign()


def branches(free_in_both: bool) -> Executable:
    def body(ib: ExecBuilder) -> None:
        storage(ib, 1)
        tensor(ib, 2, of=1)
        branch = ib.emit_if(ib.r(0), 0)
        free(ib, 1)
        join = ib.emit_goto(0)
        ib.patch_offset(branch, ib.current_pc() - branch)
        free(ib, 1) if free_in_both else ib.emit_call("vm.builtin.move", [ib.imm(0)], dst=ib.r(3))
        ib.patch_offset(join, ib.current_pc() - join)
        if not free_in_both:
            ib.emit_call("test.hostile.fill", [ib.r(2)])
        ib.emit_ret(ib.r(0))

    return hostile(body, 1)


def test_a_storage_freed_on_each_branch_is_accepted() -> None:
    run = VirtualMachine(branches(free_in_both=True))["main"]
    assert run(True) is True and run(False) is False
    assert buffer_pool.cached_bytes() == POOLED


def test_a_view_used_after_the_branch_that_freed_its_storage(benign) -> None:
    assert refused_at_load(branches(free_in_both=False)) == (
        "function 'main': instruction 6 reads %2 after instruction 3 freed its storage"
    )
    benign()


def test_a_tensor_read_after_it_is_killed() -> None:
    def body(ib: ExecBuilder) -> None:
        ib.emit_call("vm.builtin.alloc_tensor_direct", [(4,), "float32"], dst=ib.r(0))
        ib.emit_call("vm.builtin.move", [ib.r(0)], dst=ib.r(1))
        ib.emit_call("vm.builtin.free_tensor", [ib.r(0)])
        ib.emit_ret(ib.r(1))

    assert refused_at_load(hostile(body)) == (
        "function 'main': instruction 3 reads %1 after instruction 2 killed it"
    )


def test_verification_is_bounded_by_the_size_of_the_function() -> None:
    # each else-branch diamond may free one more storage whose view the then-branch reads
    # (never after the free): the joined states grow with each diamond, quadratic work
    # that the budget cuts off; no compiler emits such a graph
    count = 3000

    def body(ib: ExecBuilder) -> None:
        for k in range(count):
            storage(ib, 1 + 2 * k, 8)
            tensor(ib, 2 + 2 * k, of=1 + 2 * k)
        outer = ib.emit_if(ib.r(0), 0)
        for k in range(count):
            ib.emit_call("test.hostile.fill", [ib.r(2 + 2 * k)])
        ib.emit_ret(ib.r(0))
        ib.patch_offset(outer, ib.current_pc() - outer)
        for k in range(count):
            inner = ib.emit_if(ib.r(0), 0)
            free(ib, 1 + 2 * k)
            ib.patch_offset(inner, ib.current_pc() - inner)
        ib.emit_ret(ib.r(0))

    words = count * (3 + 5 + 2 + 1 + 2) + 3
    assert refused_at_load(hostile(body, 1)) == (
        f"function 'main' is too complex to verify: its storage lifetimes take more than "
        f"{WORK_PER_WORD * words} steps ({WORK_PER_WORD} per instruction word)"
    )


# ------------------------------------------------------------------------ constants, kernels


def fill_kernel(value: float) -> str:
    """A library of one kernel ``fill`` that writes ``value`` into its buffer."""
    return f"""builtin.module {{
tir.prim_func @fill(%out: !tir.buffer<[4], f32>) {{
  tir.for i in [0, 4) {{
    %v = arith.constant {value} : f32
    tir.store %out[i], %v : f32
  }}
}}
}}
"""


def test_a_kernel_writing_into_a_constant_leaves_the_executable_alone() -> None:
    ib = ExecBuilder()
    ib.set_library(fill_kernel(7.0))
    ones = ib.convert_constant(np.ones(4, np.float32))
    with ib.function("poison", num_inputs=0):
        ib.emit_call("vm.builtin.call_tir_unchecked", [ib.f("fill"), ib.c(ones)])
        ib.emit_call("vm.builtin.move", [ib.imm(0)], dst=ib.r(0))
        ib.emit_ret(ib.r(0))
    with ib.function("read", num_inputs=0):
        ib.emit_call("vm.builtin.copy", [ib.c(ones)], dst=ib.r(0))
        ib.emit_ret(ib.r(0))
    exe = Executable.from_bytes(ib.get().to_bytes())
    with pytest.raises(VMError) as info:
        VirtualMachine(exe)["poison"]()
    assert str(info.value) == (
        "poison: packed function 'vm.builtin.call_tir_unchecked' (instruction 0) failed: "
        "ValueError: assignment destination is read-only"
    )
    np.testing.assert_array_equal(VirtualMachine(exe)["read"](), np.ones(4, np.float32))
    np.testing.assert_array_equal(exe.constants[0], np.ones(4, np.float32))


def test_kernels_of_the_same_name_in_two_executables_stay_apart() -> None:
    def executable(value: float) -> Executable:
        ib = ExecBuilder()
        ib.set_library(fill_kernel(value))
        with ib.function("main", num_inputs=0):
            ib.emit_call("vm.builtin.alloc_tensor_direct", [(4,), "float32"], dst=ib.r(0))
            ib.emit_call("vm.builtin.call_tir_unchecked", [ib.f("fill"), ib.r(0)])
            ib.emit_ret(ib.r(0))
        return Executable.from_bytes(ib.get().to_bytes())

    np.testing.assert_array_equal(VirtualMachine(executable(7.0))["main"](), [7.0] * 4)
    np.testing.assert_array_equal(VirtualMachine(executable(1.0))["main"](), [1.0] * 4)
