"""The arrays of one statement's nodes over its iteration domain, as numpy code
(:class:`Evaluator`): constants, indices, ufunc calls written in place where possible,
and buffer accesses.

A load whose indices are affine in the loop variables becomes a view: basic slicing
(identity, transpose, broadcast, slices, offsets, negative steps) when each dimension
follows at most one loop variable, else an ``np.ndarray`` strided over the buffer's
memory (sliding windows, diagonals). A load that is affine only through its row-major
offset (a reshape: ``floordiv``/``floormod`` pairs) is a strided view of the flat
buffer. A ``pad`` load reads a padded copy (fill, then copy into the valid box).
Anything else (data-dependent indices, other divisions) is a fancy-indexing gather.
Indices that cannot be proven in bounds are checked when the kernel runs.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy
from xdsl.ir import SSAValue

from xrelax.backends.kernels.affine import (
    Affine,
    affine,
    drop_vanishing_floors,
    index_bounds,
    proven_inside,
)
from xrelax.backends.kernels.buffers import Array, Buffer, Domain, Whole
from xrelax.backends.kernels.nest import NotVectorizable
from xrelax.backends.kernels.numpy_ops import CAST, SELECT
from xrelax.backends.kernels.source import Source, dtype_code, numpy_expr
from xrelax.backends.kernels.tree import (
    Apply,
    Const,
    Index,
    Load,
    Node,
    Scalar,
    use_counts,
    walk,
)
from xrelax.dialects import dtypes
from xrelax.dialects.shapes.symbolic import (
    flat_offset,
    prove_equal,
    prove_le,
    prove_lt,
    row_major_strides,
    sym,
)


class Evaluator:
    """Generates the arrays of one statement's nodes over its domain (memoised)."""

    def __init__(
        self,
        src: Source,
        buffers: dict[SSAValue, Buffer],
        domain: Domain,
        lets: dict[str, Node],
        kname: str,
        root: Node,
    ) -> None:
        self.src = src
        self.buffers = buffers
        self.domain = domain
        self.lets = lets
        self.kname = kname
        self.uses = use_counts(root, lets)
        self.memo: dict[tuple[int, tuple[str, ...]], Array] = {}
        self.var_memo: dict[int, frozenset[str]] = {}
        self.aranges: dict[str, str] = {}
        self.notes: set[str] = set()
        self.guards: tuple[str, ...] = ()
        """The conditions (boolean arrays) of the select operands being evaluated: a read
        checks its indices only where they hold, as the scalar loops do."""
        self._unsafe: dict[int, bool] = {}

    def note(self, kind: str) -> None:
        """Record an access kind for the debug listing."""
        self.notes.add(kind)

    def bind(
        self, code: str, variables: frozenset[str], dtype: np.dtype, owned: bool = False
    ) -> Array:
        """``code`` held in a variable. A name is used as it is, and never owned: it
        refers to an array something else may still read."""
        if code.isidentifier():
            return Array(code, variables, dtype)
        name = self.src.fresh("t")
        self.src.assign(name, code)
        return Array(name, variables, dtype, owned)

    # ------------------------------------------------------------------ values

    def value(self, node: Node) -> Array:
        """The array (or scalar) of ``node`` over the domain."""
        key = (id(node), self.guards)
        if key not in self.memo:
            self.memo[key] = self._value(node)
        return self.memo[key]

    def reads_inside(self, load: Load) -> bool:
        """Whether every index of ``load`` is proven inside its buffer over the domain."""
        lows, extents = self.domain.lows(), self.domain.extents()
        dims = self.buffers[load.buffer].dims
        return all(
            proven_inside(index, size, lows, extents, self.lets)
            for index, size in zip(load.indices, dims, strict=True)
        )

    def _may_read_outside(self, node: Node) -> bool:
        if id(node) not in self._unsafe:
            self._unsafe[id(node)] = any(
                isinstance(n, Load) and n.pad is None and not self.reads_inside(n)
                for n in walk(node, self.lets)
            )
        return self._unsafe[id(node)]

    def _select_operands(self, node: Apply) -> tuple[Array, Array, Array]:
        """The condition and both operands of a select; an operand that may read outside
        a buffer is evaluated under the condition that chooses it (checked only there)."""
        cond = self.value(node.args[0])
        then = self._guarded(node.args[1], cond.code)
        if self._may_read_outside(node.args[2]):
            negation = self.bind(f"np.logical_not({cond.code})", cond.vars, cond.dtype)
            other = self._guarded(node.args[2], negation.code)
        else:
            other = self.value(node.args[2])
        return cond, then, other

    def _guarded(self, node: Node, guard: str) -> Array:
        if not self._may_read_outside(node):
            return self.value(node)
        outer = self.guards
        self.guards = (*outer, guard)
        try:
            return self.value(node)
        finally:
            self.guards = outer

    def _value(self, node: Node) -> Array:
        if isinstance(node, Const):
            return Array(self.src.const(node.value, node.dtype), frozenset(), node.dtype)
        if isinstance(node, Scalar):
            return Array(node.name, frozenset(), node.dtype)
        if isinstance(node, Index):
            index = self.index_array(node.expr)
            if node.dtype == np.int64:
                return index
            if index.vars:
                return self.bind(
                    f"{index.code}.astype({dtype_code(node.dtype)})", index.vars, node.dtype
                )
            return Array(f"{dtype_code(node.dtype)}({index.code})", frozenset(), node.dtype)
        if isinstance(node, Load):
            return _load(self, node)
        assert isinstance(node, Apply)
        return self._apply(node, None)

    def node_vars(self, node: Node) -> frozenset[str]:
        """The loop variables ``node`` depends on."""
        if id(node) not in self.var_memo:
            names = set(self.domain.names)
            found: set[str] = set()
            for sub in walk(node, self.lets):
                exprs = (
                    sub.indices
                    if isinstance(sub, Load)
                    else (sub.expr,)
                    if isinstance(sub, Index)
                    else ()
                )
                for expr in exprs:
                    found |= {s.name for s in expr.free_symbols} & names
            self.var_memo[id(node)] = frozenset(found)
        return self.var_memo[id(node)]

    def arange(self, var: str) -> str:
        """An integer array of ``var``'s values along its axis."""
        if var not in self.aranges:
            axis = self.domain.axes[self.domain.position(var)]
            code = f"np.arange({self.src.py(axis.lo)}, {self.src.py(axis.lo + axis.extent)})"
            if len(self.domain.axes) > 1:
                shape = ["1"] * len(self.domain.axes)
                shape[self.domain.position(var)] = "-1"
                code += f".reshape(({', '.join(shape)}))"
            self.aranges[var] = self.bind(code, frozenset({var}), np.dtype(np.int64)).code
        return self.aranges[var]

    def index_array(self, expr: sympy.Expr) -> Array:
        """The int64 values of an index expression over the domain."""
        names = dict(self.src.py_names)
        variables: set[str] = set()
        for s in expr.free_symbols:
            if s.name in self.domain.names:
                names[s.name] = self.arange(s.name)
                variables.add(s.name)
            elif s.name in self.lets:
                let = self.value(self.lets[s.name])
                names[s.name] = let.code
                variables |= let.vars
        code = numpy_expr(sympy.expand(expr), names)
        if not variables:
            return Array(f"np.int64({code})", frozenset(), np.dtype(np.int64))
        return self.bind(
            code,
            frozenset(variables),
            np.dtype(np.int64),
            owned=True,
        )

    def _apply(self, node: Apply, dest: Array | None) -> Array:
        if node.op is SELECT:
            cond, then, other = self._select_operands(node)
            if dest is not None:
                self.src.line(f"np.copyto({dest.code}, {other.code})")
                self.src.line(f"np.copyto({dest.code}, {then.code}, where={cond.code})")
                return dest
            variables = cond.vars | then.vars | other.vars
            code = f"np.where({cond.code}, {then.code}, {other.code})"
            return self.bind(code, variables, node.dtype, owned=bool(variables))
        if node.op is CAST:
            (x,) = (self.value(a) for a in node.args)
            if dtypes.is_float_numpy(x.dtype) and node.dtype.kind in "iu":
                # numpy's own conversion of out-of-range floats depends on the size
                code = f"rt.cast({x.code}, np.dtype({dtype_code(node.dtype)}))"
                converted = self.bind(code, x.vars, node.dtype, owned=bool(x.vars))
                if dest is None:
                    return converted
                self.src.line(f"np.copyto({dest.code}, {converted.code})")
                return dest
            if dest is not None:
                self.src.line(f"np.copyto({dest.code}, {x.code}, casting='unsafe')")
                return dest
            if x.vars:
                return self.bind(
                    f"{x.code}.astype({dtype_code(node.dtype)})", x.vars, node.dtype, True
                )
            return self.bind(
                f"rt.cast({x.code}, np.dtype({dtype_code(node.dtype)}))", x.vars, node.dtype
            )
        args = [self.value(a) for a in node.args]
        variables = frozenset().union(*(a.vars for a in args))
        call = f"{node.op.fn}({', '.join(a.code for a in args)}"
        if not node.op.ufunc:
            result = self.bind(call + ")", variables, node.dtype, owned=bool(variables))
            if dest is not None:
                self.src.line(f"np.copyto({dest.code}, {result.code})")
                return dest
            return result
        if dest is not None:
            self.src.line(f"{call}, out={dest.code})")
            return dest
        for arg, array in zip(node.args, args, strict=True):
            if (
                array.owned
                and self.uses.get(id(arg), 0) == 1
                and array.vars == variables
                and array.dtype == node.dtype
            ):
                self.src.line(f"{call}, out={array.code})")
                return Array(array.code, variables, node.dtype, owned=True)
        return self.bind(call + ")", variables, node.dtype, owned=bool(variables))

    # ------------------------------------------------------------------ statements

    def store(self, value: Node, dest: Array, target: SSAValue) -> None:
        """Write ``value`` into ``dest``, computing its spine of ufuncs in place there."""
        reads_target = any(
            isinstance(n, Load) and n.buffer is target for n in walk(value, self.lets)
        )
        if isinstance(value, Load) and (id(value), self.guards) not in self.memo:
            loaded = _load(self, value, dest)
            if loaded is not dest:
                self.src.line(f"np.copyto({dest.code}, {loaded.code})")
            return
        if not isinstance(value, Apply):
            self.src.line(f"np.copyto({dest.code}, {self.value(value).code})")
            return
        if not reads_target:
            self._into(value, dest)
        elif value.op is SELECT:
            # Filling dest with one branch would overwrite the other where it is dest.
            self.src.line(f"np.copyto({dest.code}, {self._apply(value, None).code})")
        else:
            self._apply(value, dest)

    def _into(self, node: Apply, dest: Array) -> None:
        if node.op.ufunc and node.dtype == dest.dtype:
            for arg in node.args:
                if (
                    isinstance(arg, Apply)
                    and self.uses.get(id(arg), 0) == 1
                    and arg.dtype == dest.dtype
                    and (id(arg), self.guards) not in self.memo
                    and self.node_vars(arg) == dest.vars
                ):
                    self._into(arg, dest)
                    self.memo[(id(arg), self.guards)] = dest
                    break
        self._apply(node, dest)


