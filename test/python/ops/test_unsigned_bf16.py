"""Unsigned integers (ui8 ... ui64) and bf16 on every path: the VM, the safety net
(rank-only types), the interpreter and constant folding give numpy's and torch's
numbers: arithmetic wraps around, unsigned division, remainders and comparisons, casts
between every pair of numeric types (floats an integer type cannot hold as
docs/semantics.md says, which is onnxruntime's), bf16 computed in f32 and rounded once.
Each function applies one operator, so fusion changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

import xrelax
from xrelax.dialects import dtypes
from xrelax.dialects.relax import show_type
from xrelax.transforms.fold_constant import const_value, make_const

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # edge values on purpose

UNSIGNED = {"ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}
NUMERIC = {
    **UNSIGNED,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "f16": np.float16,
    "bf16": dtypes.BFLOAT16,
    "f32": np.float32,
    "f64": np.float64,
}
BF16 = dtypes.BFLOAT16


def _type(array: np.ndarray, rank_only: bool = False, static: bool = False) -> str:
    name = dtypes.NAME_OF[dtypes.from_numpy(array.dtype)]
    if rank_only:
        return f"!relax.tensor<ndim={array.ndim}, {name}>"
    # symbolic: a variable per size
    dims = array.shape if static else (f"s{d}" for d in array.shape)
    return f"!relax.tensor<[{', '.join(map(str, dims))}], {name}>"


def _function(name: str, body: str, args: list[np.ndarray], rank_only: bool, folded: bool) -> str:
    """``@name`` computing ``%r = relax.<body>`` of ``%a0``, ``%a1``, ...: of its
    parameters, or (``folded``) of constants holding ``args``."""
    types = [_type(a, rank_only, static=folded) for a in args]
    operands = ", ".join(f"%a{k}" for k in range(len(args)))
    op, _, attrs = body.partition(" ")
    line = f"%r = relax.{op} {operands}{attrs and ' ' + attrs} : ({', '.join(types)})"
    if folded:
        params = ""
        consts = "".join(
            f"  %a{k} = {str(make_const(a)).partition(' = ')[2]}\n" for k, a in enumerate(args)
        )
    else:
        params = ", ".join(f"%a{k}: {t}" for k, t in enumerate(types))
        consts = ""
    # the result type as the operator deduces it
    first = f"%a0 : {types[0]}"
    probe = (
        f"relax.func @p({params}) -> {types[0]} {{\n{consts}  {line}\n  relax.return {first}\n}}"
    )
    (result,) = (
        op.results[0].type
        for op in xrelax.parse(probe).walk()
        if op.results and op.results[0].name_hint == "r"
    )
    out = show_type(result)
    return (
        f"relax.func @{name}({params}) -> {out} {{\n{consts}  {line}\n  relax.return %r : {out}\n}}"
    )


def run_every_path(cases: dict[str, tuple[str, list[np.ndarray]]]) -> dict[str, dict[str, object]]:
    """Each case (a body over ``%a0``, ...; its arguments) run on every path, all cases
    of a path in one module: ``{case: {path: result}}``."""
    names = list(cases)

    def module(rank_only: bool = False, folded: bool = False) -> str:
        functions = (_function(n, *cases[n], rank_only, folded) for n in names)
        return "\n".join(functions)

    known = xrelax.parse(module())
    vms = {
        "vm": xrelax.VirtualMachine(xrelax.compile(known)),
        "safety-net": xrelax.VirtualMachine(xrelax.compile(xrelax.parse(module(rank_only=True)))),
    }
    folded = xrelax.apply(xrelax.parse(module(folded=True)), "relax-fold-constant")
    returned = {
        func.sym_name.data: func.body.block.last_op.operands[0] for func in folded.body.block.ops
    }
    results: dict[str, dict[str, object]] = {}
    for name in names:
        args = cases[name][1]
        results[name] = {path: vm[name](*args) for path, vm in vms.items()}
        results[name]["interpreter"] = xrelax.interpret(known, name, *args)
        results[name]["constant-folding"] = const_value(returned[name])
    return results


def assert_every_path(cases: dict[str, tuple[str, list[np.ndarray]]], expected: dict) -> None:
    problems = []
    for name, outcomes in run_every_path(cases).items():
        want = np.asarray(expected[name])
        for path, got in outcomes.items():
            got = np.asarray(got)
            nan = want.dtype.kind == "f" or want.dtype == BF16
            if got.dtype != want.dtype or not np.array_equal(got, want, equal_nan=nan):
                problems.append(f"{name} on {path}: {got!r}, expected {want!r}")
    assert not problems, "\n".join(problems)


def _binary(op: str, a: np.ndarray, b: np.ndarray) -> tuple[str, list[np.ndarray]]:
    return op, [a, b]


def _unary(op: str, x: np.ndarray, attrs: str = "") -> tuple[str, list[np.ndarray]]:
    return f"{op}{attrs}", [x]


# ---------------------------------------------------------------------------- unsigned


def _unsigned_edges(t: type) -> tuple[np.ndarray, np.ndarray]:
    """Operands pairing the edge values of ``t``: 0, 1, the top bit, the maximum."""
    top, high = np.iinfo(t).max, 1 << (np.iinfo(t).bits - 1)
    a = np.array([0, 1, 2, 7, top, top - 1, high, high + 5, 100, 5, top, 3], t)
    b = np.array([1, top, 3, 0, top, 2, 2, high, 7, 5, 0, high - 1], t)
    return a, b


def _no_zero(b: np.ndarray) -> np.ndarray:
    return np.where(b == 0, 1, b).astype(b.dtype)


@pytest.mark.parametrize("dtype", UNSIGNED)
def test_unsigned_arithmetic_wraps_around(dtype):
    t = UNSIGNED[dtype]
    a, b = _unsigned_edges(t)
    m = np.array([[1, 2, np.iinfo(t).max], [3, 4, 5], [np.iinfo(t).max] * 3], t)
    cases = {
        op: _binary(op, a, b)
        for op in ("add", "subtract", "multiply", "divide", "fmod", "power", "maximum", "minimum")
    }
    cases |= {op: _binary(op, a, b) for op in ("bitwise_and", "bitwise_or", "bitwise_xor")}
    cases |= {op: _binary(op, a, b) for op in ("less", "less_equal", "greater", "equal")}
    cases |= {op: _unary(op, a) for op in ("negative", "abs")}
    axis = " {axis = array<i64: 1>}"
    cases |= {f"{op}_rows": _unary(op, m, axis) for op in ("sum", "max", "min", "mean")}
    cases["matmul"] = _binary("matmul", m, m)
    # numpy wraps around as ONNX, onnxruntime and torch do; a divisor of 0 gives 0
    expected = {
        "add": a + b,
        "subtract": a - b,
        "multiply": a * b,
        "divide": np.where(b == 0, 0, a // _no_zero(b)).astype(t),
        "fmod": np.where(b == 0, 0, a % _no_zero(b)).astype(t),
        "power": np.power(a, b),
        "maximum": np.maximum(a, b),
        "minimum": np.minimum(a, b),
        "bitwise_and": a & b,
        "bitwise_or": a | b,
        "bitwise_xor": a ^ b,
        "less": a < b,
        "less_equal": a <= b,
        "greater": a > b,
        "equal": a == b,
        "negative": (t(0) - a).astype(t),
        "abs": a,
        "sum_rows": m.sum(axis=1, dtype=t),
        "max_rows": m.max(axis=1),
        "min_rows": m.min(axis=1),
        # exact: the mean of the maximum three times is the maximum
        "mean_rows": np.array([sum(int(v) for v in row) // 3 for row in m], t),
        "matmul": np.matmul(m, m),
    }
    assert_every_path(cases, expected)


def test_unsigned_arithmetic_is_torchs():
    torch = pytest.importorskip("torch")
    a, b = _unsigned_edges(np.uint8)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    nonzero = tb != 0
    expected = {
        "add": (ta + tb).numpy(),
        "multiply": (ta * tb).numpy(),
        "subtract": (ta - tb).numpy(),
        "divide": torch.where(nonzero, ta // torch.where(nonzero, tb, 1), 0).numpy(),
        "less": (ta < tb).numpy(),
        "negative": (-ta).numpy(),
    }
    cases = {op: _binary(op, a, b) for op in expected if op != "negative"}
    cases["negative"] = _unary("negative", a)
    assert_every_path(cases, expected)


def test_unsigned_prim_values_and_shapes_of_unsigned_tensors():
    module = xrelax.parse("""
