"""ONNX's own conformance suite on xrelax: every backend test case the ``onnx`` package
ships (the node cases, generated in memory by ``onnx.backend.test``, and the model
cases under ``onnx/backend/test/data``: real models in their light form, simple,
pytorch-converted and pytorch-operator), imported, compiled with the default pipeline
and run on the VM through :class:`xrelax.tools.onnx_backend.XrelaxBackend`, with the
numpy kernels and with the native ones, the outputs compared as onnx's runner
compares them (``Runner.assert_similar_outputs``, with each case's tolerances).

A case that cannot pass yet is listed in ``onnx_expected_failures.txt`` as
``case_name  # category: detail``: it must be refused cleanly (a one-line
``FrontendError``, ``CompileError`` or ``VMError`` whose message contains the detail),
never a wrong result or another exception, and a listed case that passes fails the
test, so the file stays exact. Every other case must pass.
"""

from __future__ import annotations

import glob
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from listings import read_listing

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnx.backend.test")

from onnx import numpy_helper  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402
from onnx.backend.test.runner import Runner  # noqa: E402

import xrelax  # noqa: E402
from xrelax.backends.native import available as native_available  # noqa: E402
from xrelax.frontend import FrontendError  # noqa: E402
from xrelax.tools.onnx_backend import XrelaxBackend  # noqa: E402

EXPECTED_FAILURES = Path(__file__).with_name("onnx_expected_failures.txt")
KINDS = ("node", "real", "simple", "pytorch-converted", "pytorch-operator")
CATEGORIES = (
    "unsupported operator",
    "unsupported attribute",
    "unsupported type",
    "relax defect",
    "onnx checker",
)
"""What may keep a case from passing: an operator, attribute (or attribute input known
only at run time) or type xrelax lacks, a relax operator that would give a wrong
result (refused in the importer, reported), or onnx's checker refusing its own case."""

CLEAN_REFUSALS = (FrontendError, xrelax.CompileError, xrelax.VMError)
KERNELS = ["numpy", *(["native"] if native_available() else [])]
"""Every case runs on both kernel backends (the native one where its extra is installed)."""


@dataclass
class Case:
    """One backend test case: its model and (inputs, expected outputs) pairs."""

    name: str
    source: Any
    rtol: float
    atol: float

    def load(self) -> tuple[onnx.ModelProto, list[tuple[list[Any], list[Any]]]]:
        """The model and its data sets, as onnx's runner reads them."""
        case = self.source
        if case.model is not None:
            return case.model, [
                ([_array(v) for v in inputs], [_array(v) for v in outputs])
                for inputs, outputs in case.data_sets
            ]
        if case.model_dir is not None:
            model = onnx.load(os.path.join(case.model_dir, "model.onnx"))
            data = []
            for directory in sorted(glob.glob(os.path.join(case.model_dir, "test_data_set*"))):
                data.append(tuple(_tensors(directory, kind) for kind in ("input", "output")))
            return model, data
        # A real model in its light form (onnx/backend/test/data/light): inputs made
        # by the runner's generate_dummy_data, the outputs stored beside the model.
        path = Path(onnx.__file__).parent.parent / case.url
        model = onnx.load(str(path))
        weights = {tensor.name for tensor in model.graph.initializer}
        inputs = [Runner.generate_dummy_data(v) for v in model.graph.input if v.name not in weights]
        outputs = [
            numpy_helper.to_array(onnx.load_tensor(str(path.with_suffix("")) + f"_output_{i}.pb"))
            for i in range(len(model.graph.output))
        ]
        return model, [(inputs, outputs)]


def _array(value: Any) -> Any:
    return numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else value


def _tensors(directory: str, kind: str) -> list[np.ndarray]:
    count = len(glob.glob(os.path.join(directory, f"{kind}_*.pb")))
    return [
        numpy_helper.to_array(onnx.load_tensor(os.path.join(directory, f"{kind}_{i}.pb")))
        for i in range(count)
    ]


def _cases() -> Iterator[Case]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the case generators' numpy overflow warnings
        for kind in KINDS:
            for case in load_model_tests(kind=kind):
                yield Case(case.name, case, case.rtol, case.atol)


CASES = list(_cases())
EXPECTED = read_listing(EXPECTED_FAILURES, CATEGORIES, "case_name")


def test_expected_failures_name_cases() -> None:
    names = {case.name for case in CASES}
    assert not sorted(set(EXPECTED) - names), "listed cases the suite does not have"


def run_case(case: Case, kernels: str) -> None:
    """Import, compile and run ``case`` on the ``kernels`` backend and compare its
    outputs as onnx's runner does."""
    model, data = case.load()
    rep = XrelaxBackend.prepare(model, "CPU", kernels=kernels)
    for inputs, outputs in data:
        Runner.assert_similar_outputs(outputs, rep.run(inputs), rtol=case.rtol, atol=case.atol)


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_onnx_backend_case(case: Case, kernels: str) -> None:
    reason = EXPECTED.get(case.name)
    if reason is None:
        run_case(case, kernels)
        return
    try:
        run_case(case, kernels)
    except CLEAN_REFUSALS as err:
        message = str(err)
        detail = reason.partition(": ")[2]
        assert "\n" not in message and "internal error" not in message, message
        assert detail in message, f"refused for another reason than listed: {message}"
    except AssertionError as err:
        pytest.fail(f"a wrong result, listed as '{reason}': {str(err).strip()}")
    else:
        pytest.fail(f"passes now: remove it from {EXPECTED_FAILURES.name}")
