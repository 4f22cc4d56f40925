"""The TE-style builder: tensor expressions to ``tir.prim_func`` (docs/design.md §5, "emit_te").

```python
n, m = sym("n"), sym("m")
A = placeholder((n, m), F32, "A")
k = reduce_axis(0, m, "k")
S = compute((n,), lambda i: sum(A[i, k], axis=k), "S")
B = compute((n, m), lambda i, j: exp(A[i, j] - S[i]), "B")
func, sym_params = create_prim_func("f", [A, B])   # S becomes a tir.alloc_buffer
```

Shapes use the relax shape variables (``te.var("n")``; ``te.floordiv``/``te.floormod``
build expressions such as ``2 * te.floordiv(m, 2)`` and also apply to scalar
expressions). ``BlockBuilder.emit_te`` stages such programs into a relax function, and
:mod:`xrelax.topi` provides the operators' computes (``topi.softmax(A, axis=1)``).

Index variables are sympy symbols, so indices are ordinary symbolic expressions
(``A[i * 2 + r, j]``); loading ``A[...]`` gives a scalar :class:`Expr` with Python
operators, and ``A.get(indices, pad=v)`` reads ``v`` outside the buffer (padding).
An :class:`Expr` used as an index (``A[I[i], j]``) becomes a ``tir.let``-bound
variable. A reduction (:func:`sum`, :func:`max`, :func:`min`, :func:`prod`) nested
inside a larger expression is computed by a stage of its own.
:func:`create_prim_func` emits one loop nest per stage in topological order; the
symbolic variables no parameter buffer binds as a whole dimension become ``sym [...]``
parameters (call_tir_dyn).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import Fact, as_expr, sym
from xrelax.dialects.tir import (
    AllocBufferOp,
    AssertOp,
    BufferType,
    ForOp,
    IndexOp,
    LetOp,
    LoadOp,
    PowUIOp,
    PrimFuncOp,
    RemFOp,
    StoreOp,
)

ShapeLike = Sequence[int | str | sympy.Expr]

__all__ = [
    "Expr",
    "IterVar",
    "Tensor",
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "cast",
    "ceil",
    "compute",
    "const",
    "cos",
    "cosh",
    "create_prim_func",
    "erf",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "floordiv",
    "floormod",
    "fmod",
    "if_then_else",
    "index",
    "log",
    "log1p",
    "log10",
    "log2",
    "max",
    "maximum",
    "min",
    "minimum",
    "placeholder",
    "placeholders_read",
    "power",
    "prod",
    "reduce_axis",
    "roundeven",
    "rsqrt",
    "select",
    "sigmoid",
    "sin",
    "sinh",
    "sqrt",
    "sum",
    "tan",
    "tanh",
    "trunc",
    "var",
]


class IterVar(sympy.Dummy):
    """An index variable over ``[lo, hi)``: a compute axis or a reduction axis.

    A sympy symbol, so it takes part in index arithmetic; being a ``Dummy`` it never
    collides with a shape variable of the same name.
    """

    __slots__ = ("lo", "hi")

    lo: sympy.Expr
    hi: sympy.Expr


def _iter_var(name: str, lo: int | sympy.Expr, hi: int | sympy.Expr) -> IterVar:
    lo, hi = as_expr(lo), as_expr(hi)
    var = IterVar(name, integer=True, nonnegative=True if lo.is_nonnegative else None)
    var.lo, var.hi = lo, hi
    return var


def reduce_axis(lo: int | str | sympy.Expr, hi: int | str | sympy.Expr, name: str = "k") -> IterVar:
    """A reduction axis over ``[lo, hi)``."""
    return _iter_var(name, as_expr(lo), as_expr(hi))


class _LetVar(sympy.Dummy):
    """An index variable holding the value of an integer :class:`Expr` (``A[I[i]]``)."""

    __slots__ = ("value",)

    value: Expr


# ----------------------------------------------------------------------------- expressions


class Expr:
    """A scalar expression of one element type (``dtype``, an xDSL type)."""

    dtype: Attribute

    def __add__(self, other: Any) -> Expr:
        return _binary("add", self, other)

    def __radd__(self, other: Any) -> Expr:
        return _binary("add", other, self)

    def __sub__(self, other: Any) -> Expr:
        return _binary("sub", self, other)

    def __rsub__(self, other: Any) -> Expr:
        return _binary("sub", other, self)

    def __mul__(self, other: Any) -> Expr:
        return _binary("mul", self, other)

    def __rmul__(self, other: Any) -> Expr:
        return _binary("mul", other, self)

    def __truediv__(self, other: Any) -> Expr:
        return _binary("div", self, other)

    def __rtruediv__(self, other: Any) -> Expr:
        return _binary("div", other, self)

    def __floordiv__(self, other: Any) -> Expr:
        return _binary("floordiv", self, other)

    def __rfloordiv__(self, other: Any) -> Expr:
        return _binary("floordiv", other, self)

    def __mod__(self, other: Any) -> Expr:
        return _binary("mod", self, other)

    def __rmod__(self, other: Any) -> Expr:
        return _binary("mod", other, self)

    def __neg__(self) -> Expr:
        return Call("neg", (self,), self.dtype)

    def __lt__(self, other: Any) -> Expr:
        return _compare("lt", self, other)

    def __le__(self, other: Any) -> Expr:
        return _compare("le", self, other)

    def __gt__(self, other: Any) -> Expr:
        return _compare("gt", self, other)

    def __ge__(self, other: Any) -> Expr:
        return _compare("ge", self, other)

    def __eq__(self, other: Any) -> Expr:  # type: ignore[override]
        return _compare("eq", self, other)

    def __ne__(self, other: Any) -> Expr:  # type: ignore[override]
        return _compare("ne", self, other)

    def __and__(self, other: Any) -> Expr:
        return _bitwise("and", self, other)

    def __rand__(self, other: Any) -> Expr:
        return _bitwise("and", other, self)

    def __or__(self, other: Any) -> Expr:
        return _bitwise("or", self, other)

    def __ror__(self, other: Any) -> Expr:
        return _bitwise("or", other, self)

    def __xor__(self, other: Any) -> Expr:
        return _bitwise("xor", self, other)

    def __invert__(self) -> Expr:
        if self.dtype != dtypes.I1:
            raise TypeError("~ applies to i1 (boolean) expressions")
        return Call("not", (self,), dtypes.I1)

    def __bool__(self) -> bool:
        raise TypeError("a te.Expr has no truth value; use te.if_then_else or & and |")

    __hash__ = object.__hash__


@dataclass(eq=False)
class Const(Expr):
    """A constant of ``dtype``."""

    value: int | float | bool
    dtype: Attribute


@dataclass(eq=False)
class IndexValue(Expr):
    """The value of a symbolic index expression, as an integer of ``dtype``."""

    expr: sympy.Expr
    dtype: Attribute


@dataclass(eq=False)
class Load(Expr):
    """``tensor[indices]``; with ``pad``, an out-of-bounds index reads ``pad``."""

    tensor: Tensor
    indices: tuple[sympy.Expr, ...]
    pad: Expr | None
    dtype: Attribute


@dataclass(eq=False)
class Call(Expr):
    """An operation (``add``, ``lt``, ``exp``, ``select``, ``cast``, ...) on expressions."""

    op: str
    args: tuple[Expr, ...]
    dtype: Attribute


@dataclass(eq=False)
class Reduce(Expr):
    """``combiner`` (sum, max, min, prod) of ``source`` over ``axes``."""

    combiner: str
    source: Expr
    axes: tuple[IterVar, ...]
    dtype: Attribute


def const(value: int | float | bool, dtype: Attribute) -> Expr:
    """A constant of ``dtype`` (an xDSL element type such as ``F32``)."""
    if not dtypes.is_dtype(dtype):
        raise TypeError(f"unsupported element type {dtype}")
    if dtypes.is_bool(dtype):
        return Const(bool(value), dtype)
    if dtypes.is_float(dtype):
        return Const(float(value), dtype)
    if isinstance(value, float) and not value.is_integer():
        raise TypeError(f"{value} is not an integer constant of {dtypes.NAME_OF[dtype]}")
    return Const(int(value), dtype)


def index(expr: int | str | sympy.Expr, dtype: Attribute = dtypes.I64) -> Expr:
    """The value of the symbolic index expression ``expr`` (e.g. ``i * step``) as ``dtype``."""
    if dtype in (dtypes.I32, dtypes.I64):
        return IndexValue(as_expr(expr), dtype)
    return cast(IndexValue(as_expr(expr), dtypes.I64), dtype)


def cast(x: Any, dtype: Attribute) -> Expr:
    """``x`` converted to ``dtype`` (numpy ``astype`` semantics)."""
    x = _as_expr(x, dtype)
    return x if x.dtype == dtype else Call("cast", (x,), dtype)


def if_then_else(cond: Any, then: Any, otherwise: Any) -> Expr:
    """``then`` where ``cond`` holds, else ``otherwise``; ``cond`` may be an index
    comparison such as ``j < n`` (a sympy relational)."""
    cond = _as_condition(cond)
    dtype = _common_dtype(then, otherwise)
    return Call("select", (cond, _as_expr(then, dtype), _as_expr(otherwise, dtype)), dtype)


select = if_then_else


def _unary(op: str, x: Any, floats_only: bool = True) -> Expr:
    x = _as_expr(x, None)
    if floats_only and not dtypes.is_float(x.dtype):
        raise TypeError(f"{op} needs a floating-point operand, got {dtypes.NAME_OF[x.dtype]}")
    return Call(op, (x,), x.dtype)


def exp(x: Any) -> Expr:
    """e ** x."""
    return _unary("exp", x)


def log(x: Any) -> Expr:
    """Natural logarithm."""
    return _unary("log", x)


def sqrt(x: Any) -> Expr:
    """Square root."""
    return _unary("sqrt", x)


def rsqrt(x: Any) -> Expr:
    """1 / sqrt(x)."""
    return _unary("rsqrt", x)


def tanh(x: Any) -> Expr:
    """Hyperbolic tangent."""
    return _unary("tanh", x)


def erf(x: Any) -> Expr:
    """The error function."""
    return _unary("erf", x)


def sin(x: Any) -> Expr:
    """Sine (radians)."""
    return _unary("sin", x)


def cos(x: Any) -> Expr:
    """Cosine (radians)."""
    return _unary("cos", x)


def trunc(x: Any) -> Expr:
    """x rounded toward zero."""
    return _unary("trunc", x)


def tan(x: Any) -> Expr:
    """Tangent (radians)."""
    return _unary("tan", x)


def sinh(x: Any) -> Expr:
    """Hyperbolic sine."""
    return _unary("sinh", x)


def cosh(x: Any) -> Expr:
    """Hyperbolic cosine."""
    return _unary("cosh", x)


def asin(x: Any) -> Expr:
    """Arcsine."""
    return _unary("asin", x)


def acos(x: Any) -> Expr:
    """Arccosine."""
    return _unary("acos", x)


def atan(x: Any) -> Expr:
    """Arctangent."""
    return _unary("atan", x)


def asinh(x: Any) -> Expr:
    """Inverse hyperbolic sine."""
    return _unary("asinh", x)


def acosh(x: Any) -> Expr:
    """Inverse hyperbolic cosine."""
    return _unary("acosh", x)


def atanh(x: Any) -> Expr:
    """Inverse hyperbolic tangent."""
    return _unary("atanh", x)


def floor(x: Any) -> Expr:
    """x rounded toward -inf."""
    return _unary("floor", x)


def ceil(x: Any) -> Expr:
    """x rounded toward +inf."""
    return _unary("ceil", x)


def roundeven(x: Any) -> Expr:
    """x rounded to the nearest integer, halves to even."""
    return _unary("roundeven", x)


def log1p(x: Any) -> Expr:
    """log(1 + x), accurate for small x."""
    return _unary("log1p", x)


def log2(x: Any) -> Expr:
    """Logarithm to base 2."""
    return _unary("log2", x)


def log10(x: Any) -> Expr:
    """Logarithm to base 10."""
    return _unary("log10", x)


def exp2(x: Any) -> Expr:
    """2 ** x."""
    return _unary("exp2", x)


def expm1(x: Any) -> Expr:
    """exp(x) - 1, accurate for small x."""
    return _unary("expm1", x)


def sigmoid(x: Any) -> Expr:
    """1 / (1 + exp(-x)), as PyTorch's CPU kernel computes it: exact to float precision
    wherever the result is a normal number (exp(-x) overflowing to inf gives 0), in
    four vector operations where the two-branch form exp(-|x|) needs nine."""
    x = _as_expr(x, None)
    one = const(1, x.dtype)
    return one / (one + exp(-x))


def abs(x: Any) -> Expr:  # noqa: A001 - the TE name
    """|x|."""
    return _unary("abs", x, floats_only=False)


def floordiv(a: Any, b: Any) -> Any:
    """``a`` divided by ``b`` rounded down: of scalar expressions, or of symbolic
    dimensions (``2 * te.floordiv(m, 2)`` in a shape)."""
    if isinstance(a, Expr) or isinstance(b, Expr):
        return _binary("floordiv", a, b)
    return symbolic.floordiv(as_expr(a), as_expr(b))


def fmod(a: Any, b: Any) -> Expr:
    """The remainder of ``a / b`` truncated toward zero, with the sign of ``a`` (C's
    ``fmod``, exact; an integer divisor of 0 gives 0, as numpy does)."""
    return _binary("fmod", a, b)


def floormod(a: Any, b: Any) -> Any:
    """The remainder of :func:`floordiv` (the sign of ``b``)."""
    if isinstance(a, Expr) or isinstance(b, Expr):
        return _binary("mod", a, b)
    return symbolic.floormod(as_expr(a), as_expr(b))


def maximum(a: Any, b: Any) -> Expr:
    """The larger of ``a`` and ``b`` (NaN-propagating for floats, like numpy)."""
    return _binary("maximum", a, b)


def minimum(a: Any, b: Any) -> Expr:
    """The smaller of ``a`` and ``b``."""
    return _binary("minimum", a, b)


def power(a: Any, b: Any) -> Expr:
    """``a ** b``."""
    return _binary("power", a, b)


def _sympy_to_expr(value: sympy.Expr, dtype: Attribute | None) -> Expr:
    if isinstance(value, _LetVar):
        return value.value if dtype is None else cast(value.value, dtype)
    return index(value, dtype if dtype is not None else dtypes.I64)


def _as_expr(value: Any, dtype: Attribute | None) -> Expr:
    """``value`` as an expression; Python scalars and index expressions take ``dtype``."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, sympy.Basic) and not isinstance(value, sympy.logic.boolalg.Boolean):
        return _sympy_to_expr(as_expr(value), dtype)
    if isinstance(value, bool | int | float | np.number | np.bool_):
        if dtype is None:
            raise TypeError(f"the element type of the constant {value!r} is unknown; use te.const")
        return const(value.item() if isinstance(value, np.generic) else value, dtype)
    raise TypeError(f"expected a te expression, got {type(value).__name__}")


