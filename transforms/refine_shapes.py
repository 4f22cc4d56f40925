"""``relax-refine-shapes``: learn unknown shapes backwards from their uses (the shape
design's A0).

```mlir
relax.func @before(%x: !relax.tensor<*, ?>, %y: !relax.tensor<[m, n], f32>) -> ... {
  %lv0 = relax.log %x : (!relax.tensor<*, ?>) -> !relax.tensor<*, ?>
  %sum = relax.add %lv0, %y : (...) -> !relax.tensor<*, ?>
  %gv0 = relax.match_shape %sum [m, n] : (!relax.tensor<*, ?>) -> !relax.tensor<[m, n], ?>
```

becomes ``@after(%x: !relax.tensor<[m, n], f32>, ...)`` with every type re-deduced.
Walking each function backwards, a value less specific than what a use requires is
refined to it:

* the value a ``match_shape`` matches gets the pattern as its shape (when the pattern
  only uses variables the parameters define), which makes the match redundant;
* the operand of a unary elementwise operator gets the result's type;
* an operand of a binary elementwise operator whose *other* operand already has the
  result's shape gets the result's shape (the refinement takes the operation to be
  elementwise rather than broadcasting that operand; the parameter check at entry then
  rejects an input that would have broadcast).

A refined parameter changes the function's signature, so only variables the other
parameters define may appear in it. ``relax-normalize`` then re-deduces forwards.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.relax import (
    FuncOp,
    MatchShapeOp,
    TensorType,
    type_binds,
    type_free_vars,
    type_relation,
)
from xrelax.ops.elementwise import BinaryOp, UnaryOp
from xrelax.transforms.normalize import NormalizePass


def _requirements(op: Operation, entry_vars: set[str]) -> list[tuple[SSAValue, TensorType]]:
    """(operand, type it must have) pairs that ``op``'s result type implies."""
    result = op.results[0].type if op.results else None
    if not isinstance(result, TensorType) or result.dims is None:
        return []
    if isinstance(op, MatchShapeOp):
        value = op.value
        if isinstance(value.type, TensorType) and type_free_vars(result) <= entry_vars:
            return [(value, TensorType(DimsAttr(result.dims), value.type.dtype))]
        return []
    if isinstance(op, UnaryOp):
        return [(op.operands[0], result)]
    if isinstance(op, BinaryOp):
        required = []
        for value, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            other_type = other.type
            if isinstance(other_type, TensorType) and other_type.dims == result.dims:
                dtype = _first_known(value.type, other_type, result)
                required.append((value, TensorType(DimsAttr(result.dims), dtype)))
        return required
    return []


def _first_known(*types: Attribute) -> Attribute:
    """The first known element type (binary operators take one dtype for both sides)."""
    for type_ in types:
        if isinstance(type_, TensorType) and type_.known_dtype is not None:
            return type_.dtype
    return types[-1].dtype  # type: ignore[union-attr]


def _refines(current: Attribute, required: TensorType) -> bool:
    return current != required and type_relation(current, required) == "yes"


class RefineFunction(RewritePattern):
    """Refine the types of one function backwards from its uses."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FuncOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        entry_vars: set[str] = set()
        for arg in block.args:
            entry_vars |= type_binds(arg.type)
        changed = True
        while changed:
            changed = False
            for inner in reversed(list(op.walk())):
                for value, required in _requirements(inner, entry_vars):
                    if not _refines(value.type, required):
                        continue
                    is_param = isinstance(value, BlockArgument) and value.block is block
                    if is_param and not self._signature_allows(op, value, required):
                        continue
                    name = value.name_hint
                    rewriter.replace_value_with_new_type(value, required).name_hint = name
                    changed = True
        inputs = [arg.type for arg in block.args]
        if tuple(inputs) != op.function_type.inputs.data:
            op.function_type = FunctionType.from_lists(inputs, op.function_type.outputs.data)
            rewriter.notify_op_modified(op)

    def _signature_allows(self, func: FuncOp, param: BlockArgument, required: TensorType) -> bool:
        defined: set[str] = set()
        for arg in func.body.block.args:
            defined |= type_binds(required if arg is param else arg.type)
        return type_free_vars(required) <= defined


@dataclass(frozen=True)
class RefineShapesPass(ModulePass):
    """Refine unknown shapes backwards from elementwise uses, then re-normalize."""

    name = "relax-refine-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(RefineFunction(), apply_recursively=False).rewrite_module(op)
        NormalizePass().apply(ctx, op)
