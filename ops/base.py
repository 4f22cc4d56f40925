"""The operator protocol: what one relax operator class defines (docs/design.md §4).

An operator is one xDSL op class deriving from :class:`OperatorOp`. It declares its
operands, result and properties (IRDL), and implements, in one place:

* :meth:`OperatorOp.deduce` — dtype and symbolic shape deduction with the safety
  net (unknown rank / shape / dtype propagate), raising :class:`RelaxError` on a
  provable error and adding what it relies on but cannot prove to the ``Facts`` it is
  given (:func:`require`); callers ask :meth:`~DeducedResultOp.deduction` (memoised),
  which returns the result type with those facts.
* :meth:`OperatorOp.reference` — the numpy reference kernel (used by the reference
  interpreter and as the run-time kernel of the safety net).
* :meth:`OperatorOp.emit_te` — its legalization to TIR with the TE-style builder
  (``relax-legalize-ops``); the helpers at the end of this module read result dims and
  broadcast operands.

The textual form is shared by all operators::

    %r = relax.NAME %a, %b {attr = value} : (type(%a), type(%b)) -> type(%r)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import sympy
from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    i64,
)
from xdsl.ir import Attribute

from xrelax.dialects import dtypes
from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.relax import (
    UNKNOWN_DTYPE,
    DeducedResultOp,
    PrimType,
    RelaxError,
    ShapeType,
    TensorType,
    TupleType,
    show_type,
)
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.obligations import Facts
from xrelax.dialects.shapes.symbolic import Dims, Fact
from xrelax.ops import te

Props = dict[str, Attribute]

RUNTIME_KERNEL_PREFIX = "relax.op."
"""The packed function running an operator at run time (the safety net) is named
``relax.op.<name>``: ``relax.op.add``."""

I64_PROP = IntegerAttr.constr(I64)
"""The constraint of an integer property: ``1 : i64``."""
I64_ARRAY_PROP = DenseArrayBase.constr(i64)
"""The constraint of an integer-array property: ``array<i64: 1, 0>``."""


class OperatorOp(DeducedResultOp):
    """Base class of relax operators (see the module docstring)."""

    DATA_DEPENDENT: ClassVar[bool] = False
    """True when the result shape depends on tensor values (never legalized to TIR)."""

    @classmethod
    def runtime_name(cls) -> str:
        """The packed function running this operator at run time (``relax.op.add``)."""
        return RUNTIME_KERNEL_PREFIX + cls.name.removeprefix("relax.")

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        """Compute the result with numpy (inputs and result are numpy arrays)."""
        raise NotImplementedError(f"{cls.name} has no reference kernel")

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        """Build the result with the TE-style builder from input ``te.Tensor`` placeholders."""
        raise NotImplementedError(f"{cls.name} has no TIR legalization")

    @classmethod
    def emit_te_for(
        cls, kernels: str, inputs: Sequence[Any], result_type: Attribute, props: Props
    ) -> Any:
        """:meth:`emit_te` for the kernel backend the program is compiled for
        (``numpy`` or ``native``: ``relax-legalize-ops{kernels=...}``), where an operator
        computes the same result another way on one of them (TVM's target-specific
        strategies). Every form runs on both backends; this chooses the faster."""
        return cls.emit_te(inputs, result_type, props)

    @classmethod
    def run_reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        """The reference kernel on run-time values, as the safety net, the interpreter
        and constant folding run it: first the operator's own facts on the values'
        types (deduction over concrete shapes raises the :class:`RelaxError` the
        symbolic path would, e.g. a 3x3 window over a 2x2 image), then the kernel,
        whose result must have the deduced type."""
        types = tuple(runtime_type(value) for value in inputs)
        expected = cls.deduction(types, props).type
        result = cls.reference([_bf16_widened(value) for value in inputs], props)
        result = _bf16_rounded(result, expected)
        check_runtime_value(result, expected)
        return result


def _bf16_widened(value: Any) -> Any:
    """A bf16 array in f32: the reference kernels compute bf16 in f32 (exactly), and
    :func:`_bf16_rounded` rounds their result once, as torch's CPU kernels do."""
    if isinstance(value, np.ndarray) and value.dtype == dtypes.BFLOAT16:
        return value.astype(np.float32)
    return value


