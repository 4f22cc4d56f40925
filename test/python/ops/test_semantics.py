"""The rules of docs/semantics.md on every path: the VM with and without fusion, the
safety net (rank-only types) and the interpreter give the framework's value for
arithmetic, sums, means, normalisations and contractions at the edges of their element
types."""

from __future__ import annotations

import math

import numpy as np
import pytest

import xrelax
from xrelax.backends.interpreter import InterpreterError
from xrelax.transforms.relax_to_vm import DEFAULT_PIPELINE

NO_FUSION = ",".join(
    p
    for p in DEFAULT_PIPELINE
    if p not in ("relax-fuse-ops", "relax-fuse-tir", "tir-inline-copies")
)
I64_MAX, I64_MIN = 2**63 - 1, -(2**63)


def program(
    op: str, args: list[np.ndarray], result: tuple[int, ...], attrs: str, known: bool
) -> str:
    """``@main`` applying ``relax.<op>`` to its parameters (``known``: exact shapes, else
    rank-only types, which run the operator on the safety net)."""

    def type_(shape: tuple[int, ...], dtype: np.dtype) -> str:
        element = {"float16": "f16", "float32": "f32", "float64": "f64"}.get(
            dtype.name, f"i{dtype.itemsize * 8}"
        )
        dims = f"[{', '.join(map(str, shape))}]" if known else f"ndim={len(shape)}"
        return f"!relax.tensor<{dims}, {element}>"

    params = ", ".join(f"%a{k}: {type_(a.shape, a.dtype)}" for k, a in enumerate(args))
    operands = ", ".join(f"%a{k}" for k in range(len(args)))
    operand_types = ", ".join(type_(a.shape, a.dtype) for a in args)
    out = type_(result, args[0].dtype)
    return f"""relax.func @main({params}) -> {out} {{
  %r = relax.{op} {operands}{attrs} : ({operand_types}) -> {out}
  relax.return %r : {out}
}}"""


def run_every_path(op: str, args: list[np.ndarray], result: tuple[int, ...], attrs: str = ""):
    """The results of the VM (fused, unfused), the safety net and the interpreter."""
    known = xrelax.parse(program(op, args, result, attrs, known=True))
    net = xrelax.parse(program(op, args, result, attrs, known=False))
    return {
        "vm": xrelax.VirtualMachine(xrelax.compile(known))["main"](*args),
        "vm-no-fusion": xrelax.VirtualMachine(xrelax.compile(known, NO_FUSION))["main"](*args),
        "safety-net": xrelax.VirtualMachine(xrelax.compile(net))["main"](*args),
        "interpreter": xrelax.interpret(known, "main", *args),
    }


def assert_every_path(op, args, result, attrs, expected, rtol=0.0):
    for path, value in run_every_path(op, args, result, attrs).items():
        assert value.dtype == np.asarray(expected).dtype, path
        np.testing.assert_allclose(value, expected, rtol=rtol, err_msg=path)


@pytest.mark.parametrize(
    ("values", "mean"),
    [
        ([2**62, 2**62], 2**62),  # the i64 sum overflows; the mean does not
        ([I64_MAX, I64_MAX, I64_MAX], I64_MAX),
        ([I64_MIN, I64_MIN, 5], -6148914691236517203),  # truncated toward zero
        ([-7, 0, 0, 0], -1),
        ([7, 0, 0, 0], 1),
    ],
)
def test_i64_mean_is_exact(values, mean):
    x = np.array(values, np.int64)
    assert_every_path("mean", [x], (), "", np.array(mean, np.int64))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
def test_narrow_integer_mean_sums_in_i64(dtype):
    top = np.iinfo(dtype).max
    x = np.array([top, top, top - 3], dtype)
    assert_every_path("mean", [x], (), "", np.array(top - 1, dtype))


def test_i64_avg_pool_is_exact():
    x = np.full((1, 1, 2, 2), 2**62, np.int64)
    attrs = " {pool_size = array<i64: 2, 2>}"
    assert_every_path("avg_pool2d", [x], (1, 1, 1, 1), attrs, np.full((1, 1, 1, 1), 2**62))


def test_mean_of_no_integers_is_refused():
    x = np.zeros((2, 0), np.int32)
    module = xrelax.parse(program("mean", [x], (2,), " {axis = array<i64: 1>}", known=False))
    with pytest.raises(xrelax.VMError, match="relax.mean: the reduced axes are not empty"):
        xrelax.VirtualMachine(xrelax.compile(module))["main"](x)
    with pytest.raises(InterpreterError, match="the reduced axes are not empty"):
        xrelax.interpret(module, "main", x)
    with pytest.raises(xrelax.CompileError, match="the reduced axes are not empty: 1 <= 0"):
        xrelax.parse(program("mean", [x], (2,), " {axis = array<i64: 1>}", known=True))


