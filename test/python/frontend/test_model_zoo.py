"""The model zoo (``model_zoo.ZOO``): each stock model, exported with ``torch.export``
as a user would (dynamic batch, no decompositions), imported on both paths — the
ExportedProgram itself, and the ONNX model ``torch.onnx.export`` makes of it —
compiled, and compared against torch eager at two batch sizes.

The zoo needs the ``models`` extra (torchvision, timm, transformers). Without it these
tests fail, naming the install command: a zoo that skips silently checks nothing.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest

from xrelax import frontend

INSTALL = "pip install -e '.[torch,onnx,models]'"

try:
    import onnx  # noqa: F401
    import torch
    from model_zoo import ZOO, as_numpy, import_torchvision
    from torch_models import compiled_main

    import_torchvision()  # before timm and transformers, which import torchvision
    import timm  # noqa: F401
    import transformers  # noqa: F401
except ModuleNotFoundError as missing:
    pytest.fail(f"the model zoo needs '{missing.name}': {INSTALL}", pytrace=False)

TOLERANCE = {"rtol": 1e-3, "atol": 1e-4}
SIGNIFICANT = 1e-2
"""The mean magnitude eager outputs must reach: far above the tolerance, so that a
comparison of near-zero outputs cannot pass by accident."""


@functools.cache
def _exported(name: str) -> tuple[Any, Any]:
    """The model and its ExportedProgram (shared by the two paths)."""
    model = ZOO[name].model()
    return model, ZOO[name].export(model)


def _onnx(name: str) -> Any:
    model, program = _exported(name)
    case = ZOO[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = torch.onnx.export(
            program, case.inputs(0), dynamo=True, dynamic_shapes=case.dynamic_shapes(),
            verbose=False,
        )  # fmt: skip
    return exported.model_proto


def _cases() -> list[Any]:
    """Each model on each path. torch.onnx.export writes the adaptive average pooling of
    ConvNeXt and Swin as a gather over ``Range(0, batch)``: they need ONNX ``Range`` of a
    symbolic length (symbolic integers as values), which another branch adds; until it
    is here they are expected to fail, and pass (strictly) once it is."""
    from xrelax.frontend.onnx import SUPPORTED

    waiting = pytest.mark.xfail(
        "Range" not in SUPPORTED, reason="needs ONNX Range of a symbolic length", strict=True
    )
    return [
        pytest.param(name, path, marks=[waiting] if path == "onnx" and name in _RANGE else [])
        for name in ZOO
        for path in ("torch", "onnx")
    ]


_RANGE = {"convnext", "swin"}


@pytest.mark.parametrize(("name", "path"), _cases())
def test_zoo_model_matches_eager(name: str, path: str) -> None:
    model, program = _exported(name)
    case = ZOO[name]
    if path == "torch":
        imported = frontend.from_exported_program(program)
    else:
        imported = frontend.from_onnx(_onnx(name))
    main = compiled_main(imported.module)
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
