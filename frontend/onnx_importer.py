"""The ONNX model importer: validation, the walk over the graph (:class:`_Importer`),
the converter registry (:func:`_converts`) and the helpers converters share. The
converters are in :mod:`xrelax.frontend.onnx` and the ``onnx_*`` family modules, which
register themselves here; :func:`xrelax.frontend.onnx.from_onnx` imports them all.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import count
from os import PathLike
from typing import Any

import numpy as np
import onnx
import onnx.inliner
import sympy
from onnx import helper, numpy_helper
from xdsl.ir import Attribute, SSAValue
from xdsl.utils.exceptions import VerifyException

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.block_builder import BlockBuilder
from xrelax.frontend.common import (
    FrontendError,
    ImportedModel,
    Names,
    Unsupported,
    check_allocation,
)
from xrelax.frontend.emitter import Emitter
from xrelax.frontend.model_builder import ModelBuilder
from xrelax.frontend.onnx_graphs import with_outer_names
from xrelax.ops.runtime_attrs import TensorToShapeOp, runtime_attrs

_I64_MAX = 2**63 - 1
_I64_MIN = -(2**63)


@dataclass
class _Known:
    """A value known at import time: numbers, or sizes (an object array of sympy
    expressions); ``param`` is the parameter that holds an initializer."""

    array: np.ndarray
    param: str | None = None


@dataclass
class _Unrepresentable:
    """A value relax cannot hold (a string tensor): the nodes using it are unsupported."""

    what: str


_Value = SSAValue | _Known | _Unrepresentable | None
_Converter = Callable[["_Importer", onnx.NodeProto, list[_Value], dict[str, Any]], Any]
_CONVERTERS: dict[str, _Converter] = {}
_FOLDERS: dict[str, Callable[..., Any]] = {}

_SMALL = 64
"""Float values up to this many elements are computed at import time; larger ones
(weights) stay in the IR."""

_UNREPRESENTABLE = {
    getattr(onnx.TensorProto, name)
    for name in ("STRING", "INT4", "UINT4", "INT2", "UINT2", "FLOAT4E2M1")
    if hasattr(onnx.TensorProto, name)
}
"""Element types numpy holds as objects or packs below a byte: never folded."""

_FOLDED_ELEMENTS = 1 << 16
"""Import-time results of more elements are computed in the IR instead (a constant
that large in the IR text helps nobody)."""

_MAX_FUNCTION_DEPTH = 8
"""How deeply function bodies may expand into further function bodies."""

_MAX_LRN_HALF_WINDOW = 64
"""An LRN window over a symbolic number of channels sums at most this many on each
side (one slice per channel of the window)."""


def validated(model: onnx.ModelProto, path: str | PathLike[str] | None = None) -> onnx.ModelProto:
    """A copy of ``model``, which onnx's shape inference and checker accept, with
    nameless nodes named ``#<index>`` and model-local functions inlined; a
    :class:`FrontendError` naming the node otherwise. A model over protobuf's 2 GB is
    checked from its file, ``path``."""
    named = onnx.ModelProto()
    named.CopyFrom(model)
    for index, node in enumerate(named.graph.node):
        if not node.name:
            node.name = f"#{index}"
    _refuse_inference_crashes(named.graph)
    for output in model.graph.output:
        if output.type.HasField("tensor_type") and not output.type.tensor_type.elem_type:
            raise FrontendError(f"graph output '{output.name}' has element type UNDEFINED")
    try:
        if named.ByteSize() > onnx.checker.MAXIMUM_PROTOBUF:
            if path is None:
                raise FrontendError(
                    "the model is over 2 GB, which onnx checks only from its file: "
                    "import it from its path"
                )
            onnx.checker.check_model(os.fspath(path), full_check=True)
            return named
        inferred = onnx.shape_inference.infer_shapes(
            named, check_type=True, strict_mode=True, data_prop=True
        )
        # The checker requires a shape on each graph output, onnxruntime does not:
        # inference filled in those it could; the others claim nothing it contradicts.
        for output in inferred.graph.output:
            if output.type.HasField("tensor_type"):
                output.type.tensor_type.shape.SetInParent()
        onnx.checker.check_model(inferred, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as err:
        raise FrontendError(_validation_message(str(err))) from None
    except ValueError as err:  # onnx's own refusal of a field (an element type of 0)
        raise FrontendError(f"the model is not valid ONNX: {_first_line(str(err))}") from None
    # The inferred types only validate: the names inference makes up for unknown sizes
    # (unk__0) would hide the sizes relax deduces.
    return onnx.inliner.inline_local_functions(named) if named.functions else named


def _refuse_inference_crashes(graph: onnx.GraphProto) -> None:
    """Refuse the attributes on which onnx's shape inference (1.23) crashes the process
    instead of raising: a negative ``GatherND`` batch_dims, a ``LayerNormalization``
    axis outside int32, a ``Split`` num_outputs other than its number of outputs."""
    for node in graph.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        label = _label(node.name, node.op_type)
        if node.op_type == "GatherND" and attrs.get("batch_dims", 0) < 0:
            raise FrontendError(f"{label}: batch_dims is {attrs['batch_dims']}, expected >= 0")
        if node.op_type == "LayerNormalization" and abs(attrs.get("axis", -1)) >= 2**31:
            raise FrontendError(f"{label}: axis {attrs['axis']} is out of range")
        if node.op_type == "Split" and attrs.get("num_outputs", len(node.output)) != len(
            node.output
        ):
            raise FrontendError(
                f"{label}: num_outputs is {attrs['num_outputs']}, but the node has "
                f"{len(node.output)} outputs"
            )
        for value in attrs.values():
            for subgraph in value if isinstance(value, list) else [value]:
                if isinstance(subgraph, onnx.GraphProto):
                    _refuse_inference_crashes(subgraph)


_INFERENCE_NODE = re.compile(r"\(op_type:([\w.]+)(?:, node name: ([^)]*))?\):\s*(.*)", re.S)
_CHECKER_NODE = re.compile(r"Bad node spec for node\. Name: (.*?) OpType: ([\w.]+)")
_ERROR_KIND = re.compile(r"^(\s*\[\w+\]\s*)+")


def _validation_message(text: str) -> str:
    """One line from an onnx checker or shape inference error, naming the node."""
    found = _INFERENCE_NODE.search(text)
    if found:
        op_type, name, message = found.groups()
        return f"{_label(name or '', op_type)}: {_first_line(_ERROR_KIND.sub('', message))}"
    found = _CHECKER_NODE.search(text)
    if found:
        name, op_type = found.groups()
        return f"{_label(name, op_type)}: {_first_line(text)}"
    return f"the model is not valid ONNX: {_first_line(_ERROR_KIND.sub('', text))}"


def _first_line(text: str) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return _ERROR_KIND.sub("", line).strip()


def _label(name: str, op_type: str) -> str:
    """How errors name a node: ``node 'conv1' (Conv)``, or ``node #3 (Conv)`` for the
    fourth node of the graph when it has no name."""
    shown = name if re.fullmatch(r"#\d+", name) else f"'{name}'"
    return f"node {shown} ({op_type})"


def _converts(*names: str, fold: Callable[..., Any] | None = None) -> Callable:
    """Register the decorated function as the converter of the operators ``names``
    (one converter per operator: the families' modules are imported in any order)."""

    def register(fn: _Converter) -> _Converter:
        for name in names:
            assert name not in _CONVERTERS, f"two converters of {name}"
            _CONVERTERS[name] = fn
            if fold is not None:
                _FOLDERS[name] = fold
        return fn

    return register


_expansions = count()
"""Numbers the function bodies expanded, for the names of their values."""


class _Importer:
    def __init__(self, model: onnx.ModelProto) -> None:
        self.model = model
        self.graph = model.graph
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
        self.builder = ModelBuilder("ONNX")
        self.functions = Names(["main"])
        """The names of the functions that loops become."""
        self.env: dict[str, _Value] = {}
        self.em: Emitter

    def run(self) -> ImportedModel:
        if self.graph.sparse_initializer:
            name = self.graph.sparse_initializer[0].values.name
            raise FrontendError(f"sparse initializer '{name}': sparse tensors are not supported")
        initializers = {t.name: t for t in self.graph.initializer}
        used = {name for node in self.graph.node for name in node.input}
        used |= {value.name for value in self.graph.output}
        inputs = []
        for value in self.graph.input:
            if value.name in initializers:
                continue
            dims, dtype = self._input_type(value)
            inputs.append((value.name, self.builder.add_input(value.name, dims, dtype)))
        self.inputs = inputs
        self.declared = {v.name: v for v in self.graph.value_info}
        self.declared.update((v.name, v) for v in self.graph.output)
        self.known: dict[str, _Value] = {}
        for name, tensor in initializers.items():
            if name in used:
                self.known[name] = self._initializer(tensor)
        return self.builder.build(self._body)

    def _input_type(self, value: onnx.ValueInfoProto) -> tuple[list[sympy.Expr], Attribute]:
        if not value.type.HasField("tensor_type"):
            kind = value.type.WhichOneof("value") or "of no type"
            raise FrontendError(f"input '{value.name}' is a {kind.removesuffix('_type')}: "
                                "only tensors are supported")  # fmt: skip
        tensor_type = value.type.tensor_type
        if not tensor_type.HasField("shape"):
            raise FrontendError(f"input '{value.name}' has no shape: its rank must be known")
        dims: list[sympy.Expr] = []
        for axis, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value"):
                if dim.dim_value < 0:
                    raise FrontendError(
                        f"input '{value.name}': dimension {axis} is {dim.dim_value}, "
                        "expected a size >= 0"
                    )
                dims.append(sympy.Integer(dim.dim_value))
            elif dim.dim_param.isidentifier():
                dims.append(self.builder.variable(dim.dim_param, dim.dim_param))
            else:
                # No name, "?" or an expression: a dimension of its own.
                dims.append(self.builder.variable((value.name, axis), f"{value.name}_{axis}"))
        return dims, _dtype(tensor_type.elem_type, f"input '{value.name}'")

    def _initializer(self, tensor: onnx.TensorProto) -> _Value:
        """An initializer's value; one of more than one element of a type relax has
        becomes a weight parameter."""
        array = _tensor_array(tensor, f"initializer '{tensor.name}'")
        if isinstance(array, np.ndarray) and array.size > 1 and _relax_dtype(array.dtype):
            return _Known(array, self.builder.add_weight(tensor.name, array))
        return array if isinstance(array, _Unrepresentable) else _Known(array)

    def scalar(self, value: _Value, what: str) -> SSAValue:
        """A 0-d operand as a prim value when known at import time (a size, a number),
        else the run-time tensor."""
        if isinstance(value, _Known):
            (size,) = self.sizes(value, what)
            return self.em.prim(size)
        return self.tensor(value)

    # ------------------------------------------------------------------ body

    def _body(self, bb: BlockBuilder, params: dict[str, SSAValue]) -> list[SSAValue]:
        self.em = Emitter(bb)
        self.params = params
        for onnx_name, name in self.inputs:
            self.env[onnx_name] = params[name]
        self.env.update(self.known)
        self.env[""] = None
        for node in self.graph.node:
            self._convert(node, _label(node.name, node.op_type), self.opset, 0)
        if self.builder.unsupported:
            return []
        outputs = []
        for value in self.graph.output:
            result = self.env[value.name]
            if result is _POISON:
                return []
            try:
                outputs.append(self.tensor(result))
            except Unsupported as err:
                self.builder.unsupported[f"graph output '{value.name}' ({err.what})"] += 1
                return []
        return outputs

    def _convert(self, node: onnx.NodeProto, label: str, opset: int, depth: int) -> None:
        """Convert ``node`` (of default-domain opset ``opset``), binding its outputs;
        errors name it as ``label``."""
        op_type = (
            node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
        )
        for name in node.input:
            if name not in self.env:
                raise FrontendError(f"{label}: no value named '{name}'")
        inputs = [self.env[name] for name in node.input]
        results: Any = _POISON
        converter = _CONVERTERS.get(op_type)
        refused = next((v for v in inputs if isinstance(v, _Unrepresentable)), None)
        poisoned = any(v is _POISON for v in inputs)  # after an unsupported node
        if refused is not None:
            self.builder.unsupported[f"{op_type} ({refused.what})"] += 1
        elif converter is None:
            if not _has_function(node, opset) or depth >= _MAX_FUNCTION_DEPTH:
                self.builder.unsupported[op_type] += 1
            elif not poisoned:
                body = _function_body(node, opset, [self._type_proto(v) for v in inputs])
                if body is None:
                    self.builder.unsupported[op_type] += 1
                else:
                    self._expand(node, body, label, depth)
                    return
        elif not poisoned:
            attrs = {a.name: _attribute(a) for a in node.attribute}
            saved, self.opset = self.opset, opset
            try:
                results = self._run(op_type, converter, node, inputs, attrs)
            except Unsupported as err:
                self.builder.unsupported[f"{op_type} ({err.what})"] += 1
            except (FrontendError, RelaxError, ValueError, VerifyException) as err:
                raise FrontendError(f"{label}: {_first_line(str(err))}") from None
            finally:
                self.opset = saved
        if not isinstance(results, list):
            results = [results] + [_POISON] * (len(node.output) - 1)
        for name, value in zip(node.output, results, strict=False):
            if isinstance(value, SSAValue):
                try:
                    _check_allocated(value)
                except FrontendError as err:
                    raise FrontendError(f"{label}: {err}") from None
            if name:
                if isinstance(value, SSAValue) and name in self.declared:
                    try:
                        value = self._checked(value, self.declared[name])
                    except FrontendError as err:
                        raise FrontendError(f"{label}: {err}") from None
                self.env[name] = value

    def _expand(
        self, node: onnx.NodeProto, body: onnx.FunctionProto, label: str, depth: int
    ) -> None:
        """Convert ``node`` as the nodes of its function ``body``: formal inputs and
        outputs bound to the node's, attribute references to the node's attributes
        (or the schema's defaults), the other values renamed apart."""
        prefix = f"{node.output[0] if node.output else node.op_type}/fn{next(_expansions)}/"
        names = {formal: actual for formal, actual in zip(body.input, node.input, strict=False)}
        names.update((formal, "") for formal in body.input[len(node.input) :])
        names.update(
            (formal, actual or prefix + formal)
            for formal, actual in zip(body.output, node.output, strict=False)
        )
        attributes = _function_attributes(node, body)
        opset = next((o.version for o in body.opset_import if o.domain in ("", "ai.onnx")), 1)
        for inner in body.node:
            expanded = onnx.NodeProto()
            expanded.CopyFrom(inner)
            for index, name in enumerate(inner.input):
                expanded.input[index] = names.get(name, prefix + name) if name else ""
            for index, name in enumerate(inner.output):
                if name and name not in names:
                    names[name] = prefix + name
                expanded.output[index] = names.get(name, "")
            del expanded.attribute[:]
            for attr in inner.attribute:
                if attr.ref_attr_name:
                    if attr.ref_attr_name in attributes:
                        value = onnx.AttributeProto()
                        value.CopyFrom(attributes[attr.ref_attr_name])
                        value.name = attr.name
                        expanded.attribute.append(value)
                else:
                    rename = lambda name: names.get(name, prefix + name)  # noqa: E731
                    expanded.attribute.append(with_outer_names(attr, rename))
            inner_label = f"{label}, in its function body: {_label(inner.name, inner.op_type)}"
            if not inner.name:
                inner_label = f"{label}, in its function body: {inner.op_type}"
            self._convert(expanded, inner_label, opset, depth + 1)

    def _type_proto(self, value: _Value) -> onnx.TypeProto | None:
        """The ONNX type of a value (what a context-dependent function body needs): empty
        for an absent input, None when unknown."""
        if value is None:
            return onnx.TypeProto()
        if isinstance(value, _Known):
            array = _canonical(value.array)
            elem = helper.np_dtype_to_tensor_dtype(
                np.dtype(np.int64) if array.dtype == object else array.dtype
            )
            return helper.make_tensor_type_proto(elem, list(array.shape))
        if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
            dtype, dims = value.type.known_dtype, value.type.dims
            if dtype is None or dims is None:
                return None
            try:
                elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtypes.numpy_name(dtype)))
            except ValueError:
                return None
            shape = [int(d) if d.is_Integer else symbolic.format_expr(d) for d in dims]
            return helper.make_tensor_type_proto(elem, shape)
        return None

    def _checked(self, value: SSAValue, declared: onnx.ValueInfoProto) -> SSAValue:
        """``value`` with the shape the model declares for it (its ``value_info`` or graph
        output), when every dimension is a number or a name: relax's deduction and the
        model's claim must agree, or be checked at run time (``relax.match_shape``)."""
        if not isinstance(value.type, TensorType):
            return value
        type_ = declared.type.tensor_type
        if not declared.type.HasField("tensor_type") or not type_.HasField("shape"):
            return value
        dims: list[sympy.Expr] = []
        for dim in type_.shape.dim:
            if dim.HasField("dim_value"):
                dims.append(sympy.Integer(dim.dim_value))
            elif dim.dim_param.isidentifier():
                dims.append(self.builder.variable(dim.dim_param, dim.dim_param))
            else:
                return value
        if value.type.ndim is not None and value.type.ndim != len(dims):
            return value
        known = value.type.dims
        if known is not None and any(
            symbolic.prove_not_equal(a, b) for a, b in zip(known, dims, strict=True)
        ):
            raise FrontendError(
                f"'{declared.name}' has shape {symbolic.format_dims(known)}, but the model "
                f"declares {symbolic.format_dims(dims)}"
            )
        return self.em.match(value, dims)

    def _run(
        self,
        op_type: str,
        converter: _Converter,
        node: onnx.NodeProto,
        inputs: list[_Value],
        attrs: dict[str, Any],
    ) -> Any:
        fold = _FOLDERS.get(op_type)
        if fold is not None and all(_foldable(v) for v in inputs):
            arrays = [None if v is None else v.array for v in inputs]
            try:
                with np.errstate(all="ignore"):
                    return _Known(_canonical(np.asarray(fold(self, arrays, attrs))))
            except Unsupported:
                pass  # not at import time (a symbolic slice of a constant): in the IR
        return converter(self, node, inputs, attrs)

    # ------------------------------------------------------------------ values

    def tensor(self, value: _Value) -> SSAValue:
        """``value`` as a relax tensor (a parameter, a constant, or the value itself)."""
        if isinstance(value, SSAValue):
            return value
        if value is None:
            raise FrontendError("a required input is absent")
        if isinstance(value, _Unrepresentable):
            raise Unsupported(value.what)
        if value.param is not None:
            return self.params[value.param]
        array = value.array
        if array.dtype == object:
            return self.sizes_tensor(array)
        if _relax_dtype(array.dtype) is None:
            raise Unsupported(f"a {array.dtype} tensor")
        return self.em.const(array)

    def sizes_tensor(self, array: np.ndarray) -> SSAValue:
        """An i64 tensor of symbolic sizes (each a ``relax.full`` of a prim value)."""
        em = self.em
        if array.ndim == 0:
            return em.full([], symbolic.as_expr(array.item()), dtypes.I64)
        items = [em.full([1], symbolic.as_expr(e), dtypes.I64) for e in array.reshape(-1)]
        flat = items[0] if len(items) == 1 else em.op("concat", *items, axis=0)
        return em.reshape(flat, list(array.shape))

    def ints(self, value: _Value, what: str) -> list[int]:
        """An import-time list of integers (axes, starts, ...)."""
        array = self.sizes(value, what)
        if any(not e.is_Integer for e in array):
            raise Unsupported(f"a symbolic {what}")
        return [int(e) for e in array]

    def sizes(self, value: _Value, what: str) -> list[sympy.Expr]:
        """An import-time list of (symbolic) integers."""
        if not isinstance(value, _Known):
            raise Unsupported(f"a {what} computed at run time")
        array = np.asarray(value.array)
        if array.dtype != object and array.dtype.kind not in "iub":
            raise FrontendError(f"expected integers as {what}, got {array.dtype}")
        return [
            symbolic.as_expr(int(e)) if not isinstance(e, sympy.Expr) else e
            for e in array.reshape(-1).tolist()
        ]

    def dims(self, value: _Value) -> list[sympy.Expr]:
        """The (symbolic) shape of a value."""
        if isinstance(value, _Known):
            return [sympy.Integer(d) for d in value.array.shape]
        return list(self.em.dims(self.tensor(value)))


