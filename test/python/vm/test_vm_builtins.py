"""The builtin library and the packed-function registry, called directly and from the VM."""

import numpy as np
import pytest

from xrelax.backends import buffer_pool
from xrelax.backends.vm import (
    ExecBuilder,
    VirtualMachine,
    VMError,
    get_func,
    list_funcs,
    register_func,
)

BUILTINS = [
    "vm.builtin.alloc_storage",
    "vm.builtin.alloc_tensor",
    "vm.builtin.alloc_tensor_direct",
    "vm.builtin.free_storage",
    "vm.builtin.free_tensor",
    "vm.builtin.alloc_shape_heap",
    "vm.builtin.shape_of",
    "vm.builtin.store_shape",
    "vm.builtin.load_shape",
    "vm.builtin.make_shape",
    "vm.builtin.match_shape",
    "vm.builtin.check_tensor_info",
    "vm.builtin.check_shape_info",
    "vm.builtin.check_tuple_info",
    "vm.builtin.make_tuple",
    "vm.builtin.tuple_getitem",
    "vm.builtin.copy",
    "vm.builtin.move",
    "vm.builtin.call_tir_dyn",
    "vm.builtin.read_if_cond",
    "vm.builtin.print",
]


def test_all_builtins_registered_with_docstrings() -> None:
    names = list_funcs()
    assert names == sorted(names)
    for name in BUILTINS:
        assert name in names
        doc = get_func(name).__doc__
        assert doc and "\n" not in doc.strip()


def test_registry_decorator_call_and_override() -> None:
    @register_func("test.builtins.one")
    def one() -> int:
        return 1

    assert get_func("test.builtins.one") is one
    with pytest.raises(
        VMError, match=r"^packed function 'test.builtins.one' is already registered$"
    ):
        register_func("test.builtins.one", lambda: 2)
    two = register_func("test.builtins.one", lambda: 2, override=True)
    assert get_func("test.builtins.one") is two
    with pytest.raises(VMError, match=r"^no packed function named 'test.nothing' is registered$"):
        get_func("test.nothing")


def test_alloc_storage_is_aligned_uint8() -> None:
    alloc = get_func("vm.builtin.alloc_storage")
    for size in (1, 13, 64, 1000, buffer_pool.MIN_ALIGNED, 100_000):
        storage = alloc(size, "float32")
        assert storage.dtype == np.uint8 and storage.shape == (size,)
        alignment = 64 if size >= buffer_pool.MIN_ALIGNED else 16
        assert storage.__array_interface__["data"][0] % alignment == 0
    assert alloc(0, "float32").shape == (0,)


def test_alloc_tensor_views_and_fit() -> None:
    storage = get_func("vm.builtin.alloc_storage")(32, "float64")
    alloc = get_func("vm.builtin.alloc_tensor")
    t = alloc(storage, 8, (3,), "float64")
    assert t.shape == (3,) and t.dtype == np.float64 and t.flags.aligned
    assert np.shares_memory(t, storage)
    assert alloc(storage, 0, (2, 2), "int64").shape == (2, 2)
    with pytest.raises(
        VMError,
        match=r"^cannot allocate a tensor of shape \[4\]: 32 bytes of float64 at offset 8 do "
        r"not fit in its storage of 32 bytes$",
    ):
        alloc(storage, 8, (4,), "float64")
    with pytest.raises(VMError, match=r"^cannot allocate a tensor of shape \[-1, 2\]$"):
        alloc(storage, 0, (-1, 2), "float64")


def test_alloc_tensor_direct_and_shape_heap() -> None:
    alloc = get_func("vm.builtin.alloc_tensor_direct")
    t = alloc((2, 5), "int32")
    assert t.shape == (2, 5) and t.dtype == np.int32
    with pytest.raises(VMError, match=r"^cannot allocate a tensor of shape \[-2, 4\]$"):
        alloc((-2, 4), "float32")
    with pytest.raises(
        VMError,
        match=r"^cannot allocate a tensor of shape \[1099511627776, 1099511627776\]: out of "
        r"memory \(4835703278458516698824704 bytes of float32\)$",
    ):
        alloc((2**40, 2**40), "float32")
    with pytest.raises(VMError, match=r"^cannot allocate storage of -8 bytes$"):
        get_func("vm.builtin.alloc_storage")(-8, "float32")
    heap = get_func("vm.builtin.alloc_shape_heap")(3)
    assert heap.dtype == np.int64
    np.testing.assert_array_equal(heap, [0, 0, 0])


