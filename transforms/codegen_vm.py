"""``relax-codegen-vm``: relax functions -> ``vm.func`` (the last step of ``relax-to-vm``).

After the memory and shape lowerings a relax function holds only calls, builtins and
control flow; each op becomes VM instructions on untyped registers:

| relax / vm op | vm |
|---|---|
| ``relax.call_dps @k(args)`` | ``vm.call "k"(args)`` |
| ``relax.call_dps @k(args) {proven}`` | ``vm.builtin.call_tir_unchecked`` (:mod:`proven_calls`) |
| ``relax.call_dps @k(args) sym [..]`` | ``vm.builtin.call_tir_dyn`` (integers as a shape) |
| ``relax.call_packed "f"(args)`` | ``vm.call "f"(args)`` (+ ``op_attrs`` as a constant) |
| ``relax.call @g(args)`` | ``vm.call "g"(args)`` |
| builtins (``vm.alloc_tensor`` ...) | ``vm.call "vm.builtin.*"`` with immediates and constants |
| ``vm.make_prim`` of an integer | ``vm.const`` |
| ``relax.const``, ``relax.shape`` of integers | ``vm.const`` |
| ``relax.shape_of``, ``relax.tuple``, ``relax.get_item`` | the corresponding builtins |
| ``relax.if`` | ``vm.if`` / ``vm.goto`` and a join block |
| ``relax.return`` | ``vm.ret`` |

``tir.prim_func`` kernels stay in the module: they become the executable's library.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.dialects import dtypes, relax, vm
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.relax_memory import CallDPSOp
from xrelax.dialects.tir import PrimFuncOp
from xrelax.ops.attribute_constants import to_constant
from xrelax.ops.base import OperatorOp
from xrelax.transforms.function_walk import rewrite_functions
from xrelax.transforms.proven_calls import PROVEN_ATTR, matches_signature


def constant_attr(value: Any) -> Attribute:
    """A Python constant (str, int, float, tuple, numpy array) as a ``vm.const`` value."""
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, bool | np.bool_):
        return IntegerAttr(int(value), i64)
    if isinstance(value, int | np.integer):
        return IntegerAttr(int(value), i64)
    if isinstance(value, float):
        return FloatAttr(value, dtypes.F64)
    if isinstance(value, tuple):
        return ArrayAttr(tuple(constant_attr(v) for v in value))
    if isinstance(value, np.ndarray):
        type_ = BuiltinTensorType(dtypes.from_numpy(value.dtype), list(value.shape))
        return DenseIntOrFPElementsAttr.from_list(type_, value.ravel().tolist())
    raise TypeError(f"cannot make a VM constant of {value!r}")


class _FunctionCodegen:
    """Translates one relax function into a ``vm.func``."""

    def __init__(self, func: relax.FuncOp, kernels: dict[str, PrimFuncOp]) -> None:
        self.func = func
        self.kernels = kernels
        self.name = func.sym_name.data
        self.vm_func = vm.FuncOp(self.name, func.param_names)
        self.block = self.vm_func.body.blocks.first
        self.values: dict[SSAValue, SSAValue] = dict(
            zip(func.body.block.args, self.block.args, strict=True)
        )
        self.shapes: dict[tuple[tuple[int, int], ...], SSAValue] = {}
        """Shapes already built from the heap and visible at this point (reused)."""

    # ---------------------------------------------------------------- emission helpers

    def emit(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def call(self, callee: str, args: list[SSAValue], result: SSAValue | None) -> None:
        call = self.emit(vm.CallOp(callee, args, has_result=result is not None))
        if result is not None:
            self.bind(result, call.results[0])

    def bind(self, value: SSAValue, register: SSAValue) -> None:
        if value.name_hint and register.name_hint is None:
            register.name_hint = value.name_hint
        self.values[value] = register

    def get(self, value: SSAValue) -> SSAValue:
        return self.values[value]

    def imm(self, value: int) -> SSAValue:
        return self.emit(vm.ImmOp(value)).results[0]

    def const(self, value: Any) -> SSAValue:
        return self.emit(vm.ConstOp(constant_attr(value))).results[0]

    def builtin_args(self, op: vm.VMBuiltinOp) -> list[SSAValue]:
        args = []
        for arg in op.call_args():
            if arg.kind == "value":
                args.append(self.get(arg.value))
            elif arg.kind == "imm":
                args.append(self.imm(arg.value))
            elif arg.kind == "shape":
                args.append(self.shape_value(arg.value))
            else:
                args.append(self.const(arg.value))
        return args

    # ------------------------------------------------------------------------- ops

    def run(self) -> vm.FuncOp:
        self.translate_block(self.func.body.block)
        return self.vm_func

    def translate_block(self, block: Block) -> None:
        for op in block.ops:
            self.translate(op)

    def translate(self, op: Operation) -> None:  # noqa: C901 - one case per op kind
        if isinstance(op, vm.MatchShapeOp):
            self.call(op.builtin(), self.builtin_args(op), None)
            self.bind(op.result, self.get(op.value))
        elif isinstance(op, vm.MakePrimOp) and op.dims.data[0].is_Integer:
            self.bind(op.result, self.const(int(op.dims.data[0])))
        elif isinstance(op, vm.VMBuiltinOp):
            self.call(op.builtin(), self.builtin_args(op), op.results[0] if op.results else None)
        elif isinstance(op, CallDPSOp):
            self.call_dps(op)
        elif isinstance(op, relax.CallPackedOp):
            args = [self.get(a) for a in op.args]
            if op.op_attrs is not None:
                try:
                    args.append(self.const(to_constant(op.op_attrs)))
                except ValueError as err:
                    raise IRError(op, str(err)) from None
            self.call(op.callee.data, args, op.res[0] if op.res else None)
        elif isinstance(op, relax.CallOp):
            self.call(op.callee.string_value(), [self.get(a) for a in op.args], op.result)
        elif isinstance(op, relax.ConstOp):
            self.bind(op.result, self.emit(vm.ConstOp(op.value)).results[0])
        elif isinstance(op, relax.ShapeOp):
            self.bind(op.result, self.const(tuple(int(d) for d in op.dims.data)))
        elif isinstance(op, relax.ShapeOfOp):
            self.call("vm.builtin.shape_of", [self.get(op.value)], op.result)
        elif isinstance(op, relax.TupleOp):
            self.call("vm.builtin.make_tuple", [self.get(a) for a in op.elements], op.result)
        elif isinstance(op, relax.GetItemOp):
            args = [self.get(op.tuple), self.imm(op.index.data)]
            self.call("vm.builtin.tuple_getitem", args, op.result)
        elif isinstance(op, relax.IfOp):
            self.translate_if(op)
        elif isinstance(op, relax.ReturnOp):
            self.emit(vm.RetOp(self.get(op.value)))
        elif isinstance(op, OperatorOp):
            raise IRError(op, "operator is not legalized; run relax-legalize-ops first")
        else:
            raise IRError(op, "cannot generate VM code for this op (is the pipeline complete?)")

    def shape_value(self, dims) -> SSAValue:
        """A constant shape, or ``make_shape`` from the heap (built once per scope)."""
        pattern = vm.shape_pattern(dims)
        if all(kind == 0 for kind, _ in pattern):
            return self.const(tuple(value for _, value in pattern))
        if pattern not in self.shapes:
            heap = self.heap()
            call = self.emit(vm.CallOp("vm.builtin.make_shape", [heap, self.const(pattern)]))
            self.shapes[pattern] = call.results[0]
        return self.shapes[pattern]

    def heap(self) -> SSAValue:
        for value, register in self.values.items():
            owner = value.owner
            if isinstance(owner, vm.AllocShapeHeapOp):
                return register
        raise IRError(self.func, "symbolic shapes remain; run relax-vm-shape-lower first")

    def call_dps(self, op: CallDPSOp) -> None:
        callee = op.callee.string_value()
        args = [self.get(a) for a in op.args]
        if op.sym_args is None:
            kernel = self.kernels.get(callee)
            types = [a.type for a in op.args]
            proven = PROVEN_ATTR in op.attributes
            if proven and kernel is not None and matches_signature(kernel, types):
                func_ref = self.emit(vm.FuncRefOp(callee)).results[0]
                self.call("vm.builtin.call_tir_unchecked", [func_ref, *args], None)
            else:
                self.call(callee, args, None)
            return
        func_ref = self.emit(vm.FuncRefOp(callee)).results[0]
        shape = self.shape_value(op.sym_args.data)
        self.call("vm.builtin.call_tir_dyn", [func_ref, *args, shape], None)

    def translate_if(self, op: relax.IfOp) -> None:
        region = self.vm_func.body
        then_block, else_block = Block(), Block()
        join = Block(arg_types=[vm.REF] * len(op.res))
        self.emit(vm.IfOp(self.get(op.cond), then_block, else_block))
        outer_shapes = dict(self.shapes)
        for block, branch in ((then_block, op.then_region), (else_block, op.else_region)):
            region.add_block(block)
            self.block = block
            self.shapes = dict(outer_shapes)
            body = branch.block
            for inner in body.ops:
                if isinstance(inner, relax.YieldOp):
                    self.emit(vm.GotoOp(join, [self.get(v) for v in inner.values]))
                else:
                    self.translate(inner)
        region.add_block(join)
        self.block = join
        self.shapes = outer_shapes
        for result, register in zip(op.res, join.args, strict=True):
            self.bind(result, register)


class GenerateFunction(RewritePattern):
    """Replace a relax function by its ``vm.func``."""

    def __init__(self, kernels: dict[str, PrimFuncOp]) -> None:
        self.kernels = kernels

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relax.FuncOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, _FunctionCodegen(op, self.kernels).run(), [])


@dataclass(frozen=True)
class CodegenVMPass(ModulePass):
    """Translate every relax function into a ``vm.func``."""

    name = "relax-codegen-vm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels = {k.sym_name.data: k for k in op.ops if isinstance(k, PrimFuncOp)}
        rewrite_functions(op, GenerateFunction(kernels))
