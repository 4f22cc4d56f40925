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
from xrelax.frontend.common import (
    FrontendError,
    ImportedModel,
    ModelBuilder,
    Names,
    Unsupported,
)
from xrelax.frontend.emitter import Emitter

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

_POISON = object()
"""The value of a node whose operator is unsupported (and of everything using it)."""

_Converter = Callable[["_Importer", torch.fx.Node, dict[str, Any]], Any]
_CONVERTERS: dict[str, _Converter] = {}

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


def from_exported_program(program: ExportedProgram) -> ImportedModel:
    """Import ``program`` (from ``torch.export.export``); raises
    :class:`~xrelax.frontend.UnsupportedOperatorsError` listing every unsupported
    operator, or :class:`~xrelax.frontend.FrontendError`. Operators without a converter
    are decomposed by torch first (:mod:`.torch_decompose`)."""
    return _Importer(torch_decompose.decompose(program, _needs_decomposition), program).run()


def _needs_decomposition(node: torch.fx.Node) -> torch._ops.OpOverload | None:
    """The overload torch must decompose for ``node`` to import: its own, or for an
    in-place operator its functional form's; None when a converter takes it."""
    key = _converter_key(node)
    value = node.meta.get("val")
    if key in _IGNORED or key in _CONVERTERS or _is_size(value):
        return None
    target = node.target
    if target._schema.is_mutable:
        target = torch_inplace.functional_form(target)
        if target is None or str(target._overloadpacket) in _CONVERTERS:
            return None
    return target


def _same_function(original: torch.fx.Node, node: torch.fx.Node) -> bool:
    """Whether ``node`` computes what ``original`` does: its functional form (``add_``
    functionalized to ``add``), or its primitive (``lgamma`` to ``prims.lgamma``)."""
    target = original.target
    if isinstance(target, torch._ops.OpOverload) and target._schema.is_mutable:
        return torch_inplace.functional_form(target) == node.target
    name = _target_name(node)
    return name.startswith("prims.") and name.split(".")[1] == _target_name(original).split(".")[1]


def _is_size(value: Any) -> bool:
    """Whether a node's value is a size (computed symbolically, not converted)."""
    return isinstance(value, torch.SymInt | int) and not isinstance(value, bool)


_HALF_IN_FLOAT: set[_Converter] = set()
"""Converters of compositions and reductions, which torch computes in float32 for
float16 tensors (rounding once): the importer does the same."""


def _converts(*names: str, half_in_float: bool = False) -> Callable[[_Converter], _Converter]:
    def register(fn: _Converter) -> _Converter:
        for name in names:
            _CONVERTERS[name] = fn
        if half_in_float:
            _HALF_IN_FLOAT.add(fn)
        return fn

    return register


def _target_name(node: torch.fx.Node) -> str:
    """The operator's name as reported: ``aten.add.Tensor``, ``operator.getitem``."""
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", str(target))
    module = "operator" if module == "_operator" else module
    return f"{module}.{name}" if module else name


def _converter_key(node: torch.fx.Node) -> str:
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return str(target._overloadpacket)
    return _target_name(node)


