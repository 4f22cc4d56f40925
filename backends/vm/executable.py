"""The Relax VM executable: function table, constant pool, bytecode and file format.

Bytecode (``instr_data``, one int64 ``ExecWord`` per entry; ``instr_offset[i]`` is the
position of instruction ``i``), as in TVM's Relax VM:

- ``Call = [1, dst, func_idx, num_args, arg words...]``; ``dst`` is a register number or
  ``VOID_REGISTER`` (no destination).
- ``Ret  = [2, result_reg]``
- ``Goto = [3, pc_offset]`` (``pc += pc_offset``)
- ``If   = [4, cond_reg, false_offset]`` (``pc += 1`` if the condition holds, else
  ``pc += false_offset``)

An argument word is ``kind << 56 | (value & (2**56 - 1))``; the value is read back with
sign extension from bit 55, so immediates in ``[-2**55, 2**55)`` round-trip.

File format (little endian), version ``FORMAT_VERSION``::

    magic    8 bytes  b"XRLXVMEX"
    version  u32
    crc32    u32      zlib.crc32 of the payload
    length   u64      payload length in bytes
    payload  sections FUNC, CNST, NAME, CODE, LIBR, VALN in this order, each
             tag (4 ASCII bytes), u64 body length, body

VALN maps instruction indices to the source names of the values they define (u32
count, then u64 index + string pairs), for error messages. Version 3 passes a
safety-net call's operator attributes as a constant (:mod:`xrelax.ops.attribute_constants`)
where version 2 passed their text: files of earlier versions are refused (recompile).

Strings are u32 byte length + UTF-8 (the library text uses a u64 length). Constants are
tagged values: None, bool, int (two's complement bytes), float (f64), str, tuple
(recursive), ndarray (dtype string, shape, raw C-order bytes), splat (dtype string,
shape, the bytes of the one value of an array broadcast from it). Nothing is pickled.
"""

from __future__ import annotations

import enum
import math
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from xrelax.dialects import dtypes

from .error import VMError

__all__ = [
    "FORMAT_VERSION",
    "IMMEDIATE_MAX",
    "IMMEDIATE_MIN",
    "MAGIC",
    "VOID_REGISTER",
    "Arg",
    "ArgKind",
    "Call",
    "Executable",
    "Goto",
    "If",
    "Instruction",
    "Opcode",
    "Ret",
    "UnprintedLibrary",
    "VMFunction",
]

MAGIC = b"XRLXVMEX"
FORMAT_VERSION = 3

VALUE_BITS = 56
_VALUE_MASK = (1 << VALUE_BITS) - 1
_SIGN_BIT = 1 << (VALUE_BITS - 1)
IMMEDIATE_MIN = -(1 << (VALUE_BITS - 1))
IMMEDIATE_MAX = (1 << (VALUE_BITS - 1)) - 1
BEGIN_SPECIAL_REGISTER = 1 << 54
VOID_REGISTER = BEGIN_SPECIAL_REGISTER


class Opcode(enum.IntEnum):
    """The four VM instructions."""

    CALL = 1
    RET = 2
    GOTO = 3
    IF = 4


class ArgKind(enum.IntEnum):
    """What the value of a Call argument word denotes."""

    REGISTER = 0
    IMMEDIATE = 1
    CONST_IDX = 2
    FUNC_IDX = 3


@dataclass(frozen=True)
class Arg:
    """One Call argument: a register, an immediate, a constant index or a function index."""

    kind: ArgKind
    value: int

    def encode(self) -> int:
        """The argument as one ExecWord."""
        return (int(self.kind) << VALUE_BITS) | (self.value & _VALUE_MASK)

    @staticmethod
    def decode(word: int) -> Arg:
        """The argument packed in ``word``."""
        kind = word >> VALUE_BITS
        if kind not in _ARG_KINDS:
            raise VMError(f"invalid argument kind {kind} in word {word:#x}")
        value = word & _VALUE_MASK
        if value & _SIGN_BIT:
            value -= 1 << VALUE_BITS
        return Arg(_ARG_KINDS[kind], value)

    def __str__(self) -> str:
        return _ARG_FORMAT[self.kind].format(self.value)


