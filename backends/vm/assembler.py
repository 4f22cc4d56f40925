"""Assemble vm-dialect IR into an :class:`Executable` through :class:`ExecBuilder`.

Each ``vm.func`` becomes a VM function: SSA values become registers (the builder
formalises their numbering), ``vm.imm`` / ``vm.const`` / ``vm.func_ref`` become
immediate, constant-pool and function arguments, blocks are laid out in region order
with ``vm.if`` / ``vm.goto`` offsets patched once their targets are placed, and
values passed to a block's arguments are moved into its registers. The module's
``tir.prim_func`` kernels become the executable's library, printed when its text is
first needed (the kernel loaders of this process compile the ops as they are).
"""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.printer import Printer

from xrelax.backends.vm.exec_builder import ExecBuilder
from xrelax.backends.vm.executable import Arg, ArgKind, Executable
from xrelax.dialects import dtypes, tir, vm
from xrelax.dialects.ir.gc_pause import paused_gc


def constant_value(attr: Attribute) -> Any:
    """The Python value of a ``vm.const`` attribute."""
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, ArrayAttr):
        return tuple(constant_value(a) for a in attr.data)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return dtypes.dense_array(attr)
    raise TypeError(f"unsupported constant {attr}")


@dataclass(frozen=True)
class AssembledKernels:
    """The ``tir.prim_func`` ops of a module assembled in this process, as an executable's
    library: kernel loaders compile them as they are (no printing and re-parsing)."""

    ops: tuple[tir.PrimFuncOp, ...]

    def text(self) -> str:
        """The library text: the kernels printed as a module."""
        stream = StringIO()
        printer = Printer(stream=stream)
        stream.write("builtin.module {\n")
        for kernel in self.ops:
            printer.print_op(kernel)
            stream.write("\n")
        stream.write("}\n")
        return stream.getvalue()


class _FunctionAssembler:
    def __init__(self, builder: ExecBuilder, func: vm.FuncOp) -> None:
        self.ib = builder
        self.func = func
        self.registers: dict[SSAValue, int] = {}
        self.count = 0
        self.block_pc: dict[Block, int] = {}
        self.fixups: list[tuple[int, Block]] = []

    def register(self, value: SSAValue) -> Arg:
        if value not in self.registers:
            self.registers[value] = self.fresh()
        return self.ib.r(self.registers[value])

    def fresh(self) -> int:
        self.count += 1
        return self.count - 1

    def operand(self, value: SSAValue) -> Arg:
        owner = value.owner
        if isinstance(owner, vm.ImmOp):
            return self.ib.imm(owner.value.value.data)
        if isinstance(owner, vm.ConstOp):
            return self.ib.c(self.ib.convert_constant(constant_value(owner.value)))
        if isinstance(owner, vm.FuncRefOp):
            return self.ib.f(owner.callee.data)
        return self.register(value)

    def in_register(self, value: SSAValue) -> Arg:
        """``value`` in a register (materialising immediates and constants)."""
        arg = self.operand(value)
        if arg.kind == ArgKind.REGISTER:
            return arg
        dst = self.ib.r(self.fresh())
        self.ib.emit_call("vm.builtin.move", [arg], dst=dst)
        return dst

    def run(self) -> None:
        entry = self.func.body.blocks.first
        for arg in entry.args:
            self.register(arg)
        names = self.func.param_names
        with self.ib.function(self.func.sym_name.data, len(entry.args), names):
            for block in self.func.body.blocks:
                self.block_pc[block] = self.ib.current_pc()
                for op in block.ops:
                    self.emit(op)
            for pc, target in self.fixups:
                self.ib.patch_offset(pc, self.block_pc[target] - pc)

    def emit(self, op) -> None:
        if isinstance(op, vm.ImmOp | vm.ConstOp | vm.FuncRefOp):
            return
        if isinstance(op, vm.CallOp):
            args = [self.operand(a) for a in op.args]
            dst = self.register(op.result) if op.result is not None else None
            name = op.result.name_hint if op.result is not None else None
            self.ib.emit_call(op.callee.data, args, dst=dst, value_name=name)
        elif isinstance(op, vm.RetOp):
            self.ib.emit_ret(self.in_register(op.value))
        elif isinstance(op, vm.IfOp):
            pc = self.ib.emit_if(self.in_register(op.cond), 0)
            self.fixups.append((pc, op.else_block))
        elif isinstance(op, vm.GotoOp):
            for value, target in zip(op.args, op.target.args, strict=True):
                self.ib.emit_call(
                    "vm.builtin.move", [self.operand(value)], dst=self.register(target)
                )
            pc = self.ib.emit_goto(0)
            self.fixups.append((pc, op.target))
        else:
            raise TypeError(f"cannot assemble {op.name}")


def assemble(module: ModuleOp) -> Executable:
    """The executable of the ``vm.func`` ops (and tir kernels) of ``module``."""
    builder = ExecBuilder()
    with paused_gc():
        for op in module.ops:
            if isinstance(op, vm.FuncOp):
                _FunctionAssembler(builder, op).run()
        kernels = tuple(op for op in module.ops if isinstance(op, tir.PrimFuncOp))
        if kernels:
            builder.set_unprinted_library(AssembledKernels(kernels))
    return builder.get()