_POISON: Any = object()
"""The value of an unsupported node's outputs (and of everything using them)."""


def _attribute(attr: onnx.AttributeProto) -> Any:
    """An attribute's value, strings decoded."""
    value = helper.get_attribute_value(attr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list) and value and isinstance(value[0], bytes):
        return [v.decode("utf-8", "replace") for v in value]
    return value


def _schema(node: onnx.NodeProto, opset: int) -> onnx.defs.OpSchema | None:
    """The schema of ``node``'s default-domain operator at ``opset``, or None."""
    if node.domain not in ("", "ai.onnx"):
        return None
    try:
        return onnx.defs.get_schema(node.op_type, opset, "")
    except onnx.defs.SchemaError:
        return None


def _has_function(node: onnx.NodeProto, opset: int) -> bool:
    """Whether ONNX defines ``node``'s operator as a function of others at ``opset``."""
    schema = _schema(node, opset)
    versions = (
        []
        if schema is None
        else [*schema.function_opset_versions, *schema.context_dependent_function_opset_versions]
    )
    return any(v <= opset for v in versions)


def _function_body(
    node: onnx.NodeProto, opset: int, input_types: list[onnx.TypeProto | None]
) -> onnx.FunctionProto | None:
    """The function body ONNX defines ``node``'s operator by at ``opset`` (the newest
    version not after it), or None."""
    schema = _schema(node, opset)
    if schema is None:
        return None
    versions = [v for v in schema.function_opset_versions if v <= opset]
    if versions:
        body = schema.get_function_with_opset_version(max(versions))
    else:
        versions = [v for v in schema.context_dependent_function_opset_versions if v <= opset]
        if not versions or any(t is None for t in input_types):
            return None
        try:
            body = schema.get_context_dependent_function_with_opset_version(
                max(versions),
                node.SerializeToString(),
                [t.SerializeToString() for t in input_types],  # type: ignore[union-attr]
            )
        except Exception:  # noqa: BLE001 - onnx's builder refuses this node's types
            return None
    if not body:
        return None
    function = onnx.FunctionProto()
    function.ParseFromString(body if isinstance(body, bytes) else body.SerializeToString())
    return function if function.node else None