def _load(ev: Evaluator, node: Load, dest: Array | None = None) -> Array:
    """The array of the values ``node`` loads over the domain; with ``dest`` (a store's
    target covering the whole domain), a gather may write there directly and return it."""
    buffer = ev.buffers[node.buffer]
    if ev.guards and node.pad is None and not ev.reads_inside(node):
        # Where the guards do not hold the indices may be anything: gathered clipped.
        ev.note("gather")
        return _gather(ev, buffer, node, dest)
    forms = _affine_forms(ev, node.indices)
    if node.pad is not None:
        if forms is not None and isinstance(node.pad, Const | Scalar):
            ev.note("pad")
            return _padded(ev, buffer, forms, ev.value(node.pad).code)
        ev.note("gather")
        return _gather(ev, buffer, node)
    if forms is not None:
        _check_bounds(ev, buffer, forms, ev.domain)
        return _affine_view(ev, buffer, forms, ev.domain)
    offset = drop_vanishing_floors(
        flat_offset(node.indices, buffer.dims),
        ev.domain.names,
        ev.domain.lows(),
        ev.domain.extents(),
    )
    flat = affine(offset, ev.domain.names, ev.lets)
    if flat is not None:
        ev.note("reshape")
        _check_flat_bounds(ev, buffer, node.indices, flat)
        return _flat_view(ev, buffer, flat)
    ev.note("gather")
    return _gather(ev, buffer, node, dest)