class _Importer:
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
        name = _target_name(node)
        original = self._original(node)
        if original is None:
            if reason is None and str(node.target) in self.decomposed.pending:
                reason = f"torch cannot decompose it: {self.decomposed.failure}"
            self.builder.unsupported[name if reason is None else f"{name} ({reason})"] += 1
            return _POISON
        if _same_function(original, node):
            what = _target_name(original)
            self.builder.unsupported[what if reason is None else f"{what} ({reason})"] += 1
        else:
            self.gaps.setdefault(original, set()).add(
                name if reason is None else f"{name}: {reason}"
            )
        return _POISON

    def _report_gaps(self) -> None:
        """Report each decomposed operator whose decomposition has unsupported nodes,
        once, with what they are."""
        for original, details in self.gaps.items():
            what = _target_name(original)
            self.builder.unsupported[f"{what} (decomposes to {', '.join(sorted(details))})"] += 1

    def _original(self, node: torch.fx.Node) -> torch.fx.Node | None:
        """The node of the user's program that torch decomposed into ``node``, or None
        (``node`` is in the user's program)."""
        if node.op != "call_function":
            return None
        original = self.original_nodes.get(torch_decompose.origin(node, self.original) or "")
        return None if original is None or original.target == node.target else original

    def _call(self, node: torch.fx.Node) -> Any:
        key = _converter_key(node)
        if key in _IGNORED:
            return None
        value = node.meta.get("val")
        if _is_size(value):
            return self._expr(value)
        if isinstance(node.target, torch._ops.OpOverload) and node.target._schema.is_mutable:
            return self._in_place(node, key)
        converter = _CONVERTERS.get(key)
        if converter is None:
            return self._unsupported(node)
        result = self._convert(node, converter)
        base = self._viewed(node, key)
        if base is not None and result is not _POISON:
            self.view_of[node] = base
            self.seen[node] = self.version[self._root(node)]
        return result

    def _convert(self, node: torch.fx.Node, converter: _Converter, schema: Any = None) -> Any:
        """The value of ``node`` by ``converter``, its arguments bound by ``schema``
        (absent: the node's own)."""
        args = self._bind(node, schema)
        if _poisoned(args):
            return _POISON
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
            raise FrontendError(f"node '{node.name}' ({_target_name(node)}): {err}") from None
        return result

    def _in_float(self, node: torch.fx.Node, converter: _Converter, args: dict[str, Any]) -> Any:
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
                    self.env[node] = self._convert(node, _CONVERTERS[_converter_key(node)])
        return self.env[node]

    def _in_place(self, node: torch.fx.Node, key: str) -> Any:
        """An operator that writes its ``self``: its functional form, written back."""
        functional = torch_inplace.functional_form(node.target)
        converter = None if functional is None else _CONVERTERS.get(str(functional._overloadpacket))
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
        if result is _POISON:
            return _POISON
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
                key, name = _converter_key(node), _target_name(node)
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


def _poisoned(value: Any) -> bool:
    if value is _POISON:
        return True
    if isinstance(value, list | dict):
        items = value.values() if isinstance(value, dict) else value
        return any(_poisoned(v) for v in items)
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


def _unary(relax_name: str) -> _Converter:
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
    _converts(f"aten.{_aten}")(_unary(_relax))
_converts("aten.silu", half_in_float=True)(_unary("silu"))


