"""Shape manipulation operators: reshape, flatten, permute_dims, expand_dims, squeeze,
concat, split and strided_slice."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import sympy
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure

from xrelax.dialects.relax import (
    PrimType,
    RelaxError,
    ShapeType,
    TensorType,
    TupleType,
    show_type,
)
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.obligations import Facts
from xrelax.dialects.shapes.symbolic import Dims
from xrelax.ops import te
from xrelax.ops.base import (
    I64_ARRAY_PROP,
    I64_PROP,
    OUTPUT,
    OperatorOp,
    Props,
    dims_product,
    expect_prim,
    expect_shape,
    expect_tensor,
    normalize_axes,
    normalize_axis,
    numpy_result,
    prop_int,
    prop_ints,
    require_equal,
    require_le,
    require_props,
    result_dims,
    same_dtype,
    tensor,
)
from xrelax.ops.canonicalize import (
    PermuteCanonicalization,
    ReshapeCanonicalization,
    ShapeOperatorCanonicalization,
)

_ONE = sympy.Integer(1)
_I64_MAX, _I64_MIN = 2**63 - 1, -(2**63)


# ------------------------------------------------------------------------------ reshape


def exact_quotient(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
    """``a / b`` when ``b`` provably divides ``a`` (a polynomial with integer coefficients)."""
    numerator, denominator = sympy.fraction(sympy.cancel(a / b))
    if denominator != 1:
        return None
    quotient = sympy.expand(numerator)
    terms = sympy.Add.make_args(quotient)
    if all(term.as_coeff_Mul()[0].is_Integer for term in terms):
        return quotient
    return None


def _inferred_dim(
    total: sympy.Expr, known: sympy.Expr, x: TensorType, target: Dims, facts: Facts
) -> sympy.Expr:
    """The size of the ``-1`` entry of a reshape: ``total`` elements over ``known`` (the
    facts it relies on are required into ``facts``)."""
    if symbolic.prove_equal(known, 0):
        raise RelaxError(
            f"cannot infer the -1 entry of shape {symbolic.format_dims(target)}: the other entries "
            "multiply to 0"
        )
    quotient = exact_quotient(total, known)
    if quotient is not None:
        return quotient
    remainder = symbolic.floormod(total, known)
    if remainder.is_Integer and remainder != 0:
        raise RelaxError(
            f"cannot reshape {show_type(x)} ({symbolic.format_expr(total)} elements) to "
            f"{symbolic.format_dims(target)}: the element count is not a multiple of "
            f"{symbolic.format_expr(known)}"
        )
    shown = symbolic.format_dims(target)
    require_le(facts, 1, known, f"relax.reshape to {shown}: the entries other than -1 are not 0")
    require_equal(
        facts,
        remainder,
        0,
        f"relax.reshape to {shown}: the element count divides into the -1 entry",
    )
    return symbolic.floordiv(total, known)


def unravel(flat: sympy.Expr, dims: Dims) -> list[sympy.Expr]:
    """The row-major multi-index of the flat index ``flat`` in a tensor of ``dims``."""
    if any(dim == 0 for dim in dims):
        return [sympy.Integer(0)] * len(dims)  # no elements: the index is never used
    strides = [_ONE] * len(dims)
    for k in reversed(range(len(dims) - 1)):
        strides[k] = sympy.expand(strides[k + 1] * dims[k + 1])
    indices = [symbolic.floordiv(flat, stride) for stride in strides]
    return [
        symbolic.floormod(index, dim) if k else index
        for k, (index, dim) in enumerate(zip(indices, dims, strict=True))
    ]


def reshaped(x: te.Tensor, dims: Dims, name: str = OUTPUT) -> te.Tensor:
    """``x`` read in row-major order into a tensor of ``dims``.

    The axes split into groups of provably equal element counts (``[s, b, 768]`` to
    ``[s, b, 3, 256]``: ``[s] [b] [768 | 3, 256]``), and only within a group is the index
    flattened and unflattened, so axes a reshape keeps stay plain indices: no division
    by a symbolic size that the kernel backend could only gather through.
    """
    groups = reshape_groups(x.shape, dims)

    def body(*i: sympy.Expr) -> te.Expr:
        index = [sympy.Integer(0)] * len(x.shape)
        for source, target in groups:
            flat = sympy.Integer(0)
            for axis in target:
                flat = flat * dims[axis] + i[axis]
            unraveled = unravel(sympy.expand(flat), [x.shape[axis] for axis in source])
            for axis, value in zip(source, unraveled, strict=True):
                index[axis] = value
        return x[index]

    return te.compute(dims, body, name)


def reshape_groups(source: Dims, target: Dims) -> list[tuple[list[int], list[int]]]:
    """Consecutive axes of ``source`` and ``target`` paired into groups of provably equal
    element counts; axes of size 1 belong to no group. One group of all the other axes
    when the counts cannot be matched up piecewise."""
    src = [k for k, dim in enumerate(source) if dim != 1]
    dst = [k for k, dim in enumerate(target) if dim != 1]
    groups: list[tuple[list[int], list[int]]] = []
    a = b = 0
    while a < len(src) and b < len(dst):
        group_src, group_dst = [src[a]], [dst[b]]
        count_src, count_dst = source[src[a]], target[dst[b]]
        a, b = a + 1, b + 1
        while sympy.expand(count_src - count_dst) != 0:
            grow_src = a < len(src) and (_divides(count_src, count_dst) or b == len(dst))
            grow_dst = b < len(dst) and (_divides(count_dst, count_src) or a == len(src))
            if not (grow_src or grow_dst):
                grow_src, grow_dst = a < len(src), b < len(dst)
            if not (grow_src or grow_dst):
                return [(src, dst)]
            if grow_src:
                group_src.append(src[a])
                count_src, a = count_src * source[src[a]], a + 1
            if grow_dst:
                group_dst.append(dst[b])
                count_dst, b = count_dst * target[dst[b]], b + 1
        groups.append((group_src, group_dst))
    if a < len(src) or b < len(dst):
        return [(src, dst)]
    return groups


def _divides(small: sympy.Expr, large: sympy.Expr) -> bool:
    """Whether ``large / small`` is provably a polynomial (``small`` is a factor)."""
    try:
        return sympy.fraction(sympy.cancel(large / small))[1] == 1
    except (sympy.PolynomialError, TypeError, ZeroDivisionError):
        return False


@irdl_op_definition
class ReshapeOp(OperatorOp):
    """``relax.reshape``: x with the shape of the ``shape`` operand; one -1 entry is inferred."""

    name = "relax.reshape"

    x = operand_def(TensorType)
    shape = operand_def(ShapeType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ReshapeCanonicalization())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        shape = expect_shape(operand_types[1], "shape operand")
        if shape.dims is None:
            return tensor(shape.ndim, x.dtype)
        target = shape.dims
        shown = symbolic.format_dims(target)
        inferred = [i for i, d in enumerate(target) if d == -1]
        if len(inferred) > 1:
            raise RelaxError(f"expected at most one -1 entry in shape {shown}")
        if any(symbolic.prove_lt(d, 0) and d != -1 for d in target):
            raise RelaxError(f"expected non-negative entries (or one -1) in shape {shown}")
        if x.dims is None:
            return tensor(len(target) if inferred else target, x.dtype)
        total = dims_product(x.dims)
        if not inferred:
            count = dims_product(target)
            if symbolic.prove_not_equal(total, count):
                raise RelaxError(
                    f"cannot reshape {show_type(x)} ({symbolic.format_expr(total)} elements) "
                    f"to {shown} ({symbolic.format_expr(count)} elements)"
                )
            require_equal(
                facts, count, total, f"relax.reshape to {shown}: the element count is kept"
            )
            return tensor(target, x.dtype)
        (index,) = inferred
        known = dims_product(target[:index] + target[index + 1 :])
        dims = list(target)
        dims[index] = _inferred_dim(total, known, x, target, facts)
        return tensor(tuple(dims), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, shape = inputs
        return numpy_result(np.reshape(x, tuple(int(d) for d in shape)))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        return reshaped(inputs[0], result_dims(result_type))


@irdl_op_definition
class FlattenOp(OperatorOp):
    """``relax.flatten``: x as a one-dimensional tensor (a 0-d tensor gives one element)."""

    name = "relax.flatten"

    x = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ReshapeCanonicalization())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        if x.dims is None:
            return tensor(1, x.dtype)
        return tensor((dims_product(x.dims),), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        return numpy_result(np.reshape(x, (-1,)))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        return reshaped(inputs[0], result_dims(result_type))


# ------------------------------------------------------------------------------ axes


@irdl_op_definition
class PermuteDimsOp(OperatorOp):
    """``relax.permute_dims``: x with its axes reordered (``axes`` absent: reversed)."""

    name = "relax.permute_dims"

    x = operand_def(TensorType)
    axes = opt_prop_def(I64_ARRAY_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure(), PermuteCanonicalization())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        axes = prop_ints(properties, "axes")
        if x.ndim is None:
            return tensor(None if axes is None else len(axes), x.dtype)
        if axes is None:
            order = list(reversed(range(x.ndim)))
        else:
            if len(axes) != x.ndim:
                raise RelaxError(
                    f"expected axes to permute all {x.ndim} axes of {show_type(x)}, got {axes}"
                )
            order = normalize_axes(axes, x.ndim, "axes")
        if x.dims is None:
            return tensor(x.ndim, x.dtype)
        return tensor(tuple(x.dims[a] for a in order), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        return numpy_result(np.transpose(x, prop_ints(props, "axes")))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        axes = prop_ints(props, "axes")
        order = reversed(range(x.ndim)) if axes is None else normalize_axes(axes, x.ndim)
        position = {a: k for k, a in enumerate(order)}
        return te.compute(
            result_dims(result_type),
            lambda *i: x[[i[position[a]] for a in range(x.ndim)]],
            OUTPUT,
        )


@irdl_op_definition
class ExpandDimsOp(OperatorOp):
    """``relax.expand_dims``: x with size-1 axes inserted at the positions ``axis`` gives
    (positions in the result)."""

    name = "relax.expand_dims"

    x = operand_def(TensorType)
    axis = prop_def(I64_ARRAY_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ShapeOperatorCanonicalization())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        require_props(properties, "axis")
        axis = prop_ints(properties, "axis")
        if x.ndim is None:
            return tensor(None, x.dtype)
        rank = x.ndim + len(axis)
        inserted = set(normalize_axes(axis, rank))
        if x.dims is None:
            return tensor(rank, x.dtype)
        rest = iter(x.dims)
        return tensor(tuple(_ONE if i in inserted else next(rest) for i in range(rank)), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        return numpy_result(np.expand_dims(x, tuple(prop_ints(props, "axis"))))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        dims = result_dims(result_type)
        inserted = set(normalize_axes(prop_ints(props, "axis"), len(dims)))
        kept = [p for p in range(len(dims)) if p not in inserted]
        return te.compute(dims, lambda *i: x[[i[p] for p in kept]], OUTPUT)


@irdl_op_definition
class SqueezeOp(OperatorOp):
    """``relax.squeeze``: x without the size-1 axes ``axis`` gives (absent: all of them;
    then a symbolic dimension makes the result rank unknown)."""

    name = "relax.squeeze"

    x = operand_def(TensorType)
    axis = opt_prop_def(I64_ARRAY_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ShapeOperatorCanonicalization())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        axis = prop_ints(properties, "axis")
        if axis is None:
            return tensor(_squeeze_all(x.dims), x.dtype)
        if x.ndim is None:
            return tensor(None, x.dtype)
        removed = set(normalize_axes(axis, x.ndim))
        if x.dims is None:
            return tensor(x.ndim - len(removed), x.dtype)
        for index in sorted(removed):
            if symbolic.prove_not_equal(x.dims[index], 1):
                raise RelaxError(
                    f"cannot squeeze axis {index} of {show_type(x)}: expected size 1, got "
                    f"{symbolic.format_expr(x.dims[index])}"
                )
            require_equal(facts, x.dims[index], 1, f"relax.squeeze: axis {index} has size 1")
        return tensor(tuple(d for i, d in enumerate(x.dims) if i not in removed), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        axis = prop_ints(props, "axis")
        return numpy_result(np.squeeze(x, None if axis is None else tuple(axis)))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        axis = prop_ints(props, "axis")
        if axis is None:
            removed = {a for a, d in enumerate(x.shape) if symbolic.prove_equal(d, 1)}
        else:
            removed = set(normalize_axes(axis, x.ndim))

        def body(*i: sympy.Expr) -> te.Expr:
            kept = iter(i)
            return x[[0 if a in removed else next(kept) for a in range(x.ndim)]]

        return te.compute(result_dims(result_type), body, OUTPUT)


def _squeeze_all(dims: Dims | None) -> Dims | None:
    """The dims without those equal to 1; None when some dimension might or might not be 1."""
    if dims is None:
        return None
    kept = []
    for dim in dims:
        if symbolic.prove_equal(dim, 1):
            continue
        if not symbolic.prove_not_equal(dim, 1):
            return None
        kept.append(dim)
    return tuple(kept)


# ------------------------------------------------------------------------------ concat, split


@irdl_op_definition
class ConcatOp(OperatorOp):
    """``relax.concat``: the tensors joined along ``axis`` (absent: 0)."""

    name = "relax.concat"

    tensors = var_operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        types = [expect_tensor(t) for t in operand_types]
        if not types:
            raise RelaxError("expected at least one tensor to concatenate")
        dtype = same_dtype(types)
        ranks = {t.ndim for t in types if t.ndim is not None}
        if len(ranks) > 1:
            shown = ", ".join(show_type(t) for t in types)
            raise RelaxError(f"expected tensors of one rank, got {shown}")
        if not ranks:
            return tensor(None, dtype)
        (rank,) = ranks
        axis = normalize_axis(prop_int(properties, "axis", 0), rank)
        if any(t.dims is None for t in types):
            return tensor(rank, dtype)
        dims = list(types[0].dims)
        decided = True
        for other in types[1:]:
            for index, (dim, other_dim) in enumerate(zip(dims, other.dims, strict=True)):
                if index == axis or symbolic.prove_equal(dim, other_dim):
                    continue
                if symbolic.prove_not_equal(dim, other_dim):
                    raise RelaxError(
                        f"expected tensors that agree except in axis {axis}, got "
                        f"{show_type(types[0])} and {show_type(other)} (dimension {index})"
                    )
                decided = False
        if not decided:
            return tensor(rank, dtype)
        dims[axis] = sympy.expand(sympy.Add(*(t.dims[axis] for t in types)))
        return tensor(tuple(dims), dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        return numpy_result(np.concatenate(list(inputs), axis=prop_int(props, "axis", 0)))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        axis = normalize_axis(prop_int(props, "axis", 0), inputs[0].ndim)
        starts = [sympy.Integer(0)]
        for x in inputs[:-1]:
            starts.append(sympy.expand(starts[-1] + x.shape[axis]))

        # A select reads both of its operands, so a statically empty tensor must not be read.
        pieces = [(x, s) for x, s in zip(inputs, starts, strict=True) if x.shape[axis] != 0]
        pieces = pieces or [(inputs[-1], starts[-1])]

        def body(*i: sympy.Expr) -> te.Expr:
            def pick(low: int, high: int) -> te.Expr:
                """The element of ``pieces[low:high]`` the index falls in: a balanced tree
                of selects (a chain of 400 operands nested 400 deep)."""
                if high - low == 1:
                    x, start = pieces[low]
                    return x[(*i[:axis], i[axis] - start, *i[axis + 1 :])]
                middle = (low + high) // 2
                before = i[axis] < pieces[middle][1]
                return te.if_then_else(before, pick(low, middle), pick(middle, high))

            return pick(0, len(pieces))

        return te.compute(result_dims(result_type), body, OUTPUT)


def _slice_bound(index: int, dim: sympy.Expr, stride: int) -> sympy.Expr:
    """Python's normalisation of a slice bound: a negative index counts from the end, then
    the index is clamped to ``[0, dim]`` (``[-1, dim - 1]`` for a negative stride)."""
    low, high = (0, dim) if stride > 0 else (-1, dim - 1)
    if index < 0:
        return symbolic.smax(dim + index, low)
    return symbolic.smin(index, high)


def _default_bounds(begin: int | None, end: int | None, stride: int) -> tuple[int | None, ...]:
    """``begin`` and ``end`` with a bound at the i64 limits made the default one (None):
    no dimension reaches them."""
    forward = stride > 0
    if begin is not None and (begin <= _I64_MIN if forward else begin >= _I64_MAX):
        begin = None
    if end is not None and (end >= _I64_MAX if forward else end <= _I64_MIN):
        end = None
    return begin, end


def slice_start(begin: int | None, stride: int, dim: sympy.Expr) -> sympy.Expr:
    """The first index of ``x[begin::stride]`` along an axis of size ``dim`` (None: the
    default bound)."""
    begin, _ = _default_bounds(begin, None, stride)
    if begin is None:
        return sympy.Integer(0) if stride > 0 else dim - 1
    return _slice_bound(begin, dim, stride)


def slice_length(begin: int | None, end: int | None, stride: int, dim: sympy.Expr) -> sympy.Expr:
    """The length of ``x[begin:end:stride]`` along an axis of size ``dim`` (None: the
    default bound); exact for a static ``dim``."""
    begin, end = _default_bounds(begin, end, stride)
    first = slice_start(begin, stride, dim)
    if stride > 0:
        last = dim if end is None else _slice_bound(end, dim, stride)
        span, low, high = last - first, begin, end
    else:
        last = sympy.Integer(-1) if end is None else _slice_bound(end, dim, stride)
        span, low, high = first - last, end, begin
    length = symbolic.floordiv(span + abs(stride) - 1, abs(stride))
    # A bound is monotone in its index among indices of one sign, and a default bound is
    # the extreme one, so then the span is never negative.
    monotone = low is None or high is None or ((low < 0) == (high < 0) and low <= high)
    if monotone or symbolic.prove_le(0, length):
        return length
    return symbolic.smax(length, 0)


MAX_SPLIT_SECTIONS = 4096


def _split_points(props: Props) -> int | list[int]:
    """The number of equal sections, or the split indices."""
    attr = props["indices_or_sections"]
    if isinstance(attr, IntegerAttr):
        sections = int(attr.value.data)
        if sections < 1:
            raise RelaxError(f"expected a positive number of sections, got {sections}")
        if sections > MAX_SPLIT_SECTIONS:
            # each section is a result: a few digits must not make millions of them
            raise RelaxError(
                f"expected at most {MAX_SPLIT_SECTIONS} sections (one result each), got {sections}"
            )
        return sections
    return prop_ints(props, "indices_or_sections")


@irdl_op_definition
class SplitOp(OperatorOp):
    """``relax.split``: x cut along ``axis`` (absent: 0) into a tuple of tensors, either
    ``indices_or_sections`` equal sections (numpy.split: the size must divide) or at the
    given indices (numpy slicing semantics)."""

    name = "relax.split"

    x = operand_def(TensorType)
    indices_or_sections = prop_def(I64_PROP | I64_ARRAY_PROP)
    axis = opt_prop_def(I64_PROP)
    result = result_def(TupleType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        require_props(properties, "indices_or_sections")
        points = _split_points(properties)
        count = points if isinstance(points, int) else len(points) + 1
        if x.ndim is None or x.dims is None:
            if x.ndim is not None:
                normalize_axis(prop_int(properties, "axis", 0), x.ndim)
            return TupleType.of([tensor(x.ndim, x.dtype)] * count)
        axis = normalize_axis(prop_int(properties, "axis", 0), x.ndim)
        size = x.dims[axis]
        if isinstance(points, int):
            remainder = symbolic.floormod(size, points)
            if remainder.is_Integer and remainder != 0:
                raise RelaxError(
                    f"cannot split axis {axis} of {show_type(x)} into {points} equal sections"
                )
            require_equal(
                facts, remainder, 0, f"relax.split: {points} equal sections divide axis {axis}"
            )
            lengths = [symbolic.floordiv(size, points)] * points
        else:
            bounds: list[int | None] = [None, *points, None]
            lengths = [slice_length(b, e, 1, size) for b, e in pairwise(bounds)]
        return TupleType.of(
            tensor((*x.dims[:axis], length, *x.dims[axis + 1 :]), x.dtype) for length in lengths
        )

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        parts = np.split(x, _split_points(props), axis=prop_int(props, "axis", 0))
        return tuple(numpy_result(p) for p in parts)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        axis = normalize_axis(prop_int(props, "axis", 0), x.ndim)
        points = _split_points(props)
        outputs = [t.dims for t in result_type.types]
        if isinstance(points, int):
            starts = [k * outputs[0][axis] for k in range(points)]
        else:
            starts = [slice_start(b, 1, x.shape[axis]) for b in (None, *points)]
        return [
            te.compute(
                dims,
                lambda *i, start=start: x[(*i[:axis], i[axis] + start, *i[axis + 1 :])],
                f"{OUTPUT}{k}",
            )
            for k, (dims, start) in enumerate(zip(outputs, starts, strict=True))
        ]


# ------------------------------------------------------------------------------ indexing


Bound = int | sympy.Expr | None
"""A slice bound: an integer property, a prim operand's expression, or None (a prim
operand of unknown value)."""


def _slice_spec(props: Props, bounds: Sequence[Bound] = ()) -> list[tuple[int, Bound, Bound, int]]:
    """``(axis, begin, end, stride)`` per sliced axis (axes not yet normalised), the bounds
    from the ``begin``/``end`` properties or from the prim operands (``bounds``: the
    begins, then the ends)."""
    require_props(props, "axes")
    axes = prop_ints(props, "axes")
    if bounds:
        if "begin" in props or "end" in props:
            raise RelaxError("expected begin and end as properties or as prim operands, not both")
        if len(bounds) != 2 * len(axes):
            raise RelaxError(
                f"expected a begin and an end prim operand per axis ({2 * len(axes)}), got "
                f"{len(bounds)}"
            )
        begin, end = list(bounds[: len(axes)]), list(bounds[len(axes) :])
    else:
        require_props(props, "begin", "end")
        begin = prop_ints(props, "begin")
        end = prop_ints(props, "end")
    strides = prop_ints(props, "strides", [1] * len(axes))
    if not len(axes) == len(begin) == len(end) == len(strides):
        raise RelaxError(
            f"expected axes, begin, end and strides of one length, got {len(axes)}, "
            f"{len(begin)}, {len(end)} and {len(strides)}"
        )
    if 0 in strides:
        raise RelaxError(f"expected non-zero strides, got {strides}")
    if bounds and any(stride < 0 for stride in strides):
        raise RelaxError(f"prim bounds need positive strides, got {strides}")
    return list(zip(axes, begin, end, strides, strict=True))


def _symbolic_bound(index: sympy.Expr, dim: sympy.Expr, is_end: bool, facts: Facts) -> sympy.Expr:
    """A prim slice bound (positive stride) normalised like a Python one: an integer as
    :func:`_slice_bound` does; an expression, which must not be negative (required into
    ``facts``), is clamped to ``dim``."""
    if index.is_Integer:
        if is_end and index >= _I64_MAX:
            return dim
        return _slice_bound(int(index), dim, 1)
    require_le(facts, 0, index, "relax.strided_slice: a symbolic slice bound is not negative")
    return symbolic.smin(index, dim)


def _prim_slice(
    begin: sympy.Expr, end: sympy.Expr, stride: int, dim: sympy.Expr, facts: Facts
) -> tuple:
    """The first index and the length of ``x[begin:end:stride]`` for prim bounds."""
    first = _symbolic_bound(begin, dim, False, facts)
    last = _symbolic_bound(end, dim, True, facts)
    length = symbolic.floordiv(last - first + stride - 1, stride)
    return first, length if symbolic.prove_le(0, length) else symbolic.smax(length, 0)


def _axis_slice(begin: Bound, end: Bound, stride: int, dim: sympy.Expr, facts: Facts) -> tuple:
    """``(first index, length)`` of one sliced axis (integer or prim bounds)."""
    if isinstance(begin, sympy.Expr) or isinstance(end, sympy.Expr):
        return _prim_slice(symbolic.as_expr(begin), symbolic.as_expr(end), stride, dim, facts)
    return slice_start(begin, stride, dim), slice_length(begin, end, stride, dim)


@irdl_op_definition
class StridedSliceOp(OperatorOp):
    """``relax.strided_slice``: ``x[begin:end:stride]`` along each of ``axes`` (numpy slicing:
    negative indices count from the end, out-of-range indices are clamped; ``strides``
    absent: 1). The bounds are the ``begin`` and ``end`` properties, or prim operands
    after x (the begins, then the ends; positive strides): ``x[:, :n]`` keeps the
    symbolic length ``min(n, dim)``; a symbolic bound must not be negative."""

    name = "relax.strided_slice"

    x = operand_def(TensorType)
    bounds = var_operand_def(PrimType)
    axes = prop_def(I64_ARRAY_PROP)
    begin = opt_prop_def(I64_ARRAY_PROP)
    end = opt_prop_def(I64_ARRAY_PROP)
    strides = opt_prop_def(I64_ARRAY_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        bounds = [expect_prim(t, "bound operand").expr for t in operand_types[1:]]
        spec = _slice_spec(properties, bounds)
        if x.ndim is None:
            return tensor(None, x.dtype)
        axes = normalize_axes([axis for axis, *_ in spec], x.ndim, "axes")
        if x.dims is None or any(b is None for b in bounds):
            return tensor(x.ndim, x.dtype)
        dims = list(x.dims)
        for axis, (_, begin, end, stride) in zip(axes, spec, strict=True):
            dims[axis] = _axis_slice(begin, end, stride, dims[axis], facts)[1]
        return tensor(tuple(dims), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, *bounds = inputs
        index = [slice(None)] * x.ndim
        for axis, begin, end, stride in _slice_spec(props, [int(b) for b in bounds]):
            index[axis] = slice(begin, end, stride)
        return numpy_result(x[tuple(index)])

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        x, *bounds = inputs
        steps = [(sympy.Integer(0), 1)] * x.ndim
        # The facts the slices rely on are the op's obligations (the kernel asserts them).
        facts = Facts()
        for axis, begin, end, stride in _slice_spec(props, bounds):
            axis = normalize_axis(axis, x.ndim)
            steps[axis] = (_axis_slice(begin, end, stride, x.shape[axis], facts)[0], stride)
        return te.compute(
            result_dims(result_type),
            lambda *i: x[[start + k * stride for k, (start, stride) in zip(i, steps, strict=True)]],
            OUTPUT,
        )


MANIPULATE_OPS = (
    ReshapeOp,
    FlattenOp,
    PermuteDimsOp,
    ExpandDimsOp,
    SqueezeOp,
    ConcatOp,
    SplitOp,
    StridedSliceOp,
)