def test_free_tensor_is_a_noop_and_free_storage_feeds_the_pool() -> None:
    buffer_pool.clear()
    assert get_func("vm.builtin.free_tensor")(np.zeros(2)) is None
    storage = get_func("vm.builtin.alloc_storage")(buffer_pool.MIN_POOLED, "uint8")
    assert get_func("vm.builtin.free_storage")(storage) is None
    again = buffer_pool.take(buffer_pool.MIN_POOLED)
    # the same memory, lent as a new object: the old one cannot be given back again
    assert again is not storage and again.ctypes.data == storage.ctypes.data
    buffer_pool.clear()


def test_shape_of_store_load_make_shape() -> None:
    heap = np.zeros(4, np.int64)
    shape = get_func("vm.builtin.shape_of")(np.zeros((7, 3)))
    assert shape == (7, 3)
    get_func("vm.builtin.store_shape")(shape, heap, 2, 0)
    np.testing.assert_array_equal(heap, [3, 0, 7, 0])
    loaded = get_func("vm.builtin.load_shape")(heap, 0, 2, 2)
    assert loaded == (3, 7, 7) and all(type(d) is int for d in loaded)
    made = get_func("vm.builtin.make_shape")(heap, ((0, 5), (1, 2), (1, 0)))
    assert made == (5, 7, 3) and all(type(d) is int for d in made)
    with pytest.raises(VMError, match=r"^store_shape: 1 heap indices given for a shape of rank 2$"):
        get_func("vm.builtin.store_shape")(shape, heap, 0)


match_shape = get_func("vm.builtin.match_shape")


def test_match_shape_kinds() -> None:
    heap = np.zeros(3, np.int64)
    heap[2] = 5
    # dim0: store n, dim1: == 4, dim2: == heap[2], dim3: unchecked
    pattern = ((1, 0, "n"), (0, 4, "4"), (2, 2, "k"), (3, 0, "m"))
    match_shape(np.zeros((6, 4, 5, 9)), heap, pattern, "main: parameter 'x'")
    assert heap[0] == 6
    match_shape((8, 4, 5, 1), heap, pattern, "main: parameter 'x'")
    assert heap[0] == 8
    # a dimension stored by the pattern is seen by the later dimensions
    match_shape(np.zeros((3, 3)), heap, ((1, 1, "n"), (2, 1, "n")), "ctx")
    with pytest.raises(
        VMError, match=r"^ctx: dimension 1 \(symbolic variable n\): expected 3, got 2$"
    ):
        match_shape(np.zeros((3, 2)), heap, ((1, 1, "n"), (2, 1, "n")), "ctx")


@pytest.mark.parametrize(
    ("value", "pattern", "message"),
    [
        (
            np.zeros((5, 2)),
            ((2, 1, "k"), (3, 0, "")),
            "main: parameter 'w': dimension 0 (symbolic variable k): expected 3, got 5",
        ),
        (
            np.zeros((4, 2)),
            ((3, 0, "n"), (0, 3, "3")),
            "main: parameter 'w': dimension 1: expected 3, got 2",
        ),
        (
            (4, 7),
            ((3, 0, "n"), (2, 2, "n * 4")),
            "main: parameter 'w': dimension 1 (symbolic expression n * 4): expected 8, got 7",
        ),
        (
            np.zeros((1, 2, 3)),
            ((3, 0, "n"), (3, 0, "m")),
            "main: parameter 'w': expected rank 2, got rank 3",
        ),
        (
            [1, 2],
            ((3, 0, "n"), (3, 0, "m")),
            "main: parameter 'w': expected a tensor or shape, got list",
        ),
    ],
)
def test_match_shape_errors(value: object, pattern: tuple, message: str) -> None:
    heap = np.array([0, 3, 8], np.int64)
    with pytest.raises(VMError) as info:
        match_shape(value, heap, pattern, "main: parameter 'w'")
    assert str(info.value) == message


check_tensor = get_func("vm.builtin.check_tensor_info")
check_shape = get_func("vm.builtin.check_shape_info")
check_tuple = get_func("vm.builtin.check_tuple_info")