relax.func @main(%x: !relax.tensor<[n], ui64>, %k: !relax.prim<ui8, k>) -> !relax.tensor<[n], ui64> {
  %r = relax.add %x, %x : (!relax.tensor<[n], ui64>, !relax.tensor<[n], ui64>)
  relax.return %r : !relax.tensor<[n], ui64>
}""")
    x = np.array([2**63, 2**64 - 1], np.uint64)
    expected = x + x
    vm = xrelax.VirtualMachine(xrelax.compile(module))
    for got in (vm["main"](x, 255), xrelax.interpret(module, "main", x, 255)):
        assert got.dtype == np.uint64 and np.array_equal(got, expected)
    with pytest.raises(xrelax.VMError, match=r"expected an uint8 in \[0, 255\], got 256"):
        vm["main"](x, 256)
    with pytest.raises(xrelax.VMError, match="expected dtype uint64, got int64"):
        vm["main"](x.astype(np.int64), 1)


# -------------------------------------------------------------------------------- casts


def _cast_sources() -> dict[str, np.ndarray]:
    """Per numeric type, values that every other type can hold or that test its
    conversion rule (negative, fractional, beyond every range, NaN, infinities)."""
    floats = [0.0, 1.0, 2.75, -2.75, 255.5, -128.0, 65504.0, 3e9, -3e9, 1e20]
    floats += [np.nan, np.inf, -np.inf, 2.0**63, 2.0**31, -0.0]
    sources = {}
    for name, t in NUMERIC.items():
        if name in UNSIGNED or name.startswith("i"):
            info = np.iinfo(t)
            sources[name] = np.array([0, 1, 100, info.max, info.min, info.max // 3 * 2], t)
        else:
            sources[name] = np.array(floats, np.float64).astype(t)
    sources["i1"] = np.array([True, False])
    return sources


def test_cast_between_every_pair_of_types():
    types = [*NUMERIC, "i1"]
    cases, expected = {}, {}
    for source, x in _cast_sources().items():
        for target in types:
            name = f"{source}_to_{target}"
            cases[name] = _unary("astype", x, f" {{dtype = {target}}}")
            expected[name] = dtypes.astype(x, np.dtype(NUMERIC.get(target, np.bool_)))
    assert_every_path(cases, expected)


@pytest.mark.parametrize("source", ["f32", "f64"])
def test_float_to_integer_casts_are_onnxruntimes(source):
    """Truncation toward zero; what no integer type holds (NaN, infinities, beyond the
    range) as onnxruntime converts it, which dtypes.astype follows."""
    ort = pytest.importorskip("onnxruntime")
    from onnx import helper

    x = _cast_sources()[source]
    targets = [name for name in NUMERIC if name in UNSIGNED or name.startswith("i")]
    onnx_types = {t: helper.np_dtype_to_tensor_dtype(np.dtype(NUMERIC[t])) for t in targets}
    outputs = [helper.make_tensor_value_info(t, onnx_types[t], [len(x)]) for t in targets]
    nodes = [helper.make_node("Cast", ["x"], [t], to=onnx_types[t]) for t in targets]
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = helper.make_graph(
        nodes, "casts", [helper.make_tensor_value_info("x", elem, [len(x)])], outputs
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for name, value in zip(targets, session.run(None, {"x": x}), strict=True):
        got = dtypes.astype(x, np.dtype(NUMERIC[name]))
        assert np.array_equal(got, value), f"{source} to {name}: {got} vs onnxruntime {value}"


# --------------------------------------------------------------------------------- bf16


def test_bf16_is_torchs_computed_in_f32_and_rounded_once():
    torch = pytest.importorskip("torch")
    a32 = np.array([1.0, -2.5, 3.140625, 1e30, -0.0, np.inf, np.nan, 0.3, 3e38, 1e-40], np.float32)
    b32 = np.array([3.0, 0.7, -1.1, 1e10, 2.0, 1.0, 1.0, -0.1, 3e38, 7.0], np.float32)
    a, b = a32.astype(BF16), b32.astype(BF16)
    ta, tb = torch.from_numpy(a.astype(np.float32)).bfloat16(), torch.from_numpy(b32).bfloat16()
    m = (np.arange(12, dtype=np.float32).reshape(3, 4) / 3).astype(BF16)
    tm = torch.from_numpy(m.astype(np.float32)).bfloat16()

    def numpy(t: object) -> np.ndarray:
        return t.float().numpy().astype(BF16) if t.dtype == torch.bfloat16 else t.numpy()

    cases = {op: _binary(op, a, b) for op in ("add", "subtract", "multiply", "divide", "power")}
    cases |= {op: _unary(op, a) for op in ("exp", "tanh", "sqrt", "sigmoid")}
    cases["less"] = _binary("less", a, b)
    cases["sum"] = _unary("sum", m, " {axis = array<i64: 1>}")
    cases["mean"] = _unary("mean", m, " {axis = array<i64: 1>}")
    cases["softmax"] = _unary("softmax", m, " {axis = 1 : i64}")
    cases["matmul"] = _binary("matmul", m, np.ascontiguousarray(m.T))
    expected = {
        "add": ta + tb,
        "subtract": ta - tb,
        "multiply": ta * tb,
        "divide": ta / tb,
        "power": torch.pow(ta, tb),
        "exp": torch.exp(ta),
        "tanh": torch.tanh(ta),
        "sqrt": torch.sqrt(ta),
        "sigmoid": torch.sigmoid(ta),
        "less": ta < tb,
        "sum": tm.sum(1),
        "mean": tm.mean(1),
        "softmax": torch.softmax(tm, 1),
        "matmul": tm @ tm.T,
    }
    assert_every_path(cases, {k: numpy(v) for k, v in expected.items()})


def test_bf16_and_unsigned_constants_survive_the_executable_file(tmp_path):
    module = xrelax.parse("""