def _bf16_rounded(value: Any, type_: Attribute) -> Any:
    """``value`` with its f32 arrays that ``type_`` says are bf16 rounded to bf16."""
    if isinstance(type_, TupleType) and isinstance(value, tuple):
        return tuple(_bf16_rounded(v, t) for v, t in zip(value, type_.types, strict=False))
    bf16 = isinstance(type_, TensorType) and type_.dtype == dtypes.BF16
    if bf16 and isinstance(value, np.ndarray) and value.dtype == np.float32:
        return value.astype(dtypes.BFLOAT16)
    return value


# --------------------------------------------------------------------------- type helpers


def runtime_type(value: Any) -> Attribute:
    """The most specific type of a run-time value: a tensor of its shape and element
    type, a shape (a tuple of ints), or a prim (an int)."""
    if isinstance(value, np.ndarray):
        return TensorType.of(DimsAttr.of(list(value.shape)), dtypes.from_numpy(value.dtype))
    if isinstance(value, tuple):
        return ShapeType.of(list(value))
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return PrimType.of(dtypes.I64, int(value))
    raise RelaxError(f"expected a tensor, a shape or an integer, got {type(value).__name__}")


def check_runtime_value(value: Any, type_: Attribute) -> None:
    """Raise a :class:`RelaxError` unless ``value`` has the shape and element type that
    ``type_`` states (dims that are not integers, unknown ranks and dtypes match all)."""
    if isinstance(type_, TupleType):
        if not isinstance(value, tuple) or len(value) != len(type_.types):
            raise RelaxError(f"the result is not a tuple of {len(type_.types)} values")
        for field, field_type in zip(value, type_.types, strict=True):
            check_runtime_value(field, field_type)
        return
    if not isinstance(type_, TensorType):
        return
    array = np.asarray(value)
    if type_.known_dtype is not None and array.dtype != dtypes.numpy_dtype(type_.dtype):
        raise RelaxError(
            f"the result has element type {array.dtype}, expected {show_type(type_.dtype)}"
        )
    if type_.dims is not None:
        expected = [int(d) if d.is_Integer else None for d in type_.dims]
        if len(expected) != array.ndim or any(
            e is not None and e != got for e, got in zip(expected, array.shape, strict=False)
        ):
            raise RelaxError(
                f"the result has shape {list(array.shape)}, expected {show_type(type_)}"
            )


def expect_tensor(type_: Attribute, what: str = "operand") -> TensorType:
    """``type_`` as a tensor type, or a :class:`RelaxError`."""
    if not isinstance(type_, TensorType):
        raise RelaxError(f"expected a tensor {what}, got {show_type(type_)}")
    return type_


def expect_shape(type_: Attribute, what: str = "operand") -> ShapeType:
    """``type_`` as a shape type, or a :class:`RelaxError`."""
    if not isinstance(type_, ShapeType):
        raise RelaxError(f"expected a shape {what}, got {show_type(type_)}")
    return type_


def tensor(shape: Dims | int | None, dtype: Attribute) -> TensorType:
    """A result tensor type from dims, a rank, or None."""
    return TensorType.of(shape if not isinstance(shape, tuple) else DimsAttr(shape), dtype)


def expect_prim(type_: Attribute, what: str = "operand") -> PrimType:
    """``type_`` as a prim type, or a :class:`RelaxError`."""
    if not isinstance(type_, PrimType):
        raise RelaxError(f"expected a prim {what}, got {show_type(type_)}")
    return type_


def known_shape(type_: TensorType) -> Dims | int | None:
    """The most specific shape information of a tensor: dims, else rank, else None."""
    return type_.dims if type_.dims is not None else type_.ndim


def same_dtype(types: Sequence[TensorType]) -> Attribute:
    """The common element type of ``types`` (unknown if any is unknown); error if two differ."""
    known = {t.dtype for t in types if t.dtype != UNKNOWN_DTYPE}
    if len(known) > 1:
        names = ", ".join(show_type(t) for t in types)
        raise RelaxError(
            f"operands must have the same element type, got {names} (convert one with relax.astype)"
        )
    if len(known) == 1 and all(t.dtype != UNKNOWN_DTYPE for t in types):
        return known.pop()
    return UNKNOWN_DTYPE


@dataclass(frozen=True)
class DtypeKind:
    """A named set of element types an operand may have."""

    description: str
    members: frozenset[Attribute]


