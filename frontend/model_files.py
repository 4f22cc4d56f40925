"""Opening model files without running code from them.

A ``.pt2`` archive is inspected before torch sees it: ``torch.export.load`` unpickles
weights and constants marked ``use_pickle`` (with ``weights_only=False``), custom and
opaque object constants, the pickled sample inputs and legacy weight files (retrying
with ``weights_only=False`` when the safe loader refuses them), loads the shared
libraries of AOTInductor entries, and evaluates the symbolic expressions of the
program (``sympy.sympify``, which is ``eval``). Each of these is refused unless the
caller trusts the file (``trust_pickle=True``, ``relax-import --trust-pickle``); the
pickles torch loads are first checked with torch's safe loader
(``weights_only=True``), and torch then loads the very bytes that were checked.

An ONNX model's external data must lie inside the model's directory: no absolute
paths, no ``..``, no symbolic link leading out; this is checked before onnx reads it.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import logging
import os
import warnings
import zipfile
from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from typing import Any

from xrelax.frontend.common import FrontendError

TRUST_HINT = (
    "if you trust the file, pass --trust-pickle to relax-import "
    "(trust_pickle=True in xrelax.frontend.import_model)"
)


class UntrustedModelError(FrontendError):
    """Loading the model would run code from the file, and the caller did not trust it."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(f"'{path}' {what}, which would run code from the file; {TRUST_HINT}")


# ---------------------------------------------------------------------------- .pt2

_MAX_EXPANSION = 100
"""A zip entry may not expand to more than this many times its compressed size (plus
1 MB): a few kilobytes must not claim gigabytes of memory."""

_SYMPY_CALLS = frozenset(
    {
        "Symbol", "Integer", "Rational", "Float", "Add", "Mul", "Pow", "Mod", "Max", "Min",
        "Abs", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not", "true", "false",
        "BooleanTrue", "BooleanFalse", "Piecewise", "ExprCondPair", "Tuple", "oo", "zoo",
        "nan", "Infinity", "NegativeInfinity", "FloorDiv", "ModularIndexing", "Where",
        "PythonMod", "CleanDiv", "CeilToInt", "FloorToInt", "CeilDiv", "IntTrueDiv",
        "FloatTrueDiv", "ToFloat", "TruncToFloat", "TruncToInt", "RoundToInt",
        "RoundDecimal", "PowByNatural", "FloatPow", "Identity", "OpaqueUnaryFn_sqrt",
        "IsNonOverlappingAndDenseIndicator", "BitwiseFn_bitwise_and",
        "BitwiseFn_bitwise_or", "BitwiseFn_bitwise_xor", "LShift", "RShift",
    }
)  # fmt: skip
"""The functions a symbolic expression of a torch.export program may call: sympy's
constructors (expressions are serialised with ``srepr``) and torch's sympy functions."""


def load_exported_program(path: str | PathLike[str], trust_pickle: bool = False) -> Any:
    """The ``torch.export`` program saved at ``path``, refused (:class:`UntrustedModelError`)
    when loading it would run code from the file, unless ``trust_pickle``."""
    import torch

    name = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise FrontendError(f"cannot open '{name}': {err.strerror}") from None
    if not trust_pickle:
        check_pt2(data, name)
    try:
        with _quiet_torch():
            return torch.export.load(io.BytesIO(data))
    except Exception as err:  # noqa: BLE001 - torch raises anything from a bad archive
        detail = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise FrontendError(
            f"cannot load '{name}' as a torch.export program: {type(err).__name__}: {detail}"
        ) from None


