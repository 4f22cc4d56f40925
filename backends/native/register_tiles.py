"""Contractions in register tiles: a convolution's or a matrix product's nest lowered as
the microkernel of BLIS and of onnxruntime's MLAS, not as one loop per output element.

Legalization writes a contraction as output loops around an initializing store and the
reduction loops, whose body accumulates one product into one output element::

    for n, k, h, w:
      C[n, k, h, w] = 0
      for c, kh, kw:
        C[n, k, h, w] += X[n, c, h + kh, w + kw] * W[k, c, kh, kw]

Here ``w`` is the output's last index and ``X`` (the *streamed* operand) runs along it
with unit stride while ``W`` (the *broadcast* operand) does not depend on it; ``k``
indexes ``W`` but not ``X``. The tile holds ``rows`` values of ``k`` by ``vectors``
vectors of ``w`` in vector registers through the whole reduction: each step loads
``vectors`` vectors of ``X``, broadcasts ``rows`` elements of ``W`` and does ``rows *
vectors`` fused multiply-adds; the tile is stored once at the end. Output loops that
run as one with ``w`` (:func:`.collapse.collapses`: a 1x1 convolution's ``h, w``) form
one vector axis. Columns past a multiple of the vector width are loaded and stored under
a mask, rows past a multiple of the tile's height run in a tile of their own (over a
symbolic batch of rows, one row at a time). The tiles of rows run inside each panel of
columns, so that the panel of ``X`` they share stays in cache (BLIS's loop order), and
an element-wise nest right after the contraction (a bias, an activation, a residual
add) is applied to the accumulators before they are stored (:func:`_epilogue`).

Each element is still summed over the reduction in order, with one rounding per fused
multiply-add instead of two (BLAS, which the numpy kernels call, also fuses them and
promises no order; the results agree within float32 rounding of the sum).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import llvmlite.binding as llvm_binding
import sympy
from xdsl.dialects import arith, llvm, math
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xrelax.backends.kernels.affine import index_bounds
from xrelax.backends.native.collapse import collapses
from xrelax.backends.native.inline_math import expf
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import ForOp, LoadOp, StoreOp

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "Lowering",
    "TilePlan",
    "emit_tiles",
    "epilogue_accesses",
    "loop_box",
    "plan_tiles",
    "reads_clamped",
    "vector_width",
]


class Lowering(Protocol):
    """What the tiles need of the function lowering they are part of
    (:class:`~.tir_to_llvm._FuncLowering`)."""

    region: Region
    block: Block
    env: dict[str, SSAValue]
    """The ``i64`` value of each loop variable in scope."""

    def add(self, op: Operation) -> SSAValue: ...

    def const(self, value: int, type_: Attribute = ...) -> SSAValue: ...

    def expr(self, expr: sympy.Expr) -> SSAValue: ...

    def address(self, buffer: SSAValue, indices: tuple) -> tuple[SSAValue, Attribute]: ...

    def bounds(self, loop: ForOp) -> tuple[SSAValue, SSAValue]:
        """The range ``loop`` runs over (its slice where threads split it)."""
        ...


I1, I32, I64 = (IntegerType(w) for w in (1, 32, 64))
F32 = Float32Type()
_NSW = llvm.OverflowAttr([llvm.OverflowFlag.NO_SIGNED_WRAP])
_SLT = IntegerAttr(llvm.ICmpPredicateFlag.SLT.to_int(), 64)
_EQ = IntegerAttr(llvm.ICmpPredicateFlag.EQ.to_int(), 64)
_ULT = IntegerAttr(llvm.ICmpPredicateFlag.ULT.to_int(), 64)
_MIN_LANES = 8
"""A vector axis shorter than this keeps the loops of :mod:`.tir_to_llvm` (or BLAS):
most of each vector would be masked off."""
_FILLED = 0.8
"""A streamed operand contiguous along the output's rows is read as it is when its rows
fill at least this share of the vector lanes (56 of 64 along a 56x56 image's rows);
otherwise through a window copy along whole images (11 of 16 along an 11x11 image's
rows: 121 of 128 along the image), which costs a pass over the copy."""


@functools.cache
def vector_width() -> int:
    """Float32 lanes of the host's vector registers: 16 with AVX-512, else 8."""
    return 16 if llvm_binding.get_host_cpu_features().get("avx512f") else 8


@dataclass(frozen=True)
class TilePlan:
    """How one contraction nest runs in register tiles (see the module docstring)."""

    outputs: list[ForOp]
    """The output loops, outermost first (a perfect nest)."""
    reductions: list[ForOp]
    """The reduction loops, outermost first (a perfect nest)."""
    vector: list[ForOp]
    """The trailing output loops that are the vector axis (run as one)."""
    row: ForOp
    """The output loop of the tile's rows."""
    init: float
    """The value the output starts from."""
    output: StoreOp
    streamed: LoadOp
    broadcast: LoadOp
    rows: int
    vectors: int
    window: list[ForOp] | None
    """Where set, the streamed operand is first copied into a buffer over these loops
    (im2col: :mod:`.windows`), along which the vector axis is contiguous."""
    epilogue: ForOp | None
    """The element-wise nest after the contraction that the tiles apply to their
    accumulators before storing them (:func:`_epilogue`), or None."""
    depthwise: bool = False
    """Both operands run along the vector axis: the streamed one is loaded for each
    row, the other (not indexed by the rows) is one vector shared by them: a depthwise
    convolution channels-last, ``Y[n, h, w, c] += X[n, h + kh, w + kw, c] * W[kh, kw,
    c]``, whose tile holds ``rows`` pixels of a row by ``vectors`` vectors of channels."""
    clamped: tuple[int, ...] = ()
    """The dimensions of a depthwise tile's padded streamed operand (one not read from
    a padded copy) whose indices may leave the buffer (:func:`_clamped_dims`): near a
    border its pixels outside read a vector of the pad value."""

    @property
    def lanes(self) -> int:
        """The extent of the vector axis."""
        return _extent(self.vector)

    @property
    def packed(self) -> bool:
        """Whether the streamed operand is laid out in panels along the vector axis
        (``relax-pack-weights``)."""
        return _in_panels(self.streamed, self.vector[-1].var_name)


def plan_tiles(
    nest: ForOp, padded: frozenset[LoadOp] = frozenset(), one_row: bool = False
) -> TilePlan | None:
    """The tile plan of a top-level loop ``nest``, or None where it is not a float32
    contraction of this form. A padded streamed operand is read as it is where it is in
    ``padded`` (loads :mod:`.padding` turns into loads of a padded copy), else through
    a window copy. A product of one row is planned where its streamed operand is laid
    out in panels (:attr:`TilePlan.packed`) or ``one_row`` is set (it is about to be)."""
    outputs = nest.perfect_nest()
    body = list(outputs[-1].body.block.ops)
    if len(body) < 2 or not isinstance(body[-1], ForOp) or not isinstance(body[-2], StoreOp):
        return None
    init_store, reductions = body[-2], body[-1].perfect_nest()
    if any(not isinstance(op, arith.ConstantOp) for op in body[:-2]):
        return None
    init = init_store.value.owner
    if not (isinstance(init, arith.ConstantOp) and isinstance(init.value, FloatAttr)):
        return None
    names = [loop.var_name for loop in outputs]
    if len(names) != len(init_store.indices.data):
        return None
    for name, index in zip(names, init_store.indices.data, strict=True):
        if not (index - symbolic.sym(name)).is_Integer:
            return None  # each output index is its loop's variable (shifted: a padded copy)
    leading = True  # (the loops so far are of extent one: the next may be symbolic)
    for loop in outputs:
        if loop.lower != 0 or set(names) & symbolic.free_vars(loop.upper):
            return None
        if not (leading or _static(loop)):
            return None
        leading = leading and loop.upper == 1
    if not all(loop.lower == 0 and _static(loop) for loop in reductions):
        return None
    inner = reductions[-1].body.block
    found = _product(inner, init_store)
    if found is None:
        return None
    store, x, y = found
    if store.buffer in (x.buffer, y.buffer):
        return None  # reads other elements of the output as it writes them
    last = {names[-1]}
    depthwise = _mentions(x, last) and _mentions(y, last)
    if depthwise:
        # Both run along the vector axis: the one the rows index too is streamed per
        # row, the other (a channel's weights) is one vector shared by the rows.
        row = _row_loop(outputs, x, y) or _row_loop(outputs, y, x)
        if row is None:
            return None
        streamed, broadcast = (y, x) if _mentions(y, {row.var_name}) else (x, y)
    elif _mentions(x, last) or _mentions(y, last):
        streamed, broadcast = (x, y) if _mentions(x, last) else (y, x)
        row = _row_loop(outputs, streamed, broadcast)
    else:
        return None
    if broadcast.pad is not None and broadcast not in padded:
        return None
    if row is None or (_static(row) and int(row.upper) < 2):
        # One row: a vector-matrix product, which BLAS streams faster than the tiles
        # read a row of the streamed operand every N floats; not than they read panels.
        if not (one_row or _in_panels(streamed, names[-1])):
            return None
        row = row or next((loop for loop in outputs[-2::-1] if loop.upper == 1), None)
        if row is None or _mentions(streamed, {row.var_name}):
            return None
    # The trailing output loops the streamed operand runs along: the vector axis of a
    # window copy, over which it is contiguous.
    trailing: list[ForOp] = []
    for loop in reversed(outputs):
        if loop is row or not _mentions(streamed, {loop.var_name}) or not _static(loop):
            break
        trailing.insert(0, loop)
    window_lanes = _extent(trailing)
    vector = _vector_axis(outputs, inner)
    if row in vector:
        return None  # (a row loop of extent one that runs as one with the columns)
    lanes = _extent(vector)
    as_is = streamed.pad is None or streamed in padded
    clamped: tuple[int, ...] = ()
    if depthwise and not as_is:
        dims = _clamped_dims(streamed, names[-1], row)
        as_is, clamped = dims is not None, tuple(dims or ())
    direct = as_is and _unit_stride(streamed, names[-1]) and lanes >= _MIN_LANES
    window = None
    if depthwise:
        vector, lanes = [outputs[-1]], _extent([outputs[-1]])
        if not (direct and _unit_stride(broadcast, names[-1])):
            return None
    elif not (direct and (lanes >= window_lanes or _filled(lanes) >= _FILLED)):
        reduced = [loop for loop in reductions if _mentions(streamed, {loop.var_name})]
        outer = [loop for loop in outputs if loop not in trailing]
        window = [loop for loop in outer if _mentions(streamed, {loop.var_name})]
        window += reduced + trailing
        vector, lanes = trailing, window_lanes
    if lanes < _MIN_LANES:
        return None
    rows, vectors = _tile_shape(int(row.upper) if _static(row) else _SYMBOLIC_ROWS, lanes)
    value = float(init.value.value.data)
    shape = (rows, vectors, window, None, depthwise, clamped)
    plan = TilePlan(outputs, reductions, vector, row, value, store, streamed, broadcast, *shape)
    if window is None and (epilogue := _epilogue(nest, plan)) is not None:
        plan = dataclasses.replace(plan, epilogue=epilogue)
    return plan


def _product(block: Block, init: StoreOp) -> tuple[StoreOp, LoadOp, LoadOp] | None:
    """``C = C + x * y`` (float32) as the body ``block``, C written by ``init``."""
    ops = [op for op in block.ops if not isinstance(op, arith.ConstantOp)]
    if len(ops) != 6 or not isinstance(store := ops[-1], StoreOp):
        return None
    if store.buffer != init.buffer or store.indices.data != init.indices.data:
        return None
    add = store.value.owner
    if not isinstance(add, arith.AddfOp) or add.result.type != F32:
        return None
    loads = [op for op in ops if isinstance(op, LoadOp)]
    if len(loads) != 3 or any(op.buffer.type.dtype != F32 for op in loads):
        return None
    current = [op for op in loads if op.buffer == store.buffer]
    if len(current) != 1 or current[0].indices.data != store.indices.data:
        return None
    mul = add.rhs.owner if add.lhs == current[0].result else add.lhs.owner
    if add.lhs != current[0].result and add.rhs != current[0].result:
        return None
    if not isinstance(mul, arith.MulfOp) or any(op.fastmath.data for op in (add, mul)):
        return None
    x, y = (op for op in loads if op is not current[0])
    if {mul.lhs, mul.rhs} != {x.result, y.result}:
        return None
    return store, x, y


def _clamped_dims(load: LoadOp, lane: str, row: ForOp) -> list[int] | None:
    """The dimensions of a padded ``load`` whose indices a depthwise tile clamps into
    its buffer (every one whose index the loops around it do not keep inside), where
    none of them moves with the vector axis' variable ``lane``, each moves linearly with
    the ``row`` loop's variable (a tile's first and last rows bound the others' windows)
    and is of static, non-zero size: a vector along the axis is then wholly inside or
    wholly padding, one test per vector. None where that does not hold or ``load`` has
    no pad value."""
    if load.pad is None or not isinstance(load.pad.owner, arith.ConstantOp):
        return None
    lows, extents = loop_box(load)
    dims = []
    sizes = load.buffer.type.dims
    for axis, (index, size) in enumerate(zip(load.indices.data, sizes, strict=True)):
        bounds = index_bounds(index, lows, extents)
        if bounds is not None and _nonnegative(bounds[0]) and _nonnegative(size - 1 - bounds[1]):
            continue  # (a channel, i3 + rc with rc in [0, 1); the batch)
        if lane in symbolic.free_vars(index) or not (size.is_Integer and size > 0):
            return None
        if not sympy.diff(index, symbolic.sym(row.var_name)).is_Integer:
            return None
        dims.append(axis)
    return dims


def loop_box(op: LoadOp) -> tuple[dict[str, sympy.Expr], dict[str, sympy.Expr]]:
    """The lower bound and the extent of each loop variable around ``op`` (the box
    :func:`~xrelax.backends.kernels.affine.index_bounds` reads)."""
    lows, extents = {}, {}
    parent = op.parent_op()
    while isinstance(parent, ForOp):
        lows[parent.var_name] = parent.lower
        extents[parent.var_name] = sympy.expand(parent.upper - parent.lower)
        parent = parent.parent_op()
    return lows, extents


def _nonnegative(value: sympy.Expr) -> bool:
    return bool(sympy.expand(value).is_nonnegative)


def reads_clamped(plan: TilePlan) -> bool:
    """Whether the tiles of ``plan`` may read its padded streamed operand clamped
    instead of from a padded copy (:mod:`.padding`, which still writes a local buffer
    padded in place, at no cost): a depthwise window with a stride along the rows,
    which reads each element of the buffer a few times, too few to pay for the copy's
    pass over it (a 3x3 stride-2 depthwise over an argument ``[2, 112, 112, 96]``
    channels-last: 0.52 ms with the copy, 0.30 ms clamped; at stride 1 the copy pays:
    ``[2, 56, 56, 144]``, 0.36 against 0.45 ms)."""
    row = symbolic.sym(plan.row.var_name)
    indices = plan.streamed.indices.data
    return any(abs(sympy.diff(indices[d], row)) > 1 for d in plan.clamped)


def _vector_axis(outputs: list[ForOp], body: Block) -> list[ForOp]:
    """The trailing output loops that run as one over ``body`` (the innermost always)."""
    vector = [outputs[-1]]
    for loop in reversed(outputs[:-1]):
        if not collapses([loop, *vector], body):
            break
        vector.insert(0, loop)
    return vector


def _in_panels(load: LoadOp, name: str) -> bool:
    """Whether ``load``'s indices divide the variable ``name`` (an operand laid out in
    panels along it)."""
    return any(
        name in symbolic.free_vars(term)
        for index in load.indices.data
        for term in sympy.sympify(index).atoms(symbolic.FloorDiv, symbolic.FloorMod)
    )


def _unit_stride(load: LoadOp, name: str) -> bool:
    """Whether ``load`` moves one element per step of the variable ``name`` within each
    vector: ``name`` may also appear as ``floordiv(name, c)`` with ``c`` a multiple of
    the vector width (an operand packed in panels, ``relax-pack-weights``), which is
    the same over a vector (the tiles' vectors start at multiples of the width)."""
    offset = sympy.expand(symbolic.flat_offset(load.indices.data, load.buffer.type.dims))
    variable = symbolic.sym(name)
    panels = {
        term: symbolic.sym(f"{name}.panel")
        for term in offset.atoms(symbolic.FloorDiv)
        if term.args[0] == variable and term.args[1] % vector_width() == 0
    }
    offset = offset.xreplace(panels)
    coefficient = offset.coeff(variable)
    return coefficient == 1 and name not in symbolic.free_vars(offset - variable)


def _mentions(load: LoadOp, names: set[str]) -> bool:
    return any(names & symbolic.free_vars(index) for index in load.indices.data)


def _row_loop(outputs: list[ForOp], streamed: LoadOp, broadcast: LoadOp) -> ForOp | None:
    """The innermost output loop that indexes the broadcast operand and not the
    streamed one (the tile's rows share each streamed vector), one of static extent
    if there is such (a symbolic one: a batch, as the rows of a classifier's product);
    a loop of one iteration is no row axis (a 1x1 convolution over a 1x1 image, as a
    squeeze-and-excitation block's, has its rows in the batch)."""
    found = [
        loop
        for loop in reversed(outputs)
        if _mentions(broadcast, {loop.var_name})
        and not _mentions(streamed, {loop.var_name})
        and loop.upper - loop.lower != 1
    ]
    static = [loop for loop in found if _static(loop)]
    return (static or found or [None])[0]


def _static(loop: ForOp) -> bool:
    return sympy.sympify(loop.upper).is_Integer


def _extent(loops: list[ForOp]) -> int:
    """The iterations of static loops (from 0) run as one."""
    return int(sympy.Mul(*(loop.upper for loop in loops)))


_EPILOGUE_BINARY = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}
_EPILOGUE_INTRINSICS = {arith.MaximumfOp: "llvm.maximum", arith.MinimumfOp: "llvm.minimum"}
_EPILOGUE_UNARY = (arith.NegfOp, math.ExpOp)
"""The ops an epilogue may have besides loads, stores and float constants (the same
LLVM ops and intrinsics as :mod:`.tir_to_llvm`'s scalar lowering, on vectors; ``exp``
the same Cephes ``expf``: :func:`.inline_math.expf`; a sigmoid, a SiLU)."""


