"""Opening model files without running code from them.

A ``.pt2`` archive is inspected before torch sees it: ``torch.export.load`` unpickles
weights and constants marked ``use_pickle`` (with ``weights_only=False``), custom and
opaque object constants, the pickled sample inputs and legacy weight files (retrying
with ``weights_only=False`` when the safe loader refuses them), loads the shared
libraries of AOTInductor entries, and evaluates the symbolic expressions of the
program (``sympy.sympify``, which is ``eval``). Each of these is refused unless the
caller trusts the file (``trust_pickle=True``, ``relax-import --trust-pickle``): the
pickles torch loads are first checked with torch's safe loader
(``weights_only=True``), the symbolic expressions with :func:`parse_size_expression`,
our parser of integer expressions over sizes (which builds them from sympy's and torch's
constructors: evaluating one it accepts calls those and nothing else), and torch then
loads the very bytes that were checked.

An ONNX model's external data must lie inside the model's directory: no absolute
paths, no ``..``, no symbolic link leading out; this is checked before onnx reads it.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
import os
import re
import warnings
import zipfile
from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from typing import Any, NamedTuple

import sympy

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
    """Every symbolic expression of the program is an integer expression over sizes
    (:func:`parse_size_expression`): each ``expr_str`` (torch evaluates it with
    ``sympy.sympify``) and each key of ``range_constraints`` (in ``str`` form)."""
    texts: list[tuple[Any, bool]] = []
    stack = [program]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "expr_str":
                    texts.append((item, False))
                else:
                    stack.append(item)
        elif isinstance(value, list):
            stack.extend(value)
    ranges = program.get("range_constraints") if isinstance(program, dict) else None
    if isinstance(ranges, dict):
        texts.extend((key, True) for key in ranges)
    for text, bare_names in texts:
        try:
            parse_size_expression(text, bare_names=bare_names)
        except SizeExpressionError as err:
            shown = repr(text if len(str(text)) <= 80 else f"{str(text)[:77]}...")
            raise UntrustedModelError(
                path,
                f"holds the symbolic expression {shown}, not an integer expression over "
                f"sizes ({err}); torch evaluates these",
            ) from None


class SizeExpressionError(ValueError):
    """A symbolic expression that is not an integer expression over sizes; the message
    says what it holds instead."""


_MAX_LENGTH = 10_000
_MAX_NESTING = 64
_MAX_DIGITS = 20
_MAX_EXPONENT = 64
_MAX_POWER_BITS = 256
"""Bounds on an expression: its length, the depth of its nesting, the digits of a number,
an exponent, and the bits of a power of numbers (sympy computes those exactly: a few
bytes, ``Pow(Integer(10), Integer(10**9))``, would take minutes)."""

_TOKEN = re.compile(
    r"""\s*(?:(?P<int>\d+)|(?P<name>[A-Za-z_]\w*)|(?P<string>'[A-Za-z_]\w*'|"[A-Za-z_]\w*")"""
    r"""|(?P<op>\*\*|//|[-+*%(),=]))""",
    re.ASCII,
)
_ASSUMPTIONS = frozenset({"integer", "positive", "nonnegative", "negative", "nonpositive", "real"})
"""The keywords of ``Symbol`` (torch writes ``integer=True``, and ``positive=True`` for
the sizes of inputs)."""


_KINDS = {"int": "an integer", "bool": "a condition", "str": "a string"}


class _Value(NamedTuple):
    expr: Any
    kind: str
    """``int`` (an integer expression), ``bool`` (a relation) or ``str`` (a name)."""


def parse_size_expression(text: Any, *, bare_names: bool = False) -> Any:
    """The sympy expression that ``text`` spells, built by calling sympy's and torch's
    constructors (``text`` is never evaluated): an integer expression over size symbols,
    or a relation between such, in torch's ``srepr`` form
    (``FloorDiv(Symbol('s0', integer=True), Integer(2))``) with ``+ - * // % **`` and
    parentheses, and with ``bare_names`` in ``str`` form (``2*s0 + 1``). Raises
    :class:`SizeExpressionError` naming what else it holds."""
    if not isinstance(text, str):
        raise SizeExpressionError(f"not a string but {type(text).__name__}")
    if len(text) > _MAX_LENGTH:
        raise SizeExpressionError(f"{len(text)} characters")
    parser = _SizeParser(text, bare_names)
    value = parser.expression()
    if parser.peek() is not None:
        raise parser.unexpected()
    if value.kind == "str":
        raise SizeExpressionError("a string")
    return value.expr


class _SizeParser:
    """Recursive descent over the tokens of a size expression::

    expression := product (("+" | "-") product)*
    product    := unary (("*" | "//" | "%") unary)*
    unary      := "-" unary | atom ("**" unary)?
    atom       := INT | NAME "(" [argument ("," argument)*] ")" | NAME | "(" expression ")"
    argument   := STRING | NAME "=" NAME | expression
    """

    def __init__(self, text: str, bare_names: bool) -> None:
        self.bare_names = bare_names
        self.tokens: list[tuple[str, str, int]] = []
        position = 0
        while text[position:].strip():
            match = _TOKEN.match(text, position)
            if match is None:
                start = len(text) - len(text[position:].lstrip())
                if text[start] in "'\"":
                    raise SizeExpressionError(f"a string that is not a name at {start}")
                raise SizeExpressionError(f"{text[start]!r} at {start}")
            kind = match.lastgroup or ""
            self.tokens.append((kind, match.group(kind), match.start(kind)))
            position = match.end()
        self.index = 0
        self.depth = 0

    # ------------------------------------------------------------------ tokens

    def peek(self, ahead: int = 0) -> tuple[str, str, int] | None:
        index = self.index + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def at(self, *ops: str) -> bool:
        token = self.peek()
        return token is not None and token[0] == "op" and token[1] in ops

    def take(self) -> tuple[str, str, int]:
        token = self.peek()
        if token is None:
            raise SizeExpressionError("it ends too early")
        self.index += 1
        return token

    def expect(self, op: str) -> None:
        if not self.at(op):
            raise self.unexpected()
        self.index += 1

    def unexpected(self) -> SizeExpressionError:
        token = self.peek()
        if token is None:
            return SizeExpressionError("it ends too early")
        return SizeExpressionError(f"{token[1]!r} at {token[2]}")

    # ------------------------------------------------------------------ grammar

    def expression(self) -> _Value:
        value = self.product()
        while self.at("+", "-"):
            op = self.take()[1]
            lhs, rhs = self.integer(value, op).expr, self.integer(self.product(), op).expr
            if op == "-":
                rhs = self.build(op, sympy.Mul, sympy.Integer(-1), rhs)
            value = _Value(self.build(op, sympy.Add, lhs, rhs), "int")
        return value

    def product(self) -> _Value:
        value = self.unary()
        while self.at("*", "//", "%"):
            op = self.take()[1]
            function = {"*": sympy.Mul, "//": _torch_functions()["FloorDiv"]}.get(op)
            function = function or _torch_functions()["PythonMod"]
            lhs, rhs = self.integer(value, op), self.integer(self.unary(), op)
            value = _Value(self.build(op, function, lhs.expr, rhs.expr), "int")
        return value

    def unary(self) -> _Value:
        with self.nested():
            if self.at("-"):
                self.take()
                operand = self.integer(self.unary(), "-")
                return _Value(self.build("-", sympy.Mul, sympy.Integer(-1), operand.expr), "int")
            value = self.atom()
            if self.at("**"):
                self.take()
                return self.power("**", [value, self.unary()])
            return value

    def atom(self) -> _Value:
        kind, text, _ = self.take()
        if kind == "int":
            if len(text) > _MAX_DIGITS:
                raise SizeExpressionError(f"a number of {len(text)} digits")
            return _Value(sympy.Integer(int(text)), "int")
        if kind == "string":
            return _Value(text[1:-1], "str")
        if kind == "name" and self.at("("):
            self.take()
            return self.call(text)
        if kind == "name":
            if text in ("true", "false"):
                return _Value(sympy.true if text == "true" else sympy.false, "bool")
            if not self.bare_names:
                raise SizeExpressionError(f"the bare name {text}")
            return _Value(sympy.Symbol(text, integer=True), "int")
        if text == "(":
            value = self.expression()
            self.expect(")")
            return value
        self.index -= 1
        raise self.unexpected()

    def call(self, name: str) -> _Value:
        args: list[_Value] = []
        keywords: dict[str, bool] = {}
        while not self.at(")"):
            if args or keywords:
                self.expect(",")
            after = self.peek(1)
            if after is not None and after[:2] == ("op", "="):
                keyword = self.take()[1]
                self.take()
                value = self.take()[1]
                if value not in ("True", "False"):
                    raise SizeExpressionError(f"{name}({keyword}={value})")
                keywords[keyword] = value == "True"
            else:
                args.append(self.expression())
        self.take()
        if name == "Symbol":
            return self.symbol(args, keywords)
        if keywords:
            raise SizeExpressionError(f"{name} with keyword arguments")
        if name == "Integer":
            if len(args) != 1 or not (args[0].kind == "int" and args[0].expr.is_Integer):
                raise SizeExpressionError("Integer of something else than a number")
            return args[0]
        if name in ("Pow", "PowByNatural"):
            return self.power(name, args)
        function, kind, operands, count = _size_functions().get(name, (None, "", "", 0))
        if function is None:
            raise SizeExpressionError(f"{name} is not a size function")
        if len(args) < max(count, 1) or (count and len(args) > count):
            raise SizeExpressionError(f"{name} of {len(args)} arguments")
        checked = [self.operand(arg, name, operands) for arg in args]
        return _Value(self.build(name, function, *checked), kind)

    def symbol(self, args: list[_Value], keywords: dict[str, bool]) -> _Value:
        if len(args) != 1 or args[0].kind != "str":
            raise SizeExpressionError("Symbol of something else than a name")
        if not keywords.get("integer") or not keywords.keys() <= _ASSUMPTIONS:
            shown = "".join(f", {k}={v}" for k, v in keywords.items())
            raise SizeExpressionError(f"Symbol({args[0].expr!r}{shown}), not an integer symbol")
        return _Value(sympy.Symbol(args[0].expr, **keywords), "int")

    def power(self, name: str, args: list[_Value]) -> _Value:
        if len(args) != 2:
            raise SizeExpressionError(f"{name} of {len(args)} arguments")
        base, exponent = (self.integer(arg, name).expr for arg in args)
        if not (exponent.is_Integer and 0 <= exponent <= _MAX_EXPONENT):
            raise SizeExpressionError(f"the exponent {exponent} (0 to {_MAX_EXPONENT})")
        if base.is_Integer and abs(int(base)).bit_length() * int(exponent) > _MAX_POWER_BITS:
            raise SizeExpressionError(f"a power {base}**{exponent} too large")
        return _Value(self.build(name, sympy.Pow, base, exponent), "int")

    # ------------------------------------------------------------------ values

    def operand(self, value: _Value, name: str, kind: str) -> Any:
        if value.kind != kind:
            raise SizeExpressionError(f"{name} of {_KINDS[value.kind]} for {_KINDS[kind]}")
        return value.expr

    def integer(self, value: _Value, name: str) -> _Value:
        self.operand(value, name, "int")
        return value

    def build(self, name: str, function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except (TypeError, ValueError, ArithmeticError) as err:
            raise SizeExpressionError(f"{name}: {err}") from None

    @contextlib.contextmanager
    def nested(self) -> Iterator[None]:
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise SizeExpressionError(f"nested more than {_MAX_NESTING} deep")
        try:
            yield
        finally:
            self.depth -= 1


@functools.cache
def _torch_functions() -> dict[str, Any]:
    from torch.utils._sympy import functions

    names = ("FloorDiv", "CleanDiv", "CeilDiv", "Mod", "PythonMod")
    return {name: getattr(functions, name) for name in names}


@functools.cache
def _size_functions() -> dict[str, tuple[Any, str, str, int]]:
    """Function name -> (constructor, result kind, operand kind, number of operands, 0
    for any)."""
    torch_functions = _torch_functions()
    functions: dict[str, tuple[Any, str, str, int]] = {
        name: (function, "int", "int", 2) for name, function in torch_functions.items()
    }
    functions |= {
        "Add": (sympy.Add, "int", "int", 0),
        "Mul": (sympy.Mul, "int", "int", 0),
        "Max": (sympy.Max, "int", "int", 0),
        "Min": (sympy.Min, "int", "int", 0),
        "And": (sympy.And, "bool", "bool", 0),
        "Or": (sympy.Or, "bool", "bool", 0),
        "Not": (sympy.Not, "bool", "bool", 1),
    }
    for function in (sympy.Eq, sympy.Ne, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge):
        # srepr writes the class names: Equality, StrictLessThan, ...
        functions[function.__name__] = (function, "bool", "int", 2)
    return functions


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