def _common_dtype(a: Any, b: Any) -> Attribute:
    for value in (a, b):
        if isinstance(value, Expr):
            return value.dtype
    if any(isinstance(v, sympy.Expr) for v in (a, b)):
        return dtypes.I64
    raise TypeError("cannot infer the element type of two constants; use te.const")


def _binary(op: str, a: Any, b: Any) -> Expr:
    dtype = _common_dtype(a, b)
    a, b = _as_expr(a, dtype), _as_expr(b, dtype)
    if a.dtype != b.dtype:
        raise TypeError(
            f"'{op}' of {dtypes.NAME_OF[a.dtype]} and {dtypes.NAME_OF[b.dtype]}; use te.cast"
        )
    if dtypes.is_bool(dtype):
        raise TypeError(f"'{op}' is not defined on i1; use & | ^ or te.cast")
    return Call(op, (a, b), dtype)


def _compare(op: str, a: Any, b: Any) -> Expr:
    dtype = _common_dtype(a, b)
    a, b = _as_expr(a, dtype), _as_expr(b, dtype)
    if a.dtype != b.dtype:
        raise TypeError(
            f"comparison of {dtypes.NAME_OF[a.dtype]} and {dtypes.NAME_OF[b.dtype]}; use te.cast"
        )
    return Call(op, (a, b), dtypes.I1)