def _epilogue(nest: ForOp, plan: TilePlan) -> ForOp | None:
    """The top-level nest right after ``nest`` when it is element-wise over the same
    output loops and straight-line float32 arithmetic of :data:`_EPILOGUE_BINARY` and
    :data:`_EPILOGUE_INTRINSICS` (a bias, an activation, a residual add), whose
    accesses that depend on the vector axis are at the output's element of buffers of
    the output's shape, whose other accesses are loads at plain indices (a bias per
    row) of buffers neither nest writes, and which writes nothing the contraction
    reads: each output element then needs only its own accumulator."""
    following = nest.next_op
    if not isinstance(following, ForOp):
        return None
    loops = following.perfect_nest()
    if len(loops) != len(plan.outputs):
        return None
    for mine, theirs in zip(plan.outputs, loops, strict=True):
        if mine.lower != theirs.lower or mine.upper != theirs.upper:
            return None
    element = plan.output.indices.data
    dims = plan.output.buffer.type.dims
    vector = {loop.var_name for loop in plan.vector}
    body = loops[-1].body.block
    written = {plan.output.buffer} | {op.buffer for op in body.ops if isinstance(op, StoreOp)}
    if written & {plan.streamed.buffer, plan.broadcast.buffer}:
        return None  # the contraction would read what the epilogue wrote
    for op, indices in epilogue_accesses(plan, following):
        if op.buffer.type.dtype != F32 or (isinstance(op, LoadOp) and op.pad is not None):
            return None
        if any(vector & symbolic.free_vars(i) for i in indices):
            if indices == element and op.buffer.type.dims == dims:
                continue
            if isinstance(op, StoreOp) or op.buffer in written or not _along(plan, op, indices):
                return None
        elif isinstance(op, StoreOp) or op.buffer in written or not _plain(indices):
            return None  # (another element of a written buffer: not computed yet)
    for op in body.ops:
        if isinstance(op, LoadOp | StoreOp):
            continue
        if isinstance(op, arith.ConstantOp):
            if not isinstance(op.value, FloatAttr) or op.result.type != F32:
                return None
        elif type(op) in (*_EPILOGUE_BINARY, *_EPILOGUE_INTRINSICS, *_EPILOGUE_UNARY):
            if op.fastmath.data or op.results[0].type != F32:
                return None
        else:
            return None
    return following


