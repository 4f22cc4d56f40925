"""tir-to-llvm: ``tir.prim_func`` -> ``llvm.func`` (the native kernel backend's lowering).

A prim_func ``@f(%A: !tir.buffer<[n, m], f32>, %B: ...) sym [k]`` becomes

```mlir
llvm.func @f(%A: !llvm.ptr, %B: !llvm.ptr, %k: i64, %n: i64, %m: i64) -> i32
```

one pointer per buffer (C-contiguous, row-major), then one ``i64`` per symbolic
variable of the signature (:func:`signature_vars`: the ``sym`` parameters, then each
variable at the first buffer dimension it is, in parameter order, as the kernels bind
them). It returns 0, or ``k + 1`` when the ``k``-th ``tir.assert`` (in program order)
fails, after which the caller reports the failure.

Two rewrite patterns do it: :class:`LowerPrimFunc` turns the structure into blocks
and branches (a ``tir.for`` is a header block whose argument is the induction variable,
a body, a latch branching back), loads and stores into ``getelementptr`` on the
row-major offset plus ``load``/``store`` (``i1`` buffers are bytes, as numpy's bools),
a padded load into a branch on the bounds (or, on an axis of static non-zero size,
a select over the clamped index; a window's padded loads read a padded copy first:
:mod:`.padding`), symbolic index expressions into ``i64``
arithmetic, local buffers into ``malloc``/``free``; scalar ``arith``/``math`` ops move
over unchanged, and :class:`LowerScalarOp` rewrites each into its ``llvm`` op or
intrinsic (``llvm.maximum`` for ``arith.maximumf``, whose NaN rule is numpy's
``maximum``), or a libm call; f32 ``exp``, ``tanh`` and ``erf`` are computed inline
(Cephes' ``expf`` and ``tanhf``, the numpy kernels' ``erf``: :mod:`.inline_math`) so
that loops using them vectorize. Integer arithmetic wraps, as numpy's does. In an
innermost loop, the element a reduction accumulates into is held in a register (a
block argument of the loop header) and its sum or product is marked reassociable, so
reductions vectorize too (their order of summation is then LLVM's, within float
tolerance of numpy's).

A prim_func whose loops :mod:`.parallelize` marks ``parallel`` (it runs that pass last,
after the padded and window copies, loop fusion and sinking) becomes three functions:
``@f.slice`` takes two more ``i64`` arguments, ``lo`` and ``hi``, and runs the split
loops over that slice of their range only; ``@f.task(args, lo, hi)`` loads the
arguments from an array of 8-byte slots and calls it; ``@f``, of the signature above,
stores them there and returns what :data:`.parallel.PARALLEL_FOR` returns, which runs
the task over slices of the range on the threads of :mod:`.parallel`.

A data-dependent index (a ``tir.let`` variable: the positions ``take`` reads) is
checked where it is used: outside its buffer, the function returns a failure code as a
failed assert does, and the caller's numpy kernel reports the index.

What the lowering does not cover raises :class:`NotLowerable` with the reason
(:func:`check_lowerable` tells before any rewriting): an index not proven inside its
buffer (other than a data-dependent one), a data-dependent index a ``select`` may not
keep (the numpy kernels check it only where it is kept), integer division and remainder
(whose division by zero is an error the numpy kernels raise), float-to-integer casts
(whose out-of-range rule is x86-64's, docs/semantics.md), unsigned and 16-bit float
buffers. The native backend runs such a prim_func with the numpy kernel instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import sympy
from xdsl.context import Context
from xdsl.dialects import arith, llvm, math
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
)
from xdsl.dialects.utils import FastMathFlag
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.backends.kernels.affine import proven_inside
from xrelax.backends.native.collapse import collapsible_chain
from xrelax.backends.native.inline_math import INLINE_F32
from xrelax.backends.native.nest_fusion import FuseElementwiseNests
from xrelax.backends.native.padding import MaterializePadding
from xrelax.backends.native.parallel import PARALLEL_FOR
from xrelax.backends.native.parallelize import MarkParallelLoops, split_work
from xrelax.backends.native.reduction_order import SinkOutputLoopsPass
from xrelax.backends.native.register_tiles import (
    TilePlan,
    emit_tiles,
    epilogue_accesses,
    plan_tiles,
    vector_width,
)
from xrelax.backends.native.windows import MaterializeWindows
from xrelax.dialects import dtypes
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import FloorDiv, FloorMod
from xrelax.dialects.tir import (
    AllocBufferOp,
    AssertOp,
    ForOp,
    IndexOp,
    LetOp,
    LoadOp,
    PrimFuncOp,
    RemFOp,
    StoreOp,
)

__all__ = [
    "LowerPrimFunc",
    "LowerScalarOp",
    "NotLowerable",
    "TirToLlvmPass",
    "check_lowerable",
    "signature_vars",
]

I1, I8, I32, I64 = (IntegerType(w) for w in (1, 8, 32, 64))
F32 = Float32Type()
PTR = llvm.LLVMPointerType()

_ELEMENT_TYPES = {dtypes.F32, dtypes.F64, dtypes.I1, dtypes.I8, dtypes.I16, dtypes.I32, dtypes.I64}
_NSW = llvm.OverflowAttr([llvm.OverflowFlag.NO_SIGNED_WRAP])


class NotLowerable(Exception):
    """A prim_func the lowering does not cover; the message says what."""

    func: PrimFuncOp | None = None
    """The prim_func, where the lowering found the reason in it."""


def signature_vars(func: PrimFuncOp) -> list[str]:
    """The symbolic variables the llvm.func takes after the buffers, in order: the
    ``sym`` parameters, then each variable at its first whole-dimension occurrence."""
    names = list(func.sym_param_names)
    for type_ in func.buffer_types:
        names += [d.name for d in type_.dims if d.is_Symbol and d.name not in names]
    return names


# ---- scalar ops: arith/math -> llvm ------------------------------------------------

_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
    RemFOp: llvm.FRemOp,
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
}
_BINARY_INTRINSICS: dict[type[Operation], str] = {
    arith.MaximumfOp: "llvm.maximum",
    arith.MinimumfOp: "llvm.minimum",
    arith.MaxnumfOp: "llvm.maxnum",
    arith.MinnumfOp: "llvm.minnum",
    arith.MaxSIOp: "llvm.smax",
    arith.MinSIOp: "llvm.smin",
    math.CopySignOp: "llvm.copysign",
    math.PowFOp: "llvm.pow",
}
_UNARY_INTRINSICS: dict[type[Operation], str] = {
    math.ExpOp: "llvm.exp",
    math.LogOp: "llvm.log",
    math.SqrtOp: "llvm.sqrt",
    math.AbsFOp: "llvm.fabs",
    math.FloorOp: "llvm.floor",
    math.CeilOp: "llvm.ceil",
    math.TruncOp: "llvm.trunc",
    math.RoundEvenOp: "llvm.roundeven",
    math.SinOp: "llvm.sin",
    math.CosOp: "llvm.cos",
    math.TanOp: "llvm.tan",
    math.SinhOp: "llvm.sinh",
    math.CoshOp: "llvm.cosh",
    math.TanhOp: "llvm.tanh",
    math.AsinOp: "llvm.asin",
    math.AcosOp: "llvm.acos",
    math.AtanOp: "llvm.atan",
}
_LIBM: dict[type[Operation], str] = {
    math.ErfOp: "erf",
    math.CbrtOp: "cbrt",
    math.AsinhOp: "asinh",
    math.AcoshOp: "acosh",
    math.AtanhOp: "atanh",
}
"""Unary functions without an LLVM intrinsic: calls to the C library (``erff`` for f32)."""
_CASTS: dict[type[Operation], type[Operation]] = {
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
}
_CMPF = ("oeq", "ogt", "oge", "olt", "ole", "une")
_CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge")
_CMPI_BOOL = ("ult", "ule", "ugt", "uge")
"""The unsigned predicates, lowered for i1 operands (booleans: legalization emits them)."""
_OTHER = (arith.ConstantOp, arith.NegfOp, arith.SelectOp, arith.CmpfOp, arith.CmpiOp)
_OTHER_MATH = (math.RsqrtOp, math.AbsIOp)


def _scalar_unsupported(op: Operation) -> str | None:
    """Why the scalar op ``op`` has no lowering, or ``None``."""
    kind = type(op)
    known = (
        kind in _BINARY
        or kind in _BINARY_INTRINSICS
        or kind in _UNARY_INTRINSICS
        or kind in _LIBM
        or kind in _CASTS
        or kind in _OTHER
        or kind in _OTHER_MATH
    )
    if not known:
        return f"'{op.name}'"
    if kind is arith.CmpfOp:
        predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        if predicate not in _CMPF:
            return f"'arith.cmpf {predicate}'"
    if kind is arith.CmpiOp:
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        if predicate not in _CMPI and not (op.lhs.type == I1 and predicate in _CMPI_BOOL):
            return f"'arith.cmpi {predicate}'"
    if kind is arith.ExtSIOp and op.operands[0].type == I1:
        return "'arith.extsi' of an i1"
    if kind is arith.TruncIOp and op.results[0].type == I1:
        return "'arith.trunci' to i1"
    for value in (*op.operands, *op.results):
        if value.type not in _ELEMENT_TYPES:
            return f"'{op.name}' on {value.type}"
    return None


def _intrinsic_name(base: str, type_: Attribute) -> str:
    if isinstance(type_, Float32Type):
        return f"{base}.f32"
    if isinstance(type_, Float64Type):
        return f"{base}.f64"
    assert isinstance(type_, IntegerType)
    return f"{base}.i{type_.width.data}"


class LowerScalarOp(RewritePattern):
    """An ``arith``/``math`` op inside an ``llvm.func`` -> its ``llvm`` op, intrinsic or
    libm call."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.dialect_name() not in ("arith", "math") and type(op) is not RemFOp:
            return
        if not isinstance(op.parent_op(), llvm.FuncOp):
            return
        if reason := _scalar_unsupported(op):
            raise NotLowerable(f"no llvm lowering of {reason}")
        kind = type(op)
        result_type = op.results[0].type
        new: list[Operation]
        if kind in _BINARY:
            flags = getattr(op, "fastmath", None)
            if flags is not None and flags.data:
                new = [_BINARY[kind](*op.operands, llvm.FastMathAttr(flags.data))]  # type: ignore[call-arg]
            else:
                new = [_BINARY[kind](*op.operands)]  # type: ignore[call-arg]
        elif kind in _BINARY_INTRINSICS:
            name = _intrinsic_name(_BINARY_INTRINSICS[kind], result_type)
            new = [llvm.CallIntrinsicOp(name, list(op.operands), [result_type])]
        elif kind in INLINE_F32 and isinstance(result_type, Float32Type):
            new = INLINE_F32[kind](op.operands[0])
        elif kind in _UNARY_INTRINSICS:
            name = _intrinsic_name(_UNARY_INTRINSICS[kind], result_type)
            new = [llvm.CallIntrinsicOp(name, list(op.operands), [result_type])]
        elif kind in _LIBM:
            suffix = "f" if isinstance(result_type, Float32Type) else ""
            new = [llvm.CallOp(_LIBM[kind] + suffix, *op.operands, return_type=result_type)]
        elif kind in _CASTS:
            new = [_CASTS[kind](op.operands[0], result_type)]  # type: ignore[call-arg]
        elif kind is arith.ConstantOp:
            new = [llvm.ConstantOp(op.value, result_type)]
        elif kind is arith.NegfOp:
            new = [llvm.FNegOp(op.operands[0])]
        elif kind is arith.SelectOp:
            new = [llvm.SelectOp(*op.operands)]
        elif kind is arith.CmpfOp:
            predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
            new = [llvm.FCmpOp(op.lhs, op.rhs, predicate)]
        elif kind is arith.CmpiOp:
            predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
            if op.lhs.type == I1 and predicate.startswith("s"):
                # The numpy kernels read every i1 comparison in numpy's order, False <
                # True (legalization emits the unsigned ones); the same here, so that
                # hand-written TIR gives one result on both backends.
                predicate = "u" + predicate[1:]
            index = llvm.ICmpPredicateFlag(predicate).to_int()
            new = [llvm.ICmpOp(op.lhs, op.rhs, IntegerAttr(index, 64))]
        elif kind is math.RsqrtOp:
            one = llvm.ConstantOp(FloatAttr(1.0, result_type), result_type)
            root = llvm.CallIntrinsicOp(
                _intrinsic_name("llvm.sqrt", result_type), [op.operands[0]], [result_type]
            )
            new = [one, root, llvm.FDivOp(one, root)]
        else:  # math.absi: wraps at the minimum, as numpy's absolute
            poison = llvm.ConstantOp(IntegerAttr(0, 1), I1)
            call = llvm.CallIntrinsicOp(
                _intrinsic_name("llvm.abs", result_type), [op.operands[0], poison], [result_type]
            )
            new = [poison, call]
        rewriter.replace(op, new, [new[-1].results[0]])


