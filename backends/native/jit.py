"""Compiling llvm modules to machine code for the host CPU, cached by content.

An ``llvm.func`` module becomes LLVM IR (xDSL's ``xdsl.backend.llvm.convert``), is
optimized with LLVM's ``-O3`` pipeline (loop and SLP vectorization for the host CPU's
features) and emitted as an object file, which one process-wide MCJIT engine links.
The object code is cached by the hash of the IR, the host CPU and the LLVM version: in
memory, and as a file under :func:`cache_dir` so that another process loads it
without optimizing or generating code again.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm_binding
from llvmlite import ir
from xdsl.backend.llvm.convert import convert_module
from xdsl.dialects.builtin import ModuleOp

from xrelax.backends.native import parallel
from xrelax.backends.native.tir_to_llvm import ROLLED_LATCH

CACHE_ENV = "XRELAX_NATIVE_CACHE"
"""The directory of the object-code cache (``0`` or empty: no disk cache)."""


def cache_dir() -> Path | None:
    """Where compiled kernels are kept between processes: ``$XRELAX_NATIVE_CACHE``, by
    default ``~/.cache/xrelax/native`` (``$XDG_CACHE_HOME`` if set)."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return Path(value) if value not in ("", "0") else None
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "xrelax" / "native"


class _Jit:
    """The target machine, the engine the object files are linked into, the caches."""

    def __init__(self) -> None:
        llvm_binding.initialize_native_target()
        llvm_binding.initialize_native_asmprinter()
        triple = llvm_binding.get_process_triple()
        cpu = llvm_binding.get_host_cpu_name()
        features = llvm_binding.get_host_cpu_features().flatten()
        self.target_machine = llvm_binding.Target.from_triple(triple).create_target_machine(
            cpu=cpu, features=features, opt=3, jit=True
        )
        self.triple = triple
        self.data_layout = str(self.target_machine.target_data)
        self.host = f"{triple} {cpu} {features} llvmlite {llvmlite.__version__}"
        backing = llvm_binding.parse_assembly("")
        backing.triple = triple
        self.engine = llvm_binding.create_mcjit_compiler(backing, self.target_machine)
        self.addresses: dict[str, int] = {}
        self.linked: set[str] = set()
        """The keys of the object files linked into the engine."""
        runtime = parallel.runtime_ir(triple)
        llvm_binding.add_symbol(parallel.PARALLEL_FOR, self.address(runtime, parallel.PARALLEL_FOR))
        self.pool = parallel.Pool(lambda symbol: self.address(runtime, symbol), triple)
        """The worker threads of the kernels' parallel loops (:mod:`.parallel`)."""

    def ir(self, module: ModuleOp) -> str:
        """The LLVM IR text of ``module``; the latch branch of each loop the lowering
        keeps rolled (a block named :data:`.tir_to_llvm.ROLLED_LATCH`) carries
        ``llvm.loop.unroll.disable``, which xDSL's ``llvm`` dialect cannot express."""
        llvm_module = convert_module(
            module, fallback_target_triple=self.triple, data_layout=self.data_layout
        )
        disable = None
        for function in llvm_module.functions:
            for block in function.blocks:
                if block.name.startswith(ROLLED_LATCH):
                    if disable is None:
                        disable = llvm_module.add_metadata(
                            [ir.MetaDataString(llvm_module, "llvm.loop.unroll.disable")]
                        )
                    loop = _LoopID(llvm_module, [disable], name=str(len(llvm_module.metadata)))
                    block.terminator.set_metadata("llvm.loop", loop)
        return str(llvm_module)

    def address(self, source: str, symbol: str, make_ir: Callable[[], str] | None = None) -> int:
        """The address of ``symbol`` in the code compiled from ``source``: LLVM IR text,
        or any text that determines it, with ``make_ir`` making the IR when the code is
        in no cache (compiled once per host)."""
        address = self.cached(source, symbol)
        if address is not None:
            return address
        key = self._key(source)
        obj = self._compile(make_ir() if make_ir is not None else source)
        self._store(key, obj)
        self._link(key, obj)
        return self._symbol(key, symbol)

    def cached(self, source: str, symbol: str) -> int | None:
        """The address of ``symbol`` if the code of ``source`` is in memory or on disk."""
        key = self._key(source)
        if key not in self.linked:
            obj = self._load(key)
            if obj is None:
                return None
            self._link(key, obj)
        return self._symbol(key, symbol)

    def refusal(self, source: str) -> str | None:
        """Why the lowering refused ``source`` before (kept on disk with the code)."""
        directory = cache_dir()
        if directory is None:
            return None
        try:
            return (directory / f"{self._key(source)}.refused").read_text()
        except OSError:
            return None

    def refuse(self, source: str, reason: str) -> None:
        """Remember that the lowering refuses ``source``, and why."""
        self._store(self._key(source), reason.encode(), ".refused")

    def _key(self, source: str) -> str:
        return hashlib.sha256(f"{self.host}\n{source}".encode()).hexdigest()

    def _link(self, key: str, obj: bytes) -> None:
        self.engine.add_object_file(llvm_binding.ObjectFileRef.from_data(obj))
        self.engine.finalize_object()
        self.linked.add(key)

    def _symbol(self, key: str, symbol: str) -> int:
        address = self.addresses.get(f"{key}:{symbol}")
        if address is None:
            address = self.engine.get_function_address(symbol)
            if not address:
                raise RuntimeError(f"the native kernel has no symbol {symbol}")
            self.addresses[f"{key}:{symbol}"] = address
        return address

    def _compile(self, ir_text: str) -> bytes:
        module = llvm_binding.parse_assembly(ir_text)
        module.verify()
        options = llvm_binding.PipelineTuningOptions(speed_level=3)
        options.loop_vectorization = True
        options.slp_vectorization = True
        with (
            options,
            llvm_binding.create_pass_builder(self.target_machine, options) as builder,
            builder.getModulePassManager() as manager,
        ):
            manager.run(module, builder)
        return self.target_machine.emit_object(module)

    def _load(self, key: str) -> bytes | None:
        directory = cache_dir()
        if directory is None:
            return None
        try:
            return (directory / f"{key}.o").read_bytes()
        except OSError:
            return None

    def _store(self, key: str, obj: bytes, suffix: str = ".o") -> None:
        directory = cache_dir()
        if directory is None:
            return
        try:
            directory.mkdir(parents=True, exist_ok=True)
            # Written whole then renamed: a concurrent reader sees no partial file.
            with tempfile.NamedTemporaryFile(dir=directory, delete=False) as file:
                file.write(obj)
            os.replace(file.name, directory / f"{key}{suffix}")
        except OSError:
            pass  # an unwritable cache only costs the next process a compilation


class _LoopID(ir.values.MDValue):
    """A loop's metadata node: distinct, itself its first operand (as LLVM requires of
    a loop ID), then the loop's properties."""

    def descr(self, buf: list[str]) -> None:
        properties = "".join(f", {op.get_reference()}" for op in self.operands)
        buf += (f"distinct !{{{self.get_reference()}{properties}}}", "\n")


_JIT: _Jit | None = None


def jit() -> _Jit:
    """The process's JIT (created on first use)."""
    global _JIT
    if _JIT is None:
        _JIT = _Jit()
    return _JIT
