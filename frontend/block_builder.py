"""``BlockBuilder``: build relax functions from Python, like Relax's BlockBuilder.

```python
from xrelax import op, te, topi

bb = BlockBuilder()
with bb.function("main", {"x": TensorType.of(["n", 4], F32)}) as (x,):
    with bb.dataflow():
        lv0 = bb.emit(op.exp(x))                       # or bb.emit_op("relax.exp", x)
        lv1 = bb.emit_te(topi.softmax, lv0, axis=1)    # a kernel + relax.call_tir
        gv = bb.emit_output(lv1)
    bb.emit_func_output(gv)
module = bb.get()
```

Result types are deduced eagerly as ops are emitted; the module is the IR the
parser gives for the same text. :meth:`BlockBuilder.emit_te` is the Relax design's
EmitTE staging: relax values become TE placeholders of their symbolic shapes, a TE
function (``te.compute`` or the :mod:`xrelax.topi` library) builds the result, and the
builder adds the ``tir.prim_func`` (shared with a structurally identical one) and a
``relax.call_tir`` to it, passing variables no buffer binds as ``sym [...]``
arguments (call_tir_dyn).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import count
from typing import Any

import numpy as np
import sympy
from xdsl.dialects.builtin import (
    FunctionType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xrelax.dialects.relax import (
    CallPackedOp,
    CallTIROp,
    DataflowOp,
    FuncOp,
    MatchShapeOp,
    OutputOp,
    PrimValueOp,
    ReturnOp,
    ShapeOp,
    ShapeType,
    TensorType,
    TupleType,
    erase_vars_outside,
    show_type,
    type_binds,
    type_free_vars,
)
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.traits import BindsSymbolicVars
from xrelax.ops import te
from xrelax.ops.functions import const_op
from xrelax.ops.library import operator_functions
from xrelax.transforms.kernel_table import KernelTable


class BuilderError(ValueError):
    """Misuse of the builder (e.g. emitting outside a function)."""


class BlockBuilder:
    """Builds a ``builtin.module`` of relax functions (see the module docstring)."""

    def __init__(self, module: ModuleOp | None = None) -> None:
        self.module = module if module is not None else ModuleOp([])
        self._blocks: list[Block] = []
        self._func: FuncOp | None = None
        self._outputs: list[SSAValue] | None = None
        self._output_names: list[str | None] = []
        self._escaped: dict[SSAValue, SSAValue] = {}
        self._defined: set[str] = set()
        """The symbolic variables the function built so far defines."""
        self._te_values: dict[int, tuple[te.Tensor, SSAValue]] = {}
        """id of a placeholder made by :meth:`te_tensor` -> (it, the value it stands for)."""
        self._kernels: KernelTable | None = None

    # ------------------------------------------------------------------ structure

    @contextmanager
    def function(
        self,
        name: str,
        params: Mapping[str, Attribute] | Sequence[tuple[str, Attribute]],
        result_type: Attribute | None = None,
    ) -> Iterator[list[SSAValue]]:
        """Open ``relax.func @name``; yields the parameter values."""
        if self._func is not None:
            raise BuilderError("relax functions do not nest")
        items = list(params.items()) if isinstance(params, Mapping) else list(params)
        block = Block(arg_types=[t for _, t in items])
        for arg, (param, _) in zip(block.args, items, strict=True):
            arg.name_hint = param
        func = FuncOp(
            name, [t for _, t in items], result_type or TensorType.of(None, None), Region(block)
        )
        # In the module while it is built, so that kernels emit_te adds go before it and
        # never take its name.
        self._add_symbol(func)
        self._func = func
        self._declared_result = result_type
        self._defined = set().union(*(type_binds(t) for _, t in items))
        self._blocks.append(block)
        complete = False
        try:
            yield list(block.args)
            complete = True
        finally:
            self._blocks.pop()
            self._func = None
            self._escaped = {}
            if not complete or not isinstance(block.last_op, ReturnOp):
                func.detach()
        if not isinstance(block.last_op, ReturnOp):
            raise BuilderError(f"function @{name} has no result: call emit_func_output")

    @contextmanager
    def dataflow(self) -> Iterator[None]:
        """Open a ``relax.dataflow`` region; values passed to :meth:`emit_output` escape it."""
        if self._outputs is not None:
            raise BuilderError("dataflow regions do not nest")
        block = Block()
        self._blocks.append(block)
        self._outputs, self._output_names = [], []
        try:
            yield
        finally:
            self._blocks.pop()
            outputs, self._outputs = self._outputs, None
        block.add_op(OutputOp(outputs))
        region_op = DataflowOp([v.type for v in outputs], Region(block))
        self._insert(region_op)
        for inner, outer, name in zip(outputs, region_op.results, self._output_names, strict=True):
            outer.name_hint = name
            self._escaped[inner] = outer

    @contextmanager
    def block(self, block: Block) -> Iterator[None]:
        """Emit into ``block``: a region of an op being built (a ``relax.if`` branch)."""
        self._blocks.append(block)
        try:
            yield
        finally:
            self._blocks.pop()

    def emit_output(self, *values: SSAValue | Operation, names: Sequence[str] | None = None) -> Any:
        """Mark dataflow values as outputs, named ``names`` after the region; returns
        handles usable after the region. An operation not emitted yet (``op.reshape(...)``)
        is emitted first."""
        if self._outputs is None:
            raise BuilderError("emit_output is only valid inside a dataflow region")
        values = tuple(self._emitted(value, "emit_output") for value in values)
        self._outputs.extend(values)
        self._output_names.extend(names if names is not None else [None] * len(values))
        return values[0] if len(values) == 1 else values

    def emit_func_output(self, value: SSAValue | Operation) -> None:
        """Return ``value`` from the function (its type fixes the declared result type
        unless one was given; variables bound in the body are erased to the rank)."""
        if self._func is None:
            raise BuilderError("emit_func_output outside a function")
        value = self._emitted(value, "emit_func_output")
        value = self._escaped.get(value, value)
        if self._declared_result is None:
            allowed: set[str] = set()
            for type_ in self._func.function_type.inputs.data:
                allowed |= type_free_vars(type_)
            result = erase_vars_outside(value.type, allowed)
            inputs = self._func.function_type.inputs.data
            self._func.function_type = FunctionType.from_lists(inputs, [result])
        self._insert(ReturnOp(value))

    def _emitted(self, value: Any, what: str) -> SSAValue:
        """``value`` as an inserted SSA value: an operation (or a value of one, or a
        computed ``te.Tensor``) that was built but not emitted yet is emitted here, as
        :meth:`emit` would."""
        if isinstance(value, SSAValue):
            owner = value.owner
            if isinstance(owner, Operation) and owner.parent is None:
                self.emit(owner)
            return value
        if not isinstance(value, Operation | te.Tensor):
            raise BuilderError(
                f"{what}: expected a relax value or operation, got {type(value).__name__}"
            )
        result = self.emit(value)
        if result is None:
            raise BuilderError(f"{what}: {value.name} has no result to output")
        return result

    # ------------------------------------------------------------------ bindings

    def emit(self, op: Operation | te.Tensor, name: str | None = None) -> SSAValue | None:
        """Insert ``op`` at the current point, after the not-yet-inserted operations its
        operands come from (``bb.emit(op.add(op.exp(x), y))``); returns its result (if
        any). A computed ``te.Tensor`` is emitted as :meth:`emit_te` of it."""
        if not isinstance(op, Operation):
            return self.emit_te(lambda: op, name=name)
        for index, operand in enumerate(op.operands):
            owner = operand.owner
            if isinstance(owner, Operation) and owner.parent is None:
                self.emit(owner)
            elif operand in self._escaped:
                op.operands[index] = self._escaped[operand]
        self._insert(op)
        if not op.results:
            return None
        if name is not None:
            op.results[0].name_hint = name
        return op.results[0]

    def emit_op(
        self, op_name: str, *operands: SSAValue, name: str | None = None, **props: Any
    ) -> SSAValue:
        """Emit an operator by name (``"relax.add"`` or ``"add"``): the function
        :mod:`xrelax.op` has for it, called with ``operands`` and ``props``."""
        function = operator_functions().get(op_name.removeprefix("relax."))
        if function is None:
            raise BuilderError(f"'{op_name}' is not a relax operator")
        result = self.emit(function(*operands, **props), name)
        assert result is not None
        return result

    # ------------------------------------------------------------------ EmitTE

    def te_tensor(self, value: SSAValue, name: str | None = None) -> te.Tensor:
        """A TE placeholder standing for the relax tensor ``value``, of its symbolic
        shape and element type (both must be known: ``match_shape`` it first)."""
        type_ = value.type
        if not (
            isinstance(type_, TensorType)
            and type_.dims is not None
            and type_.known_dtype is not None
        ):
            shown = f"%{value.name_hint}" if value.name_hint else "the value"
            raise BuilderError(
                f"te_tensor: {shown} has type {show_type(type_)}; a TE tensor needs a known "
                "shape and element type (match_shape it first)"
            )
        tensor = te.placeholder(type_.dims, type_.dtype, name or value.name_hint or "placeholder")
        self._te_values[id(tensor)] = (tensor, value)
        return tensor

    def emit_te(
        self,
        func: Callable[..., Any],
        *args: Any,
        name: str | None = None,
        primfunc_name: str | None = None,
        **kwargs: Any,
    ) -> SSAValue:
        """Call the TE function ``func`` and emit a ``relax.call_tir`` of the kernel it
        defines; returns the call's result.

        Relax values among ``args`` and ``kwargs`` (also inside lists, tuples, dicts)
        are passed to ``func`` as TE placeholders (tensors, named ``x0``, ``x1``, ...)
        or as their dims (shape values); anything else is passed as it is. ``func``
        returns a computed ``te.Tensor``, or a list/tuple of them (the call then
        returns a tuple). It may also read placeholders made by :meth:`te_tensor`.
        What the ``topi`` functions it calls rely on but cannot prove about the shapes
        (``k == m`` for a matmul) the kernel checks first (``tir.assert``).
        The kernel is named ``primfunc_name`` (default: ``func``'s name, else the
        output's) and shared with a structurally identical kernel of the module;
        symbolic variables no buffer binds are passed as ``sym [...]`` arguments and
        must be defined in the function (by a parameter or a ``match_shape``).
        """
        if self._func is None:
            raise BuilderError("emit_te outside a function")
        arguments: list[te.Tensor] = []
        positions = count()

        def convert(value: Any) -> Any:
            if isinstance(value, SSAValue):
                index = next(positions)
                if isinstance(value.type, ShapeType):
                    if value.type.dims is None:
                        raise BuilderError(
                            f"emit_te: a shape argument of type {show_type(value.type)} has "
                            "no known dims"
                        )
                    return value.type.dims
                tensor = self.te_tensor(value, f"x{index}")
                arguments.append(tensor)
                return tensor
            if isinstance(value, list | tuple):
                return type(value)(convert(v) for v in value)
            if isinstance(value, dict):
                return {k: convert(v) for k, v in value.items()}
            return value

        te_args = [convert(a) for a in args]
        te_kwargs = {k: convert(v) for k, v in kwargs.items()}
        result = func(*te_args, **te_kwargs)
        outputs = list(result) if isinstance(result, list | tuple) else [result]
        if not outputs or not all(
            isinstance(t, te.Tensor) and not t.is_placeholder for t in outputs
        ):
            raise BuilderError(
                "emit_te: the TE function must return a computed te.Tensor (te.compute, a "
                f"topi function) or a list of them, got {result!r}"
            )
        inputs = list(dict.fromkeys(arguments))
        for placeholder in te.placeholders_read(outputs):
            if placeholder in inputs:
                continue
            if id(placeholder) not in self._te_values:
                raise BuilderError(
                    f"emit_te: placeholder '{placeholder.name}' stands for no relax value; "
                    "make it with bb.te_tensor(value) or pass the value as an argument"
                )
            inputs.append(placeholder)
        kernel_name = primfunc_name or _kernel_name(func, outputs[0])
        try:
            # The facts the topi computes rely on (te.Tensor.facts) become its asserts.
            kernel, sym_params = te.create_prim_func(kernel_name, [*inputs, *outputs])
        except (TypeError, ValueError) as err:
            raise BuilderError(f"emit_te: {err}") from None
        used = set(sym_params).union(*(symbolic.free_vars(d) for t in outputs for d in t.shape))
        if undefined := sorted(used - self._defined):
            raise BuilderError(
                f"emit_te: kernel '{kernel_name}' needs symbolic variable(s) "
                f"{', '.join(undefined)}, which the function does not define (bind them "
                "with a parameter or match_shape)"
            )
        if self._kernels is None:
            self._kernels = KernelTable.of_module(self.module)
        callee = self._kernels.add(kernel, self._func)
        types = [TensorType.of(list(t.shape), t.dtype) for t in outputs]
        result_type = TupleType.of(types) if isinstance(result, list | tuple) else types[0]
        values = [self._te_values[id(t)][1] for t in inputs]
        return self.call_tir(callee, values, result_type, sym_params or None, name)

    def match_shape(
        self, value: SSAValue, pattern: Sequence[int | str | sympy.Expr], name: str | None = None
    ) -> SSAValue:
        """``relax.match_shape``: binds the pattern's new variables."""
        result = self.emit(MatchShapeOp(self._escaped.get(value, value), pattern), name)
        assert result is not None
        return result

    def shape(self, dims: Sequence[int | str | sympy.Expr], name: str | None = None) -> SSAValue:
        """``relax.shape [dims]``."""
        result = self.emit(ShapeOp(dims), name)
        assert result is not None
        return result

    def prim_value(self, value: int | str | sympy.Expr, name: str | None = None) -> SSAValue:
        """``relax.prim_value value`` (an i64 symbolic integer as a value)."""
        result = self.emit(PrimValueOp(value), name)
        assert result is not None
        return result

    def const(self, value: np.ndarray, name: str | None = None) -> SSAValue:
        """``relax.const`` of a numpy array."""
        result = self.emit(const_op(value), name)
        assert result is not None
        return result

    def call_tir(
        self,
        callee: str,
        args: Sequence[SSAValue],
        result_type: Attribute,
        sym_args: Sequence[int | str | sympy.Expr] | None = None,
        name: str | None = None,
    ) -> SSAValue:
        """``relax.call_tir @callee(args) sym [...]``."""
        args = [self._escaped.get(a, a) for a in args]
        result = self.emit(CallTIROp(callee, args, result_type, sym_args), name)
        assert result is not None
        return result

    def call_packed(
        self,
        callee: str,
        args: Sequence[SSAValue],
        result_type: Attribute | None = None,
        pure: bool = False,
        name: str | None = None,
    ) -> SSAValue | None:
        """``relax.call_packed "callee"(args)``."""
        args = [self._escaped.get(a, a) for a in args]
        return self.emit(CallPackedOp(callee, args, result_type, pure), name)

    def add_func(self, func: Operation) -> None:
        """Add a finished function (e.g. a ``tir.prim_func``) to the module."""
        self._add_symbol(func)

    def _add_symbol(self, func: Operation) -> None:
        self.module.body.block.add_op(func)
        if self._kernels is not None:
            self._kernels.reserve(func)

    def get(self) -> ModuleOp:
        """The module built so far."""
        return self.module

    def _insert(self, op: Operation) -> None:
        if not self._blocks:
            raise BuilderError("emit outside a function")
        self._blocks[-1].add_op(op)
        if op.has_trait(BindsSymbolicVars):
            self._defined |= type_binds(op.results[0].type)


def _kernel_name(func: Callable[..., Any], output: te.Tensor) -> str:
    """``func``'s name when it is one (not a lambda's), else the output tensor's."""
    name = getattr(func, "__name__", "")
    return name if name.isidentifier() else output.name