def epilogue_accesses(plan: TilePlan, epilogue: ForOp) -> list[tuple[LoadOp | StoreOp, tuple]]:
    """The loads and stores of an ``epilogue`` nest of ``plan``'s contraction, each with
    its indices in the contraction's output variables (the epilogue's own loops may be
    named otherwise, or the same names in another order)."""
    loops = epilogue.perfect_nest()
    renamed = {
        symbolic.sym(theirs.var_name): symbolic.sym(mine.var_name)
        for mine, theirs in zip(plan.outputs, loops, strict=True)
    }
    return [
        (op, tuple(sympy.sympify(i).xreplace(renamed) for i in op.indices.data))
        for op in loops[-1].body.block.ops
        if isinstance(op, LoadOp | StoreOp)
    ]


def _along(plan: TilePlan, load: LoadOp, indices: tuple) -> bool:
    """Whether ``load`` reads, at ``indices``, one value per element of the (single)
    vector axis (a bias per channel of a channels-last output, ``b[0, 0, 0, c]``): it
    is then read as a vector."""
    if len(plan.vector) != 1 or load.buffer.type.dims[-1] != plan.lanes:
        return False
    name = plan.vector[0].var_name
    rest = indices[:-1]
    return indices[-1] == symbolic.sym(name) and _plain(rest) and symbolic.sym(name) not in rest


