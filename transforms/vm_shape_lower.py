"""``relax-vm-shape-lower``: symbolic shapes -> the per-call shape heap.

Every symbolic variable of a relax function gets a slot of a heap allocated at entry
(``vm.alloc_shape_heap``), and so does every compound expression the function needs
at run time (allocation sizes, tensor shapes, shape values, ``call_dps`` symbolic
arguments, checked pattern dimensions). Then:

* each parameter is checked (``vm.check_tensor``: rank and dtype) and matched
  (``vm.match_shape``): the first occurrence of a variable stores it, later ones
  check it; ``relax.match_shape`` likewise;
* compound expressions are computed into their slots by generated tir shape
  functions (``tir.prim_func @<f>_shape<k>`` taking the heap and the variables as
  ``sym`` integers), called right after the binding site that makes them computable;
  dimensions of a pattern that are expressions are checked after that;
* every remaining symbolic dimension mentions only heap slots ``h<k>`` and integers:
  ``relax.shape`` becomes ``vm.make_shape``, and the sizes of ``vm.alloc_storage`` /
  ``vm.alloc_tensor`` and the ``sym`` arguments of ``relax.call_dps`` are rewritten.

Run it after ``relax-to-non-dataflow`` and ``relax-vm-memory-lower``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from xrelax.dialects import dtypes, tir, vm
from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.relax import (
    CallOp,
    CallPackedOp,
    DataflowOp,
    FuncOp,
    GetItemOp,
    MatchShapeOp,
    PrimType,
    PrimValueOp,
    ShapeOp,
    ShapeType,
    TensorType,
    TupleType,
)
from xrelax.dialects.relax_memory import CallDPSOp
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import Dims
from xrelax.transforms.function_walk import rewrite_functions

HEAP_DTYPE = dtypes.I64

_PendingCheck = tuple[SSAValue, Dims, str, Attribute]
"""A value, its dims with expressions, the message context and its type."""


def _type_dims(type_: Attribute) -> list[sympy.Expr]:
    """The symbolic dims a type holds (tuple fields included)."""
    if isinstance(type_, TensorType | ShapeType) and type_.dims is not None:
        return list(type_.dims)
    if isinstance(type_, PrimType) and type_.expr is not None:
        return [type_.expr]
    if isinstance(type_, TupleType):
        return [d for t in type_.types for d in _type_dims(t)]
    return []


def checked_result(op: Operation) -> Attribute | None:
    """The result type to check at run time after ``op``: a ``relax.call`` whose declared
    result claims more than the callee's proves, and every ``relax.call_packed`` result
    (a packed function promises nothing)."""
    if isinstance(op, CallOp) and op.result_needs_check():
        return op.result.type
    if isinstance(op, CallPackedOp) and op.res:
        return op.res[0].type
    return None


def _match_op(type_: Attribute) -> type[vm.MatchShapeOp | vm.MatchPrimOp]:
    """The vm op matching a value of ``type_``."""
    return vm.MatchPrimOp if isinstance(type_, PrimType) else vm.MatchShapeOp


def _needed_exprs(func: FuncOp) -> list[sympy.Expr]:
    """Every symbolic expression the function needs at run time, in program order."""
    exprs: list[sympy.Expr] = []
    for type_ in func.function_type.inputs.data:
        exprs += _type_dims(type_)
    for op in func.walk():
        if (checked := checked_result(op)) is not None:
            exprs += _type_dims(checked)
        if isinstance(op, MatchShapeOp):
            exprs += op.pattern.data
        elif isinstance(op, ShapeOp):
            exprs += op.dims.data
        elif isinstance(op, PrimValueOp) and op.result.uses:
            exprs.append(op.expr)
        elif isinstance(op, CallDPSOp) and op.sym_args is not None:
            exprs += op.sym_args.data
        elif isinstance(op, vm.AllocStorageOp):
            exprs += op.size.data
        elif isinstance(op, vm.AllocTensorOp):
            exprs += [*op.offset.data, *op.shape.data]
        elif isinstance(op, vm.AllocTensorDirectOp):
            exprs += op.shape.data
    return exprs


@dataclass
class _Heap:
    """Slot assignment of one function."""

    slots: dict[sympy.Expr, int] = field(default_factory=dict)

    def slot(self, expr: sympy.Expr) -> int:
        if expr not in self.slots:
            self.slots[expr] = len(self.slots)
        return self.slots[expr]

    def lower(self, expr: sympy.Expr) -> sympy.Expr:
        """``expr`` as an integer or the slot symbol holding it."""
        return expr if expr.is_Integer else vm.heap_slot(self.slots[expr])

    def lower_dims(self, dims: Dims) -> Dims:
        return tuple(self.lower(d) for d in dims)


class _FunctionLowering:
    """Lowers the shapes of one relax function."""

    def __init__(self, func: FuncOp, module: Operation, rewriter: PatternRewriter) -> None:
        self.func = func
        self.name = func.sym_name.data
        self.module = module
        self.rewriter = rewriter
        self.heap = _Heap()
        exprs = _needed_exprs(func)
        for expr in exprs:
            for var in sorted(expr.free_symbols, key=lambda s: s.name):
                self.heap.slot(var)
        self.compound = list(
            dict.fromkeys(e for e in exprs if not e.is_Integer and not e.is_Symbol)
        )
        for expr in self.compound:
            self.heap.slot(expr)
        self.shape_funcs = 0
        self.heap_value: SSAValue | None = None

    def run(self) -> None:
        block = self.func.body.block
        heap_type = TensorType.of([max(len(self.heap.slots), 1)], HEAP_DTYPE)
        alloc = vm.AllocShapeHeapOp(max(len(self.heap.slots), 1), heap_type)
        alloc.heap.name_hint = "shape_heap"
        self.rewriter.insert(alloc, InsertPoint.at_start(block))
        self.heap_value = alloc.heap
        cursor: Operation = alloc
        bound: set[str] = set()
        computed: set[sympy.Expr] = set()
        pending: list[_PendingCheck] = []
        for arg, param, type_ in zip(
            block.args, self.func.param_names, self.func.function_type.inputs.data, strict=True
        ):
            context = f"{self.name}: parameter '{param}'"
            cursor = self._check_value(arg, type_, context, bound, cursor, pending)
        self._finish_checks(bound, computed, cursor, pending)
        self._walk(block, bound, computed)
        self._rewrite_shapes()

    # ---------------------------------------------------------------- value checks

    def _check_value(
        self,
        value: SSAValue,
        type_: Attribute,
        context: str,
        bound: set[str],
        cursor: Operation,
        pending: list[_PendingCheck],
    ) -> Operation:
        """Check ``value`` against ``type_`` (kind, rank, dtype, plain dims; a tuple field
        by field), binding variables at their first occurrence; dims that are
        expressions go to ``pending`` (they are checked once computable)."""
        check: Operation | None = None
        if isinstance(type_, TensorType):
            ndim = type_.ndim if type_.ndim is not None else -1
            dtype = dtypes.numpy_name(type_.dtype) if type_.known_dtype is not None else ""
            check = vm.CheckTensorOp(value, ndim, dtype, context)
        elif isinstance(type_, ShapeType):
            check = vm.CheckShapeOp(value, type_.ndim if type_.ndim is not None else -1, context)
        elif isinstance(type_, TupleType):
            check = vm.CheckTupleOp(value, len(type_.types), context)
        if check is not None:
            self.rewriter.insert(check, InsertPoint.after(cursor))
            cursor = check
        if isinstance(type_, TensorType | ShapeType) and type_.dims:
            if any(d.is_Integer or d.is_Symbol for d in type_.dims):
                cursor = self._match(value, type_.dims, bound, context, type_, cursor)[1]
            pending.append((value, type_.dims, context, type_))
        elif isinstance(type_, PrimType):
            # Checked to be an integer even when its value is unknown; every later use
            # reads the int the match makes of it.
            dims = _type_dims(type_) or [sympy.Integer(0)]
            matched, cursor = self._match(value, dims, bound, context, type_, cursor)
            self._read_through(value, matched)
            pending.append((matched, dims, context, type_))
        elif isinstance(type_, TupleType):
            for index, field_type in enumerate(type_.types):
                if not _type_dims(field_type) and not isinstance(
                    field_type, TensorType | ShapeType | PrimType | TupleType
                ):
                    continue
                item = GetItemOp(value, index)
                self.rewriter.insert(item, InsertPoint.after(cursor))
                cursor = self._check_value(
                    item.result, field_type, f"{context}[{index}]", bound, item, pending
                )
        return cursor

    def _finish_checks(
        self,
        bound: set[str],
        computed: set[sympy.Expr],
        cursor: Operation,
        pending: list[_PendingCheck],
    ) -> Operation:
        """Compute what just became computable, then check the pending expression dims."""
        cursor = self._compute(bound, computed, cursor)
        for value, dims, context, type_ in pending:
            cursor = self._check_exprs(value, dims, context, type_, cursor)
        return cursor

    def _check_result(
        self, op: Operation, type_: Attribute, bound: set[str], computed: set[sympy.Expr]
    ) -> None:
        """Check the result of a call whose declared type is not proven."""
        result = op.results[0]
        shown = f"@{op.callee.string_value()}" if isinstance(op, CallOp) else f"'{op.callee.data}'"
        name = f" (%{result.name_hint})" if result.name_hint else ""
        context = f"{self.name}: {op.name} {shown}{name}: result"
        pending: list[_PendingCheck] = []
        cursor = self._check_value(result, type_, context, bound, op, pending)
        self._finish_checks(bound, computed, cursor, pending)

    def _read_through(self, value: SSAValue, matched: SSAValue) -> None:
        """Uses of a prim ``value`` (other than its match) read ``matched`` instead."""
        match = matched.owner
        self.rewriter.replace_uses_with_if(value, matched, lambda use: use.operation is not match)

    # ---------------------------------------------------------------- binding sites

    def _match(
        self,
        value: SSAValue,
        dims: Dims,
        bound: set[str],
        context: str,
        result_type,
        cursor: Operation,
    ) -> tuple[SSAValue, Operation]:
        """Store or check the plain dims of ``value``; expressions are checked later."""
        entries: list[tuple[str, int, str]] = []
        unknown_prim = isinstance(result_type, PrimType) and result_type.expr is None
        for dim in dims:
            label = symbolic.format_expr(dim)
            if unknown_prim:
                entries.append(("any", 0, ""))
            elif dim.is_Integer:
                entries.append(("equal", int(dim), label))
            elif dim.is_Symbol:
                kind = "check" if dim.name in bound else "store"
                entries.append((kind, self.heap.slots[dim], label))
                bound.add(dim.name)
            else:
                entries.append(("any", 0, label))
        assert self.heap_value is not None
        match = _match_op(result_type)(value, self.heap_value, entries, context, result_type)
        self.rewriter.insert(match, InsertPoint.after(cursor))
        return match.result, match

    def _check_exprs(
        self, value: SSAValue, dims: Dims, context: str, result_type, cursor: Operation
    ) -> Operation:
        if all(d.is_Integer or d.is_Symbol for d in dims) or (
            isinstance(result_type, PrimType) and result_type.expr is None
        ):
            return cursor
        entries = [
            ("any", 0, symbolic.format_expr(d))
            if d.is_Integer or d.is_Symbol
            else ("check", self.heap.slots[d], symbolic.format_expr(d))
            for d in dims
        ]
        assert self.heap_value is not None
        match = _match_op(result_type)(value, self.heap_value, entries, context, result_type)
        self.rewriter.insert(match, InsertPoint.after(cursor))
        if isinstance(match, vm.MatchPrimOp):
            self._read_through(value, match.result)
        return match

    def _walk(self, block: Block, bound: set[str], computed: set[sympy.Expr]) -> None:
        for op in list(block.ops):
            if isinstance(op, DataflowOp):
                raise IRError(op, "relax-vm-shape-lower needs relax-to-non-dataflow first")
            if isinstance(op, MatchShapeOp):
                self._lower_match_shape(op, bound, computed)
            elif (checked := checked_result(op)) is not None:
                self._check_result(op, checked, bound, computed)
            for region in op.regions:
                for inner in region.blocks:
                    self._walk(inner, set(bound), set(computed))

    def _lower_match_shape(
        self, op: MatchShapeOp, bound: set[str], computed: set[sympy.Expr]
    ) -> None:
        pattern = op.pattern.data
        context = f"{self.name}: match_shape {symbolic.format_dims(pattern)}"
        result, cursor = self._match(op.value, pattern, bound, context, op.result.type, op)
        cursor = self._compute(bound, computed, cursor)
        last = self._check_exprs(result, pattern, context, op.result.type, cursor)
        final = last.results[0] if isinstance(last, vm.MatchShapeOp | vm.MatchPrimOp) else result
        self.rewriter.replace_all_uses_with(op.result, final)
        self.rewriter.erase(op)

    def _compute(self, bound: set[str], computed: set[sympy.Expr], cursor: Operation) -> Operation:
        """Compute the compound expressions that just became computable."""
        ready = [e for e in self.compound if e not in computed and symbolic.free_vars(e) <= bound]
        if not ready:
            return cursor
        computed.update(ready)
        variables = sorted({name for e in ready for name in symbolic.free_vars(e)})
        callee = self._shape_func(ready, variables)
        assert self.heap_value is not None
        call = CallDPSOp(
            callee,
            [self.heap_value],
            [vm.heap_slot(self.heap.slots[symbolic.sym(v)]) for v in variables] or None,
        )
        self.rewriter.insert(call, InsertPoint.after(cursor))
        return call

    def _shape_func(self, exprs: list[sympy.Expr], variables: list[str]) -> str:
        """A tir function computing ``exprs`` into their heap slots."""
        while True:
            name = f"{self.name}_shape{self.shape_funcs}"
            self.shape_funcs += 1
            if SymbolTable.lookup_symbol(self.module, name) is None:
                break
        heap_type = tir.BufferType.of([max(len(self.heap.slots), 1)], HEAP_DTYPE)
        func = tir.PrimFuncOp(name, [heap_type], variables)
        (buffer,) = func.body.block.args
        buffer.name_hint = "H"
        for expr in exprs:
            value = tir.IndexOp(expr, HEAP_DTYPE)
            store = tir.StoreOp(buffer, [self.heap.slots[expr]], value.result)
            func.body.block.add_ops([value, store])
        self.rewriter.insert(func, InsertPoint.before(self.func))
        return name

    # ------------------------------------------------------------------ uses of shapes

    def _rewrite_shapes(self) -> None:
        assert self.heap_value is not None
        for op in list(self.func.walk()):
            if isinstance(op, ShapeOp):
                make = vm.MakeShapeOp(
                    self.heap_value, self.heap.lower_dims(op.dims.data), op.result.type
                )
                make.result.name_hint = op.result.name_hint
                self.rewriter.replace(op, make)
            elif isinstance(op, PrimValueOp) and not op.result.uses:
                self.rewriter.erase(op)  # an operand of an operator now legalized
            elif isinstance(op, PrimValueOp):
                value = (self.heap.lower(op.expr),)
                prim = vm.MakePrimOp(self.heap_value, value, op.result.type)
                prim.result.name_hint = op.result.name_hint
                self.rewriter.replace(op, prim)
            elif isinstance(op, CallDPSOp) and op.sym_args is not None:
                if op.args and op.args[0] is self.heap_value:
                    continue
                op.sym_args = DimsAttr(self.heap.lower_dims(op.sym_args.data))
            elif isinstance(op, vm.AllocStorageOp):
                op.size = DimsAttr(self.heap.lower_dims(op.size.data))
            elif isinstance(op, vm.AllocTensorOp):
                op.offset = DimsAttr(self.heap.lower_dims(op.offset.data))
                op.shape = DimsAttr(self.heap.lower_dims(op.shape.data))
            elif isinstance(op, vm.AllocTensorDirectOp):
                op.shape = DimsAttr(self.heap.lower_dims(op.shape.data))


class LowerFunctionShapes(RewritePattern):
    """Lower the symbolic shapes of one relax function onto its shape heap."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FuncOp, rewriter: PatternRewriter) -> None:
        if any(isinstance(o, vm.AllocShapeHeapOp) for o in op.body.block.ops):
            return
        module = op.parent_op()
        assert module is not None
        _FunctionLowering(op, module, rewriter).run()


@dataclass(frozen=True)
class VMShapeLowerPass(ModulePass):
    """Lower symbolic shapes to the VM shape heap."""

    name = "relax-vm-shape-lower"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_functions(op, LowerFunctionShapes())
