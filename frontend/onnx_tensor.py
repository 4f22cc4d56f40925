"""ONNX converters of tensor and math operators beyond the core set in
:mod:`xrelax.frontend.onnx`: indexing, scatter, sorting, data-dependent shapes,
quantization and element-wise math (registered on import)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import onnx
import sympy
from xdsl.dialects.builtin import StringAttr

from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic
from xrelax.frontend import onnx_nn
from xrelax.frontend.common import FrontendError, Unsupported
from xrelax.frontend.onnx_importer import (
    _axis,
    _canonical,
    _cast_target,
    _checked_indices,
    _converts,
    _flag,
    _given,
    _Importer,
    _Known,
    _string,
    _unary,
    _Value,
)
from xrelax.ops.runtime_attrs import TensorToShapeOp


def _size(imp: _Importer, value: _Value, what: str) -> sympy.Expr:
    """A one-element integer input as a size: its (symbolic) value when known at import,
    else a new symbolic variable that ``relax.tensor_to_shape`` and ``relax.match_shape``
    bind when the model runs (a negative value is an error there)."""
    if isinstance(value, _Known):
        sizes = imp.sizes(value, what)
        if len(sizes) != 1:
            raise FrontendError(f"{what} has {len(sizes)} values, expected 1")
        return sizes[0]
    em = imp.em
    t = imp.tensor(value)
    if em.dims(t) and math.prod(int(d) for d in em.dims(t) if d.is_Integer) != 1:
        raise FrontendError(f"{what} has type {t.type}, expected one value")
    vector = em.reshape(em.cast(t, dtypes.I64), [1])  # a float depth truncates
    shape = em.bb.emit(TensorToShapeOp.build_deduced([vector]))
    size = imp.builder.variable(object(), what.lower())
    em.bb.match_shape(shape, [size])
    return size


# ------------------------------------------------------------------ element-wise math

for _onnx_name, _relax_name in {
    "Tan": "tan",
    "Sinh": "sinh",
    "Cosh": "cosh",
    "Asin": "asin",
    "Acos": "acos",
    "Atan": "atan",
    "Asinh": "asinh",
    "Acosh": "acosh",
    "Atanh": "atanh",
    "Floor": "floor",
    "Ceil": "ceil",
    "Round": "round",
}.items():
    _converts(_onnx_name)(_unary(_relax_name))


@_converts("Softplus")
def _softplus(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): no overflow for large x, and
    the relative accuracy of log1p for very negative x."""
    return softplus(imp, imp.tensor(inputs[0]))


def softplus(imp: _Importer, x: Any) -> Any:
    """log(1 + exp(x)), computed without overflow."""
    em = imp.em
    positive = em.op("maximum", x, em.scalar(0, x))
    tail = em.op("log1p", em.op("exp", em.op("negative", em.op("abs", x))))
    return em.op("add", positive, tail)


# ------------------------------------------------------------------ one-hot


