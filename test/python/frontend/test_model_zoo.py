"""The model zoo (``model_zoo.ZOO``): each stock model, exported with ``torch.export``
as a user would (dynamic batch, no decompositions), imported on both paths — the
ExportedProgram itself, and the ONNX model ``torch.onnx.export`` makes of it —
compiled, and compared against torch eager at two batch sizes.

The zoo needs the ``models`` extra (torchvision, timm, transformers). Without it these
tests fail, naming the install command: a zoo that skips silently checks nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

import xrelax
from xrelax import frontend
from xrelax.backends.kernels.compiler import load_executable_kernels

INSTALL = "pip install -e '.[torch,onnx,models]'"

try:
    import onnx  # noqa: F401
    import torch
    from model_zoo import ZOO, as_numpy, exported, import_torchvision, onnx_model

    import_torchvision()  # before timm and transformers, which import torchvision
    import timm  # noqa: F401
    import transformers  # noqa: F401
except ModuleNotFoundError as missing:
    pytest.fail(f"the model zoo needs '{missing.name}': {INSTALL}", pytrace=False)

TOLERANCE = {"rtol": 1e-3, "atol": 1e-4}
SIGNIFICANT = 1e-2
"""The mean magnitude eager outputs must reach: far above the tolerance, so that a
comparison of near-zero outputs cannot pass by accident."""


@pytest.mark.parametrize("path", ["torch", "onnx"])
@pytest.mark.parametrize("name", list(ZOO))
def test_zoo_model_matches_eager(name: str, path: str) -> None:
    model, program = exported(ZOO[name])
    case = ZOO[name]
    if path == "torch":
        imported = frontend.from_exported_program(program)
    else:
        imported = frontend.from_onnx(onnx_model(ZOO[name]))
    executable = xrelax.compile(imported.module)
    # Every kernel of a stock model vectorizes: a scalar loop nest is correct but runs
    # Python per element (one in efficientnet made it 100x slower than eager).
    scalar = [
        f"@{name}: {p}"
        for name, kernel in load_executable_kernels(executable).items()
        for p in kernel.paths
        if p.path == "scalar"
    ]
    assert not scalar, scalar
    main = xrelax.VirtualMachine(executable)["main"]
    for size in (1, 2):
        inputs = case.inputs(size)
        with torch.no_grad():
            expected = as_numpy(model(*inputs))
        got = main(*(t.numpy() for t in inputs), **imported.params)
        got = [got] if isinstance(got, np.ndarray) else list(got)
        assert len(got) == len(expected)
        for value, want in zip(got, expected, strict=True):
            assert np.abs(want).mean() > SIGNIFICANT, "eager output too close to zero"
            np.testing.assert_allclose(value, want, **TOLERANCE)