def _bitwise(op: str, a: Any, b: Any) -> Expr:
    """``& | ^``: bitwise on integers, logical on conditions (i1, index relations)."""
    integer = [x.dtype for x in (a, b) if isinstance(x, Expr) and not dtypes.is_bool(x.dtype)]
    if integer and not dtypes.is_float(integer[0]):
        return _binary(op, a, b)
    return _logical(op, a, b)


def _logical(op: str, a: Any, b: Any) -> Expr:
    a, b = _as_condition(a), _as_condition(b)
    return Call(op, (a, b), dtypes.I1)


_RELATIONS = {
    sympy.StrictLessThan: "lt",
    sympy.LessThan: "le",
    sympy.StrictGreaterThan: "gt",
    sympy.GreaterThan: "ge",
    sympy.Equality: "eq",
    sympy.Unequality: "ne",
}


def _as_condition(cond: Any) -> Expr:
    """An i1 expression from an Expr, a bool, or a sympy relation/conjunction on indices."""
    if isinstance(cond, Expr):
        if cond.dtype != dtypes.I1:
            raise TypeError(f"a condition must be i1, got {dtypes.NAME_OF[cond.dtype]}")
        return cond
    if isinstance(cond, bool | np.bool_) or cond in (sympy.true, sympy.false):
        return const(bool(cond), dtypes.I1)
    if isinstance(cond, sympy.And | sympy.Or):
        op = "and" if isinstance(cond, sympy.And) else "or"
        parts = [_as_condition(arg) for arg in cond.args]
        result = parts[0]
        for part in parts[1:]:
            result = Call(op, (result, part), dtypes.I1)
        return result
    for relation, op in _RELATIONS.items():
        if isinstance(cond, relation):
            return _compare(op, index(cond.lhs), index(cond.rhs))
    raise TypeError(f"expected a condition, got {cond!r}")