_ARG_KINDS = {int(k): k for k in ArgKind}
_ARG_FORMAT = {
    ArgKind.REGISTER: "%{}",
    ArgKind.IMMEDIATE: "i{}",
    ArgKind.CONST_IDX: "c[{}]",
    ArgKind.FUNC_IDX: "f[{}]",
}


@dataclass(frozen=True)
class Call:
    """Call packed function ``func_idx`` with ``args``; store the result in ``dst``."""

    dst: int | None
    func_idx: int
    args: tuple[Arg, ...]

    def encode(self) -> list[int]:
        """The instruction's ExecWords."""
        dst = VOID_REGISTER if self.dst is None else self.dst
        words = [int(Opcode.CALL), dst, self.func_idx, len(self.args)]
        return words + [a.encode() for a in self.args]


@dataclass(frozen=True)
class Ret:
    """Return the value of register ``result``."""

    result: int

    def encode(self) -> list[int]:
        """The instruction's ExecWords."""
        return [int(Opcode.RET), self.result]


@dataclass(frozen=True)
class Goto:
    """Jump ``offset`` instructions relative to this one."""

    offset: int

    def encode(self) -> list[int]:
        """The instruction's ExecWords."""
        return [int(Opcode.GOTO), self.offset]


@dataclass(frozen=True)
class If:
    """Continue if register ``cond`` is true, else jump ``false_offset`` instructions."""

    cond: int
    false_offset: int

    def encode(self) -> list[int]:
        """The instruction's ExecWords."""
        return [int(Opcode.IF), self.cond, self.false_offset]


Instruction = Call | Ret | Goto | If


@dataclass(frozen=True)
class VMFunction:
    """An entry of the function table.

    ``param_names`` (our extension) names the inputs; it defaults to ``arg0, arg1, ...``.
    """

    name: str
    start_instr: int
    num_args: int
    register_file_size: int
    param_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.param_names:
            default = tuple(f"arg{i}" for i in range(self.num_args))
            object.__setattr__(self, "param_names", default)
        elif len(self.param_names) != self.num_args:
            raise VMError(
                f"function '{self.name}': {len(self.param_names)} parameter names given "
                f"for {self.num_args} arguments"
            )


class UnprintedLibrary(Protocol):
    """A kernel library held in the form its producer made it; printed on demand."""

    def text(self) -> str:
        """The library text (a printed module of ``tir.prim_func`` ops)."""
        ...


