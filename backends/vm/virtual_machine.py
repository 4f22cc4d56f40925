"""The Relax virtual machine.

Loading an executable validates it, resolves every packed function once, verifies the
lifetimes of its storages and tensors (:mod:`verifier`), and compiles each VM function
into one Python function: registers become local variables, constants
and packed functions are module-level names, and control flow becomes a block
dispatch loop. Running a VM function is then a plain Python call with no decoding,
lookup or validation on the way. The builtins every call runs (parameter checks, shape
matching, allocation) are inlined where their steering arguments are constants
(:mod:`intrinsics`).
"""

from __future__ import annotations

import itertools
import linecache
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from . import builtins, intrinsics
from .error import AllocationError, VMError, missing_arguments
from .executable import Arg, ArgKind, Call, Executable, Goto, If, Instruction, Ret, VMFunction
from .profiler import Profile, Recorder
from .verifier import block_leaders, verify_lifetimes

if TYPE_CHECKING:
    from xrelax.backends.kernels.kernel import CompiledKernel

__all__ = ["KernelLoader", "VMError", "VirtualMachine"]

KernelLoader = Callable[[str], Mapping[str, Callable[..., Any]]]

_source_ids = itertools.count()


class VirtualMachine:
    """Runs the functions of an ``Executable``: ``vm["main"](*args)``.

    Packed functions are looked up once, at construction, among the executable's own
    functions, then the kernels ``kernel_loader(exe.library)`` returns (by default the
    kernel backend ``kernels`` names compiles the library: ``"numpy"``, or ``"native"``,
    machine code through LLVM; :func:`xrelax.backends.native.kernel_backend`), then
    ``packed_funcs`` (functions for this VM only), then the global registry. A name
    found nowhere is an error unless ``allow_missing`` is set, in which case calling it
    fails at run time.

    Running a function never changes the executable: its constant arrays are read-only
    to the VM.
    """

    def __init__(
        self,
        exe: Executable,
        kernel_loader: KernelLoader | None = None,
        *,
        allow_missing: bool = False,
        packed_funcs: Mapping[str, Callable[..., Any]] | None = None,
        kernels: str | None = None,
    ) -> None:
        self.executable = exe
        funcs = _function_table(exe)
        code = [_decode_function(exe, func, rng) for func, rng in funcs]
        kernels = _load_kernels(exe, kernel_loader, kernels)
        index_of = {func.name: k for k, (func, _) in enumerate(funcs)}
        _check_vm_calls(exe, funcs, code, index_of)
        resolved = _resolve(exe, funcs, code, index_of, kernels, packed_funcs or {}, allow_missing)
        for (func, _), instrs in zip(funcs, code, strict=True):
            verify_lifetimes(func, instrs, resolved)
        self._program = (funcs, code, resolved)
        self._entries, self.source, _ = _build(exe, *self._program)
        self._profiled: tuple[dict[str, Callable[..., Any]], Recorder] | None = None

    def __getitem__(self, name: str) -> Callable[..., Any]:
        """The VM function ``name`` as a Python callable (positional or by param name)."""
        try:
            return self._entries[name]
        except KeyError:
            available = ", ".join(self._entries)
            raise VMError(
                f"no function named '{name}' in the executable (functions: {available})"
            ) from None

    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def functions(self) -> list[str]:
        """Names of the executable's functions, in table order."""
        return list(self._entries)

    def profile(self, name: str, *args: Any, **kwargs: Any) -> Profile:
        """Call VM function ``name`` once with every packed call timed: kernels, builtins
        and safety-net operators. The :class:`~.profiler.Profile` holds the result and
        prints a table (``.table()``) or a Chrome trace (``.chrome_trace()``)."""
        self[name]  # an unknown name fails as a call would
        if self._profiled is None:
            entries, _, namespace = _build(self.executable, *self._program, profile=True)
            self._profiled = (entries, namespace["_recorder"])
        entries, recorder = self._profiled
        recorder.start()
        result = entries[name](*args, **kwargs)
        return recorder.finish(name, result)


