"""The prim_funcs of a module keyed by structure, so that identical kernels are shared
(``relax-legalize-ops`` and ``BlockBuilder.emit_te`` add their kernels through it)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from io import StringIO

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.printer import Printer
from xdsl.traits import SymbolTable

from xrelax.dialects.tir import PrimFuncOp


def structure_key(func: PrimFuncOp) -> str:
    """The printed ``func`` with its name left out: equal for structurally equal kernels."""
    stream = StringIO()
    Printer(stream=stream).print_op(func)
    return re.sub(r"@[\w$.]+", "@_", stream.getvalue(), count=1)


@dataclass
class KernelTable:
    """The prim_funcs of a module, keyed by structure so identical kernels are shared."""

    module: ModuleOp
    by_text: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of_module(cls, module: ModuleOp) -> KernelTable:
        """A table that already knows the prim_funcs ``module`` holds."""
        table = cls(module)
        for existing in module.ops:
            if isinstance(existing, PrimFuncOp):
                table.by_text.setdefault(structure_key(existing), existing.sym_name.data)
        return table

    def add(self, func: PrimFuncOp, anchor: Operation | None = None) -> str:
        """The name of a kernel structurally equal to ``func``; a new one is inserted
        before ``anchor`` (at the end of the module without one), renamed if its name
        is taken."""
        key = structure_key(func)
        existing = self.by_text.get(key)
        if existing is not None:
            return existing
        base = func.sym_name.data
        name, suffix = base, 0
        while SymbolTable.lookup_symbol(self.module, name) is not None:
            suffix += 1
            name = f"{base}{suffix}"
        func.sym_name = StringAttr(name)
        if anchor is None:
            self.module.body.block.add_op(func)
        else:
            self.module.body.block.insert_op_before(func, anchor)
        self.by_text[key] = name
        return name
