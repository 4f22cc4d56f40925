"""``BlockBuilder``: build relax functions from Python, like Relax's BlockBuilder.

```python
bb = BlockBuilder()
with bb.function("main", {"x": TensorType.of(["n", 4], F32)}) as (x,):
    with bb.dataflow():
        lv0 = bb.emit_op("relax.exp", x)
        gv = bb.emit_output(lv0)
    bb.emit_func_output(gv)
module = bb.get()
```

Result types are deduced eagerly as ops are emitted; the module is the IR the
parser gives for the same text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import sympy
from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    i64,
)
from xdsl.dialects.builtin import (
    TensorType as BuiltinTensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.relax import (
    CallPackedOp,
    CallTIROp,
    ConstOp,
    DataflowOp,
    DeducedResultOp,
    FuncOp,
    MatchShapeOp,
    OutputOp,
    PrimType,
    PrimValueOp,
    ReturnOp,
    ShapeOp,
    ShapeType,
    TensorType,
    TupleType,
    get_dialect,
    type_free_vars,
)


class BuilderError(ValueError):
    """Misuse of the builder (e.g. emitting outside a function)."""


def to_attribute(value: Any) -> Attribute:
    """A Python property value as an MLIR attribute (ints -> i64, lists -> array<i64>)."""
    if isinstance(value, Attribute):
        return value
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, dtypes.F32)
    if isinstance(value, Sequence) and all(isinstance(v, int) for v in value):
        return DenseArrayBase.from_list(i64, list(value))
    raise BuilderError(f"cannot turn {value!r} into an attribute")


def _erase_local_vars(type_: Attribute, allowed: set[str]) -> Attribute:
    """``type_`` made less specific where it mentions variables outside ``allowed``."""
    if not type_free_vars(type_) - allowed:
        return type_
    if isinstance(type_, TensorType):
        return TensorType.of(type_.ndim, type_.known_dtype)
    if isinstance(type_, ShapeType):
        return ShapeType.of(type_.ndim)
    if isinstance(type_, PrimType):
        return PrimType.of(type_.dtype)
    if isinstance(type_, TupleType):
        return TupleType.of(_erase_local_vars(t, allowed) for t in type_.types)
    return type_


class BlockBuilder:
    """Builds a ``builtin.module`` of relax functions (see the module docstring)."""

    def __init__(self, module: ModuleOp | None = None) -> None:
        self.module = module if module is not None else ModuleOp([])
        self._blocks: list[Block] = []
        self._func: FuncOp | None = None
        self._outputs: list[SSAValue] | None = None
        self._output_names: list[str | None] = []
        self._escaped: dict[SSAValue, SSAValue] = {}
        self._ops = {op.name: op for op in get_dialect().operations}

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
        self._func = FuncOp(
            name, [t for _, t in items], result_type or TensorType.of(None, None), Region(block)
        )
        self._declared_result = result_type
        self._blocks.append(block)
        try:
            yield list(block.args)
        finally:
            self._blocks.pop()
            func, self._func = self._func, None
            self._escaped = {}
        if not isinstance(block.last_op, ReturnOp):
            raise BuilderError(f"function @{name} has no result: call emit_func_output")
        self.module.body.block.add_op(func)

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

    def emit_output(self, *values: SSAValue, names: Sequence[str] | None = None) -> Any:
        """Mark dataflow values as outputs, named ``names`` after the region; returns
        handles usable after the region."""
        if self._outputs is None:
            raise BuilderError("emit_output is only valid inside a dataflow region")
        self._outputs.extend(values)
        self._output_names.extend(names if names is not None else [None] * len(values))
        return values[0] if len(values) == 1 else values

    def emit_func_output(self, value: SSAValue) -> None:
        """Return ``value`` from the function (its type fixes the declared result type
        unless one was given; variables bound in the body are erased to the rank)."""
        if self._func is None:
            raise BuilderError("emit_func_output outside a function")
        value = self._escaped.get(value, value)
        if self._declared_result is None:
            allowed: set[str] = set()
            for type_ in self._func.function_type.inputs.data:
                allowed |= type_free_vars(type_)
            result = _erase_local_vars(value.type, allowed)
            inputs = self._func.function_type.inputs.data
            self._func.function_type = FunctionType.from_lists(inputs, [result])
        self._insert(ReturnOp(value))

    # ------------------------------------------------------------------ bindings

    def emit(self, op: Operation, name: str | None = None) -> SSAValue | None:
        """Insert ``op`` at the current point; returns its result (if any)."""
        for index, operand in enumerate(op.operands):
            if operand in self._escaped:
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
        """Emit an operator by name (``"relax.add"``) with its result type deduced."""
        op_type = self._ops.get(op_name if "." in op_name else f"relax.{op_name}")
        if op_type is None or not issubclass(op_type, DeducedResultOp):
            raise BuilderError(f"'{op_name}' is not a relax operator")
        operands = tuple(self._escaped.get(o, o) for o in operands)
        attrs = {k: to_attribute(v) for k, v in props.items() if v is not None}
        op = op_type.create(
            operands=list(operands),
            properties=attrs,
            result_types=[op_type.deduce([o.type for o in operands], attrs)],
        )
        result = self.emit(op, name)
        assert result is not None
        return result

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
        array = np.asarray(value)
        dtype = dtypes.from_numpy(array.dtype)
        builtin_type = BuiltinTensorType(dtype, list(array.shape))
        data = array.ravel().tolist()
        attr = DenseIntOrFPElementsAttr.from_list(builtin_type, data)
        result = self.emit(ConstOp(attr, TensorType.of(list(array.shape), dtype)), name)
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
        self.module.body.block.add_op(func)

    def get(self) -> ModuleOp:
        """The module built so far."""
        return self.module

    def _insert(self, op: Operation) -> None:
        if not self._blocks:
            raise BuilderError("emit outside a function")
        self._blocks[-1].add_op(op)