@dataclass(eq=False)
class Executable:
    """Everything the VM needs: function table, constant pool, packed names, bytecode.

    Two executables are equal when all fields are; constant arrays compare by dtype,
    shape and bytes.
    """

    global_funcs: list[VMFunction] = field(default_factory=list)
    constants: list[Any] = field(default_factory=list)
    func_names: list[str] = field(default_factory=list)
    instr_data: list[int] = field(default_factory=list)
    instr_offset: list[int] = field(default_factory=list)
    value_names: dict[int, str] = field(default_factory=dict)
    """Instruction index -> source name of the value it defines (for error messages)."""
    unprinted: UnprintedLibrary | None = field(default=None, repr=False)
    """The library as the assembler of this process handed it over, not printed yet:
    the kernel loaders that know it compile its kernels as they are, and
    :attr:`library` is printed from it only when asked for (saving, a custom loader)."""
    _library: str = field(default="", repr=False)

    @property
    def library(self) -> str:
        """The kernel library: a printed module of ``tir.prim_func`` ops (or empty)."""
        if self.unprinted is not None:
            self._library = self.unprinted.text()
            self.unprinted = None
        return self._library

    @library.setter
    def library(self, text: str) -> None:
        self._library = text
        self.unprinted = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Executable):
            return NotImplemented
        return (
            self.global_funcs == other.global_funcs
            and self.func_names == other.func_names
            and self.instr_data == other.instr_data
            and self.instr_offset == other.instr_offset
            and self.library == other.library
            and self.value_names == other.value_names
            and _same_constant(tuple(self.constants), tuple(other.constants))
        )

    __hash__ = None  # type: ignore[assignment]

    # -- instructions -------------------------------------------------------------------

    def get_instruction(self, i: int) -> Instruction:
        """Decode instruction ``i``; a malformed encoding raises ``VMError``."""
        if not 0 <= i < len(self.instr_offset):
            raise VMError(f"instruction index {i} out of range [0, {len(self.instr_offset)})")
        data = self.instr_data
        pos = self.instr_offset[i]
        end = self.instr_offset[i + 1] if i + 1 < len(self.instr_offset) else len(data)
        if not 0 <= pos < end <= len(data):
            raise VMError(f"instruction {i}: offset {pos} out of range")
        op = data[pos]
        if op == Opcode.CALL:
            if end - pos < 4 or end - pos != 4 + data[pos + 3]:
                raise VMError(f"instruction {i}: malformed call of {end - pos} words")
            dst = data[pos + 1]
            args = tuple(Arg.decode(w) for w in data[pos + 4 : end])
            return Call(None if dst == VOID_REGISTER else dst, data[pos + 2], args)
        size = _FIXED_SIZE.get(op)
        if size is None:
            raise VMError(f"instruction {i}: unknown opcode {op}")
        if end - pos != size:
            raise VMError(f"instruction {i}: malformed {Opcode(op).name.lower()}")
        if op == Opcode.RET:
            return Ret(data[pos + 1])
        if op == Opcode.GOTO:
            return Goto(data[pos + 1])
        return If(data[pos + 1], data[pos + 2])

    def function_ranges(self) -> dict[str, range]:
        """Instruction index range of each global function (a function ends where the
        next one, by start index, begins)."""
        total = len(self.instr_offset)
        ordered = sorted(self.global_funcs, key=lambda f: f.start_instr)
        ranges = {}
        for k, func in enumerate(ordered):
            end = ordered[k + 1].start_instr if k + 1 < len(ordered) else total
            ranges[func.name] = range(func.start_instr, end)
        return ranges

    # -- text dumps ---------------------------------------------------------------------

    def stats(self) -> str:
        """A summary: constants (arrays as ``float32[32, 16]``), globals, packed functions."""
        consts = ", ".join(_describe_constant(c) for c in self.constants)
        globals_ = ", ".join(f.name for f in self.global_funcs)
        packed = ", ".join(self.func_names)
        return (
            "Relax VM executable statistics:\n"
            f"  Constant pool (#{len(self.constants)}): [{consts}]\n"
            f"  Globals (#{len(self.global_funcs)}): [{globals_}]\n"
            f"  Packed functions (#{len(self.func_names)}): [{packed}]\n"
        )

    def as_text(self) -> str:
        """The bytecode listing, one ``@name:`` block per function.

        Instructions print as ``call  NAME  in: ARGS  dst: %D`` (``dst: void`` when there is
        no destination), ``ret   ret %R``, ``goto  OFFSET`` and ``if    %C, FALSE_OFFSET``.
        Arguments print as ``%3`` (register), ``i-5`` (immediate), ``c[0]`` (constant
        pool entry) and ``f[name]`` (function value). Columns are padded per function.
        """
        ranges = self.function_ranges()
        blocks = []
        for func in self.global_funcs:
            instrs = [self.get_instruction(i) for i in ranges[func.name]]
            calls = [ins for ins in instrs if isinstance(ins, Call)]
            name_w = max((len(self._func_name(c.func_idx)) for c in calls), default=0)
            args_w = max((len(self._args_text(c.args)) for c in calls), default=0)
            lines = [f"@{func.name}:"]
            for ins in instrs:
                if isinstance(ins, Call):
                    name = self._func_name(ins.func_idx).ljust(name_w)
                    args = self._args_text(ins.args).ljust(args_w)
                    dst = "void" if ins.dst is None else f"%{ins.dst}"
                    lines.append(f"  call  {name}  in: {args}  dst: {dst}")
                elif isinstance(ins, Ret):
                    lines.append(f"  ret   ret %{ins.result}")
                elif isinstance(ins, Goto):
                    lines.append(f"  goto  {ins.offset}")
                else:
                    lines.append(f"  if    %{ins.cond}, {ins.false_offset}")
            blocks.append("\n".join(lines) + "\n")
        return "\n".join(blocks)

    def as_python(self) -> str:
        """ExecBuilder calls that rebuild this executable when run with ``ib`` in scope."""
        lines = []
        if any(_contains_array(c) for c in self.constants):
            lines.append("import numpy as np")
        if self.library:
            lines.append(f"ib.set_library({self.library!r})")
        seen: set[Any] = set()
        for k, value in enumerate(self.constants):
            key = _constant_key(value)
            extra = ", dedupe=False" if key in seen else ""
            seen.add(key)
            lines.append(f"ib.convert_constant({_python_literal(value)}{extra})  # c[{k}]")
        if self.func_names != self._first_use_names():
            lines.extend(f"ib.f({name!r})" for name in self.func_names)
        ranges = self.function_ranges()
        for func in self.global_funcs:
            params = ""
            if func.param_names != VMFunction(func.name, 0, func.num_args, 0).param_names:
                params = f", param_names={func.param_names!r}"
            lines.append(f"with ib.function({func.name!r}, num_inputs={func.num_args}{params}):")
            for i in ranges[func.name]:
                line = self._python_instruction(self.get_instruction(i))
                if i in self.value_names:
                    line = f"{line[:-1]}, value_name={self.value_names[i]!r})"
                lines.append("    " + line)
        return "\n".join(lines) + "\n"

    def _func_name(self, idx: int) -> str:
        return self.func_names[idx] if 0 <= idx < len(self.func_names) else f"<bad {idx}>"

    def _args_text(self, args: tuple[Arg, ...]) -> str:
        return ", ".join(
            f"f[{self._func_name(a.value)}]" if a.kind == ArgKind.FUNC_IDX else str(a) for a in args
        )

    def _python_instruction(self, ins: Instruction) -> str:
        if isinstance(ins, Call):
            text = f"ib.emit_call({self._func_name(ins.func_idx)!r}"
            if ins.args:
                text += ", args=[" + ", ".join(self._python_arg(a) for a in ins.args) + "]"
            if ins.dst is not None:
                text += f", dst=ib.r({ins.dst})"
            return text + ")"
        if isinstance(ins, Ret):
            return f"ib.emit_ret(ib.r({ins.result}))"
        if isinstance(ins, Goto):
            return f"ib.emit_goto({ins.offset})"
        return f"ib.emit_if(ib.r({ins.cond}), {ins.false_offset})"

    def _python_arg(self, arg: Arg) -> str:
        if arg.kind == ArgKind.REGISTER:
            return f"ib.r({arg.value})"
        if arg.kind == ArgKind.IMMEDIATE:
            return f"ib.imm({arg.value})"
        if arg.kind == ArgKind.CONST_IDX:
            return f"ib.c({arg.value})"
        return f"ib.f({self._func_name(arg.value)!r})"

    def _first_use_names(self) -> list[str]:
        """The func_names order an ExecBuilder replaying the instructions would produce."""
        names: list[str] = []
        ranges = self.function_ranges()
        for func in self.global_funcs:
            for i in ranges[func.name]:
                ins = self.get_instruction(i)
                if not isinstance(ins, Call):
                    continue
                used = [ins.func_idx] + [a.value for a in ins.args if a.kind == ArgKind.FUNC_IDX]
                for idx in used:
                    name = self._func_name(idx)
                    if name not in names:
                        names.append(name)
        return names

    # -- serialisation ------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The executable in the versioned binary format described in the module docstring."""
        out = _Writer()
        funcs = _Writer()
        funcs.u32(len(self.global_funcs))
        for f in self.global_funcs:
            funcs.string(f.name)
            funcs.i64(f.start_instr)
            funcs.i64(f.num_args)
            funcs.i64(f.register_file_size)
            funcs.u32(len(f.param_names))
            for p in f.param_names:
                funcs.string(p)
        out.section(b"FUNC", funcs)
        consts = _Writer()
        consts.u32(len(self.constants))
        for c in self.constants:
            consts.value(c)
        out.section(b"CNST", consts)
        names = _Writer()
        names.u32(len(self.func_names))
        for n in self.func_names:
            names.string(n)
        out.section(b"NAME", names)
        code = _Writer()
        code.i64_array(self.instr_data)
        code.i64_array(self.instr_offset)
        out.section(b"CODE", code)
        lib = _Writer()
        lib.long_string(self.library)
        out.section(b"LIBR", lib)
        value_names = _Writer()
        value_names.u32(len(self.value_names))
        for index, name in sorted(self.value_names.items()):
            value_names.u64(index)
            value_names.string(name)
        out.section(b"VALN", value_names)
        payload = out.getvalue()
        header = MAGIC + struct.pack("<IIQ", FORMAT_VERSION, zlib.crc32(payload), len(payload))
        return header + payload

    @staticmethod
    def from_bytes(data: bytes) -> Executable:
        """Parse ``to_bytes`` output; anything malformed raises a one-line ``VMError``."""
        try:
            return _parse(bytes(data))
        except VMError as err:
            raise VMError(f"invalid executable: {err}") from None

    def save(self, path: str | Path) -> None:
        """Write the executable to ``path``."""
        Path(path).write_bytes(self.to_bytes())

    @staticmethod
    def load(path: str | Path) -> Executable:
        """Read an executable written by ``save``."""
        data = Path(path).read_bytes()
        try:
            return _parse(data)
        except VMError as err:
            raise VMError(f"cannot load executable {str(path)!r}: {err}") from None


