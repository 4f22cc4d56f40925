"""xrelax as an ONNX backend (``onnx.backend.base.Backend``), the interface onnx's own
conformance suite (``onnx.backend.test.BackendTest``) and other ONNX tools drive:

```python
from xrelax.tools.onnx_backend import XrelaxBackend
rep = XrelaxBackend.prepare(model, "CPU")   # import, compile with the default pipeline
outputs = rep.run([x])                      # run on the VM: one array per graph output
```

A model the importer refuses raises its :class:`~xrelax.frontend.FrontendError` from
``prepare``; a failure while compiling or running raises ``xrelax.CompileError`` or
``xrelax.VMError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep

import xrelax
from xrelax.frontend.common import ImportedModel
from xrelax.frontend.onnx import from_onnx


class XrelaxBackendRep(BackendRep):
    """A model imported and compiled for the VM; :meth:`run` calls its ``main``."""

    def __init__(
        self, imported: ImportedModel, model: onnx.ModelProto, kernels: str | None = None
    ) -> None:
        self.imported = imported
        weights = {tensor.name for tensor in model.graph.initializer}
        self.input_names = [v.name for v in model.graph.input if v.name not in weights]
        self.output_names = [value.name for value in model.graph.output]
        exe = xrelax.compile(imported.module, kernels=kernels)
        self.main = xrelax.VirtualMachine(exe, kernels=kernels)["main"]

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """The graph outputs for ``inputs``: a list in graph input order (initializers
        left out), a mapping by input name, or one array."""
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if isinstance(inputs, Mapping):
            arguments = [inputs[name] for name in self.input_names]
        else:
            arguments = list(inputs)
        # 0-d inputs often come as numpy scalars: the VM takes arrays.
        arguments = [np.asarray(value) for value in arguments]
        result = self.main(*arguments, **self.imported.params)
        results = (result,) if len(self.output_names) == 1 else tuple(result)
        return tuple(np.asarray(value) for value in results)


class XrelaxBackend(Backend):
    """Imports ONNX models with :func:`xrelax.frontend.from_onnx`, compiles them with
    :func:`xrelax.compile` and runs them on :class:`xrelax.VirtualMachine` (CPU)."""

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> BackendRep:
        """Import and compile ``model``; ``kernels="numpy"|"native"`` picks the kernel
        backend (default: ``$XRELAX_KERNELS``, else numpy)."""
        if not cls.supports_device(device):
            raise ValueError(f"xrelax runs on the CPU, not on {device}")
        imported = from_onnx(model)
        return XrelaxBackendRep(imported, model, kwargs.get("kernels"))

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """Only ``CPU``."""
        return device == "CPU"


prepare = XrelaxBackend.prepare
run_model = XrelaxBackend.run_model
supports_device = XrelaxBackend.supports_device
