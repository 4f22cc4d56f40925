"""Shape safety (docs/shape-safety.md): run-time sizes that break a fact the compiler
could not prove are refused with one line, by the VM (default pipeline and without
fusion), by ``relax-run`` and by the interpreter alike; consistent sizes still compute
numpy's numbers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelax
from xrelax.backends.interpreter import InterpreterError
from xrelax.tools.relax_run import main as relax_run
from xrelax.transforms.relax_to_vm import DEFAULT_PIPELINE

NO_FUSION = ",".join(
    p
    for p in DEFAULT_PIPELINE
    if p not in ("relax-fuse-ops", "relax-fuse-tir", "tir-inline-copies")
)


def T(dims: str, dtype: str = "f32") -> str:
    return (
        f"!relax.tensor<[{dims}], {dtype}>"
        if not dims.startswith("ndim")
        else f"!relax.tensor<{dims}, {dtype}>"
    )


def f32(*shape: int) -> np.ndarray:
    return np.random.default_rng(len(shape)).uniform(-1, 1, shape).astype(np.float32)


def unary(op: str, x: str, result: str, attrs: str = "") -> str:
    return f"""relax.func @main(%x: {T(x)}) -> {T(result)} {{
  %z = relax.{op} %x{attrs} : ({T(x)}) -> {T(result)}
  relax.return %z : {T(result)}
}}"""


def binary(op: str, x: str, y: str, result: str, attrs: str = "", ydtype: str = "f32") -> str:
    return f"""relax.func @main(%x: {T(x)}, %y: {T(y, ydtype)}) -> {T(result)} {{
  %z = relax.{op} %x, %y{attrs} : ({T(x)}, {T(y, ydtype)}) -> {T(result)}
  relax.return %z : {T(result)}
}}"""


@dataclass
class Case:
    """A program, arguments it accepts, arguments that break an unproven fact, and the
    error (a regex) every path must give for them."""

    name: str
    text: str
    good: tuple[Any, ...]
    bad: tuple[Any, ...]
    error: str
    expected: Any = field(default=None)
    """numpy's result for ``good`` (None: the interpreter is the oracle)."""