def store_target(
    ev: Evaluator, buffer: Buffer, indices: tuple[sympy.Expr, ...], domain: Domain
) -> Array:
    """A writable view of the elements a statement writes, one axis per axis of
    ``domain`` (its loops minus the reduced ones); the indices must follow each of these
    loop variables in exactly one dimension."""
    forms = _affine_forms(ev, indices)
    if forms is None:
        raise NotVectorizable("the stored-to indices are not affine in the loop variables")
    seen: list[str] = []
    for form in forms:
        if any(not c.is_Integer for c in form.coeffs.values()) or not _mixed_radix(
            form, domain.extents()
        ):
            raise NotVectorizable("a stored-to dimension mixes loop variables")
        seen += list(form.coeffs)
    if sorted(seen) != sorted(domain.names):
        raise NotVectorizable("the stored-to indices do not follow each loop variable once")
    _check_bounds(ev, buffer, forms, domain)
    return _affine_view(ev, buffer, forms, domain, writable=True)


def _mixed_radix(form: Affine, extents: dict[str, sympy.Expr]) -> bool:
    """Whether distinct values of the variables give distinct indices: one variable, or
    positive coefficients each at least the span of the smaller ones (``c * o + i``)."""
    if len(form.coeffs) <= 1:
        return True
    ordered = sorted(form.coeffs.items(), key=lambda item: int(item[1]))
    if int(ordered[0][1]) <= 0:
        return False
    span = sympy.Integer(0)
    for var, coeff in ordered:
        if not prove_le(span + 1, coeff) and span != 0:
            return False
        span = sympy.expand(span + coeff * (extents[var] - 1))
    return True


