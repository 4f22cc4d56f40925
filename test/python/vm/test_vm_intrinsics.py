"""Builtins the VM compiler inlines behave exactly as the builtins called directly."""

import re

import numpy as np
import pytest

from xrelax.backends.vm import ExecBuilder, VirtualMachine, VMError, get_func

check_tensor = get_func("vm.builtin.check_tensor_info")
match_shape = get_func("vm.builtin.match_shape")
make_shape = get_func("vm.builtin.make_shape")

# dim0 stores n (slot 0), dim1 == 4, dim2 == heap[1] (preset 5), dim3 == n (stored above)
PATTERN = ((1, 0, "n"), (0, 4, "4"), (2, 1, "k"), (2, 0, "n"), (3, 0, "m"))
OUTPUT = ((1, 0), (0, 7), (1, 1))


def check_and_match(ndim: int, dtype: str, preset: bool = True):
    """``main(x)``: check x, match it against PATTERN, return a shape made from the heap.
    ``preset``: store 5 in the heap's slot 1 first (the heap stays an int64 array, as
    store_shape reads it); otherwise slot 1 is stored by the match and the VM keeps the
    heap as a Python list."""
    ib = ExecBuilder()
    with ib.function("main", num_inputs=1, param_names=("x",)):
        ib.emit_call("vm.builtin.alloc_shape_heap", args=[ib.imm(2)], dst=ib.r(1))
        if preset:
            ib.emit_call("vm.builtin.store_shape", args=[(0, 5), ib.r(1), ib.imm(0), ib.imm(1)])
        ib.emit_call("vm.builtin.check_tensor_info", args=[ib.r(0), ib.imm(ndim), dtype, "x"])
        pattern = PATTERN if preset else LIST_PATTERN
        ib.emit_call("vm.builtin.match_shape", args=[ib.r(0), ib.r(1), pattern, "x"])
        ib.emit_call("vm.builtin.make_shape", args=[ib.r(1), OUTPUT], dst=ib.r(2))
        ib.emit_call("vm.builtin.alloc_tensor_direct", args=[ib.r(2), "int32"], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    return VirtualMachine(ib.get())


# dim2 stores k (slot 1) instead of comparing it with a preset slot
LIST_PATTERN = ((1, 0, "n"), (0, 4, "4"), (1, 1, "k"), (2, 0, "n"), (3, 0, "m"))


def direct(x: object, ndim: int, dtype: str, preset: bool = True) -> np.ndarray:
    heap = np.array([0, 5 if preset else 0], np.int64)
    check_tensor(x, ndim, dtype, "x")
    match_shape(x, heap, PATTERN if preset else LIST_PATTERN, "x")
    return np.empty(make_shape(heap, OUTPUT), "int32")


def test_the_common_case_is_inlined() -> None:
    body = check_and_match(5, "float32").source.split("def F0", 1)[1]
    calls = [line.strip() for line in body.splitlines() if re.match(r"\s*(r\d+ = )?p\d+\(", line)]
    assert calls == ["p1(c0, r1, 0, 1)"]  # store_shape is not inlined
    assert "r1 = _zeros(2, _dtype_int64)" in body
    assert "r2 = (r1.item(0), 7, r1.item(1))" in body


def test_a_heap_only_matched_and_read_is_a_list() -> None:
    """The check and the match of a parameter are one test; the heap a list."""
    body = check_and_match(5, "float32", preset=False).source.split("def F0", 1)[1]
    assert "r1 = [0] * 2" in body
    assert "r2 = (r1[0], 7, r1[1])" in body
    (test,) = [line.strip() for line in body.splitlines() if "_ndarray" in line]
    assert test.startswith("if type(r0) is not _ndarray or r0.dtype is not _dtype_float32 or ")
    assert test.endswith(": r0 = _as_tensor(r0); p1(r0, 5, c0, c1); p2(r0, r1, c2, c1)")


VALUES = [
    np.zeros((3, 4, 5, 3, 9), np.float32),
    np.zeros((3, 4, 5, 3, 9), np.dtype(np.float32, metadata={"k": 1})),
    np.zeros((3, 4, 5, 3, 9), ">f4"),
    np.zeros((3, 4, 5, 3, 9), np.float32).view(np.ma.MaskedArray),
    np.zeros((3, 4, 5, 3, 9), np.float64),
    np.zeros((3, 4, 5, 2, 9), np.float32),
    np.zeros((3, 3, 5, 3, 9), np.float32),
    np.zeros((3, 4, 6, 3, 9), np.float32),
    np.zeros((3, 4, 5, 3), np.float32),
    (3, 4, 5, 3, 9),
    [3, 4, 5, 3, 9],
    None,
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
@pytest.mark.parametrize(("ndim", "dtype"), [(5, "float32"), (-1, "")])
@pytest.mark.parametrize("preset", [True, False], ids=["array heap", "list heap"])
def test_inlined_checks_match_the_builtins(
    value: object, ndim: int, dtype: str, preset: bool
) -> None:
    run = check_and_match(ndim, dtype, preset)["main"]
    try:
        expected = direct(value, ndim, dtype, preset)
    except VMError as err:
        with pytest.raises(VMError) as info:
            run(value)
        assert str(info.value) == f"main: {err}"
        return
    result = run(value)
    assert result.shape == expected.shape and result.dtype == expected.dtype


def test_a_returned_heap_stays_an_array() -> None:
    """A heap the function returns (a corrupted executable may) escapes: not a list."""
    ib = ExecBuilder()
    with ib.function("main", num_inputs=0):
        ib.emit_call("vm.builtin.alloc_shape_heap", [ib.imm(2)], dst=ib.r(0))
        ib.emit_ret(ib.r(0))
    heap = VirtualMachine(ib.get())["main"]()
    assert isinstance(heap, np.ndarray) and heap.shape == (2,)
