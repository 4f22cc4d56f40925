"""``MaterializePadding``: a window's padded loads read a bordered copy instead.

A convolution's ``tir.load %X[b, c, h + kh - 2, w + kw - 2] pad %z`` needs a bounds
test per element; in machine code that is a select over a clamped index, which LLVM
vectorizes only as a gather. Before ``tir-to-llvm`` lowers a prim_func, each top-level
nest whose padded loads of a buffer are indexed by a reduction variable (a window, so
each element is read several times) and reach past its edges by static margins gets a
copy nest in front of it, filling a local buffer of the margins' larger size (the pad
value around the buffer), and those loads read the copy at shifted indices without
``pad``: contiguous loads the vectorizer turns into vector loads, as the numpy kernels'
padded arrays are. A 5x5 depthwise convolution over ``[2, 120, 28, 28]``: 2.3 -> 0.39
ms. A load read once per element (``relax.pad``) keeps its bounds test.

A local buffer with long rows that only earlier nests use besides the window (a fused
activation feeding a depthwise convolution) becomes the padded copy itself: those
nests' accesses are shifted into its interior and only its border is filled, which
saves a pass over it (EfficientNet-B0's SiLU + depthwise over ``[2, 96, 112, 112]``:
2.7 -> 2.1 ms).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sympy
from xdsl.dialects import arith
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from xrelax.backends.kernels.affine import index_bounds
from xrelax.backends.native.register_tiles import loop_box, plan_tiles, reads_clamped
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import AllocBufferOp, BufferType, ForOp, LoadOp, PrimFuncOp, StoreOp


class MaterializePadding(RewritePattern):
    """Padded loads of each top-level nest read a padded copy (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, func: PrimFuncOp, rewriter: PatternRewriter) -> None:
        block = func.body.block
        for nest in [op for op in block.ops if isinstance(op, ForOp)]:
            for (buffer, pad), loads in _padded_loads(nest).items():
                margins = _margins(loads)
                if margins is not None:
                    _read_copy(block, nest, buffer, pad, loads, margins, rewriter)


def materialized_loads(nest: ForOp) -> frozenset[LoadOp]:
    """The padded loads of a top-level ``nest`` that :class:`MaterializePadding` turns
    into loads of a padded copy."""
    return frozenset(
        load
        for loads in _padded_loads(nest).values()
        if _margins(loads) is not None
        for load in loads
    )


def _padded_loads(nest: ForOp) -> dict[tuple[SSAValue, Attribute], list[LoadOp]]:
    """The nest's padded loads by buffer and (constant) pad value, for the buffers the
    nest does not write."""
    written = {op.buffer for op in nest.walk() if isinstance(op, StoreOp)}
    found: dict[tuple[SSAValue, Attribute], list[LoadOp]] = {}
    plan = plan_tiles(nest)
    clamped = plan.streamed if plan is not None and reads_clamped(plan) else None
    for op in nest.walk():
        if not isinstance(op, LoadOp) or op.pad is None or op.buffer in written:
            continue
        if op is clamped and not _only_feeds(op.buffer, [op], nest):
            continue  # read clamped by the tiles: a test per vector, no copy to fill
        if not _reads_a_window(op):
            continue  # each element read once (a pad op): the bounds test is cheaper
        constant = op.pad.owner
        if not isinstance(constant, arith.ConstantOp):
            continue
        found.setdefault((op.buffer, constant.value), []).append(op)
    return found


def _reads_a_window(load: LoadOp) -> bool:
    """Whether ``load`` is indexed by a reduction variable: a loop around it whose
    variable the stores beside it do not index by (a convolution's or a pooling's
    window), so that it reads each element several times."""
    block = load.parent_block()
    stored: set[str] = set()
    for op in block.ops if block is not None else ():
        if isinstance(op, StoreOp):
            for index in op.indices.data:
                stored |= symbolic.free_vars(index)
    used = set().union(*(symbolic.free_vars(i) for i in load.indices.data))
    return bool((used & set(loop_box(load)[0])) - stored)


def _margins(loads: list[LoadOp]) -> list[tuple[int, int]] | None:
    """Per axis, how far the loads reach before the start and past the end (static), or
    None when a reach is not static or no load reaches outside."""
    dims = loads[0].buffer.type.dims
    margins = [(0, 0)] * len(dims)
    for load in loads:
        lows, extents = loop_box(load)
        for axis, (index, size) in enumerate(zip(load.indices.data, dims, strict=True)):
            bounds = index_bounds(index, lows, extents)
            if bounds is None:
                return None
            before, after = sympy.expand(-bounds[0]), sympy.expand(bounds[1] - (size - 1))
            if not (before.is_Integer and after.is_Integer):
                return None
            margins[axis] = (
                max(margins[axis][0], int(before)),
                max(margins[axis][1], int(after)),
            )
    return margins if any(b or a for b, a in margins) else None


