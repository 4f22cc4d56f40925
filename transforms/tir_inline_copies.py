"""``tir-inline-copies``: read through local buffers that only hold a copy.

A fused kernel of data-movement operators (``reshape``, ``expand_dims``,
``permute_dims``, ``squeeze``, ``strided_slice``) stores each step into a
``tir.alloc_buffer`` that the next step reads. When a local buffer ``B`` is written by
one loop nest that copies another buffer over all of ``B``::

    tir.for i in [0, n) { tir.for j in [0, m) {
      %v = tir.load %S[f(i, j)] : f32
      tir.store %B[i, j], %v : f32 } }

its readers load ``%S[f(e1, e2)]`` instead of ``%B[e1, e2]``, and the copy and the
buffer go away (TVM inlines such injective stages as well). A chain of views becomes
one copy, which the kernel backend turns into a single strided view.

An inlining is skipped when it would make an index harder for the kernel backend: when
the composed index divides (``floordiv``/``floormod``) a loop variable, unless ``B`` is
a row-major block of the source (a reshape, a slice along the first axes, ``squeeze``,
``expand_dims``), whose readers read the source with the same flat offsets. A reshape
after a transpose stays materialized: the backend reshapes a contiguous copy as a
view, where a transposed source could only be gathered. Also
skipped: a reader that loads ``B`` with a ``pad`` (its bounds check is on ``B``), a
reader whose indices are not proven inside ``B`` (data-dependent ones, or beyond what its
loops bound: the kernel checks them against ``B``, and ``S`` may be larger), and a
source written again while ``B`` is still read. Asserts are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.backends.kernels.affine import proven_inside
from xrelax.dialects import tir
from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.shapes import symbolic
from xrelax.transforms.function_walk import rewrite_functions


@dataclass
class _Copy:
    """A loop nest ``B[i...] = S[f(i...)]`` over all of ``B``."""

    nest: Operation
    loop_vars: list[str]
    load: tir.LoadOp


def _as_copy(op: Operation, buffer: SSAValue) -> _Copy | None:
    """``op`` as a copy into all of ``buffer``, or None."""
    loop_vars: list[str] = []
    dims = buffer.type.dims  # type: ignore[attr-defined]
    current = op
    while isinstance(current, tir.ForOp):
        k = len(loop_vars)
        if k >= len(dims) or current.lower != 0 or not symbolic.prove_equal(current.upper, dims[k]):
            return None
        loop_vars.append(current.var_name)
        body = list(current.body.block.ops)
        if len(body) == 1 and isinstance(body[0], tir.ForOp):
            current = body[0]
            continue
        if len(body) != 2:
            return None
        load, store = body
        if (
            not isinstance(load, tir.LoadOp)
            or not isinstance(store, tir.StoreOp)
            or store.buffer is not buffer
            or store.value is not load.result
            or load.buffer is buffer
            or [symbolic.format_expr(i) for i in store.indices.data] != loop_vars
            or len(loop_vars) != len(dims)
        ):
            return None
        return _Copy(op, loop_vars, load)
    return None


def _divides(indices: tuple[sympy.Expr, ...], loop_vars: set[str]) -> bool:
    """Whether ``indices`` take a floordiv/floormod of a loop variable."""
    return any(
        isinstance(node, symbolic.FloorDiv | symbolic.FloorMod)
        and symbolic.free_vars(node) & loop_vars
        for index in indices
        for node in sympy.preorder_traversal(index)
    )


def _keeps_row_major(copy: _Copy, source: SSAValue, buffer: SSAValue) -> bool:
    """Whether ``B`` is a row-major block of ``S`` (``S``'s flat offset is ``B``'s plus a
    constant): then any reader's flat offset into ``B`` is one into ``S``, and the
    kernel backend views ``S`` wherever it viewed ``B``."""
    src = symbolic.flat_offset(copy.load.indices.data, source.type.dims)  # type: ignore[attr-defined]
    dst = symbolic.flat_offset([symbolic.sym(v) for v in copy.loop_vars], buffer.type.dims)  # type: ignore[attr-defined]
    return not (symbolic.free_vars(sympy.expand(src - dst)) & set(copy.loop_vars))


def _in_bounds(reader: tir.LoadOp, buffer: SSAValue, lets: set[str]) -> bool:
    """Whether ``reader``'s indices are proven inside ``buffer`` over its enclosing loops:
    the kernel checks the others against ``buffer``, a check reading the source instead
    would lose (a data-dependent index, or one the loop bounds do not bound)."""
    lows: dict[str, sympy.Expr] = {}
    extents: dict[str, sympy.Expr] = {}
    parent = reader.parent_op()
    while isinstance(parent, tir.ForOp):
        lows[parent.var_name] = parent.lower
        extents[parent.var_name] = sympy.expand(parent.upper - parent.lower)
        parent = parent.parent_op()
    return all(
        proven_inside(index, size, lows, extents, lets)
        for index, size in zip(reader.indices.data, buffer.type.dims, strict=True)  # type: ignore[attr-defined]
    )


class InlineCopies(RewritePattern):
    """Inline every copy-only local buffer of a prim_func.

    One pass in program order handles chains: inlining ``B1`` into the copy that fills
    ``B2`` leaves that a copy from ``B1``'s source, inlined in turn. Linear in the
    kernel's size: each top-level op is walked once, each buffer's uses once."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tir.PrimFuncOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        self.ops = list(block.ops)
        self.position = {top: k for k, top in enumerate(self.ops)}
        self.written_at: dict[SSAValue, list[int]] = {}
        loop_vars: set[str] = set()
        self.lets: set[str] = set()
        for k, top in enumerate(self.ops):
            for inner in top.walk():
                if isinstance(inner, tir.StoreOp):
                    self.written_at.setdefault(inner.buffer, []).append(k)
                elif isinstance(inner, tir.ForOp):
                    loop_vars.add(inner.var_name)
                elif isinstance(inner, tir.LetOp):
                    loop_vars.add(inner.var_name)
                    self.lets.add(inner.var_name)
        for alloc in self.ops:
            if isinstance(alloc, tir.AllocBufferOp):
                self.inline(alloc, loop_vars, rewriter)

    def _top(self, op: Operation) -> Operation:
        while op not in self.position:
            parent = op.parent_op()
            assert parent is not None
            op = parent
        return op

    def inline(
        self, alloc: tir.AllocBufferOp, loop_vars: set[str], rewriter: PatternRewriter
    ) -> None:
        buffer = alloc.buffer
        written = set(self.written_at.get(buffer, []))
        if len(written) != 1:
            return
        copy = _as_copy(self.ops[written.pop()], buffer)
        if copy is None:
            return
        uses = [use.operation for use in buffer.uses]
        readers = [u for u in uses if isinstance(u, tir.LoadOp)]
        if len(readers) != len(uses) - 1 or any(r.pad is not None for r in readers):
            return
        source = copy.load.buffer
        first = self.position[copy.nest]
        last = max((self.position[self._top(r)] for r in readers), default=first)
        if any(first < k <= last for k in self.written_at.get(source, [])):
            return
        if not all(_in_bounds(r, buffer, self.lets) for r in readers):
            return
        row_major = _keeps_row_major(copy, source, buffer)
        composed = {}
        for reader in readers:
            mapping = dict(zip(copy.loop_vars, reader.indices.data, strict=True))
            indices = tuple(symbolic.substitute(i, mapping) for i in copy.load.indices.data)
            if not row_major and _divides(indices, loop_vars):
                return
            composed[reader] = indices
        for reader, indices in composed.items():
            pad = [copy.load.pad] if copy.load.pad is not None else []
            new = tir.LoadOp.create(
                operands=[source, *pad],
                properties={"indices": DimsAttr(indices)},
                result_types=[reader.result.type],
            )
            new.result.name_hint = reader.result.name_hint
            rewriter.replace(reader, new)
        rewriter.erase(copy.nest)
        rewriter.erase(alloc)


@dataclass(frozen=True)
class InlineCopiesPass(ModulePass):
    """Read through the copy-only local buffers of every prim_func."""

    name = "tir-inline-copies"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_functions(op, InlineCopies(), tir.PrimFuncOp)
