"""relax-run on the contract programs: results equal plain numpy, bad inputs give one
line on stderr and a non-zero exit, saved executables run the same."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from xrelax.tools.relax_run import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
RNG = np.random.default_rng(7)


def run(
    tmp_path: Path, example: str, inputs: dict[str, np.ndarray], *extra: str
) -> list[np.ndarray]:
    npz_in, npz_out = tmp_path / "in.npz", tmp_path / "out.npz"
    np.savez(npz_in, **inputs)
    code = main(
        [str(EXAMPLES / example), "--inputs", str(npz_in), "--outputs", str(npz_out), *extra]
    )
    assert code == 0
    with np.load(npz_out) as out:
        return [out[f"out{i}"] for i in range(len(out.files))]


def fails(tmp_path: Path, capsys, example: str, inputs: dict[str, np.ndarray], *extra: str) -> str:
    npz_in = tmp_path / "in.npz"
    np.savez(npz_in, **inputs)
    assert main([str(EXAMPLES / example), "--inputs", str(npz_in), *extra]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err.strip()


def mlp_inputs(n: int) -> dict[str, np.ndarray]:
    shapes = {"x": (n, 784), "w1": (784, 128), "b1": (128,), "w2": (128, 10), "b2": (10,)}
    return {k: (RNG.standard_normal(s) * 0.1).astype(np.float32) for k, s in shapes.items()}


def mlp_numpy(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    e = np.exp(h - h.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("n", [1, 7, 256])
def test_mlp(tmp_path: Path, n: int) -> None:
    inputs = mlp_inputs(n)
    (out,) = run(tmp_path, "mlp.mlir", inputs)
    np.testing.assert_allclose(out, mlp_numpy(**inputs), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("cond", [True, False])
def test_control_flow_both_branches(tmp_path: Path, cond: bool) -> None:
    x = RNG.standard_normal(6).astype(np.float32)
    (out,) = run(tmp_path, "control_flow.mlir", {"c": np.array(cond), "x": x})
    np.testing.assert_allclose(out, np.exp(x) if cond else -x, rtol=1e-6)


def test_shape_cases_with_repeated_values(tmp_path: Path) -> None:
    x = np.array([2, 2, 1, 7, 1, 2, 7, 3, 3, 3, 0, 0], dtype=np.float32).reshape(3, 2, 2)
    (out,) = run(tmp_path, "shape_cases.mlir", {"x": x})
    np.testing.assert_allclose(out, np.exp(np.unique(x)), rtol=1e-6)


def test_call_tir_with_user_packed_function(tmp_path: Path) -> None:
    packed = tmp_path / "packed.py"
    packed.write_text(
        "import numpy as np\n"
        "import xrelax\n"
        "@xrelax.register_func('custom_inplace_update', override=True)\n"
        "def update(t):\n"
        "    t += 1.0\n"
    )
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    w = RNG.standard_normal((4, 5)).astype(np.float32)
    (out,) = run(tmp_path, "call_tir.mlir", {"x": x, "w": w}, "--load-packed", str(packed))
    np.testing.assert_allclose(out, np.exp((x @ w).ravel()) + 1.0, rtol=1e-5)


def test_call_tir_missing_packed_function(tmp_path: Path) -> None:
    """A fresh relax-run process (no packed function registered by other tests)."""
    x, w = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)
    np.savez(tmp_path / "in.npz", x=x, w=w)
    command = [sys.executable, "-m", "xrelax.tools.relax_run", str(EXAMPLES / "call_tir.mlir")]
    command += ["--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "out.npz")]
    failed = subprocess.run(command, capture_output=True, text=True, check=False)
    assert failed.returncode == 1
    assert failed.stderr == (
        "relax-run: error: missing packed function 'custom_inplace_update' used by function "
        "'main'\n"
    )
    allowed = subprocess.run(
        [*command, "--allow-missing-packed"], capture_output=True, text=True, check=False
    )
    assert allowed.returncode == 0, allowed.stderr
    assert "warning: packed function 'custom_inplace_update' is not registered" in allowed.stderr
    with np.load(tmp_path / "out.npz") as out:
        np.testing.assert_allclose(out["out0"], np.full(4, math.exp(3.0), np.float32), rtol=1e-6)


def test_bad_inputs(tmp_path: Path, capsys) -> None:
    x, w = np.ones((2, 3), np.float32), np.ones((4, 2), np.float32)
    allow = "--allow-missing-packed"
    err = fails(tmp_path, capsys, "call_tir.mlir", {"x": x, "w": w}, allow)
    assert err == (
        "relax-run: error: main: match_shape [k, m]: dimension 0 (symbolic variable k): "
        "expected 3, got 4"
    )
    err = fails(tmp_path, capsys, "call_tir.mlir", {"x": x}, allow)
    assert err == "relax-run: error: main: missing input 'w' (parameters: x, w)"
    err = fails(tmp_path, capsys, "call_tir.mlir", {"x": x.astype(np.float64), "w": w}, allow)
    assert err == "relax-run: error: main: parameter 'x': expected dtype float32, got float64"
    err = fails(tmp_path, capsys, "call_tir.mlir", {"x": x[0], "w": w}, allow)
    assert err == "relax-run: error: main: parameter 'x': expected rank 2, got rank 1"
    err = fails(tmp_path, capsys, "mlp.mlir", {**mlp_inputs(2), "z": x})
    assert err == "relax-run: error: main: unknown input 'z' (parameters: x, w1, b1, w2, b2)"


def test_saved_executable_runs_identically(tmp_path: Path) -> None:
    inputs = mlp_inputs(5)
    exe = tmp_path / "mlp.xvm"
    (direct,) = run(tmp_path, "mlp.mlir", inputs, "--save-executable", str(exe))
    np.savez(tmp_path / "in.npz", **inputs)
    assert (
        main([str(exe), "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "o.npz")])
        == 0
    )
    with np.load(tmp_path / "o.npz") as out:
        np.testing.assert_array_equal(out["out0"], direct)


def test_corrupted_executable_is_refused(tmp_path: Path, capsys) -> None:
    exe = tmp_path / "mlp.xvm"
    run(tmp_path, "mlp.mlir", mlp_inputs(1), "--save-executable", str(exe))
    data = bytearray(exe.read_bytes())
    data[len(data) // 2] ^= 0xFF
    exe.write_bytes(bytes(data))
    assert main([str(exe), "--inputs", str(tmp_path / "in.npz")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("relax-run: error:") and err.count("\n") == 1


def test_interpreter_mode_matches(tmp_path: Path) -> None:
    inputs = mlp_inputs(3)
    (vm,) = run(tmp_path, "mlp.mlir", inputs)
    (ref,) = run(tmp_path, "mlp.mlir", inputs, "--interpret")
    np.testing.assert_allclose(vm, ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(("i", "n"), [(0, 1), (5, 4), (3, 0)])
def test_prim_values(tmp_path: Path, i: int, n: int) -> None:
    x = RNG.standard_normal((n, 3)).astype(np.float32)
    seq, y = run(tmp_path, "prim_values.mlir", {"i": np.array(i), "x": x})
    np.testing.assert_array_equal(seq, np.arange(i))
    assert seq.dtype == np.int64
    np.testing.assert_allclose(y, x + np.arange(n, dtype=np.float32)[:, None], rtol=1e-6)


@pytest.mark.parametrize(
    ("i", "message"),
    [
        (
            np.array(-2),
            "main: parameter 'i': symbolic variable i would be -2, but symbolic "
            "variables are non-negative",
        ),
        (np.array(2.5), "main: parameter 'i': expected an integer, got float64"),
        (np.array([2]), "main: parameter 'i': expected an integer, got tensor"),
    ],
)
def test_prim_values_bad_input(tmp_path: Path, capsys, i: np.ndarray, message: str) -> None:
    err = fails(tmp_path, capsys, "prim_values.mlir", {"i": i, "x": np.ones((2, 3), np.float32)})
    assert err == f"relax-run: error: {message}"