CASES = [
    Case(
        "matmul",
        binary("matmul", "n, k", "m, 4", "n, 4"),
        (f32(2, 3), f32(3, 4)),
        (f32(2, 3), f32(5, 4)),
        r"relax.matmul: the lhs columns equal the rhs rows: expected k == m, got k = 3, m = 5",
    ),
    Case(
        "matvec",
        binary("matmul", "n, k", "m", "n"),
        (f32(2, 3), f32(3)),
        (f32(2, 3), f32(5)),
        r"lhs columns equal the rhs rows: expected k == m, got k = 3, m = 5",
    ),
    Case(
        "vecvec",
        binary("matmul", "k", "m", ""),
        (f32(3), f32(3)),
        (f32(3), f32(4)),
        r"lhs columns equal the rhs rows: expected k == m, got k = 3, m = 4",
    ),
    Case(
        "reshape",
        f"""relax.func @main(%x: {T("n, 6")}) -> {T("n, 4")} {{
  %s = relax.shape [n, 4] : !relax.shape<[n, 4]>
  %z = relax.reshape %x, %s : ({T("n, 6")}, !relax.shape<[n, 4]>) -> {T("n, 4")}
  relax.return %z : {T("n, 4")}
}}""",
        (f32(0, 6),),
        (f32(2, 6),),
        r"relax.reshape to \[n, 4\]: the element count is kept: expected n \* 4 == n \* 6, "
        r"got n = 2 \(n \* 4 = 8, n \* 6 = 12\)",
    ),
    Case(
        "reshape-inferred",
        f"""relax.func @main(%x: {T("n, 3")}) -> {T("ndim=2")} {{
  %s = relax.shape [-1, 2] : !relax.shape<[-1, 2]>
  %z = relax.reshape %x, %s : ({T("n, 3")}, !relax.shape<[-1, 2]>) -> {T("ndim=2")}
  relax.return %z : {T("ndim=2")}
}}""",
        (f32(4, 3),),
        (f32(3, 3),),
        r"divides into the -1 entry: expected floormod\(n \* 3, 2\) == 0, got n = 3",
    ),
    Case(
        "split",
        f"""relax.func @main(%x: {T("n")}) -> {T("ndim=1")} {{
  %t = relax.split %x {{indices_or_sections = 3 : i64}} : ({T("n")})
  %z = relax.get_item %t[2] : (!relax.tuple<{T("floordiv(n, 3)")}, {T("floordiv(n, 3)")}, {T("floordiv(n, 3)")}>) -> {T("ndim=1")}
  relax.return %z : {T("ndim=1")}
}}""",
        (f32(6),),
        (f32(7),),
        r"relax.split: 3 equal sections divide axis 0: expected floormod\(n, 3\) == 0, got n = 7",
    ),
    Case(
        "squeeze",
        unary("squeeze", "n, m", "ndim=1", " {axis = array<i64: 1>}"),
        (f32(2, 1),),
        (f32(2, 3),),
        r"relax.squeeze: axis 1 has size 1: expected m == 1, got m = 3",
    ),
    Case(
        "layer_norm",
        f"""relax.func @main(%x: {T("n, k")}, %g: {T("m")}, %b: {T("m")}) -> {T("n, k")} {{
  %z = relax.layer_norm %x, %g, %b {{axes = array<i64: 1>}} : ({T("n, k")}, {T("m")}, {T("m")}) -> {T("n, k")}
  relax.return %z : {T("n, k")}
}}""",
        (f32(2, 3), f32(3), f32(3)),
        (f32(2, 3), f32(5), f32(5)),
        r"relax.layer_norm: gamma dimension 0 equals x along axis 1: expected m == k, got k = 3, m = 5",
    ),
    Case(
        "conv1d",
        binary("conv1d", "n, c, 8", "4, d, 3", "ndim=3"),
        (f32(1, 2, 8), f32(4, 2, 3)),
        (f32(1, 2, 8), f32(4, 3, 3)),
        r"relax.conv1d: the data channels equal the weight input channels \* groups: "
        r"expected d == c, got c = 2, d = 3",
    ),
    Case(
        "conv2d",
        binary("conv2d", "n, c, 8, 8", "4, d, 3, 3", "ndim=4"),
        (f32(1, 2, 8, 8), f32(4, 2, 3, 3)),
        (f32(1, 3, 8, 8), f32(4, 2, 3, 3)),
        r"relax.conv2d: the data channels equal the weight input channels \* groups: "
        r"expected d == c, got c = 3, d = 2",
    ),
    Case(
        "grouped-conv2d",
        binary("conv2d", "1, 4, 6, 6", "o, 2, 3, 3", "ndim=4", " {groups = 2 : i64}"),
        (f32(1, 4, 6, 6), f32(6, 2, 3, 3)),
        (f32(1, 4, 6, 6), f32(5, 2, 3, 3)),
        r"relax.conv2d: groups divide the output channels: expected floormod\(o, 2\) == 0, got o = 5",
    ),
    Case(
        "max_pool2d",
        unary("max_pool2d", "1, 1, h, 4", "ndim=4", " {pool_size = array<i64: 3, 3>}"),
        (f32(1, 1, 3, 4),),
        (f32(1, 1, 2, 4),),
        r"relax.max_pool2d: spatial dimension 0 \(padded\) holds the window: expected 3 <= h, got h = 2",
    ),
    Case(
        "max-empty",
        unary("max", "n, m", "ndim=1", " {axis = array<i64: 1>}"),
        (f32(2, 3),),
        (f32(2, 0),),
        r"relax.max: the reduced axes are not empty: expected 1 <= m, got m = 0",
    ),
    Case(
        "min-empty-all",
        unary("min", "n", "", ""),
        (f32(2),),
        (f32(0),),
        r"relax.min: the reduced axes are not empty: expected 1 <= n, got n = 0",
    ),
    Case(
        "take",
        f"""relax.func @main(%x: {T("n, 3")}, %i: {T("k", "i64")}) -> {T("k, 3")} {{
  %z = relax.take %x, %i {{axis = 0 : i64}} : ({T("n, 3")}, {T("k", "i64")}) -> {T("k, 3")}
  relax.return %z : {T("k, 3")}
}}""",
        (f32(2, 3), np.array([-2, 1], np.int64)),
        (f32(2, 3), np.array([-3], np.int64)),
        r"index -3 (is )?out of (bounds|range)",
    ),
    Case(
        "tir-load",
        f"""tir.prim_func @row(%A: !tir.buffer<[n, m], f32>, %K: !tir.buffer<[], i64>, %C: !tir.buffer<[m], f32>) {{
  %k = tir.load %K[] : i64
  tir.let t = %k : i64
  tir.for i in [0, m) {{
    %a = tir.load %A[t, i] : f32
    tir.store %C[i], %a : f32
  }}
}}
relax.func @main(%x: {T("n, m")}, %k: {T("", "i64")}) -> {T("m")} {{
  %r = relax.dataflow -> {T("m")} {{
    %a = relax.call_tir @row(%x, %k) : ({T("n, m")}, {T("", "i64")}) -> {T("m")}
    %b = relax.exp %a : ({T("m")})
    relax.output %b : {T("m")}
  }}
  relax.return %r : {T("m")}
}}""",
        (f32(2, 3), np.array(1, np.int64)),
        (f32(2, 3), np.array(-1, np.int64)),
        r"kernel @(fused_)?row(_exp)?: index -1 out of range \[0, 2\) for axis 0 of buffer",
    ),
    Case(
        "fused-input-constraint",
        f"""tir.prim_func @addrow(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[m], f32>, %C: !tir.buffer<[n, m], f32>) {{
  tir.for i in [0, n) {{
    tir.for j in [0, m) {{
      %a = tir.load %A[i, j] : f32
      %b = tir.load %B[j] : f32
      %c = arith.addf %a, %b : f32
      tir.store %C[i, j], %c : f32
    }}
  }}
}}
relax.func @main(%x: {T("n, 4")}, %y: {T("k")}) -> {T("n, 4")} {{
  %r = relax.dataflow -> {T("n, 4")} {{
    %a = relax.call_tir @addrow(%x, %y) : ({T("n, 4")}, {T("k")}) -> {T("n, 4")}
    %b = relax.exp %a : ({T("n, 4")})
    relax.output %b : {T("n, 4")}
  }}
  relax.return %r : {T("n, 4")}
}}""",
        (f32(2, 4), f32(4)),
        (f32(2, 4), f32(5)),
        r"@addrow: buffer #1 %B dimension 0 is",
    ),
    Case(
        "fused-output-constraint",
        f"""tir.prim_func @dup(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n * 2], f32>) {{
  tir.for i in [0, n) {{
    %a = tir.load %A[i] : f32
    tir.store %B[i], %a : f32
    tir.store %B[i + n], %a : f32
  }}
}}
relax.func @main(%x: {T("n")}) -> {T("n")} {{
  %r = relax.dataflow -> {T("n")} {{
    %a = relax.call_tir @dup(%x) : ({T("n")}) -> {T("n")}
    %b = relax.exp %a : ({T("n")})
    relax.output %b : {T("n")}
  }}
  relax.return %r : {T("n")}
}}""",
        (f32(0),),
        (f32(2),),
        r"@dup: buffer #1 %B dimension 0",
    ),
    Case(
        "negative-shape",
        f"""relax.func @main(%s: !relax.shape<[n]>) -> {T("ndim=1")} {{
  %t = relax.shape [n * n] : !relax.shape<[n * n]>
  %z = relax.ones %t {{dtype = f32}} : (!relax.shape<[n * n]>) -> {T("ndim=1")}
  relax.return %z : {T("ndim=1")}
}}""",
        ((3,),),
        ((-3,),),
        r"main: parameter 's': dimension 0 \(symbolic variable n\): expected a size >= 0, got -3",
    ),
    Case(
        "call-result",
        f"""relax.func @g(%x: {T("n")}) -> {T("ndim=1")} {{
  %s = relax.shape [2] : !relax.shape<[2]>
  %z = relax.zeros %s {{dtype = f32}} : (!relax.shape<[2]>) -> {T("ndim=1")}
  relax.return %z : {T("ndim=1")}
}}
relax.func @main(%x: {T("n")}) -> {T("n")} {{
  %z = relax.call @g(%x) : ({T("n")}) -> {T("n")}
  relax.return %z : {T("n")}
}}""",
        (f32(2),),
        (f32(3),),
        r"main: relax.call @g \(%z\): result: dimension 0 \(symbolic variable n\): expected 3, got 2",
    ),
    Case(
        "call-result-dtype",
        f"""relax.func @g(%x: {T("n", "?")}) -> {T("n", "?")} {{
  relax.return %x : {T("n", "?")}
}}
relax.func @main(%x: {T("n")}) -> {T("n", "f64")} {{
  %z = relax.call @g(%x) : ({T("n")}) -> {T("n", "f64")}
  relax.return %z : {T("n", "f64")}
}}""",
        None,
        (f32(3),),
        r"main: relax.call @g \(%z\): result: expected dtype float64, got float32",
    ),
    Case(
        "call-packed-result",
        f"""relax.func @main(%x: {T("n")}) -> {T("n, 2")} {{
  %z = relax.call_packed "test.shape_safety.pairs"(%x) : ({T("n")}) -> {T("n, 2")}
  relax.return %z : {T("n, 2")}
}}""",
        (f32(2),),
        (f32(3),),
        r"main: relax.call_packed 'test.shape_safety.pairs' \(%z\): result: dimension 0 "
        r"\(symbolic variable n\): expected 3, got 2",
    ),
]

