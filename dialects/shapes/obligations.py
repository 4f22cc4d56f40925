"""Obligations: the facts a shape deduction relies on but cannot prove (docs/design.md §2).

A deduction states what it relies on with ``require`` (:mod:`xrelax.ops.base`). A
fact that is proven costs nothing, a provably false one is a compile-time error,
and an undecided one is recorded here, in the innermost :func:`collect`, so that the
compiler checks it at run time before a kernel relies on it (docs/shape-safety.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from xrelax.dialects.shapes.symbolic import Fact

T = TypeVar("T")

_collectors: list[list[Fact]] = []


def record(fact: Fact) -> None:
    """Record an undecided fact in the innermost :func:`collect` (if any)."""
    if _collectors:
        _collectors[-1].append(fact)


def collecting() -> bool:
    """Whether a :func:`collect` is active (a recorded fact would be checked)."""
    return bool(_collectors)


def collect(run: Callable[[], T]) -> tuple[T, tuple[Fact, ...]]:
    """Run ``run`` and return its result with the facts it recorded, in order, once each."""
    _collectors.append([])
    try:
        result = run()
    finally:
        facts = _collectors.pop()
    return result, tuple(dict.fromkeys(facts))
