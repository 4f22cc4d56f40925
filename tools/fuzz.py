"""A seeded, deterministic mutation fuzzer of the whole toolchain (``relax-fuzz`` runs it).

Each mutant is a program of the corpus (the chunks of ``examples/*.mlir`` and
``test/**/*.mlir``) with one to three mutations: tokens deleted, duplicated or swapped,
numbers, element types and dimension expressions tweaked, names and operators replaced,
lines dropped or repeated, a bracket nested hundreds deep. It goes through parse and
verify, print and re-parse, ``relax-to-vm``, save and load of the executable, and, when
it compiles, a differential run of the VM against the reference interpreter on random
inputs that fit the signature (and some that do not: both must agree, or both refuse
with a clean error). Some mutants are instead corrupted or truncated saved executables
of the corpus, loaded and run.

Every mutant ends in one outcome:

=============  =========================================================================
``ok``         compiled and ran; VM and interpreter agree
``error``      refused with a clean error (``CompileError``, ``VMError``, the
               interpreter's error)
``internal``   any other Python exception (what the tools report as "internal error")
``mismatch``   VM and interpreter disagree (different values, or one refuses)
``roundtrip``  the printed IR does not parse back
``hang``       over the per-mutant time limit
``memory``     the peak memory grew by more than the limit
``crash``      the worker process died
=============  =========================================================================

Mutant ``i`` of seed ``s`` depends only on ``(s, i)`` and the corpus, so a finding is
reproduced with ``relax-fuzz --seed s --start i --count 1 --show``;
``Fuzzer(load_corpus(), seed).run(start, count)`` checks mutants in this process.
"""

from __future__ import annotations

import contextlib
import io
import math
import random
import re
import resource
import signal
import warnings
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

OUTCOMES = ("ok", "error", "internal", "mismatch", "roundtrip", "hang", "memory", "crash")
FAILURES = frozenset(OUTCOMES) - {"ok", "error"}
REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = (REPO / "examples", REPO / "test")
MEMORY_LIMIT_MB = 512
"""A mutant that raises the process's peak resident memory by more than this fails."""


# ------------------------------------------------------------------------------ corpus


@dataclass(frozen=True)
class Seed:
    """One program of the corpus: a chunk of a ``.mlir`` file, comment lines removed."""

    name: str
    text: str


class CorpusError(Exception):
    """The corpus cannot be read (a missing path, an unreadable file, no program)."""


def load_corpus(paths: Sequence[Path] = DEFAULT_CORPUS) -> list[Seed]:
    """The chunks (split on ``// -----``) of every ``.mlir`` file under ``paths``, sorted.
    Raises a one-line :class:`CorpusError` when a path is missing or unreadable or no
    program is found (the default corpus is installed with the package)."""
    files: list[Path] = []
    for path in paths:
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            try:
                files += sorted(path.rglob("*.mlir"))
            except OSError as err:
                raise CorpusError(f"cannot read corpus '{path}': {err.strerror}") from None
        elif path.exists():
            raise CorpusError(f"corpus '{path}' is neither a file nor a directory")
        else:
            raise CorpusError(f"corpus '{path}': no such file or directory")
    seeds = []
    for file in files:
        if "Output" in file.parts:
            continue
        try:
            source = file.read_text(errors="replace")
        except OSError as err:
            raise CorpusError(f"cannot read corpus file '{file}': {err.strerror}") from None
        for index, chunk in enumerate(re.split(r"^// -----\s*$", source, flags=re.M)):
            lines = [ln for ln in chunk.splitlines() if not ln.lstrip().startswith("//")]
            text = "\n".join(lines).strip()
            if text:
                seeds.append(Seed(f"{file.parent.name}/{file.name}#{index}", text + "\n"))
    if not seeds:
        where = ", ".join(f"'{p}'" for p in paths)
        raise CorpusError(f"no program in the corpus ({where}): it needs .mlir files")
    return seeds