# ----------------------------------------------------------------------------- reductions


def _reduce_init(combiner: str, dtype: Attribute) -> int | float | bool:
    """The value a reduction starts from (the identity of its combination)."""
    if combiner in ("sum", "prod"):
        return 0 if combiner == "sum" else 1
    is_max = combiner == "max"
    if dtypes.is_bool(dtype):
        return not is_max
    if dtypes.is_float(dtype):
        return -np.inf if is_max else np.inf
    info = np.iinfo(dtypes.numpy_dtype(dtype))
    return int(info.min if is_max else info.max)


def _reduce(combiner: str, expr: Any, axis: IterVar | Iterable[IterVar]) -> Expr:
    source = _as_expr(expr, None)
    axes = (axis,) if isinstance(axis, IterVar) else tuple(axis)
    if not axes or not all(isinstance(a, IterVar) for a in axes):
        raise TypeError("axis must be a reduce_axis or a list of them")
    if dtypes.is_bool(source.dtype) and combiner in ("sum", "prod"):
        raise TypeError(f"{combiner} of i1 values; cast them first")
    return Reduce(combiner, source, axes, source.dtype)


def sum(expr: Any, axis: IterVar | Iterable[IterVar]) -> Expr:  # noqa: A001 - the TE name
    """The sum of ``expr`` over the reduction axes."""
    return _reduce("sum", expr, axis)


def prod(expr: Any, axis: IterVar | Iterable[IterVar]) -> Expr:
    """The product of ``expr`` over the reduction axes."""
    return _reduce("prod", expr, axis)


def max(expr: Any, axis: IterVar | Iterable[IterVar]) -> Expr:  # noqa: A001 - the TE name
    """The maximum of ``expr`` over the reduction axes."""
    return _reduce("max", expr, axis)


def min(expr: Any, axis: IterVar | Iterable[IterVar]) -> Expr:  # noqa: A001 - the TE name
    """The minimum of ``expr`` over the reduction axes."""
    return _reduce("min", expr, axis)


# ----------------------------------------------------------------------------- tensors


@dataclass(eq=False)
class Tensor:
    """A placeholder (``body is None``) or a computed tensor of ``shape`` and ``dtype``;
    ``facts`` are what its compute relies on but cannot prove about the shapes (a
    :mod:`xrelax.topi` function's deduction), which a kernel computing it asserts first."""

    name: str
    shape: tuple[sympy.Expr, ...]
    dtype: Attribute
    axes: tuple[IterVar, ...] = ()
    body: Expr | None = None
    facts: tuple[Fact, ...] = ()

    @property
    def ndim(self) -> int:
        """The rank."""
        return len(self.shape)

    @property
    def is_placeholder(self) -> bool:
        """Whether this is an input (not computed)."""
        return self.body is None

    def __getitem__(self, indices: Any) -> Expr:
        return self.get(indices)

    def get(self, indices: Any, pad: Any = None) -> Expr:
        """The element at ``indices``; with ``pad``, out-of-bounds indices read ``pad``."""
        if not isinstance(indices, tuple | list):
            indices = (indices,)
        if len(indices) != self.ndim:
            raise IndexError(f"{len(indices)} indices for tensor '{self.name}' of rank {self.ndim}")
        exprs = tuple(_as_index(i) for i in indices)
        pad_expr = None if pad is None else _as_expr(pad, self.dtype)
        if pad_expr is not None and pad_expr.dtype != self.dtype:
            expected = dtypes.NAME_OF[self.dtype]
            raise TypeError(f"pad value of tensor '{self.name}' must be {expected}")
        return Load(self, exprs, pad_expr, self.dtype)

    def __repr__(self) -> str:
        kind = "placeholder" if self.is_placeholder else "compute"
        return f"te.Tensor({self.name!r}, {kind}, shape={list(self.shape)})"


def _as_index(value: Any) -> sympy.Expr:
    if isinstance(value, Expr):
        if value.dtype not in (dtypes.I8, dtypes.I16, dtypes.I32, dtypes.I64):
            raise TypeError(f"an index must be an integer, got {dtypes.NAME_OF[value.dtype]}")
        if isinstance(value, IndexValue):
            return value.expr
        let = _LetVar("t", integer=True)
        let.value = value
        return let
    if isinstance(value, bool | np.bool_):
        raise TypeError("a bool is not an index")
    if isinstance(value, np.integer):
        value = int(value)
    return as_expr(value) if isinstance(value, int | str) else sympy.expand(value)


def var(name: str) -> sympy.Symbol:
    """The symbolic shape variable ``name`` (the same object the relax types use)."""
    return sym(name)


def placeholder(shape: ShapeLike, dtype: Attribute, name: str = "placeholder") -> Tensor:
    """An input tensor of ``shape`` (ints, variable names, symbolic expressions)."""
    if not dtypes.is_dtype(dtype):
        raise TypeError(f"unsupported element type {dtype}")
    return Tensor(name, tuple(as_expr(d) for d in shape), dtype)


def compute(
    shape: ShapeLike,
    fcompute: Callable[..., Any],
    name: str = "compute",
    dtype: Attribute | None = None,
) -> Tensor:
    """A tensor whose element at index vars ``(i, j, ...)`` is ``fcompute(i, j, ...)``.

    ``dtype`` is only needed when ``fcompute`` returns a Python number.
    """
    dims = tuple(as_expr(d) for d in shape)
    names = _axis_names(fcompute, len(dims))
    axes = tuple(_iter_var(n, 0, d) for n, d in zip(names, dims, strict=True))
    body = _as_expr(fcompute(*axes), dtype)
    if dtype is not None:
        body = cast(body, dtype)
    tensor = Tensor(name, dims, body.dtype, axes)
    tensor.body = _lift_reductions(body, tensor, top=True, lifted=[])
    return tensor


