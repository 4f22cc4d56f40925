"""The ExportedProgram importer: the walk over the graph (:class:`Importer`), the
converter registry (:func:`converts`) and the helpers converters share. The converters
are in :mod:`xrelax.frontend.torch` and the ``torch_*`` family modules, which register
themselves here; :func:`xrelax.frontend.torch.from_exported_program` imports them all.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy
import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind
from xdsl.ir import Attribute, SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType
from xrelax.dialects.shapes import symbolic
from xrelax.frontend import torch_decompose, torch_inplace
from xrelax.frontend.block_builder import BlockBuilder
from xrelax.frontend.common import FrontendError, ImportedModel, Names, Unsupported
from xrelax.frontend.emitter import Emitter
from xrelax.frontend.model_builder import ModelBuilder

_DTYPES: dict[torch.dtype, Attribute] = {
    torch.float32: dtypes.F32,
    torch.float16: dtypes.F16,
    torch.float64: dtypes.F64,
    torch.bfloat16: dtypes.BF16,
    torch.int64: dtypes.I64,
    torch.int32: dtypes.I32,
    torch.int16: dtypes.I16,
    torch.int8: dtypes.I8,
    torch.uint8: dtypes.UI8,
    torch.uint16: dtypes.UI16,
    torch.uint32: dtypes.UI32,
    torch.uint64: dtypes.UI64,
    torch.bool: dtypes.I1,
}

_SYMBOLIC_NUMBERS: dict[type, Any] = {torch.SymInt: 0, torch.SymFloat: 0.0, torch.SymBool: False}
"""A number of each symbolic type, for type promotion."""

POISON = object()
"""The value of a node whose operator is unsupported (and of everything using it)."""

Converter = Callable[["Importer", torch.fx.Node, dict[str, Any]], Any]
CONVERTERS: dict[str, Converter] = {}

_OUTPUT_KINDS = (
    OutputKind.USER_OUTPUT,
    OutputKind.USER_INPUT_MUTATION,
    OutputKind.BUFFER_MUTATION,
    OutputKind.PARAMETER_MUTATION,
)
"""The kinds of outputs a program for inference has: its own, and the new values of
the inputs, buffers and parameters it writes (of a functional program)."""

_IGNORED = {
    "aten._assert_scalar",
    "aten._assert_tensor_metadata",
    "aten.sym_constrain_range",
    "aten.sym_constrain_range_for_size",
    "aten._assert_async",
}
"""Run-time assertions on values torch already proved at export."""


def needs_decomposition(node: torch.fx.Node) -> torch._ops.OpOverload | None:
    """The overload torch must decompose for ``node`` to import: its own, or for an
    in-place operator its functional form's; None when a converter takes it."""
    key = converter_key(node)
    value = node.meta.get("val")
    if key in _IGNORED or key in CONVERTERS or _is_size(value):
        return None
    target = node.target
    if target._schema.is_mutable:
        target = torch_inplace.functional_form(target)
        if target is None or str(target._overloadpacket) in CONVERTERS:
            return None
    return target


def _same_function(original: torch.fx.Node, node: torch.fx.Node) -> bool:
    """Whether ``node`` computes what ``original`` does: its functional form (``add_``
    functionalized to ``add``), or its primitive (``lgamma`` to ``prims.lgamma``)."""
    target = original.target
    if isinstance(target, torch._ops.OpOverload) and target._schema.is_mutable:
        return torch_inplace.functional_form(target) == node.target
    name = target_name(node)
    return name.startswith("prims.") and name.split(".")[1] == target_name(original).split(".")[1]


def _is_size(value: Any) -> bool:
    """Whether a node's value is a size (computed symbolically, not converted)."""
    return isinstance(value, torch.SymInt | int) and not isinstance(value, bool)


_HALF_IN_FLOAT: set[Converter] = set()
"""Converters of compositions and reductions, which torch computes in float32 for
float16 tensors (rounding once): the importer does the same."""


def converts(*names: str, half_in_float: bool = False) -> Callable[[Converter], Converter]:
    """Register the decorated function as the converter of the operators ``names``
    (one converter per operator: the families' modules are imported in any order)."""

    def register(fn: Converter) -> Converter:
        for name in names:
            assert name not in CONVERTERS, f"two converters of {name}"
            CONVERTERS[name] = fn
        if half_in_float:
            _HALF_IN_FLOAT.add(fn)
        return fn

    return register


