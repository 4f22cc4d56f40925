"""Import an ONNX model into relax.

```python
imported = xrelax.frontend.from_onnx("model.onnx")
vm = xrelax.VirtualMachine(xrelax.compile(imported.module))
y = vm["main"](x, **imported.params)
```

* A ``dim_param`` of a graph input (``batch``) becomes the relax variable of that name;
  an input dimension with neither a value nor a name gets a fresh variable.
* Initializers with more than one element become parameters after the inputs, named
  after the initializer; one-element initializers become constants.
* Computations on sizes (``Shape``, ``Gather``, ``Concat``, ``Slice``, arithmetic, ...)
  run at import time on symbolic values, so a ``Reshape`` whose target shape the graph
  computes from ``Shape`` gets a symbolic shape, as it would in torch.
* :data:`SUPPORTED` lists the operators (default domain).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import Any

import numpy as np
import onnx
import sympy
from onnx import helper, numpy_helper
from xdsl.ir import Attribute, SSAValue

from xrelax.dialects import dtypes, symbolic
from xrelax.dialects.block_builder import BlockBuilder
from xrelax.dialects.relax import RelaxError, TensorType
from xrelax.frontend.common import FrontendError, ImportedModel, ModelBuilder, Unsupported
from xrelax.frontend.emitter import Emitter

_I64_MAX = 2**63 - 1


@dataclass
class _Known:
    """A value known at import time: numbers, or sizes (an object array of sympy
    expressions); ``param`` is the parameter that holds an initializer."""

    array: np.ndarray
    param: str | None = None


_Value = SSAValue | _Known | None
_Converter = Callable[["_Importer", onnx.NodeProto, list[_Value], dict[str, Any]], Any]
_CONVERTERS: dict[str, _Converter] = {}
_FOLDERS: dict[str, Callable[..., Any]] = {}

_SMALL = 64
"""Float values up to this many elements are computed at import time; larger ones
(weights) stay in the IR."""


def from_onnx(model: onnx.ModelProto | str | PathLike[str]) -> ImportedModel:
    """Import an ONNX model (a ``ModelProto`` or a path); raises
    :class:`~xrelax.frontend.UnsupportedOperatorsError` listing every unsupported
    operator, or :class:`~xrelax.frontend.FrontendError`."""
    if not isinstance(model, onnx.ModelProto):
        from xrelax.frontend.model_files import load_onnx_model

        model = load_onnx_model(model)
    return _Importer(model).run()


def _converts(*names: str, fold: Callable[..., Any] | None = None) -> Callable:
    def register(fn: _Converter) -> _Converter:
        for name in names:
            _CONVERTERS[name] = fn
            if fold is not None:
                _FOLDERS[name] = fold
        return fn

    return register


class _Importer:
    def __init__(self, model: onnx.ModelProto) -> None:
        self.model = model
        self.graph = model.graph
        self.opset = next(
            (o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13
        )
        self.builder = ModelBuilder("ONNX")
        self.env: dict[str, _Value] = {}
        self.em: Emitter

    def run(self) -> ImportedModel:
        initializers = {t.name: numpy_helper.to_array(t) for t in self.graph.initializer}
        for node in self.graph.node:
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    raise FrontendError(f"node '{node.name}' ({node.op_type}) has a subgraph")
        inputs = []
        for value in self.graph.input:
            if value.name in initializers:
                continue
            dims, dtype = self._input_type(value)
            inputs.append((value.name, self.builder.add_input(value.name, dims, dtype)))
        self.inputs = inputs
        self.declared = {v.name: v for v in self.graph.value_info}
        self.known: dict[str, _Known] = {}
        for name, array in initializers.items():
            if array.size > 1:
                self.known[name] = _Known(array, self.builder.add_weight(name, array))
            else:
                self.known[name] = _Known(array)
        return self.builder.build(self._body)

    def _input_type(self, value: onnx.ValueInfoProto) -> tuple[list[sympy.Expr], Attribute]:
        tensor_type = value.type.tensor_type
        if not value.type.HasField("tensor_type") or not tensor_type.HasField("shape"):
            raise FrontendError(f"input '{value.name}' is not a tensor of known rank")
        dims: list[sympy.Expr] = []
        for axis, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value"):
                dims.append(sympy.Integer(dim.dim_value))
            elif dim.dim_param and dim.dim_param.isidentifier():
                dims.append(self.builder.variable(dim.dim_param, dim.dim_param))
            else:
                key = dim.dim_param or (value.name, axis)
                dims.append(self.builder.variable(key, f"{value.name}_{axis}"))
        return dims, _dtype(tensor_type.elem_type, f"input '{value.name}'")

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
            self._convert(node)
        if self.builder.unsupported:
            return []
        outputs = []
        for value in self.graph.output:
            result = self.env[value.name]
            if result is _POISON:
                return []
            outputs.append(self.tensor(result))
        return outputs

    def _convert(self, node: onnx.NodeProto) -> None:
        op_type = (
            node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
        )
        inputs = [self.env.get(name, _POISON) for name in node.input]
        for name in node.input:
            if name not in self.env:
                raise FrontendError(f"node '{node.name}' ({op_type}): no value named '{name}'")
        results: Any = _POISON
        converter = _CONVERTERS.get(op_type)
        if converter is None:
            self.builder.unsupported[op_type] += 1
        elif not any(v is _POISON for v in inputs):
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            try:
                results = self._run(op_type, converter, node, inputs, attrs)
            except Unsupported as err:
                self.builder.unsupported[f"{op_type} ({err.what})"] += 1
            except (FrontendError, RelaxError, ValueError) as err:
                where = f"node '{node.name}' ({op_type})" if node.name else op_type
                raise FrontendError(f"{where}: {err}") from None
        if not isinstance(results, list):
            results = [results] + [_POISON] * (len(node.output) - 1)
        for name, value in zip(node.output, results, strict=False):
            if name:
                if isinstance(value, SSAValue) and name in self.declared:
                    value = self._checked(value, self.declared[name])
                self.env[name] = value

    def _checked(self, value: SSAValue, declared: onnx.ValueInfoProto) -> SSAValue:
        """``value`` with the shape the model declares for it (its ``value_info``), when
        every dimension is a number or a name: relax's deduction and the exporter's claim
        must agree, or be checked at run time (``relax.match_shape``)."""
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
        if value.param is not None:
            return self.params[value.param]
        array = value.array
        if array.dtype == object:
            return self.sizes_tensor(array)
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
        """An import-time list of (symbolic) sizes."""
        if not isinstance(value, _Known):
            raise Unsupported(f"a {what} computed at run time")
        return [
            symbolic.as_expr(int(e)) if not isinstance(e, sympy.Expr) else e
            for e in np.asarray(value.array).reshape(-1).tolist()
        ]


_POISON: Any = object()
"""The value of an unsupported node's outputs (and of everything using them)."""


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