# The safety net (rank-only types): the operator's numpy kernel runs after its own facts,
# checked on the values' shapes with the message the symbolic path gives at compile time.
SAFETY_NET_CASES = [
    Case(
        "safety-net-gather-elements",
        binary("gather_elements", "ndim=2", "ndim=2", "ndim=2", " {axis = 1 : i64}", "i64"),
        (f32(3, 4), np.zeros((3, 2), np.int64)),
        (f32(2, 3), np.zeros((3, 1), np.int64)),
        r"main: relax.gather_elements.*: indices fit in x along axis 0: 3 <= 2 is false",
    ),
    Case(
        "safety-net-gather-nd",
        binary("gather_nd", "ndim=2", "ndim=2", "ndim=1", " {batch_dims = 1 : i64}", "i64").replace(
            T("ndim=1"), "!relax.tensor<*, f32>"
        ),
        (f32(3, 4), np.zeros((3, 1), np.int64)),
        (f32(2, 3), np.zeros((3, 1), np.int64)),
        r"main: relax.gather_nd.*: indices and x share batch axis 0: 3 == 2 is false",
    ),
    Case(
        "safety-net-max-pool",
        unary("max_pool2d", "ndim=4", "ndim=4", " {pool_size = array<i64: 3, 3>}"),
        (f32(1, 1, 3, 3),),
        (f32(1, 1, 2, 2),),
        r"relax.max_pool2d.*expected spatial dimension 0 \(padded size 2\) to hold the window "
        r"of extent 3",
    ),
    Case(
        "safety-net-avg-pool",
        unary("avg_pool2d", "ndim=4", "ndim=4", " {pool_size = array<i64: 3, 3>}"),
        (f32(1, 1, 3, 3),),
        (f32(1, 1, 2, 2),),
        r"relax.avg_pool2d.*expected spatial dimension 0 \(padded size 2\) to hold the window",
    ),
    Case(
        "safety-net-conv",
        binary("conv2d", "ndim=4", "ndim=4", "ndim=4"),
        (f32(1, 1, 3, 3), f32(1, 1, 3, 3)),
        (f32(1, 1, 2, 2), f32(1, 1, 3, 3)),
        r"relax.conv2d.*expected spatial dimension 0 \(padded size 2\) to hold the window",
    ),
    Case(
        "safety-net-matmul",
        binary("matmul", "ndim=2", "ndim=2", "ndim=2"),
        (f32(2, 3), f32(3, 4)),
        (f32(2, 3), f32(5, 4)),
        r"main: relax.matmul.*: expected the inner dimensions to agree, got lhs "
        r"!relax.tensor<\[2, 3\], f32> with 3 columns and rhs !relax.tensor<\[5, 4\], f32> "
        r"with 5 rows",
    ),
]
CASES += SAFETY_NET_CASES