def target_name(node: torch.fx.Node) -> str:
    """The operator's name as reported: ``aten.add.Tensor``, ``operator.getitem``."""
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", str(target))
    module = "operator" if module == "_operator" else module
    return f"{module}.{name}" if module else name


def converter_key(node: torch.fx.Node) -> str:
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return str(target._overloadpacket)
    return target_name(node)


class Importer:
    def __init__(self, decomposed: torch_decompose.Decomposed, original: ExportedProgram) -> None:
        program = decomposed.program
        self.program = program
        self.graph = program.graph_module.graph
        self.decomposed = decomposed
        self.original = original.graph_module.graph
        self.original_nodes = {n.name: n for n in self.original.nodes}
        self.gaps: dict[torch.fx.Node, set[str]] = {}
        """A node of the user's program -> the unsupported nodes it decomposed to."""
        self.written: dict[str, torch.fx.Node] = {}
        """Model input (placeholder) name -> the node whose value it holds at the end."""
        self.builder = ModelBuilder("ATen")
        self.env: dict[torch.fx.Node, Any] = {}
        self.param_names: dict[str, str] = {}
        """Placeholder node name -> relax parameter name."""
        self.consts: dict[str, np.ndarray] = {}
        """Placeholder node name -> value of a one-element tensor constant."""
        self.view_of: dict[torch.fx.Node, torch.fx.Node] = {}
        """A view (or the result of an in-place operator) -> the node it views."""
        self.in_place: set[torch.fx.Node] = set()
        """The results of in-place operators: their value is the written tensor's."""
        self.version: Counter[torch.fx.Node] = Counter()
        """How often the memory each node owns has been written."""
        self.seen: dict[torch.fx.Node, int] = {}
        """The version of its memory a view's value was computed from."""
        self.em: Emitter
        self.functions = Names(["main"])
        """The names of the functions that loops become."""
        self.half_in_float = False
        """Whether the node being converted computes float16 in float32."""

    # ------------------------------------------------------------------ signature

    def run(self) -> ImportedModel:
        signature = self.program.graph_signature
        placeholders = {n.name: n for n in self.graph.nodes if n.op == "placeholder"}
        self._name_variables(
            [
                placeholders[s.arg.name]
                for s in signature.input_specs
                if s.kind == InputKind.USER_INPUT
            ]
        )
        weights = []
        for spec in signature.input_specs:
            node = placeholders[spec.arg.name]
            if spec.kind == InputKind.USER_INPUT:
                value = node.meta.get("val")
                if not isinstance(value, torch.Tensor):
                    raise FrontendError(f"input '{node.name}' is not a tensor ({value!r})")
                if value.dtype not in _DTYPES:
                    raise FrontendError(f"input '{node.name}' has element type {value.dtype}")
                dims = [self._expr(d) for d in value.shape]
                name = self.builder.add_input(node.name, dims, _DTYPES[value.dtype])
                self.param_names[node.name] = name
            elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
                weights.append((spec, node))
            else:
                raise FrontendError(
                    f"input '{node.name}' of kind {spec.kind.name} is not supported"
                )
        for spec, node in weights:
            tensor = self._weight_value(spec)
            if spec.kind == InputKind.CONSTANT_TENSOR and tensor.size <= 1:
                self.consts[node.name] = tensor
            else:
                self.param_names[node.name] = self.builder.add_weight(spec.target, tensor)
        for spec in signature.output_specs:
            if spec.kind not in _OUTPUT_KINDS:
                raise FrontendError(
                    f"output '{spec.arg.name}' is a {spec.kind.name} "
                    "(export the model in eval mode)"
                )
        imported = self.builder.build(self._body)
        imported.written_inputs = [self.param_names[name] for name in self._written_order()]
        return imported

    def _written_order(self) -> list[str]:
        """The model inputs written, in input order."""
        return [
            spec.arg.name
            for spec in self.program.graph_signature.input_specs
            if spec.kind == InputKind.USER_INPUT and spec.arg.name in self.written
        ]

    def _name_variables(self, inputs: Sequence[torch.fx.Node]) -> None:
        """Relax variables for the inputs' symbols: the ``Dim`` name, else ``s0, s1...``."""
        debug_names = _dim_names(inputs)
        unnamed = 0
        for node in inputs:
            value = node.meta.get("val")
            for dim in getattr(value, "shape", ()):
                if not isinstance(dim, torch.SymInt):
                    continue
                for symbol in sorted(dim.node.expr.free_symbols, key=str):
                    if symbol in self.builder.symbols:
                        continue
                    name = debug_names.get(symbol)
                    if name is None:
                        name, unnamed = f"s{unnamed}", unnamed + 1
                    self.builder.variable(symbol, name)

    def _weight_value(self, spec: Any) -> np.ndarray:
        source = self.program.state_dict if spec.kind != InputKind.CONSTANT_TENSOR else {}
        value = source.get(spec.target, self.program.constants.get(spec.target))
        if not isinstance(value, torch.Tensor):
            raise FrontendError(f"no tensor value for '{spec.target}'")
        if value.layout != torch.strided:
            raise FrontendError(f"weight '{spec.target}' is a {value.layout} tensor (not dense)")
        value = value.detach().cpu()
        if value.dtype not in _DTYPES:
            raise FrontendError(f"weight '{spec.target}' has element type {value.dtype}")
        if value.dtype == torch.bfloat16:  # torch has no numpy bf16: the same bits
            return value.view(torch.int16).numpy().view(dtypes.BFLOAT16)
        return value.numpy()

    # ------------------------------------------------------------------ body

    def _body(self, bb: BlockBuilder, params: dict[str, SSAValue]) -> list[SSAValue]:
        self.em = Emitter(bb)
        outputs: list[Any] = []
        for node in self.graph.nodes:
            if node.op == "placeholder":
                if node.name in self.consts:
                    self.env[node] = self.em.const(self.consts[node.name])
                else:
                    self.env[node] = params[self.param_names[node.name]]
            elif node.op == "call_function":
                self.env[node] = self._call(node)
            elif node.op == "get_attr":
                self.env[node] = getattr(self.program.graph_module, node.target)
            elif node.op == "output":
                outputs = self._outputs(node.args[0])
            else:
                raise FrontendError(f"node '{node.name}': '{node.op}' nodes are not supported")
        self._report_gaps()
        if self.builder.unsupported:
            return []
        for index, value in enumerate(outputs):
            if not isinstance(value, SSAValue):
                raise FrontendError(f"output {index} is not a tensor ({value!r})")
        return outputs

    def _outputs(self, results: Sequence[Any]) -> list[Any]:
        """The function's results: the new values of the model inputs the program writes
        (in input order), then the model's outputs. A write to a buffer or parameter
        (an output of a functional program) is unsupported."""
        user = []
        specs = self.program.graph_signature.output_specs
        for spec, result in zip(specs, results, strict=True):
            if spec.kind == OutputKind.USER_OUTPUT:
                user.append(result)
            elif spec.kind == OutputKind.USER_INPUT_MUTATION:
                self.written[spec.target] = result
            else:
                kind = "buffer" if spec.kind == OutputKind.BUFFER_MUTATION else "parameter"
                self._unsupported(result, f"writes to the {kind} '{spec.target}'")
        return [self._value(self.written[name]) for name in self._written_order()] + [
            self._value(result) for result in user
        ]

    def _unsupported(self, node: torch.fx.Node, reason: str | None = None) -> Any:
        """Report ``node``'s operator (for ``reason``) as the user's program has it: a
        node of a decomposition as the operator torch decomposed, with what it
        decomposed to (each such operator once, at the end)."""
        name = target_name(node)
        original = self._original(node)
        if original is None:
            if reason is None and str(node.target) in self.decomposed.pending:
                reason = f"torch cannot decompose it: {self.decomposed.failure}"
            self.builder.unsupported[name if reason is None else f"{name} ({reason})"] += 1
            return POISON
        if _same_function(original, node):
            what = target_name(original)
            self.builder.unsupported[what if reason is None else f"{what} ({reason})"] += 1
        else:
            self.gaps.setdefault(original, set()).add(
                name if reason is None else f"{name}: {reason}"
            )
        return POISON

    def _report_gaps(self) -> None:
        """Report each decomposed operator whose decomposition has unsupported nodes,
        once, with what they are."""
        for original, details in self.gaps.items():
            what = target_name(original)
            self.builder.unsupported[f"{what} (decomposes to {', '.join(sorted(details))})"] += 1

    def _original(self, node: torch.fx.Node) -> torch.fx.Node | None:
        """The node of the user's program that torch decomposed into ``node``, or None
        (``node`` is in the user's program)."""
        if node.op != "call_function":
            return None
        original = self.original_nodes.get(torch_decompose.origin(node, self.original) or "")
        return None if original is None or original.target == node.target else original

    def _call(self, node: torch.fx.Node) -> Any:
        key = converter_key(node)
        if key in _IGNORED:
            return None
        value = node.meta.get("val")
        if _is_size(value):
            return self._expr(value)
        if isinstance(node.target, torch._ops.OpOverload) and node.target._schema.is_mutable:
            return self._in_place(node, key)
        converter = CONVERTERS.get(key)
        if converter is None:
            return self._unsupported(node)
        result = self._convert(node, converter)
        base = self._viewed(node, key)
        if base is not None and result is not POISON:
            self.view_of[node] = base
            self.seen[node] = self.version[self._root(node)]
        return result

    def _convert(self, node: torch.fx.Node, converter: Converter, schema: Any = None) -> Any:
        """The value of ``node`` by ``converter``, its arguments bound by ``schema``
        (absent: the node's own)."""
        args = self._bind(node, schema)
        if poisoned(args):
            return POISON
        try:
            if converter in _HALF_IN_FLOAT and _holds(args, dtypes.F16):
                result = self._in_float(node, converter, args)
            else:
                result = converter(self, node, args)
            value = node.meta.get("val")
            if isinstance(result, SSAValue) and isinstance(value, torch.Tensor):
                result = self._checked(result, value)
        except Unsupported as err:
            return self._unsupported(node, err.what)
        except (FrontendError, RelaxError) as err:
            raise FrontendError(f"node '{node.name}' ({target_name(node)}): {err}") from None
        return result

    def _in_float(self, node: torch.fx.Node, converter: Converter, args: dict[str, Any]) -> Any:
        """``converter`` on ``args`` whose float16 tensors are made float32, its results
        rounded to the types torch gives: torch computes these operators of float16
        tensors in float32 (its ``opmath`` type) and rounds once."""
        self.half_in_float = True
        try:
            result = converter(self, node, _retyped(args, dtypes.F16, dtypes.F32, self.em))
        finally:
            self.half_in_float = False
        value = node.meta.get("val")
        if isinstance(result, SSAValue) and isinstance(value, torch.Tensor):
            return self.cast(result, self._dtype(value.dtype))
        if isinstance(result, list) and isinstance(value, list | tuple):
            return [
                self.cast(r, self._dtype(v.dtype)) if isinstance(r, SSAValue) else r
                for r, v in zip(result, value, strict=True)
            ]
        return result

    # ------------------------------------------------------------------ in place, views

    def _viewed(self, node: torch.fx.Node, key: str) -> torch.fx.Node | None:
        """The node whose memory ``node``'s result shares (see :mod:`.torch_inplace`)."""
        if key == "operator.getitem":
            source = node.args[0]
            return source if source in self.view_of else None
        return torch_inplace.viewed_argument(node, key)

    def _root(self, node: torch.fx.Node) -> torch.fx.Node:
        """The node that owns the memory ``node``'s value lives in."""
        while node in self.view_of:
            node = self.view_of[node]
        return node

    def _current(self, node: torch.fx.Node) -> Any:
        """The value of ``node`` now: a view whose memory was written since it was
        computed is computed again from its base."""
        if node in self.view_of:
            version = self.version[self._root(node)]
            if self.seen[node] != version:
                self.seen[node] = version
                if node in self.in_place:
                    self.env[node] = self._current(self.view_of[node])
                else:
                    self.env[node] = self._convert(node, CONVERTERS[converter_key(node)])
        return self.env[node]

    def _in_place(self, node: torch.fx.Node, key: str) -> Any:
        """An operator that writes its ``self``: its functional form, written back."""
        functional = torch_inplace.functional_form(node.target)
        converter = None if functional is None else CONVERTERS.get(str(functional._overloadpacket))
        written = torch_inplace.written_arguments(node.target)
        target = node.args[0] if node.args else None
        reason = None
        if key in torch_inplace.SHAPE_CHANGING:
            reason = "changes the shape of its argument in place"
        elif written != ["self"] or not isinstance(target, torch.fx.Node):
            reason = f"writes to {', '.join(written)}"
        if reason is not None or converter is None:
            return self._unsupported(node, reason)
        result = self._convert(node, converter, functional._schema)
        if result is POISON:
            return POISON
        current = self._current(target)
        result = self.em.broadcast_to(
            self.cast(result, self.em.dtype(current)), self.em.dims(current)
        )
        if result is not current:
            try:
                self._write(target, result)
            except Unsupported as err:
                return self._unsupported(node, err.what)
        self.view_of[node] = target
        self.in_place.add(node)
        self.seen[node] = self.version[self._root(node)]
        return result

    def _write(self, node: torch.fx.Node, value: Any) -> None:
        """Make ``value`` the value of ``node``, writing it back through the views
        to the memory's owner."""
        written, new = node, value
        while node in self.view_of:
            base = self.view_of[node]
            if node not in self.in_place:
                args = self._bind(node)
                key, name = converter_key(node), target_name(node)
                new = torch_inplace.write_back(self.em, key, name, args, self._current(base), new)
            node = base
        if node.op == "placeholder":
            if not self._is_user_input(node):
                raise Unsupported(f"writes to {self._describe_input(node)}")
            self.written[node.name] = node
        self.env[node] = new
        self.version[node] += 1
        self.env[written] = value
        self.seen[written] = self.version[node]

    def _is_user_input(self, node: torch.fx.Node) -> bool:
        return any(
            spec.arg.name == node.name and spec.kind == InputKind.USER_INPUT
            for spec in self.program.graph_signature.input_specs
        )

    def _describe_input(self, node: torch.fx.Node) -> str:
        for spec in self.program.graph_signature.input_specs:
            if spec.arg.name == node.name:
                kind = {
                    InputKind.USER_INPUT: "the model input",
                    InputKind.PARAMETER: "the parameter",
                    InputKind.BUFFER: "the buffer",
                }.get(spec.kind, "the constant")
                return f"{kind} '{spec.target or node.name}'"
        return f"'{node.name}'"

    def inline(self, graph_module: torch.fx.GraphModule, operands: Sequence[Any]) -> list[Any]:
        """The results of a subgraph (a higher-order operator's body) on ``operands``."""
        placeholders = iter(operands)
        for node in graph_module.graph.nodes:
            if node.op == "placeholder":
                self.env[node] = next(placeholders)
            elif node.op == "call_function":
                self.env[node] = self._call(node)
            elif node.op == "get_attr":
                self.env[node] = getattr(graph_module, node.target)
            elif node.op == "output":
                results = node.args[0]
                if not isinstance(results, list | tuple):  # a single result (cond's)
                    results = [results]
                return [self._value(a) for a in results]
        raise FrontendError(f"subgraph '{graph_module}' has no output")

    def _checked(self, result: SSAValue, value: torch.Tensor) -> SSAValue:
        """``result`` with the shape torch gives the node (the dtypes must agree)."""
        if self.em.dtype(result) != _DTYPES.get(value.dtype):
            raise FrontendError(f"internal error: gives {result.type}, torch says {value.dtype}")
        return self.em.match(result, [self._expr(d) for d in value.shape])

    def _bind(self, node: torch.fx.Node, schema: Any = None) -> dict[str, Any]:
        """The node's arguments by name in ``schema`` (absent: the node's own), defaults
        filled in, values resolved."""
        target = node.target
        if not isinstance(target, torch._ops.OpOverload):
            return {str(i): self._value(a) for i, a in enumerate(node.args)}
        bound: dict[str, Any] = {}
        for index, arg in enumerate((schema or target._schema).arguments):
            if index < len(node.args) and not arg.kwarg_only:
                bound[arg.name] = self._value(node.args[index])
            elif arg.name in node.kwargs:
                bound[arg.name] = self._value(node.kwargs[arg.name])
            elif arg.has_default_value():
                bound[arg.name] = arg.default_value
            else:
                bound[arg.name] = None
        return bound

    def _value(self, arg: Any) -> Any:
        if isinstance(arg, torch.fx.Node):
            return self._current(arg)
        if isinstance(arg, list | tuple):
            return [self._value(a) for a in arg]
        return arg

    def promoted(self, node: torch.fx.Node, *names: str) -> Attribute:
        """The element type torch promotes the node's arguments ``names`` to."""
        schema = node.target._schema
        values = []
        for index, arg in enumerate(schema.arguments):
            if arg.name in names:
                value = node.args[index] if index < len(node.args) else node.kwargs[arg.name]
                value = value.meta["val"] if isinstance(value, torch.fx.Node) else value
                values.append(_SYMBOLIC_NUMBERS.get(type(value), value))
        return self._dtype(torch.result_type(*values))

    # ------------------------------------------------------------------ conversions

    def _expr(self, value: Any) -> sympy.Expr:
        """A torch size (int, SymInt or its sympy expression) as a relax expression."""
        if isinstance(value, torch.SymInt):
            value = value.node.expr
        if isinstance(value, int):
            return sympy.Integer(value)
        if value.is_Integer:
            return sympy.Integer(int(value))
        if value.is_Symbol:
            return self.builder.variable(value, value.name)
        if type(value).__name__ in ("TruncToInt", "FloorToInt"):
            # A size scaled by a float (interpolate's scale_factor): floor(c * size),
            # exactly, c as the binary fraction it is (the sizes are not negative).
            numerator, denominator = sympy.fraction(sympy.together(self._scaled(value.args[0])))
            if denominator.is_Integer:
                return symbolic.floordiv(sympy.expand(numerator), int(denominator))
        args = [self._expr(a) for a in value.args]
        if value.is_Add:
            return sympy.expand(sympy.Add(*args))
        if value.is_Mul:
            return sympy.expand(sympy.Mul(*args))
        if value.is_Pow and value.exp.is_Integer and value.exp > 0:
            return sympy.expand(args[0] ** int(value.exp))
        kind = type(value).__name__
        if kind in ("FloorDiv", "CleanDiv"):
            return symbolic.floordiv(*args)
        if kind in ("Mod", "PythonMod"):
            return symbolic.floormod(*args)
        if kind == "Max":
            return symbolic.smax(*args)
        if kind == "Min":
            return symbolic.smin(*args)
        raise FrontendError(f"cannot express the symbolic size {value} in relax")

    def _scaled(self, value: Any) -> sympy.Expr:
        """A float expression of sizes (``1.5*ToFloat(s0)``) with its floats exact."""
        if value.is_Float:
            return sympy.Rational(*float(value).as_integer_ratio())
        if type(value).__name__ == "ToFloat":
            return self._expr(value.args[0])
        if value.is_Mul or value.is_Add:
            args = [self._scaled(a) for a in value.args]
            return sympy.Mul(*args) if value.is_Mul else sympy.Add(*args)
        return self._expr(value)

    def _dtype(self, dtype: torch.dtype) -> Attribute:
        if dtype not in _DTYPES:
            raise Unsupported(f"element type {dtype}")
        return _DTYPES[dtype]

    def out_dims(self, node: torch.fx.Node) -> list[sympy.Expr]:
        """The shape torch gives the node's (tensor) result."""
        return [self._expr(d) for d in node.meta["val"].shape]

    def out_dtype(self, node: torch.fx.Node) -> Attribute:
        """The element type torch gives the node's (tensor) result (float32 for float16
        while the node is computed in float32)."""
        dtype = self._dtype(node.meta["val"].dtype)
        return dtypes.F32 if self.half_in_float and dtype == dtypes.F16 else dtype

    def cast(self, x: SSAValue, dtype: Attribute) -> SSAValue:
        """``x`` in element type ``dtype``."""
        return self.em.cast(x, dtype)


