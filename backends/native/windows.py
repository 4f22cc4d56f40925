"""``MaterializeWindows``: a contraction's windowed operand is read from a copy laid out
along the output's rows (im2col), so that its register tiles run along whole images.

A 3x3 convolution reads ``X[n, c, h + kh - 1, w + kw - 1]``: along the output's last
loop ``w`` it is contiguous only within one row of ``w`` (11 elements of an 11x11
image: 11 of a vector's 16 lanes), and with a stride of 2 not at all. When the plan of
:mod:`.register_tiles` asks for it, a copy nest in front of the contraction fills a
local buffer over the operand's loops (the outer output loops it depends on, the
reduction loops it depends on, then the trailing output loops)::

    for n, c, kh, kw, h, w:  col[n, c, kh, kw, h, w] = X[n, c, h + kh - 1, w + kw - 1] pad 0

and the contraction reads ``col`` at its loops' variables: the trailing output loops
then run as one vector axis of ``h * w`` elements. The copy's padded load reads each
element once, with a bounds test (:mod:`.padding` leaves it as it is).
"""

from __future__ import annotations

import sympy
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xrelax.backends.native.padding import fresh_names, loop_nest, materialized_loads
from xrelax.backends.native.register_tiles import plan_tiles
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import AllocBufferOp, BufferType, ForOp, LoadOp, PrimFuncOp, StoreOp

__all__ = ["MaterializeWindows", "MaterializeWindowsPass"]


class MaterializeWindowsPass(ModulePass):
    """``tir-materialize-windows``: :class:`MaterializeWindows` over every prim_func
    (which ``tir-to-llvm`` runs first; this pass shows its effect on TIR)."""

    name = "tir-materialize-windows"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MaterializeWindows(), apply_recursively=False).rewrite_module(op)


class MaterializeWindows(RewritePattern):
    """Each contraction whose tile plan has a window reads a window copy (see the
    module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, func: PrimFuncOp, rewriter: PatternRewriter) -> None:
        block = func.body.block
        for nest in [op for op in block.ops if isinstance(op, ForOp)]:
            plan = plan_tiles(nest, materialized_loads(nest))
            if plan is not None and plan.window is not None:
                _read_window(block, nest, plan.streamed, plan.window, rewriter)


def _read_window(
    block: Block, nest: ForOp, load: LoadOp, loops: list[ForOp], rewriter: PatternRewriter
) -> None:
    """Fill a copy of what ``load`` reads over ``loops`` before ``nest``; ``load`` reads
    the copy at the loops' variables."""
    copy = AllocBufferOp(BufferType.of([loop.upper for loop in loops], load.result.type))
    copy.buffer.name_hint = f"{load.buffer.name_hint or 'buffer'}_window"
    rewriter.insert(copy, InsertPoint.at_start(block))
    names = fresh_names(block, len(loops))
    renamed = {
        symbolic.sym(loop.var_name): symbolic.sym(name)
        for loop, name in zip(loops, names, strict=True)
    }

    def read(at: list[sympy.Expr]) -> list[Operation]:
        indices = [sympy.sympify(index).xreplace(renamed) for index in load.indices.data]
        if load.pad is None:
            source = LoadOp(load.buffer, indices)
            return [source, StoreOp(copy.buffer, at, source.result)]
        pad = load.pad.owner.clone()
        source = LoadOp(load.buffer, indices, pad.result)
        return [pad, source, StoreOp(copy.buffer, at, source.result)]

    ranges = [(0, loop.upper) for loop in loops]
    rewriter.insert(loop_nest(names, ranges, read), InsertPoint.before(nest))
    rewriter.replace(load, LoadOp(copy.buffer, [symbolic.sym(loop.var_name) for loop in loops]))
