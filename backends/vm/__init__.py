"""The Relax virtual machine: executable format, builder, builtins and interpreter."""

from .builtins import get_func, list_funcs, register_func
from .error import VMError
from .exec_builder import ExecBuilder
from .executable import (
    Arg,
    ArgKind,
    Call,
    Executable,
    Goto,
    If,
    Instruction,
    Opcode,
    Ret,
    VMFunction,
)
from .virtual_machine import KernelLoader, VirtualMachine

__all__ = [
    "Arg",
    "ArgKind",
    "Call",
    "ExecBuilder",
    "Executable",
    "Goto",
    "If",
    "Instruction",
    "KernelLoader",
    "Opcode",
    "Ret",
    "VMError",
    "VMFunction",
    "VirtualMachine",
    "get_func",
    "list_funcs",
    "register_func",
]