def _dtype(elem_type: int, what: str) -> Attribute:
    try:
        return dtypes.from_numpy(helper.tensor_dtype_to_np_dtype(elem_type))
    except (ValueError, KeyError, TypeError):
        name = onnx.TensorProto.DataType.Name(elem_type)
        raise FrontendError(f"{what} has element type {name}, which relax lacks") from None


def _sizes_array(dims: Sequence[sympy.Expr]) -> np.ndarray:
    array = np.empty(len(dims), object)
    for index, dim in enumerate(dims):
        array[index] = dim
    return _canonical(array)


def _axes(imp: _Importer, inputs: list[_Value], attrs: dict[str, Any], index: int) -> Any:
    """Axes from attribute ``axes`` (older opsets) or input ``index`` (newer); None: absent."""
    if "axes" in attrs:
        return list(attrs["axes"])
    if len(inputs) > index and inputs[index] is not None:
        return imp.ints(inputs[index], "axes")
    return None


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
    "Abs": "abs",
    "Erf": "erf",
    "Sin": "sin",
    "Cos": "cos",
}.items():
    _converts(_onnx_name)(_unary(_relax_name))


@_converts("IsNaN", fold=lambda imp, a, attrs: np.isnan(a[0]))
def _isnan(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.op("isnan", imp.tensor(inputs[0]))


@_converts("Neg", fold=lambda imp, a, attrs: -a[0])
def _neg(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.op("negative", imp.tensor(inputs[0]))


@_converts("Identity", fold=lambda imp, a, attrs: a[0])
def _identity(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return inputs[0]


@_converts("Dropout")
def _dropout(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    if len(node.output) > 1 and node.output[1]:
        raise Unsupported("the mask output")
    return inputs[0]


@_converts("Gelu")
def _gelu(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    if attrs.get("approximate", b"none") in (b"tanh", "tanh"):
        return imp.em.gelu_tanh(x)
    return imp.em.op("gelu", x)


@_converts("Reciprocal")
def _reciprocal(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.op("divide", imp.em.scalar(1.0, x), x)


@_converts("HardSigmoid")
def _hard_sigmoid(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.hard_sigmoid(x, attrs.get("alpha", 0.2), attrs.get("beta", 0.5))


@_converts("HardSwish")
def _hard_swish(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.hard_swish(imp.tensor(inputs[0]))


@_converts("Clip")
def _clip(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    low, high = attrs.get("min"), attrs.get("max")
    if len(inputs) > 1 and inputs[1] is not None:
        low = imp.tensor(inputs[1])
    if len(inputs) > 2 and inputs[2] is not None:
        high = imp.tensor(inputs[2])
    return imp.em.clamp(x, low, high)


def _fold_divide(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    lhs, rhs = np.broadcast_arrays(a[0], a[1])
    if lhs.dtype.kind == "f" or rhs.dtype.kind == "f":
        return lhs / rhs
    result = np.empty(lhs.shape, object)
    for index in np.ndindex(lhs.shape):
        result[index] = symbolic.floordiv(symbolic.as_expr(_int(lhs[index])), _int(rhs[index]))
    return result


def _int(value: Any) -> Any:
    return value if isinstance(value, sympy.Expr) else int(value)


_BINARY: dict[str, tuple[str, Callable[..., Any]]] = {
    "Add": ("add", lambda imp, a, attrs: a[0] + a[1]),
    "Sub": ("subtract", lambda imp, a, attrs: a[0] - a[1]),
    "Mul": ("multiply", lambda imp, a, attrs: a[0] * a[1]),
    "Div": ("divide", _fold_divide),
    "Pow": ("power", lambda imp, a, attrs: a[0] ** a[1]),
    "Equal": ("equal", lambda imp, a, attrs: np.equal(a[0], a[1]).astype(bool)),
    "Less": ("less", lambda imp, a, attrs: np.less(a[0], a[1])),
    "LessOrEqual": ("less_equal", lambda imp, a, attrs: np.less_equal(a[0], a[1])),
    "Greater": ("greater", lambda imp, a, attrs: np.greater(a[0], a[1])),
    "GreaterOrEqual": ("greater_equal", lambda imp, a, attrs: np.greater_equal(a[0], a[1])),
}


def _binary(relax_name: str) -> _Converter:
    def convert(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
        return imp.em.op(relax_name, imp.tensor(inputs[0]), imp.tensor(inputs[1]))

    return convert


for _onnx_name, (_relax_name, _fold) in _BINARY.items():
    _converts(_onnx_name, fold=_fold)(_binary(_relax_name))


def _variadic(relax_name: str) -> _Converter:
    def convert(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
        result = imp.tensor(inputs[0])
        for value in inputs[1:]:
            result = imp.em.op(relax_name, result, imp.tensor(value))
        return result

    return convert


_converts("Max", fold=lambda imp, a, attrs: np.maximum.reduce(np.broadcast_arrays(*a)))(
    _variadic("maximum")
)
_converts("Min", fold=lambda imp, a, attrs: np.minimum.reduce(np.broadcast_arrays(*a)))(
    _variadic("minimum")
)
_converts("Sum")(_variadic("add"))
_converts("And", fold=lambda imp, a, attrs: np.logical_and(a[0], a[1]))(_binary("bitwise_and"))
_converts("Or", fold=lambda imp, a, attrs: np.logical_or(a[0], a[1]))(_binary("bitwise_or"))
_converts("Xor", fold=lambda imp, a, attrs: np.logical_xor(a[0], a[1]))(_binary("bitwise_xor"))


def _fold_mod(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    if a[0].dtype == object or a[1].dtype == object:
        raise Unsupported("a symbolic Mod")
    return np.fmod(a[0], a[1]) if attrs.get("fmod", 0) else np.mod(a[0], a[1])


@_converts("Mod", fold=_fold_mod)
def _mod(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    a, b = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    return imp.em.op("fmod", a, b) if attrs.get("fmod", 0) else imp.em.remainder(a, b)


@_converts("Not", fold=lambda imp, a, attrs: np.logical_not(a[0]))
def _not(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.op("equal", x, imp.em.const(False, dtypes.I1))


@_converts("Where", fold=lambda imp, a, attrs: np.where(a[0], a[1], a[2]))
def _where(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    cond, x, y = (imp.tensor(v) for v in inputs)
    return imp.em.op("where", cond, x, y)


@_converts("Cast", fold=lambda imp, a, attrs: _cast_known(a[0], attrs["to"]))
def _cast(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    dtype = _dtype(attrs["to"], "Cast target")
    return x if imp.em.dtype(x) == dtype else imp.em.op("astype", x, dtype=dtype)


def _fold_cast_like(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    return _cast_known(a[0], helper.np_dtype_to_tensor_dtype(a[1].dtype))


@_converts("CastLike", fold=_fold_cast_like)
def _cast_like(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x, like = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    dtype = imp.em.dtype(like)
    return x if imp.em.dtype(x) == dtype else imp.em.op("astype", x, dtype=dtype)


def _cast_known(array: np.ndarray, to: int) -> np.ndarray:
    target = helper.tensor_dtype_to_np_dtype(to)
    if array.dtype == object:
        if target.kind in "iu":
            return array
        array = _canonical(array)
        if array.dtype == object:
            raise Unsupported("a symbolic size as a number")  # cast in the IR instead
    return array.astype(target)


# ------------------------------------------------------------------ linear algebra


@_converts("MatMul")
def _matmul(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.op("matmul", imp.tensor(inputs[0]), imp.tensor(inputs[1]))


@_converts("Gemm")
def _gemm(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    c = imp.tensor(inputs[2]) if len(inputs) > 2 and inputs[2] is not None else None
    return imp.em.gemm(
        imp.tensor(inputs[0]),
        imp.tensor(inputs[1]),
        c,
        alpha=attrs.get("alpha", 1.0),
        beta=attrs.get("beta", 1.0),
        trans_a=bool(attrs.get("transA", 0)),
        trans_b=bool(attrs.get("transB", 0)),
    )


# ------------------------------------------------------------------ sizes and layout


@_converts("Constant")
def _constant(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    if "value" in attrs:
        return _Known(numpy_helper.to_array(attrs["value"]))
    for key, dtype in (
        ("value_float", np.float32),
        ("value_floats", np.float32),
        ("value_int", np.int64),
        ("value_ints", np.int64),
    ):
        if key in attrs:
            return _Known(np.asarray(attrs[key], dtype))
    raise Unsupported(f"attribute {next(iter(attrs), 'none')}")


@_converts("Shape")
def _shape(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    value = inputs[0]
    dims = (
        imp.em.dims(value)
        if isinstance(value, SSAValue)
        else [sympy.Integer(d) for d in value.array.shape]
    )
    rank = len(dims)
    start = attrs.get("start", 0)
    end = attrs.get("end", rank)
    start, end = (max(0, min(rank, p + rank if p < 0 else p)) for p in (start, end))
    return _Known(_sizes_array(dims[start:end]))


@_converts("Size")
def _size(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    value = inputs[0]
    if isinstance(value, _Known):
        return _Known(np.asarray(value.array.size, np.int64))
    total = symbolic.simplify(sympy.Mul(*imp.em.dims(value)))
    return _Known(_canonical(np.asarray(total, object)))


def _fold_gather(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    return np.take(a[0], a[1].astype(np.int64), axis=attrs.get("axis", 0))


@_converts("Gather", fold=_fold_gather)
def _gather(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    axis = attrs.get("axis", 0)
    indices = inputs[1]
    if isinstance(indices, _Known) and indices.array.ndim == 0:
        index = int(indices.array)
        if index < 0:
            size = em.dims(x)[axis]
            if not size.is_Integer:
                raise Unsupported("a negative index into a symbolic dimension")
            index += int(size)
        return em.select(x, axis, index)
    return em.op("take", x, imp.tensor(indices), axis=axis)


@_converts("GatherElements")
def _gather_elements(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    x, indices = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    return imp.em.op("gather_elements", x, indices, axis=attrs.get("axis", 0))


@_converts("GatherND")
def _gather_nd(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x, indices = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    return imp.em.op("gather_nd", x, indices, batch_dims=attrs.get("batch_dims", 0) or None)


@_converts("CumSum")
def _cumsum(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    if attrs.get("reverse", 0):
        raise Unsupported("reverse=1")
    x = imp.tensor(inputs[0])
    (axis,) = imp.ints(inputs[1], "axis")
    exclusive = bool(attrs.get("exclusive", 0)) or None
    return imp.em.op("cumsum", x, axis=axis, exclusive=exclusive, dtype=imp.em.dtype(x))


def _fold_range(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    if any(v.dtype == object for v in a):
        raise Unsupported("a symbolic Range")
    return np.arange(a[0], a[1], a[2]).astype(np.result_type(a[0], a[1], a[2]))


@_converts("Range", fold=_fold_range)
def _range(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Bounds known at import time (sizes) become prim values: a symbolic length."""
    kinds = {np.asarray(v.array).dtype.kind for v in inputs if isinstance(v, _Known)}
    if "f" in kinds:
        raise Unsupported("floating-point bounds")
    start, limit, delta = (imp.scalar(v, "Range bound") for v in inputs)
    dtype = next(
        (imp.em.dtype(v) for v in (start, limit, delta) if isinstance(v.type, TensorType)),
        dtypes.I64,
    )
    return imp.em.op("arange", start, limit, delta, dtype=dtype)


@_converts("Tile")
def _tile(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.tile(imp.tensor(inputs[0]), imp.sizes(inputs[1], "repeats"))


@_converts("Concat", fold=lambda imp, a, attrs: np.concatenate(a, axis=attrs["axis"]))
def _concat(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.op("concat", *(imp.tensor(v) for v in inputs), axis=attrs["axis"])


def _slice_spec(imp: _Importer, inputs: list[_Value], attrs: dict, rank: int) -> list:
    """``(axis, start, end, step)`` per sliced axis, from inputs (opset >= 10) or attrs."""
    if "starts" in attrs:
        starts, ends = list(attrs["starts"]), list(attrs["ends"])
        axes = list(attrs.get("axes", range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts = imp.sizes(inputs[1], "slice start")
        ends = imp.sizes(inputs[2], "slice end")
        axes = _axes(imp, inputs, {}, 3) or list(range(len(starts)))
        steps = imp.ints(inputs[4], "slice step") if len(inputs) > 4 and inputs[4] else None
        steps = steps or [1] * len(starts)
    return [(a % rank, s, e, t) for a, s, e, t in zip(axes, starts, ends, steps, strict=True)]


def _fold_slice(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    data = a[0]
    known = [None if v is None else _Known(v) for v in a]
    index: list[Any] = [slice(None)] * data.ndim
    for axis, start, end, step in _slice_spec(imp, known, attrs, data.ndim):
        if not all(sympy.sympify(b).is_Integer for b in (start, end)):
            raise Unsupported("a symbolic slice bound")
        index[axis] = slice(int(start), int(end), step)
    return data[tuple(index)]


@_converts("Slice", fold=_fold_slice)
def _slice(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    for axis, start, end, step in _slice_spec(imp, inputs, attrs, imp.em.ndim(x)):
        x = imp.em.slice(x, axis, start, min(end, _I64_MAX) if isinstance(end, int) else end, step)
    return x


def _fold_squeeze(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    axes = _axes(imp, [None if v is None else _Known(v) for v in a], attrs, 1)
    return np.squeeze(a[0], axis=None if axes is None else tuple(axes))


@_converts("Squeeze", fold=_fold_squeeze)
def _squeeze(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.squeeze(imp.tensor(inputs[0]), _axes(imp, inputs, attrs, 1))


def _fold_unsqueeze(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    axes = _axes(imp, [None if v is None else _Known(v) for v in a], attrs, 1)
    rank = a[0].ndim + len(axes)
    return np.expand_dims(a[0], tuple(sorted(x % rank for x in axes)))


@_converts("Unsqueeze", fold=_fold_unsqueeze)
def _unsqueeze(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.unsqueeze(imp.tensor(inputs[0]), _axes(imp, inputs, attrs, 1))


def _target_dims(
    imp: _Importer, dims: Sequence[sympy.Expr], shape: _Value, attrs: dict
) -> list[sympy.Expr]:
    """A Reshape target: 0 copies the input's dimension (unless ``allowzero``)."""
    target = imp.sizes(shape, "shape")
    if not attrs.get("allowzero", 0):
        target = [dims[i] if d == 0 else d for i, d in enumerate(target)]
    if -1 in target:
        index = target.index(-1)
        total = symbolic.simplify(sympy.Mul(*dims))
        known = symbolic.simplify(sympy.Mul(*(d for i, d in enumerate(target) if i != index)))
        quotient = sympy.cancel(total / known) if known != 0 else None
        if quotient is not None and quotient.is_polynomial() and sympy.fraction(quotient)[1] == 1:
            target[index] = sympy.expand(quotient)
    return target


def _fold_reshape(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    dims = [sympy.Integer(d) for d in a[0].shape]
    target = _target_dims(imp, dims, _Known(a[1]), attrs)
    return a[0].reshape([int(d) for d in target])


@_converts("Reshape", fold=_fold_reshape)
def _reshape(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.reshape(x, _target_dims(imp, imp.em.dims(x), inputs[1], attrs))


@_converts("Flatten")
def _flatten(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    dims = imp.em.dims(x)
    axis = attrs.get("axis", 1) % (len(dims) + 1) if dims else 0
    outer = symbolic.simplify(sympy.Mul(*dims[:axis]))
    inner = symbolic.simplify(sympy.Mul(*dims[axis:]))
    return imp.em.reshape(x, [outer, inner])


@_converts(
    "Transpose",
    fold=lambda imp, a, attrs: np.transpose(a[0], attrs.get("perm")),
)
def _transpose(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    perm = attrs.get("perm") or list(reversed(range(imp.em.ndim(x))))
    return imp.em.permute(x, list(perm))


@_converts("Expand")
def _expand(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    dims, shape = list(imp.em.dims(x)), imp.sizes(inputs[1], "shape")
    rank = max(len(dims), len(shape))
    dims = [sympy.Integer(1)] * (rank - len(dims)) + dims
    shape = [sympy.Integer(1)] * (rank - len(shape)) + shape
    target = [b if a == 1 else a for a, b in zip(dims, shape, strict=True)]
    return imp.em.broadcast_to(x, target)


@_converts("ConstantOfShape")
def _constant_of_shape(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    value = numpy_helper.to_array(attrs["value"]) if "value" in attrs else np.zeros(1, np.float32)
    dims = imp.sizes(inputs[0], "shape")
    fill = value.reshape(-1)[0]
    if all(d.is_Integer for d in dims) and np.prod([int(d) for d in dims]) <= _SMALL:
        return _Known(np.full([int(d) for d in dims], fill, value.dtype))
    return imp.em.op("full", imp.em.shape(dims), imp.em.const(fill, dtypes.from_numpy(value.dtype)))


@_converts("Split")
def _split(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    axis = attrs.get("axis", 0) % em.ndim(x)
    outputs = len(node.output)
    if "split" in attrs:
        sizes = list(attrs["split"])
    elif len(inputs) > 1 and inputs[1] is not None:
        sizes = imp.ints(inputs[1], "split")
    else:
        size = em.dims(x)[axis]
        if not size.is_Integer or int(size) % outputs:
            raise Unsupported("an uneven or symbolic split")
        sizes = [int(size) // outputs] * outputs
    indices = [int(i) for i in np.cumsum(sizes)[:-1]]
    parts = em.op("split", x, indices_or_sections=indices, axis=axis)
    return em.items(parts, len(sizes))


@_converts("Trilu")
def _trilu(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    k = imp.ints(inputs[1], "k")[0] if len(inputs) > 1 and inputs[1] is not None else 0
    name = "triu" if attrs.get("upper", 1) else "tril"
    return imp.em.op(name, imp.tensor(inputs[0]), k=k or None)


def _pad_widths(imp: _Importer, inputs: list[_Value], attrs: dict, rank: int) -> list:
    """``(before, after)`` per axis from ``pads`` (input, or attribute before opset 11)."""
    pads = list(attrs["pads"]) if "pads" in attrs else imp.ints(inputs[1], "pads")
    axes = _axes(imp, inputs, {}, 3) if len(inputs) > 3 else None
    axes = list(range(rank)) if axes is None else [a % rank for a in axes]
    widths = [(0, 0)] * rank
    for k, axis in enumerate(axes):
        widths[axis] = (pads[k], pads[k + len(axes)])
    return widths


def _fold_pad(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    known = [None if v is None else _Known(v) for v in a]
    widths = _pad_widths(imp, known, attrs, a[0].ndim)
    if _pad_mode(attrs) != "constant":
        raise Unsupported(f"mode={_pad_mode(attrs)}")
    value = attrs.get("value", 0) if len(a) < 3 or a[2] is None else a[2].reshape(-1)[0]
    # A negative width removes elements.
    kept = tuple(
        slice(max(-b, 0), size + min(e, 0)) for (b, e), size in zip(widths, a[0].shape, strict=True)
    )
    grown = [(max(b, 0), max(e, 0)) for b, e in widths]
    return np.pad(a[0][kept], grown, constant_values=value)


def _pad_mode(attrs: dict) -> str:
    mode = attrs.get("mode", b"constant")
    return mode.decode() if isinstance(mode, bytes) else mode


@_converts("Pad", fold=_fold_pad)
def _pad(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    if _pad_mode(attrs) != "constant":
        raise Unsupported(f"mode={_pad_mode(attrs)}")
    widths = _pad_widths(imp, inputs, attrs, imp.em.ndim(x))
    value: Any = attrs.get("value", 0.0)
    if len(inputs) > 2 and inputs[2] is not None:
        if not isinstance(inputs[2], _Known):
            raise Unsupported("a pad value computed at run time")
        value = inputs[2].array.reshape(-1)[0].item()
    return imp.em.pad(x, widths, value)


def _fold_scatter_nd(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    data, indices, updates = a
    if _reduction(attrs) != "none":
        raise Unsupported(f"reduction={_reduction(attrs)}")
    result = data.copy()
    result[tuple(np.moveaxis(indices.astype(np.int64), -1, 0))] = updates
    return result


def _reduction(attrs: dict) -> str:
    value = attrs.get("reduction", b"none")
    return value.decode() if isinstance(value, bytes) else value


@_converts("ScatterND", fold=_fold_scatter_nd)
def _scatter_nd(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """ScatterND with indices known at import: the updated positions of the leading
    axes, flattened, select between the updates (gathered) and the data."""
    em = imp.em
    if _reduction(attrs) != "none":
        raise Unsupported(f"reduction={_reduction(attrs)}")
    if not isinstance(inputs[1], _Known):
        raise Unsupported("indices computed at run time")
    data, updates = imp.tensor(inputs[0]), imp.tensor(inputs[2])
    indices = inputs[1].array.astype(np.int64)
    dims, depth = em.dims(data), indices.shape[-1]
    if not all(d.is_Integer for d in dims[:depth]):
        raise Unsupported("scattering along a symbolic dimension")
    leading = [int(d) for d in dims[:depth]]
    rest = list(dims[depth:])
    # Which update (if any) lands on each position of the leading axes; the last wins.
    flat = np.ravel_multi_index(tuple(np.moveaxis(indices, -1, 0)), leading, mode="wrap").ravel()
    source = np.full(int(np.prod(leading)), -1, np.int64)
    source[flat] = np.arange(flat.size)
    written = source >= 0
    count = int(np.prod(leading))
    rows = em.reshape(data, [count, *rest])
    picked = em.op(
        "take", em.reshape(updates, [flat.size, *rest]), em.const(np.maximum(source, 0)), axis=0
    )
    mask = em.const(written.reshape(count, *[1] * len(rest)))
    return em.reshape(em.op("where", mask, picked, rows), dims)


# ------------------------------------------------------------------ recurrent


@_converts("LSTM", "GRU")
def _recurrent(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em = imp.em
    cell = node.op_type.lower()
    for unsupported in ("clip", "activations", "activation_alpha", "activation_beta"):
        if unsupported in attrs:
            raise Unsupported(unsupported)
    if attrs.get("input_forget", 0):
        raise Unsupported("input_forget")
    if len(inputs) > 4 and inputs[4] is not None:
        raise Unsupported("sequence_lens")
    if len(inputs) > 7 and inputs[7] is not None:
        raise Unsupported("peepholes")
    x, w, r = (imp.tensor(v) for v in inputs[:3])
    layout = attrs.get("layout", 0)
    if layout:
        x = em.transpose(x, 0, 1)
    direction = attrs.get("direction", b"forward")
    direction = direction.decode() if isinstance(direction, bytes) else direction
    reverse = {"forward": [False], "reverse": [True], "bidirectional": [False, True]}[direction]
    hidden = attrs["hidden_size"]
    batch = em.dims(x)[1]

    def initial(index: int) -> SSAValue:
        if len(inputs) > index and inputs[index] is not None:
            given = imp.tensor(inputs[index])
            return em.transpose(given, 0, 1) if layout else given
        shape = em.shape([len(reverse), batch, hidden])
        return em.op("zeros", shape, dtype=em.dtype(x))

    states = [initial(5)] + ([initial(6)] if cell == "lstm" else [])
    bias = imp.tensor(inputs[3]) if len(inputs) > 3 and inputs[3] is not None else None
    steps_out, finals = [], [[] for _ in states]
    for index, backwards in enumerate(reverse):
        weights: list[SSAValue | None] = [em.select(w, 0, index), em.select(r, 0, index)]
        if bias is None:
            weights += [None, None]
        else:
            both = em.select(bias, 0, index)
            weights += em.items(em.op("split", both, indices_or_sections=2, axis=0), 2)
        state = [em.select(s, 0, index) for s in states]
        steps, final = em.recurrent_layer(
            cell,
            x,
            state,
            weights,
            "iofg" if cell == "lstm" else "zrn",
            reverse=backwards,
            reset_after=bool(attrs.get("linear_before_reset", 0)),
        )
        steps_out.append(em.op("concat", *(em.unsqueeze(h, [0, 1]) for h in steps), axis=0))
        for kept, value in zip(finals, final, strict=True):
            kept.append(em.unsqueeze(value, [0]))
    y = steps_out[0] if len(steps_out) == 1 else em.op("concat", *steps_out, axis=1)
    results = [y, *(k[0] if len(k) == 1 else em.op("concat", *k, axis=0) for k in finals)]
    if layout:
        results = [em.permute(y, [2, 0, 1, 3]), *(em.transpose(v, 0, 1) for v in results[1:])]
    return results


# ------------------------------------------------------------------ reductions, normalisation


def _reduce(relax_name: str, axes_input: int) -> _Converter:
    def convert(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
        x = imp.tensor(inputs[0])
        axes = _axes(imp, inputs, attrs, 1) if imp.opset >= axes_input else attrs.get("axes")
        if axes is None and attrs.get("noop_with_empty_axes", 0):
            return x
        keepdims = bool(attrs.get("keepdims", 1))
        return imp.em.op(
            relax_name, x, axis=None if axes is None else list(axes), keepdims=keepdims
        )

    return convert


_converts("ReduceMean")(_reduce("mean", 18))
_converts("ReduceSum")(_reduce("sum", 13))
_converts("ReduceMax")(_reduce("max", 18))
_converts("ReduceMin")(_reduce("min", 18))


@_converts("Softmax", "LogSoftmax")
def _softmax(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    rank = imp.em.ndim(x)
    axis = attrs.get("axis", -1 if imp.opset >= 13 else 1) % rank
    if imp.opset < 13 and axis != rank - 1:
        raise Unsupported("opset < 13 softmax over several axes")
    return imp.em.op("softmax" if node.op_type == "Softmax" else "log_softmax", x, axis=axis)


@_converts("BatchNormalization")
def _batch_norm(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    if attrs.get("training_mode", 0) or len([o for o in node.output if o]) > 1:
        raise Unsupported("training mode")
    x, scale, bias, mean, var = (imp.tensor(v) for v in inputs[:5])
    return imp.em.batch_norm(x, mean, var, scale, bias, attrs.get("epsilon", 1e-5))


@_converts("LayerNormalization")
def _layer_norm(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    if len([o for o in node.output if o]) > 1:
        raise Unsupported("the mean and inverse deviation outputs")
    x = imp.tensor(inputs[0])
    rank = imp.em.ndim(x)
    axes = list(range(attrs.get("axis", -1) % rank, rank))
    scale = imp.tensor(inputs[1])
    bias = imp.tensor(inputs[2]) if len(inputs) > 2 and inputs[2] is not None else None
    return imp.em.layer_norm(x, axes, scale, bias, attrs.get("epsilon", 1e-5))


# ------------------------------------------------------------------ convolution, pooling


def _window(attrs: dict, spatial: int, kernel: Sequence[int]) -> tuple[list, list, list]:
    """Strides, padding (starts then ends) and dilations of a Conv or pooling node."""
    auto_pad = attrs.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad not in ("NOTSET", "VALID"):
        raise Unsupported(f"auto_pad={auto_pad}")
    strides = list(attrs.get("strides", [1] * spatial))
    pads = list(attrs.get("pads", [0] * (2 * spatial)))
    dilations = list(attrs.get("dilations", [1] * spatial))
    return strides, pads, dilations


@_converts("Conv")
def _conv(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em = imp.em
    x, w = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    kernel = attrs.get("kernel_shape") or [int(d) for d in em.dims(w)[2:]]
    strides, pads, dilations = _window(attrs, len(kernel), kernel)
    bias = imp.tensor(inputs[2]) if len(inputs) > 2 and inputs[2] is not None else None
    return em.conv(x, w, bias, strides, pads, dilations, attrs.get("group", 1))


@_converts("MaxPool", "AveragePool")
def _pool(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    if imp.em.ndim(x) != 4:
        raise Unsupported("pooling that is not 2-d")
    if len([o for o in node.output if o]) > 1:
        raise Unsupported("the indices output")
    kernel = list(attrs["kernel_shape"])
    strides, pads, dilations = _window(attrs, 2, kernel)
    if any(d != 1 for d in dilations):
        raise Unsupported("dilations")
    ceil_mode = bool(attrs.get("ceil_mode", 0))
    if node.op_type == "MaxPool":
        return imp.em.max_pool2d(x, kernel, strides, pads, ceil_mode)
    include = bool(attrs.get("count_include_pad", 0))
    return imp.em.avg_pool2d(x, kernel, strides, pads, include, ceil_mode)


@_converts("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    axes = list(range(2, imp.em.ndim(x)))
    name = "mean" if node.op_type == "GlobalAveragePool" else "max"
    return imp.em.op(name, x, axis=axes, keepdims=True)


SUPPORTED: list[str] = sorted(_CONVERTERS)
"""The ONNX operators (default domain) the importer converts."""