def test_mean_of_no_floats_is_nan():
    x = np.zeros((2, 0), np.float32)
    assert_every_path("mean", [x], (2,), " {axis = array<i64: 1>}", np.full(2, np.nan, np.float32))


F16_BIG = np.array([60000, 60000], np.float16)
ONES = np.ones((1, 3, 1, 1), np.float16)


@pytest.mark.parametrize(
    ("op", "args", "result", "attrs", "expected"),
    [
        ("mean", [F16_BIG], (), "", np.array(60000, np.float16)),
        (
            "sum",
            [np.array([60000, 60000, -60000], np.float16)],
            (),
            "",
            np.array(60000, np.float16),
        ),
        (
            "layer_norm",
            [np.array([[0, 600]], np.float16), np.ones(2, np.float16), np.zeros(2, np.float16)],
            (1, 2),
            " {axes = array<i64: 1>}",
            np.array([[-1, 1]], np.float16),
        ),
        (
            "matmul",
            [np.array([[60000, 60000, -60000]], np.float16), np.ones((3, 1), np.float16)],
            (1, 1),
            "",
            np.array([[60000]], np.float16),
        ),
        (
            "conv2d",
            [np.array([60000, 60000, -60000], np.float16).reshape(1, 3, 1, 1), ONES],
            (1, 1, 1, 1),
            "",
            np.full((1, 1, 1, 1), 60000, np.float16),
        ),
        (
            "cumsum",
            [np.array([60000, 60000, -60000], np.float16)],
            (3,),
            " {axis = 0 : i64}",
            # Each running sum is rounded once: 120000 is inf in f16, then 60000 again.
            np.array([60000, np.inf, 60000], np.float16),
        ),
        (
            "avg_pool2d",
            [np.full((1, 1, 2, 2), 60000, np.float16)],
            (1, 1, 1, 1),
            " {pool_size = array<i64: 2, 2>}",
            np.full((1, 1, 1, 1), 60000, np.float16),
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_f16_accumulates_in_f32(op, args, result, attrs, expected):
    assert_every_path(op, args, result, attrs, expected, rtol=1e-3)


def test_exclusive_cumsum_of_infinity():
    x = np.array([np.inf, 1, 2], np.float32)
    attrs = " {axis = 0 : i64, exclusive = true}"
    assert_every_path("cumsum", [x], (3,), attrs, np.array([0, np.inf, np.inf], np.float32))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_integer_division_truncates_at_the_type_limits(dtype):
    low = np.iinfo(dtype).min
    a = np.array([1, -1, 7, -7, low, 5], dtype)
    b = np.array([low, low, -2, 2, 1, 0], dtype)
    # |INT_MIN| does not exist: 1 / INT_MIN is 0, not sign(1) * sign(INT_MIN) * (1 // INT_MIN).
    assert_every_path("divide", [a, b], (6,), "", np.array([0, 0, -3, -3, low, 0], dtype))


def test_f16_gelu_is_computed_in_f32():
    x = np.array([-2.5, -3.75, 1.0], np.float16)
    expected = (
        0.5
        * x.astype(np.float64)
        * (1 + np.array([math.erf(v / math.sqrt(2)) for v in x.astype(np.float64)]))
    ).astype(np.float16)
    assert_every_path("gelu", [x], (3,), "", expected, rtol=2e-3)


def test_f32_mean_accumulates_in_f32_as_numpy_and_torch():
    x = np.array([3.0625412e38, 3.0625412e38], np.float32)
    assert_every_path("mean", [x], (), "", np.array(np.inf, np.float32))


def test_grouped_convolution_of_an_empty_padded_input():
    # Every tap reads padding: no index, clipped or not, may read the empty buffer.
    x, w = np.zeros((1, 2, 0), np.float32), np.ones((2, 1, 1), np.float32)
    attrs = " {padding = array<i64: 0, 1>, groups = 2 : i64}"
    assert_every_path("conv1d", [x, w], (1, 2, 1), attrs, np.zeros((1, 2, 1), np.float32))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integer_power_with_a_negative_exponent_truncates(dtype):
    # numpy refuses it; C, torch and TVM truncate 1 / a ** -b.
    a = np.array([2, 1, -1, -1, 0, 3, -2], dtype)
    b = np.array([-1, -2, -3, -2, -1, 2, 3], dtype)
    assert_every_path("power", [a, b], (7,), "", np.array([0, 1, -1, 1, 0, 9, -8], dtype))


@pytest.mark.parametrize(
    ("op", "attrs", "index"),
    [
        ("take", "", np.array(5, np.int64)),
        ("take", "", np.array(-2, np.int64)),
        ("take", " {negative_indices = false}", np.array(-1, np.int64)),
        ("gather_nd", "", np.array([3], np.int8)),
    ],
)
def test_a_gather_with_a_0d_result_checks_its_index(op, attrs, index):
    # A 0-d result is written by np.copyto, which left the output unwritten when the
    # load was out of range: the VM returned whatever the memory held.
    x = np.float32([7.0])
    module = xrelax.parse(program(op, [x, index], (), attrs, known=True))
    for compiled in (xrelax.compile(module), xrelax.compile(module, NO_FUSION)):
        with pytest.raises(xrelax.VMError, match=f"index {index.reshape(-1)[0]} out of range"):
            xrelax.VirtualMachine(compiled)["main"](x, index)
    with pytest.raises(InterpreterError, match=f"index {index.reshape(-1)[0]} out of range"):
        xrelax.interpret(module, "main", x, index)


def test_gather_nd_of_index_depth_0_picks_all_of_x():
    # Each index of depth 0 picks the whole of x (the reference returned x once).
    x, indices = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((2, 0), np.int64)
    expected = np.stack([x, x])
    known = xrelax.parse(program("gather_nd", [x, indices], (2, 2, 3), "", known=True))
    net = xrelax.parse(
        program("gather_nd", [x, indices], (2, 2, 3), "", known=False).replace(
            "!relax.tensor<ndim=3, f32>", "!relax.tensor<*, f32>"
        )
    )
    for module in (known, net):
        np.testing.assert_array_equal(
            xrelax.VirtualMachine(xrelax.compile(module))["main"](x, indices), expected
        )
        np.testing.assert_array_equal(xrelax.interpret(module, "main", x, indices), expected)


@pytest.mark.parametrize("op", ["max_pool2d", "avg_pool2d"])
def test_a_pooling_window_of_padding_only_is_refused(op):
    # Every window must hold an element of the input: max of nothing has no value.
    text = program(op, [np.zeros((1, 1, 1, 1), np.float32)], (1, 1, 1, 2), "", known=True)
    text = text.replace(
        f"relax.{op} %a0",
        f"relax.{op} %a0 {{pool_size = array<i64: 1, 2>, padding = array<i64: 0, 2, 0, 0>}}",
    )
    with pytest.raises(xrelax.CompileError, match="a window of padding only has no element"):
        xrelax.parse(text)


def test_cumsum_in_i1_is_refused():
    t, b = "!relax.tensor<[3], i32>", "!relax.tensor<[3], i1>"
    text = f"""relax.func @main(%x: {t}) -> {b} {{
  %r = relax.cumsum %x {{axis = 0 : i64, dtype = i1}} : ({t})
  relax.return %r : {b}
}}"""
    with pytest.raises(
        xrelax.CompileError, match="expected a numeric 'dtype' for the sums, got i1"
    ):
        xrelax.parse(text)


def test_broadcast_to_of_a_dimension_that_is_1_at_run_time():
    # numpy broadcasts it; the typed program did not (it required n == m).
    text = """relax.func @main(%x: !relax.tensor<[n], f32>, %s: !relax.shape<[m]>) -> !relax.tensor<[m], f32> {
  %r = relax.broadcast_to %x, %s : (!relax.tensor<[n], f32>, !relax.shape<[m]>)
  relax.return %r : !relax.tensor<[m], f32>
}"""
    module = xrelax.parse(text)
    vm = xrelax.VirtualMachine(xrelax.compile(module))["main"]
    for x in (np.float32([-1.5]), np.float32([1, 2, 3])):
        np.testing.assert_array_equal(vm(x, (3,)), np.broadcast_to(x, (3,)))
        np.testing.assert_array_equal(
            xrelax.interpret(module, "main", x, (3,)), np.broadcast_to(x, (3,))
        )
    with pytest.raises(xrelax.VMError, match="dimension 0 of the input is 1 or the target's"):
        vm(np.float32([1, 2]), (4,))


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("k", [-(2**63), 2**63 - 1])
def test_a_diagonal_at_the_i64_limits(op, k):
    x = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    expected = getattr(np, op)(x, 4 if k > 0 else -4)
    assert_every_path(op, [x], (3, 3), f" {{k = {k} : i64}}", expected)
