"""Loading the Python files that extend xrelax from the command line: pass plugins
(``--load-pass-plugin``, see :func:`xrelax.transforms.load_pass_plugin`) and packed
functions (``relax-run --load-packed``)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import traceback
from types import ModuleType


class PluginError(Exception):
    """A file that cannot be loaded; the message is one line."""


def load_python_file(path: str, what: str) -> ModuleType:
    """Execute the Python file ``path`` as a module of its own (``what`` names it in
    errors, e.g. "pass plugin"); any failure is a :class:`PluginError` saying where.

    The module is named after the file's resolved path, so loading a file twice
    defines its classes under the same qualified names again.
    """
    resolved = os.path.realpath(path)
    if not os.path.isfile(resolved):
        raise PluginError(f"cannot load {what} '{path}': no such file")
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(resolved))[0])
    digest = hashlib.sha1(resolved.encode()).hexdigest()[:8]
    module_name = f"xrelax_plugin_{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, resolved)
    if spec is None or spec.loader is None:
        raise PluginError(f"cannot load {what} '{path}': not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # noqa: BLE001 - whatever the file raises is reported in one line
        del sys.modules[module_name]
        raise PluginError(f"cannot load {what} '{path}': {_describe(err, resolved)}") from err
    return module


def _describe(err: Exception, filename: str) -> str:
    """``Type: message (line N)``, N being the file's line that raised it."""
    if isinstance(err, SyntaxError):
        return f"SyntaxError: {err.msg} (line {err.lineno})"
    text = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}".rstrip(": ")
    lines = [f.lineno for f in traceback.extract_tb(err.__traceback__) if f.filename == filename]
    return f"{text} (line {lines[-1]})" if lines else text
