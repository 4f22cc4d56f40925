"""The prim_funcs of a module keyed by structure, so that identical kernels are shared
(``relax-legalize-ops`` and ``BlockBuilder.emit_te`` add their kernels through it)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from io import StringIO

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.printer import Printer

from xrelax.dialects.tir import PrimFuncOp


def structure_key(func: PrimFuncOp) -> str:
    """The printed ``func`` with its name left out: equal for structurally equal kernels."""
    stream = StringIO()
    Printer(stream=stream).print_op(func)
    return re.sub(r"@[\w$.]+", "@_", stream.getvalue(), count=1)


def _outline(func: PrimFuncOp) -> tuple:
    """A cheap necessary condition of structural equality: the signature and the names
    of the ops in order (printing a large fused kernel costs far more)."""
    return (func.function_type, func.sym_params, tuple(op.name for op in func.walk()))


@dataclass
class KernelTable:
    """The prim_funcs of a module, keyed by structure so identical kernels are shared.

    A kernel is printed (:func:`structure_key`) only when another one has its outline.
    """

    module: ModuleOp
    _by_outline: dict[tuple, list[PrimFuncOp]] = field(default_factory=dict)
    _keys: dict[PrimFuncOp, str] = field(default_factory=dict)
    _names: set[str] = field(default_factory=set)
    """The module's symbol names (a lookup per candidate name walks the module)."""
    _next_suffix: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for op in self.module.ops:
            self.reserve(op)

    @classmethod
    def of_module(cls, module: ModuleOp) -> KernelTable:
        """A table that already knows the prim_funcs ``module`` holds."""
        table = cls(module)
        for existing in module.ops:
            if isinstance(existing, PrimFuncOp):
                table._by_outline.setdefault(_outline(existing), []).append(existing)
        return table

    def reserve(self, op: Operation) -> None:
        """Note a symbol added to the module other than by :meth:`add`."""
        name = op.properties.get("sym_name")
        if isinstance(name, StringAttr):
            self._names.add(name.data)

    def _key(self, func: PrimFuncOp) -> str:
        if func not in self._keys:
            self._keys[func] = structure_key(func)
        return self._keys[func]

    def add(self, func: PrimFuncOp, anchor: Operation | None = None) -> str:
        """The name of a kernel structurally equal to ``func``; a new one is inserted
        before ``anchor`` (at the end of the module without one), renamed if its name
        is taken."""
        candidates = self._by_outline.setdefault(_outline(func), [])
        if candidates:
            key = structure_key(func)
            for existing in candidates:
                if self._key(existing) == key:
                    return existing.sym_name.data
        base = func.sym_name.data
        name, suffix = base, self._next_suffix.get(base, 0)
        if suffix:
            name = f"{base}{suffix}"
        while name in self._names:
            suffix += 1
            name = f"{base}{suffix}"
        self._next_suffix[base] = suffix + 1
        self._names.add(name)
        func.sym_name = StringAttr(name)
        if anchor is None:
            self.module.body.block.add_op(func)
        else:
            self.module.body.block.insert_op_before(func, anchor)
        candidates.append(func)
        return name
