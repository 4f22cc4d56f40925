"""What the model importers share: errors, the imported model, parameter files, names,
and the allocation limit. The weights' values travel beside the IR, in an ``.npz``
keyed by the parameter names (:func:`save_params`, :func:`load_params`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from os import PathLike
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xrelax.backends.vm.builtins import alloc_tensor_direct
from xrelax.backends.vm.error import AllocationError

# ----------------------------------------------------------------------------- errors


class FrontendError(Exception):
    """A model the importer cannot translate; the message is one line."""


class Unsupported(Exception):
    """Raised by an operator converter: this operator, or this use of it, is not supported.

    ``what`` names it as the report lists it (``aten.foo.default``, ``Foo``, or the
    operator with the unsupported attribute: ``aten.sdpa.default (is_causal=True)``).
    """

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class UnsupportedOperatorsError(FrontendError):
    """Every unsupported operator of a model, by name and number of nodes."""

    def __init__(self, framework: str, counts: Mapping[str, int]) -> None:
        self.counts = dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
        nodes = sum(self.counts.values())
        listed = ", ".join(f"{name} ({count})" for name, count in self.counts.items())
        kinds = len(self.counts)
        super().__init__(
            f"{kinds} unsupported {framework} operator{'s' if kinds > 1 else ''} "
            f"in {nodes} node{'s' if nodes > 1 else ''}: {listed}"
        )


# ----------------------------------------------------------------------------- results


@dataclass
class ImportedModel:
    """A relax module with one function ``main`` and the values of its weight parameters."""

    module: ModuleOp
    params: dict[str, np.ndarray]
    """The weights, keyed by parameter name, in parameter order."""
    inputs: list[str]
    """The names of the parameters that are model inputs (they come first)."""
    written_inputs: list[str] = field(default_factory=list)
    """The model inputs the model writes in place (``x.add_(1)``), in input order: the
    function returns their new values first, then the model's outputs."""

    def text(self) -> str:
        """The module's textual form."""
        return str(self.module) + "\n"


def load_params(path: str | PathLike[str]) -> dict[str, np.ndarray]:
    """The weights an importer saved (``relax-import --params-out``), keyed by parameter
    name: pass them to the VM as keyword arguments, ``vm["main"](x, **params)``."""
    with np.load(path, allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def save_params(path: str | PathLike[str], params: Mapping[str, np.ndarray]) -> None:
    """Write weights keyed by parameter name to an ``.npz``."""
    np.savez(path, **{name: np.asarray(value) for name, value in params.items()})


# ----------------------------------------------------------------------------- names

_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")
_NUMBER_SUFFIX = re.compile(r"_(\d+)$")


def sanitize_name(name: str) -> str:
    """``name`` as an SSA name that prints as itself: other characters become ``_``
    (``fc1.weight`` -> ``fc1_weight``), a leading digit gets a ``_``, and a final
    ``_<digits>`` (which MLIR printers treat as a uniquing suffix) loses its ``_``
    (``layers.0`` -> ``layers0``, ``1`` -> ``v1``)."""
    text = _NOT_NAME.sub("_", name) or "_"
    text = f"_{text}" if text[0].isdigit() else text
    return _NUMBER_SUFFIX.sub(r"\1", text) if not _NUMBER_SUFFIX.fullmatch(text) else f"v{text[1:]}"


class Names:
    """Hands out distinct identifiers: a taken name gets a ``_v1``, ``_v2``, ... suffix."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.taken = set(reserved)

    def unique(self, name: str) -> str:
        """A free identifier derived from ``name``; it is taken from now on."""
        base = sanitize_name(name)
        candidate, index = base, 1
        while candidate in self.taken:
            candidate, index = f"{base}_v{index}", index + 1
        self.taken.add(candidate)
        return candidate


# ----------------------------------------------------------------------------- allocation


def check_allocation(elements: int, dtype: Any, what: str) -> None:
    """Refuse a value of ``elements`` elements of ``dtype`` that the VM would not
    allocate (an import-time fold, a weight), before anything allocates it: the VM's
    own allocation builtin is asked for the bytes (an untouched allocation, released
    at once), so an importer and the VM refuse the same sizes."""
    nbytes = elements * np.dtype(dtype).itemsize
    try:
        alloc_tensor_direct((nbytes,), "uint8")
    except AllocationError:
        raise FrontendError(
            f"{what} would take {nbytes} bytes, more than the VM allocates"
        ) from None