# ---------------------------------------------------------------------------- mutation

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
    |(?P<str>"(?:[^"\\\n]|\\.)*")
    |(?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
    |(?P<name>[%^@!#]?[A-Za-z_$][\w$.]*|%\d+)
    |(?P<punct>->|.)""",
    re.X | re.S,
)
_NUMBERS = (0, 1, 2, 3, 7, 64, 255, 65536, 2**31 - 1, 2**31, 2**32, 2**40, 2**62, 2**63 - 1)
_NUMBERS += (2**63, 2**64, 10**30)
_DTYPES = ("f16", "f32", "f64", "bf16", "i1", "i8", "i16", "i32", "i64", "index", "?", "u8")
_TYPE_NAMES = ("!relax.tensor", "!relax.shape", "!relax.object", "!relax.tuple", "!tir.buffer")
_DIMS = (
    "n", "m", "k", "n * m", "n + 1", "n - 1", "n - 5", "floordiv(n, 2)", "floormod(n, 3)",
    "floordiv(n, 0)", "-1", "0", "1", "(n)", "min(n, m)", "max(n, 3)", "n * n * n", "2 * n",
    "4611686018427387904", "n * 1099511627776",
)  # fmt: skip


def tokenize(text: str) -> list[str]:
    """``text`` as tokens; joining them gives ``text`` back."""
    return [m.group(0) for m in _TOKEN.finditer(text)]


class Mutator:
    """The mutation operators; ``vocabulary`` supplies op names and names to splice in."""

    def __init__(self, vocabulary: Sequence[str]) -> None:
        self.vocabulary = sorted(set(vocabulary))
        self.operators = [
            self.delete,
            self.duplicate,
            self.swap,
            self.number,
            self.dtype,
            self.type_name,
            self.dims,
            self.splice,
            self.rename,
            self.lines,
            self.nest,
        ]

    def mutate(self, text: str, rng: random.Random) -> str:
        """``text`` with one to three mutations."""
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
            tokens = tokenize(text)
            if not tokens:
                break
            text = rng.choice(self.operators)(tokens, rng)
        return text

    @staticmethod
    def _pick(tokens: list[str], rng: random.Random, kind: str | None = None) -> int | None:
        indices = [
            i
            for i, t in enumerate(tokens)
            if not t.isspace() and (kind is None or _kind(t) == kind)
        ]
        return rng.choice(indices) if indices else None

    def delete(self, tokens: list[str], rng: random.Random) -> str:
        i = self._pick(tokens, rng)
        if i is not None:
            del tokens[i : i + rng.choice((1, 1, 1, 2, 3, 5))]
        return "".join(tokens)

    def duplicate(self, tokens: list[str], rng: random.Random) -> str:
        i = self._pick(tokens, rng)
        if i is not None:
            span = tokens[i : i + rng.choice((1, 1, 2, 4))]
            tokens[i:i] = span * rng.choice((1, 1, 2, 3))
        return "".join(tokens)

    def swap(self, tokens: list[str], rng: random.Random) -> str:
        i, j = self._pick(tokens, rng), self._pick(tokens, rng)
        if i is not None and j is not None:
            if rng.random() < 0.5:
                j = min(len(tokens) - 1, i + 2)
            tokens[i], tokens[j] = tokens[j], tokens[i]
        return "".join(tokens)

    def number(self, tokens: list[str], rng: random.Random) -> str:
        i = self._pick(tokens, rng, "num")
        if i is None:
            return self.dims(tokens, rng)
        value = rng.choice(_NUMBERS)
        if rng.random() < 0.3 and tokens[i].isdigit():
            value = max(0, int(tokens[i]) + rng.choice((-1, 1)))
        return _replace(tokens, i, f"-{value}" if rng.random() < 0.2 else str(value), rng)

    def dtype(self, tokens: list[str], rng: random.Random) -> str:
        indices = [i for i, t in enumerate(tokens) if t in _DTYPES]
        if not indices:
            return "".join(tokens)
        return _replace(tokens, rng.choice(indices), rng.choice(_DTYPES), rng)

    def type_name(self, tokens: list[str], rng: random.Random) -> str:
        indices = [i for i, t in enumerate(tokens) if t in _TYPE_NAMES]
        if not indices:
            return "".join(tokens)
        return _replace(tokens, rng.choice(indices), rng.choice(_TYPE_NAMES), rng)

    def dims(self, tokens: list[str], rng: random.Random) -> str:
        text = "".join(tokens)
        spans = [m.span(1) for m in re.finditer(r"\[([^\[\]\n]*)\]", text)]
        if not spans:
            return text
        start, end = rng.choice(spans)
        dims = [d.strip() for d in text[start:end].split(",")] if text[start:end].strip() else []
        choice = rng.random()
        if choice < 0.6 and dims:
            dims[rng.randrange(len(dims))] = rng.choice(_DIMS)
        elif choice < 0.8:
            dims.insert(rng.randrange(len(dims) + 1), rng.choice(_DIMS))
        elif dims:
            del dims[rng.randrange(len(dims))]
        if rng.random() < 0.5:
            # Everywhere the same list is written, so that types stay consistent.
            return text.replace(f"[{text[start:end]}]", f"[{', '.join(dims)}]")
        return text[:start] + ", ".join(dims) + text[end:]

    def splice(self, tokens: list[str], rng: random.Random) -> str:
        i = self._pick(tokens, rng)
        if i is not None:
            tokens.insert(i, rng.choice(self.vocabulary) if self.vocabulary else tokens[i])
            tokens.insert(i + 1, " ")
        return "".join(tokens)

    def rename(self, tokens: list[str], rng: random.Random) -> str:
        i = self._pick(tokens, rng, "name")
        if i is None:
            return "".join(tokens)
        same = [t for t in tokens if _kind(t) == "name" and t[:1] == tokens[i][:1]]
        same += [t for t in self.vocabulary if t[:1] == tokens[i][:1]]
        tokens[i] = rng.choice(same)
        return "".join(tokens)

    def lines(self, tokens: list[str], rng: random.Random) -> str:
        lines = "".join(tokens).splitlines(keepends=True)
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        choice = rng.random()
        if choice < 0.4:
            del lines[i]
        elif choice < 0.8:
            lines[i:i] = lines[i : i + rng.choice((1, 2, 3))] * rng.choice((1, 2, 50))
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines)

    def nest(self, tokens: list[str], rng: random.Random) -> str:
        """Nest a bracketed piece, or a type, very deeply."""
        text = "".join(tokens)
        depth = rng.choice((20, 200, 1000, 5000))
        brackets = [m.span() for m in re.finditer(r"\([^()\n]*\)|\[[^\[\]\n]*\]", text)]
        types = [m.span() for m in re.finditer(r"!relax\.tensor<[^<>\n]*>", text)]
        if types and (not brackets or rng.random() < 0.4):
            start, end = rng.choice(types)
            inner = text[start:end]
            wrapped = "!relax.tuple<" * depth + inner + ">" * depth
            return text[:start] + wrapped + text[end:]
        if not brackets:
            return text
        start, end = rng.choice(brackets)
        open_, close = text[start], text[end - 1]
        body = text[start + 1 : end - 1]
        if open_ == "[" and "," not in body and body.strip():
            body = "(" * depth + body + ")" * depth
            return text[:start] + "[" + body + "]" + text[end:]
        return text[:start] + open_ * depth + body + close * depth + text[end:]


def _replace(tokens: list[str], index: int, new: str, rng: random.Random) -> str:
    """Replace token ``index``, or (half of the time) every token equal to it, so that the
    types written at each use of a value stay consistent."""
    old = tokens[index]
    if rng.random() < 0.5:
        return "".join(new if t == old else t for t in tokens)
    tokens[index] = new
    return "".join(tokens)


def _kind(token: str) -> str:
    match = _TOKEN.fullmatch(token)
    return match.lastgroup if match else "punct"


def corpus_vocabulary(seeds: Sequence[Seed]) -> list[str]:
    """Op names and symbol names used in the corpus (what ``splice`` inserts)."""
    words: set[str] = set()
    for seed in seeds:
        for token in tokenize(seed.text):
            if _kind(token) == "name" and ("." in token or token[:1] in "@^"):
                words.add(token)
    return sorted(words)


def corrupt_executable(data: bytes, rng: random.Random) -> bytes:
    """A saved executable with bytes flipped, overwritten, inserted or cut off; usually
    with its header's length and checksum fixed so that the payload parser sees it."""
    from xrelax.backends.vm.executable import MAGIC

    header, payload = bytearray(data[:24]), bytearray(data[24:])
    for _ in range(rng.choice((1, 1, 2, 4))):
        if not payload:
            break
        pos = rng.randrange(len(payload))
        choice = rng.random()
        if choice < 0.3:
            payload[pos] ^= 1 << rng.randrange(8)
        elif choice < 0.55:
            width = rng.choice((4, 8))
            value = rng.choice((0, 1, 255, 2**31, 2**32 - 1, 2**40, 2**63 - 1, 2**64 - 1))
            payload[pos : pos + width] = (value % 2 ** (8 * width)).to_bytes(width, "little")
        elif choice < 0.7:
            del payload[pos : pos + rng.choice((1, 4, 8, 64))]
        elif choice < 0.85:
            payload[pos:pos] = payload[pos : pos + rng.choice((1, 8, 64))]
        else:
            del payload[pos:]
    if rng.random() < 0.9:
        header[12:24] = zlib.crc32(payload).to_bytes(4, "little") + len(payload).to_bytes(
            8, "little"
        )
    if rng.random() < 0.05:
        return (MAGIC + bytes(header[8:]) + bytes(payload))[: rng.randrange(40)]
    return bytes(header) + bytes(payload)


# ------------------------------------------------------------------------------ inputs


def random_inputs(
    types: Sequence[Any], rng: random.Random, consistent: bool = True
) -> list[Any] | None:
    """Random values of relax ``types`` (symbolic variables get one value each, 0-4);
    ``consistent=False`` breaks one dimension, rank or dtype. None when a type has no
    value to make (an unknown dtype of a tensor is f32)."""
    from xrelax.dialects.shapes import symbolic

    env: dict[str, int] = {}
    names = sorted({n for t in types for n in _type_vars(t)})
    for name in names:
        env[name] = rng.choice((1, 1, 2, 3, 4, 0))
    try:
        values = [_value(t, env, rng) for t in types]
    except (symbolic.SymbolicError, _NoValue, OverflowError, ValueError):
        return None
    if not consistent and values:
        k = rng.randrange(len(values))
        values[k] = _break(values[k], rng)
    return values


class _NoValue(Exception):
    pass


def _type_vars(type_: Any) -> set[str]:
    from xrelax.dialects.relax import type_free_vars

    return type_free_vars(type_)


def _value(type_: Any, env: dict[str, int], rng: random.Random) -> Any:
    from xrelax.dialects import dtypes
    from xrelax.dialects.relax import ObjectType, ShapeType, TensorType, TupleType
    from xrelax.dialects.shapes import symbolic

    if isinstance(type_, TupleType):
        return tuple(_value(t, env, rng) for t in type_.types)
    if isinstance(type_, ShapeType | TensorType):
        if type_.dims is not None:
            shape = tuple(symbolic.evaluate(d, env) for d in type_.dims)
        else:
            shape = tuple(rng.choice((1, 2, 3)) for _ in range(type_.ndim or rng.choice((0, 1, 2))))
        if any(d < 0 or d > 64 for d in shape) or math.prod(shape) > 1 << 16:
            raise _NoValue
        if isinstance(type_, ShapeType):
            return shape
        dtype = type_.known_dtype
        return _array(shape, dtypes.numpy_dtype(dtype) if dtype is not None else "float32", rng)
    if isinstance(type_, ObjectType):
        return _array((2,), np.dtype("float32"), rng)
    raise _NoValue


def _array(shape: tuple[int, ...], dtype: Any, rng: random.Random) -> np.ndarray:
    gen = np.random.default_rng(rng.getrandbits(32))
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return gen.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return gen.integers(-5, 6, shape).astype(dtype)
    return gen.standard_normal(shape).astype(dtype)


def _break(value: Any, rng: random.Random) -> Any:
    if isinstance(value, np.ndarray):
        choice = rng.random()
        if choice < 0.4 and value.ndim:
            shape = list(value.shape)
            shape[rng.randrange(len(shape))] += 1
            return _array(tuple(shape), value.dtype, rng)
        if choice < 0.7:
            return _array((*value.shape, 2), value.dtype, rng)
        return value.astype("int32" if value.dtype.kind == "f" else "float32")
    if isinstance(value, tuple) and value and all(isinstance(v, int) for v in value):
        return value[:-1]
    return np.zeros(3, "float32")


# ------------------------------------------------------------------------------ checking


@dataclass
class Outcome:
    """How one mutant ended: ``kind`` (one of :data:`OUTCOMES`), the step it ended in,
    and a one-line detail for failures."""

    kind: str
    step: str = ""
    detail: str = ""


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that no ``except Exception`` swallows it."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """No warnings, and what a mutant prints (``vm.builtin.print``) goes nowhere: a
    worker's stdout carries its results."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def _clean_errors() -> tuple[type[BaseException], ...]:
    from xrelax.backends.interpreter import InterpreterError
    from xrelax.backends.vm import VMError
    from xrelax.dialects.ir.diagnostics import CompileError

    return (CompileError, VMError, InterpreterError)


class _Step:
    """Tracks the step a mutant is in, for the outcome of an exception."""

    def __init__(self) -> None:
        self.name = "parse"


def check_program(text: str, rng: random.Random, name: str = "<fuzz>") -> Outcome:
    """Parse, verify, print/re-parse, compile, save/load and run ``text`` (VM against the
    interpreter); the outcome of the first step that fails."""
    step = _Step()
    try:
        return _check_program(text, rng, name, step)
    except _clean_errors() as err:
        return Outcome("error", step.name, _first_line(err))
    except _Mismatch as err:
        return Outcome("mismatch", step.name, str(err))
    except _RoundTrip as err:
        return Outcome("roundtrip", step.name, str(err))
    except _Timeout:
        raise
    except BaseException as err:  # noqa: BLE001 - every other exception is a finding
        if isinstance(err, KeyboardInterrupt | SystemExit):
            raise
        return Outcome("internal", step.name, f"{type(err).__name__}: {_first_line(err)}")


class _Mismatch(Exception):
    pass


class _RoundTrip(Exception):
    pass


def _check_program(text: str, rng: random.Random, name: str, step: _Step) -> Outcome:
    import xrelax
    from xrelax.backends.vm import Executable
    from xrelax.dialects.ir.diagnostics import CompileError
    from xrelax.dialects.relax import FuncOp

    module = xrelax.parse(text, name)
    step.name = "print"
    printed = xrelax.print_module(module)
    try:
        reprinted = xrelax.print_module(xrelax.parse(printed, name))
    except CompileError as err:
        raise _RoundTrip(f"printed IR does not parse: {_first_line(err)}") from None
    if reprinted != printed:
        pairs = zip(printed.splitlines(), reprinted.splitlines(), strict=False)
        line = next((a for a, b in pairs if a != b), "(a line added or removed)")
        raise _RoundTrip(f"printed IR changes when parsed and printed again: {line.strip()}")
    step.name = "compile"
    funcs = [op for op in module.ops if isinstance(op, FuncOp)]
    exe = xrelax.compile(module, "relax-to-vm" if funcs else "")
    step.name = "save"
    data = exe.to_bytes()
    if Executable.from_bytes(data) != exe:
        raise _RoundTrip("the executable changes through save and load")
    step.name = "load"
    vm = xrelax.VirtualMachine(exe)
    step.name = "run"
    entries = [f for f in funcs if f.sym_name.data in vm and not f.is_primitive][:2]
    for func in entries:
        types = func.function_type.inputs.data
        inputs = random_inputs(types, rng, consistent=rng.random() < 0.8)
        if inputs is not None and _small(module) and not _lowered(module):
            _differential(module, vm, func.sym_name.data, inputs, step)
    if not funcs:
        for entry in vm.functions()[:1]:
            with contextlib.suppress(_clean_errors()):
                vm[entry](*[np.ones(2, "float32")] * len(_params(exe, entry)))
    return Outcome("ok")


def _params(exe: Any, entry: str) -> tuple[str, ...]:
    return next(f.param_names for f in exe.global_funcs if f.name == entry)


def _small(module: Any) -> bool:
    """Whether every static tensor type of ``module`` is small enough to run: a mutant
    may declare a constant of billions of elements, which is no finding to run."""
    from xrelax.dialects.relax import TensorType

    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            type_ = value.type
            if isinstance(type_, TensorType) and type_.dims is not None:
                size = 1
                for dim in type_.dims:
                    size *= int(dim) if dim.is_Integer else 1
                if size > RUN_ELEMENT_LIMIT:
                    return False
    return True


def _lowered(module: Any) -> bool:
    """Whether ``module`` holds memory- or vm-level ops: lowered code carries its own
    run-time checks as ops (a mutant may have deleted them), so the VM and the
    interpreter, which checks every signature, need not agree on it."""
    return any(op.name.startswith(_LOWERED) for op in module.walk())


_LOWERED = ("vm.", "relax.builtin.", "relax.memory.", "relax.call_dps")
RUN_ELEMENT_LIMIT = 1 << 20
"""Mutants whose static tensor types have more elements than this are compiled, not run."""


def _differential(module: Any, vm: Any, entry: str, inputs: list[Any], step: _Step) -> None:
    import xrelax

    clean = _clean_errors()
    step.name = "interpret"
    # The VM's pipeline drops unused pure operators (whose failure is then never seen):
    # the interpreter runs the module without them too.
    live = xrelax.apply(module.clone(), "dce")
    try:
        expected: Any = xrelax.interpret(live, entry, *_copy(inputs))
    except clean as err:
        if "Could not find interpretation function" in str(err):
            return  # vm-level ops in a relax function: only the VM runs them
        expected = err
    step.name = "vm"
    try:
        actual: Any = vm[entry](*_copy(inputs))
    except clean as err:
        actual = err
    if isinstance(expected, BaseException) != isinstance(actual, BaseException):
        refused = expected if isinstance(expected, BaseException) else actual
        who = "interpreter" if refused is expected else "VM"
        raise _Mismatch(f"{entry}: only the {who} refuses: {_first_line(refused)}")
    if not isinstance(expected, BaseException):
        # A tir kernel written in the input may leave an output unwritten (its values are
        # then whatever memory held): only shapes and dtypes are compared.
        has_kernels = any(op.name == "tir.prim_func" for op in module.ops)
        _compare(expected, actual, entry, values=not has_kernels)


def _copy(values: Sequence[Any]) -> list[Any]:
    return [v.copy() if isinstance(v, np.ndarray) else v for v in values]


def _compare(expected: Any, actual: Any, where: str, values: bool = True) -> None:
    if isinstance(expected, tuple) and isinstance(actual, tuple):
        if len(expected) != len(actual):
            raise _Mismatch(f"{where}: tuples of {len(expected)} and {len(actual)} fields")
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            _compare(e, a, f"{where}[{index}]", values)
        return
    if isinstance(expected, np.ndarray) or isinstance(actual, np.ndarray):
        e, a = np.asarray(expected), np.asarray(actual)
        if e.shape != a.shape or e.dtype != a.dtype:
            raise _Mismatch(f"{where}: {e.dtype}{list(e.shape)} vs {a.dtype}{list(a.shape)}")
        if not values:
            return
        if e.dtype.kind in "fc":
            # a fused kernel rounds f16 once where the interpreter rounds each operator
            tolerance = 1e-2 if e.dtype.itemsize <= 2 else 1e-3
            same = np.allclose(e, a, rtol=tolerance, atol=tolerance / 10, equal_nan=True)
        else:
            same = np.array_equal(e, a)
        if not same:
            raise _Mismatch(f"{where}: values differ")
        return
    if expected != actual:
        raise _Mismatch(f"{where}: {expected!r} vs {actual!r}")


def check_executable(data: bytes, inputs: Sequence[Any], entry: str) -> Outcome:
    """Load the (corrupted) executable ``data`` and run ``entry`` on ``inputs``."""
    import xrelax
    from xrelax.backends.vm import Executable

    step = _Step()
    step.name = "load"
    try:
        vm = xrelax.VirtualMachine(Executable.from_bytes(data))
        step.name = "run"
        if entry in vm:
            vm[entry](*_copy(inputs))
        return Outcome("ok")
    except _clean_errors() as err:
        return Outcome("error", step.name, _first_line(err))
    except _Timeout:
        raise
    except Exception as err:  # noqa: BLE001 - every other exception is a finding
        return Outcome("internal", step.name, f"{type(err).__name__}: {_first_line(err)}")


def _jumps_backward(data: bytes) -> bool:
    """Whether the executable ``data`` has a goto or if that jumps back (a loop: the VM
    runs loops, which relax programs never have, as long as they last)."""
    from xrelax.backends.vm import Executable
    from xrelax.backends.vm.executable import Goto, If

    exe = Executable.from_bytes(data)
    for i in range(len(exe.instr_offset)):
        ins = exe.get_instruction(i)
        if (
            isinstance(ins, Goto | If)
            and (ins.offset if isinstance(ins, Goto) else ins.false_offset) <= 0
        ):
            return True
    return False


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:300] if text else type(err).__name__


# ------------------------------------------------------------------------------ campaign


@dataclass
class Finding:
    """A mutant whose outcome is a failure, with what reproduces it."""

    index: int
    outcome: Outcome
    seed_name: str
    text: str


@dataclass
class Report:
    """The counts per outcome, per step of the clean errors, and the findings."""

    counts: Counter = field(default_factory=Counter)
    steps: Counter = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    peak_rss_mb: float = 0.0

    def add(self, index: int, outcome: Outcome, seed_name: str, text: str) -> None:
        self.counts[outcome.kind] += 1
        self.steps[f"{outcome.kind}:{outcome.step}"] += 1
        if outcome.kind in FAILURES:
            self.findings.append(Finding(index, outcome, seed_name, text))

    def merge(self, other: Report) -> None:
        self.counts.update(other.counts)
        self.steps.update(other.steps)
        self.findings += other.findings
        self.peak_rss_mb = max(self.peak_rss_mb, other.peak_rss_mb)

    def table(self) -> str:
        """The outcome counts as a markdown table."""
        total = sum(self.counts.values()) or 1
        rows = ["| outcome | mutants | share |", "|---|---:|---:|"]
        for kind in OUTCOMES:
            count = self.counts.get(kind, 0)
            rows.append(f"| {kind} | {count} | {100 * count / total:.2f}% |")
        rows.append(f"| total | {sum(self.counts.values())} | |")
        return "\n".join(rows)


class Fuzzer:
    """Mutants of a corpus, checked in this process."""

    def __init__(self, seeds: Sequence[Seed], seed: int, timeout: float = 10.0) -> None:
        self.seeds = list(seeds)
        self.seed = seed
        self.timeout = timeout
        self.mutator = Mutator(corpus_vocabulary(self.seeds))
        self.programs = [s for s in self.seeds if "examples" in s.name]
        """Whole programs (the examples) whose executables are corrupted."""
        self._executables: dict[str, tuple[bytes, str, list[Any]] | None] = {}

    def mutant(self, index: int) -> tuple[str, str, bool]:
        """Mutant ``index``: (seed name, text or hex of an executable, is-an-executable).

        About one in eight is a saved executable of a program that runs (the first of
        the corpus's whole programs, from a random one on, that compiles), corrupted."""
        rng = random.Random(f"{self.seed}:{index}")
        seed = rng.choice(self.seeds)
        if rng.random() < 0.12 and self.programs:
            start = rng.randrange(len(self.programs))
            for k in range(len(self.programs)):
                program = self.programs[(start + k) % len(self.programs)]
                compiled = self._compiled(program)
                if compiled is not None:
                    return program.name, corrupt_executable(compiled[0], rng).hex(), True
        return seed.name, self.mutator.mutate(seed.text, rng), False

    def _compiled(self, seed: Seed) -> tuple[bytes, str, list[Any]] | None:
        """The saved executable of ``seed``, its entry and inputs (None: it does not run)."""
        if seed.name not in self._executables:
            self._executables[seed.name] = None
            with contextlib.suppress(Exception), _quiet(), _time_limit(self.timeout):
                self._executables[seed.name] = _compile_seed(seed)
        return self._executables[seed.name]

    def check(self, index: int) -> tuple[Outcome, str, str]:
        """Run mutant ``index``: (outcome, seed name, mutant)."""
        name, mutant, is_executable = self.mutant(index)
        rng = random.Random(f"{self.seed}:{index}:run")
        before = peak_rss_mb()
        try:
            with _time_limit(self.timeout), _quiet():
                if is_executable:
                    _, entry, inputs = self._executables[name]  # type: ignore[misc]
                    outcome = check_executable(bytes.fromhex(mutant), inputs, entry)
                else:
                    outcome = check_program(mutant, rng)
        except _Timeout:
            outcome = Outcome("hang", "", f"over {self.timeout:g} s")
            if is_executable and _jumps_backward(bytes.fromhex(mutant)):
                # The corruption made a loop, which the VM runs as written, however long.
                outcome = Outcome("error", "run", f"a loop still running after {self.timeout:g} s")
        grown = peak_rss_mb() - before
        if grown > MEMORY_LIMIT_MB and outcome.kind not in FAILURES:
            outcome = Outcome("memory", outcome.step, f"peak memory grew by {grown:.0f} MB")
        return outcome, name, mutant

    def run(self, start: int, count: int, progress: Any = None) -> Report:
        """Check mutants ``start .. start + count - 1``."""
        report = Report()
        for index in range(start, start + count):
            if progress is not None:
                progress(index)
            outcome, name, mutant = self.check(index)
            report.add(index, outcome, name, mutant)
        report.peak_rss_mb = peak_rss_mb()
        return report


def _compile_seed(seed: Seed) -> tuple[bytes, str, list[Any]] | None:
    import xrelax
    from xrelax.dialects.relax import FuncOp

    module = xrelax.parse(seed.text, seed.name)
    funcs = [op for op in module.ops if isinstance(op, FuncOp) and not op.is_primitive]
    if not funcs:
        return None
    exe = xrelax.compile(module)
    inputs = random_inputs(funcs[0].function_type.inputs.data, random.Random(seed.name))
    if inputs is None:
        return None
    return exe.to_bytes(), funcs[0].sym_name.data, inputs


def peak_rss_mb() -> float:
    """The peak resident memory of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