def _axis_names(fcompute: Callable[..., Any], ndim: int) -> list[str]:
    """The lambda's parameter names (``i``, ``j``), or ``i0, i1, ...`` for ``*args``."""
    try:
        params = list(inspect.signature(fcompute).parameters.values())
    except (TypeError, ValueError):
        params = []
    if len(params) == ndim and all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params):
        return [p.name for p in params]
    return [f"i{k}" for k in range(ndim)]


def _lift_reductions(
    expr: Expr, owner: Tensor, top: bool, lifted: list[Tensor], memo: dict[int, Expr] | None = None
) -> Expr:
    """Replace each reduction nested in ``expr`` by a load of a stage computing it over
    the axes of ``owner`` it depends on (shared sub-expressions stay shared)."""
    memo = {} if memo is None else memo
    if id(expr) in memo:
        return memo[id(expr)]
    result = expr
    if isinstance(expr, Reduce):
        source = _lift_reductions(expr.source, owner, False, lifted, memo)
        if source is not expr.source:
            result = Reduce(expr.combiner, source, expr.axes, expr.dtype)
        if not top:
            result = _reduction_stage(result, owner, lifted)  # type: ignore[arg-type]
    elif isinstance(expr, Call):
        args = tuple(_lift_reductions(a, owner, False, lifted, memo) for a in expr.args)
        if any(a is not b for a, b in zip(args, expr.args, strict=True)):
            result = Call(expr.op, args, expr.dtype)
    elif isinstance(expr, Load) and expr.pad is not None:
        pad = _lift_reductions(expr.pad, owner, False, lifted, memo)
        if pad is not expr.pad:
            result = Load(expr.tensor, expr.indices, pad, expr.dtype)
    memo[id(expr)] = result
    return result


def _reduction_stage(expr: Reduce, owner: Tensor, lifted: list[Tensor]) -> Expr:
    """A load of a new stage computing ``expr`` over the axes of ``owner`` it uses."""
    free = _free_iter_vars(expr)
    if not free <= set(owner.axes):
        raise TypeError("a nested reduction may only depend on the compute's own axes")
    axes = [a for a in owner.axes if a in free]
    stage_axes = tuple(_iter_var(a.name, 0, a.hi) for a in axes)
    stage = Tensor(
        f"{owner.name}_{expr.combiner}{len(lifted)}",
        tuple(a.hi for a in axes),
        expr.dtype,
        stage_axes,
        _substitute(expr, dict(zip(axes, stage_axes, strict=True))),
    )
    lifted.append(stage)
    return Load(stage, tuple(axes), None, expr.dtype)


def _free_iter_vars(expr: Expr) -> set[IterVar]:
    found: set[IterVar] = set()
    for node in _walk(expr):
        if isinstance(node, Load):
            for i in node.indices:
                found |= {s for s in i.free_symbols if isinstance(s, IterVar)}
        elif isinstance(node, IndexValue):
            found |= {s for s in node.expr.free_symbols if isinstance(s, IterVar)}
    if isinstance(expr, Reduce):
        found -= set(expr.axes)
    return found


def _walk(expr: Expr) -> Iterable[Expr]:
    """``expr`` and its sub-expressions (through pads, let-bound indices and reductions)."""
    stack, seen = [expr], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, Call):
            stack.extend(node.args)
        elif isinstance(node, Reduce):
            stack.append(node.source)
        elif isinstance(node, Load):
            if node.pad is not None:
                stack.append(node.pad)
            for i in node.indices:
                stack.extend(s.value for s in i.free_symbols if isinstance(s, _LetVar))


def _substitute(
    expr: Expr, mapping: dict[IterVar, sympy.Expr], memo: dict[int, Expr] | None = None
) -> Expr:
    """``expr`` with index variables replaced in every index expression."""
    memo = {} if memo is None else memo
    if id(expr) in memo:
        return memo[id(expr)]
    result = expr
    if isinstance(expr, Load):
        pad = None if expr.pad is None else _substitute(expr.pad, mapping, memo)
        result = Load(
            expr.tensor, tuple(_subst_index(i, mapping) for i in expr.indices), pad, expr.dtype
        )
    elif isinstance(expr, IndexValue):
        result = IndexValue(sympy.expand(expr.expr.xreplace(mapping)), expr.dtype)
    elif isinstance(expr, Call):
        args = tuple(_substitute(a, mapping, memo) for a in expr.args)
        result = Call(expr.op, args, expr.dtype)
    elif isinstance(expr, Reduce):
        result = Reduce(
            expr.combiner, _substitute(expr.source, mapping, memo), expr.axes, expr.dtype
        )
    memo[id(expr)] = result
    return result


def _subst_index(index_expr: sympy.Expr, mapping: dict[IterVar, sympy.Expr]) -> sympy.Expr:
    lets = {}
    for s in index_expr.free_symbols:
        if isinstance(s, _LetVar):
            let = _LetVar(s.name, integer=True)
            let.value = _substitute(s.value, mapping)
            lets[s] = let
    return sympy.expand(index_expr.xreplace({**mapping, **lets}))


# ----------------------------------------------------------------------------- prim_func


def create_prim_func(
    name: str, tensors: Sequence[Tensor], asserts: Sequence[Fact] = ()
) -> tuple[PrimFuncOp, list[str]]:
    """A ``tir.prim_func`` computing ``tensors`` and the names of its ``sym`` parameters.

    ``tensors`` lists the buffer parameters in order: placeholders (inputs) first, then
    computed tensors (outputs, written in place). Other computed tensors the outputs
    need become ``tir.alloc_buffer`` intermediates. Each fact of ``asserts`` and of the
    computed tensors' ``facts`` becomes a ``tir.assert`` at the start of the body (checked
    before any buffer is touched); a variable they use that no buffer binds becomes a
    ``sym`` parameter.
    """
    params = list(tensors)
    first_output = next((k for k, t in enumerate(params) if not t.is_placeholder), len(params))
    if any(t.is_placeholder for t in params[first_output:]):
        raise ValueError("placeholders (inputs) must come before computed tensors (outputs)")
    if len({id(t) for t in params}) != len(params):
        raise ValueError("a tensor is listed twice")
    stages = _topological_stages(params[first_output:])
    listed = {id(t) for t in params}
    for stage in stages:
        for t in _read_tensors(stage):
            if t.is_placeholder and id(t) not in listed:
                raise ValueError(f"placeholder '{t.name}' is read but not a parameter")
    facts = dict.fromkeys([*asserts, *(fact for stage in stages for fact in stage.facts)])
    return _Emitter(name, params, stages, tuple(facts)).emit()


