"""Attributes holding symbolic dimensions, shared by the relax and tir dialects.

``#sym.dims<[n, m * 2]>`` is a list of symbolic expressions (a shape pattern,
a shape value, loop bounds, buffer indices). Its text is parsed with the fast
expression parser of :mod:`xrelax.dialects.shapes.symbolic`, memoised by text, which
bypasses xDSL's token-by-token lexer.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import sympy
from xdsl.ir import Data, Dialect
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xrelax.dialects.ir.xdsl_workarounds import take_angle_body
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import Dims, SymbolicError


def raise_symbolic_error(parser: AttrParser, err: SymbolicError, start: int) -> None:
    """Re-raise a symbolic syntax error as a located parse error."""
    offset = start + getattr(err, "offset", 0)
    parser.raise_error(str(err), offset, offset + 1)


def parse_dims_text(parser: AttrParser, text: str, start: int) -> Dims:
    """Parse ``[d0, d1, ...]`` located at ``start`` in the parser input."""
    try:
        return symbolic.parse_dims(text.strip())
    except SymbolicError as err:
        leading = len(text) - len(text.lstrip())
        raise_symbolic_error(parser, err, start + leading)
        raise


MAX_EXTENT = 2**63 - 1
"""The largest dimension a shape may have (shapes are int64 at run time)."""

MAX_RANK = 64
"""The highest rank of a tensor, shape or buffer type (numpy's limit)."""


def check_rank(rank: int) -> None:
    """Refuse a rank numpy cannot hold."""
    if rank > MAX_RANK:
        raise VerifyException(f"rank {rank} exceeds the maximum of {MAX_RANK}")


def check_extents(dims: Dims, allow_negative: bool = False) -> None:
    """Refuse a constant dimension that does not fit in int64, or is negative (a shape
    value may hold -1, the entry a ``reshape`` infers: ``allow_negative``)."""
    check_rank(len(dims))
    for dim in dims:
        if not dim.is_Integer:
            continue
        if dim < 0 and not allow_negative:
            raise VerifyException(
                f"dimension {dim} of shape {symbolic.format_dims(dims)} is negative"
            )
        if not -MAX_EXTENT <= dim <= MAX_EXTENT:
            raise VerifyException(
                f"dimension {dim} of shape {symbolic.format_dims(dims)} does not fit in 64 bits"
            )


@irdl_attr_definition
class DimsAttr(Data[Dims]):
    """A list of symbolic integer expressions: ``#sym.dims<[n, m * 2]>``."""

    name = "sym.dims"

    @staticmethod
    def of(values: Iterable[int | str | sympy.Expr]) -> DimsAttr:
        """Build from ints, variable names or expressions."""
        return DimsAttr(tuple(symbolic.as_expr(v) for v in values))

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Dims:
        text, start = take_angle_body(parser)
        return parse_dims_text(parser, text, start)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{symbolic.format_dims(self.data)}>")

    def free_vars(self) -> set[str]:
        """The symbolic variables the expressions use."""
        return set(_free_vars(self.data))


@lru_cache(maxsize=65536)
def _free_vars(dims: Dims) -> frozenset[str]:
    """The variables of ``dims`` (memoised: a fused kernel repeats its index lists)."""
    return frozenset().union(*(symbolic.free_vars(dim) for dim in dims))


Sym = Dialect("sym", [], [DimsAttr])