FLOAT = DtypeKind("a floating-point", frozenset({dtypes.F16, dtypes.F32, dtypes.F64, dtypes.BF16}))
SIGNED = DtypeKind("a signed integer", frozenset({dtypes.I8, dtypes.I16, dtypes.I32, dtypes.I64}))
UNSIGNED = DtypeKind(
    "an unsigned integer", frozenset({dtypes.UI8, dtypes.UI16, dtypes.UI32, dtypes.UI64})
)
INTEGER = DtypeKind("an integer", SIGNED.members | UNSIGNED.members)
NUMERIC = DtypeKind("a numeric (not i1)", FLOAT.members | INTEGER.members)
ANY_DTYPE = DtypeKind("any", frozenset(dtypes.NAME_OF))


def check_dtype(type_: TensorType, kind: DtypeKind, what: str = "operand") -> None:
    """Raise unless the element type of ``type_`` is unknown or of ``kind``."""
    if type_.known_dtype is not None and type_.dtype not in kind.members:
        raise RelaxError(
            f"expected {what} with {kind.description} element type, got {show_type(type_)}"
        )


def expect_dtype(attr: Attribute, what: str = "dtype") -> Attribute:
    """``attr`` as a relax element type, or a :class:`RelaxError`."""
    if not dtypes.is_dtype(attr):
        raise RelaxError(
            f"expected {what} to be one of {', '.join(dtypes.BY_NAME)}, got {show_type(attr)}"
        )
    return attr


def require(facts: Facts, fact: Fact) -> None:
    """The deduction relies on ``fact``: a :class:`RelaxError` when it is provably false,
    nothing when it is proven, and otherwise an obligation added to the deduction's
    ``facts``, which the compiled program checks at run time (and the interpreter checks
    before it runs the operator)."""
    verdict = fact.decide()
    if verdict is False:
        raise RelaxError(f"{fact.what}: {fact} is false")
    if verdict is None:
        facts.add(fact)


def require_equal(facts: Facts, a: sympy.Expr, b: sympy.Expr, what: str) -> None:
    """:func:`require` ``a == b``; ``what`` says why in the user's terms."""
    require(facts, Fact(symbolic.as_expr(a), "==", symbolic.as_expr(b), what))


def require_le(facts: Facts, a: sympy.Expr, b: sympy.Expr, what: str) -> None:
    """:func:`require` ``a <= b``; ``what`` says why in the user's terms."""
    require(facts, Fact(symbolic.as_expr(a), "<=", symbolic.as_expr(b), what))


def dims_product(dims: Sequence[sympy.Expr]) -> sympy.Expr:
    """The number of elements of a tensor with ``dims``, canonical."""
    return sympy.expand(sympy.Mul(*dims))


def broadcast_dims(a: Dims, b: Dims) -> Dims | None:
    """Numpy broadcasting of symbolic shapes; None when it cannot be decided statically.

    ``(n, m) + (m)`` -> ``(n, m)``; ``(n, 1, m) + (2, m)`` -> ``(n, 2, m)``; a provable
    mismatch such as ``(n, 3) + (n, 4)`` raises.
    """
    rank = max(len(a), len(b))
    a = (sympy.Integer(1),) * (rank - len(a)) + tuple(a)
    b = (sympy.Integer(1),) * (rank - len(b)) + tuple(b)
    out: list[sympy.Expr] = []
    for index, (x, y) in enumerate(zip(a, b, strict=True)):
        if symbolic.prove_equal(x, y) or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif (
            x.is_Integer
            and y.is_Integer
            or (symbolic.prove_not_equal(x, y) and _provably_not_one(x) and _provably_not_one(y))
        ):
            raise RelaxError(
                f"dimension {index} of the broadcast shapes differs: "
                f"{symbolic.format_expr(x)} vs {symbolic.format_expr(y)}"
            )
        else:
            return None
    return tuple(out)


def _provably_not_one(x: sympy.Expr) -> bool:
    return symbolic.prove_not_equal(x, 1)


def broadcast_shape(types: Sequence[TensorType]) -> Dims | int | None:
    """The broadcast result shape of tensors: dims, else the rank, else None."""
    if any(t.ndim is None for t in types):
        return None
    rank = max(t.ndim for t in types)  # type: ignore[type-var]
    if any(t.dims is None for t in types):
        return rank
    dims: Dims = types[0].dims  # type: ignore[assignment]
    for t in types[1:]:
        merged = broadcast_dims(dims, t.dims)  # type: ignore[arg-type]
        if merged is None:
            return rank
        dims = merged
    return dims


def normalize_axis(axis: int, ndim: int, what: str = "axis") -> int:
    """``axis`` in ``[0, ndim)`` (negative counts from the end), or a :class:`RelaxError`."""
    if not -ndim <= axis < ndim:
        raise RelaxError(f"{what} {axis} is out of range for rank {ndim}")
    return axis % ndim