def placeholders_read(outputs: Sequence[Tensor]) -> list[Tensor]:
    """The placeholders the computation of ``outputs`` reads, in the order it reads them."""
    found: dict[int, Tensor] = {}
    for stage in _topological_stages(outputs):
        for t in _read_tensors(stage):
            if t.is_placeholder:
                found.setdefault(id(t), t)
    return list(found.values())


def _read_tensors(stage: Tensor) -> list[Tensor]:
    assert stage.body is not None
    return [n.tensor for n in _walk(stage.body) if isinstance(n, Load)]


def _topological_stages(outputs: Sequence[Tensor]) -> list[Tensor]:
    order: list[Tensor] = []
    state: dict[int, str] = {}

    def visit(t: Tensor) -> None:
        if t.is_placeholder or state.get(id(t)) == "done":
            return
        if state.get(id(t)) == "active":
            raise ValueError(f"tensor '{t.name}' depends on itself")
        state[id(t)] = "active"
        for dep in _read_tensors(t):
            visit(dep)
        state[id(t)] = "done"
        order.append(t)

    for t in outputs:
        visit(t)
    return order


_NAME_OK = re.compile(r"[^A-Za-z0-9_]")


def _identifier(name: str) -> str:
    name = _NAME_OK.sub("_", name) or "t"
    return name if not name[0].isdigit() else f"t{name}"


def _fresh(base: str, taken: set[str]) -> str:
    base = _identifier(base)
    name, k = base, 1
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    taken.add(name)
    return name


class _Emitter:
    """Builds the prim_func: signature, intermediates, one loop nest per stage."""

    def __init__(
        self, name: str, params: list[Tensor], stages: list[Tensor], asserts: Sequence[Fact]
    ) -> None:
        self.name = name
        self.params = params
        self.stages = stages
        self.asserts = asserts
        self.buffers: dict[int, SSAValue] = {}
        order: list[str] = []
        for t in [*params, *stages]:
            for d in t.shape:
                order += sorted(s.name for s in d.free_symbols if s.name not in order)
        for fact in asserts:
            order += sorted(fact.free_vars() - set(order))
        for stage in stages:
            assert stage.body is not None
            for node in _walk(stage.body):
                order += [n for n in _plain_vars_of(node) if n not in order]
            for axis in _stage_axes(stage):
                for bound in (axis.lo, axis.hi):
                    order += [n for n in sorted(_plain_names(bound)) if n not in order]
        self.shape_vars = set(order)
        bound = {d.name for t in params for d in t.shape if d.is_Symbol}
        self.sym_params = [n for n in order if n not in bound]

    def emit(self) -> tuple[PrimFuncOp, list[str]]:
        types = [BufferType(DimsAttr(t.shape), t.dtype) for t in self.params]
        func = PrimFuncOp(self.name, types, self.sym_params)
        names: set[str] = set()
        for tensor, arg in zip(self.params, func.body.block.args, strict=True):
            arg.name_hint = _fresh(tensor.name, names)
            self.buffers[id(tensor)] = arg
        body = func.body.block
        for fact in self.asserts:
            body.add_op(AssertOp.of_fact(fact))
        for stage in self.stages:
            if id(stage) not in self.buffers:
                alloc = AllocBufferOp(BufferType(DimsAttr(stage.shape), stage.dtype))
                alloc.buffer.name_hint = _fresh(stage.name, names)
                body.add_op(alloc)
                self.buffers[id(stage)] = alloc.buffer
        for stage in self.stages:
            self._emit_stage(stage, body)
        return func, list(self.sym_params)

    def _emit_stage(self, stage: Tensor, block: Block) -> None:
        assert stage.body is not None
        taken = set(self.shape_vars)
        names = {a: sym(_fresh(a.name, taken)) for a in _stage_axes(stage)}
        scope = _Scope(self, names, taken)
        target = self.buffers[id(stage)]
        indices = [names[a] for a in stage.axes]
        inner = _loops(block, stage.axes, names)
        body = stage.body
        if not isinstance(body, Reduce):
            scope.store(inner, target, indices, body)
            return
        init = const(_reduce_init(body.combiner, body.dtype), body.dtype)
        scope.store(inner, target, indices, init)
        update_block = _loops(inner, body.axes, names)
        old = Load(stage, tuple(stage.axes), None, body.dtype)
        combine = {"sum": "add", "prod": "mul", "max": "maximum", "min": "minimum"}[body.combiner]
        if dtypes.is_bool(body.dtype):
            combine = {"max": "or", "min": "and"}[body.combiner]
        scope.store(update_block, target, indices, Call(combine, (old, body.source), body.dtype))


def _stage_axes(stage: Tensor) -> list[IterVar]:
    axes = list(stage.axes)
    if isinstance(stage.body, Reduce):
        axes += list(stage.body.axes)
    return axes


def _plain_names(expr: sympy.Expr) -> set[str]:
    return {s.name for s in expr.free_symbols if not isinstance(s, sympy.Dummy)}


def _plain_vars_of(node: Expr) -> list[str]:
    exprs: list[sympy.Expr] = []
    if isinstance(node, Load):
        exprs = list(node.indices)
    elif isinstance(node, IndexValue):
        exprs = [node.expr]
    names: set[str] = set()
    for e in exprs:
        names |= _plain_names(e)
    return sorted(names)