def _affine_forms(ev: Evaluator, indices: tuple[sympy.Expr, ...]) -> list[Affine] | None:
    forms = [affine(i, ev.domain.names, ev.lets) for i in indices]
    return None if any(f is None for f in forms) else forms  # type: ignore[return-value]


def is_contiguous(buffer: Buffer, indices: tuple[sympy.Expr, ...], domain: Domain) -> bool:
    """Whether ``indices`` visit consecutive elements of the buffer in the domain's
    row-major order, so that the target view can be reshaped without a copy."""
    strides = row_major_strides([a.extent for a in domain.axes])
    walk = sum(
        (sym(a.var) * s for a, s in zip(domain.axes, strides, strict=True)), sympy.Integer(0)
    )
    form = affine(sympy.expand(flat_offset(indices, buffer.dims) - walk), domain.names)
    return form is not None and not form.coeffs


def _check_bounds(ev: Evaluator, buffer: Buffer, forms: list[Affine], domain: Domain) -> None:
    lows, extents = domain.lows(), domain.extents()
    checks = [
        (dim, *form.bounds(lows, extents), size)
        for dim, (form, size) in enumerate(zip(forms, buffer.dims, strict=True))
    ]
    _emit_bound_checks(ev, buffer, checks)


def _check_flat_bounds(
    ev: Evaluator, buffer: Buffer, indices: tuple[sympy.Expr, ...], flat: Affine
) -> None:
    """Check, where not proven, that a row-major view stays inside the buffer and each
    index whose range is known inside its dimension (past a row's end, the view would
    read the next row instead of failing)."""
    lows, extents = ev.domain.lows(), ev.domain.extents()
    low, high = flat.bounds(lows, extents)
    checks = [("flat", low, high, sympy.Mul(*buffer.dims))]
    for dim, (index, size) in enumerate(zip(indices, buffer.dims, strict=True)):
        bounds = index_bounds(index, lows, extents, ev.lets)
        if bounds is not None:
            checks.append((dim, *bounds, size))
    _emit_bound_checks(ev, buffer, checks)


def _emit_bound_checks(
    ev: Evaluator,
    buffer: Buffer,
    checks: list[tuple[int | str, sympy.Expr, sympy.Expr, sympy.Expr]],
) -> None:
    """Emit, for each ``(dim, low, high, size)`` not proven ``0 <= low and high < size``,
    a run-time check that reports the out-of-bounds access of ``buffer``."""
    for dim, low, high, size in checks:
        if prove_le(0, low) and prove_lt(high, size):
            continue
        lo, hi, n = ev.src.py(low), ev.src.py(high), ev.src.py(size)
        ev.src.line(f"if not (0 <= {lo} and {hi} < {n}):")
        ev.src.line(f"    rt.bounds_error({ev.kname}, {buffer.label!r}, {dim!r}, {lo}, {hi}, {n})")


