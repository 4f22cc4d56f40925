"""Import a ``torch.export`` ExportedProgram into relax.

```python
ep = torch.export.export(model.eval(), (x,), dynamic_shapes={"x": {0: Dim("batch")}})
imported = xrelax.frontend.from_exported_program(ep)
vm = xrelax.VirtualMachine(xrelax.compile(imported.module))
y = vm["main"](x.numpy(), **imported.params)
```

* Dynamic dimensions become relax variables, named after their ``Dim`` while the
  program is in memory (a program loaded from ``.pt2`` has lost those names: ``s0``,
  ``s1``, ... in order of first appearance). The relations torch proved between them
  (one ``Dim`` shared by two inputs, a derived ``2 * batch``) become symbolic
  expressions in the parameter types, checked at run time; every intermediate shape
  torch knows is checked against the relax deduction. Ranges (``min``, ``max``) are
  not checked.
* ATen operators map onto relax operators or compositions of them
  (:mod:`xrelax.frontend.emitter`); :data:`SUPPORTED` lists them. An operator without a
  converter is decomposed by torch's own decomposition table first
  (:mod:`.torch_decompose`); what still cannot be imported is reported as the user's
  operator. The program ``torch.export.export`` returns imports as it is: its in-place
  operators and the views they write through are made functional while importing
  (:mod:`.torch_inplace`). A write to a model input makes the input's new value a
  result (before the model's outputs, :attr:`ImportedModel.written_inputs`); a write to
  a parameter or a buffer is reported as unsupported. Its ``run_decompositions()`` form
  imports too.
* Parameters, buffers and tensor constants become parameters after the inputs, named
  after their ``state_dict`` keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
import torch
from torch.export import ExportedProgram
from xdsl.ir import SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic

# The converter families (torch_control, _nn, _reduce, _tensor) register on import.
from xrelax.frontend import (  # noqa: F401
    torch_control,
    torch_decompose,
    torch_inplace,
    torch_nn,
    torch_reduce,
    torch_tensor,
)
from xrelax.frontend.common import ImportedModel, Unsupported
from xrelax.frontend.emitter import Emitter
from xrelax.frontend.torch_importer import (
    CONVERTERS,
    Converter,
    Importer,
    batched,
    binary_operands,
    converter_key,
    converts,
    items_used,
    needs_decomposition,
    reduce_converter,
    reduced_axes,
    target_name,
)
from xrelax.frontend.torch_reduce import indices_of_extreme, pad_like_torch


def from_exported_program(program: ExportedProgram) -> ImportedModel:
    """Import ``program`` (from ``torch.export.export``); raises
    :class:`~xrelax.frontend.UnsupportedOperatorsError` listing every unsupported
    operator, or :class:`~xrelax.frontend.FrontendError`. Operators without a converter
    are decomposed by torch first (:mod:`.torch_decompose`)."""
    return Importer(torch_decompose.decompose(program, needs_decomposition), program).run()


@converts("aten.clone", "aten.contiguous", "aten.alias", "aten.detach", "aten.lift_fresh_copy")
def _identity(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return a["self"]


@converts(
    "aten.dropout", "aten.feature_dropout", "aten.alpha_dropout", "aten.feature_alpha_dropout"
)
def _dropout(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    if a["train"]:
        raise Unsupported("train=True")
    return a["input"]


@converts("aten.gelu", half_in_float=True)
def _gelu(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    if a["approximate"] == "tanh":
        return imp.em.gelu_tanh(a["self"])
    return imp.em.op("gelu", a["self"])


@converts("aten.hardtanh", "aten.clamp")
def _clamp(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    low = a.get("min", a.get("min_val"))
    high = a.get("max", a.get("max_val"))
    return imp.em.clamp(a["self"], low, high)


@converts("aten.hardsigmoid", half_in_float=True)
def _hardsigmoid(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.hard_sigmoid(a["self"])


@converts("aten.hardswish", half_in_float=True)
def _hardswish(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.hard_swish(a["self"])


@converts("aten.relu6")
def _relu6(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.clamp(a["self"], 0.0, 6.0)


@converts("aten.leaky_relu")
def _leaky_relu(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    positive = em.op("greater", x, em.scalar(0, x))
    return em.op("where", positive, x, em.op("multiply", x, em.scalar(a["negative_slope"], x)))


@converts("aten._safe_softmax", half_in_float=True)
def _safe_softmax(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.safe_softmax(imp.cast(a["self"], imp.out_dtype(node)), a["dim"])


@converts(
    "aten.softmax", "aten._softmax", "aten.log_softmax", "aten._log_softmax", half_in_float=True
)
def _softmax(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = imp.cast(a["self"], imp.out_dtype(node))
    name = "log_softmax" if "log" in converter_key(node) else "softmax"
    return imp.em.op(name, x, axis=a["dim"])


_BINARY = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "pow": "power",
    "maximum": "maximum",
    "minimum": "minimum",
}
_COMPARE = {
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
}


_BOOLEAN = {
    "add": "bitwise_or",
    "multiply": "bitwise_and",
    "maximum": "bitwise_or",
    "minimum": "bitwise_and",
}
"""The arithmetic of booleans in torch: ``True + True`` is ``True``."""


def _binary(relax_name: str) -> Converter:
    def convert(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
        em, dtype = imp.em, imp.out_dtype(node)
        lhs, rhs = a["self"], a["other"] if "other" in a else a["exponent"]
        if a.get("rounding_mode") is not None:
            raise Unsupported(f"rounding_mode={a['rounding_mode']!r}")
        lhs, rhs = binary_operands(imp, lhs, rhs, dtype)
        if a.get("alpha") not in (None, 1):
            scale = "bitwise_and" if dtypes.is_bool(dtype) else "multiply"
            rhs = em.op(scale, rhs, em.operand(a["alpha"], rhs))
        if dtypes.is_bool(dtype) and relax_name in _BOOLEAN:
            return em.op(_BOOLEAN[relax_name], lhs, rhs)
        if relax_name == "power" and not (dtypes.is_float(dtype) or dtypes.is_bool(dtype)):
            return _integer_power(em, lhs, rhs)
        return em.op(relax_name, lhs, rhs)

    return convert


def _integer_power(em: Emitter, base: SSAValue, exponent: SSAValue) -> SSAValue:
    """torch's power of integers: a negative exponent gives 0, except for a base of 1
    (1) and -1 (1 or -1 as the exponent is even or odd)."""
    zero, one = em.scalar(0, base), em.scalar(1, base)
    positive = em.op("power", base, em.op("maximum", exponent, zero))
    odd = em.op("not_equal", em.op("fmod", exponent, em.scalar(2, base)), zero)
    minus_one = em.op("negative", one)
    unit = em.op("where", em.op("equal", base, one), one, zero)
    unit = em.op(
        "where", em.op("equal", base, minus_one), em.op("where", odd, minus_one, one), unit
    )
    return em.op("where", em.op("less", exponent, zero), unit, positive)


def _compare(relax_name: str) -> Converter:
    def convert(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
        # torch compares in the type both operands promote to
        dtype = imp.promoted(node, "self", "other")
        return imp.em.op(relax_name, *binary_operands(imp, a["self"], a["other"], dtype))

    return convert


for _aten, _relax in _BINARY.items():
    converts(f"aten.{_aten}")(_binary(_relax))
for _aten, _relax in _COMPARE.items():
    converts(f"aten.{_aten}")(_compare(_relax))


@converts("aten.rsub")
def _rsub(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return _binary("subtract")(
        imp, node, {"self": a["other"], "other": a["self"], "alpha": a["alpha"]}
    )


@converts("aten.where")
def _where(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, dtype = imp.em, imp.out_dtype(node)
    x, y = a["self"], a["other"]
    like = x if isinstance(x, SSAValue) else y
    x = em.operand(x, like) if isinstance(like, SSAValue) else em.const(x, dtype)
    y = em.operand(y, x)
    return em.op("where", a["condition"], imp.cast(x, dtype), imp.cast(y, dtype))


@converts("aten.logical_not")
def _logical_not(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = imp.cast(a["self"], dtypes.I1)
    return imp.em.op("equal", x, imp.em.const(False, dtypes.I1))


@converts("aten.any")
def _any(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em = imp.em
    x = imp.cast(a["self"], dtypes.I32)
    axes = reduced_axes(em, x, a.get("dim"))
    total = em.op("max", x, axis=axes, keepdims=bool(a.get("keepdim", False)))
    return em.op("not_equal", total, em.scalar(0, total))


# ------------------------------------------------------------------ linear algebra


@converts("aten.linear", half_in_float=True)
def _linear(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.linear(a["input"], a["weight"], a["bias"])


@converts("aten.matmul", "aten.mm", "aten.bmm", half_in_float=True)
def _matmul(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    rhs = a["other"] if "other" in a else a["mat2"]
    return imp.em.op("matmul", a["self"], rhs)


@converts("aten.addmm", half_in_float=True)
def _addmm(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.gemm(a["mat1"], a["mat2"], a["self"], alpha=a["alpha"], beta=a["beta"])


# ------------------------------------------------------------------ layout


@converts("aten.t", "aten.numpy_T")
def _t(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = a["self"]
    return imp.em.permute(x, list(reversed(range(imp.em.ndim(x)))))


@converts("aten.mT", "aten.mH", "aten.adjoint")
def _matrix_transpose(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # the conjugate of a real matrix is itself
    return imp.em.transpose(a["self"], -2, -1)


@converts("aten.transpose", "aten.swapaxes")
def _transpose(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    first, second = (a["dim0"], a["dim1"]) if "dim0" in a else (a["axis0"], a["axis1"])
    return imp.em.transpose(a["self"], first, second)


@converts("aten.permute")
def _permute(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.permute(a["self"], a["dims"])


@converts(
    "aten.view",
    "aten.reshape",
    "aten._unsafe_view",
    "aten.view_copy",
    "aten.flatten",
    "aten.unflatten",
    "aten.unsqueeze",
    "aten.squeeze",
)
def _reshape(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"] if "self" in a else a["input"]
    key = converter_key(node)
    if key == "aten.unsqueeze":
        return em.unsqueeze(x, [a["dim"]])
    if key == "aten.squeeze":
        dims = a.get("dim", a.get("dims"))
        return em.squeeze(x, None if dims is None else [dims] if isinstance(dims, int) else dims)
    return em.reshape(x, imp.out_dims(node))


@converts("aten.expand", "aten.expand_copy", "aten.broadcast_to", "aten.expand_as")
def _expand(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.broadcast_to(a["self"], imp.out_dims(node))


@converts("aten.select")
def _select(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    index = a["index"]
    if not isinstance(index, int):
        raise Unsupported("a symbolic index")
    return imp.em.select(a["self"], a["dim"], index)


@converts("aten.slice")
def _slice(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    start = a["start"] if a["start"] is not None else 0
    end = a["end"] if a["end"] is not None else 2**63 - 1
    if isinstance(start, SSAValue) or isinstance(end, SSAValue):
        raise Unsupported("a bound computed at run time")
    return imp.em.slice(a["self"], a["dim"], start, end, a["step"])


@converts("aten.cat", "aten.concat", "aten.concatenate")
def _cat(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em = imp.em
    tensors = a["tensors"]
    # torch's legacy rule: a 1-d tensor of size 0 is skipped beside tensors of another rank.
    kept = [t for t in tensors if not _empty_vector(em, t)]
    if len(kept) < len(tensors) and any(em.ndim(t) != 1 for t in kept):
        tensors = kept
    tensors = [imp.cast(t, imp.out_dtype(node)) for t in tensors]
    if len(tensors) == 1:
        return tensors[0]
    return em.op("concat", *tensors, axis=a["dim"])


def _empty_vector(em: Emitter, x: SSAValue) -> bool:
    dims = em.type_of(x).dims
    return dims is not None and len(dims) == 1 and dims[0] == 0


@converts("aten.stack")
def _stack(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    tensors = [imp.em.unsqueeze(t, [a["dim"]]) for t in a["tensors"]]
    return imp.em.op("concat", *tensors, axis=a["dim"])


@converts("aten.split", "aten.split_with_sizes", "aten.chunk", "aten.unbind")
def _split(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x, dim = imp.em, a["self"], a.get("dim", 0)
    pieces = node.meta["val"]
    unbind = converter_key(node) == "aten.unbind"
    # The pieces of unbind have lost the axis: each is one element of it.
    sizes = [1] * len(pieces) if unbind else [p.shape[dim] for p in pieces]
    if not all(isinstance(s, int) for s in sizes):
        raise Unsupported("a split of a symbolic dimension")
    if len(sizes) == 1:
        items = [x]
    else:
        indices = [int(i) for i in np.cumsum(sizes)[:-1]]
        parts = em.op("split", x, indices_or_sections=indices, axis=dim)
        items = em.items(parts, len(sizes))
    if unbind:
        items = [em.squeeze(item, [dim]) for item in items]
    return items


@converts("aten.roll")
def _roll(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    shifts, dims = list(a["shifts"]), list(a["dims"])
    if not all(isinstance(v, int) for v in shifts):
        raise Unsupported("a symbolic shift")
    if not dims:
        flat = em.reshape(x, [-1])
        return em.reshape(em.roll(flat, shifts, [0]), em.dims(x))
    return em.roll(x, shifts, dims)


@converts("aten.constant_pad_nd", "aten.pad")
def _pad(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    if a.get("mode", "constant") != "constant":
        if a["mode"] not in ("reflect", "replicate", "circular"):
            raise Unsupported(f"mode={a['mode']!r}")
        return pad_like_torch(imp, x, list(a["pad"]), a["mode"])
    value = a["value"] or 0
    pad = list(a["pad"])
    if not all(isinstance(v, int) for v in pad):
        raise Unsupported("a symbolic pad width")
    # torch lists (before, after) pairs from the last axis backwards.
    pairs = [(pad[k], pad[k + 1]) for k in range(0, len(pad), 2)]
    widths = [(0, 0)] * (em.ndim(x) - len(pairs)) + list(reversed(pairs))
    return em.pad(x, widths, value)


@converts("aten.as_strided")
def _as_strided(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """``as_strided`` that reads the contiguous storage of its input as a permutation of
    a reshape of (a slice of) it, as decompositions emit it (``adaptive_avg_pool2d``)."""
    em, x = imp.em, a["self"]
    source = node.args[0].meta.get("val")
    if not isinstance(source, torch.Tensor) or source.storage_offset() != 0:
        raise Unsupported("an input that does not start its storage")
    dims = em.dims(x)
    if list(torch_inplace.concrete(source.stride())) != _contiguous(
        torch_inplace.concrete(source.shape)
    ):
        raise Unsupported("an input that is not contiguous")
    sizes, strides = _sizes(imp, a["size"]), _sizes(imp, a["stride"])
    offset = _sizes(imp, [a["storage_offset"] or 0])[0]
    order = sorted(
        (k for k, size in enumerate(sizes) if size != 1),
        key=lambda k: torch_inplace.concrete([a["stride"][k]])[0],
        reverse=True,
    )
    expected = sympy.Integer(1)
    for k in reversed(order):
        if sympy.expand(strides[k] - expected) != 0:
            raise Unsupported("strides that overlap or leave gaps")
        expected = sympy.expand(expected * sizes[k])
    total = symbolic.simplify(sympy.Mul(*dims))
    flat = em.reshape(x, [total])
    if offset != 0 or sympy.expand(expected - total) != 0:
        if not (offset.is_Integer and expected.is_Integer):
            raise Unsupported("a symbolic part of the storage")
        flat = em.slice(flat, 0, int(offset), int(offset + expected))
    ordered = em.reshape(flat, [sizes[k] for k in order])
    permuted = em.permute(ordered, [order.index(k) for k in sorted(order)])
    return em.reshape(permuted, sizes)


def _sizes(imp: Importer, values: Sequence[Any]) -> list[sympy.Expr]:
    """A ``SymInt[]`` argument as relax expressions (size nodes are converted already)."""
    return [v if isinstance(v, sympy.Expr) else imp._expr(v) for v in values]


def _contiguous(shape: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return list(reversed(strides))


@converts("aten.index_select")
def _index_select(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # torch counts indices from the start only (a negative one is an error), and reads a
    # 0-d tensor or index as one of one element.
    em, x, index = imp.em, a["self"], a["index"]
    x = em.reshape(x, [1]) if em.ndim(x) == 0 else x
    index = em.reshape(index, [1]) if em.ndim(index) == 0 else index
    taken = em.op("take", x, index, axis=a["dim"] % em.ndim(x), negative_indices=False)
    return em.reshape(taken, imp.out_dims(node))


@converts(
    "torch.ops.higher_order.wrap_with_set_grad_enabled",
    "torch.ops.higher_order.wrap_with_autocast",
)
def _wrapped_subgraph(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # A region torch.export keeps under grad or autocast mode (Llama's rotary embedding):
    # in inference both are no-ops, so the body is inlined.
    args = [a[str(i)] for i in range(len(a))]
    body = next(i for i, v in enumerate(args) if isinstance(v, torch.fx.GraphModule))
    if "autocast" in target_name(node) and args[2]:
        raise Unsupported("autocast enabled")
    return imp.inline(args[body], args[body + 1 :])


@converts("operator.getitem")
def _getitem(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    item = a["0"][a["1"]]
    if isinstance(item, _Unconverted) and node.users:
        raise Unsupported(item.what)
    return item


@converts("aten.tril", "aten.triu")
def _triangle(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    name = converter_key(node).removeprefix("aten.")
    return imp.em.op(name, a["self"], k=a["diagonal"] or None)


for _aten, _relax in {"mean": "mean", "sum": "sum"}.items():
    converts(f"aten.{_aten}", half_in_float=True)(reduce_converter(_relax))
for _aten, _relax in {"amax": "max", "amin": "min"}.items():
    converts(f"aten.{_aten}")(reduce_converter(_relax))


@converts("aten.batch_norm", "aten._native_batch_norm_legit_no_training", half_in_float=True)
def _batch_norm(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em = imp.em
    if a.get("training"):
        raise Unsupported("training=True")
    y = em.batch_norm(
        a["input"], a["running_mean"], a["running_var"], a["weight"], a["bias"], a["eps"]
    )
    if converter_key(node) == "aten.batch_norm":
        return y
    # In inference the saved mean and inverse deviation are empty.
    return [y, *(em.full([0], 0, em.dtype(y)) if k in items_used(node) else None for k in (1, 2))]


@converts("aten.layer_norm", "aten.native_layer_norm", half_in_float=True)
def _layer_norm(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["input"]
    ndim = em.ndim(x)
    axes = list(range(ndim - len(a["normalized_shape"]), ndim))
    y = em.layer_norm(x, axes, a["weight"], a["bias"], a["eps"])
    if converter_key(node) == "aten.layer_norm":
        return y
    if not {1, 2} & items_used(node):
        return [y, None, None]
    mean = em.op("mean", x, axis=axes, keepdims=True)
    centered = em.op("subtract", x, mean)
    variance = em.op("mean", em.op("multiply", centered, centered), axis=axes, keepdims=True)
    return [y, mean, em.op("rsqrt", em.op("add", variance, em.scalar(a["eps"], variance)))]


_GATES = {"lstm": "ifgo", "gru": "rzn"}
"""The gate blocks of torch's recurrent weights, in order (one for a plain RNN)."""