def _function_attributes(
    node: onnx.NodeProto, body: onnx.FunctionProto
) -> dict[str, onnx.AttributeProto]:
    """The attributes a function body may reference: the node's, then the defaults of
    the body and of the operator's schema."""
    attributes = {attr.name: attr for attr in body.attribute_proto}
    try:
        schema = onnx.defs.get_schema(node.op_type, max(o.version for o in body.opset_import))
        for name, attr in schema.attributes.items():
            if attr.default_value.type != onnx.AttributeProto.UNDEFINED:
                attributes.setdefault(name, attr.default_value)
    except (onnx.defs.SchemaError, ValueError):
        pass
    attributes.update((attr.name, attr) for attr in node.attribute)
    return attributes


def _foldable(value: _Value) -> bool:
    if value is None:
        return True
    if not isinstance(value, _Known):
        return False
    array = value.array
    return array.dtype == object or array.dtype.kind in "iub" or array.size <= _SMALL


def _canonical(array: np.ndarray) -> np.ndarray:
    """Object arrays of sizes become int64 when every entry is a number."""
    if array.dtype != object:
        return array
    values = [symbolic.as_expr(e) if isinstance(e, sympy.Expr | int) else e for e in array.flat]
    if all(isinstance(v, sympy.Expr) and v.is_Integer for v in values):
        return np.array([int(v) for v in values], np.int64).reshape(array.shape)
    result = np.empty(array.shape, object)
    for index, value in zip(np.ndindex(array.shape), values, strict=True):
        result[index] = value
    return result


