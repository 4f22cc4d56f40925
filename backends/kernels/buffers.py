"""Buffers as the generated code sees them, and arrays over an iteration domain."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy


@dataclass(frozen=True)
class Buffer:
    """A buffer held in the Python variable ``name`` (any strides, unless the code that
    uses it asks for C order: ``Source.contiguous``)."""

    name: str
    label: str
    """Its name in the IR (``A`` for ``%A``), for messages."""
    dims: tuple[sympy.Expr, ...]
    dtype: np.dtype


@dataclass(frozen=True)
class Axis:
    """A loop of a vectorized statement: ``var`` over ``[lo, lo + extent)``."""

    var: str
    lo: sympy.Expr
    extent: sympy.Expr


@dataclass(frozen=True)
class Domain:
    """The iteration box of a statement; array axes follow ``axes`` in order."""

    axes: tuple[Axis, ...]

    @property
    def names(self) -> list[str]:
        """The loop variables, outermost first."""
        return [a.var for a in self.axes]

    def position(self, var: str) -> int:
        """The array axis of loop variable ``var``."""
        return self.names.index(var)

    def lows(self) -> dict[str, sympy.Expr]:
        """Each variable's lower bound."""
        return {a.var: a.lo for a in self.axes}

    def extents(self) -> dict[str, sympy.Expr]:
        """Each variable's extent."""
        return {a.var: a.extent for a in self.axes}


@dataclass(frozen=True)
class Whole:
    """A whole buffer whose dimensions follow the loop variables ``vars`` in order."""

    buffer: str
    vars: tuple[str, ...]


@dataclass(frozen=True)
class Array:
    """A value in generated code over a domain: ``code`` has one axis per domain axis
    (size 1 for the axes not in ``vars``) or is a scalar."""

    code: str
    vars: frozenset[str]
    dtype: np.dtype
    owned: bool = False
    """A temporary of the kernel's own that later operations may overwrite."""
    whole: Whole | None = None
    """Set when ``code`` is a view (transpose, new axes) of a whole buffer: consumers
    that reshape may read the buffer itself instead."""