def _build(
    exe: Executable,
    funcs: list[tuple[VMFunction, range]],
    code: list[list[Instruction]],
    resolved: list[int | Callable],
    *,
    profile: bool = False,
) -> tuple[dict[str, Callable[..., Any]], str, dict[str, Any]]:
    """Compile the decoded functions to one Python module: the entry of each function by
    name, the module's source, and its namespace."""
    compiler = _Compiler(exe, [f for f, _ in funcs], resolved, profile=profile)
    for k, instrs in enumerate(code):
        compiler.function(k, instrs)
    source = compiler.source()
    namespace = compiler.namespace()
    filename = f"<xrelax-vm-{next(_source_ids)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        module = compile(source, filename, "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        # The generated code of a validated executable compiles; this is a backstop.
        raise VMError(f"cannot compile the executable: {type(err).__name__}: {err}") from None
    exec(module, namespace)
    entries: dict[str, Callable[..., Any]] = {}
    for k, (func, _) in enumerate(funcs):
        entry = namespace[f"E{k}"]
        entry.__name__ = entry.__qualname__ = func.name
        entries[func.name] = entry
    return entries, source, namespace


# -- loading: validation and resolution -------------------------------------------------


def _function_table(exe: Executable) -> list[tuple[VMFunction, range]]:
    total = len(exe.instr_offset)
    names = [f.name for f in exe.global_funcs]
    for name in names:
        if names.count(name) > 1:
            raise VMError(f"function '{name}' is defined twice")
    starts = [f.start_instr for f in exe.global_funcs]
    for func in exe.global_funcs:
        if not 0 <= func.start_instr < total:
            raise VMError(
                f"function '{func.name}' starts at instruction {func.start_instr}, "
                f"outside [0, {total})"
            )
        if starts.count(func.start_instr) > 1:
            raise VMError(f"two functions start at instruction {func.start_instr}")
        if not 0 <= func.num_args <= func.register_file_size:
            raise VMError(
                f"function '{func.name}' has {func.num_args} arguments but "
                f"{func.register_file_size} registers"
            )
    ranges = exe.function_ranges()
    return [(f, ranges[f.name]) for f in exe.global_funcs]


def _decode_function(exe: Executable, func: VMFunction, rng: range) -> list[Instruction]:
    """Decode and validate the instructions of ``func``."""
    name, regs = func.name, func.register_file_size

    def fail(pc: int, what: str) -> VMError:
        return VMError(f"function '{name}': instruction {pc}: {what}")

    def check_register(pc: int, reg: int) -> None:
        if not 0 <= reg < regs:
            raise fail(pc, f"register %{reg} outside the register file of size {regs}")

    instrs = []
    for pc, i in enumerate(rng):
        try:
            ins = exe.get_instruction(i)
        except VMError as err:
            raise VMError(f"function '{name}': {err}") from None
        if isinstance(ins, Call):
            if not 0 <= ins.func_idx < len(exe.func_names):
                raise fail(pc, f"function index {ins.func_idx} out of range")
            if ins.dst is not None:
                check_register(pc, ins.dst)
            for arg in ins.args:
                if arg.kind == ArgKind.REGISTER:
                    check_register(pc, arg.value)
                elif arg.kind == ArgKind.CONST_IDX and not 0 <= arg.value < len(exe.constants):
                    raise fail(pc, f"constant index {arg.value} out of range")
                elif arg.kind == ArgKind.FUNC_IDX and not 0 <= arg.value < len(exe.func_names):
                    raise fail(pc, f"function index {arg.value} out of range")
        elif isinstance(ins, Ret):
            check_register(pc, ins.result)
        else:
            offset = ins.offset if isinstance(ins, Goto) else ins.false_offset
            if isinstance(ins, If):
                check_register(pc, ins.cond)
            if not 0 <= pc + offset < len(rng):
                raise fail(pc, f"jumps by {offset} outside the function's {len(rng)} instructions")
        instrs.append(ins)
    if not isinstance(instrs[-1], Ret | Goto):
        raise VMError(f"function '{name}' can run past its last instruction")
    return instrs