_FIXED_SIZE = {int(Opcode.RET): 2, int(Opcode.GOTO): 2, int(Opcode.IF): 3}


# -- constants: description, dedupe key, Python literal ---------------------------------


def _describe_constant(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype.name}{list(value.shape)}"
    if isinstance(value, tuple):
        items = [_describe_constant(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(value)


def _same_constant(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape or _is_splat(a) != _is_splat(b):
            return False
        if _is_splat(a):
            return a.flat[0].tobytes() == b.flat[0].tobytes()
        return a.tobytes() == b.tobytes()
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same_constant(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a.hex() == b.hex()
    return a == b


def _contains_array(value: Any) -> bool:
    if isinstance(value, tuple):
        return any(_contains_array(v) for v in value)
    return isinstance(value, np.ndarray)


def _constant_key(value: Any) -> Any:
    """Equal keys mean interchangeable constants (arrays compare by identity)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", id(value))
    if isinstance(value, tuple):
        return ("tuple", *(_constant_key(v) for v in value))
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


def _python_literal(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return _array_literal(value)
    if isinstance(value, tuple):
        items = [_python_literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({repr(value)!r})"
    return repr(value)


def _is_splat(value: np.ndarray) -> bool:
    """Whether ``value`` is one value broadcast (every stride 0) to several elements."""
    return value.size > 1 and not any(value.strides)


def _array_literal(value: np.ndarray) -> str:
    dtype = value.dtype
    if _is_splat(value):
        one = _array_literal(np.array(value.flat[0], dtype))
        return f"np.broadcast_to({one}, {tuple(value.shape)!r})"
    readable = (
        dtype.kind in "biuf"
        and dtype.isnative
        and value.size > 0
        and (dtype.kind != "f" or bool(np.isfinite(value).all()))
    )
    if readable:
        return f"np.array({value.tolist()!r}, dtype={dtype.name!r})"
    raw = np.ascontiguousarray(value).tobytes().hex()
    return (
        f"np.frombuffer(bytes.fromhex({raw!r}), dtype={_dtype_text(dtype)!r})"
        f".reshape({tuple(value.shape)!r}).copy()"
    )


def _dtype_text(dtype: np.dtype) -> str:
    """How the executable names a dtype: numpy's type string (``<f4``), bf16 by its name
    (numpy's string for it, ``<V2``, is a void type)."""
    return dtype.name if dtype == dtypes.BFLOAT16 else dtype.str


def _storable(dtype: np.dtype) -> bool:
    """Whether a constant array of ``dtype`` can be stored (a plain numeric or text
    dtype, or bf16)."""
    plain = dtype.kind in _ARRAY_KINDS and dtype.fields is None and dtype.itemsize > 0
    return plain or dtype == dtypes.BFLOAT16


# -- binary format ----------------------------------------------------------------------

_TAG_NONE, _TAG_BOOL, _TAG_INT, _TAG_FLOAT, _TAG_STR, _TAG_TUPLE, _TAG_ARRAY, _TAG_SPLAT = range(8)
_ARRAY_KINDS = "biufcSUmM"
_SECTIONS = (b"FUNC", b"CNST", b"NAME", b"CODE", b"LIBR", b"VALN")
_HEADER = struct.Struct("<8sIIQ")


class _Writer:
    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def getvalue(self) -> bytes:
        return b"".join(self._parts)

    def raw(self, data: bytes) -> None:
        self._parts.append(data)

    def u8(self, v: int) -> None:
        self.raw(struct.pack("<B", v))

    def u32(self, v: int) -> None:
        self.raw(struct.pack("<I", v))

    def u64(self, v: int) -> None:
        self.raw(struct.pack("<Q", v))

    def i64(self, v: int) -> None:
        self.raw(struct.pack("<q", v))

    def string(self, s: str) -> None:
        data = s.encode()
        self.u32(len(data))
        self.raw(data)

    def long_string(self, s: str) -> None:
        data = s.encode()
        self.u64(len(data))
        self.raw(data)

    def i64_array(self, values: list[int]) -> None:
        self.u64(len(values))
        self.raw(np.asarray(values, dtype="<i8").tobytes())

    def section(self, tag: bytes, body: _Writer) -> None:
        data = body.getvalue()
        self.raw(tag)
        self.u64(len(data))
        self.raw(data)

    def value(self, v: Any) -> None:
        if v is None:
            self.u8(_TAG_NONE)
        elif isinstance(v, bool):
            self.u8(_TAG_BOOL)
            self.u8(int(v))
        elif isinstance(v, int):
            self.u8(_TAG_INT)
            data = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
            self.u32(len(data))
            self.raw(data)
        elif isinstance(v, float):
            self.u8(_TAG_FLOAT)
            self.raw(struct.pack("<d", v))
        elif isinstance(v, str):
            self.u8(_TAG_STR)
            self.string(v)
        elif isinstance(v, tuple):
            self.u8(_TAG_TUPLE)
            self.u32(len(v))
            for item in v:
                self.value(item)
        elif isinstance(v, np.ndarray):
            if not _storable(v.dtype):
                raise VMError(f"cannot serialise a constant array of dtype {v.dtype}")
            self.u8(_TAG_SPLAT if _is_splat(v) else _TAG_ARRAY)
            self.string(_dtype_text(v.dtype))
            self.u32(v.ndim)
            for d in v.shape:
                self.u64(d)
            data = v.flat[0].tobytes() if _is_splat(v) else np.ascontiguousarray(v).tobytes()
            self.u64(len(data))
            self.raw(data)
        else:
            raise VMError(f"cannot serialise a constant of type {type(v).__name__}")


class _Reader:
    def __init__(self, data: bytes, what: str) -> None:
        self._data = data
        self._pos = 0
        self._what = what

    def take(self, n: int) -> bytes:
        if n < 0 or self._pos + n > len(self._data):
            raise VMError(f"{self._what} section is malformed (runs past its end)")
        out = self._data[self._pos : self._pos + n]
        self._pos += n
        return out

    def done(self) -> None:
        if self._pos != len(self._data):
            raise VMError(f"{self._what} section is malformed (trailing bytes)")

    def u8(self) -> int:
        return self.take(1)[0]

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack("<Q", self.take(8))[0]

    def i64(self) -> int:
        return struct.unpack("<q", self.take(8))[0]

    def string(self) -> str:
        return self._decode(self.take(self.u32()))

    def long_string(self) -> str:
        return self._decode(self.take(self.u64()))

    def _decode(self, data: bytes) -> str:
        try:
            return data.decode()
        except UnicodeDecodeError:
            raise VMError(f"{self._what} section holds invalid UTF-8") from None

    def i64_array(self) -> list[int]:
        n = self.u64()
        return np.frombuffer(self.take(8 * n), dtype="<i8").tolist()

    def value(self, depth: int = 0) -> Any:
        if depth > 100:
            raise VMError(f"{self._what} section nests tuples too deeply")
        tag = self.u8()
        if tag == _TAG_NONE:
            return None
        if tag == _TAG_BOOL:
            return bool(self.u8())
        if tag == _TAG_INT:
            return int.from_bytes(self.take(self.u32()), "little", signed=True)
        if tag == _TAG_FLOAT:
            return struct.unpack("<d", self.take(8))[0]
        if tag == _TAG_STR:
            return self.string()
        if tag == _TAG_TUPLE:
            return tuple(self.value(depth + 1) for _ in range(self.u32()))
        if tag in (_TAG_ARRAY, _TAG_SPLAT):
            return self._array(splat=tag == _TAG_SPLAT)
        raise VMError(f"{self._what} section holds unknown value tag {tag}")

    def _array(self, splat: bool) -> np.ndarray:
        dtype_str = self.string()
        try:
            dtype = np.dtype(dtype_str)
        except TypeError:
            raise VMError(f"{self._what} section holds unknown dtype {dtype_str!r}") from None
        if not _storable(dtype):
            raise VMError(f"{self._what} section holds unsupported dtype {dtype_str!r}")
        shape = tuple(self.u64() for _ in range(self.u32()))
        size = math.prod(shape)
        if max(shape, default=0) >= 2**63 or size * dtype.itemsize >= 2**63:
            raise VMError(f"{self._what} section holds an array of impossible shape {shape}")
        data = self.take(self.u64())
        if len(data) != (1 if splat else size) * dtype.itemsize:
            raise VMError(f"{self._what} section holds an array whose size does not match")
        try:
            if splat:
                return np.broadcast_to(np.frombuffer(data, dtype=dtype).reshape(()), shape)
            return np.frombuffer(data, dtype=dtype).reshape(shape).copy()
        except ValueError as err:
            raise VMError(f"{self._what} section holds an invalid array: {err}") from None


def _sections(payload: bytes) -> Iterator[_Reader]:
    reader = _Reader(payload, "payload")
    for tag in _SECTIONS:
        name = tag.decode()
        if reader.take(4) != tag:
            raise VMError(f"expected section {name}")
        yield _Reader(reader.take(reader.u64()), name)
    reader.done()


def _parse(data: bytes) -> Executable:
    if data[: len(MAGIC)] != MAGIC[: len(data)]:
        raise VMError("bad magic bytes (not an xrelax VM executable)")
    if len(data) < _HEADER.size:
        raise VMError(f"truncated header ({len(data)} of {_HEADER.size} bytes)")
    _, version, crc, length = _HEADER.unpack_from(data)
    if version != FORMAT_VERSION:
        raise VMError(f"unsupported format version {version} (this build reads {FORMAT_VERSION})")
    payload = data[_HEADER.size :]
    if len(payload) < length:
        raise VMError(f"truncated payload ({len(payload)} of {length} bytes)")
    if len(payload) > length:
        raise VMError(f"{len(payload) - length} unexpected bytes after the payload")
    if zlib.crc32(payload) != crc:
        raise VMError("checksum mismatch (the file is corrupted)")
    funcs, consts, names, code, lib, value_names = _sections(payload)
    exe = Executable()
    # Every count is checked against what the file holds before anything is sized by it.
    for _ in range(funcs.u32()):
        name, start, num_args, regs = funcs.string(), funcs.i64(), funcs.i64(), funcs.i64()
        params = tuple(funcs.string() for _ in range(funcs.u32()))
        if num_args != len(params):
            raise VMError(
                f"function '{name}' declares {num_args} arguments but names {len(params)}"
            )
        exe.global_funcs.append(VMFunction(name, start, num_args, regs, params))
    exe.constants = [consts.value() for _ in range(consts.u32())]
    exe.func_names = [names.string() for _ in range(names.u32())]
    exe.instr_data = code.i64_array()
    exe.instr_offset = code.i64_array()
    exe.library = lib.long_string()
    for _ in range(value_names.u32()):
        index, name = value_names.u64(), value_names.string()
        exe.value_names[index] = name
    for section in (funcs, consts, names, code, lib, value_names):
        section.done()
    for func in exe.global_funcs:
        # registers hold the arguments and the results of instructions: no more exist
        if not func.num_args <= func.register_file_size <= func.num_args + len(exe.instr_offset):
            raise VMError(
                f"function '{func.name}' declares {func.register_file_size} registers for "
                f"{func.num_args} arguments and {len(exe.instr_offset)} instructions"
            )
    return exe
