"""``relax-fold-constant``: evaluate what is known at compile time.

* an operator whose tensor operands are all ``relax.const`` (and whose shape operands
  are static) becomes a ``relax.const`` of its reference kernel's result;
* a ``call_tir`` of constants runs its kernel at compile time;
* ``relax.shape_of`` of a tensor whose shape is known becomes ``relax.shape``;
* ``relax.match_shape`` of a value whose type already has the pattern, binding no new
  variable, is the value itself.

Results larger than ``max-elements`` are left alone so modules stay small, and so are
operators of larger constants (a splat may declare billions of elements).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import SymbolTable

from xrelax.diagnostics import IRError
from xrelax.dialects import dtypes, symbolic
from xrelax.dialects.relax import (
    CallTIROp,
    ConstOp,
    MatchShapeOp,
    ShapeOfOp,
    ShapeOp,
    ShapeType,
    TensorType,
    type_relation,
)
from xrelax.dialects.relax_scoping import defined_by_pattern
from xrelax.ops.base import OperatorOp


def const_value(value: SSAValue) -> Any | None:
    """The compile-time value of ``value``: a numpy array for ``relax.const``, a tuple
    of ints for a static ``relax.shape``, else None."""
    owner = value.owner
    if isinstance(owner, ConstOp):
        return dtypes.dense_array(owner.value)
    if isinstance(owner, ShapeOp) and all(d.is_Integer for d in owner.dims.data):
        return tuple(int(d) for d in owner.dims.data)
    return None


def make_const(array: np.ndarray) -> ConstOp:
    """A ``relax.const`` holding ``array``."""
    dtype = dtypes.from_numpy(array.dtype)
    type_ = BuiltinTensorType(dtype, list(array.shape))
    values = array.ravel().tolist()
    if array.dtype == np.bool_:
        values = [int(v) for v in values]
    attr = DenseIntOrFPElementsAttr.from_list(type_, values)
    return ConstOp(attr, TensorType.of(list(array.shape), dtype))


def _static_tensor(type_: object) -> bool:
    return (
        isinstance(type_, TensorType)
        and type_.dims is not None
        and type_.known_dtype is not None
        and all(d.is_Integer for d in type_.dims)
    )


class FoldOperator(RewritePattern):
    """Evaluate an operator (or a call_tir) of constants."""

    def __init__(self, max_elements: int, module: ModuleOp) -> None:
        self.max_elements = max_elements
        self.module = module

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, OperatorOp | CallTIROp) or not _static_tensor(op.results[0].type):
            return
        inputs = [const_value(o) for o in op.operands]
        if any(i is None for i in inputs):
            return
        if any(isinstance(i, np.ndarray) and i.size > self.max_elements for i in inputs):
            # a splat of billions of elements is one stored value: folding would compute
            # over all of them
            return
        result_type = op.results[0].type
        if np.prod([int(d) for d in result_type.dims]) > self.max_elements:  # type: ignore[union-attr]
            return
        if isinstance(op, OperatorOp):
            try:
                result = np.asarray(type(op).run_reference(inputs, dict(op.properties)))
            except Exception as err:  # noqa: BLE001 - the reference refuses these constants
                # A violation proven at compile time, as the kernel path reports it.
                raise IRError(op, f"{op.name}: {' '.join(str(err).split())}") from None
        else:
            result = self.run_kernel(op, inputs)
        rewriter.replace(op, make_const(result))

    def run_kernel(self, op: CallTIROp, inputs: list[Any]) -> np.ndarray:
        from xrelax.backends.kernels import KernelError, compile_prim_func

        callee = SymbolTable.lookup_symbol(self.module, op.callee)
        type_ = op.result.type
        out = np.empty(tuple(int(d) for d in type_.dims), dtypes.numpy_dtype(type_.dtype))  # type: ignore[union-attr]
        sym_args = [int(e) for e in op.sym_args.data] if op.sym_args is not None else []
        try:
            compile_prim_func(callee)(*inputs, out, *sym_args)  # type: ignore[arg-type]
        except KernelError as err:
            # The kernel refuses these constants: a violation proven at compile time.
            raise IRError(op, str(err)) from None
        return out


class FoldShapeOf(RewritePattern):
    """``shape_of`` of a tensor of known dims is that shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ShapeOfOp, rewriter: PatternRewriter) -> None:
        type_ = op.value.type
        if isinstance(type_, TensorType) and type_.dims is not None:
            rewriter.replace(op, ShapeOp(type_.dims))


class FoldMatchShape(RewritePattern):
    """A match_shape that binds nothing new and provably holds is its value."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatchShapeOp, rewriter: PatternRewriter) -> None:
        value_type = op.value.type
        if not isinstance(value_type, TensorType | ShapeType) or value_type.dims is None:
            return
        if not all(
            symbolic.prove_equal(a, b)
            for a, b in zip(value_type.dims, op.pattern.data, strict=True)
        ):
            return
        if defined_by_pattern(op.pattern.data) - {d.name for d in value_type.dims if d.is_Symbol}:
            return
        if type_relation(op.result.type, value_type) == "yes":
            rewriter.replace(op, [], [op.value])


@dataclass(frozen=True)
class FoldConstantPass(ModulePass):
    """Fold operators of constants, known shapes and redundant shape matches."""

    name = "relax-fold-constant"

    max_elements: int = 1 << 16

    def __post_init__(self) -> None:
        if self.max_elements < 0:
            raise ValueError(f"max_elements must be >= 0, got {self.max_elements}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [FoldOperator(self.max_elements, op), FoldShapeOf(), FoldMatchShape()]
        PatternRewriteWalker(
            GreedyRewritePatternApplier(patterns, dce_enabled=False)
        ).rewrite_module(op)