def _relax_dtype(dtype: np.dtype) -> Attribute | None:
    try:
        return dtypes.from_numpy(dtype)
    except (ValueError, TypeError):
        return None


def _dtype(elem_type: int, what: str) -> Attribute:
    try:
        dtype = _relax_dtype(helper.tensor_dtype_to_np_dtype(elem_type))
    except (ValueError, KeyError, TypeError):
        dtype = None
    if dtype is None:
        name = onnx.TensorProto.DataType.Name(elem_type)
        reason = next((r for prefix, r in _LACKED.items() if name.startswith(prefix)), "")
        raise FrontendError(f"{what} has element type {name}, which relax lacks{reason}")
    return dtype


_LACKED = {
    "FLOAT8": " (8-bit floats have no numpy arithmetic the kernels could use)",
    "FLOAT4": " (4-bit floats are packed below a byte)",
    "INT4": " (4-bit integers are packed below a byte)",
    "UINT4": " (4-bit integers are packed below a byte)",
    "INT2": " (2-bit integers are packed below a byte)",
    "UINT2": " (2-bit integers are packed below a byte)",
    "STRING": " (relax tensors hold numbers)",
    "COMPLEX": " (relax tensors hold real numbers)",
}
"""Why relax lacks an ONNX element type, by the start of its name."""