# ---- structure: prim_func, for, load, store, ... -----------------------------------


def _selected(op: LoadOp) -> bool:
    """Whether the value ``op`` loads is only ever a value a ``select`` picks (not its
    condition), so that a clamped read of an index outside is never kept."""
    uses = list(op.result.uses)
    return bool(uses) and all(
        isinstance(use.operation, arith.SelectOp) and use.index > 0 for use in uses
    )


def check_lowerable(func: PrimFuncOp) -> None:
    """Raise :class:`NotLowerable` if ``func`` uses anything the lowering does not cover."""
    for index, type_ in enumerate(func.buffer_types):
        if type_.dtype not in _ELEMENT_TYPES:
            raise NotLowerable(f"buffer #{index} of {dtypes.NAME_OF[type_.dtype]}")
    for op in func.body.walk():
        if op is func or isinstance(op, ForOp | LoadOp | StoreOp | IndexOp | AssertOp | LetOp):
            continue
        if isinstance(op, AllocBufferOp):
            if op.buffer.type.dtype not in _ELEMENT_TYPES:
                raise NotLowerable(f"a local buffer of {op.buffer.type.dtype}")
            if not isinstance(op.parent_op(), PrimFuncOp):
                raise NotLowerable("a local buffer allocated inside a loop")
            continue
        if (reason := _scalar_unsupported(op)) is not None:
            raise NotLowerable(f"no llvm lowering of {reason}")


