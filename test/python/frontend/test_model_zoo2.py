"""The second model zoo (``model_zoo2.ZOO2``): each stock model exported with
``torch.export`` as a user would (dynamic batch, and sequence for text; no
decompositions), imported on both paths, compiled and run at two sizes: the
ExportedProgram compared with torch eager, the ONNX model ``torch.onnx.export`` makes of
it compared with onnxruntime on that model.

A case that cannot pass yet is listed in ``zoo2_expected_failures.txt`` as
``model-path  # category: detail``: it must be refused cleanly (a one-line
``FrontendError``, ``CompileError`` or ``VMError`` whose message contains the detail, or
for the category ``exporter`` torch's own export failing with the detail), never a
wrong result or another exception; a listed case that passes fails the test, so the
file stays exact.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from listings import read_listing

import xrelax
from xrelax import frontend
from xrelax.frontend import FrontendError

INSTALL = "pip install -e '.[torch,onnx,models]'"

try:
    import onnxruntime
    import torch
    from model_zoo import as_numpy, exported, onnx_model
    from model_zoo2 import ZOO2
except ModuleNotFoundError as missing:
    pytest.fail(f"the model zoo needs '{missing.name}': {INSTALL}", pytrace=False)

TOLERANCE = {"rtol": 1e-3, "atol": 1e-4}
SIGNIFICANT = 1e-2
"""The mean magnitude reference outputs must reach, far above the tolerance."""

EXPECTED_FAILURES = Path(__file__).with_name("zoo2_expected_failures.txt")
CATEGORIES = ("unsupported operator", "unsupported attribute", "unsupported type", "exporter")
PATHS = ("torch", "onnx")


EXPECTED = read_listing(EXPECTED_FAILURES, CATEGORIES, "model-path")


def test_expected_failures_name_cases() -> None:
    cases = {f"{name}-{path}" for name in ZOO2 for path in PATHS}
    assert not sorted(set(EXPECTED) - cases), "listed cases the zoo does not have"


def _run(name: str, path: str) -> None:
    """Import, compile and run the model on ``path`` at both sizes, comparing."""
    model, program = exported(ZOO2[name])
    case = ZOO2[name]
    if path == "torch":
        imported = frontend.from_exported_program(program)
    else:
        proto = onnx_model(ZOO2[name])
        session = onnxruntime.InferenceSession(
            proto.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        imported = frontend.from_onnx(proto)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    for size in (1, 2):
        inputs = [t.numpy() for t in case.inputs(size)]
        if path == "torch":
            with torch.no_grad():
                expected = as_numpy(model(*case.inputs(size)))
        else:
            names = [i.name for i in session.get_inputs()]
            expected = session.run(None, dict(zip(names, inputs, strict=True)))
        got = main(*inputs, **imported.params)
        got = [got] if isinstance(got, np.ndarray) else list(got)
        assert len(got) == len(expected)
        for value, want in zip(got, expected, strict=True):
            assert np.abs(want).mean() > SIGNIFICANT, "reference output too close to zero"
            np.testing.assert_allclose(value, want, **TOLERANCE)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", list(ZOO2))
def test_zoo2_model_matches_reference(name: str, path: str) -> None:
    case = f"{name}-{path}"
    if case not in EXPECTED:
        _run(name, path)
        return
    detail = EXPECTED[case].partition(": ")[2]
    try:
        _run(name, path)
    except (FrontendError, xrelax.CompileError, xrelax.VMError) as err:
        message = str(err)
        assert "\n" not in message, f"a refusal is one line: {message!r}"
        assert detail in message, f"refused for another reason: {message}"
        return
    except Exception as err:  # noqa: BLE001 - torch's exporter failing is listed as such
        if not EXPECTED[case].startswith("exporter: ") or detail not in str(err):
            raise
        return
    pytest.fail(f"{case} passes: remove it from {EXPECTED_FAILURES.name}")