def normalize_axes(axes: Sequence[int], ndim: int, what: str = "axis") -> list[int]:
    """Each axis in ``[0, ndim)``, or a :class:`RelaxError` if one is out of range or repeated."""
    normalized = [normalize_axis(a, ndim, what) for a in axes]
    if len(set(normalized)) != len(normalized):
        raise RelaxError(f"{what} {list(axes)} repeats an axis (rank {ndim})")
    return normalized


# --------------------------------------------------------------------------- property helpers


def require_props(props: Props, *names: str) -> None:
    """Raise a :class:`RelaxError` naming the first of ``names`` missing from ``props``."""
    for name in names:
        if name not in props:
            raise RelaxError(f"expected a '{name}' property")


def prop_int(props: Props, name: str, default: int | None = None) -> int | None:
    """An integer property (``1 : i64``) as an int."""
    attr = props.get(name)
    if attr is None:
        return default
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    if isinstance(attr, IntAttr):
        return attr.data
    raise RelaxError(f"property '{name}' must be an integer")


def prop_ints(props: Props, name: str, default: Sequence[int] | None = None) -> list[int] | None:
    """An integer-array property (``array<i64: 1, 0>``) as a list."""
    attr = props.get(name)
    if attr is None:
        return None if default is None else list(default)
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    if isinstance(attr, ArrayAttr):
        return [prop_int({"v": v}, "v") for v in attr.data]  # type: ignore[misc]
    if isinstance(attr, IntegerAttr):
        return [int(attr.value.data)]
    raise RelaxError(f"property '{name}' must be an array of integers")


def prop_bool(props: Props, name: str, default: bool = False) -> bool:
    """A boolean property (``true``) as a bool."""
    attr = props.get(name)
    if attr is None:
        return default
    if isinstance(attr, IntegerAttr) and attr.type == dtypes.I1:
        return bool(attr.value.data)
    raise RelaxError(f"property '{name}' must be a boolean")


def prop_float(props: Props, name: str, default: float) -> float:
    """A float property (``1.0e-05 : f32``) as a float."""
    attr = props.get(name)
    if attr is None:
        return default
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, IntegerAttr):
        return float(attr.value.data)
    raise RelaxError(f"property '{name}' must be a float")


def numpy_result(value: Any, dtype: np.dtype | None = None) -> np.ndarray:
    """A numpy array (0-d results stay arrays, not scalars)."""
    array = np.asarray(value)
    return array.astype(dtype, copy=False) if dtype is not None else array


# --------------------------------------------------------------------------- TE helpers

OUTPUT = "out"
"""The name of an operator's output tensor in its kernel."""


def result_dims(result_type: Attribute) -> Dims:
    """The dims of a (known) result tensor type, for the output of ``emit_te``."""
    assert isinstance(result_type, TensorType) and result_type.dims is not None
    return result_type.dims


def broadcast_indices(shape: Sequence[sympy.Expr], indices: Sequence[sympy.Expr]) -> tuple:
    """The indices into ``shape`` at the output position ``indices`` under numpy
    broadcasting: leading output axes are dropped and a dimension that is 1 is read at 0
    (deduction only gives known dims when every other dimension provably equals the
    output's)."""
    offset = len(indices) - len(shape)
    return tuple(0 if dim == 1 else indices[offset + k] for k, dim in enumerate(shape))


def broadcast_load(x: te.Tensor, indices: Sequence[sympy.Expr]) -> te.Expr:
    """``x`` at the output position ``indices`` under numpy broadcasting."""
    return x[broadcast_indices(x.shape, indices)]


# --------------------------------------------------------------------------- accumulation
# How arithmetic over many elements is done (docs/semantics.md), as the frameworks do it:
# f16 and bf16 accumulate in f32 and round once; integer sums wrap in their own type
# (the same bits as an i64 sum cast back); integer means are exact, truncated toward
# zero, and refused over no elements.


def accumulator(dtype: Attribute) -> Attribute:
    """The float type arithmetic over many elements of ``dtype`` runs in: f32 for f16
    and bf16, the type itself otherwise."""
    return dtypes.F32 if dtype in (dtypes.F16, dtypes.BF16) else dtype


def numpy_accumulator(dtype: np.dtype) -> np.dtype:
    """:func:`accumulator` of a numpy dtype."""
    return np.dtype(np.float32) if dtype in (np.float16, dtypes.BFLOAT16) else dtype