class _FuncLowering:
    """Builds the body of one llvm.func from a prim_func (see the module docstring)."""

    def __init__(self, func: PrimFuncOp) -> None:
        self.func = func
        self.names = signature_vars(func)
        args = func.body.block.args
        self.split = [op for op in func.walk() if isinstance(op, ForOp) and op.parallel]
        """The loops marked ``parallel``: the function runs over a slice of them (of the
        pairs of their iterations where two are marked in a nest, one inside the other:
        :mod:`.parallelize`)."""
        self.pairs = {op.parent_op(): op for op in self.split if op.parent_op() in self.split}
        """The outer loop of each split pair -> the inner one. Where there are pairs, a
        nest split along its outer loop alone runs every row of it the slice touches."""
        self.grain = 1
        """What the slices are multiples of (the height of the tiles of split rows)."""
        slice_ = [I64, I64] if self.split else []
        self.entry = Block(arg_types=[PTR] * len(args) + [I64] * len(self.names) + slice_)
        for arg, new in zip([*args, *self.names], self.entry.args, strict=False):
            new.name_hint = arg if isinstance(arg, str) else arg.name_hint
        self.exit = Block(arg_types=[I32])
        self.region = Region([self.entry])
        self.block = self.entry
        self.env: dict[str, SSAValue] = {
            name: self.entry.args[len(args) + k] for k, name in enumerate(self.names)
        }
        if self.split:
            self.env[_LO], self.env[_HI] = self.entry.args[-2:]
            self.entry.args[-2].name_hint, self.entry.args[-1].name_hint = "lo", "hi"
        self.buffers: dict[SSAValue, SSAValue] = {a: self.entry.args[k] for k, a in enumerate(args)}
        self.values: dict[SSAValue, SSAValue] = {}
        self.loops: dict[str, tuple[sympy.Expr, sympy.Expr]] = {}
        self.asserts = 0
        self.lets: set[str] = set()
        """The data-dependent variables (``tir.let``) bound so far."""
        self.allocated: list[SSAValue] = []
        self.tiled = 0
        """The nests lowered as register tiles (:mod:`.register_tiles`)."""
        self.fused: set[ForOp] = set()
        """The epilogue nests register tiles applied (lowered with them)."""
        self.accumulated: dict[tuple[SSAValue, tuple], SSAValue] = {}
        """The current values of the elements the innermost loop accumulates into."""

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def const(self, value: int, type_: Attribute = I64) -> SSAValue:
        return self.add(llvm.ConstantOp(IntegerAttr(value, type_), type_))

    def lower(self) -> list[llvm.FuncOp]:
        """The llvm.func of the prim_func; with split loops, the function over a slice,
        the task the threads call and the entry (see :meth:`fork`)."""
        func = self.func
        for op in func.body.block.ops:
            if isinstance(op, AllocBufferOp):
                self.allocate(op)
        self.ops(func.body.block)
        self.add(llvm.BrOp(self.exit, self.const(0, I32)))
        self.region.add_block(self.exit)
        self.block = self.exit
        for pointer in self.allocated:
            self.add(llvm.CallOp("free", pointer))
        self.add(llvm.ReturnOp(self.exit.args[0]))
        name = func.sym_name.data
        body = _function(name + _SLICE if self.split else name, self.region)
        return [body, *self.fork(name)] if self.split else [body]

    def fork(self, name: str) -> list[llvm.FuncOp]:
        """The task ``(args, lo, hi)``, which unpacks the arguments and runs the slice,
        and the entry ``@name`` with the prim_func's signature, which packs them and
        runs the task over the split loops through :data:`.parallel.PARALLEL_FOR`."""
        types = list(self.entry.arg_types)[:-2]
        task = Block(arg_types=[PTR, I64, I64])
        for arg, hint in zip(task.args, ("args", "lo", "hi"), strict=True):
            arg.name_hint = hint
        self.block = task
        unpacked = []
        for k, type_ in enumerate(types):
            value = self.add(llvm.LoadOp(self.slot(task.args[0], k), I64))
            unpacked.append(value if type_ == I64 else self.add(llvm.IntToPtrOp(value)))
        result = self.add(llvm.CallOp(name + _SLICE, *unpacked, *task.args[1:], return_type=I32))
        self.add(llvm.ReturnOp(result))
        entry = Block(arg_types=types)
        for arg, named in zip(entry.args, self.entry.args, strict=False):
            arg.name_hint = named.name_hint
        self.block = entry
        buffers = len(self.func.body.block.args)
        self.env = {n: entry.args[buffers + k] for k, n in enumerate(self.names)}
        packed = self.add(llvm.AllocaOp(self.const(len(types)), I64, alignment=8))
        for k, arg in enumerate(entry.args):
            value = arg if arg.type == I64 else self.add(llvm.PtrToIntOp(arg))
            self.add(llvm.StoreOp(value, self.slot(packed, k)))
        inner = [pair.upper for pair in self.pairs.values()][:1]
        extent = sympy.Mul(self.split[0].upper, *inner)
        work = split_work(self.split)
        address = self.add(llvm.AddressOfOp(name + _TASK, PTR))
        sizes = [self.expr(extent), self.const(self.grain), self.expr(work)]
        result = self.add(llvm.CallOp(PARALLEL_FOR, address, packed, *sizes, return_type=I32))
        self.add(llvm.ReturnOp(result))
        return [_function(name + _TASK, Region([task])), _function(name, Region([entry]))]

    def slot(self, packed: SSAValue, k: int) -> SSAValue:
        """The ``k``-th 8-byte slot of the packed arguments."""
        return self.add(llvm.GEPOp.from_mixed_indices(packed, [k], I64, inbounds=True))

    def bounds(self, loop: ForOp, inner: sympy.Expr | int = 1) -> tuple[SSAValue, SSAValue]:
        """The range ``loop`` runs over, times ``inner``: its part of the slice
        ``[lo, hi)`` if it is split. The outer loop of a split pair runs over the rows
        the slice touches, the inner one over its part of each."""
        if loop.parallel is None:
            return self.expr(loop.lower * inner), self.expr(loop.upper * inner)
        lo, hi = symbolic.sym(_LO), symbolic.sym(_HI)
        if loop.parent_op() in self.pairs:
            extent = loop.upper
            base = symbolic.sym(loop.parent_op().var_name) * extent
            lo, hi = sympy.Max(lo - base, 0), sympy.Min(hi - base, extent)
        elif self.pairs:  # an outer loop, of a pair or split alone
            extent = next(iter(self.pairs.values())).upper
            lo, hi = FloorDiv(lo, extent), FloorDiv(hi + extent - 1, extent)
        return self.expr(lo * inner), self.expr(hi * inner)

    def allocate(self, op: AllocBufferOp) -> None:
        type_ = op.buffer.type
        itemsize = dtypes.numpy_dtype(type_.dtype).itemsize
        size = sympy.Integer(itemsize)
        for dim in type_.dims:
            size *= dim
        # malloc(0) may return null; a buffer of no elements is never read.
        nbytes = self.expr(sympy.Max(size, 1))
        pointer = self.add(llvm.CallOp("malloc", nbytes, return_type=PTR))
        self.buffers[op.buffer] = pointer
        self.allocated.append(pointer)

    def ops(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        if isinstance(op, ForOp):
            self.loop(op)
        elif isinstance(op, LoadOp):
            self.values[op.result] = self.load(op)
        elif isinstance(op, StoreOp):
            self.store(op)
        elif isinstance(op, IndexOp):
            value = self.expr(op.expr)
            if op.result.type != I64:
                value = self.add(llvm.TruncOp(value, op.result.type))
            self.values[op.result] = value
        elif isinstance(op, AssertOp):
            self.check(op)
        elif isinstance(op, LetOp):
            value = self.values[op.value]
            if op.value.type != I64:
                value = self.add(llvm.SExtOp(value, I64))
            self.env[op.var_name] = value
            self.lets.add(op.var_name)
        elif isinstance(op, AllocBufferOp):
            pass  # allocated in the entry block
        else:
            clone = op.clone(value_mapper=dict(self.values))
            self.block.add_op(clone)
            for old, new in zip(op.results, clone.results, strict=True):
                self.values[old] = new

    def loop(self, op: ForOp) -> None:
        if op in self.fused:
            return  # applied by the register tiles before it
        if isinstance(op.parent_op(), PrimFuncOp) and (plan := self.tile_plan(op)) is not None:
            emit_tiles(self, plan)
            self.tiled += 1
            if plan.row.parallel is not None:
                self.grain = int(sympy.ilcm(self.grain, plan.rows))
            if plan.vector[0].parallel is not None:  # (a product of one row)
                self.grain = int(sympy.ilcm(self.grain, plan.vectors * vector_width()))
            if plan.epilogue is not None:
                self.fused.add(plan.epilogue)
            return
        chain = collapsible_chain(op)
        if len(chain) == 1:
            lower, upper = self.bounds(op)
        else:  # one loop over the product of the extents (see collapsible_chain)
            split = [k for k, loop in enumerate(chain) if loop.parallel is not None]
            if split:  # the loops above the split ones are of extent 1
                inner = sympy.Mul(*(loop.upper for loop in chain[split[-1] + 1 :]))
                if len(split) == 2:  # a split pair: the slice is of the pairs
                    lower = self.expr(symbolic.sym(_LO) * inner)
                    upper = self.expr(symbolic.sym(_HI) * inner)
                else:
                    lower, upper = self.bounds(chain[split[0]], inner)
            else:
                lower = self.const(0)
                upper = self.expr(sympy.Mul(*(loop.upper for loop in chain)))
        innermost = chain[-1]
        names = [loop.var_name for loop in chain]
        accumulators = _accumulators(innermost, set(names))
        for key in accumulators:
            if self.unproven(*key):
                raise NotLowerable(
                    f"a store index of {key[0].name_hint or 'a buffer'} not proven inside"
                )
        slots = [self.address(buffer, indices) for buffer, indices in accumulators]
        starts = [self.add(llvm.LoadOp(pointer, memory)) for pointer, memory in slots]
        header = Block(arg_types=[I64, *(memory for _, memory in slots)])
        body, after = Block(), Block()
        for block in (header, body, after):
            self.region.add_block(block)
        self.add(llvm.BrOp(header, lower, *starts))
        self.block = header
        index = header.args[0]
        predicate = IntegerAttr(llvm.ICmpPredicateFlag.SLT.to_int(), 64)
        inside = self.add(llvm.ICmpOp(index, upper, predicate))
        self.add(llvm.CondBrOp(inside, body, [], after, []))
        self.block = body
        # The outer variables of a collapsed chain read as 0 and the innermost as the
        # one index: each offset is linear in them with the row-major strides, so it is
        # the same. Their own ranges stay what the bounds proofs read.
        for loop in chain:
            self.env[loop.var_name] = index if loop is innermost else self.const(0)
            self.loops[loop.var_name] = (loop.lower, loop.upper)
        for key, value in zip(accumulators, header.args[1:], strict=True):
            self.accumulated[key] = value
        self.ops(innermost.body.block)
        carried = [self.accumulated.pop(key) for key in accumulators]
        for name in names:
            del self.env[name], self.loops[name]
        if not accumulators and _vector_loop(chain):
            latch = Block()
            latch.name_hint = ROLLED_LATCH
            self.region.add_block(latch)
            self.add(llvm.BrOp(latch))
            self.block = latch
        step = self.add(llvm.AddOp(index, self.const(1), overflow=_NSW))
        self.add(llvm.BrOp(header, step, *carried))
        self.block = after
        for (pointer, _), value in zip(slots, header.args[1:], strict=True):
            self.add(llvm.StoreOp(value, pointer))

    def tile_plan(self, nest: ForOp) -> TilePlan | None:
        """The register-tile plan of a top-level nest whose accesses are proven inside
        their buffers (:mod:`.register_tiles`)."""
        plan = plan_tiles(nest)
        if plan is None or plan.window is not None:
            return None
        loops = plan.outputs + plan.reductions
        self.loops.update((loop.var_name, (loop.lower, loop.upper)) for loop in loops)
        try:
            operands = (plan.streamed, plan.broadcast)
            # (a depthwise tile's padded operand is read clamped into its buffer)
            accesses = [(op.buffer, op.indices.data) for op in operands if op.pad is None]
            if not self.proven([*accesses, (plan.output.buffer, plan.output.indices.data)]):
                return None
            if plan.epilogue is not None and not self.proven(
                [(op.buffer, indices) for op, indices in epilogue_accesses(plan, plan.epilogue)]
            ):
                plan = dataclasses.replace(plan, epilogue=None)
        finally:
            self.loops.clear()
        return plan

    def proven(self, accesses: list[tuple[SSAValue, tuple]]) -> bool:
        """Whether every index of ``accesses`` (buffer, indices) is proven inside."""
        return not any(self.unproven(buffer, indices) for buffer, indices in accesses)

    def address(self, buffer: SSAValue, indices: tuple) -> tuple[SSAValue, Attribute]:
        type_ = buffer.type
        memory = I8 if type_.dtype == I1 else type_.dtype
        offset = self.expr(symbolic.flat_offset(indices, type_.dims))
        gep = llvm.GEPOp.from_mixed_indices(self.buffers[buffer], [offset], memory, inbounds=True)
        return self.add(gep), memory

    def unproven(self, buffer: SSAValue, indices: tuple) -> list[tuple[sympy.Expr, sympy.Expr]]:
        lows = {v: lo for v, (lo, _) in self.loops.items()}
        extents = {v: sympy.expand(hi - lo) for v, (lo, hi) in self.loops.items()}
        return [
            (index, size)
            for index, size in zip(indices, buffer.type.dims, strict=True)
            if not proven_inside(index, size, lows, extents)
        ]

    def load(self, op: LoadOp) -> SSAValue:
        key = (op.buffer, op.indices.data)
        if key in self.accumulated:
            return self.accumulated[key]
        unproven = self.unproven(op.buffer, op.indices.data)
        if not unproven:
            return self.read(op)
        if op.pad is None and self.data_dependent(unproven):
            if _selected(op):
                raise NotLowerable("a data-dependent index under a select")
            self.check_inside(unproven)
            return self.read(op)
        clampable = all(isinstance(size, sympy.Integer) and size > 0 for _, size in unproven)
        if op.pad is None and not (clampable and _selected(op)):
            raise NotLowerable(f"an index of {op.buffer.name_hint or 'a buffer'} not proven inside")
        if clampable:
            return self.clamped_read(op, unproven)
        inside = None
        for index, size in unproven:
            value = self.expr(index)
            for lhs, rhs in ((self.const(0), value), (value, self.expr(size))):
                predicate = "sle" if lhs is not value else "slt"
                flag = IntegerAttr(llvm.ICmpPredicateFlag(predicate).to_int(), 64)
                test = self.add(llvm.ICmpOp(lhs, rhs, flag))
                inside = test if inside is None else self.add(llvm.AndOp(inside, test))
        read, join = Block(), Block(arg_types=[op.result.type])
        self.region.add_block(read)
        self.region.add_block(join)
        self.add(llvm.CondBrOp(inside, read, [], join, [self.values[op.pad]]))
        self.block = read
        self.add(llvm.BrOp(join, self.read(op)))
        self.block = join
        return join.args[0]

    def clamped_read(self, op: LoadOp, unproven: list[tuple[sympy.Expr, sympy.Expr]]) -> SSAValue:
        """A padded load without a branch, where every unproven index runs along a
        non-empty axis: each such index is clamped into its axis, the element there is
        read, and ``pad`` selected where an index was outside. Straight-line code, so
        LLVM vectorizes the loop around it (a depthwise convolution's border taps).

        A load without ``pad`` whose value only a ``select`` picks (a concatenation's
        parts, each read at every index and the one inside chosen, as the numpy kernels
        compute them) reads the clamped element as is: memory-safe, and the element the
        select keeps where the index is inside."""
        indices = list(op.indices.data)
        inside = None
        names: list[str] = []
        for index, size in unproven:
            value = self.expr(index)
            zero, last = self.const(0), self.const(int(size) - 1)
            clamped = self.add(llvm.CallIntrinsicOp("llvm.smax.i64", [value, zero], [I64]))
            clamped = self.add(llvm.CallIntrinsicOp("llvm.smin.i64", [clamped, last], [I64]))
            flag = IntegerAttr(llvm.ICmpPredicateFlag.EQ.to_int(), 64)
            test = self.add(llvm.ICmpOp(clamped, value, flag))
            inside = test if inside is None else self.add(llvm.AndOp(inside, test))
            name = f"clamped.{len(names)}"
            self.env[name] = clamped
            names.append(name)
            indices[indices.index(index)] = symbolic.sym(name)
        value = self.read(op, tuple(indices))
        for name in names:
            del self.env[name]
        if op.pad is None:
            return value
        return self.add(llvm.SelectOp(inside, value, self.values[op.pad]))

    def read(self, op: LoadOp, indices: tuple | None = None) -> SSAValue:
        """The element ``op`` loads (at ``indices`` in place of its own)."""
        pointer, memory = self.address(op.buffer, op.indices.data if indices is None else indices)
        value = self.add(llvm.LoadOp(pointer, memory))
        if memory != op.result.type:  # a bool byte
            flag = IntegerAttr(llvm.ICmpPredicateFlag.NE.to_int(), 64)
            value = self.add(llvm.ICmpOp(value, self.const(0, I8), flag))
        return value

    def store(self, op: StoreOp) -> None:
        key = (op.buffer, op.indices.data)
        if key in self.accumulated:
            value = self.values[op.value]
            combine = value.owner
            if isinstance(combine, arith.AddfOp | arith.MulfOp) and self.accumulated[key] in (
                combine.operands
            ):
                # A sum or product over the loop: LLVM may reassociate it to vectorize.
                combine.fastmath = arith.FastMathFlagsAttr([FastMathFlag.REASSOC])
            self.accumulated[key] = value
            return
        if unproven := self.unproven(op.buffer, op.indices.data):
            if not self.data_dependent(unproven):
                name = op.buffer.name_hint or "a buffer"
                raise NotLowerable(f"a store index of {name} not proven inside")
            self.check_inside(unproven)
        pointer, memory = self.address(op.buffer, op.indices.data)
        value = self.values[op.value]
        if memory != op.value.type:
            value = self.add(llvm.ZExtOp(value, memory))
        self.add(llvm.StoreOp(value, pointer))

    def check(self, op: AssertOp) -> None:
        names = {"==": "eq", "<=": "sle", "<": "slt"}
        self.fail_unless(
            [(self.expr(f.lhs), names[f.relation], self.expr(f.rhs)) for f in op.facts()]
        )

    def data_dependent(self, unproven: list[tuple[sympy.Expr, sympy.Expr]]) -> bool:
        """Whether an unproven index depends on a data-dependent variable."""
        return any(self.lets & symbolic.free_vars(index) for index, _ in unproven)

    def check_inside(self, unproven: list[tuple[sympy.Expr, sympy.Expr]]) -> None:
        """Return a failure code unless each index is inside its dimension."""
        tests = []
        for index, size in unproven:
            value = self.expr(index)
            tests += [(self.const(0), "sle", value), (value, "slt", self.expr(size))]
        self.fail_unless(tests)

    def fail_unless(self, tests: list[tuple[SSAValue, str, SSAValue]]) -> None:
        """Return the next failure code unless every comparison holds."""
        self.asserts += 1
        holds = None
        for lhs, predicate, rhs in tests:
            flag = IntegerAttr(llvm.ICmpPredicateFlag(predicate).to_int(), 64)
            test = self.add(llvm.ICmpOp(lhs, rhs, flag))
            holds = test if holds is None else self.add(llvm.AndOp(holds, test))
        after = Block()
        self.region.add_block(after)
        self.add(llvm.CondBrOp(holds, after, [], self.exit, [self.const(self.asserts, I32)]))
        self.block = after

    def expr(self, expr: sympy.Expr) -> SSAValue:
        """``i64`` code computing the symbolic expression (indices cannot overflow)."""
        expr = sympy.sympify(expr)
        if expr.is_Integer:
            return self.const(int(expr))
        if expr.is_Symbol:
            if expr.name not in self.env:
                raise NotLowerable(f"the data-dependent variable '{expr.name}'")
            return self.env[expr.name]
        if expr.is_Add or expr.is_Mul:
            kind: Callable[..., Operation] = llvm.AddOp if expr.is_Add else llvm.MulOp
            args = [self.expr(a) for a in expr.args]
            value = args[0]
            for arg in args[1:]:
                value = self.add(kind(value, arg, overflow=_NSW))
            return value
        if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
            base = self.expr(expr.base)
            value = base
            for _ in range(int(expr.exp) - 1):
                value = self.add(llvm.MulOp(value, base, overflow=_NSW))
            return value
        if isinstance(expr, FloorDiv | FloorMod):
            numerator, divisor = expr.args
            if not (divisor.is_Integer and divisor > 0):
                raise NotLowerable(f"the division '{symbolic.format_expr(expr)}'")
            return self.floor(self.expr(numerator), int(divisor), isinstance(expr, FloorMod))
        if isinstance(expr, sympy.Min | sympy.Max):
            predicate = "slt" if isinstance(expr, sympy.Min) else "sgt"
            flag = IntegerAttr(llvm.ICmpPredicateFlag(predicate).to_int(), 64)
            args = [self.expr(a) for a in expr.args]
            value = args[0]
            for arg in args[1:]:
                keep = self.add(llvm.ICmpOp(value, arg, flag))
                value = self.add(llvm.SelectOp(keep, value, arg))
            return value
        raise NotLowerable(f"the index expression '{symbolic.format_expr(expr)}'")

    def floor(self, numerator: SSAValue, divisor: int, modulo: bool) -> SSAValue:
        """Floored division or modulo by a positive constant."""
        c = self.const(divisor)
        remainder = self.add(llvm.SRemOp(numerator, c))
        flag = IntegerAttr(llvm.ICmpPredicateFlag.SLT.to_int(), 64)
        negative = self.add(llvm.ICmpOp(remainder, self.const(0), flag))
        if modulo:
            return self.add(llvm.SelectOp(negative, self.add(llvm.AddOp(remainder, c)), remainder))
        quotient = self.add(llvm.SDivOp(numerator, c))
        return self.add(llvm.SubOp(quotient, self.add(llvm.ZExtOp(negative, I64))))


ROLLED_LATCH = "xrelax_rolled"
"""The name of the latch block of a loop LLVM is not to unroll (:func:`_vector_loop`);
the JIT marks its branch ``llvm.loop.unroll.disable`` (:mod:`.jit`)."""
_ROLLED_TRIPS = range(9, 65)
"""The trip counts of the loops kept rolled: at least a vector of 8 floats and short
enough for LLVM to unroll whole (shorter ones, a 3x3 window's row, it may unroll)."""


def _vector_loop(chain: list[ForOp]) -> bool:
    """Whether the (collapsed) innermost loop ``chain``, which accumulates nothing, is
    to stay a loop: its trip count is static and in :data:`_ROLLED_TRIPS`, and the two
    loops read a broadcast operand, one that runs with only one of them (``bias[c]``
    around ``for hw``; channels-last, ``scale[n, c]`` in ``for c`` around each pixel:
    what kept the two from collapsing). LLVM unrolls such a loop whole (a 4x4 image's 16
    elements, a pixel's 32 channels) and then vectorizes the loop around it, across
    images or pixels, with gathers and scatters: a bias add over ``[1280, 4, 4]`` took
    21 us for 5 as a vector loop over each image; a squeeze-and-excitation scale over
    ``[2, 112, 112, 32]`` 705 us for 83. (Without a broadcast operand, as a padded
    copy's rows, the loops measured faster the way LLVM takes them, as did the output
    rows a reduction sweeps.)"""
    outer = chain[0].parent_op()
    body = chain[-1].body.block
    if not isinstance(outer, ForOp) or any(isinstance(op, ForOp) for op in body.walk()):
        return False
    trips = sympy.Mul(*(loop.upper - loop.lower for loop in chain))
    if not (trips.is_Integer and int(trips) in _ROLLED_TRIPS):
        return False
    inner = {loop.var_name for loop in chain}
    broadcast = False
    for op in body.walk():
        if isinstance(op, LoadOp | StoreOp):
            used = set().union(*(symbolic.free_vars(i) for i in op.indices.data))
            if isinstance(op, StoreOp) and outer.var_name not in used:
                return False  # the loop around is a reduction's (its rows vectorize well)
            if isinstance(op, LoadOp):
                broadcast |= (outer.var_name in used) != bool(used & inner)
    return broadcast


def _accumulators(loop: ForOp, names: set[str]) -> list[tuple[SSAValue, tuple]]:
    """The elements an innermost loop (whose variables are ``names``: more than one when
    it is a collapsed chain) reads and writes at indices that do not depend on it (a
    reduction's output element): ``(buffer, indices)``, held in a register over the
    loop (loaded before it, stored after it). The other buffers the loop reads are
    taken to be other memory, as the numpy kernels' vectorized reductions take them."""
    block = loop.body.block
    if any(isinstance(op, ForOp | LetOp) for op in block.walk()):
        return []  # (an index with a let variable changes with the loop)
    accesses: dict[SSAValue, set[tuple]] = {}
    padded: set[SSAValue] = set()
    for op in block.walk():
        if isinstance(op, LoadOp | StoreOp):
            accesses.setdefault(op.buffer, set()).add(op.indices.data)
            if isinstance(op, LoadOp) and op.pad is not None:
                padded.add(op.buffer)
    found = []
    for op in block.ops:
        if not isinstance(op, StoreOp) or op.buffer.type.dtype == dtypes.I1:
            continue
        indices = op.indices.data
        uses_loop = any(names & symbolic.free_vars(i) for i in indices)
        key = (op.buffer, indices)
        alone = accesses[op.buffer] == {indices} and op.buffer not in padded
        if not uses_loop and alone and key not in found:
            found.append(key)
    return found


_LO, _HI = "slice.lo", "slice.hi"
"""The names of the slice's bounds in the lowering's environment (not identifiers)."""
_SLICE, _TASK = ".slice", ".task"
"""The suffixes of the function over a slice and of the task of a split prim_func."""


def _function(name: str, region: Region) -> llvm.FuncOp:
    """An llvm.func returning ``i32`` over ``region``, its pointer arguments
    ``noalias``: the buffers never overlap where one is written (the caller's contract:
    the VM allocates outputs apart from live inputs, the kernel entry checks a direct
    call), so LLVM vectorizes without run-time checks."""
    types = list(region.blocks[0].arg_types)
    noalias = DictionaryAttr({"llvm.noalias": UnitAttr()})
    arg_attrs = ArrayAttr([noalias if t == PTR else DictionaryAttr({}) for t in types])
    return llvm.FuncOp(
        name,
        llvm.LLVMFunctionType(types, I32),
        linkage=llvm.LinkageAttr("external"),
        body=region,
        other_props={"arg_attrs": arg_attrs},
    )


class LowerPrimFunc(RewritePattern):
    """``tir.prim_func`` -> ``llvm.func`` with its control flow, loads and stores
    lowered; its scalar ops are left to :class:`LowerScalarOp`."""

    def __init__(self) -> None:
        self.tiled = 0
        """The nests lowered as register tiles so far."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimFuncOp, rewriter: PatternRewriter) -> None:
        check_lowerable(op)
        try:
            lowering = _FuncLowering(op)
            lowered = lowering.lower()
        except NotLowerable as reason:
            reason.func = op
            raise
        self.tiled += lowering.tiled
        rewriter.replace(op, lowered, [])


_EXTERNALS = {
    "malloc": llvm.LLVMFunctionType([I64], PTR),
    "free": llvm.LLVMFunctionType([PTR]),
}


def _declare_externals(module: ModuleOp) -> None:
    """Declare the C functions the llvm.funcs call (``malloc``, ``free``, libm's)."""
    defined = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp)}
    needed: dict[str, llvm.LLVMFunctionType] = {}
    for op in module.walk():
        if isinstance(op, llvm.CallOp) and op.callee is not None:
            name = op.callee.root_reference.data
            if name in defined or name in needed:
                continue
            result = op.returned.type if op.returned is not None else None
            needed[name] = _EXTERNALS.get(name) or llvm.LLVMFunctionType(
                [a.type for a in op.args], result
            )
    for name, type_ in needed.items():
        module.body.block.add_op(llvm.FuncOp(name, type_, linkage=llvm.LinkageAttr("external")))


