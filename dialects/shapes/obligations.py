"""Obligations: the facts a shape deduction relies on but cannot prove (docs/design.md §2).

A deduction states what it relies on with ``require`` (:mod:`xrelax.ops.base`) into
the :class:`Facts` it is given. A fact that is proven costs nothing, a provably false
one is a compile-time error, and an undecided one is added to the facts, which the
deduction returns with its result type (a :class:`Deduction`), so that the compiler
checks them at run time before a kernel relies on them (docs/shape-safety.md).
"""

from __future__ import annotations

from typing import NamedTuple

from xdsl.ir import Attribute

from xrelax.dialects.shapes.symbolic import Fact


class Facts:
    """The undecided facts one deduction relies on: each added once, kept in order."""

    def __init__(self) -> None:
        self._facts: dict[Fact, None] = {}

    def add(self, fact: Fact) -> None:
        """Rely on ``fact`` (an undecided one: it is checked at run time)."""
        self._facts[fact] = None

    def as_tuple(self) -> tuple[Fact, ...]:
        """The facts, in the order first added."""
        return tuple(self._facts)


class Deduction(NamedTuple):
    """A deduced result type and the undecided facts the deduction relies on."""

    type: Attribute
    facts: tuple[Fact, ...]
