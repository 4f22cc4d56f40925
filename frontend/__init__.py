"""Importers of trained models: ``torch.export`` programs and ONNX models.

```python
from xrelax import frontend
imported = frontend.import_model("model.pt2")     # or .onnx; an ImportedModel
frontend.save_params("weights.npz", imported.params)
...
params = frontend.load_params("weights.npz")
y = vm["main"](x, **params)
```

torch and onnx are optional: this package imports without them, and
:func:`from_exported_program` / :func:`from_onnx` import them when called.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Any

from xrelax.frontend.common import (
    FrontendError,
    ImportedModel,
    UnsupportedOperatorsError,
    load_params,
    save_params,
)

FORMATS = {".pt2": "torch", ".onnx": "onnx"}
"""Model file suffixes and the importer each one needs."""


def from_exported_program(program: Any) -> ImportedModel:
    """Import a ``torch.export`` ExportedProgram (see :mod:`xrelax.frontend.torch`)."""
    from xrelax.frontend.torch import from_exported_program as convert

    return convert(program)


def from_onnx(model: Any) -> ImportedModel:
    """Import an ONNX ``ModelProto`` or ``.onnx`` path (see :mod:`xrelax.frontend.onnx`);
    a path's external data must lie inside the model's folder."""
    from xrelax.frontend.onnx import from_onnx as convert

    return convert(model)


def import_model(path: str | PathLike[str], trust_pickle: bool = False) -> ImportedModel:
    """Import a model file: a ``.pt2`` (``torch.export.save``) or an ``.onnx``.

    A ``.pt2`` whose loading would run code from the file (pickled weights or objects,
    compiled code, expressions torch evaluates) is refused with
    :class:`~xrelax.frontend.model_files.UntrustedModelError` unless ``trust_pickle``
    (see :mod:`xrelax.frontend.model_files`).
    """
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise FrontendError(f"'{path}': expected a .pt2 or .onnx model, got '{suffix or path}'")
    module = FORMATS[suffix]
    try:
        if module == "torch":
            import torch  # noqa: F401 - its absence is reported below
        else:
            import onnx  # noqa: F401
    except ModuleNotFoundError as err:
        extra = "torch" if module == "torch" else "onnx"
        raise FrontendError(
            f"importing '{path}' needs the '{err.name}' package: pip install 'xrelax[{extra}]'"
        ) from None
    from xrelax.frontend.model_files import load_exported_program

    if module == "torch":
        return from_exported_program(load_exported_program(path, trust_pickle))
    return from_onnx(path)


__all__ = [
    "FORMATS",
    "FrontendError",
    "ImportedModel",
    "UnsupportedOperatorsError",
    "from_exported_program",
    "from_onnx",
    "import_model",
    "load_params",
    "save_params",
]
