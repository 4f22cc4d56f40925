"""``relax-fuse-ops``: group fusible ``call_tir`` chains into primitive sub-functions.

Within each dataflow region, a ``call_tir`` joins the group of a ``call_tir``
producing one of its arguments when the producer's result is used by it alone and the
patterns allow it (:mod:`xrelax.transforms.op_pattern`): elementwise, broadcast and
injective kernels fuse with each other and into the inputs of a reduction or
matmul-like kernel (a transposed weight is read in place: ``tir-inline-copies`` then
turns the transpose into a view), and elementwise/broadcast kernels fuse as the
epilogue of one reduction or matmul-like kernel. A second phase merges a group into
the one group that holds all its uses (TVM's post-dominator fusion: the two sides of a
diamond, such as an RNN step's gates slicing one projection, meet in one group), where
a matmul-like group may also join slices and other injective calls of its output, and
reductions of it (a softmax of logits); two matmul-like kernels never share a group.
Each group of two or more calls is
outlined into ``relax.func private @fused_<ops>(...) attributes {primitive}`` and
replaced by a ``relax.call`` of it; ``relax-fuse-tir`` then merges its kernels.

The sub-function keeps the symbolic shapes of the caller (the seeds' W0): its
parameters carry the caller's types, and variables that no parameter binds as a whole
dimension are passed in an extra ``!relax.shape`` parameter built at the call site.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xrelax.dialects.relax import (
    PRIMITIVE_ATTR,
    CallOp,
    CallTIROp,
    DataflowOp,
    FuncOp,
    GetItemOp,
    ReturnOp,
    ShapeOp,
    ShapeType,
    TupleOp,
    TupleType,
    type_binds,
    type_free_vars,
)
from xrelax.dialects.tir import PrimFuncOp
from xrelax.transforms.function_walk import rewrite_function_bodies
from xrelax.transforms.op_pattern import OpPattern, op_pattern

_INJECTIVE = OpPattern.INJECTIVE


@dataclass
class Group:
    """Calls fused together: their pattern (the max of the members') and the group's
    reduction or matmul-like member, if any (at most one per group)."""

    ops: list[CallTIROp]
    kind: OpPattern
    anchor: CallTIROp | None = None


def can_join(producer: Group, consumer: Group, consumer_kind: OpPattern) -> bool:
    """Whether the consumer's group (whose newest call has ``consumer_kind``) may absorb
    the producer's group."""
    if consumer_kind == OpPattern.OPAQUE or producer.kind == OpPattern.OPAQUE:
        return False
    if producer.anchor is None:
        return producer.kind <= _INJECTIVE
    return consumer_kind <= OpPattern.BROADCAST and consumer.anchor is None


def _only_used_by(value: SSAValue, user: Operation) -> bool:
    return all(use.operation is user for use in value.uses)


def _merge(a: Group, b: Group, group_of: dict[Operation, Group]) -> Group:
    """One group of the calls of ``a`` and ``b``: the smaller joins the larger, so
    building a group of n calls costs O(n log n)."""
    small, large = (a, b) if len(a.ops) < len(b.ops) else (b, a)
    large.ops.extend(small.ops)
    large.kind = max(a.kind, b.kind)
    large.anchor = a.anchor or b.anchor
    for member in small.ops:
        group_of[member] = large
    return large


def find_groups(block: Block, patterns: dict[str, OpPattern]) -> list[Group]:
    """The fusion groups of a dataflow block (groups of one call included)."""
    group_of: dict[Operation, Group] = {}
    for op in block.ops:
        if not isinstance(op, CallTIROp) or isinstance(op.result.type, TupleType):
            continue
        kind = patterns.get(op.callee.string_value(), OpPattern.OPAQUE)
        anchor = op if kind in (OpPattern.REDUCTION, OpPattern.OUT_EWISE_FUSABLE) else None
        group = group_of[op] = Group([op], kind, anchor)
        for operand in dict.fromkeys(op.args):
            source = group_of.get(operand.owner)
            if source is None or source is group or not _only_used_by(operand, op):
                continue
            if can_join(source, group, kind):
                group = _merge(source, group, group_of)
    order = {op: index for index, op in enumerate(block.ops)}
    _join_diamonds(block, group_of)
    unique = list({id(g): g for g in group_of.values()}.values())
    for group in unique:
        group.ops.sort(key=order.__getitem__)
    return sorted(unique, key=lambda g: order[g.ops[0]])


def _join_diamonds(block: Block, group_of: dict[Operation, Group]) -> None:
    """Merge each group all of whose uses are in one other group into it (TVM's
    post-dominator fusion): a value several calls of one group read (the gates of an
    RNN step slicing one projection, ``x`` and ``f(x)`` meeting again) no longer cuts
    the group. A matmul-like group may join a consumer with injective members (slices
    of its output) or reductions (softmax), which the first pass keeps apart.

    The merged group's outputs are the consumer's, so it is still one call placed at
    its last member; no cycle is formed (nothing outside the consumer reads the
    producer). Groups are visited last to first, so a consumer is complete before its
    producers are."""
    seen: set[int] = set()
    for op in reversed(block.ops):
        producer = group_of.get(op)
        if producer is None or id(producer) in seen:
            continue
        seen.add(id(producer))
        consumer = _sole_consumer(producer, group_of)
        if consumer is not None and _can_absorb(producer, consumer):
            seen.add(id(_merge(producer, consumer, group_of)))


def _sole_consumer(producer: Group, group_of: dict[Operation, Group]) -> Group | None:
    """The one group that holds every use of ``producer``'s results, if there is one."""
    consumer = None
    for member in producer.ops:
        for use in member.result.uses:
            user = group_of.get(use.operation)
            if user is producer:
                continue
            if user is None or (consumer is not None and user is not consumer):
                return None
            consumer = user
    return consumer


def _can_absorb(producer: Group, consumer: Group) -> bool:
    """Whether ``consumer`` may take in ``producer``, all of whose uses it holds."""
    if consumer.kind == OpPattern.OPAQUE or producer.kind == OpPattern.OPAQUE:
        return False
    if producer.anchor is None:
        return producer.kind <= _INJECTIVE
    if consumer.anchor is None:
        return consumer.kind <= _INJECTIVE
    # Reductions of a matmul-like kernel's output (softmax, pooling, norms) join it; two
    # matmul-like kernels stay apart.
    return not producer.kind == consumer.kind == OpPattern.OUT_EWISE_FUSABLE


class FuseDataflow(RewritePattern):
    """Outline the fusion groups of one dataflow region."""

    def __init__(self, patterns: dict[str, OpPattern], names: set[str]) -> None:
        self.patterns = patterns
        self.names = names

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DataflowOp, rewriter: PatternRewriter) -> None:
        for group in find_groups(op.body.block, self.patterns):
            if len(group.ops) >= 2:
                self.outline(group, rewriter)

    def outline(self, group: Group, rewriter: PatternRewriter) -> None:
        members = set(group.ops)
        inputs = list(
            dict.fromkeys(a for op in group.ops for a in op.args if a.owner not in members)
        )
        outputs = [
            op.result
            for op in group.ops
            if any(use.operation not in members for use in op.result.uses)
        ]
        if not outputs:
            return  # a dead chain: dce removes it
        bound: set[str] = set()
        for value in inputs:
            bound |= type_binds(value.type)
        needed: set[str] = set()
        for op in group.ops:
            needed |= type_free_vars(op.result.type)
            if op.sym_args is not None:
                needed |= op.sym_args.free_vars()
        extra = sorted(needed - bound)

        param_types = [v.type for v in inputs]
        if extra:
            param_types.append(ShapeType.of(extra))
        result_types = [v.type for v in outputs]
        result_type = result_types[0] if len(outputs) == 1 else TupleType.of(result_types)
        name = self.fresh_name(_group_name([o.callee.string_value() for o in group.ops]))
        func = FuncOp(name, param_types, result_type, visibility="private")
        func.attributes[PRIMITIVE_ATTR] = UnitAttr()
        body = func.body.block
        caller = group.ops[-1].parent_op()
        while not isinstance(caller, FuncOp):
            caller = caller.parent_op()
        rewriter.insert(func, InsertPoint.before(caller))

        args = list(inputs)
        anchor = group.ops[-1]
        if extra:
            shape = ShapeOp(extra)
            rewriter.insert(shape, InsertPoint.before(anchor))
            args.append(shape.result)
        call = CallOp(name, args, result_type)
        rewriter.insert(call, InsertPoint.before(anchor))
        results = [call.result]
        if len(outputs) > 1:
            items = [GetItemOp(call.result, i) for i in range(len(outputs))]
            for item in items:
                rewriter.insert(item, InsertPoint.before(anchor))
            results = [item.result for item in items]
        for old, new in zip(outputs, results, strict=True):
            new.name_hint = old.name_hint
            rewriter.replace_uses_with_if(old, new, lambda use: use.operation not in members)
        # The group's ops move into the function (no copies), reading its parameters.
        for op in group.ops:
            rewriter.handle_operation_removal(op)
            op.detach()
            body.add_op(op)
        for value, arg in zip(inputs, body.args, strict=False):
            arg.name_hint = value.name_hint
            value.replace_uses_with_if(arg, lambda use: use.operation in members)
        returned = list(outputs)
        if len(returned) > 1:
            tuple_op = TupleOp.build_deduced(returned)
            body.add_op(tuple_op)
            returned = [tuple_op.results[0]]
        body.add_op(ReturnOp(returned[0]))

    def fresh_name(self, base: str) -> str:
        name, suffix = base, 0
        while name in self.names:
            suffix += 1
            name = f"{base}{suffix}"
        self.names.add(name)
        return name


_MAX_NAME = 64


def _group_name(kernels: list[str]) -> str:
    """``fused_<kernel>_<kernel>...``; past 64 characters (TVM bounds its fused names
    too) the kernels that fit, then ``_and<count of the others>``."""
    full = "_".join(["fused", *kernels])
    if len(full) <= _MAX_NAME:
        return full
    name = "fused_" + kernels[0]
    for k, kernel in enumerate(kernels[1:], 1):
        if len(name) + len(kernel) + 1 > _MAX_NAME - len("_and999"):
            return f"{name}_and{len(kernels) - k}"
        name += "_" + kernel
    return name


@dataclass(frozen=True)
class FuseOpsPass(ModulePass):
    """Outline fusible groups of kernel calls into primitive relax functions."""

    name = "relax-fuse-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = {f.sym_name.data: op_pattern(f) for f in op.ops if isinstance(f, PrimFuncOp)}
        names = {f.sym_name.data for f in op.ops if hasattr(f, "sym_name")}
        rewrite_function_bodies(
            op, PatternRewriteWalker(FuseDataflow(patterns, names), apply_recursively=False)
        )
