"""Op traits shared by the relax and vm dialects."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.traits import OpTrait


@dataclass(frozen=True)
class BindsSymbolicVars(OpTrait):
    """The op defines the symbolic variables that appear as whole dimensions of its
    result type (``relax.match_shape``, ``vm.match_shape``); scoping checks honour it."""

    @staticmethod
    def bound_names(op: Operation) -> set[str]:
        """The variables ``op`` binds."""
        from xrelax.dialects.relax_scoping import type_binds

        return type_binds(op.results[0].type)
