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

import functools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelax
from xrelax import frontend
from xrelax.frontend import FrontendError

INSTALL = "pip install -e '.[torch,onnx,models]'"

try:
    import onnxruntime
    import torch
    from model_zoo import as_numpy
    from model_zoo2 import ZOO2
except ModuleNotFoundError as missing:
    pytest.fail(f"the model zoo needs '{missing.name}': {INSTALL}", pytrace=False)

TOLERANCE = {"rtol": 1e-3, "atol": 1e-4}
SIGNIFICANT = 1e-2
"""The mean magnitude reference outputs must reach, far above the tolerance."""

EXPECTED_FAILURES = Path(__file__).with_name("zoo2_expected_failures.txt")
CATEGORIES = ("unsupported operator", "unsupported attribute", "unsupported type", "exporter")
PATHS = ("torch", "onnx")


def expected_failures() -> dict[str, str]:
    """The listed cases (``model-path``) and their reasons (``category: detail``)."""
    listed: dict[str, str] = {}
    for number, line in enumerate(EXPECTED_FAILURES.read_text().splitlines(), 1):
        if not line.strip():
            continue
        name, sep, reason = (part.strip() for part in line.partition("#"))
        category = reason.partition(": ")[0]
        assert sep and category in CATEGORIES and reason.partition(": ")[2], (
            f"{EXPECTED_FAILURES.name}:{number}: expected 'model-path  # category: detail' "
            f"with a category of {CATEGORIES}, got {line!r}"
        )
        assert name not in listed, f"{EXPECTED_FAILURES.name}:{number}: {name} is listed twice"
        listed[name] = reason
    return listed


EXPECTED = expected_failures()


def test_expected_failures_name_cases() -> None:
    cases = {f"{name}-{path}" for name in ZOO2 for path in PATHS}
    assert not sorted(set(EXPECTED) - cases), "listed cases the zoo does not have"


@functools.cache
def _exported(name: str) -> tuple[Any, Any]:
    """The model and its ExportedProgram (shared by the two paths)."""
    model = ZOO2[name].model()
    return model, ZOO2[name].export(model)


def _onnx(name: str) -> Any:
    model, program = _exported(name)
    case = ZOO2[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = torch.onnx.export(
            program, case.inputs(0), dynamo=True, dynamic_shapes=case.dynamic_shapes(),
            verbose=False,
        )  # fmt: skip
    return exported.model_proto


def _run(name: str, path: str) -> None:
    """Import, compile and run the model on ``path`` at both sizes, comparing."""
    model, program = _exported(name)
    case = ZOO2[name]
    if path == "torch":
        imported = frontend.from_exported_program(program)
    else:
        proto = _onnx(name)
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