@contextlib.contextmanager
def _quiet_torch() -> Iterator[None]:
    """Silence torch's own logging of a failed load (it prints a traceback) and its
    warnings: the importer reports one line."""
    loggers = [logging.getLogger(n) for n in ("torch.export", "torch._export")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def check_pt2(data: bytes, path: str) -> None:
    """Refuse a ``.pt2`` archive ``data`` that is malformed (:class:`FrontendError`) or
    whose loading would run code from it (:class:`UntrustedModelError`)."""
    from torch.export.pt2_archive import constants as pt2

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise FrontendError(f"'{path}' is not a .pt2 archive (not a zip file: {err})") from None
    for entry in entries:
        if entry.file_size > _MAX_EXPANSION * entry.compress_size + 2**20:
            raise FrontendError(
                f"'{path}': archive entry '{entry.filename}' expands {entry.compress_size} "
                f"bytes to {entry.file_size}"
            )
    if "version" in archive.namelist():
        # torch.export.load falls back to this format, all pickles, when the other fails
        raise UntrustedModelError(path, "is in the torch.export format of torch < 2.8")
    root = _archive_root(archive, pt2.ARCHIVE_VERSION_PATH)
    if root is None:
        raise FrontendError(f"'{path}' is not a torch.export archive (no archive_version)")
    names = {n[len(root) :]: n for n in archive.namelist() if n.startswith(root)}
    if any(n.startswith(pt2.AOTINDUCTOR_DIR) for n in names):
        raise UntrustedModelError(path, "holds AOTInductor code (shared libraries)")
    prefix, suffix = pt2.MODELS_FILENAME_FORMAT.split("{}")
    models = [
        n[len(prefix) : -len(suffix)]
        for n in names
        if n.startswith(prefix) and n.endswith(suffix) and len(n) > len(prefix) + len(suffix)
    ]
    if not models:
        raise FrontendError(f"'{path}' holds no exported program")
    read = _reader(archive, names, path)
    for model in models:
        _check_expressions(_json(read(pt2.MODELS_FILENAME_FORMAT.format(model)), path), path)
        _check_payloads(read, names, pt2, model, path)
        _check_safe_pickle(read(pt2.SAMPLE_INPUTS_FILENAME_FORMAT.format(model)), path)


def _archive_root(archive: zipfile.ZipFile, version_path: str) -> str | None:
    for name in archive.namelist():
        if name == version_path or name.endswith("/" + version_path):
            return name[: len(name) - len(version_path)]
    return None


def _reader(archive: zipfile.ZipFile, names: dict[str, str], path: str) -> Any:
    def read(name: str) -> bytes:
        if name not in names:
            raise FrontendError(f"'{path}': the archive has no '{name}'")
        try:
            return archive.read(names[name])
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
            raise FrontendError(f"'{path}': cannot read '{name}': {err}") from None

    return read


def _json(data: bytes, path: str) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as err:
        raise FrontendError(f"'{path}': malformed JSON in the archive: {err}") from None


def _check_payloads(read: Any, names: dict[str, str], pt2: Any, model: str, path: str) -> None:
    """Weights and constants: no pickles, no custom or opaque objects, and a legacy
    weight or constant file only if the safe loader takes it."""
    for directory, config_format in (
        (pt2.WEIGHTS_DIR, pt2.WEIGHTS_CONFIG_FILENAME_FORMAT),
        (pt2.CONSTANTS_DIR, pt2.CONSTANTS_CONFIG_FILENAME_FORMAT),
    ):
        legacy = f"{directory}{model}.pt"
        if legacy in names:
            _check_safe_pickle(read(legacy), path)
            continue
        config_name = config_format.format(model)
        if config_name not in names:
            continue
        config = _json(read(config_name), path)
        entries = config.get("config", {}) if isinstance(config, dict) else {}
        for fqn, meta in entries.items() if isinstance(entries, dict) else ():
            meta = meta if isinstance(meta, dict) else {}
            if meta.get("use_pickle"):
                raise UntrustedModelError(path, f"holds '{fqn}' as a pickle")
            file = str(meta.get("path_name", ""))
            if file.startswith((pt2.CUSTOM_OBJ_FILENAME_PREFIX, pt2.OPAQUE_OBJ_FILENAME_PREFIX)):
                raise UntrustedModelError(path, f"holds '{fqn}' as a pickled object")


def _check_safe_pickle(data: bytes, path: str) -> None:
    """torch loads these pickles with ``weights_only=True`` and retries with
    ``weights_only=False`` when that fails: only what the safe loader takes is loaded."""
    import torch

    if not data:
        return
    try:
        with _quiet_torch():
            torch.load(io.BytesIO(data), weights_only=True)
    except Exception:  # noqa: BLE001 - any refusal means torch would retry unsafely
        raise UntrustedModelError(path, "holds a pickle that torch's safe loader refuses") from None


def _check_expressions(program: Any, path: str) -> None:
    """Every ``expr_str`` (torch evaluates it with ``sympy.sympify``) is a plain sympy
    expression: calls of known functions, names, constants and arithmetic."""
    stack = [program]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "expr_str" and isinstance(item, str):
                    _check_expression(item, path)
                else:
                    stack.append(item)
        elif isinstance(value, list):
            stack.extend(value)


_ALLOWED_NODES = (
    ast.Expression, ast.Call, ast.Name, ast.Constant, ast.keyword, ast.Load, ast.BinOp,
    ast.UnaryOp, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.USub,
    ast.UAdd, ast.Tuple,
)  # fmt: skip
_POWERS = frozenset({"Pow", "PowByNatural", "FloatPow"})
_MAX_EXPONENT = 64
"""sympy evaluates a power of numbers exactly: ``Pow(Integer(10), Integer(10**9))`` would
not finish. Exponents written as numbers are at most this."""


def _check_expression(text: str, path: str) -> None:
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise UntrustedModelError(path, "holds a symbolic expression that is not Python") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise UntrustedModelError(
                path, f"holds a symbolic expression with {type(node).__name__} nodes"
            )
        callee = node.func if isinstance(node, ast.Call) else None
        if callee is not None and not (isinstance(callee, ast.Name) and callee.id in _SYMPY_CALLS):
            shown = callee.id if isinstance(callee, ast.Name) else "an attribute or a result"
            raise UntrustedModelError(path, f"holds a symbolic expression calling {shown}")
        if isinstance(callee, ast.Name) and callee.id in _POWERS and len(node.args) == 2:
            exponent = _number(node.args[1])
            if exponent is not None and abs(exponent) > _MAX_EXPONENT:
                raise FrontendError(f"'{path}' holds a symbolic power {exponent} too large")
        if isinstance(node, ast.Name) and node.id.startswith("_"):
            raise UntrustedModelError(path, f"holds a symbolic expression naming {node.id}")


def _number(node: ast.AST) -> int | float | None:
    """The value of ``3`` or ``Integer(3)``, else None."""
    if isinstance(node, ast.Call) and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _number(node.operand)
        return None if value is None else -value
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return float(node.value)
        except ValueError:
            return None
    return None


# ---------------------------------------------------------------------------- .onnx


def load_onnx_model(path: str | PathLike[str]) -> Any:
    """The ONNX model at ``path`` with its external data, which must lie inside the
    model's directory (checked before anything is read from it)."""
    import onnx

    name = os.fspath(path)
    try:
        model = onnx.load(name, load_external_data=False)
    except OSError as err:
        raise FrontendError(f"cannot open '{name}': {err.strerror}") from None
    except Exception as err:  # noqa: BLE001 - protobuf's DecodeError has no stable import path
        raise FrontendError(f"cannot load '{name}' as an ONNX model: {err}") from None
    base = Path(name).resolve().parent
    try:
        tensors = list(_external_tensors(model))
    except RecursionError:
        raise FrontendError(f"'{name}': subgraphs nested too deeply") from None
    for tensor in tensors:
        check_external_location(_location(tensor), base, name, tensor.name)
    try:
        onnx.load_external_data_for_model(model, str(base))
    except (OSError, ValueError) as err:
        raise FrontendError(f"'{name}': cannot read external data: {err}") from None
    return model


def _external_tensors(model: Any) -> Iterator[Any]:
    from onnx import TensorProto
    from onnx.external_data_helper import _get_all_tensors

    for tensor in _get_all_tensors(model):
        if tensor.HasField("data_location") and tensor.data_location == TensorProto.EXTERNAL:
            yield tensor


def _location(tensor: Any) -> str:
    return next((e.value for e in tensor.external_data if e.key == "location"), "")


def check_external_location(location: str, base: Path, path: str, tensor: str) -> None:
    """Refuse an external data ``location`` that leads outside ``base`` (the model's
    resolved directory): absolute, through ``..``, or through a symbolic link."""
    where = f"'{path}': external data of tensor '{tensor}' at '{location}'"
    if not location:
        raise FrontendError(f"{where}: no location")
    if os.path.isabs(location) or Path(location).drive:
        raise FrontendError(f"{where}: an absolute path (it must be inside the model's folder)")
    if ".." in Path(location).parts:
        raise FrontendError(f"{where}: goes up with '..' (it must be inside the model's folder)")
    resolved = (base / location).resolve()
    if not resolved.is_relative_to(base):
        raise FrontendError(f"{where}: a symbolic link leads outside the model's folder")
    if not resolved.is_file():
        raise FrontendError(f"{where}: no such file")
