"""``relax-convert-layout``: put chains of 2-D convolutions in channels-last (NHWC), TVM
Relax's ConvertLayout.

A channels-last convolution is one matrix product whose im2col copy reads whole runs
of channels (a tap's channels, then the next tap's), where a channels-first one copies
rows of the output width; its weights, once permuted to HWIO, are the product's right
operand as they are stored.

* a ``relax.conv2d`` of constant weights (the weights bound: a per-call weight
  transpose would cost more than it saves) becomes ``data_layout = "NHWC"``,
  ``kernel_layout = "HWIO"`` between a ``permute_dims`` of its data to NHWC and one of
  its result back to NCHW; the weights' ``permute_dims`` is folded by
  ``relax-fold-constant``;
* the permute back to NCHW moves below the operators that do not care about the
  layout: unary and binary element-wise operators (a constant operand, broadcast to rank
  4, is permuted alongside; a rank-0 one stays), 2-D max and average pooling (given
  ``layout = "NHWC"``), reductions that keep their dimensions (the axes renumbered);
* a ``permute_dims`` of a ``permute_dims`` is one permute, none when they cancel, so
  the permutes remain at the chains' boundaries only.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, ModuleOp, StringAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.dialects.relax import ConstOp, TensorType
from xrelax.ops.base import prop_bool, prop_ints
from xrelax.ops.canonicalize import PermuteCanonicalization
from xrelax.ops.elementwise import BinaryOp, UnaryOp
from xrelax.ops.functions import operator_function
from xrelax.ops.manipulate import ExpandDimsOp, PermuteDimsOp
from xrelax.ops.nn import AvgPool2dOp, Conv2dOp, MaxPool2dOp
from xrelax.ops.reduce import ReduceOp

TO_CHANNELS_LAST = (0, 2, 3, 1)
"""The ``permute_dims`` axes from NCHW to NHWC."""
TO_CHANNELS_FIRST = (0, 3, 1, 2)
"""The ``permute_dims`` axes from NHWC to NCHW."""
WEIGHTS_TO_HWIO = (2, 3, 1, 0)
"""The ``permute_dims`` axes from OIHW weights to HWIO."""

_permute = operator_function(PermuteDimsOp)
_expand_dims = operator_function(ExpandDimsOp)


def _axes(values: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _rank(value: SSAValue) -> int | None:
    return value.type.ndim if isinstance(value.type, TensorType) else None


def _channels_last_source(value: SSAValue) -> SSAValue | None:
    """The NHWC tensor whose permute back to NCHW ``value`` is, if it is one."""
    owner = value.owner
    if isinstance(owner, PermuteDimsOp) and prop_ints(dict(owner.properties), "axes") == list(
        TO_CHANNELS_FIRST
    ):
        return owner.x
    return None


def _rebuilt(
    op: Operation, operands: list[SSAValue], rewriter: PatternRewriter, **changed: object
) -> None:
    """Replace ``op`` (its result NCHW) by the same operator of the channels-last
    ``operands`` (its properties updated by ``changed``), then a permute back."""
    properties = {**dict(op.properties), **changed}
    new = operator_function(type(op))(*operands, **properties)
    back = _permute(new.results[0], axes=_axes(TO_CHANNELS_FIRST))
    rewriter.replace(op, [new, back], [back.results[0]])


class ConvToChannelsLast(RewritePattern):
    """A channels-first ``conv2d`` of constant weights as a channels-last one between
    permutes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Conv2dOp, rewriter: PatternRewriter) -> None:
        if "data_layout" in op.properties or "kernel_layout" in op.properties:
            return
        if not isinstance(op.weight.owner, ConstOp) or _rank(op.x) != 4:
            return
        data = _permute(op.x, axes=_axes(TO_CHANNELS_LAST))
        weight = _permute(op.weight, axes=_axes(WEIGHTS_TO_HWIO))
        rewriter.insert(data)
        rewriter.insert(weight)
        _rebuilt(
            op,
            [data.results[0], weight.results[0]],
            rewriter,
            data_layout=StringAttr("NHWC"),
            kernel_layout=StringAttr("HWIO"),
        )