def _affine_view(
    ev: Evaluator, buffer: Buffer, forms: list[Affine], domain: Domain, writable: bool = False
) -> Array:
    used = [v for f in forms for v in f.coeffs]
    variables = frozenset(used)
    basic = len(used) == len(variables) and all(
        len(f.coeffs) <= 1 and all(c.is_Integer for c in f.coeffs.values()) for f in forms
    )
    code = (
        _basic_view(ev, buffer, forms, domain)
        if basic
        else _strided_view(ev, buffer, forms, domain)
    )
    if basic and not writable:
        ev.note("view")
    elif not basic:
        ev.note("strided")
    array = ev.bind(code, variables, buffer.dtype)
    whole = _whole_vars(buffer, forms, domain) if basic else None
    return array if whole is None else replace(array, whole=Whole(buffer.name, whole))


def _whole_vars(buffer: Buffer, forms: list[Affine], domain: Domain) -> tuple[str, ...] | None:
    """The loop variables the dimensions of ``buffer`` follow, if the access reads each
    dimension whole, in order, along one variable."""
    lows, extents = domain.lows(), domain.extents()
    variables = []
    for form, size in zip(forms, buffer.dims, strict=True):
        if len(form.coeffs) != 1:
            return None
        ((var, coeff),) = form.coeffs.items()
        if coeff != 1 or not prove_equal(form.at(lows), 0) or not prove_equal(extents[var], size):
            return None
        variables.append(var)
    return tuple(variables)


def _basic_view(ev: Evaluator, buffer: Buffer, forms: list[Affine], domain: Domain) -> str:
    """``A[slices]``, transposed to domain order, with new axes for absent variables."""
    names = domain.names
    lows, extents = domain.lows(), domain.extents()
    parts: list[str] = []
    order: list[str] = []
    for form, size in zip(forms, buffer.dims, strict=True):
        start = form.at(lows)
        if not form.coeffs:
            parts.append(ev.src.py(start))
            continue
        ((var, coeff),) = form.coeffs.items()
        order.append(var)
        parts.append(_slice(ev, start, int(coeff), extents[var], size))
    positions = [names.index(v) for v in order]
    if positions == sorted(positions):
        index: list[str] = []
        cursor = 0
        part_iter = iter(parts)
        for form in forms:
            if form.coeffs:
                (var,) = form.coeffs
                position = names.index(var)
                index += ["None"] * len([n for n in names[cursor:position] if n not in order])
                cursor = position + 1
            index.append(next(part_iter))
        index += ["None"] * len([n for n in names[cursor:] if n not in order])
        if all(p == ":" for p in index):
            return buffer.name
        return f"{buffer.name}[{', '.join(index)}{', ...' if not order else ''}]"
    perm = sorted(range(len(order)), key=lambda k: positions[k])
    code = f"{buffer.name}[{', '.join(parts)}].transpose({', '.join(map(str, perm))})"
    if len(order) < len(names):
        code += "[" + ", ".join(":" if n in order else "None" for n in names) + "]"
    return code


def _slice(
    ev: Evaluator, start: sympy.Expr, step: int, extent: sympy.Expr, size: sympy.Expr
) -> str:
    stop = sympy.expand(start + step * extent)
    if step == 1 and prove_equal(start, 0) and prove_equal(stop, size):
        return ":"
    lo = ev.src.py(start)
    if step > 0:
        return f"{lo}:{ev.src.py(stop)}" + (f":{step}" if step != 1 else "")
    if prove_equal(stop, -1):
        return f"{lo}::{step}"
    if prove_le(0, stop):
        return f"{lo}:{ev.src.py(stop)}:{step}"
    return f"{lo}:rt.slice_stop({ev.src.py(stop)}):{step}"


def _strided_view(ev: Evaluator, buffer: Buffer, forms: list[Affine], domain: Domain) -> str:
    """An ``np.ndarray`` over the buffer's memory with one (byte) stride per domain axis."""
    pairs = list(zip(forms, row_major_strides(buffer.dims), strict=True))
    offset = sympy.expand(sum((f.at(domain.lows()) * s for f, s in pairs), sympy.Integer(0)))
    strides = [
        sympy.expand(sum((f.coeffs.get(a.var, 0) * s for f, s in pairs), sympy.Integer(0)))
        for a in domain.axes
    ]
    return _ndarray(ev, buffer, offset, strides, {v for f in forms for v in f.coeffs}, domain)