relax.func @main(%x: !relax.tensor<[3], bf16>, %y: !relax.tensor<[3], ui64>) -> !relax.tuple<!relax.tensor<[3], bf16>, !relax.tensor<[3], ui64>> {
  %c = relax.const dense<[1.5, 0x7FC0, 0xFF80]> : !relax.tensor<[3], bf16>
  %d = relax.const dense<[18446744073709551615, 0, 9223372036854775808]> : !relax.tensor<[3], ui64>
  %a = relax.add %x, %c : (!relax.tensor<[3], bf16>, !relax.tensor<[3], bf16>)
  %b = relax.add %y, %d : (!relax.tensor<[3], ui64>, !relax.tensor<[3], ui64>)
  %r = relax.tuple %a, %b : (!relax.tensor<[3], bf16>, !relax.tensor<[3], ui64>)
  relax.return %r : !relax.tuple<!relax.tensor<[3], bf16>, !relax.tensor<[3], ui64>>
}""")
    path = tmp_path / "m.xrx"
    xrelax.compile(module).save(path)
    x = np.array([1.0, 2.0, 3.0], BF16)
    y = np.array([1, 2, 2**63], np.uint64)
    a, b = xrelax.VirtualMachine(xrelax.Executable.load(path))["main"](x, y)
    assert a.dtype == BF16 and np.array_equal(
        a, np.array([2.5, np.nan, -np.inf], BF16), equal_nan=True
    )
    assert b.dtype == np.uint64 and b.tolist() == [0, 2, 0]


def test_running_sums_of_narrow_unsigned_integers_are_ui64_as_numpys():
    x = np.array([[200, 100, 255], [1, 2, 3]], np.uint8)
    cases = {"cumsum": _unary("cumsum", x, " {axis = 1 : i64}")}
    assert_every_path(cases, {"cumsum": np.cumsum(x, axis=1)})