def _loops(block: Block, axes: Sequence[IterVar], names: dict[IterVar, sympy.Symbol]) -> Block:
    """Nest ``tir.for`` loops over ``axes`` in ``block``; the innermost body."""
    for axis in axes:
        mapping = dict(names)
        loop = ForOp(names[axis].name, axis.lo.xreplace(mapping), axis.hi.xreplace(mapping))
        block.add_op(loop)
        block = loop.body.block
    return block


class _Scope:
    """Emits scalar expressions of one stage into loop bodies (memoised per block)."""

    def __init__(self, emitter: _Emitter, names: dict[IterVar, sympy.Symbol], taken: set[str]):
        self.emitter = emitter
        self.names = names
        self.taken = taken
        self.memo: dict[tuple[int, int], SSAValue] = {}
        self.lets: dict[tuple[int, _LetVar], sympy.Symbol] = {}

    def store(self, block: Block, buffer: SSAValue, indices: list[sympy.Expr], value: Expr) -> None:
        result = self.value(block, value)
        block.add_op(StoreOp(buffer, [self.index(block, i) for i in indices], result))

    def index(self, block: Block, expr: sympy.Expr) -> sympy.Expr:
        """``expr`` over tir variable names, binding its let-variables in ``block`` first."""
        mapping: dict[sympy.Symbol, sympy.Expr] = dict(self.names)
        for s in sorted(expr.free_symbols, key=str):
            if isinstance(s, _LetVar):
                if (id(block), s) not in self.lets:
                    value = self.value(block, s.value)
                    var = sym(_fresh(s.name, self.taken))
                    block.add_op(LetOp(var.name, value))
                    self.lets[(id(block), s)] = var
                mapping[s] = self.lets[(id(block), s)]
        return sympy.expand(expr.xreplace(mapping))

    def value(self, block: Block, expr: Expr) -> SSAValue:
        key = (id(block), id(expr))
        if key not in self.memo:
            self.memo[key] = self._emit(block, expr)
        return self.memo[key]

    def _emit(self, block: Block, expr: Expr) -> SSAValue:
        if isinstance(expr, Const):
            return _emit_constant(block, expr.value, expr.dtype)
        if isinstance(expr, IndexValue):
            return _add(block, IndexOp(self.index(block, expr.expr), expr.dtype))
        if isinstance(expr, Load):
            pad = None if expr.pad is None else self.value(block, expr.pad)
            buffer = self.emitter.buffers[id(expr.tensor)]
            indices = [self.index(block, i) for i in expr.indices]
            return _add(block, LoadOp(buffer, indices, pad))
        if isinstance(expr, Call):
            args = [self.value(block, a) for a in expr.args]
            return _emit_call(block, expr, args)
        raise TypeError("a reduction must be the whole body of a compute")


def _add(block: Block, op: Operation) -> SSAValue:
    block.add_op(op)
    return op.results[0]


def _emit_constant(block: Block, value: int | float | bool, dtype: Attribute) -> SSAValue:
    """``value`` of ``dtype``; arith.constant holds signless integers only, so an
    unsigned one is the signless constant of its bits, bitcast."""
    if not dtypes.is_unsigned(dtype):
        return _add(block, _constant(value, dtype))
    width = _width(dtype)
    bits = int(value) % (1 << width)
    signed = bits - (1 << width) if bits >> (width - 1) else bits
    signless = _add(block, _constant(signed, IntegerType(width)))
    return _add(block, arith.BitcastOp(signless, dtype))


def _constant(value: int | float | bool, dtype: Attribute) -> Operation:
    if dtypes.is_float(dtype):
        return arith.ConstantOp(FloatAttr(float(value), dtype))
    return arith.ConstantOp(IntegerAttr(int(value), dtype))


_FLOAT_BINARY: dict[str, type[Operation]] = {
    "add": arith.AddfOp,
    "sub": arith.SubfOp,
    "mul": arith.MulfOp,
    "div": arith.DivfOp,
    "maximum": arith.MaximumfOp,
    "minimum": arith.MinimumfOp,
    "power": math.PowFOp,
}
_INT_BINARY: dict[str, type[Operation]] = {
    "add": arith.AddiOp,
    "sub": arith.SubiOp,
    "mul": arith.MuliOp,
    "div": arith.DivSIOp,
    "floordiv": arith.FloorDivSIOp,
    "maximum": arith.MaxSIOp,
    "minimum": arith.MinSIOp,
    "power": math.IPowIOp,
    "and": arith.AndIOp,
    "or": arith.OrIOp,
    "xor": arith.XOrIOp,
}
_FLOAT_UNARY: dict[str, type[Operation]] = {
    "exp": math.ExpOp,
    "log": math.LogOp,
    "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp,
    "tanh": math.TanhOp,
    "erf": math.ErfOp,
    "sin": math.SinOp,
    "cos": math.CosOp,
    "trunc": math.TruncOp,
    "tan": math.TanOp,
    "sinh": math.SinhOp,
    "cosh": math.CoshOp,
    "asin": math.AsinOp,
    "acos": math.AcosOp,
    "atan": math.AtanOp,
    "asinh": math.AsinhOp,
    "acosh": math.AcoshOp,
    "atanh": math.AtanhOp,
    "floor": math.FloorOp,
    "ceil": math.CeilOp,
    "roundeven": math.RoundEvenOp,
    "log1p": math.Log1pOp,
    "expm1": math.ExpM1Op,
    "exp2": math.Exp2Op,
    "log10": math.Log10Op,
    "log2": math.Log2Op,
    "abs": math.AbsFOp,
    "neg": arith.NegfOp,
}
_CMPF = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}
_CMPI = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq", "ne": "ne"}
_CMPI_UNSIGNED = {"lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge", "eq": "eq", "ne": "ne"}
_UNSIGNED_BINARY: dict[str, type[Operation]] = {
    **_INT_BINARY,
    "div": arith.DivUIOp,
    "floordiv": arith.DivUIOp,
    "maximum": arith.MaxUIOp,
    "minimum": arith.MinUIOp,
    "power": PowUIOp,
}


