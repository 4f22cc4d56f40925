"""ExecBuilder: emit VM instructions function by function and build an ``Executable``."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from .error import VMError
from .executable import (
    BEGIN_SPECIAL_REGISTER,
    IMMEDIATE_MAX,
    IMMEDIATE_MIN,
    Arg,
    ArgKind,
    Call,
    Executable,
    Goto,
    If,
    Instruction,
    Ret,
    UnprintedLibrary,
    VMFunction,
    _constant_key,
)

__all__ = ["ExecBuilder"]


class ExecBuilder:
    """Builds an ``Executable``.

    Instructions of a function are collected inside ``with ib.function(...)``; at its
    exit the function is checked (CheckExecutable) and its registers are renumbered in
    order of first use (Formalize), then it is encoded into the executable.
    """

    def __init__(self) -> None:
        self._exe = Executable()
        self._constant_index: dict[Any, int] = {}
        self._func: _PendingFunction | None = None

    # -- operands -----------------------------------------------------------------------

    def r(self, index: int) -> Arg:
        """Register ``index`` of the current frame."""
        if not isinstance(index, int) or not 0 <= index < BEGIN_SPECIAL_REGISTER:
            raise VMError(f"invalid register number {index!r}")
        return Arg(ArgKind.REGISTER, index)

    def c(self, index: int) -> Arg:
        """Entry ``index`` of the constant pool."""
        if not isinstance(index, int) or not 0 <= index < len(self._exe.constants):
            raise VMError(f"constant index {index!r} out of range [0, {len(self._exe.constants)})")
        return Arg(ArgKind.CONST_IDX, index)

    def imm(self, value: int) -> Arg:
        """The integer ``value`` inlined into the instruction."""
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise VMError(f"immediate must be an integer, got {type(value).__name__}")
        value = int(value)
        if not IMMEDIATE_MIN <= value <= IMMEDIATE_MAX:
            raise VMError(
                f"immediate {value} out of range [{IMMEDIATE_MIN}, {IMMEDIATE_MAX}]; use a constant"
            )
        return Arg(ArgKind.IMMEDIATE, value)

    def f(self, name: str) -> Arg:
        """The packed or VM function ``name`` as a value."""
        return Arg(ArgKind.FUNC_IDX, self._func_index(name))

    def convert_constant(self, value: Any, dedupe: bool = True) -> int:
        """Add ``value`` to the constant pool and return its index.

        Equal scalars, strings and tuples share one entry (arrays only when they are the
        same object) unless ``dedupe`` is false.
        """
        _check_constant(value)
        key = _constant_key(value)
        if dedupe and key in self._constant_index:
            return self._constant_index[key]
        index = len(self._exe.constants)
        self._exe.constants.append(value)
        self._constant_index.setdefault(key, index)
        return index

    def set_library(self, text: str) -> None:
        """Set the opaque kernel library text handed to the VM's kernel loader."""
        self._exe.library = text

    def set_unprinted_library(self, library: UnprintedLibrary) -> None:
        """Set the kernel library to one printed only when its text is needed."""
        self._exe.unprinted = library

    # -- functions and instructions -----------------------------------------------------

    @contextmanager
    def function(
        self, name: str, num_inputs: int, param_names: Sequence[str] | None = None
    ) -> Iterator[None]:
        """Scope of the VM function ``name``; registers ``0..num_inputs-1`` hold its inputs."""
        if self._func is not None:
            raise VMError(f"function '{name}' opened inside function '{self._func.name}'")
        if any(f.name == name for f in self._exe.global_funcs):
            raise VMError(f"function '{name}' is defined twice")
        names = tuple(param_names) if param_names is not None else ()
        if names and len(names) != num_inputs:
            raise VMError(
                f"function '{name}': {len(names)} parameter names for {num_inputs} inputs"
            )
        self._func = _PendingFunction(name, num_inputs, names)
        try:
            yield
            self._finish(self._func)
        finally:
            self._func = None

    def emit_call(
        self,
        name: str,
        args: Sequence[Any] = (),
        dst: Arg | None = None,
        value_name: str | None = None,
    ) -> int:
        """Emit ``dst = name(*args)``; non-``Arg`` args become constants. Returns the pc.

        ``value_name`` is the source name of the value the call defines (``y`` for a
        relax ``%y``); errors of the call name it."""
        if dst is not None and (not isinstance(dst, Arg) or dst.kind != ArgKind.REGISTER):
            raise VMError(f"call of '{name}': dst must be a register, got {dst!r}")
        words = tuple(
            a if isinstance(a, Arg) else Arg(ArgKind.CONST_IDX, self.convert_constant(a))
            for a in args
        )
        pc = self._emit(Call(None if dst is None else dst.value, self._func_index(name), words))
        if value_name:
            self._require_function("emit_call").value_names[pc] = value_name
        return pc

    def emit_ret(self, result: Arg) -> int:
        """Emit ``return result``. Returns the pc."""
        return self._emit(Ret(self._register(result, "ret")))

    def emit_goto(self, pc_offset: int) -> int:
        """Emit ``pc += pc_offset``. Returns the pc."""
        return self._emit(Goto(pc_offset))

    def emit_if(self, cond: Arg, false_offset: int) -> int:
        """Emit: continue if ``cond`` holds, else ``pc += false_offset``. Returns the pc."""
        return self._emit(If(self._register(cond, "if"), false_offset))

    def current_pc(self) -> int:
        """The executable-wide index the next emitted instruction will get."""
        pending = len(self._func.instrs) if self._func is not None else 0
        return len(self._exe.instr_offset) + pending

    def patch_offset(self, pc: int, offset: int) -> None:
        """Set the jump offset of the pending goto or if at ``pc`` (for forward branches)."""
        func = self._require_function("patch_offset")
        rel = pc - len(self._exe.instr_offset)
        if not 0 <= rel < len(func.instrs):
            raise VMError(f"patch_offset: pc {pc} is not in the open function '{func.name}'")
        ins = func.instrs[rel]
        if isinstance(ins, Goto):
            func.instrs[rel] = Goto(offset)
        elif isinstance(ins, If):
            func.instrs[rel] = If(ins.cond, offset)
        else:
            raise VMError(f"patch_offset: instruction {pc} is not a goto or if")

    def get(self) -> Executable:
        """The executable built so far."""
        if self._func is not None:
            raise VMError(f"get() called inside function '{self._func.name}'")
        return self._exe

    # -- internals ----------------------------------------------------------------------

    def _require_function(self, what: str) -> _PendingFunction:
        if self._func is None:
            raise VMError(f"{what} outside of a function; use `with ib.function(...)`")
        return self._func

    def _emit(self, ins: Instruction) -> int:
        func = self._require_function(type(ins).__name__.lower())
        pc = self.current_pc()
        func.instrs.append(ins)
        return pc

    def _register(self, arg: Any, what: str) -> int:
        if not isinstance(arg, Arg) or arg.kind != ArgKind.REGISTER:
            raise VMError(f"{what}: expected a register, got {arg!r}")
        return arg.value

    def _func_index(self, name: str) -> int:
        if not isinstance(name, str):
            raise VMError(f"function name must be a string, got {type(name).__name__}")
        names = self._exe.func_names
        if name not in names:
            names.append(name)
        return names.index(name)

    def _finish(self, func: _PendingFunction) -> None:
        _check(func)
        instrs = _formalize(func)
        exe = self._exe
        start = len(exe.instr_offset)
        for ins in instrs:
            exe.instr_offset.append(len(exe.instr_data))
            exe.instr_data.extend(ins.encode())
        size = max([func.num_inputs] + [r + 1 for ins in instrs for r in _registers(ins)])
        exe.global_funcs.append(
            VMFunction(func.name, start, func.num_inputs, size, func.param_names)
        )
        exe.value_names.update(func.value_names)