def _sizes_array(dims: Sequence[sympy.Expr]) -> np.ndarray:
    array = np.empty(len(dims), object)
    for index, dim in enumerate(dims):
        array[index] = dim
    return _canonical(array)


def _given(inputs: list[_Value], index: int) -> _Value:
    """Input ``index``, or None when the node leaves it out (absent or empty name)."""
    return inputs[index] if index < len(inputs) else None


def _axis(axis: int, rank: int, what: str = "axis") -> int:
    """``axis`` of a tensor of ``rank``, in ``[-rank, rank - 1]``, made non-negative."""
    if not -rank <= axis < rank:
        raise FrontendError(f"{what} {axis} is out of range: expected [{-rank}, {rank - 1}]")
    return axis + rank if axis < 0 else axis


def _axes(axes: Sequence[int], rank: int, what: str = "axes") -> list[int]:
    """Distinct axes of a tensor of ``rank``, made non-negative."""
    result = [_axis(a, rank, what[:-1] if what.endswith("s") else what) for a in axes]
    if len(set(result)) != len(result):
        raise FrontendError(f"{what} {list(axes)} name an axis twice")
    return result


def _axes_input(
    imp: _Importer, inputs: list[_Value], attrs: dict[str, Any], index: int
) -> list[int] | None:
    """Axes from attribute ``axes`` (older opsets) or input ``index`` (newer); None:
    absent."""
    if "axes" in attrs:
        return list(attrs["axes"])
    given = _given(inputs, index)
    if given is None:
        return None
    return imp.ints(given, "axes")