@_converts("aten.isnan")
def _isnan(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = a["self"]
    if dtypes.is_float(imp.em.dtype(x)):
        return imp.em.op("isnan", x)
    return imp.em.full(imp.em.dims(x), False, dtypes.I1)


@_converts("aten.clone", "aten.contiguous", "aten.alias", "aten.detach", "aten.lift_fresh_copy")
def _identity(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return a["self"]


@_converts(
    "aten.dropout", "aten.feature_dropout", "aten.alpha_dropout", "aten.feature_alpha_dropout"
)
def _dropout(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    if a["train"]:
        raise Unsupported("train=True")
    return a["input"]


@_converts("aten.gelu", half_in_float=True)
def _gelu(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    if a["approximate"] == "tanh":
        return imp.em.gelu_tanh(a["self"])
    return imp.em.op("gelu", a["self"])


@_converts("aten.hardtanh", "aten.clamp")
def _clamp(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    low = a.get("min", a.get("min_val"))
    high = a.get("max", a.get("max_val"))
    return imp.em.clamp(a["self"], low, high)


@_converts("aten.hardsigmoid", half_in_float=True)
def _hardsigmoid(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.hard_sigmoid(a["self"])


@_converts("aten.hardswish", half_in_float=True)
def _hardswish(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.hard_swish(a["self"])


@_converts("aten.relu6")
def _relu6(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.clamp(a["self"], 0.0, 6.0)


@_converts("aten.leaky_relu")
def _leaky_relu(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    positive = em.op("greater", x, em.scalar(0, x))
    return em.op("where", positive, x, em.op("multiply", x, em.scalar(a["negative_slope"], x)))


@_converts("aten._safe_softmax", half_in_float=True)
def _safe_softmax(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.safe_softmax(imp.cast(a["self"], imp.out_dtype(node)), a["dim"])


@_converts(
    "aten.softmax", "aten._softmax", "aten.log_softmax", "aten._log_softmax", half_in_float=True
)
def _softmax(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = imp.cast(a["self"], imp.out_dtype(node))
    name = "log_softmax" if "log" in _converter_key(node) else "softmax"
    return imp.em.op(name, x, axis=a["dim"])


_BINARY = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "div": "divide",
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


def _binary(relax_name: str) -> _Converter:
    def convert(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
        em, dtype = imp.em, imp.out_dtype(node)
        lhs, rhs = a["self"], a["other"] if "other" in a else a["exponent"]
        if a.get("rounding_mode") is not None:
            raise Unsupported(f"rounding_mode={a['rounding_mode']!r}")
        lhs, rhs = _operands(imp, lhs, rhs, dtype)
        if a.get("alpha") not in (None, 1):
            scale = "bitwise_and" if dtypes.is_bool(dtype) else "multiply"
            rhs = em.op(scale, rhs, em.operand(a["alpha"], rhs))
        if dtypes.is_bool(dtype) and relax_name in _BOOLEAN:
            return em.op(_BOOLEAN[relax_name], lhs, rhs)
        if relax_name == "power" and not (dtypes.is_float(dtype) or dtypes.is_bool(dtype)):
            return _integer_power(em, lhs, rhs)
        return em.op(relax_name, lhs, rhs)

    return convert


def _operands(imp: _Importer, lhs: Any, rhs: Any, dtype: Attribute) -> tuple[SSAValue, SSAValue]:
    """Two operands of a binary operator (tensors, numbers, sizes) as tensors of ``dtype``."""
    em = imp.em
    if not isinstance(lhs, SSAValue):
        lhs = em.full([], lhs, dtype)
    lhs = imp.cast(lhs, dtype)
    return lhs, imp.cast(em.operand(rhs, lhs), dtype)


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


def _compare(relax_name: str) -> _Converter:
    def convert(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
        # torch compares in the type both operands promote to
        dtype = imp.promoted(node, "self", "other")
        return imp.em.op(relax_name, *_operands(imp, a["self"], a["other"], dtype))

    return convert


for _aten, _relax in _BINARY.items():
    _converts(f"aten.{_aten}")(_binary(_relax))
for _aten, _relax in _COMPARE.items():
    _converts(f"aten.{_aten}")(_compare(_relax))


@_converts("aten.rsub")
def _rsub(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return _binary("subtract")(
        imp, node, {"self": a["other"], "other": a["self"], "alpha": a["alpha"]}
    )


@_converts("aten.where")
def _where(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, dtype = imp.em, imp.out_dtype(node)
    x, y = a["self"], a["other"]
    like = x if isinstance(x, SSAValue) else y
    x = em.operand(x, like) if isinstance(like, SSAValue) else em.const(x, dtype)
    y = em.operand(y, x)
    return em.op("where", a["condition"], imp.cast(x, dtype), imp.cast(y, dtype))


@_converts("aten.logical_not")
def _logical_not(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = imp.cast(a["self"], dtypes.I1)
    return imp.em.op("equal", x, imp.em.const(False, dtypes.I1))


@_converts("aten.any")
def _any(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em = imp.em
    x = imp.cast(a["self"], dtypes.I32)
    axes = _reduced_axes(em, x, a.get("dim"))
    total = em.op("max", x, axis=axes, keepdims=bool(a.get("keepdim", False)))
    return em.op("not_equal", total, em.scalar(0, total))


# ------------------------------------------------------------------ linear algebra


@_converts("aten.linear", half_in_float=True)
def _linear(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.linear(a["input"], a["weight"], a["bias"])


@_converts("aten.matmul", "aten.mm", "aten.bmm", half_in_float=True)
def _matmul(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    rhs = a["other"] if "other" in a else a["mat2"]
    return imp.em.op("matmul", a["self"], rhs)


@_converts("aten.addmm", half_in_float=True)
def _addmm(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.gemm(a["mat1"], a["mat2"], a["self"], alpha=a["alpha"], beta=a["beta"])


# ------------------------------------------------------------------ layout


@_converts("aten.t", "aten.numpy_T")
def _t(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = a["self"]
    return imp.em.permute(x, list(reversed(range(imp.em.ndim(x)))))


@_converts("aten.mT", "aten.mH", "aten.adjoint")
def _matrix_transpose(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # the conjugate of a real matrix is itself
    return imp.em.transpose(a["self"], -2, -1)


@_converts("aten.transpose", "aten.swapaxes")
def _transpose(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    first, second = (a["dim0"], a["dim1"]) if "dim0" in a else (a["axis0"], a["axis1"])
    return imp.em.transpose(a["self"], first, second)


@_converts("aten.permute")
def _permute(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.permute(a["self"], a["dims"])


@_converts(
    "aten.view",
    "aten.reshape",
    "aten._unsafe_view",
    "aten.view_copy",
    "aten.flatten",
    "aten.unflatten",
    "aten.unsqueeze",
    "aten.squeeze",
)
def _reshape(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"] if "self" in a else a["input"]
    key = _converter_key(node)
    if key == "aten.unsqueeze":
        return em.unsqueeze(x, [a["dim"]])
    if key == "aten.squeeze":
        dims = a.get("dim", a.get("dims"))
        return em.squeeze(x, None if dims is None else [dims] if isinstance(dims, int) else dims)
    return em.reshape(x, imp.out_dims(node))


@_converts("aten.expand", "aten.expand_copy", "aten.broadcast_to", "aten.expand_as")
def _expand(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.broadcast_to(a["self"], imp.out_dims(node))


@_converts("aten.select")
def _select(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    index = a["index"]
    if not isinstance(index, int):
        raise Unsupported("a symbolic index")
    return imp.em.select(a["self"], a["dim"], index)


@_converts("aten.slice")
def _slice(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    start = a["start"] if a["start"] is not None else 0
    end = a["end"] if a["end"] is not None else 2**63 - 1
    if isinstance(start, SSAValue) or isinstance(end, SSAValue):
        raise Unsupported("a bound computed at run time")
    return imp.em.slice(a["self"], a["dim"], start, end, a["step"])


@_converts("aten.cat", "aten.concat", "aten.concatenate")
def _cat(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
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


@_converts("aten.stack")
def _stack(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    tensors = [imp.em.unsqueeze(t, [a["dim"]]) for t in a["tensors"]]
    return imp.em.op("concat", *tensors, axis=a["dim"])


@_converts("aten.split", "aten.split_with_sizes", "aten.chunk", "aten.unbind")
def _split(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x, dim = imp.em, a["self"], a.get("dim", 0)
    pieces = node.meta["val"]
    unbind = _converter_key(node) == "aten.unbind"
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


@_converts("aten.roll")
def _roll(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    shifts, dims = list(a["shifts"]), list(a["dims"])
    if not all(isinstance(v, int) for v in shifts):
        raise Unsupported("a symbolic shift")
    if not dims:
        flat = em.reshape(x, [-1])
        return em.reshape(em.roll(flat, shifts, [0]), em.dims(x))
    return em.roll(x, shifts, dims)


@_converts("aten.constant_pad_nd", "aten.pad")
def _pad(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    if a.get("mode", "constant") != "constant":
        from xrelax.frontend.torch_reduce import pad_like_torch

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


@_converts("aten.as_strided")
def _as_strided(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
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


def _sizes(imp: _Importer, values: Sequence[Any]) -> list[sympy.Expr]:
    """A ``SymInt[]`` argument as relax expressions (size nodes are converted already)."""
    return [v if isinstance(v, sympy.Expr) else imp._expr(v) for v in values]


def _contiguous(shape: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return list(reversed(strides))


@_converts("aten.index_select")
def _index_select(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # torch counts indices from the start only (a negative one is an error), and reads a
    # 0-d tensor or index as one of one element.
    em, x, index = imp.em, a["self"], a["index"]
    x = em.reshape(x, [1]) if em.ndim(x) == 0 else x
    index = em.reshape(index, [1]) if em.ndim(index) == 0 else index
    taken = em.op("take", x, index, axis=a["dim"] % em.ndim(x), negative_indices=False)
    return em.reshape(taken, imp.out_dims(node))


@_converts(
    "torch.ops.higher_order.wrap_with_set_grad_enabled",
    "torch.ops.higher_order.wrap_with_autocast",
)
def _wrapped_subgraph(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # A region torch.export keeps under grad or autocast mode (Llama's rotary embedding):
    # in inference both are no-ops, so the body is inlined.
    args = [a[str(i)] for i in range(len(a))]
    body = next(i for i, v in enumerate(args) if isinstance(v, torch.fx.GraphModule))
    if "autocast" in _target_name(node) and args[2]:
        raise Unsupported("autocast enabled")
    return imp.inline(args[body], args[body + 1 :])


@_converts("operator.getitem")
def _getitem(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    item = a["0"][a["1"]]
    if isinstance(item, _Unconverted) and node.users:
        raise Unsupported(item.what)
    return item


@_converts("aten.tril", "aten.triu")
def _triangle(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    name = _converter_key(node).removeprefix("aten.")
    return imp.em.op(name, a["self"], k=a["diagonal"] or None)


# ------------------------------------------------------------------ reductions


def _reduce(relax_name: str) -> _Converter:
    def convert(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
        x = imp.cast(a["self"], imp.out_dtype(node))
        axes = _reduced_axes(imp.em, x, a.get("dim"))
        return imp.em.op(relax_name, x, axis=axes, keepdims=bool(a.get("keepdim", False)))

    return convert


def _reduced_axes(em: Emitter, x: SSAValue, dim: Any) -> list[int] | None:
    """The axes a torch reduction over ``dim`` reduces (None: all). torch lets a 0-d
    tensor be reduced over dimension 0 or -1, and reads ``dim=[]`` as all dimensions."""
    if dim is None or dim == [] or em.ndim(x) == 0:
        return None
    return [dim] if isinstance(dim, int) else list(dim)


for _aten, _relax in {"mean": "mean", "sum": "sum"}.items():
    _converts(f"aten.{_aten}", half_in_float=True)(_reduce(_relax))
for _aten, _relax in {"amax": "max", "amin": "min"}.items():
    _converts(f"aten.{_aten}")(_reduce(_relax))


# ------------------------------------------------------------------ neural network


def _batched(em: Emitter, x: SSAValue, rank: int, apply: Callable[[SSAValue], Any]) -> Any:
    """``apply`` to ``x``, which torch lets come without its batch axis (of rank
    ``rank - 1``): then to ``x`` with a batch of one, the axis dropped after."""
    if em.ndim(x) != rank - 1:
        return apply(x)
    return em.squeeze(apply(em.unsqueeze(x, [0])), [0])


@_converts("aten.batch_norm", "aten._native_batch_norm_legit_no_training", half_in_float=True)
def _batch_norm(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em = imp.em
    if a.get("training"):
        raise Unsupported("training=True")
    y = em.batch_norm(
        a["input"], a["running_mean"], a["running_var"], a["weight"], a["bias"], a["eps"]
    )
    if _converter_key(node) == "aten.batch_norm":
        return y
    # In inference the saved mean and inverse deviation are empty.
    return [y, *(em.full([0], 0, em.dtype(y)) if k in _items_used(node) else None for k in (1, 2))]


@_converts("aten.layer_norm", "aten.native_layer_norm", half_in_float=True)
def _layer_norm(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["input"]
    ndim = em.ndim(x)
    axes = list(range(ndim - len(a["normalized_shape"]), ndim))
    y = em.layer_norm(x, axes, a["weight"], a["bias"], a["eps"])
    if _converter_key(node) == "aten.layer_norm":
        return y
    if not {1, 2} & _items_used(node):
        return [y, None, None]
    mean = em.op("mean", x, axis=axes, keepdims=True)
    centered = em.op("subtract", x, mean)
    variance = em.op("mean", em.op("multiply", centered, centered), axis=axes, keepdims=True)
    return [y, mean, em.op("rsqrt", em.op("add", variance, em.scalar(a["eps"], variance)))]


_GATES = {"lstm": "ifgo", "gru": "rzn"}
"""The gate blocks of torch's recurrent weights, in order (one for a plain RNN)."""


def _items_used(node: torch.fx.Node) -> set[int]:
    """The positions of the node's tuple result that other nodes take."""
    return {u.args[1] for u in node.users if u.target is operator.getitem and u.users}


class _Unconverted:
    """A result of an operator that is not converted: using it is unsupported."""

    def __init__(self, what: str) -> None:
        self.what = what


def _pair(values: Any) -> list[int]:
    """A 2-d pooling attribute as two values (torch allows one for both)."""
    values = [values] if isinstance(values, int) else list(values)
    return values * 2 if len(values) == 1 else values


@_converts("aten.adaptive_avg_pool2d", "aten._adaptive_avg_pool2d", half_in_float=True)
def _adaptive_avg_pool2d(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    output = _pair(a["output_size"])
    if not all(isinstance(o, int) or o is None for o in output):
        raise Unsupported("a symbolic output size")
    return _batched(imp.em, a["self"], 4, lambda x: imp.em.adaptive_avg_pool2d(x, output))


@_converts("aten.scaled_dot_product_attention", half_in_float=True)
def _attention(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    if a["is_causal"] and a["attn_mask"] is not None:
        raise Unsupported("attn_mask with is_causal=True")
    if a["dropout_p"]:
        raise Unsupported("dropout_p > 0")
    if a.get("enable_gqa"):
        raise Unsupported("enable_gqa=True")
    q, k = a["query"], a["key"]
    mask = imp.em.causal_mask(q, k) if a["is_causal"] else a["attn_mask"]
    return imp.em.attention(q, k, a["value"], mask, a["scale"])


@_converts("aten.embedding")
def _embedding(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # a negative index is an error in torch
    return imp.em.op("take", a["weight"], a["indices"], axis=0, negative_indices=False)


@_converts("aten.lstm", "aten.gru", "aten.rnn_tanh", "aten.rnn_relu", half_in_float=True)
def _recurrent(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["input"]
    cell = _converter_key(node).removeprefix("aten.")
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


@_converts("aten._to_copy", "aten.to", "aten.type_as")
def _to(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.cast(a["self"], imp.out_dtype(node))


@_converts("aten.full_like", "aten.zeros_like", "aten.ones_like")
def _full_like(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, dtype = imp.em, imp.out_dtype(node)
    key = _converter_key(node)
    fill = {"aten.zeros_like": 0, "aten.ones_like": 1}.get(key, a.get("fill_value"))
    if not isinstance(fill, int | float | bool):
        raise Unsupported("a symbolic fill value")
    return em.op("full", em.shape(imp.out_dims(node)), em.const(fill, dtype))


# ------------------------------------------------------------------ sizes as values, masks


def _size_list(sizes: Sequence[Any]) -> list[sympy.Expr]:
    """A ``SymInt[]`` argument (ints, and sizes already relax expressions)."""
    return [symbolic.as_expr(s) for s in sizes]


@_converts("aten.arange")
def _arange(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    bounds = [a.get("start", 0), a["end"], a.get("step", 1)]
    if any(isinstance(b, SSAValue) for b in bounds):
        raise Unsupported("a bound computed at run time")
    if any(isinstance(b, float) and not b.is_integer() for b in bounds):
        raise Unsupported("fractional bounds")
    start, end, step = (imp.em.prim(int(b) if isinstance(b, float) else b) for b in bounds)
    return imp.em.op("arange", start, end, step, dtype=imp.out_dtype(node))


@_converts("aten.fmod", "aten.remainder")
def _fmod(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, dtype = imp.em, imp.out_dtype(node)
    lhs, rhs = a["self"], a["other"]
    if not isinstance(lhs, SSAValue):
        lhs = em.full([], lhs, dtype)
    lhs = imp.cast(lhs, dtype)
    rhs = imp.cast(em.operand(rhs, lhs), dtype)
    if _converter_key(node) == "aten.fmod":
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


@_converts(*(f"aten.{name}" for name in _BITWISE))
def _bitwise(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, name = imp.em, _converter_key(node).removeprefix("aten.")
    lhs, rhs = a["self"], a["other"]
    dtype = dtypes.I1 if name.startswith("logical") else imp.out_dtype(node)
    if not isinstance(lhs, SSAValue):
        lhs = em.full([], lhs, dtype)
    lhs = imp.cast(lhs, dtype)
    return em.op(_BITWISE[name], lhs, imp.cast(em.operand(rhs, lhs), dtype))


@_converts("aten.bitwise_not")
def _bitwise_not(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = a["self"]
    if dtypes.is_bool(imp.em.dtype(x)):
        return imp.em.op("equal", x, imp.em.const(False, dtypes.I1))
    return imp.em.op("bitwise_xor", x, imp.em.scalar(dtypes.all_ones(imp.em.dtype(x)), x))


@_converts("aten.copy")
def _copy(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    src = imp.cast(a["src"], imp.out_dtype(node))
    return imp.em.broadcast_to(src, imp.out_dims(node))


@_converts("aten.fill", "aten.zero")
def _fill(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return _filled(imp, node, a.get("value", 0))


@_converts(
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
def _create(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    key = _converter_key(node).removeprefix("aten.").removeprefix("new_")
    fill = {"zeros": 0, "ones": 1, "empty": 0}.get(key)
    if fill is None:
        fill = a["s"] if key == "scalar_tensor" else a["fill_value"]
    return _filled(imp, node, fill)


def _filled(imp: _Importer, node: torch.fx.Node, fill: Any) -> SSAValue:
    """A tensor of the node's shape and element type, every element ``fill`` (a number,
    a symbolic size: a prim value, or a 0-d tensor)."""
    em, dtype, dims = imp.em, imp.out_dtype(node), imp.out_dims(node)
    if isinstance(fill, SSAValue):
        return em.broadcast_to(imp.cast(fill, dtype), dims)
    return em.full(dims, fill, dtype)


@_converts("aten.masked_fill")
def _masked_fill(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    em, x = imp.em, a["self"]
    value = a["value"]
    value = imp.cast(value, em.dtype(x)) if isinstance(value, SSAValue) else em.operand(value, x)
    return em.op("where", a["mask"], value, x)


@_converts("aten.index")
def _index(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.index(a["self"], a["indices"])


@_converts("aten.gather")
def _gather(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    # torch counts indices from the start only (a negative one is an error), and reads a
    # 0-d tensor as one of one element.
    em, x, index = imp.em, a["self"], a["index"]
    if em.ndim(x) == 0:
        x, index = em.reshape(x, [1]), em.reshape(index, [-1])
    gathered = em.op("gather_elements", x, index, axis=a["dim"], negative_indices=False)
    return em.reshape(gathered, imp.out_dims(node))


@_converts("aten.take_along_dim")
def _take_along_dim(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
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


@_converts("aten.cumsum", half_in_float=True)
def _cumsum(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = imp.cast(a["self"], imp.out_dtype(node))
    if imp.em.ndim(x) == 0:  # torch's dimension 0 (or -1) of a 0-d tensor
        return x
    return imp.em.op("cumsum", x, axis=a["dim"])


@_converts("aten.diff")
def _diff(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
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


@_converts("aten.min", "aten.max")
def _min_max(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    name = _converter_key(node).removeprefix("aten.")
    if "other" in a:
        return _binary(f"{name}imum")(imp, node, a)
    if "dim" not in a:
        return imp.em.op(name, a["self"])
    from xrelax.frontend.torch_reduce import indices_of_extreme

    x = a["self"]
    values = imp.em.op(
        name, x, axis=_reduced_axes(imp.em, x, a["dim"]), keepdims=bool(a["keepdim"])
    )
    return [values, indices_of_extreme(imp, x, name, a["dim"], bool(a["keepdim"]))]


@_converts("aten.repeat")
def _repeat(imp: _Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    return imp.em.tile(a["self"], _size_list(a["repeats"]))


# Converter families in modules of their own register themselves on import.
from xrelax.frontend import torch_control, torch_nn, torch_reduce, torch_tensor  # noqa: E402, F401, I001


def _supported() -> list[str]:
    return sorted(_CONVERTERS)


SUPPORTED: list[str] = _supported()
"""The ATen operators (overload packets) and Python operators the importer converts;
operators on sizes (``aten.sym_size``, ``operator.mul`` of sizes, ...) are computed
symbolically, and run-time assertions are dropped."""