class _PendingFunction:
    def __init__(self, name: str, num_inputs: int, param_names: tuple[str, ...]) -> None:
        self.name = name
        self.num_inputs = num_inputs
        self.param_names = param_names
        self.instrs: list[Instruction] = []
        self.value_names: dict[int, str] = {}


def _reads(ins: Instruction) -> list[int]:
    if isinstance(ins, Call):
        return [a.value for a in ins.args if a.kind == ArgKind.REGISTER]
    if isinstance(ins, Ret):
        return [ins.result]
    if isinstance(ins, If):
        return [ins.cond]
    return []


def _registers(ins: Instruction) -> list[int]:
    """Registers of ``ins`` in operand order (destination last)."""
    regs = _reads(ins)
    if isinstance(ins, Call) and ins.dst is not None:
        regs.append(ins.dst)
    return regs


def _check(func: _PendingFunction) -> None:
    """CheckExecutable: registers read are written or inputs; branches stay inside."""
    name, n, instrs = func.name, func.num_inputs, func.instrs
    if not instrs:
        raise VMError(f"function '{name}' has no instructions")
    if not isinstance(instrs[-1], Ret | Goto):
        raise VMError(f"function '{name}' does not end with ret or goto")
    written = {ins.dst for ins in instrs if isinstance(ins, Call) and ins.dst is not None}
    used: set[int] = set(written)
    for pc, ins in enumerate(instrs):
        for reg in _reads(ins):
            used.add(reg)
            if reg >= n and reg not in written:
                raise VMError(
                    f"function '{name}': instruction {pc} reads register %{reg}, which is "
                    f"never written and is not an input (the function has {n} inputs)"
                )
        offset = ins.offset if isinstance(ins, Goto) else getattr(ins, "false_offset", None)
        if offset is not None and not 0 <= pc + offset < len(instrs):
            raise VMError(
                f"function '{name}': instruction {pc} jumps by {offset} to {pc + offset}, "
                f"outside its {len(instrs)} instructions"
            )
    for reg in range(n):
        if reg not in used:
            warnings.warn(
                f"function '{name}': input register %{reg} is never used",
                UserWarning,
                stacklevel=5,
            )


def _formalize(func: _PendingFunction) -> list[Instruction]:
    """Formalize: renumber non-input registers in order of first use."""
    mapping = {i: i for i in range(func.num_inputs)}
    for ins in func.instrs:
        for reg in _registers(ins):
            mapping.setdefault(reg, len(mapping))

    def rename(arg: Arg) -> Arg:
        return Arg(arg.kind, mapping[arg.value]) if arg.kind == ArgKind.REGISTER else arg

    out: list[Instruction] = []
    for ins in func.instrs:
        if isinstance(ins, Call):
            dst = None if ins.dst is None else mapping[ins.dst]
            out.append(Call(dst, ins.func_idx, tuple(rename(a) for a in ins.args)))
        elif isinstance(ins, Ret):
            out.append(Ret(mapping[ins.result]))
        elif isinstance(ins, If):
            out.append(If(mapping[ins.cond], ins.false_offset))
        else:
            out.append(ins)
    return out


def _check_constant(value: Any) -> None:
    if isinstance(value, tuple):
        for item in value:
            _check_constant(item)
    elif isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise VMError("constant arrays of dtype object are not supported")
    elif value is not None and not isinstance(value, bool | int | float | str):
        raise VMError(
            f"unsupported constant of type {type(value).__module__}.{type(value).__name__}; "
            "constants are arrays, int, float, str, None or tuples of those"
        )