def _string(attrs: dict[str, Any], name: str, default: str, allowed: Sequence[str]) -> str:
    """String attribute ``name``, one of ``allowed``."""
    value = attrs.get(name, default)
    if value not in allowed:
        shown = ", ".join(f"'{a}'" for a in allowed)
        raise FrontendError(f"attribute {name} is '{value}', expected one of {shown}")
    return value


def _flag(attrs: dict[str, Any], name: str, default: int = 0) -> bool:
    """Integer attribute ``name`` that must be 0 or 1."""
    value = attrs.get(name, default)
    if value not in (0, 1):
        raise FrontendError(f"attribute {name} is {value}, expected 0 or 1")
    return bool(value)


def _checked_elements(shape: Sequence[int], dtype: Any, what: str) -> list[int]:
    """``shape`` as ints, refused when a dimension is negative or the VM would not
    allocate a tensor of it."""
    shape = [int(d) for d in shape]
    if any(d < 0 for d in shape):
        raise FrontendError(f"{what} would have the negative shape {shape}")
    check_allocation(math.prod(shape), dtype, f"{what} of shape {shape}")
    return shape


def _folded_shape(shape: Sequence[int], dtype: Any, what: str) -> list[int]:
    """The shape of a fold's result, checked as :func:`_checked_elements` does; a
    result of more than :data:`_FOLDED_ELEMENTS` is computed in the IR instead."""
    shape = _checked_elements(shape, dtype, what)
    if math.prod(shape) > _FOLDED_ELEMENTS:
        raise Unsupported("a large result")
    return shape