def _holds(value: Any, dtype: Attribute) -> bool:
    """Whether the arguments ``value`` hold a tensor of element type ``dtype``."""
    if isinstance(value, SSAValue):
        return isinstance(value.type, TensorType) and value.type.known_dtype == dtype
    if isinstance(value, list | dict):
        items = value.values() if isinstance(value, dict) else value
        return any(_holds(v, dtype) for v in items)
    return False


def _retyped(value: Any, old: Attribute, new: Attribute, em: Emitter) -> Any:
    """The arguments ``value`` with the tensors of element type ``old`` cast to ``new``."""
    if isinstance(value, SSAValue):
        return em.cast(value, new) if _holds(value, old) else value
    if isinstance(value, dict):
        return {k: _retyped(v, old, new, em) for k, v in value.items()}
    if isinstance(value, list):
        return [_retyped(v, old, new, em) for v in value]
    return value


def poisoned(value: Any) -> bool:
    if value is POISON:
        return True
    if isinstance(value, list | dict):
        items = value.values() if isinstance(value, dict) else value
        return any(poisoned(v) for v in items)
    return False


def _dim_names(inputs: Sequence[torch.fx.Node]) -> dict[Any, str]:
    """The ``Dim`` names torch keeps for the inputs' symbols (in-memory programs only)."""
    for node in inputs:
        fake_mode = getattr(node.meta.get("val"), "fake_mode", None)
        shape_env = getattr(fake_mode, "shape_env", None)
        if shape_env is None:
            continue
        debug = getattr(shape_env, "source_name_to_debug_name", None) or {}
        names: dict[Any, str] = {}
        for symbol, sources in (getattr(shape_env, "var_to_sources", None) or {}).items():
            for source in sources:
                source_name = source.name() if callable(source.name) else source.name
                # The root of derived dims (``2 * batch``) has a constant source: its name.
                name = getattr(source, "source_name", None) or debug.get(source_name)
                if isinstance(name, str) and name.isidentifier():
                    names.setdefault(symbol, name)
        return names
    return {}