def test_checks_accept() -> None:
    x = np.zeros((2, 3), "float32")
    check_tensor(x, 2, "float32", "ctx")
    check_tensor(x, -1, "", "ctx")
    check_tensor(np.zeros(2, np.dtype("float32", metadata={"k": 1})), 1, "float32", "ctx")
    check_tensor(np.zeros(2).view(np.ma.MaskedArray), 1, "float64", "ctx")
    check_shape((2, 3), 2, "ctx")
    check_shape((), -1, "ctx")
    check_tuple((x, (1,)), 2, "ctx")
    check_tuple((2, 3), 2, "ctx")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: check_tensor(3, 2, "float32", "main: parameter 'x'"),
         "main: parameter 'x': expected a tensor, got int"),
        (lambda: check_tensor((1, 2), 2, "", "main: parameter 'x'"),
         "main: parameter 'x': expected a tensor, got shape"),
        (lambda: check_tensor(np.zeros((1, 2, 3)), 2, "", "main: parameter 'x'"),
         "main: parameter 'x': expected rank 2, got rank 3"),
        (lambda: check_tensor(np.zeros((1, 2)), 2, "float32", "main: parameter 'x'"),
         "main: parameter 'x': expected dtype float32, got float64"),
        # Kernels read some buffers as raw memory of the native dtype.
        (lambda: check_tensor(np.zeros(2, ">f4"), 1, "float32", "main: parameter 'x'"),
         "main: parameter 'x': expected dtype float32, got float32 in byte order >f4"),
        (lambda: check_shape(np.zeros(2), 1, "main: parameter 's'"),
         "main: parameter 's': expected a shape, got tensor"),
        (lambda: check_shape((np.zeros(2),), 1, "main: parameter 's'"),
         "main: parameter 's': expected a shape, got tuple"),
        (lambda: check_shape((1, 2, 3), 2, "main: parameter 's'"),
         "main: parameter 's': expected a shape of rank 2, got rank 3"),
        (lambda: check_tuple(np.zeros(2), 2, "main: parameter 't'"),
         "main: parameter 't': expected a tuple, got tensor"),
        (lambda: check_tuple((1, 2, 3), 2, "main: parameter 't'"),
         "main: parameter 't': expected a tuple of size 2, got size 3"),
        (lambda: check_tensor(None, 2, "", ""), "expected a tensor, got NoneType"),
    ],
)  # fmt: skip
def test_check_errors(call: object, message: str) -> None:
    with pytest.raises(VMError) as info:
        call()
    assert str(info.value) == message


def test_tuples_copy_move() -> None:
    x = np.arange(3)
    t = get_func("vm.builtin.make_tuple")(x, (1, 2))
    assert t == (x, (1, 2)) or (t[0] is x and t[1] == (1, 2))
    assert get_func("vm.builtin.tuple_getitem")(t, 1) == (1, 2)
    c = get_func("vm.builtin.copy")(x)
    assert c is not x and not np.shares_memory(c, x)
    np.testing.assert_array_equal(c, x)
    assert get_func("vm.builtin.copy")((1, 2)) == (1, 2)
    assert get_func("vm.builtin.move")(x) is x


def test_call_tir_dyn_unpacks_last_argument() -> None:
    seen = []
    result = get_func("vm.builtin.call_tir_dyn")(lambda *a: seen.append(a) or "r", "x", "y", (2, 4))
    assert seen == [("x", "y", 2, 4)] and result == "r"


def test_read_if_cond_and_print(capsys: pytest.CaptureFixture[str]) -> None:
    read = get_func("vm.builtin.read_if_cond")
    assert read(np.array(True)) is True
    assert read(np.array([0])) is False
    assert read(np.int64(3)) is True
    assert get_func("vm.builtin.print")(np.array([1, 2])) is None
    assert capsys.readouterr().out == "[1 2]\n"


def test_shape_checks_from_the_vm() -> None:
    """A lowered-style prologue: check, match shapes symbolically, build an output shape."""
    ib = ExecBuilder()
    with ib.function("main", num_inputs=2, param_names=("x", "w")):
        ib.emit_call("vm.builtin.alloc_shape_heap", args=[ib.imm(2)], dst=ib.r(2))
        ib.emit_call(
            "vm.builtin.check_tensor_info",
            args=[ib.r(0), ib.imm(2), "float32", "main: parameter 'x'"],
        )
        ib.emit_call(
            "vm.builtin.match_shape",
            args=[ib.r(0), ib.r(2), ((1, 0, "n"), (1, 1, "k")), "main: parameter 'x'"],
        )
        ib.emit_call(
            "vm.builtin.match_shape",
            args=[ib.r(1), ib.r(2), ((2, 1, "k"), (0, 4, "4")), "main: parameter 'w'"],
        )
        ib.emit_call("vm.builtin.make_shape", args=[ib.r(2), ((1, 0), (0, 4))], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    run = VirtualMachine(ib.get())["main"]
    assert run(np.zeros((2, 3), "float32"), np.zeros((3, 4))) == (2, 4)
    with pytest.raises(VMError) as info:
        run(np.zeros((2, 3), "float32"), np.zeros((5, 4)))
    assert str(info.value) == (
        "main: parameter 'w': dimension 0 (symbolic variable k): expected 3, got 5"
    )
    with pytest.raises(VMError) as info:
        run(np.zeros((2, 3)), np.zeros((3, 4)))
    assert str(info.value) == "main: parameter 'x': expected dtype float32, got float64"