class UnaryBelowPermute(RewritePattern):
    """``f(permute(x))`` is ``permute(f(x))`` for an element-wise ``f``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UnaryOp, rewriter: PatternRewriter) -> None:
        source = _channels_last_source(op.x)
        if source is not None:
            _rebuilt(op, [source], rewriter)


class BinaryBelowPermute(RewritePattern):
    """``f(permute(x), permute(y))`` is ``permute(f(x, y))`` for an element-wise ``f``;
    an operand may also be a constant (permuted alongside) or of rank 0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryOp, rewriter: PatternRewriter) -> None:
        sources = [_channels_last_source(v) for v in (op.lhs, op.rhs)]
        if all(s is None for s in sources) or _rank(op.result) != 4:
            return
        operands: list[SSAValue] = []
        for value, source in zip((op.lhs, op.rhs), sources, strict=True):
            rank = _rank(value)
            if source is not None:
                operands.append(source)
            elif rank == 0:
                operands.append(value)
            elif isinstance(value.owner, ConstOp) and rank is not None and rank <= 4:
                operands.append(self.channels_last_constant(value, rank, rewriter))
            else:
                return
        _rebuilt(op, operands, rewriter)

    @staticmethod
    def channels_last_constant(value: SSAValue, rank: int, rewriter: PatternRewriter) -> SSAValue:
        """A constant that broadcasts against NCHW, as one that broadcasts against NHWC."""
        if rank < 4:
            expanded = _expand_dims(value, axis=_axes(tuple(range(4 - rank))))
            rewriter.insert(expanded)
            value = expanded.results[0]
        permuted = _permute(value, axes=_axes(TO_CHANNELS_LAST))
        rewriter.insert(permuted)
        return permuted.results[0]


class PoolBelowPermute(RewritePattern):
    """``pool(permute(x))`` is ``permute(pool(x))`` with the pooling in NHWC."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, MaxPool2dOp | AvgPool2dOp) or "layout" in op.properties:
            return
        source = _channels_last_source(op.x)
        if source is not None:
            _rebuilt(op, [source], rewriter, layout=StringAttr("NHWC"))


class ReduceBelowPermute(RewritePattern):
    """``reduce(permute(x), axes, keepdims)`` is ``permute(reduce(x, axes'))``, ``axes'``
    the same axes in NHWC."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOp, rewriter: PatternRewriter) -> None:
        props = dict(op.properties)
        axes = prop_ints(props, "axis")
        source = _channels_last_source(op.x)
        if source is None or axes is None or not prop_bool(props, "keepdims"):
            return
        moved = tuple(sorted(TO_CHANNELS_FIRST[a % 4] for a in axes))
        _rebuilt(op, [source], rewriter, axis=_axes(moved), keepdims=BoolAttr.from_bool(True))


class CancelPermutes(RewritePattern):
    """``permute_dims``'s canonicalizations: a permute of a permute is one permute, an
    identity permute is its operand."""

    def __init__(self) -> None:
        self.patterns = PermuteCanonicalization.get_canonicalization_patterns()

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PermuteDimsOp, rewriter: PatternRewriter) -> None:
        for pattern in self.patterns:
            pattern.match_and_rewrite(op, rewriter)
            if op.parent is None:
                return


@dataclass(frozen=True)
class ConvertLayoutPass(ModulePass):
    """Convert 2-D convolution chains to channels-last, permutes at their boundaries."""

    name = "relax-convert-layout"

    layout: str = "NHWC"
    """The data layout of the converted convolutions; NHWC is the one supported."""

    def __post_init__(self) -> None:
        if self.layout != "NHWC":
            raise ValueError(f"relax-convert-layout: layout must be NHWC, got {self.layout}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns: list[RewritePattern] = [
            ConvToChannelsLast(),
            UnaryBelowPermute(),
            BinaryBelowPermute(),
            PoolBelowPermute(),
            ReduceBelowPermute(),
            CancelPermutes(),
        ]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
