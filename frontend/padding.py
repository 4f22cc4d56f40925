"""Padding a tensor with its own elements, shared by the importers: ONNX ``Pad``'s
``reflect``, ``edge`` and ``wrap`` modes, torch's ``reflect``, ``replicate`` and
``circular`` (``reflection_pad*d``, ``replication_pad*d``). Each padded axis is a
``relax.take`` of the input at the position every output element reads, computed in
the IR from its index ``j`` counted from the input's start (``j < 0`` in the padding
before it), as numpy's ``pad`` defines the modes:

* ``edge``: ``clip(j, 0, n - 1)``;
* ``wrap``: ``j mod n``;
* ``reflect``: ``|j|``, mirrored back from ``n - 1`` beyond it: ``(n - 1) - |(n - 1) -
  |j||``, for fewer pads than the size (onnxruntime and torch refuse more: an index
  out of range when it runs).

A negative count removes elements as the positions say (torch's rule); an empty axis
padded is an index out of range when it runs. The result keeps a symbolic shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy
from xdsl.ir import SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.common import FrontendError
from xrelax.frontend.emitter import Emitter

MODES = ("reflect", "edge", "wrap")


def pad_from_edges(
    em: Emitter, x: SSAValue, widths: Sequence[tuple[Any, Any]], mode: str
) -> SSAValue:
    """``x`` padded along each axis by ``(before, after)`` (symbolic) counts of its own
    elements in ``mode`` (one of :data:`MODES`)."""
    i64 = dtypes.I64
    for axis, (before, after) in enumerate(widths):
        before, after = symbolic.as_expr(before), symbolic.as_expr(after)
        if before == 0 and after == 0:
            continue
        size = em.dims(x)[axis]
        length = sympy.expand(size + before + after)
        if length.is_Integer and length < 0:
            raise FrontendError(
                f"pads ({before}, {after}) of axis {axis} (size {size}) leave a negative size"
            )
        positions = em.op("arange", em.prim(0), em.prim(length), em.prim(1), dtype=i64)
        j = em.op("subtract", positions, em.full([], before, i64))
        last = em.full([], sympy.expand(size - 1), i64)
        if mode == "edge":
            index = em.op("minimum", em.op("maximum", j, em.const(0, i64)), last)
        elif mode == "wrap":
            index = em.remainder(j, em.full([], size, i64))
        else:
            mirrored = em.op(
                "subtract", last, em.op("abs", em.op("subtract", last, em.op("abs", j)))
            )
            lowest = em.op("greater_equal", j, em.op("negative", last))
            highest = em.op("less_equal", j, em.op("add", last, last))
            inside = em.op("bitwise_and", lowest, highest)
            index = em.op("where", inside, mirrored, em.const(-1, i64))
        x = em.op("take", x, index, axis=axis, negative_indices=False)
    return x