def lower_module(module: ModuleOp) -> int:
    """Lower every prim_func of ``module`` (:class:`NotLowerable` if one cannot be);
    adjacent element-wise nests first run as one (:class:`FuseElementwiseNests`),
    padded loads read padded copies (:class:`MaterializePadding`), and reductions that
    stride through memory run with their output loops inside
    (:class:`~.reduction_order.SinkOutputLoops`)."""
    PatternRewriteWalker(FuseElementwiseNests(), apply_recursively=False).rewrite_module(module)
    PatternRewriteWalker(MaterializeWindows(), apply_recursively=False).rewrite_module(module)
    PatternRewriteWalker(MaterializePadding(), apply_recursively=False).rewrite_module(module)
    SinkOutputLoopsPass().apply(Context(), module)
    PatternRewriteWalker(MarkParallelLoops(), apply_recursively=False).rewrite_module(module)
    lower = LowerPrimFunc()
    PatternRewriteWalker(
        GreedyRewritePatternApplier([lower, LowerScalarOp()]),
        apply_recursively=True,
    ).rewrite_module(module)
    _declare_externals(module)
    return lower.tiled


class TirToLlvmPass(ModulePass):
    """``tir-to-llvm``: every ``tir.prim_func`` of the module becomes an ``llvm.func``."""

    name = "tir-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.body.block.ops if isinstance(f, PrimFuncOp)]:
            try:
                check_lowerable(func)
            except NotLowerable as reason:
                raise IRError(func, f"tir-to-llvm cannot lower this prim_func: {reason}") from None
        try:
            lower_module(op)
        except NotLowerable as reason:
            where = reason.func or op
            raise IRError(where, f"tir-to-llvm cannot lower this prim_func: {reason}") from None