xrelax.register_func("test.shape_safety.pairs", lambda x: np.zeros((2, 2), x.dtype), override=True)


def _refusal(run) -> str:
    with pytest.raises((xrelax.VMError, InterpreterError)) as info:
        run()
    message = str(info.value)
    assert "\n" not in message
    return message


PATHS = {
    "vm": lambda case: xrelax.VirtualMachine(xrelax.compile(xrelax.parse(case.text)))["main"],
    "vm-no-fusion": lambda case: xrelax.VirtualMachine(
        xrelax.compile(xrelax.parse(case.text), NO_FUSION)
    )["main"],
    "interpreter": lambda case: (
        lambda *args: xrelax.interpret(xrelax.parse(case.text), "main", *args)
    ),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_refused(case: Case, path: str) -> None:
    function = PATHS[path](case)
    message = _refusal(lambda: function(*case.bad))
    assert message.startswith("main: "), message
    assert re.search(case.error, message), message


@pytest.mark.parametrize("case", [c for c in CASES if c.good is not None], ids=lambda c: c.name)
def test_accepted(case: Case) -> None:
    expected = xrelax.interpret(xrelax.parse(case.text), "main", *case.good)
    for path in ("vm", "vm-no-fusion"):
        actual = PATHS[path](case)(*case.good)
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def test_relax_run_refuses(tmp_path: Path, capsys) -> None:
    case = next(c for c in CASES if c.name == "matmul")
    program, inputs = tmp_path / "matmul.mlir", tmp_path / "in.npz"
    program.write_text(case.text)
    np.savez(inputs, x=case.bad[0], y=case.bad[1])
    for extra in ([], ["--interpret"]):
        assert relax_run([str(program), "--inputs", str(inputs), *extra]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert re.search(case.error, err), err


DIVISION_CASES = {
    "reshape-to-zero-rows": (
        f"""relax.func @main(%x: {T("n, 4")}, %s: !relax.shape<[k]>) -> {T("ndim=2")} {{
  %sh = relax.shape [k, -1] : !relax.shape<[k, -1]>
  %r = relax.reshape %x, %sh : ({T("n, 4")}, !relax.shape<[k, -1]>) -> {T("ndim=2")}
  relax.return %r : {T("ndim=2")}
}}""",
        (f32(2, 4), (0,)),
        r"floordiv\(n \* 4, k\) divides by zero \(k = 0, n = 2\)|the entries other than -1 "
        r"are not 0: expected 1 <= k, got k = 0",
    ),
    "arange-step-zero": (
        """relax.func @main(%a: !relax.prim<i64, a>, %b: !relax.prim<i64, b>, %c: !relax.prim<i64, c>) -> !relax.tensor<ndim=1, i64> {
  %r = relax.arange %a, %b, %c : (!relax.prim<i64, a>, !relax.prim<i64, b>, !relax.prim<i64, c>) -> !relax.tensor<ndim=1, i64>
  relax.return %r : !relax.tensor<ndim=1, i64>
}""",
        (0, 5, 0),
        r"divides by zero \(a = 0, b = 5, c = 0\)|a symbolic step is positive: expected 1 <= c, "
        r"got c = 0",
    ),
    "floordiv-by-a-zero-size": (
        """relax.func @main(%s: !relax.shape<[n, m]>) -> !relax.shape<[floordiv(n, m)]> {
  %r = relax.shape [floordiv(n, m)] : !relax.shape<[floordiv(n, m)]>
  relax.return %r : !relax.shape<[floordiv(n, m)]>
}""",
        ((4, 0),),
        r"floordiv\(n, m\) divides by zero \(m = 0, n = 4\)",
    ),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", DIVISION_CASES)
def test_a_symbolic_division_by_zero_is_refused(name: str, path: str) -> None:
    # Sizes that make a symbolic divisor 0: one line naming the function and the
    # division or the fact it breaks, never Python's ZeroDivisionError.
    text, args, error = DIVISION_CASES[name]
    case = Case(name, text, args, args, error)
    message = _refusal(lambda: PATHS[path](case)(*args))
    assert message.startswith("main: ") and "ZeroDivisionError" not in message, message
    assert re.search(error, message), message