def _flat_view(ev: Evaluator, buffer: Buffer, flat: Affine) -> Array:
    offset = flat.at(ev.domain.lows())
    strides = [flat.coeffs.get(axis.var, sympy.Integer(0)) for axis in ev.domain.axes]
    code = _ndarray(ev, buffer, offset, strides, set(flat.coeffs), ev.domain)
    return ev.bind(code, frozenset(flat.coeffs), buffer.dtype)


def _ndarray(
    ev: Evaluator,
    buffer: Buffer,
    offset: sympy.Expr,
    strides: list[sympy.Expr],
    used: set[str],
    domain: Domain,
) -> str:
    ev.src.contiguous.add(buffer.name)
    size = buffer.dtype.itemsize
    shape = [ev.src.py(a.extent) if a.var in used else "1" for a in domain.axes]
    byte_strides = [
        ev.src.py(sympy.expand(s * size)) if a.var in used else "0"
        for s, a in zip(strides, domain.axes, strict=True)
    ]
    return (
        f"np.ndarray(({''.join(s + ', ' for s in shape)}), {buffer.name}.dtype, {buffer.name}, "
        f"{ev.src.py(sympy.expand(offset * size))}, ({''.join(s + ', ' for s in byte_strides)}))"
    )


def _padded(ev: Evaluator, buffer: Buffer, forms: list[Affine], pad: str) -> Array:
    """The view of a copy of ``buffer`` padded with ``pad`` so that every index is valid."""
    lows, extents = ev.domain.lows(), ev.domain.extents()
    befores: list[sympy.Expr] = []
    dims: list[sympy.Expr] = []
    for dim, (form, size) in enumerate(zip(forms, buffer.dims, strict=True)):
        low, high = form.bounds(lows, extents)
        before = _pad_amount(ev, sympy.Max(0, -low), f"pad{dim}_lo")
        after = _pad_amount(ev, sympy.Max(0, high + 1 - size), f"pad{dim}_hi")
        befores.append(before)
        dims.append(sympy.expand(size + before + after))
    if all(d == size for d, size in zip(dims, buffer.dims, strict=True)):
        _check_bounds(ev, buffer, forms, ev.domain)
        return _affine_view(ev, buffer, forms, ev.domain)
    padded = ev.src.fresh(f"{buffer.name}_pad")
    sizes = []
    for d, (dim, size) in enumerate(zip(dims, buffer.dims, strict=True)):
        if dim.is_Integer or dim == size:
            sizes.append(dim)
        else:
            size_name = ev.src.fresh(f"{padded}_d{d}")
            ev.src.line(f"{size_name} = {ev.src.py(dim)}")
            ev.src.py_names[size_name] = size_name
            sizes.append(sym(size_name))
    shape = "".join(f"{ev.src.py(d)}, " for d in sizes)
    ev.src.line(f"{padded} = np.full(({shape}), {pad}, {buffer.name}.dtype)")
    box = ", ".join(
        ":" if dim == size else f"{ev.src.py(before)}:{ev.src.py(before + size)}"
        for before, size, dim in zip(befores, buffer.dims, dims, strict=True)
    )
    ev.src.line(f"{padded}[{box}] = {buffer.name}")
    shifted = [
        Affine(f.coeffs, sympy.expand(f.rest + b)) for f, b in zip(forms, befores, strict=True)
    ]
    view = Buffer(padded, buffer.label, tuple(sizes), buffer.dtype)
    return _affine_view(ev, view, shifted, ev.domain)


def _pad_amount(ev: Evaluator, amount: sympy.Expr, name: str) -> sympy.Expr:
    """How far an access reaches past one side: a constant, or a run-time variable."""
    if prove_le(amount, 0):
        return sympy.Integer(0)
    if amount.is_Integer:
        return amount
    var = ev.src.fresh(name)
    ev.src.line(f"{var} = {ev.src.py(amount)}")
    ev.src.py_names[var] = var
    return sym(var)