def _check_allocated(value: SSAValue) -> None:
    """Refuse a result whose static shape the VM would not allocate."""
    type_ = value.type
    if not isinstance(type_, TensorType) or type_.dims is None or type_.known_dtype is None:
        return
    static = _static(type_.dims)
    if static is not None and math.prod(static) > _FOLDED_ELEMENTS:
        dtype = np.dtype(dtypes.numpy_name(type_.known_dtype))
        check_allocation(math.prod(static), dtype, f"the result of shape {static}")


def _static(dims: Sequence[sympy.Expr]) -> list[int] | None:
    """``dims`` as ints when each is a number."""
    return [int(d) for d in dims] if all(d.is_Integer for d in dims) else None


def _broadcast_known(arrays: Sequence[np.ndarray], what: str) -> tuple[int, ...]:
    """The broadcast shape of folded operands (ONNX's multidirectional rule), checked
    against the VM's allocation bound."""
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shown = " and ".join(str(list(a.shape)) for a in arrays)
        raise FrontendError(f"shapes {shown} do not broadcast") from None
    dtype = next((a.dtype for a in arrays if a.dtype != object), np.dtype(np.int64))
    _folded_shape(shape, dtype, what)
    return shape


# ============================================================================ run-time values
# An attribute input the graph computes (axes, k, pads, starts, ...) reaches its
# operator at run time: as an attribute of ``relax.runtime_attrs`` (the safety net,
# whose type is the rank; the shape is matched after it), or, where the result shape
# is the value (sizes, repeats, a reshape target), as symbolic variables that
# ``relax.tensor_to_shape`` and ``relax.match_shape`` bind, so kernels keep compiling.


def _run_time_ints(imp: _Importer, value: _Value, what: str, scalar: bool = False) -> SSAValue:
    """An integer input known only at run time as the i64 tensor ``runtime_attrs``
    reads: 0-d for one integer (``scalar``), else 1-D of a known length."""
    em = imp.em
    t = imp.tensor(value)
    dtype = em.dtype(t)
    if dtype not in (dtypes.I8, dtypes.I16, dtypes.I32, dtypes.I64):
        raise FrontendError(f"expected integers as {what}, got {dtypes.NAME_OF[dtype]}")
    t = em.cast(t, dtypes.I64)
    dims = em.dims(t)
    if len(dims) > 1 or any(not d.is_Integer for d in dims):
        raise Unsupported(f"a {what} of unknown length computed at run time")
    if scalar:
        if math.prod(int(d) for d in dims) != 1:
            raise FrontendError(f"{what} has {math.prod(int(d) for d in dims)} values, expected 1")
        return em.reshape(t, [])
    return em.reshape(t, [math.prod(int(d) for d in dims)])