def _load_kernels(
    exe: Executable, loader: KernelLoader | None, backend: str | None
) -> Mapping[str, Callable]:
    from xrelax.backends.native import kernel_backend

    backend = kernel_backend(backend)
    try:
        if loader is None and backend == "native":
            from xrelax.backends.native.compiler import load_executable_kernels

            return load_executable_kernels(exe)
        if loader is None:
            from xrelax.backends.kernels.compiler import load_executable_kernels

            return load_executable_kernels(exe)
        if not exe.library:
            return {}
        return dict(loader(exe.library))
    except VMError:
        raise
    except Exception as err:
        raise VMError(f"kernel loader failed: {type(err).__name__}: {_one_line(err)}") from err


def _check_vm_calls(
    exe: Executable,
    funcs: list[tuple[VMFunction, range]],
    code: list[list[Instruction]],
    index_of: dict[str, int],
) -> None:
    """Calls from one VM function to another must pass the callee's argument count."""
    for (func, _), instrs in zip(funcs, code, strict=True):
        for pc, ins in enumerate(instrs):
            if not isinstance(ins, Call):
                continue
            callee = exe.func_names[ins.func_idx]
            if callee in index_of:
                expected = funcs[index_of[callee]][0].num_args
                if len(ins.args) != expected:
                    raise VMError(
                        f"function '{func.name}': instruction {pc} calls VM function "
                        f"'{callee}' with {len(ins.args)} arguments, expected {expected}"
                    )


class _MissingFunction(Exception):
    pass


def _resolve(
    exe: Executable,
    funcs: list[tuple[VMFunction, range]],
    code: list[list[Instruction]],
    index_of: dict[str, int],
    kernels: Mapping[str, Callable],
    packed_funcs: Mapping[str, Callable],
    allow_missing: bool,
) -> list[int | Callable]:
    """Per func_names entry: a VM function index, or the packed function to call."""
    users: dict[int, str] = {}
    for (func, _), instrs in zip(funcs, code, strict=True):
        for ins in instrs:
            if isinstance(ins, Call):
                users.setdefault(ins.func_idx, func.name)
                for arg in ins.args:
                    if arg.kind == ArgKind.FUNC_IDX:
                        users.setdefault(arg.value, func.name)
    resolved: list[int | Callable] = []
    for j, name in enumerate(exe.func_names):
        if name in index_of:
            resolved.append(index_of[name])
        elif name in kernels:
            resolved.append(kernels[name])
        elif name in packed_funcs:
            resolved.append(packed_funcs[name])
        elif name in builtins._REGISTRY:
            resolved.append(builtins._REGISTRY[name])
        elif j not in users or allow_missing:
            resolved.append(_missing(name))
        else:
            raise VMError(f"missing packed function '{name}' used by function '{users[j]}'")
    return resolved


def _missing(name: str) -> Callable[..., Any]:
    def missing(*args: Any) -> Any:
        raise _MissingFunction(name)

    return missing


# -- compilation to Python --------------------------------------------------------------


_ELIDED = (builtins.free_tensor,)
_KERNEL_CALLS = (builtins.call_tir_unchecked, builtins.call_tir_dyn)


