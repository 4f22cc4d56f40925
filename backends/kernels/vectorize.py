"""Vectorizing a loop nest: each statement becomes whole-array numpy operations.

A statement runs over its loops' box. Its loads become arrays over that box (see
:mod:`evaluator`), its expression tree numpy ufunc calls written in place where possible
(into the output view, or into a temporary nothing else reads). A store whose indices
omit some loop variables, of ``combine(load of the same element, expr)``, is a
reduction over those variables: ``combine.reduce`` over their axes, started from the
initial value stored just before when there is one. A sum of products becomes a
matrix product (:mod:`contraction`). Selects on affine conditions split the box first
(:mod:`splitting`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import sympy
from xdsl.ir import SSAValue

from xrelax.backends.kernels.buffers import Array, Axis, Buffer, Domain
from xrelax.backends.kernels.contraction import plan_contraction
from xrelax.backends.kernels.evaluator import Evaluator, store_target
from xrelax.backends.kernels.loop_split import split_divided_loops
from xrelax.backends.kernels.nest import Nest, NotVectorizable, check_fission
from xrelax.backends.kernels.numpy_ops import REDUCTIONS
from xrelax.backends.kernels.source import Source
from xrelax.backends.kernels.splitting import Piece, split
from xrelax.backends.kernels.tree import (
    Apply,
    Const,
    Load,
    Node,
    Scalar,
    Statement,
    walk,
)
from xrelax.dialects import dtypes
from xrelax.dialects.shapes.symbolic import prove_le, prove_lt

_MAX_UNROLLED_POINTS = 16
"""Reductions over at most this many static points are unrolled into ufunc calls..."""
_UNROLL_OUTPUTS_PER_POINT = 10
"""...when they have at least this many outputs per point."""


@dataclass(frozen=True)
class StatementPath:
    """How one statement was compiled: ``path`` and the access kinds it used."""

    statement: Statement
    path: str
    detail: str


def vectorize_nest(
    src: Source, nest: Nest, buffers: dict[SSAValue, Buffer], kname: str
) -> list[StatementPath]:
    """Emit the nest as numpy code; :class:`NotVectorizable` (and nothing emitted) if a
    statement is not recognised or the statements may not run one after another."""
    check_fission(nest)
    mark, depth = len(src.lines), src.depth
    try:
        return _NestVectorizer(src, nest, buffers, kname).emit()
    except NotVectorizable:
        del src.lines[mark:]
        src.depth = depth
        raise


@dataclass(frozen=True)
class _Reduction:
    combine: str
    expr: Node


def _reduction(statement: Statement, value: Node) -> _Reduction | None:
    """``combine(load of the stored element, expr)``, if ``value`` has that form."""
    if not isinstance(value, Apply) or value.op.fn not in REDUCTIONS or len(value.args) != 2:
        return None
    for k, arg in enumerate(value.args):
        if (
            isinstance(arg, Load)
            and arg.buffer is statement.buffer
            and arg.pad is None
            and all(
                sympy.expand(a - b) == 0
                for a, b in zip(arg.indices, statement.indices, strict=True)
            )
        ):
            return _Reduction(value.op.fn, value.args[1 - k])
    return None


def _identity(combine: str, dtype: np.dtype) -> object:
    """The value ``combine`` leaves unchanged (reducing from it needs no ``initial``)."""
    if combine in ("np.add", "np.bitwise_or"):
        return 0
    if combine == "np.multiply":
        return 1
    if combine == "np.bitwise_and":
        return np.iinfo(dtype).max if dtype.kind == "u" else -1
    is_max = combine in ("np.maximum", "np.fmax")
    if dtypes.is_float_numpy(dtype):
        return -np.inf if is_max else np.inf
    if dtype == np.bool_:
        return not is_max
    return np.iinfo(dtype).min if is_max else np.iinfo(dtype).max


def _positive(extent: sympy.Expr) -> bool:
    return prove_lt(0, extent)


class _NestVectorizer:
    def __init__(self, src: Source, nest: Nest, buffers: dict[SSAValue, Buffer], kname: str):
        self.src = src
        self.nest = nest
        self.buffers = buffers
        self.kname = kname

    def emit(self) -> list[StatementPath]:
        paths: list[StatementPath] = []
        statements = self.nest.statements
        k = 0
        while k < len(statements):
            statement, init = statements[k], None
            if k + 1 < len(statements) and self._is_init_of(statement, statements[k + 1]):
                init = statement
                paths.append(StatementPath(statement, "init", "fused into the reduction"))
                k += 1
                statement = statements[k]
            paths.append(self.statement(statement, init))
            k += 1
        return paths

    def _is_init_of(self, init: Statement, statement: Statement) -> bool:
        if init.buffer is not statement.buffer or not isinstance(init.value, Const | Scalar):
            return False
        if _reduction(statement, statement.value) is None:
            return False
        if len(init.indices) != len(statement.indices) or any(
            sympy.expand(a - b) != 0 for a, b in zip(init.indices, statement.indices, strict=True)
        ):
            return False
        count = len(init.loops)
        if tuple(loop.op for loop in statement.loops[:count]) != tuple(
            loop.op for loop in init.loops
        ):
            return False
        used = {s.name for i in statement.indices for s in i.free_symbols}
        return {loop.var for loop in statement.loops[:count]} <= used and not (
            {loop.var for loop in statement.loops[count:]} & used
        )

    def statement(self, original: Statement, init: Statement | None) -> StatementPath:
        statement = split_divided_loops(original, self.nest.lets)
        names = statement.loop_vars
        for loop in statement.loops:
            bound_vars = {s.name for s in (loop.lo.free_symbols | loop.hi.free_symbols)}
            if bound_vars & (set(names) | set(self.nest.lets)):
                raise NotVectorizable("a loop bound depends on another loop variable")
        used = {s.name for i in statement.indices for s in i.free_symbols}
        reduce_vars = {v for v in names if v not in used}
        reduction = _reduction(statement, statement.value)
        if reduce_vars and reduction is None:
            raise NotVectorizable(
                "the stored-to indices omit a loop variable but the value is not a reduction"
            )
        if (
            reduce_vars
            and reduction is not None
            and any(
                isinstance(n, Load) and n.buffer is statement.buffer
                for n in walk(reduction.expr, self.nest.lets)
            )
        ):
            raise NotVectorizable("a reduction reads its own buffer besides its accumulator")
        pieces = split(statement.loops, statement.value, reduce_vars)
        notes: set[str] = set()
        path = "elementwise"
        for piece in pieces:
            path = self._piece(statement, piece, reduce_vars, init, notes)
        if reduction is None and not reduce_vars:
            path = "elementwise"
        detail = ", ".join(sorted(notes))
        if len(pieces) > 1:
            detail = (
                f"{detail}, split into {len(pieces)}" if detail else f"split into {len(pieces)}"
            )
        if statement is not original:
            detail = f"{detail}, loops split" if detail else "loops split"
        return StatementPath(original, path, detail)

    def _piece(
        self,
        statement: Statement,
        piece: Piece,
        reduce_vars: set[str],
        init: Statement | None,
        notes: set[str],
    ) -> str:
        axes = []
        for loop in piece.loops:
            extent = loop.extent if prove_le(loop.lo, loop.hi) else sympy.Max(0, loop.extent)
            axes.append(Axis(loop.var, loop.lo, extent))
        domain = Domain(tuple(axes))
        out_domain = Domain(tuple(a for a in axes if a.var not in reduce_vars))
        ev = Evaluator(self.src, self.buffers, domain, self.nest.lets, self.kname, piece.value)
        buffer = self.buffers[statement.buffer]
        out_guard = [a.extent for a in out_domain.axes if not _positive(a.extent)]
        with self._guard(out_guard):
            dest = store_target(ev, buffer, statement.indices, out_domain)
            reduction = _reduction(statement, piece.value)
            if reduction is None or not reduce_vars:
                ev.store(piece.value, dest, statement.buffer)
                path = "elementwise"
            else:
                fused = init if piece.first else None
                reduce_guard = [
                    a.extent
                    for a in domain.axes
                    if a.var in reduce_vars and not _positive(a.extent)
                ]
                with self._guard(reduce_guard):
                    path = _reduce(ev, reduction, dest, out_domain, fused, statement, buffer)
                if reduce_guard and fused is not None:
                    with self.src.indented("else:"):
                        self.src.line(f"np.copyto({dest.code}, {ev.value(fused.value).code})")
        notes |= ev.notes
        return path

    @contextlib.contextmanager
    def _guard(self, extents: list[sympy.Expr]) -> Iterator[None]:
        if not extents:
            yield
            return
        condition = " and ".join(f"{self.src.py(e)} > 0" for e in extents)
        with self.src.indented(f"if {condition}:"):
            yield


def _reduce(
    ev: Evaluator,
    reduction: _Reduction,
    dest: Array,
    out_domain: Domain,
    init: Statement | None,
    statement: Statement,
    buffer: Buffer,
) -> str:
    """Emit the reduction into ``dest``; its path name."""
    out_vars = out_domain.names
    red_vars = [v for v in ev.domain.names if v not in out_vars]
    initial = None if init is None else ev.value(init.value)
    identity = (
        init is not None
        and isinstance(init.value, Const)
        and init.value.value
        == init.value.dtype.type(_identity(reduction.combine, init.value.dtype))
    )
    expr = reduction.expr
    if reduction.combine == "np.add" and isinstance(expr, Apply) and expr.op.fn == "np.multiply":
        left, right = (ev.value(a) for a in expr.args)
        plan = plan_contraction(left, right, out_vars, red_vars)
        window = _small_window(ev, red_vars)
        if (
            plan is not None
            and window is not None
            and plan.batch
            and not (plan.left_only and plan.right_only)
            and left.dtype == right.dtype == dest.dtype
        ):
            # Many small matrix-vector products (a depthwise convolution: one per
            # image and channel over a 3x3 window) cost more as a batched matmul of
            # an im2col copy than as one multiply-add of whole views per point.
            _unrolled_products(ev, left, right, window, dest, initial, identity)
            return "products"
        if plan is not None:
            path = plan.emit(ev, dest, buffer, statement.indices, out_domain, initial is not None)
            if initial is not None and not identity:
                ev.src.line(f"np.add({dest.code}, {initial.code}, out={dest.code})")
            return path
    x = ev.value(expr)
    axes = tuple(ev.domain.position(v) for v in red_vars)
    if not set(red_vars) <= x.vars:
        shape = [
            ev.src.py(a.extent) if a.var in x.vars or a.var in red_vars else "1"
            for a in ev.domain.axes
        ]
        x = ev.bind(
            f"np.broadcast_to({x.code}, ({', '.join(shape)},))", x.vars | set(red_vars), x.dtype
        )
    fn = reduction.combine
    full = set(out_vars) <= x.vars
    window = _small_window(ev, red_vars) if x.dtype == dest.dtype else None
    outputs = sympy.Mul(*(ev.domain.extents()[v] for v in out_vars))
    threshold = _UNROLL_OUTPUTS_PER_POINT * len(window or ())
    if window is None or (outputs.is_Integer and outputs < threshold):
        _reduce_call(ev, fn, x, axes, dest, initial, identity, full)
        return "reduce"
    x = ev.bind(x.code, x.vars, x.dtype)
    if outputs.is_Integer:
        _unrolled_reduce(ev, fn, x, window, dest, initial, identity)
        return "reduce"
    with ev.src.indented(f"if {ev.src.py(outputs)} >= {threshold}:"):
        _unrolled_reduce(ev, fn, x, window, dest, initial, identity)
    with ev.src.indented("else:"):
        _reduce_call(ev, fn, x, axes, dest, initial, identity, full)
    return "reduce"


def _reduce_call(
    ev: Evaluator,
    fn: str,
    x: Array,
    axes: tuple[int, ...],
    dest: Array,
    initial: Array | None,
    identity: bool,
    full: bool,
) -> None:
    """``dest = fn.reduce(x, axes)`` (from ``initial``, or combined into ``dest`` when
    there is none); ``full``: ``x`` varies along every output axis."""
    axis = f"axis={axes if len(axes) > 1 else axes[0]}"
    if initial is not None:
        extra = "" if identity else f", initial={initial.code}"
        if full:
            ev.src.line(f"{fn}.reduce({x.code}, {axis}, out={dest.code}{extra})")
        else:
            reduced = ev.bind(f"{fn}.reduce({x.code}, {axis}{extra})", x.vars, dest.dtype)
            ev.src.line(f"np.copyto({dest.code}, {reduced.code})")
    else:
        reduced = ev.bind(f"{fn}.reduce({x.code}, {axis})", x.vars, dest.dtype)
        ev.src.line(f"{fn}({dest.code}, {reduced.code}, out={dest.code})")


def _small_window(ev: Evaluator, red_vars: list[str]) -> list[tuple[str, ...]] | None:
    """The index tuples of ``x`` selecting each point of a reduction over a few
    static points (a pooling window): None when the reduction is larger or symbolic.

    numpy's ``ufunc.reduce`` over short trailing axes runs an inner loop per output
    element, ~45-65 ns each (2x2 max pooling of (8, 8, 28, 28): ~810 us); one
    whole-array ufunc per window point costs ~0.45 us plus the data (~22 us there).
    Unrolling pays from about 10 outputs per point on, decided at run time when the
    output count is symbolic.
    """
    extents = ev.domain.extents()
    if not red_vars or not all(extents[v].is_Integer for v in red_vars):
        return None
    points = 1
    for v in red_vars:
        points *= int(extents[v])
    if not 1 < points <= _MAX_UNROLLED_POINTS:
        return None
    ranges = [range(int(extents[a.var])) if a.var in red_vars else None for a in ev.domain.axes]
    index: list[tuple[str, ...]] = [()]
    for r in ranges:
        options = [":"] if r is None else [str(i) for i in r]
        index = [prefix + (o,) for prefix in index for o in options]
    return index


def _unrolled_products(
    ev: Evaluator,
    left: Array,
    right: Array,
    window: list[tuple[str, ...]],
    dest: Array,
    initial: Array | None,
    identity: bool,
) -> None:
    """``dest = initial + sum over the window points p of left[p] * right[p]`` (added
    to ``dest`` when there is no initial value), one multiply and one add of whole
    arrays per point."""
    left = ev.bind(left.code, left.vars, left.dtype)
    right = ev.bind(right.code, right.vars, right.dtype)
    points = [(f"{left.code}[{', '.join(i)}]", f"{right.code}[{', '.join(i)}]") for i in window]
    if initial is not None:
        a, b = points.pop(0)
        ev.src.line(f"np.multiply({a}, {b}, out={dest.code})")
    product = ev.src.fresh("t")
    ev.src.assign(product, f"np.empty_like({dest.code})")
    for a, b in points:
        ev.src.line(f"np.multiply({a}, {b}, out={product})")
        ev.src.line(f"np.add({dest.code}, {product}, out={dest.code})")
    if initial is not None and not identity:
        ev.src.line(f"np.add({dest.code}, {initial.code}, out={dest.code})")


def _unrolled_reduce(
    ev: Evaluator,
    fn: str,
    x: Array,
    window: list[tuple[str, ...]],
    dest: Array,
    initial: Array | None,
    identity: bool,
) -> None:
    """``dest = fn(...fn(fn(start, x[p0]), x[p1])..., x[pk])`` over the window points;
    ``start`` is the initial value, or ``dest`` itself when there is none (an update).
    The ufuncs broadcast ``x`` along output axes it does not vary on; ``x`` is a name."""
    points = [f"{x.code}[{', '.join(i)}]" for i in window]
    if initial is None:
        first = dest.code
    elif identity:
        first, points = points[0], points[1:]
    else:
        first = initial.code
    ev.src.line(f"{fn}({first}, {points[0]}, out={dest.code})")
    for point in points[1:]:
        ev.src.line(f"{fn}({dest.code}, {point}, out={dest.code})")