def _gather(ev: Evaluator, buffer: Buffer, node: Load, dest: Array | None = None) -> Array:
    """Fancy indexing with index arrays computed over the domain; the indices not proven
    inside the buffer (data-dependent ones) are checked first, each with one test over
    its whole array: a negative index is an error, not a read from the end."""
    indices = [ev.index_array(i) for i in node.indices]
    variables = frozenset().union(*(a.vars for a in indices))
    if node.pad is None:
        lows, extents = ev.domain.lows(), ev.domain.extents()
        safe = list(indices)
        for dim, (expr, index, size) in enumerate(
            zip(node.indices, indices, buffer.dims, strict=True)
        ):
            if proven_inside(expr, size, lows, extents, ev.lets):
                continue
            n = ev.src.py(size)
            outside = f"(({index.code} < 0) | ({index.code} >= {n}))"
            if ev.guards:
                bad = ev.bind(" & ".join([outside, *ev.guards]), variables, np.dtype(np.bool_))
                shown = f"np.broadcast_to({index.code}, {bad.code}.shape)[{bad.code}]"
                ev.src.line(f"if {bad.code}.any():")
                ev.src.line(
                    f"    rt.index_error({ev.kname}, {buffer.label!r}, {dim}, {shown}, {n})"
                )
                clipped = f"np.clip({index.code}, 0, max({n} - 1, 0))"
                safe[dim] = ev.bind(clipped, index.vars, index.dtype)
                continue
            test = f"{outside}.any()" if index.vars else f"not 0 <= {index.code} < {n}"
            ev.src.line(f"if {test}:")
            ev.src.line(
                f"    rt.index_error({ev.kname}, {buffer.label!r}, {dim}, {index.code}, {n})"
            )
        taken = _take_along_one_axis(ev, buffer, node.indices, indices, dest)
        if taken is not None:
            return taken
        code = f"{buffer.name}[{', '.join(a.code for a in safe)}]"
        return ev.bind(code, variables, buffer.dtype, owned=True)
    pad = ev.value(node.pad)
    valid = " & ".join(
        f"(({a.code}) >= 0) & (({a.code}) < {ev.src.py(size)})"
        for a, size in zip(indices, buffer.dims, strict=True)
    )
    clipped = ", ".join(
        f"np.clip({a.code}, 0, max({ev.src.py(size)} - 1, 0))"
        for a, size in zip(indices, buffer.dims, strict=True)
    )
    # An empty buffer is all padding: no index, clipped or not, reads it.
    read = f"{buffer.name}[{clipped}] if {buffer.name}.size else {pad.code}"
    code = f"np.where({valid}, {read}, {pad.code})"
    return ev.bind(code, variables | pad.vars, buffer.dtype, owned=True)


def _take_along_one_axis(
    ev: Evaluator,
    buffer: Buffer,
    exprs: tuple[sympy.Expr, ...],
    indices: list[Array],
    dest: Array | None,
) -> Array | None:
    """``np.take(buffer, T, axis)`` when one axis is gathered at ``T`` and every other
    dimension is read whole along a loop variable, in an order the result keeps: numpy
    then copies rows (an embedding lookup) instead of indexing every element, into
    ``dest`` when that is the whole result (a 128-row lookup of 512-wide rows: 7 us
    instead of 300). The indices are checked already (``mode='clip'`` never clips)."""
    names = ev.domain.names
    lows, extents = ev.domain.lows(), ev.domain.extents()
    whole: dict[int, str] = {}
    for dim, (expr, size) in enumerate(zip(exprs, buffer.dims, strict=True)):
        if (
            expr.is_Symbol
            and expr.name in names
            and expr.name not in whole.values()
            and prove_equal(lows[expr.name], 0)
            and prove_equal(extents[expr.name], size)
        ):
            whole[dim] = expr.name
    gathered = [dim for dim in range(len(exprs)) if dim not in whole]
    if len(gathered) != 1:
        return None
    (axis,) = gathered
    index = indices[axis]
    if index.vars & set(whole.values()):
        return None
    inner = sorted(index.vars, key=names.index)
    order = [whole[d] for d in range(axis)] + inner + [whole[d] for d in whole if d > axis]
    positions = [names.index(v) for v in order]
    if positions != sorted(positions):
        return None
    if not inner:
        return None
    rows = index.code
    if len(inner) != len(names):
        shape = "".join(f"{ev.src.py(extents[v])}, " for v in inner)
        rows = f"{index.code}.reshape(({shape}))"
    ev.note("take")
    take = f"np.take({buffer.name}, {rows}, axis={axis}, mode='clip'"
    if dest is not None and order == names and dest.dtype == buffer.dtype:
        ev.src.line(f"{take}, out={dest.code})")
        return dest
    code = take + ")"
    if len(order) != len(names):
        code += f"[{', '.join(':' if v in order else 'None' for v in names)}]"
    return ev.bind(code, frozenset(order), buffer.dtype, owned=True)
