"""ONNX converters of tensor and math operators beyond the core set in
:mod:`xrelax.frontend.onnx`: indexing, scatter, sorting, data-dependent shapes,
quantization and element-wise math (registered on import)."""

from __future__ import annotations

import math
from typing import Any

import onnx
import sympy
from xdsl.dialects.builtin import StringAttr

from xrelax.dialects import dtypes, symbolic
from xrelax.frontend.common import FrontendError, Unsupported
from xrelax.frontend.onnx import (
    _axis,
    _canonical,
    _checked_indices,
    _converts,
    _flag,
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