class _Unconverted:
    """A result of an operator that is not converted: using it is unsupported."""

    def __init__(self, what: str) -> None:
        self.what = what


def _pair(values: Any) -> list[int]:
    """A 2-d pooling attribute as two values (torch allows one for both)."""
    values = [values] if isinstance(values, int) else list(values)
    return values * 2 if len(values) == 1 else values


@converts("aten.adaptive_avg_pool2d", "aten._adaptive_avg_pool2d", half_in_float=True)
def _adaptive_avg_pool2d(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    output = _pair(a["output_size"])
    if not all(isinstance(o, int) or o is None for o in output):
        raise Unsupported("a symbolic output size")
    return batched(imp.em, a["self"], 4, lambda x: imp.em.adaptive_avg_pool2d(x, output))


@converts("aten.scaled_dot_product_attention", half_in_float=True)
def _attention(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    if a["is_causal"] and a["attn_mask"] is not None:
        raise Unsupported("attn_mask with is_causal=True")
    if a["dropout_p"]:
        raise Unsupported("dropout_p > 0")
    if a.get("enable_gqa"):
        raise Unsupported("enable_gqa=True")
    q, k = a["query"], a["key"]
    mask = imp.em.causal_mask(q, k) if a["is_causal"] else a["attn_mask"]
    return imp.em.attention(q, k, a["value"], mask, a["scale"])


@converts("aten.embedding")
def _embedding(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # a negative index is an error in torch
    return imp.em.op("take", a["weight"], a["indices"], axis=0, negative_indices=False)


@converts("aten.lstm", "aten.gru", "aten.rnn_tanh", "aten.rnn_relu", half_in_float=True)
def _recurrent(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["input"]
    cell = converter_key(node).removeprefix("aten.")
    if node.target._overloadname != "input":
        raise Unsupported("packed sequences")
    if a["train"] and a["dropout"]:
        raise Unsupported("dropout in training mode")
    directions = 2 if a["bidirectional"] else 1
    per_direction = 4 if a["has_biases"] else 2
    params = list(a["params"])
    if len(params) != a["num_layers"] * directions * per_direction:
        raise Unsupported("projections (proj_size)")
    initial = list(a["hx"]) if cell == "lstm" else [a["hx"]]
    if a["batch_first"]:
        x = em.transpose(x, 0, 1)
    finals: list[list[SSAValue]] = [[] for _ in initial]
    for layer in range(a["num_layers"]):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            first = index * per_direction
            weights = params[first : first + per_direction] + [None] * (4 - per_direction)
            state = [em.select(s, 0, index) for s in initial]
            steps, final = em.recurrent_layer(
                cell, x, state, weights, _GATES.get(cell, "h"), reverse=direction == 1
            )
            outputs.append(em.op("concat", *(em.unsqueeze(h, [0]) for h in steps), axis=0))
            for kept, value in zip(finals, final, strict=True):
                kept.append(em.unsqueeze(value, [0]))
        x = outputs[0] if directions == 1 else em.op("concat", *outputs, axis=2)
    if a["batch_first"]:
        x = em.transpose(x, 0, 1)
    return [x, *(em.op("concat", *kept, axis=0) if len(kept) > 1 else kept[0] for kept in finals)]


# ------------------------------------------------------------------ element types, creation


@converts("aten._to_copy", "aten.to", "aten.type_as")
def _to(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.cast(a["self"], imp.out_dtype(node))


@converts("aten.full_like", "aten.zeros_like", "aten.ones_like")
def _full_like(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, dtype = imp.em, imp.out_dtype(node)
    key = converter_key(node)
    fill = {"aten.zeros_like": 0, "aten.ones_like": 1}.get(key, a.get("fill_value"))
    if not isinstance(fill, int | float | bool):
        raise Unsupported("a symbolic fill value")
    return em.op("full", em.shape(imp.out_dims(node)), em.const(fill, dtype))


# ------------------------------------------------------------------ sizes as values, masks


def _size_list(sizes: Sequence[Any]) -> list[sympy.Expr]:
    """A ``SymInt[]`` argument (ints, and sizes already relax expressions)."""
    return [symbolic.as_expr(s) for s in sizes]


@converts("aten.arange")
def _arange(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    bounds = [a.get("start", 0), a["end"], a.get("step", 1)]
    if any(isinstance(b, SSAValue) for b in bounds):
        raise Unsupported("a bound computed at run time")
    if any(isinstance(b, float) and not b.is_integer() for b in bounds):
        raise Unsupported("fractional bounds")
    start, end, step = (imp.em.prim(int(b) if isinstance(b, float) else b) for b in bounds)
    return imp.em.op("arange", start, end, step, dtype=imp.out_dtype(node))


@converts("aten.fmod", "aten.remainder")
def _fmod(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, dtype = imp.em, imp.out_dtype(node)
    lhs, rhs = a["self"], a["other"]
    if not isinstance(lhs, SSAValue):
        lhs = em.full([], lhs, dtype)
    lhs = imp.cast(lhs, dtype)
    rhs = imp.cast(em.operand(rhs, lhs), dtype)
    if converter_key(node) == "aten.fmod":
        return em.op("fmod", lhs, rhs)
    return em.remainder(lhs, rhs)


_BITWISE = {
    "__and__": "bitwise_and",
    "bitwise_and": "bitwise_and",
    "logical_and": "bitwise_and",
    "__or__": "bitwise_or",
    "bitwise_or": "bitwise_or",
    "logical_or": "bitwise_or",
    "__xor__": "bitwise_xor",
    "bitwise_xor": "bitwise_xor",
    "logical_xor": "bitwise_xor",
}


@converts(*(f"aten.{name}" for name in _BITWISE))
def _bitwise(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, name = imp.em, converter_key(node).removeprefix("aten.")
    lhs, rhs = a["self"], a["other"]
    dtype = dtypes.I1 if name.startswith("logical") else imp.out_dtype(node)
    if not isinstance(lhs, SSAValue):
        lhs = em.full([], lhs, dtype)
    lhs = imp.cast(lhs, dtype)
    return em.op(_BITWISE[name], lhs, imp.cast(em.operand(rhs, lhs), dtype))


@converts("aten.bitwise_not")
def _bitwise_not(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = a["self"]
    if dtypes.is_bool(imp.em.dtype(x)):
        return imp.em.op("equal", x, imp.em.const(False, dtypes.I1))
    return imp.em.op("bitwise_xor", x, imp.em.scalar(dtypes.all_ones(imp.em.dtype(x)), x))


@converts("aten.copy")
def _copy(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    src = imp.cast(a["src"], imp.out_dtype(node))
    return imp.em.broadcast_to(src, imp.out_dims(node))


@converts("aten.fill", "aten.zero")
def _fill(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return _filled(imp, node, a.get("value", 0))


@converts(
    "aten.zeros",
    "aten.ones",
    "aten.full",
    "aten.empty",
    "aten.new_zeros",
    "aten.new_ones",
    "aten.new_full",
    "aten.new_empty",
    "aten.scalar_tensor",
)
def _create(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    key = converter_key(node).removeprefix("aten.").removeprefix("new_")
    fill = {"zeros": 0, "ones": 1, "empty": 0}.get(key)
    if fill is None:
        fill = a["s"] if key == "scalar_tensor" else a["fill_value"]
    return _filled(imp, node, fill)


def _filled(imp: Importer, node: torch.fx.Node, fill: Any) -> SSAValue:
    """A tensor of the node's shape and element type, every element ``fill`` (a number,
    a symbolic size: a prim value, or a 0-d tensor)."""
    em, dtype, dims = imp.em, imp.out_dtype(node), imp.out_dims(node)
    if isinstance(fill, SSAValue):
        return em.broadcast_to(imp.cast(fill, dtype), dims)
    return em.full(dims, fill, dtype)


@converts("aten.masked_fill")
def _masked_fill(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    value = a["value"]
    value = imp.cast(value, em.dtype(x)) if isinstance(value, SSAValue) else em.operand(value, x)
    return em.op("where", a["mask"], value, x)


@converts("aten.index")
def _index(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.index(a["self"], a["indices"])


@converts("aten.gather")
def _gather(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # torch counts indices from the start only (a negative one is an error), and reads a
    # 0-d tensor as one of one element.
    em, x, index = imp.em, a["self"], a["index"]
    if em.ndim(x) == 0:
        x, index = em.reshape(x, [1]), em.reshape(index, [-1])
    gathered = em.op("gather_elements", x, index, axis=a["dim"], negative_indices=False)
    return em.reshape(gathered, imp.out_dims(node))


@converts("aten.take_along_dim")
def _take_along_dim(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # x and indices broadcast against each other except along dim, where, unlike in
    # gather, a negative index counts from the end; without dim, both are flattened and
    # gathered from (a negative index is an error).
    em, x, indices, dim = imp.em, a["self"], a["indices"], a["dim"]
    if dim is None:
        flat = [em.reshape(x, [-1]), em.reshape(indices, [-1])]
        return em.op("gather_elements", *flat, axis=0, negative_indices=False)
    dims = imp.out_dims(node)
    dim %= len(dims)
    sizes = [*dims[:dim], em.dims(x)[dim], *dims[dim + 1 :]]
    x, indices = em.broadcast_to(x, sizes), em.broadcast_to(indices, dims)
    return em.op("gather_elements", x, indices, axis=dim)


@converts("aten.cumsum", half_in_float=True)
def _cumsum(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = imp.cast(a["self"], imp.out_dtype(node))
    if imp.em.ndim(x) == 0:  # torch's dimension 0 (or -1) of a 0-d tensor
        return x
    return imp.em.op("cumsum", x, axis=a["dim"])


@converts("aten.diff")
def _diff(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x, axis = imp.em, a["self"], a["dim"]
    pieces = [p for p in (a["prepend"], x, a["append"]) if p is not None]
    if len(pieces) > 1:
        x = em.op("concat", *pieces, axis=axis)
    axis %= em.ndim(x)
    for _ in range(a["n"]):
        # x[1:] and x[:-1] are both one shorter; matching them to that says so where
        # the clamped lengths (n - min(1, n), max(n - 1, 0)) are not provably equal.
        dims = list(em.dims(x))
        dims[axis] = symbolic.smax(dims[axis] - 1, 0)
        later = em.match(em.slice(x, axis, 1, 2**63 - 1), dims)
        earlier = em.match(em.slice(x, axis, 0, -1), dims)
        if dtypes.is_bool(em.dtype(x)):
            x = em.op("not_equal", later, earlier)
        else:
            x = em.op("subtract", later, earlier)
    return x


@converts("aten.min", "aten.max")
def _min_max(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    name = converter_key(node).removeprefix("aten.")
    if "other" in a:
        return _binary(f"{name}imum")(imp, node, a)
    if "dim" not in a:
        return imp.em.op(name, a["self"])
    x = a["self"]
    values = imp.em.op(name, x, axis=reduced_axes(imp.em, x, a["dim"]), keepdims=bool(a["keepdim"]))
    return [values, indices_of_extreme(imp, x, name, a["dim"], bool(a["keepdim"]))]


@converts("aten.repeat")
def _repeat(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.tile(a["self"], _size_list(a["repeats"]))


def _supported() -> list[str]:
    return sorted(CONVERTERS)


SUPPORTED: list[str] = _supported()
"""The ATen operators (overload packets) and Python operators the importer converts;
operators on sizes (``aten.sym_size``, ``operator.mul`` of sizes, ...) are computed
symbolically, and run-time assertions are dropped."""