def _with_run_time_attrs(
    imp: _Importer, op_name: str, operands: Sequence[SSAValue], given: dict, **static: Any
) -> SSAValue:
    """``relax.runtime_attrs`` of ``op_name`` with the attributes ``given`` as tensors."""
    return imp.em.bb.emit(runtime_attrs(op_name, operands, given, **static))


def _named(imp: _Importer, value: SSAValue, dims: Sequence[sympy.Expr | None]) -> SSAValue:
    """``value`` of rank-only type matched to ``dims``; a None dimension becomes a new
    symbolic variable bound when it runs."""
    named = [d if d is not None else imp.builder.variable(object(), "d") for d in dims]
    return imp.em.match(value, named)


def _sizes_value(imp: _Importer, sizes: Sequence[int | sympy.Expr]) -> SSAValue:
    """A 1-D i64 tensor of (symbolic) sizes."""
    array = _sizes_array([symbolic.as_expr(s) for s in sizes])
    if array.dtype == object:
        return imp.sizes_tensor(array)
    return imp.em.const(array.astype(np.int64))


def _run_time_sizes(imp: _Importer, value: _Value | SSAValue, what: str) -> list[sympy.Expr]:
    """Sizes known only at run time (each non-negative) as new symbolic variables."""
    t = value if isinstance(value, SSAValue) else _run_time_ints(imp, value, what)
    length = int(imp.em.dims(t)[0])
    shape = imp.em.bb.emit(TensorToShapeOp.build_deduced([t]))
    names = [imp.builder.variable(object(), "s") for _ in range(length)]
    imp.em.bb.match_shape(shape, names)
    return names


# ============================================================================ converters


def _unary(relax_name: str) -> _Converter:
    return lambda imp, node, inputs, attrs: imp.em.op(relax_name, imp.tensor(inputs[0]))


for _onnx_name, _relax_name in {
    "Relu": "relu",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Exp": "exp",
    "Log": "log",
    "Sqrt": "sqrt",
    "Erf": "erf",
    "Sin": "sin",
    "Cos": "cos",
}.items():
    _converts(_onnx_name)(_unary(_relax_name))


def _cast_target(to: int) -> np.dtype:
    try:
        target = helper.tensor_dtype_to_np_dtype(to)
    except (KeyError, ValueError, TypeError):
        target = None
    if target is None or _relax_dtype(target) is None:
        raise Unsupported(f"to={onnx.TensorProto.DataType.Name(to)}")
    return target


# ------------------------------------------------------------------ sizes and layout


def _tensor_array(tensor: onnx.TensorProto, what: str) -> np.ndarray | _Unrepresentable:
    """The value of a ``TensorProto`` (an initializer, a ``Constant``), its data checked
    against its dims and element type first."""
    try:
        np_dtype = helper.tensor_dtype_to_np_dtype(tensor.data_type)
    except (KeyError, ValueError, TypeError):
        raise FrontendError(f"{what} has no valid element type") from None
    type_name = onnx.TensorProto.DataType.Name(tensor.data_type)
    dims = list(tensor.dims)
    if any(d < 0 for d in dims):
        raise FrontendError(f"{what} has a negative dimension: {dims}")
    if tensor.data_type in _UNREPRESENTABLE:
        return _Unrepresentable(f"a {type_name} tensor")
    elements = math.prod(dims)
    if tensor.HasField("raw_data") or tensor.data_location == onnx.TensorProto.EXTERNAL:
        expected = elements * np_dtype.itemsize
        if len(tensor.raw_data) != expected:
            raise FrontendError(
                f"{what} of shape {dims} ({type_name}) needs {expected} bytes of data, "
                f"has {len(tensor.raw_data)}"
            )
    check_allocation(elements, np_dtype, f"{what} of shape {dims}")
    try:
        return numpy_helper.to_array(tensor)
    except ValueError:
        raise FrontendError(f"{what}: its data does not fill its shape {dims}") from None


def _checked_indices(indices: np.ndarray, size: sympy.Expr, axis: int) -> np.ndarray:
    """Import-time indices into an axis of ``size``, in ``[-size, size - 1]`` and
    counted from the end when negative; into a symbolic size, as they are (the
    gathers check them at run time)."""
    indices = indices.astype(np.int64)
    if not size.is_Integer:
        return indices
    size = int(size)
    bad = (indices < -size) | (indices >= size)
    if bad.any():
        raise FrontendError(
            f"index {int(indices[bad].flat[0])} into axis {axis} is out of range: "
            f"expected [{-size}, {size - 1}]"
        )
    return np.where(indices < 0, indices + size, indices)
