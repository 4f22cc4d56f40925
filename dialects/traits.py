"""Op traits shared by the relax and vm dialects, and by the diagnostics of the parser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.ir import Operation
from xdsl.traits import OpTrait

if TYPE_CHECKING:
    import sympy  # the diagnostics import this module; sympy loads only with the dims


@dataclass(frozen=True)
class BindsSymbolicVars(OpTrait):
    """The op defines the symbolic variables that appear as whole dimensions of its
    result type (``relax.match_shape``, ``vm.match_shape``); scoping checks honour it."""


@dataclass(frozen=True)
class DeducesFromOperandShapes(OpTrait):
    """The op's result type is deduced from its operands' shapes. When the parser meets
    a use of the result at a more specific type, its message names the operand dims the
    deduction could not relate (:meth:`unrelated_dims`)."""

    def unrelated_dims(self, op: Operation) -> tuple[int, list[sympy.Expr]] | None:
        """The first result axis at which ``op``'s operand dims are neither provably
        equal nor 1, and the dims there; None when every axis relates."""
        raise NotImplementedError
