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

import xdsl


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
        reason = describe_exception(err, resolved)
        raise PluginError(f"cannot load {what} '{path}': {reason}") from err
    return module


def describe_exception(err: Exception, filename: str | None = None) -> str:
    """``Type: message (line N)``: N is the last line of ``filename`` that raised it;
    without ``filename``, ``(FILE:N)`` names the innermost frame outside xrelax and
    xDSL (the user's code that raised it)."""
    if isinstance(err, SyntaxError):
        return f"SyntaxError: {err.msg} (line {err.lineno})"
    text = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}".rstrip(": ")
    frames = traceback.extract_tb(err.__traceback__)
    if filename is not None:
        lines = [f.lineno for f in frames if f.filename == filename]
        return f"{text} (line {lines[-1]})" if lines else text
    user = [f for f in frames if not _is_library_file(f.filename)]
    return f"{text} ({os.path.basename(user[-1].filename)}:{user[-1].lineno})" if user else text


_XRELAX_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
_LIBRARY_DIRS = (
    _XRELAX_DIR + os.sep,
    os.path.dirname(os.path.realpath(str(xdsl.__file__))) + os.sep,
)


def _is_library_file(filename: str) -> bool:
    return os.path.realpath(filename).startswith(_LIBRARY_DIRS)