@_converts("OneHot")
def _one_hot(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``values[1]`` where the position along the new axis is the index (a negative
    index counts from the end of ``depth``), ``values[0]`` elsewhere; an index outside
    ``[-depth, depth - 1]`` gives a row of ``values[0]`` (onnxruntime)."""
    em = imp.em
    indices = imp.tensor(inputs[0])
    depth = _size(imp, inputs[1], "depth")
    values = imp.tensor(inputs[2])
    if em.ndim(values) != 1 or not em.dims(values)[0] == 2:
        raise FrontendError(f"values has type {values.type}, expected 2 values [off, on]")
    if depth.is_Integer and int(depth) < 1:
        raise FrontendError(f"depth is {depth}, expected at least 1")
    rank = em.ndim(indices)
    axis = _axis(attrs.get("axis", -1), rank + 1)
    indices = em.cast(indices, dtypes.I64)  # a float index truncates toward zero
    size = em.full([], depth, dtypes.I64)
    wrapped = em.op(
        "where", em.op("less", indices, em.scalar(0, indices)), em.op("add", indices, size), indices
    )
    positions = em.op("arange", em.prim(0), em.prim(depth), em.prim(1), dtype=dtypes.I64)
    shape = [depth if a == axis else 1 for a in range(rank + 1)]
    hit = em.op("equal", em.reshape(positions, shape), em.unsqueeze(wrapped, [axis]))
    off, on = em.items(em.op("split", values, indices_or_sections=2, axis=0), 2)
    return em.op("where", hit, em.reshape(on, []), em.reshape(off, []))


# ------------------------------------------------------------------ sorting and scatter


def topk(imp: _Importer, x: Any, k: Any, axis: int, largest: bool) -> list[Any]:
    """The ``k`` largest (or smallest) elements along ``axis`` in order and their i64
    positions, equal elements by position (a slice of the stable ``argsort``)."""
    em = imp.em
    order = em.op("argsort", x, axis=axis, descending=largest)
    positions = em.slice(order, axis, 0, k)
    return [em.op("gather_elements", x, positions, axis=axis), positions]


@_converts("TopK")
def _top_k(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """The ``K`` largest (``largest = 0``: smallest) elements along ``axis`` and their
    positions, sorted, equal elements by position (onnxruntime's order; also for
    ``sorted = 0``, whose order ONNX leaves open)."""
    em, x = imp.em, imp.tensor(inputs[0])
    rank = em.ndim(x)
    axis = _axis(attrs.get("axis", -1), rank)
    k = _size(imp, inputs[1], "K") if imp.opset >= 10 else symbolic.as_expr(attrs["k"])
    size = em.dims(x)[axis]
    if k.is_Integer and int(k) < 0:
        raise FrontendError(f"K is {k}, expected at least 0")
    if symbolic.prove_lt(size, k):
        raise FrontendError(f"K is {k}, more than the {size} elements along axis {axis}")
    values, positions = topk(imp, x, k, axis, _flag(attrs, "largest", 1))
    # a K beyond the axis is an error (the slice would clamp it)
    dims = [k if a == axis else d for a, d in enumerate(em.dims(x))]
    return [em.match(values, dims), em.match(positions, dims)]


@_converts("ScatterElements", "Scatter")
def _scatter_elements(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    """``relax.scatter_elements``; constant indices are checked against the axis."""
    em, x = imp.em, imp.tensor(inputs[0])
    axis = _axis(attrs.get("axis", 0), em.ndim(x))
    reduction = _string(attrs, "reduction", "none", ("none", "add", "mul", "max", "min"))
    indices = inputs[1]
    if isinstance(indices, _Known) and _canonical(indices.array).dtype != object:
        _checked_indices(_canonical(indices.array), em.dims(x)[axis], axis)
    updates = imp.tensor(inputs[2])
    return em.op(
        "scatter_elements",
        x,
        imp.tensor(indices),
        updates,
        axis=axis or None,
        reduction=None if reduction == "none" else StringAttr(reduction),
    )


# ------------------------------------------------------------------ sequences in a batch


@_converts("ReverseSequence")
def _reverse_sequence(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    """The first ``sequence_lens[b]`` steps of each batch entry reversed along
    ``time_axis``: a ``gather_elements`` from position ``len - 1 - t`` (``t`` itself past
    the length); a length beyond the axis reads out of range, a run-time error."""
    em, x = imp.em, imp.tensor(inputs[0])
    lengths = em.cast(imp.tensor(inputs[1]), dtypes.I64)
    rank = em.ndim(x)
    if rank < 2:
        raise FrontendError(f"input has rank {rank}, expected at least 2")
    batch_axis = _axis(attrs.get("batch_axis", 1), 2, "batch_axis")
    time_axis = _axis(attrs.get("time_axis", 0), 2, "time_axis")
    if batch_axis == time_axis:
        raise FrontendError("batch_axis and time_axis are the same axis")
    dims = list(em.dims(x))
    steps = em.op("arange", em.prim(0), em.prim(dims[time_axis]), em.prim(1), dtype=dtypes.I64)
    steps = em.reshape(steps, [d if a == time_axis else 1 for a, d in enumerate(dims)])
    lengths = em.reshape(lengths, [d if a == batch_axis else 1 for a, d in enumerate(dims)])
    reversed_step = em.op("subtract", em.op("subtract", lengths, em.scalar(1, lengths)), steps)
    source = em.op("where", em.op("less", steps, lengths), reversed_step, steps)
    return em.op("gather_elements", x, em.broadcast_to(source, dims), axis=time_axis)


# ------------------------------------------------------------------ einsum


def einsum(imp: _Importer, equation: str, operands: list[Any]) -> Any:
    """numpy's ``einsum``: repeated letters of one operand take its diagonal, letters
    only one operand has and the output lacks are summed, and the operands are combined
    left to right by ``matmul`` over the letters they share (batch letters the output or
    a later operand keeps, the others contracted); ``...`` broadcasts as in numpy."""
    em = imp.em
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise FrontendError(f"equation '{equation}' has {len(terms)} operands, got {len(operands)}")
    ranks = [em.ndim(x) for x in operands]
    spans = [r - len(t.replace("...", "")) for t, r in zip(terms, ranks, strict=True)]
    ellipsis = [chr(0x100 + k) for k in range(max([0, *spans]))]
    letters = []
    for term, span in zip(terms, spans, strict=True):
        if "..." not in term and span != 0:
            raise FrontendError(f"operand '{term}' of '{equation}' does not have {len(term)} axes")
        letters.append(list(term.replace("...", "".join(ellipsis[len(ellipsis) - span :]))))
    if arrow:
        output = list(rhs.replace("...", "".join(ellipsis)))
    else:
        counts = Counter(c for term in terms for c in term if c.isalpha())
        output = ellipsis + sorted(c for c, n in counts.items() if n == 1)
    sizes: dict[str, sympy.Expr] = {}
    for x, names in zip(operands, letters, strict=True):
        for name, dim in zip(names, em.dims(x), strict=True):
            if sizes.get(name, sympy.Integer(1)) == 1:
                sizes[name] = dim
    pending = list(zip(operands, letters, strict=True))

    def others(index: int) -> set[str]:
        return set(output) | {c for k, (_, o) in enumerate(pending) if k != index for c in o}

    current, names = _einsum_operand(imp, *pending[0], others(0))
    for index, (x, other) in enumerate(pending[1:], 1):
        x, other = _einsum_operand(imp, x, other, others(index))
        keep = set(output) | {c for _, later in pending[index + 1 :] for c in later}
        batch = [c for c in names if c in other and c in keep]
        contracted = [c for c in names if c in other and c not in keep]
        left = [c for c in names if c not in other]
        right = [c for c in other if c not in names]
        a = _arranged(imp, current, names, batch + left + contracted, sizes)
        b = _arranged(imp, x, other, batch + contracted + right, sizes)
        dims = [sizes[c] for c in batch]
        a = em.reshape(a, [*dims, _count(left, sizes), _count(contracted, sizes)])
        b = em.reshape(b, [*dims, _count(contracted, sizes), _count(right, sizes)])
        product = em.op("matmul", a, b)
        current = em.reshape(product, [sizes[c] for c in batch + left + right])
        current, names = _summed(imp, current, batch + left + right, keep)
    current, names = _summed(imp, current, names, set(output))
    missing = [c for c in output if c not in names]
    if missing:
        raise FrontendError(f"output letters {missing} of '{equation}' name no operand axis")
    return _arranged(imp, current, names, output, sizes)


@_converts("Einsum")
def _einsum(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    equation = attrs["equation"]
    equation = equation.decode() if isinstance(equation, bytes) else equation
    return einsum(imp, equation, [imp.tensor(v) for v in inputs])


def _count(names: list[str], sizes: dict[str, sympy.Expr]) -> sympy.Expr:
    return sympy.expand(sympy.Mul(*(sizes[c] for c in names)))


def _arranged(
    imp: _Importer, x: Any, names: list[str], order: list[str], sizes: dict[str, sympy.Expr]
) -> Any:
    """``x`` with its axes (named ``names``) in ``order``, broadcast to ``sizes``."""
    em = imp.em
    x = em.permute(x, [names.index(c) for c in order])
    return em.broadcast_to(x, [sizes[c] for c in order])


def _einsum_operand(
    imp: _Importer, x: Any, names: list[str], keep: set[str]
) -> tuple[Any, list[str]]:
    """One operand with its diagonals taken and its own letters summed out."""
    em = imp.em
    names = list(names)
    while len(set(names)) != len(names):
        letter = next(c for c in names if names.count(c) > 1)
        first = names.index(letter)
        second = names.index(letter, first + 1)
        rest = [a for a in range(len(names)) if a not in (first, second)]
        x = em.permute(x, [*rest, first, second])
        dims = list(em.dims(x))
        n = dims[-1]
        flat = em.reshape(x, [*dims[:-2], n * n])
        steps = em.op("arange", em.prim(0), em.prim(n), em.prim(1), dtype=dtypes.I64)
        diagonal = em.op("add", em.op("multiply", steps, em.full([], n, dtypes.I64)), steps)
        x = em.op("take", flat, diagonal, axis=len(dims) - 2)
        names = [names[a] for a in rest] + [letter]
    return _summed(imp, x, names, keep)


def _summed(imp: _Importer, x: Any, names: list[str], keep: set[str]) -> tuple[Any, list[str]]:
    """``x`` summed over its axes whose letters are not in ``keep``."""
    own = [a for a, c in enumerate(names) if c not in keep]
    if own:
        x = imp.em.op("sum", x, axis=own)
    return x, [c for c in names if c in keep]


# ------------------------------------------------------------------ data-dependent lengths


def _length(imp: _Importer, what: str) -> sympy.Expr:
    """A new symbolic variable: a length the values decide, bound by match_shape."""
    return imp.builder.variable(object(), what)


def nonzero(imp: _Importer, x: Any) -> Any:
    """The positions of the non-zero elements of x, ``[rank, count]`` (the count
    named)."""
    em = imp.em
    return em.match(em.op("nonzero", x), [em.ndim(x), _length(imp, "nonzero")])


@_converts("NonZero")
def _nonzero(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    if imp.em.ndim(x) == 0:
        raise Unsupported("a 0-d input")
    return nonzero(imp, x)


@_converts("Compress")
def _compress(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """The slices of x along ``axis`` (absent: the elements of the flattened x) where
    ``condition`` is true; a condition shorter than the axis leaves out the rest."""
    em, x = imp.em, imp.tensor(inputs[0])
    condition = imp.tensor(inputs[1])
    if em.ndim(condition) != 1:
        raise FrontendError(f"condition has type {condition.type}, expected a 1-D tensor")
    positions = nonzero(imp, em.cast(condition, dtypes.I1))
    positions = em.reshape(positions, [em.dims(positions)[1]])
    if "axis" not in attrs:
        return em.op("take", em.flatten(x), positions, axis=0)
    axis = _axis(attrs["axis"], em.ndim(x))
    return em.op("take", x, positions, axis=axis)


@_converts("Unique")
def _unique(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``relax.unique_all``: the distinct elements (or slices along ``axis``), sorted or
    in order of first occurrence, their first positions, the inverse and the counts."""
    em, x = imp.em, imp.tensor(inputs[0])
    props: dict[str, Any] = {}
    if "axis" in attrs:
        props["axis"] = _axis(attrs["axis"], em.ndim(x))
    if not _flag(attrs, "sorted", 1):
        props["sorted"] = False
    values, first, inverse, counts = em.items(em.op("unique_all", x, **props), 4)
    count = _length(imp, "unique")
    dims = [count] if "axis" not in attrs else list(em.dims(x))
    if "axis" in attrs:
        dims[props["axis"]] = count
    inverse_length = (
        em.dims(x)[props["axis"]] if "axis" in attrs else sympy.expand(math.prod(em.dims(x)))
    )
    return [
        em.match(values, dims),
        em.match(first, [count]),
        em.match(inverse, [inverse_length]),
        em.match(counts, [count]),
    ]


@_converts("NonMaxSuppression")
def _non_max_suppression(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    """``relax.non_max_suppression`` (the safety net), its number of rows named."""
    em = imp.em
    boxes, scores = imp.tensor(inputs[0]), imp.tensor(inputs[1])

    def given(index: int, default: float, dtype: Any) -> Any:
        value = _given(inputs, index)
        if value is None:
            return em.const(default, dtype)
        return em.cast(imp.tensor(value), dtype)

    limit = given(2, 0, dtypes.I64)
    iou = given(3, 0.0, dtypes.F32)
    score = given(4, float("-inf"), dtypes.F32)
    center = _flag(attrs, "center_point_box")
    rows = em.op(
        "non_max_suppression", boxes, scores, limit, iou, score, center_point_box=center or None
    )
    return em.match(rows, [_length(imp, "selected"), 3])


@_converts("Det")
def _det(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """The determinant of each trailing square matrix of a static size up to 3, by
    cofactor expansion (larger or symbolic sizes are refused: no relax LU yet)."""
    em, x = imp.em, imp.tensor(inputs[0])
    rank = em.ndim(x)
    if rank < 2:
        raise FrontendError(f"input has rank {rank}, expected at least 2")
    rows, columns = em.dims(x)[-2:]
    if not (rows.is_Integer and columns.is_Integer) or int(rows) > 3:
        raise Unsupported("a matrix larger than 3x3 or of a symbolic size")
    if rows != columns:
        raise FrontendError(f"the matrices are {rows}x{columns}, expected square ones")
    n = int(rows)
    entry = [
        [em.select(em.select(x, rank - 2, i), rank - 2, j) for j in range(n)] for i in range(n)
    ]

    def mul(*factors: Any) -> Any:
        product = factors[0]
        for f in factors[1:]:
            product = em.op("multiply", product, f)
        return product

    if n == 1:
        return entry[0][0]
    if n == 2:
        return em.op("subtract", mul(entry[0][0], entry[1][1]), mul(entry[0][1], entry[1][0]))
    total = None
    for j in range(3):
        minor = em.op(
            "subtract",
            mul(entry[1][(j + 1) % 3], entry[2][(j + 2) % 3]),
            mul(entry[1][(j + 2) % 3], entry[2][(j + 1) % 3]),
        )
        term = mul(entry[0][j], minor)
        total = term if total is None else em.op("add", total, term)
    return total


# ------------------------------------------------------------------ quantization

_QUANTIZED = {
    dtypes.I8: (-128, 127),
    dtypes.UI8: (0, 255),
    dtypes.I16: (-32768, 32767),
    dtypes.UI16: (0, 65535),
    dtypes.I32: (-(2**31), 2**31 - 1),
}
"""The integer types ONNX quantizes to, and their ranges."""


def _along(imp: _Importer, v: Any, x: Any, axis: int, block: int, what: str) -> Any:
    """A scale or zero point made to broadcast against x: as it is when it has one
    element, along ``axis`` when 1-D, and each of its entries repeated ``block`` times
    along ``axis`` when blocked (of x's rank)."""
    em = imp.em
    dims = list(em.dims(x))
    count = math.prod(int(d) for d in em.dims(v)) if all(d.is_Integer for d in em.dims(v)) else None
    if count != 1 or block:
        axis = _axis(axis, max(len(dims), 1))
    if block:
        if em.ndim(v) != len(dims):
            raise FrontendError(f"{what} has type {v.type}, expected one of rank {len(dims)}")
        steps = em.op("arange", em.prim(0), em.prim(dims[axis]), em.prim(1), dtype=dtypes.I64)
        blocks = em.op("divide", steps, em.scalar(block, steps))
        return em.op("take", v, blocks, axis=axis)
    if count == 1:
        return em.reshape(v, [])
    if em.ndim(v) != 1:
        raise FrontendError(
            f"{what} has type {v.type}, expected one value or one per entry of axis {axis}"
        )
    return em.reshape(v, [d if a == axis else 1 for a, d in enumerate(dims)])


def _quantization_axis(imp: _Importer, x: Any, attrs: dict) -> tuple[int, int]:
    """The (unchecked) ``axis`` and the ``block_size``: the axis matters only for a
    scale of more than one value."""
    block = attrs.get("block_size", 0)
    if block < 0:
        raise FrontendError(f"block_size is {block}, expected at least 0")
    return attrs.get("axis", 1), block


def quantize(imp: _Importer, x: Any, scale: Any, zero: Any | None, dtype: Any) -> Any:
    """round(x / scale) (halves to even) + zero, saturated to ``dtype``; computed in f32
    for f16 (onnxruntime)."""
    em = imp.em
    lo, hi = _QUANTIZED[dtype]
    wide = dtypes.F32 if em.dtype(x) == dtypes.F16 else em.dtype(x)
    x, scale = em.cast(x, wide), em.cast(scale, wide)
    value = em.op("round", em.op("divide", x, scale))
    if zero is not None:
        value = em.op("add", value, em.cast(zero, wide))
    return em.cast(em.clamp(value, float(lo), float(hi)), dtype)


@_converts("QuantizeLinear")
def _quantize_linear(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    """Per tensor, per axis or blocked; to the zero point's type (absent: ``output_dtype``,
    else u8), saturating."""
    em, x = imp.em, imp.tensor(inputs[0])
    axis, block = _quantization_axis(imp, x, attrs)
    scale = _along(imp, imp.tensor(inputs[1]), x, axis, block, "y_scale")
    given = _given(inputs, 2)
    zero = None if given is None else imp.tensor(given)
    if zero is not None:
        dtype = em.dtype(zero)
        zero = _along(imp, zero, x, axis, block, "y_zero_point")
    elif attrs.get("output_dtype"):
        dtype = dtypes.from_numpy(_cast_target(attrs["output_dtype"]))
    else:
        dtype = dtypes.UI8
    if dtype not in _QUANTIZED:
        raise Unsupported(f"quantizing to {dtypes.NAME_OF.get(dtype, dtype)}")
    if attrs.get("precision"):
        raise Unsupported("precision")
    return quantize(imp, x, scale, zero, dtype)


@_converts("DequantizeLinear")
def _dequantize_linear(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    """(x - zero) * scale in the scale's type (``output_dtype`` when given)."""
    em, x = imp.em, imp.tensor(inputs[0])
    if em.dtype(x) not in _QUANTIZED:
        raise Unsupported(f"dequantizing {dtypes.NAME_OF.get(em.dtype(x), em.dtype(x))}")
    axis, block = _quantization_axis(imp, x, attrs)
    scale = imp.tensor(inputs[1])
    dtype = em.dtype(scale)
    if attrs.get("output_dtype"):
        dtype = dtypes.from_numpy(_cast_target(attrs["output_dtype"]))
    scale = _along(imp, scale, x, axis, block, "x_scale")
    value = em.cast(x, dtype) if em.dtype(x) != dtypes.I32 else x
    given = _given(inputs, 2)
    if given is not None:
        zero = _along(imp, imp.tensor(given), x, axis, block, "x_zero_point")
        if em.dtype(x) == dtypes.I32:
            value = em.op("subtract", value, zero)  # exact before the rounding cast
        else:
            value = em.op("subtract", value, em.cast(zero, dtype))
    value = em.cast(value, dtype)
    return em.op("multiply", value, em.cast(scale, dtype))


def _widened(imp: _Importer, v: Any, zero: _Value, per: str) -> Any:
    """``v - zero`` in i32; a 1-D zero point is one per row (``per = "row"``) or column."""
    em = imp.em
    v = em.cast(v, dtypes.I32)
    if zero is None:
        return v
    z = em.cast(imp.tensor(zero), dtypes.I32)
    if em.ndim(z) == 1 and em.dims(z)[0] != 1:
        z = em.unsqueeze(z, [1]) if per == "row" else z
    elif em.ndim(z) >= 1:
        z = em.reshape(z, []) if all(d == 1 for d in em.dims(z)) else z
    return em.op("subtract", v, z)


@_converts("MatMulInteger")
def _matmul_integer(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """(A - a_zero_point) @ (B - b_zero_point) accumulated in i32."""
    em = imp.em
    a, b = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    a = _widened(imp, a, _given(inputs, 2), "row")
    b = _widened(imp, b, _given(inputs, 3), "column")
    return em.op("matmul", a, b)


@_converts("QLinearMatMul")
def _qlinear_matmul(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """The i32 product of the zero-point-shifted operands, scaled by
    ``a_scale * b_scale / y_scale`` and quantized to y's zero point's type."""
    em = imp.em
    a, b = imp.tensor(inputs[0]), imp.tensor(inputs[3])
    product = em.op(
        "matmul",
        _widened(imp, a, inputs[2], "row"),
        _widened(imp, b, inputs[5], "column"),
    )
    a_scale, b_scale, y_scale = (em.cast(imp.tensor(inputs[k]), dtypes.F32) for k in (1, 4, 6))
    zero = imp.tensor(inputs[7])
    scale = em.op("divide", y_scale, em.op("multiply", a_scale, b_scale))
    scaled = em.cast(product, dtypes.F32)
    scale = em.reshape(scale, []) if all(d == 1 for d in em.dims(scale)) else scale
    zero_value = em.reshape(zero, []) if all(d == 1 for d in em.dims(zero)) else zero
    return quantize(imp, scaled, scale, zero_value, em.dtype(zero))


@_converts("ConvInteger")
def _conv_integer(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``Conv`` of ``x - x_zero_point`` and ``w - w_zero_point`` (one per output channel
    or one for all) in i32, accumulated in i32."""
    em = imp.em
    x = _widened(imp, imp.tensor(inputs[0]), _given(inputs, 2), "tensor")
    w = em.cast(imp.tensor(inputs[1]), dtypes.I32)
    zero = _given(inputs, 3)
    if zero is not None:
        z = em.cast(imp.tensor(zero), dtypes.I32)
        if em.ndim(z) == 1 and em.dims(z)[0] != 1:
            z = em.reshape(z, [em.dims(z)[0], *([1] * (em.ndim(w) - 1))])
        elif em.ndim(z):
            z = em.reshape(z, [])
        w = em.op("subtract", w, z)
    return onnx_nn._conv(imp, node, [x, w], attrs)


@_converts("QLinearConv")
def _qlinear_conv(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """The i32 convolution of the zero-point-shifted operands plus the i32 bias, scaled
    by ``x_scale * w_scale / y_scale`` (w_scale one per output channel or one for all)
    and quantized to y's zero point's type."""
    em = imp.em
    accumulated = _conv_integer(imp, node, [inputs[0], inputs[3], inputs[2], inputs[5]], attrs)
    rank = em.ndim(accumulated)
    bias = _given(inputs, 8)
    if bias is not None:
        b = em.cast(imp.tensor(bias), dtypes.I32)
        accumulated = em.op(
            "add", accumulated, em.reshape(b, [1, em.dims(b)[0], *([1] * (rank - 2))])
        )
    x_scale, w_scale, y_scale = (em.cast(imp.tensor(inputs[k]), dtypes.F32) for k in (1, 4, 6))
    if em.ndim(w_scale) == 1 and em.dims(w_scale)[0] != 1:
        w_scale = em.reshape(w_scale, [1, em.dims(w_scale)[0], *([1] * (rank - 2))])
    scale = em.op("divide", y_scale, em.op("multiply", x_scale, w_scale))
    zero = imp.tensor(inputs[7])
    zero_value = em.reshape(zero, []) if all(d == 1 for d in em.dims(zero)) else zero
    return quantize(imp, em.cast(accumulated, dtypes.F32), scale, zero_value, em.dtype(zero))


# ------------------------------------------------------------------ refused by name

REFUSED_BY_REASON = {
    "nondeterministic: random numbers": (
        "RandomUniform", "RandomUniformLike", "RandomNormal", "RandomNormalLike",
        "Bernoulli", "Multinomial",
    ),
    "not numeric: strings": (
        "StringConcat", "StringNormalizer", "StringSplit", "RegexFullMatch",
        "TfIdfVectorizer",
    ),
    "sequences are not relax values": (
        "SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase",
        "SequenceInsert", "SequenceLength", "SplitToSequence", "ConcatFromSequence",
    ),
    "optionals are not relax values": ("Optional", "OptionalGetElement", "OptionalHasElement"),
    "complex spectra are not relax values": ("DFT", "STFT"),
    "not numeric: image decoding": ("ImageDecoder",),
}  # fmt: skip
"""Operators outside what relax computes, with the reason."""


def _refuse(reason: str) -> Any:
    def convert(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
        raise Unsupported(reason)

    return convert


for _reason, _names in REFUSED_BY_REASON.items():
    _converts(*_names)(_refuse(_reason))

REFUSED: list[str] = sorted(n for names in REFUSED_BY_REASON.values() for n in names)
"""The operators refused by name (they have a converter that says why)."""
