"""Text transformers (``text_models.TEXT_ZOO``): each exported with ``torch.export``
(dynamic batch and sequence length), imported on both paths — the ExportedProgram and
the ONNX model ``torch.onnx.export`` makes — compiled once, and compared against torch
eager at two sizes of every dynamic dimension.

Where torch's own tools fail, the test pins the evidence instead: ``run_decompositions``
of GPT-2 raises in torch; T5's ONNX export raises in torch; and the ONNX graphs of the
causal LMs (GPT-2, Llama) differ from eager when the mask pads a row, where
onnxruntime computes what xrelax computes.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnxruntime = pytest.importorskip("onnxruntime")
try:
    import transformers  # noqa: F401
except ModuleNotFoundError:
    pytest.fail("the text models need transformers: pip install -e '.[models]'")

from model_zoo import to_onnx  # noqa: E402
from text_models import TEXT_ZOO, informative  # noqa: E402
from torch_models import compiled_main  # noqa: E402

from xrelax import frontend  # noqa: E402

TOLERANCE = {"rtol": 1e-3, "atol": 1e-4}
SIGNIFICANT = 1e-2
"""The mean magnitude eager outputs must reach, far above the tolerance."""

DECOMPOSED = ("llama",)
"""Models also imported in their ``run_decompositions()`` form (scalar_tensor, full,
bitwise_and, _safe_softmax, ...); the others decompose to the same operators."""

PADDED_ONNX_DIFFERS = ("gpt2", "llama")
"""Causal LMs whose ONNX graph (torch's exporter) differs from eager on a padded mask."""


@functools.cache
def _exported(name: str) -> tuple[Any, Any]:
    model = TEXT_ZOO[name].model()
    return model, TEXT_ZOO[name].export(model)


@functools.cache
def _onnx(name: str) -> Any:
    model, _ = _exported(name)
    case = TEXT_ZOO[name]
    return to_onnx(model, case.inputs(0), case.dynamic_shapes())


def _eager(model: Any, inputs: tuple) -> np.ndarray:
    with torch.no_grad():
        expected = model(*inputs).numpy()
    assert np.abs(expected).mean() > SIGNIFICANT, "eager output too close to zero"
    return expected


def _check(name: str, imported: Any) -> None:
    model, _ = _exported(name)
    main = compiled_main(imported.module)
    for size in (1, 2):
        inputs = TEXT_ZOO[name].inputs(size)
        got = main(*(t.numpy() for t in inputs), **imported.params)
        np.testing.assert_allclose(got, _eager(model, inputs), **TOLERANCE)


@pytest.mark.parametrize("name", list(TEXT_ZOO))
def test_torch_export_matches_eager(name: str) -> None:
    _, program = _exported(name)
    _check(name, frontend.from_exported_program(program))


@pytest.mark.parametrize("name", DECOMPOSED)
def test_decomposed_program_matches_eager(name: str) -> None:
    _, program = _exported(name)
    _check(name, frontend.from_exported_program(program.run_decompositions()))


def test_decomposing_gpt2_fails_in_torch() -> None:
    _, program = _exported("gpt2")
    with pytest.raises(ValueError, match="Cannot view a tensor with shape"):
        program.run_decompositions()


@pytest.mark.parametrize("name", [n for n in TEXT_ZOO if n != "t5"])
def test_onnx_matches_eager(name: str) -> None:
    imported = frontend.from_onnx(_onnx(name))
    if name not in PADDED_ONNX_DIFFERS:
        _check(name, imported)
        return
    model, _ = _exported(name)
    main = compiled_main(imported.module)
    session = onnxruntime.InferenceSession(_onnx(name).SerializeToString())
    for size in (1, 2):
        ids, mask = TEXT_ZOO[name].inputs(size)
        # Unpadded, the exporter's graph is eager's.
        full = torch.ones_like(mask)
        got = main(ids.numpy(), full.numpy(), **imported.params)
        np.testing.assert_allclose(got, _eager(model, (ids, full)), **TOLERANCE)
        # Padded, it is not, and onnxruntime agrees with xrelax: the exporter's.
        got = main(ids.numpy(), mask.numpy(), **imported.params)
        names = [i.name for i in session.get_inputs()]
        feed = dict(zip(names, (ids.numpy(), mask.numpy()), strict=True))
        (runtime,) = session.run(None, feed)
        np.testing.assert_allclose(got, runtime, **TOLERANCE)
        assert not np.allclose(runtime, _eager(model, (ids, mask)), **TOLERANCE)


def test_onnx_export_of_t5_fails_in_torch() -> None:
    model, _ = _exported("t5")
    case = TEXT_ZOO["t5"]
    with warnings.catch_warnings(), pytest.raises(Exception, match="Failed to decompose"):
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model, case.inputs(0), dynamo=True, dynamic_shapes=case.dynamic_shapes(),
            verbose=False,
        )  # fmt: skip


def test_informative_perturbs_constant_parameters() -> None:
    norm = informative(torch.nn.LayerNorm(4))
    assert not torch.all(norm.weight == 1) and not torch.all(norm.bias == 0)