def _emit_call(block: Block, expr: Call, args: list[SSAValue]) -> SSAValue:
    op, dtype = expr.op, expr.dtype
    is_float = dtypes.is_float(expr.args[0].dtype)
    if op == "select":
        return _add(block, arith.SelectOp(*args))
    if op == "cast":
        return _emit_cast(block, args[0], expr.args[0].dtype, dtype)
    if dtypes.is_unsigned(expr.args[0].dtype):
        return _emit_unsigned(block, op, args)
    if op in _CMPF:
        if is_float:
            return _add(block, arith.CmpfOp(args[0], args[1], _CMPF[op]))
        # Booleans order False < True (numpy's order): a signed i1 reads True as -1.
        predicates = _CMPI_UNSIGNED if dtypes.is_bool(expr.args[0].dtype) else _CMPI
        return _add(block, arith.CmpiOp(args[0], args[1], predicates[op]))
    if op == "not":
        return _add(block, arith.XOrIOp(args[0], _emit_constant(block, True, dtypes.I1)))
    if is_float:
        if op in _FLOAT_BINARY:
            return _add(block, _FLOAT_BINARY[op](args[0], args[1]))
        if op in _FLOAT_UNARY:
            return _add(block, _FLOAT_UNARY[op](args[0]))
        if op == "floordiv":
            quotient = _add(block, arith.DivfOp(args[0], args[1]))
            return _add(block, math.FloorOp(quotient))
        if op == "fmod":
            return _add(block, RemFOp(args[0], args[1]))
        if op == "mod":
            return _floored_remainder(block, _add(block, RemFOp(args[0], args[1])), args[1])
    else:
        if op in _INT_BINARY:
            return _add(block, _INT_BINARY[op](args[0], args[1]))
        if op == "abs":
            return _add(block, math.AbsIOp(args[0]))
        if op == "neg":
            zero = _emit_constant(block, 0, dtype)
            return _add(block, arith.SubiOp(zero, args[0]))
        if op == "fmod":
            return _add(block, arith.RemSIOp(args[0], args[1]))
        if op == "mod":
            return _floored_remainder(block, _add(block, arith.RemSIOp(args[0], args[1])), args[1])
    raise TypeError(f"'{op}' is not defined on {dtypes.NAME_OF[expr.args[0].dtype]}")


def _emit_unsigned(block: Block, op: str, args: list[SSAValue]) -> SSAValue:
    """``op`` on unsigned integers: the unsigned arith ops (comparisons, division,
    remainders, extrema); arithmetic wraps around as for signed integers."""
    if op in _CMPI_UNSIGNED:
        return _add(block, arith.CmpiOp(args[0], args[1], _CMPI_UNSIGNED[op]))
    if op in _UNSIGNED_BINARY:
        return _add(block, _UNSIGNED_BINARY[op](args[0], args[1]))
    if op in ("fmod", "mod"):
        return _add(block, arith.RemUIOp(args[0], args[1]))
    if op == "abs":
        return args[0]
    if op == "neg":
        zero = _emit_constant(block, 0, args[0].type)
        return _add(block, arith.SubiOp(zero, args[0]))
    raise TypeError(f"'{op}' is not defined on {dtypes.NAME_OF[args[0].type]}")


def _floored_remainder(block: Block, rem: SSAValue, divisor: SSAValue) -> SSAValue:
    """The remainder with the sign of the divisor from the truncated one ``rem`` (numpy's
    ``remainder``): ``rem + divisor`` where ``rem`` is non-zero and the signs differ.
    Exact, where ``a - floor(a / b) * b`` is not (``1e10 mod 3``, a divisor of inf)."""
    is_float = dtypes.is_float(rem.type)
    zero = _emit_constant(block, 0, rem.type)

    def less(a: SSAValue, b: SSAValue) -> SSAValue:
        if is_float:
            return _add(block, arith.CmpfOp(a, b, "olt"))
        return _add(block, arith.CmpiOp(a, b, "slt"))

    def not_equal(a: SSAValue, b: SSAValue) -> SSAValue:
        if is_float:
            return _add(block, arith.CmpfOp(a, b, "une"))
        return _add(block, arith.CmpiOp(a, b, "ne"))

    signs_differ = _add(block, arith.XOrIOp(less(rem, zero), less(divisor, zero)))
    fix = _add(block, arith.AndIOp(signs_differ, not_equal(rem, zero)))
    add = arith.AddfOp if is_float else arith.AddiOp
    return _add(block, arith.SelectOp(fix, _add(block, add(rem, divisor)), rem))


def _width(dtype: Attribute) -> int:
    return dtypes.numpy_dtype(dtype).itemsize * 8 if not dtypes.is_bool(dtype) else 1


def _emit_cast(block: Block, value: SSAValue, source: Attribute, target: Attribute) -> SSAValue:
    """numpy ``astype`` from ``source`` to ``target``."""
    if dtypes.is_bool(target):
        zero = _emit_constant(block, 0, source)
        if dtypes.is_float(source):
            return _add(block, arith.CmpfOp(value, zero, "une"))
        return _add(block, arith.CmpiOp(value, zero, "ne"))
    if dtypes.is_float(source) and dtypes.is_float(target):
        cls = arith.ExtFOp if _width(target) > _width(source) else arith.TruncFOp
        return _add(block, cls(value, target))
    unsigned = dtypes.is_bool(source) or dtypes.is_unsigned(source)
    if dtypes.is_float(target):
        cls = arith.UIToFPOp if unsigned else arith.SIToFPOp
        return _add(block, cls(value, target))
    if dtypes.is_float(source):
        cls = arith.FPToUIOp if dtypes.is_unsigned(target) else arith.FPToSIOp
        return _add(block, cls(value, target))
    if _width(target) > _width(source):
        cls = arith.ExtUIOp if unsigned else arith.ExtSIOp
        return _add(block, cls(value, target))
    if _width(target) == _width(source):  # the other signedness: the same bits
        return _add(block, arith.BitcastOp(value, target))
    return _add(block, arith.TruncIOp(value, target))