def widened(x: te.Tensor, name: str = "wide") -> te.Tensor:
    """``x`` in its :func:`accumulator` type (itself when that is its type)."""
    wide = accumulator(x.dtype)
    if wide == x.dtype:
        return x
    return te.compute(x.shape, lambda *i: te.cast(x[i], wide), name)


def sum_of(value: te.Expr, axes: Sequence[te.IterVar]) -> te.Expr:
    """The sum of ``value`` over the reduction ``axes``, accumulated in its
    :func:`accumulator` type and rounded once to its own."""
    wide = accumulator(value.dtype)
    return te.cast(te.sum(te.cast(value, wide), list(axes)), value.dtype)


def mean_of(value: te.Expr, axes: Sequence[te.IterVar], count: sympy.Expr) -> te.Expr:
    """The mean of ``value`` over the reduction ``axes`` (``count`` elements): floats in
    their :func:`accumulator` type (no elements: NaN), integers exactly and truncated
    toward zero (the caller ensures ``count >= 1``)."""
    dtype, axes = value.dtype, list(axes)
    if dtypes.is_float(dtype):
        wide = accumulator(dtype)
        return te.cast(te.sum(te.cast(value, wide), axes) / te.index(count, wide), dtype)
    if dtypes.is_unsigned(dtype):
        n = te.index(count, dtypes.UI64)
        if dtype != dtypes.UI64:
            # The ui64 sum of fewer than 2**32 elements of 32 bits or less is exact.
            return te.cast(te.sum(te.cast(value, dtypes.UI64), axes) / n, dtype)
        # Quotients and remainders by the count apart, as for i64; all non-negative.
        return te.sum(value / n, axes) + te.sum(te.fmod(value, n), axes) / n
    n = te.index(count)
    if dtype != dtypes.I64:
        # The i64 sum of fewer than 2**32 elements of 32 bits or less is exact.
        return te.cast(te.sum(te.cast(value, dtypes.I64), axes) / n, dtype)
    # An i64 sum may overflow: sum the quotients and the remainders by the count apart.
    quotients = te.sum(te.floordiv(value, n), axes)
    remainders = te.sum(te.floormod(value, n), axes)
    floor = quotients + te.floordiv(remainders, n)
    inexact = te.floormod(remainders, n) != 0
    return floor + te.cast((floor < 0) & inexact, dtypes.I64)


def reference_mean(
    x: np.ndarray, axis: tuple[int, ...] | None, count: Any, keepdims: bool = False
) -> np.ndarray:
    """numpy's counterpart of :func:`mean_of`: the mean of ``x`` over ``axis`` (None:
    all) with ``count`` elements (an int, or an array broadcasting against ``x`` with the
    reduced axes kept), in x's element type (floats summed in their accumulator type, as
    numpy and torch do: the mean of f32 [3e38, 3e38] overflows to inf)."""
    if np.issubdtype(x.dtype, np.floating):
        wide = numpy_accumulator(x.dtype)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            total = x.sum(axis=axis, dtype=wide, keepdims=True) / np.asarray(count, wide)
        return _dropped(total, axis, keepdims).astype(x.dtype)
    if x.dtype.kind == "u":
        n = np.asarray(count, np.uint64)
        if x.dtype != np.uint64:
            total = x.sum(axis=axis, dtype=np.uint64, keepdims=True)
            return _dropped(total // n, axis, keepdims).astype(x.dtype)
        quotients = (x // n).sum(axis=axis, keepdims=True)
        remainders = np.fmod(x, n).sum(axis=axis, keepdims=True)
        return _dropped(quotients + remainders // n, axis, keepdims)
    n = np.asarray(count, np.int64)
    if x.dtype != np.int64:
        total = x.sum(axis=axis, dtype=np.int64, keepdims=True)
        quotient = np.abs(total) // n * np.sign(total)
        return _dropped(quotient, axis, keepdims).astype(x.dtype)
    quotients = np.floor_divide(x, n).sum(axis=axis, keepdims=True)
    remainders = np.mod(x, n).sum(axis=axis, keepdims=True)
    floor = quotients + remainders // n
    value = floor + ((floor < 0) & (remainders % n != 0))
    return _dropped(value, axis, keepdims)


def _dropped(value: np.ndarray, axis: tuple[int, ...] | None, keepdims: bool) -> np.ndarray:
    """``value``, reduced with its axes kept, without them unless ``keepdims``."""
    if keepdims:
        return value
    return value.reshape(()) if axis is None else np.squeeze(value, axis=axis)