def _read_copy(
    block: Block,
    nest: ForOp,
    buffer: SSAValue,
    pad: Attribute,
    loads: list[LoadOp],
    margins: list[tuple[int, int]],
    rewriter: PatternRewriter,
) -> None:
    """Give ``buffer`` a padded copy that ``loads`` read instead: filled by a copy nest
    before ``nest``, or, for a local buffer that only ``loads`` and nests before ``nest``
    use, in place of it (those nests' stores and loads shifted into the copy's
    interior, the border filled with the pad value)."""
    type_ = buffer.type
    shape = [
        size + before + after for size, (before, after) in zip(type_.dims, margins, strict=True)
    ]
    copy = AllocBufferOp(BufferType.of(shape, type_.dtype))
    copy.buffer.name_hint = f"{buffer.name_hint or 'buffer'}_padded"
    rewriter.insert(copy, InsertPoint.at_start(block))
    names = fresh_names(block, len(shape))
    in_place = _only_feeds(buffer, loads, nest)
    if in_place:
        earlier = [use.operation for use in list(buffer.uses) if use.operation not in loads]
        for user in earlier:
            shifted = _shifted(user.indices.data, margins)
            if isinstance(user, StoreOp):
                rewriter.replace(user, StoreOp(copy.buffer, shifted, user.value))
            else:
                rewriter.replace(user, LoadOp(copy.buffer, shifted))
        for axis, (before, after) in enumerate(margins):
            size = type_.dims[axis]
            for low, high in ((0, before), (size + before, size + before + after)):
                if low != high:
                    ranges = [(0, e) for e in shape]
                    ranges[axis] = (low, high)
                    fill = loop_nest(names, ranges, lambda at: _pad_value(pad, copy, at))
                    rewriter.insert(fill, InsertPoint.before(nest))
    else:

        def read(at: list[sympy.Expr]) -> list[Operation]:
            value = arith.ConstantOp(pad)
            source = [i - before for i, (before, _) in zip(at, margins, strict=True)]
            load = LoadOp(buffer, source, value.result)
            return [value, load, StoreOp(copy.buffer, at, load.result)]

        loop = loop_nest(names, [(0, e) for e in shape], read)
        rewriter.insert(loop, InsertPoint.before(nest))
    for load in loads:
        rewriter.replace(load, LoadOp(copy.buffer, _shifted(load.indices.data, margins)))
    if in_place:
        rewriter.erase(buffer.owner)


IN_PLACE_MIN_ROW = 32
"""The shortest rows written in place into a padded copy: the copy's rows are longer
than the loops', so the loops no longer collapse, and LLVM leaves a row shorter than
its vector width times two scalar (a 14x14 map: 0.21 ms copied, 0.49 ms in place)."""


def _only_feeds(buffer: SSAValue, loads: list[LoadOp], nest: ForOp) -> bool:
    """Whether ``buffer`` is local, with rows of at least :data:`IN_PLACE_MIN_ROW`,
    and used only by ``loads`` and by unpadded loads and stores in top-level nests
    before ``nest``."""
    if not isinstance(buffer.owner, AllocBufferOp):
        return False
    row = buffer.type.dims[-1]
    if not (row.is_Integer and row >= IN_PLACE_MIN_ROW):
        return False
    reads = set(loads)
    block = nest.parent_block()
    for use in buffer.uses:
        user = use.operation
        if user in reads:
            continue
        if not isinstance(user, LoadOp | StoreOp) or (isinstance(user, LoadOp) and user.pad):
            return False
        top = user
        while top.parent_op() is not None and top.parent_block() is not block:
            top = top.parent_op()
        if top.parent_block() is not block or not top.is_before_in_block(nest):
            return False
    return True


def _shifted(indices: Sequence[sympy.Expr], margins: list[tuple[int, int]]) -> list:
    return [index + before for index, (before, _) in zip(indices, margins, strict=True)]


def _pad_value(pad: Attribute, copy: AllocBufferOp, at: list[sympy.Expr]) -> list[Operation]:
    value = arith.ConstantOp(pad)
    return [value, StoreOp(copy.buffer, at, value.result)]


def loop_nest(
    names: list[str],
    ranges: list[tuple[sympy.Expr, sympy.Expr]],
    body: Callable[[list[sympy.Expr]], list[Operation]],
) -> ForOp:
    """Loops ``names`` over ``ranges`` (outermost first) around ``body(indices)``."""
    inner = Block(body([symbolic.sym(n) for n in names]))
    loop = None
    for name, (low, high) in reversed(list(zip(names, ranges, strict=True))):
        loop = ForOp(name, low, high, Region(inner if loop is None else Block([loop])))
    assert loop is not None
    return loop


def fresh_names(block: Block, count: int) -> list[str]:
    """``count`` loop variables no loop or size of the function is named."""
    taken = _names(block)
    names = []
    for axis in range(count):
        name, suffix = f"p{axis}", 0
        while name in taken:
            suffix += 1
            name = f"p{axis}_{suffix}"
        names.append(name)
    return names


def _names(block: Block) -> set[str]:
    """The symbolic variables a new top-level loop must not shadow: the function's and
    every loop's."""
    names = set()
    for op in block.walk():
        if isinstance(op, ForOp):
            names.add(op.var_name)
            names |= symbolic.free_vars(op.upper) | symbolic.free_vars(op.lower)
        elif isinstance(op, LoadOp | StoreOp):
            for index in op.indices.data:
                names |= symbolic.free_vars(index)
    for type_ in (arg.type for arg in block.args):
        for dim in type_.dims:
            names |= symbolic.free_vars(dim)
    return names