class _Compiler:
    """Turns decoded VM functions into the source of one Python module."""

    def __init__(
        self,
        exe: Executable,
        funcs: list[VMFunction],
        resolved: list[int | Callable],
        *,
        profile: bool = False,
    ) -> None:
        self.exe = exe
        self.profile = profile
        """Whether each packed call is timed (see :mod:`profiler`)."""
        self.sites: list[tuple[str, int, str]] = []
        """The timed call sites: (VM function, pc, what its time counts under)."""
        self.funcs = funcs
        self.resolved = resolved
        self.vm_function_names = {f.name for f in funcs}
        self.globals = intrinsics.Globals()
        self.address = next(
            (
                entry.address
                for target in resolved
                if (entry := getattr(getattr(target, "compiled", None), "direct", None))
            ),
            None,
        )
        """How to read an array's data address, where some kernel runs machine code
        that takes addresses (:meth:`_direct_call`); None: no kernel does."""
        if self.address is not None:
            self.globals.values["_address"] = self.address
        self.lines: list[str] = []
        # source line number -> (function index, pc, packed function name or "" for
        # `if` / `ret`, the arguments as code)
        self.line_info: dict[int, tuple[int, int, str, tuple[str, ...]]] = {}

    def source(self) -> str:
        return "\n".join(self.lines) + "\n"

    def namespace(self) -> dict[str, Any]:
        ns: dict[str, Any] = {f"c{i}": _read_only(c) for i, c in enumerate(self.exe.constants)}
        for j, target in enumerate(self.resolved):
            if not isinstance(target, int):
                ns[f"p{j}"] = target
        ns.update(self.globals.values)
        ns["_VMError"] = VMError
        ns["_fail"] = self._fail
        ns["_name_function"] = self._name_function
        ns["_bind"] = self._bind
        if self.profile:
            recorder = Recorder(self.sites)
            ns["_recorder"], ns["_now"], ns["_record"] = recorder, recorder.now, recorder.record
        return ns

    def _emit(
        self, indent: int, text: str, info: tuple[int, int, str, tuple[str, ...]] | None = None
    ) -> None:
        self.lines.append("    " * indent + text)
        if info is not None:
            self.line_info[len(self.lines)] = info

    def function(self, k: int, instrs: list[Instruction]) -> None:
        func = self.funcs[k]
        params = ", ".join(f"r{i}" for i in range(func.num_args))
        self._emit(0, f"def E{k}(*args, **kwargs):  # {func.name!r}")
        self._emit(1, f"if kwargs or len(args) != {func.num_args}:")
        self._emit(2, f"args = _bind({k}, args, kwargs)")
        self._emit(1, f"return F{k}(*args)")
        self._emit(0, "")
        self._emit(0, f"def F{k}({params}):  # {func.name!r}")
        self._emit(1, "try:")
        targets = [self.resolved[ins.func_idx] if isinstance(ins, Call) else None for ins in instrs]
        leaders = block_leaders(instrs)
        self.code = instrs
        self.list_heaps = intrinsics.list_heaps(instrs, targets, leaders)
        self.merged = {
            pc - 1
            for pc in range(1, len(instrs))
            if pc not in leaders
            and targets[pc] is builtins.match_shape
            and targets[pc - 1] is builtins.check_tensor_info
            and instrs[pc].args[:1] == instrs[pc - 1].args[:1]
        }
        """The pcs of ``check_tensor_info`` calls emitted with the ``match_shape`` after."""
        self.done: set[int] = set()
        self.addresses: dict[int, str] = {}
        """Registers holding a C-contiguous tensor or storage the VM allocated, with the
        code of its data address (see :meth:`_direct_call`)."""
        self.direct_buffers = {
            arg.value
            for ins, target in zip(instrs, targets, strict=True)
            if target is builtins.call_tir_unchecked and self._direct_kernel(ins) is not None
            for arg in ins.args[1:]
            if arg.kind == ArgKind.REGISTER
        }
        """Registers passed to a kernel that may be called directly: a tensor allocated
        on its own (``alloc_tensor_direct``) has its address read only for these."""
        if any(isinstance(ins, Goto | If) for ins in instrs):
            self._blocks(k, instrs)
        else:
            for pc, ins in enumerate(instrs):
                if isinstance(ins, Ret):
                    self._emit(2, f"return r{ins.result}", (k, pc, "", ()))
                    break
                self._call(2, k, pc, ins)
        self._emit(1, "except _VMError as _e:")
        self._emit(2, f"_name_function({k}, _e)")
        self._emit(2, "raise")
        self._emit(1, "except Exception as _e:")
        self._emit(2, f"raise _fail({k}, _e) from _e")
        self._emit(0, "")

    def _blocks(self, k: int, instrs: list[Instruction]) -> None:
        """Basic blocks keyed by their first pc, dispatched in a loop on ``_b``.

        The blocks are flat ``if`` statements in pc order, so forward control flow falls
        into the next test; only backward jumps restart the loop with ``continue``.
        """
        starts = sorted(block_leaders(instrs))
        self._emit(2, "_b = 0")
        self._emit(2, "while True:")
        for n, start in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(instrs)
            self._emit(3, f"if _b == {start}:")
            self.addresses = {}  # a block may be entered from anywhere
            for pc in range(start, end):
                ins = instrs[pc]
                if isinstance(ins, Call) and self._is_tail_call(k, instrs, pc):
                    # A call of this function whose result is returned (a loop written
                    # as recursion) restarts it with new arguments: no Python frame.
                    params = "".join(f"r{i}, " for i in range(len(ins.args)))
                    args = "".join(f"{self._arg(a)}, " for a in ins.args)
                    self._emit(4, f"{params}= {args}", (k, pc, "", ()))
                    self._emit(4, "_b = 0")
                    self._emit(4, "continue")
                    break
                if isinstance(ins, Call):
                    self._call(4, k, pc, ins)
                elif isinstance(ins, Ret):
                    self._emit(4, f"return r{ins.result}", (k, pc, "", ()))
                elif isinstance(ins, Goto):
                    target = pc + ins.offset
                    self._emit(4, f"_b = {target}")
                    if target <= pc:
                        self._emit(4, "continue")
                else:
                    target = pc + ins.false_offset
                    self._emit(4, f"_b = {pc + 1} if r{ins.cond} else {target}", (k, pc, "", ()))
                    if target <= pc:
                        self._emit(4, "continue")
            if not isinstance(instrs[end - 1], Ret | Goto | If):
                self._emit(4, f"_b = {end}")

    def _is_tail_call(self, k: int, instrs: list[Instruction], pc: int) -> bool:
        """Whether ``instrs[pc]`` calls function ``k`` itself with all its parameters and
        the function returns the result as is (through moves and forward jumps)."""
        ins = instrs[pc]
        assert isinstance(ins, Call)
        target = self.resolved[ins.func_idx]
        if not (isinstance(target, int) and target == k) or ins.dst is None:
            return False
        if len(ins.args) != self.funcs[k].num_args or pc in self.done:
            return False
        result = {ins.dst}
        pc += 1
        while pc < len(instrs):
            ins = instrs[pc]
            if isinstance(ins, Ret):
                return ins.result in result
            if isinstance(ins, Goto) and ins.offset > 0:
                pc += ins.offset
            elif (
                isinstance(ins, Call)
                and self.resolved[ins.func_idx] is builtins.move
                and ins.args[0].kind == ArgKind.REGISTER
                and ins.args[0].value in result
                and ins.dst is not None
            ):
                result.add(ins.dst)
                pc += 1
            else:
                return False
        return False

    def _call(self, indent: int, k: int, pc: int, ins: Call) -> None:
        if pc in self.done:
            return
        name = self.exe.func_names[ins.func_idx]
        target = self.resolved[ins.func_idx]
        lhs = "" if ins.dst is None else f"r{ins.dst} = "
        args = [self._arg(a) for a in ins.args]
        if any(target is f for f in _ELIDED):
            self._emit(indent, "pass" if ins.dst is None else f"{lhs}None")
            return
        if target is builtins.move and len(args) == 1:
            self._emit(indent, f"{lhs}{args[0]}" if lhs else "pass")
            return
        info = (k, pc, name, tuple(args))
        lines = self._call_lines(pc, ins, target)
        timed = self.profile and not isinstance(target, int)
        if timed:
            self._emit(indent, "_t = _now()")
        for line in lines:
            self._emit(indent, line, info)
        if timed:
            self._emit(indent, f"_record({len(self.sites)}, _t)")
            self.sites.append((self.funcs[k].name, pc, self._timed_name(ins, name)))
        if ins.dst is not None:
            self.addresses.pop(ins.dst, None)
            address = self._address_of(ins, target, lines)
            if address is not None:
                if not address.isidentifier():
                    self._emit(indent, f"a{ins.dst} = {address}", info)
                    address = f"a{ins.dst}"
                self.addresses[ins.dst] = address

    def _address_of(self, ins: Call, target: int | Callable, lines: list[str]) -> str | None:
        """The code of the data address of what call ``ins`` allocates: a storage, or a
        tensor viewing one at an offset (as the inline ``alloc_tensor`` makes it)."""
        if self.address is None:
            return None
        if target is builtins.alloc_storage:
            return f"_address(r{ins.dst})"
        if (
            target is builtins.alloc_tensor_direct
            and ins.dst in self.direct_buffers
            and lines[0].startswith(f"r{ins.dst} = _empty(")
        ):
            return f"_address(r{ins.dst})"
        if target is builtins.alloc_tensor and lines[0].startswith(f"r{ins.dst} = _ndarray("):
            storage, offset = ins.args[0], ins.args[1]
            if storage.kind == ArgKind.REGISTER and storage.value in self.addresses:
                base = self.addresses[storage.value]
                return base if self._arg(offset) == "0" else f"{base} + {self._arg(offset)}"
        return None

    def _timed_name(self, ins: Call, name: str) -> str:
        """What a call site's time is counted under: the kernel a ``call_tir`` builtin
        calls, else the packed function."""
        target = self.resolved[ins.func_idx]
        if target in _KERNEL_CALLS and ins.args and ins.args[0].kind == ArgKind.FUNC_IDX:
            return self.exe.func_names[ins.args[0].value]
        return name

    def _call_lines(self, pc: int, ins: Call, target: int | Callable) -> list[str]:
        """The statements of call ``ins``: a builtin's inline form where it has one."""
        site = self._site(ins)
        if pc in self.merged:
            lines = intrinsics.checked_match(site, self._site(self.code[pc + 1]), self.globals)
            if lines is not None:
                self.done.add(pc + 1)
                return lines
        direct = self._direct_call(ins, target)
        if direct is not None:
            return [f"if {direct}: {site.call}"]
        expansion = intrinsics.expansion_of(target)
        if expansion is not None:
            lines = expansion(site, self.globals)
            if lines is not None:
                return lines
        return [site.call]

    def _site(self, ins: Call) -> intrinsics.CallSite:
        """The call ``ins`` as code, for the builtins' inline forms."""
        target = self.resolved[ins.func_idx]
        lhs = "" if ins.dst is None else f"r{ins.dst} = "
        args = [self._arg(a) for a in ins.args]
        if target is builtins.call_tir_dyn and len(args) >= 2:
            callee, rest = args[0], args[1:]
            text = f"{lhs}{callee}({', '.join(rest[:-1] + ['*' + rest[-1]])})"
        elif (
            target is builtins.call_tir_unchecked
            and ins.args[:1]
            and (ins.args[0].kind == ArgKind.FUNC_IDX)
        ):
            text = f"{lhs}{self._unchecked(ins.args[0].value)}({', '.join(args[1:])})"
        else:
            text = f"{lhs}{self._callee(ins.func_idx)}({', '.join(args)})"
        registers = {a.value for a in ins.args if a.kind == ArgKind.REGISTER}
        if ins.dst is not None:
            registers.add(ins.dst)
        return intrinsics.CallSite(
            lhs,
            text,
            args,
            [self._value(a) for a in ins.args],
            list_heap=not registers.isdisjoint(self.list_heaps),
        )

    def _direct_call(self, ins: Call, target: int | Callable) -> str | None:
        """A native kernel's machine code called with its buffers' addresses, where the
        call is ``call_tir_unchecked`` (the compiler proved the signature) and every
        buffer is a constant array or a tensor the VM allocated: no Python wrapper, no
        per-buffer conversion. Non-zero from the code (a failed check) runs the kernel's
        unchecked entry, which reports the failure."""
        if target is not builtins.call_tir_unchecked:
            return None
        compiled = self._direct_kernel(ins)
        if compiled is None:
            return None
        direct, callee = compiled.direct, ins.args[0]
        buffers, syms = ins.args[1 : 1 + compiled.buffers], ins.args[1 + compiled.buffers :]
        addresses = [self._buffer_address(arg) for arg in buffers]
        if None in addresses:
            return None
        sizes = [
            f"{self._arg(buffers[v[0]])}.shape[{v[1]}]"
            if isinstance(v, tuple)
            else self._arg(syms[v])
            for v in direct.variables
        ]
        self.globals.values[f"n{callee.value}"] = direct.function
        call = f"n{callee.value}({', '.join([*addresses, *sizes])})"
        return call if direct.guard is None else f"not {direct.guard.format(*sizes)} or {call}"

    def _direct_kernel(self, ins: Call) -> CompiledKernel | None:
        """The kernel a ``call_tir_unchecked`` call ``ins`` makes, where its machine code
        may be called directly (``CompiledKernel.direct``)."""
        callee = ins.args[0] if ins.args else None
        if callee is None or callee.kind != ArgKind.FUNC_IDX:
            return None
        compiled = getattr(self.resolved[callee.value], "compiled", None)
        if getattr(compiled, "direct", None) is None or len(ins.args) - 1 < compiled.buffers:
            return None
        return compiled

    def _buffer_address(self, arg: Arg) -> str | None:
        """The code of a kernel buffer argument's data address, where the VM knows it."""
        if arg.kind == ArgKind.REGISTER:
            return self.addresses.get(arg.value)
        if arg.kind != ArgKind.CONST_IDX:
            return None
        value = self.exe.constants[arg.value]
        if not (isinstance(value, np.ndarray) and value.flags.c_contiguous):
            return None
        self.globals.values[f"k{arg.value}"] = self.address(value)
        return f"k{arg.value}"

    def _value(self, arg: Arg) -> Any:
        """The constant value of an argument (``NOT_CONSTANT`` for a register)."""
        if arg.kind == ArgKind.IMMEDIATE:
            return arg.value
        if arg.kind == ArgKind.CONST_IDX:
            return self.exe.constants[arg.value]
        return intrinsics.NOT_CONSTANT

    def _callee(self, j: int) -> str:
        target = self.resolved[j]
        return f"F{target}" if isinstance(target, int) else f"p{j}"

    def _unchecked(self, j: int) -> str:
        """The name of packed function ``j``'s unchecked entry (its ``unchecked``
        attribute, as kernels have), or of the function itself."""
        entry = getattr(self.resolved[j], "unchecked", None)
        if not callable(entry):
            return self._callee(j)
        self.globals.values[f"u{j}"] = entry
        return f"u{j}"

    def _arg(self, arg: Arg) -> str:
        if arg.kind == ArgKind.REGISTER:
            return f"r{arg.value}"
        if arg.kind == ArgKind.IMMEDIATE:
            return f"({arg.value})" if arg.value < 0 else str(arg.value)
        if arg.kind == ArgKind.CONST_IDX:
            return f"c{arg.value}"
        return self._callee(arg.value)

    # -- run-time helpers (only reached on errors or keyword calls) ---------------------

    def _name_function(self, k: int, err: VMError) -> None:
        """Prefix the function name to a VMError a packed function raised without it
        (an allocation names the function and the value after what failed).

        Errors from called VM functions already name the innermost function.
        """
        fn = self.funcs[k].name
        tb = err.__traceback__
        info = self.line_info.get(tb.tb_lineno) if tb is not None else None
        if info is None or not info[2] or info[2] in self.vm_function_names:
            return
        if isinstance(err, AllocationError):
            err.args = (err.located(fn, self._value_name(k, info[1])),)
            return
        message = str(err)
        if not message.startswith(f"{fn}: "):
            err.args = (f"{fn}: {message}",)

    def _fail(self, k: int, err: Exception) -> VMError:
        fn = self.funcs[k].name
        tb = err.__traceback__
        info = self.line_info.get(tb.tb_lineno) if tb is not None else None
        detail = f"{type(err).__name__}: {_one_line(err)}"
        if info is None:
            return VMError(f"{fn}: {detail}")
        _, pc, packed, args = info
        if isinstance(err, UnboundLocalError) and tb.tb_next is None:
            match = re.search(r"'r(\d+)'", str(err))
            reg = match.group(1) if match else "?"
            return VMError(f"{fn}: instruction {pc} reads register %{reg} before it is written")
        if not packed:
            return VMError(f"{fn}: instruction {pc}: cannot test if condition: {detail}")
        if isinstance(err, _MissingFunction):
            return VMError(f"{fn}: instruction {pc} calls missing packed function '{packed}'")
        if isinstance(err, RecursionError):
            return VMError(f"{fn}: calls nested too deeply (recursion deeper than Python allows)")
        allocation = self._allocation_error(tb, packed, args)
        if allocation is not None:
            return VMError(allocation.located(fn, self._value_name(k, pc)))
        return VMError(f"{fn}: packed function '{packed}' (instruction {pc}) failed: {detail}")

    def _value_name(self, k: int, pc: int) -> str | None:
        return self.exe.value_names.get(self.funcs[k].start_instr + pc)

    @staticmethod
    def _allocation_error(tb: Any, packed: str, args: tuple[str, ...]) -> AllocationError | None:
        """The error of an inlined allocation that failed: the builtin, called again with
        the same arguments (read from the failing frame), says what could not be made."""
        builtin = builtins._REGISTRY.get(packed)
        if builtin not in _ALLOCATORS:
            return None
        frame = tb.tb_frame
        try:
            builtin(*[eval(code, frame.f_globals, frame.f_locals) for code in args])  # noqa: S307 - the VM's own generated argument code
        except AllocationError as err:
            return err
        except Exception:  # noqa: BLE001 - not an allocation problem after all
            return None
        return None

    def _bind(self, k: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        func = self.funcs[k]
        names, n = func.param_names, func.num_args
        if len(args) > n:
            raise VMError(
                f"{func.name}: expected {n} arguments, got {len(args) + len(kwargs)} "
                f"(parameters: {', '.join(names) or 'none'})"
            )
        values: list[Any] = [*args, *[_UNSET] * (n - len(args))]
        for key, value in kwargs.items():
            if key not in names:
                raise VMError(
                    f"{func.name}: unexpected argument '{key}' (parameters: {', '.join(names)})"
                )
            i = names.index(key)
            if values[i] is not _UNSET:
                raise VMError(f"{func.name}: argument '{key}' given twice")
            values[i] = value
        missing = [names[i] for i, v in enumerate(values) if v is _UNSET]
        if missing:
            raise VMError(f"{func.name}: {missing_arguments(missing, names)}")
        return tuple(values)


def _read_only(value: Any) -> Any:
    """A constant as the VM's code sees it: arrays (also in tuples) as read-only views."""
    if isinstance(value, np.ndarray):
        view = value.view()
        view.flags.writeable = False
        return view
    if isinstance(value, tuple):
        return tuple(_read_only(v) for v in value)
    return value


_UNSET = object()
_ALLOCATORS = (builtins.alloc_storage, builtins.alloc_tensor, builtins.alloc_tensor_direct)


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())
