"""relax-import and relax-run --params: a .pt2 to a result on the VM, and one-line
errors for bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from xrelax.tools.relax_import import main as relax_import
from xrelax.tools.relax_run import main as relax_run


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err.strip()


def test_pt2_to_vm_result(tmp_path: Path, capsys) -> None:
    torch = pytest.importorskip("torch")
    from torch_models import CASES

    case = CASES["mlp"]()
    torch.export.save(case.export(), tmp_path / "mlp.pt2")
    out = tmp_path / "mlp.mlir"
    assert relax_import([str(tmp_path / "mlp.pt2"), "-o", str(out)]) == 0
    weights = tmp_path / "mlp.npz"
    assert sorted(np.load(weights).files) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    (x,) = case.inputs(1)
    np.savez(tmp_path / "x.npz", x=x)
    args = [str(out), "--inputs", str(tmp_path / "x.npz"), "--params", str(weights)]
    assert relax_run([*args, "--outputs", str(tmp_path / "y.npz")]) == 0
    np.testing.assert_allclose(
        np.load(tmp_path / "y.npz")["out0"], case.eager([x]), rtol=1e-4, atol=1e-6
    )
    np.savez(tmp_path / "both.npz", x=x, fc1_bias=np.zeros(128, np.float32))
    assert relax_run([str(out), "--inputs", str(tmp_path / "both.npz"), "--params", str(weights)])
    assert one_line_error(capsys) == (
        "relax-run: error: main: 'fc1_bias' is given by both --inputs and --params"
    )


def test_unsupported_operators_write_nothing(tmp_path: Path, capsys) -> None:
    torch = pytest.importorskip("torch")

    class Model(torch.nn.Module):
        def forward(self, x):
            return torch.digamma(torch.lgamma(x))

    torch.export.save(torch.export.export(Model(), (torch.randn(3),)), tmp_path / "m.pt2")
    out = tmp_path / "m.mlir"
    assert relax_import([str(tmp_path / "m.pt2"), "-o", str(out)]) == 1
    assert one_line_error(capsys) == (
        f"relax-import: error: {tmp_path / 'm.pt2'}: 2 unsupported ATen operators in 2 nodes: "
        "aten.digamma.default (1), aten.lgamma.default (1)"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.onnx", None, "cannot open '{path}': no such file"),
        ("model.txt", b"hello", "'{path}': expected a .pt2 or .onnx model, got '.txt'"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, capsys, name, content, message) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    assert relax_import([str(path), "-o", str(tmp_path / "out.mlir")]) == 1
    assert one_line_error(capsys) == "relax-import: error: " + message.format(path=path)


def test_corrupt_onnx_is_one_line(tmp_path: Path, capsys) -> None:
    pytest.importorskip("onnx")
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\x08\x07garbage")
    assert relax_import([str(path)]) == 1
    assert one_line_error(capsys).startswith(
        f"relax-import: error: cannot load '{path}' as an ONNX model"
    )


def test_in_place_operators_import_as_exported(tmp_path: Path, capsys) -> None:
    torch = pytest.importorskip("torch")

    class Model(torch.nn.Module):
        def forward(self, x):
            y = x.clone()
            y[:, 0].relu_()
            return torch.nn.functional.relu6(y, inplace=True)

    program = torch.export.export(Model(), (torch.randn(2, 3),))
    torch.export.save(program, tmp_path / "m.pt2")
    out = tmp_path / "m.mlir"
    assert relax_import([str(tmp_path / "m.pt2"), "-o", str(out)]) == 0
    assert "relax.slice_scatter" in out.read_text()
    x = np.array([[-1.0, -2.0, 7.0], [3.0, -4.0, 0.5]], np.float32)
    np.savez(tmp_path / "x.npz", x=x)
    args = [str(out), "--inputs", str(tmp_path / "x.npz"), "--outputs", str(tmp_path / "y.npz")]
    assert relax_run(args) == 0
    expected = np.array([[0.0, 0.0, 6.0], [3.0, 0.0, 0.5]], np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npz")["out0"], expected)

    class Counter(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("steps", torch.zeros(3))

        def forward(self, x):
            self.steps.add_(1)
            return x + self.steps

    torch.export.save(torch.export.export(Counter(), (torch.randn(3),)), tmp_path / "c.pt2")
    assert relax_import([str(tmp_path / "c.pt2"), "-o", str(out)]) == 1
    assert one_line_error(capsys) == (
        f"relax-import: error: {tmp_path / 'c.pt2'}: 1 unsupported ATen operator in 1 node: "
        "aten.add_.Tensor (writes to the buffer 'steps') (1)"
    )


_LOADED = """
import sys
from xrelax.tools.relax_import import main
status = main([sys.argv[1], "-o", sys.argv[2]])
heavy = ("torch", "onnx", "onnxruntime", "transformers", "torchvision", "timm", "onnxscript")
print(status, sorted(m for m in heavy if m in sys.modules))
"""


def test_relax_import_loads_only_the_framework_of_the_file(tmp_path: Path) -> None:
    # Start-up is most of a small import (docs/importing-models.md): an ONNX file loads
    # onnx only, a .pt2 torch only (no model libraries, no onnx).
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())
    example = (torch.randn(2, 4),)
    torch.export.save(torch.export.export(model, example), tmp_path / "m.pt2")
    torch.onnx.export(model, example, str(tmp_path / "m.onnx"), dynamo=True, verbose=False)
    for name, expected in (("m.onnx", "0 ['onnx']"), ("m.pt2", "0 ['torch']")):
        done = subprocess.run(
            [sys.executable, "-c", _LOADED, str(tmp_path / name), str(tmp_path / "out.mlir")],
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.strip() == expected, done.stderr