# ============================================================================ converters
# Each takes the importer, the node and its arguments by schema name.


def unary(relax_name: str) -> Converter:
    # torch computes the floating-point functions of integers and booleans in its
    # default float type: the result type says which.
    return lambda imp, node, a: imp.em.op(relax_name, imp.cast(a["self"], imp.out_dtype(node)))


for _aten, _relax in {
    "relu": "relu",
    "sigmoid": "sigmoid",
    "tanh": "tanh",
    "exp": "exp",
    "log": "log",
    "sqrt": "sqrt",
    "rsqrt": "rsqrt",
    "neg": "negative",
    "abs": "abs",
    "sin": "sin",
    "cos": "cos",
    "erf": "erf",
}.items():
    converts(f"aten.{_aten}")(unary(_relax))
converts("aten.silu", half_in_float=True)(unary("silu"))


@converts("aten.isnan")
def _isnan(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = a["self"]
    if dtypes.is_float(imp.em.dtype(x)):
        return imp.em.op("isnan", x)
    return imp.em.full(imp.em.dims(x), False, dtypes.I1)


def binary_operands(
    imp: Importer, lhs: Any, rhs: Any, dtype: Attribute
) -> tuple[SSAValue, SSAValue]:
    """Two operands of a binary operator (tensors, numbers, sizes) as tensors of ``dtype``."""
    em = imp.em
    if not isinstance(lhs, SSAValue):
        lhs = em.full([], lhs, dtype)
    lhs = imp.cast(lhs, dtype)
    return lhs, imp.cast(em.operand(rhs, lhs), dtype)


# ------------------------------------------------------------------ reductions


def reduce_converter(relax_name: str) -> Converter:
    def convert(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
        x = imp.cast(a["self"], imp.out_dtype(node))
        axes = reduced_axes(imp.em, x, a.get("dim"))
        return imp.em.op(relax_name, x, axis=axes, keepdims=bool(a.get("keepdim", False)))

    return convert


def reduced_axes(em: Emitter, x: SSAValue, dim: Any) -> list[int] | None:
    """The axes a torch reduction over ``dim`` reduces (None: all). torch lets a 0-d
    tensor be reduced over dimension 0 or -1, and reads ``dim=[]`` as all dimensions."""
    if dim is None or dim == [] or em.ndim(x) == 0:
        return None
    return [dim] if isinstance(dim, int) else list(dim)


# ------------------------------------------------------------------ neural network


def batched(em: Emitter, x: SSAValue, rank: int, apply: Callable[[SSAValue], Any]) -> Any:
    """``apply`` to ``x``, which torch lets come without its batch axis (of rank
    ``rank - 1``): then to ``x`` with a batch of one, the axis dropped after."""
    if em.ndim(x) != rank - 1:
        return apply(x)
    return em.squeeze(apply(em.unsqueeze(x, [0])), [0])


def items_used(node: torch.fx.Node) -> set[int]:
    """The positions of the node's tuple result that other nodes take."""
    return {u.args[1] for u in node.users if u.target is operator.getitem and u.users}