def _plain(indices: tuple) -> bool:
    """Whether each index is a variable or a constant (a bias ``b[k, 0, 0]``; the
    lowering proves them inside their buffer before it applies the epilogue)."""
    return all(i.is_Symbol or i.is_Integer for i in indices)


def _filled(lanes: int) -> float:
    """The share of the vector lanes an axis of ``lanes`` elements fills."""
    width = vector_width()
    return lanes / (width * -(-lanes // width))


_SYMBOLIC_ROWS = 64
"""The row count a tile's shape is chosen for where the rows are symbolic."""


def _tile_shape(rows: int, lanes: int) -> tuple[int, int]:
    """``(rows, vectors)`` of a tile: accumulators that fit the vector registers beside
    a row of streamed vectors and a broadcast (24 of AVX-512's 32, 12 of AVX2's 16). As
    many vectors as the axis fills, up to 3 (2 on AVX2), and of the heights that fit,
    the one leaving the fewest rows over; with fewer rows than that, up to 8 vectors
    (a vector-matrix product's row of ``B`` is then read in longer runs)."""
    width = vector_width()
    budget = 24 if width == 16 else 12
    filled = -(-lanes // width)
    vectors = min(3 if width == 16 else 2, filled)
    if rows < budget // vectors // 2:
        vectors = min(8, filled, budget // rows)
    tallest = min(budget // vectors, 12, rows)
    heights = range(tallest, max(tallest // 2, 1) - 1, -1)
    return min(heights, key=lambda h: (-(-rows // h) * h - rows, -h)), vectors


def emit_tiles(lowering: Lowering, plan: TilePlan) -> None:
    """Append the code of ``plan``'s nest to ``lowering``'s current block."""
    _TileEmitter(lowering, plan).outputs(0)
    for loop in plan.vector:
        del lowering.env[loop.var_name]


class _TileEmitter:
    def __init__(self, lowering: Lowering, plan: TilePlan) -> None:
        self.low, self.plan = lowering, plan
        self.width = vector_width()
        self.vector_type = VectorType(F32, [self.width])
        self.undef = lowering.add(llvm.UndefOp(self.vector_type))
        self.init = self.splat_constant(plan.init)
        self.constants = {
            op.result: self.splat_constant(op.value.value.data)
            for op in (plan.epilogue.walk() if plan.epilogue is not None else ())
            if isinstance(op, arith.ConstantOp)
        }
        """The epilogue's constants, made before the loops (they dominate every use)."""
        self.renamed = (
            dict(epilogue_accesses(plan, plan.epilogue)) if plan.epilogue is not None else {}
        )
        """The epilogue's accesses -> their indices in the contraction's variables."""
        self.vector_names = {loop.var_name for loop in plan.vector}
        self.pad = None
        """Where the plan reads the streamed operand clamped (:attr:`TilePlan.clamped`):
        a vector of its pad value in memory, read in place of a vector outside it."""
        if plan.clamped:
            self.pad = lowering.add(llvm.AllocaOp(lowering.const(1), self.vector_type))
            value = self.splat_constant(plan.streamed.pad.owner.value.value.data)
            lowering.add(llvm.StoreOp(value, self.pad, alignment=4))
        self.zero = self.splat_constant(0.0)
        self.align = lowering.const(4, I32)
        self.lane0 = lowering.const(0, I32)
        edge = plan.lanes % self.width
        mask_type = VectorType(I1, [self.width])
        values = [int(lane < edge) for lane in range(self.width)]
        self.mask = lowering.add(
            llvm.ConstantOp(DenseIntOrFPElementsAttr.from_list(mask_type, values), mask_type)
        )

    def splat_constant(self, value: float) -> SSAValue:
        attr = DenseIntOrFPElementsAttr.from_list(self.vector_type, [value] * self.width)
        return self.low.add(llvm.ConstantOp(attr, self.vector_type))

    def loop(
        self,
        lower: SSAValue,
        upper: SSAValue,
        step: int,
        body: Callable[[SSAValue, list[SSAValue]], list[SSAValue]],
        carried: list[SSAValue] | None = None,
    ) -> list[SSAValue]:
        """``for i in range(lower, upper, step)`` carrying ``carried``."""
        low, carried = self.low, carried or []
        types = [v.type for v in carried]
        header, inside, after = Block(arg_types=[I64, *types]), Block(), Block(arg_types=types)
        for block in (header, inside, after):
            low.region.add_block(block)
        low.add(llvm.BrOp(header, lower, *carried))
        low.block = header
        index = header.args[0]
        more = low.add(llvm.ICmpOp(index, upper, _SLT))
        low.add(llvm.CondBrOp(more, inside, [], after, list(header.args[1:])))
        low.block = inside
        values = body(index, list(header.args[1:]))
        following = low.add(llvm.AddOp(index, low.const(step), overflow=_NSW))
        low.add(llvm.BrOp(header, following, *values))
        low.block = after
        return list(after.args)

    def outputs(self, depth: int) -> None:
        """The output loops from ``depth`` on: plain loops, then the vector axis in
        tiles (:meth:`columns`); the row loop runs inside it."""
        plan, low = self.plan, self.low
        loop = plan.outputs[depth]
        if loop is plan.vector[0]:
            self.columns()
            return
        if loop is plan.row:
            self.outputs(depth + 1)
            return
        name = loop.var_name

        def plain(index: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            low.env[name] = index
            self.outputs(depth + 1)
            return []

        self.loop(*low.bounds(loop), 1, plain)
        del low.env[name]

    def columns(self) -> None:
        """The vector axis in tiles of ``vectors`` vectors, then the lanes left; in
        each, the rows (the streamed operand's columns stay in cache while the tiles of
        rows go through them, as BLIS orders its loops)."""
        plan, low = self.plan, self.low
        span = self.width * plan.vectors
        full = plan.lanes - plan.lanes % span
        rest = plan.lanes - full
        widths = [self.width] * (rest // self.width) + [rest % self.width] * bool(rest % self.width)

        def tiles(index: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self.rows(index, [self.width] * plan.vectors)
            return []

        def last(index: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self.rows(index, widths)
            return []

        if plan.vector[0].parallel is not None:
            # A thread's slice of the columns (a product of one row): the tiles that
            # start in it, its bounds rounded up to whole tiles (the slices still
            # partition the columns, whatever the pool's grain).
            lo, hi = (self.round_up(bound, span) for bound in low.bounds(plan.vector[0]))
            below = low.add(llvm.ICmpOp(hi, low.const(full), _SLT))
            self.loop(lo, low.add(llvm.SelectOp(below, hi, low.const(full))), span, tiles)
            if rest:  # (the slice that holds the lanes past the last whole tile)
                starts = low.add(llvm.ICmpOp(lo, low.const(full + 1), _SLT))
                holds = low.add(llvm.AndOp(starts, low.add(llvm.ICmpOp(low.const(full), hi, _SLT))))
                once = low.add(llvm.SelectOp(holds, low.const(full + 1), low.const(full)))
                self.loop(low.const(full), once, 1, last)
            return
        if full:
            self.loop(low.const(0), low.const(full), span, tiles)
        if rest:
            self.rows(low.const(full), widths)

    def round_up(self, value: SSAValue, multiple: int) -> SSAValue:
        """``value`` (not negative) rounded up to a multiple of ``multiple``."""
        low = self.low
        up = low.add(llvm.AddOp(value, low.const(multiple - 1), overflow=_NSW))
        whole = low.add(llvm.SDivOp(up, low.const(multiple)))
        return low.add(llvm.MulOp(whole, low.const(multiple), overflow=_NSW))

    def rows(self, column: SSAValue, widths: list[int]) -> None:
        """The tiles of every row from ``column``: of the tile's height, then the rows
        left."""
        plan, low = self.plan, self.low

        def tile(row: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self.tile(row, plan.rows, column, widths)
            return []

        if _static(plan.row) and plan.row.parallel is None:
            extent = int(plan.row.upper)
            full = extent - extent % plan.rows
            if full:
                self.loop(low.const(0), low.const(full), plan.rows, tile)
            if extent % plan.rows:
                self.tile(low.const(full), extent % plan.rows, column, widths)
        else:
            self.some_rows(column, widths, tile)
        del low.env[plan.row.var_name]

    def some_rows(
        self,
        column: SSAValue,
        widths: list[int],
        tile: Callable[[SSAValue, list[SSAValue]], list[SSAValue]],
    ) -> None:
        """The rows of a symbolic extent or of a thread's slice: whole tiles while they
        fit; where the rows left are a static extent's last (the last slice's), one tile
        of their height; then tiles of halving heights."""
        plan, low = self.plan, self.low
        start, end = low.bounds(plan.row)
        height = low.const(plan.rows)
        count = low.add(llvm.SDivOp(low.add(llvm.SubOp(end, start)), height))
        full = low.add(llvm.AddOp(start, low.add(llvm.MulOp(count, height, overflow=_NSW))))
        self.loop(start, full, plan.rows, tile)
        rest = int(plan.row.upper) % plan.rows if _static(plan.row) else 0
        if rest:
            left = low.add(llvm.SubOp(end, full))
            last = low.add(llvm.ICmpOp(left, low.const(rest), _EQ))
            once = low.add(llvm.SelectOp(last, low.add(llvm.AddOp(full, low.const(1))), full))

            def remainder(row: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                self.tile(row, rest, column, widths)
                return []

            self.loop(full, once, 1, remainder)
            full = low.add(llvm.SelectOp(last, end, full))

        # The rows left, fewer than a tile's: tiles of halving heights, each where that
        # many rows are left (7 rows: 4, 2, then 1), the streamed operand read once a
        # tile rather than once a row.
        height = 1 << (plan.rows - 1).bit_length() - 1
        while height:

            def part(row: SSAValue, _: list[SSAValue], height: int = height) -> list[SSAValue]:
                self.tile(row, height, column, widths)
                return []

            more = low.add(llvm.AddOp(full, low.const(height), overflow=_NSW))
            short = low.add(llvm.ICmpOp(end, more, _SLT))
            upper = low.add(llvm.SelectOp(short, full, more))
            self.loop(full, upper, height, part)
            full, height = upper, height // 2

    def place(self, row: SSAValue, i: int, column: SSAValue, j: int) -> None:
        """Bind the row variable to ``row + i`` and the vector axis to lane 0 of
        vector ``j`` from ``column`` (the outer variables of a collapsed axis as 0)."""
        low, plan = self.low, self.plan
        low.env[plan.row.var_name] = self.offset(row, i)
        for loop in plan.vector[:-1]:
            low.env[loop.var_name] = low.const(0)
        low.env[plan.vector[-1].var_name] = self.offset(column, j * self.width)

    def offset(self, value: SSAValue, by: int) -> SSAValue:
        if not by:
            return value
        return self.low.add(llvm.AddOp(value, self.low.const(by), overflow=_NSW))

    def pointer(self, op: LoadOp | StoreOp) -> SSAValue:
        return self.low.address(op.buffer, op.indices.data)[0]

    def tile(self, row: SSAValue, height: int, column: SSAValue, widths: list[int]) -> None:
        """One tile: ``height`` rows from ``row``, vectors of ``widths`` lanes from
        ``column``."""
        plan, low = self.plan, self.low
        count = len(widths)

        def step(acc: list[SSAValue]) -> list[SSAValue]:
            if plan.depthwise:
                return shared_step(acc)
            streamed = []
            for j, width in enumerate(widths):
                self.place(row, 0, column, j)
                streamed.append(self.load(self.pointer(plan.streamed), width))
            out = []
            for i in range(height):
                self.place(row, i, column, 0)
                splat = self.splat(low.add(llvm.LoadOp(self.pointer(plan.broadcast), F32)))
                out += [
                    low.add(llvm.FMAOp(splat, streamed[j], acc[i * count + j]))
                    for j in range(count)
                ]
            return out

        def shared_step(acc: list[SSAValue]) -> list[SSAValue]:
            shared = []
            for j, width in enumerate(widths):
                self.place(row, 0, column, j)
                shared.append(self.load(self.pointer(plan.broadcast), width))

            def fmas(clamp: bool) -> list[SSAValue]:
                out = []
                for i in range(height):
                    self.place(row, i, column, 0)
                    inside = self.inside() if clamp else None  # (one test per pixel)
                    for j, width in enumerate(widths):
                        self.place(row, i, column, j)
                        streamed = self.streamed_vector(width, inside)
                        out.append(low.add(llvm.FMAOp(streamed, shared[j], acc[i * count + j])))
                return out

            if self.pad is None:
                return fmas(False)
            # The window of a step is inside the buffer for every row of the tile but
            # near a border: read as it is there, clamped only where it is not.
            self.place(row, 0, column, 0)
            first = self.inside()
            self.place(row, height - 1, column, 0)
            inside = low.add(llvm.AndOp(first, self.inside()))
            types = [value.type for value in acc]
            plain, clamped, join = Block(), Block(), Block(arg_types=types)
            for block in (plain, clamped, join):
                low.region.add_block(block)
            low.add(llvm.CondBrOp(inside, plain, [], clamped, []))
            for block, clamp in ((plain, False), (clamped, True)):
                low.block = block
                low.add(llvm.BrOp(join, *fmas(clamp)))
            low.block = join
            return list(join.args)

        def reduce(depth: int, acc: list[SSAValue]) -> list[SSAValue]:
            if depth == len(plan.reductions):
                return step(acc)
            loop = plan.reductions[depth]

            def body(index: SSAValue, values: list[SSAValue]) -> list[SSAValue]:
                low.env[loop.var_name] = index
                return reduce(depth + 1, values)

            result = self.loop(low.const(0), low.expr(loop.upper), 1, body, acc)
            del low.env[loop.var_name]
            return result

        acc = reduce(0, [self.init] * (height * count))
        for i in range(height):
            for j, width in enumerate(widths):
                self.place(row, i, column, j)
                if plan.epilogue is None:
                    self.store(acc[i * count + j], self.pointer(plan.output), width)
                else:
                    self.epilogue(acc[i * count + j], width)

    def streamed_vector(self, width: int, inside: SSAValue | None = None) -> SSAValue:
        """The streamed operand's vector at the current place; given ``inside`` (a
        depthwise tile's window over a border: :meth:`inside` at this pixel), read
        from a vector of the pad value where that is false."""
        pointer = self.pointer(self.plan.streamed)
        if inside is not None:
            pointer = self.low.add(llvm.SelectOp(inside, pointer, self.pad))
        return self.load(pointer, width)

    def inside(self) -> SSAValue:
        """Whether the streamed operand's clamped indices (:attr:`TilePlan.clamped`,
        not empty) at the current place are all inside its buffer."""
        low, load = self.low, self.plan.streamed
        tests = []
        for axis in self.plan.clamped:
            value = low.expr(load.indices.data[axis])
            size = low.const(int(load.buffer.type.dims[axis]))
            # one unsigned comparison: a negative index is a large unsigned one
            tests.append(low.add(llvm.ICmpOp(value, size, _ULT)))
        return functools.reduce(lambda a, b: low.add(llvm.AndOp(a, b)), tests)

    def epilogue(self, value: SSAValue, width: int) -> None:
        """Store one accumulator through the plan's epilogue: its ops on the vector,
        its accesses at the output's element or along the vector axis as vectors (the
        last value stored to each written once), the others as broadcasts."""
        plan, low = self.plan, self.low
        element = plan.output.indices.data
        current = {(plan.output.buffer, element): value}
        written = [(plan.output.buffer, element)]
        values: dict[SSAValue, SSAValue] = {}
        for op in plan.epilogue.perfect_nest()[-1].body.block.ops:
            if isinstance(op, LoadOp | StoreOp):
                key = (op.buffer, self.renamed[op])
                if isinstance(op, StoreOp):
                    current[key] = values[op.value]
                    if key not in written:
                        written.append(key)
                elif key in current:
                    values[op.result] = current[key]
                elif any(self.vector_names & symbolic.free_vars(i) for i in key[1]):
                    # the output's element, or a value per element of the vector axis
                    values[op.result] = self.load(low.address(*key)[0], width)
                else:
                    scalar = low.add(llvm.LoadOp(low.address(*key)[0], F32))
                    values[op.result] = self.splat(scalar)
            elif isinstance(op, arith.ConstantOp):
                values[op.result] = self.constants[op.result]
            elif type(op) in _EPILOGUE_BINARY:
                lhs, rhs = (values[v] for v in op.operands)
                values[op.results[0]] = low.add(_EPILOGUE_BINARY[type(op)](lhs, rhs))
            elif isinstance(op, arith.NegfOp):
                values[op.result] = low.add(llvm.FNegOp(values[op.operand]))
            elif isinstance(op, math.ExpOp):
                ops = expf(values[op.operand], self.width)
                for new in ops:
                    low.add(new)
                values[op.result] = ops[-1].results[0]
            else:
                name = f"{_EPILOGUE_INTRINSICS[type(op)]}.v{self.width}f32"
                args = [values[v] for v in op.operands]
                call = llvm.CallIntrinsicOp(name, args, [self.vector_type])
                values[op.results[0]] = low.add(call)
        for key in written:
            self.store(current[key], low.address(*key)[0], width)

    def splat(self, scalar: SSAValue) -> SSAValue:
        """A vector of ``scalar`` in every lane."""
        low = self.low
        lanes = DenseArrayBase.from_list(I32, [0] * self.width)
        one = low.add(llvm.InsertElementOp(self.undef, scalar, self.lane0))
        return low.add(llvm.ShuffleVectorOp(one, self.undef, lanes, self.vector_type))

    def load(self, pointer: SSAValue, width: int) -> SSAValue:
        if width == self.width:
            return self.low.add(llvm.LoadOp(pointer, self.vector_type, alignment=4))
        intrinsic = f"llvm.masked.load.v{self.width}f32.p0"
        args = [pointer, self.align, self.mask, self.zero]
        return self.low.add(llvm.CallIntrinsicOp(intrinsic, args, [self.vector_type]))

    def store(self, value: SSAValue, pointer: SSAValue, width: int) -> None:
        if width == self.width:
            self.low.add(llvm.StoreOp(value, pointer, alignment=4))
        else:
            self.low.add(llvm.MaskedStoreOp(value, pointer, self.mask, alignment=4))
