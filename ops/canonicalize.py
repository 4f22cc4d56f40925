"""Canonicalization patterns of the operators, reached by the stock ``canonicalize`` pass
through each operator's ``HasCanonicalizationPatternsTrait``:

* an operator whose result is its operand unchanged is that operand: a reshape, flatten,
  squeeze or expand_dims to the same shape, an identity ``permute_dims``, ``astype`` to
  the same dtype;
* a reshape of a reshape reshapes the original; a permute of a permute is one permute;
* ``x + 0``, ``x - 0``, ``x * 1``, ``x / 1`` (a constant of zeros or ones that does not
  broadcast ``x``) are ``x``.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait

from xrelax.dialects.relax import ConstOp, DeducedResultOp, TensorType, type_relation
from xrelax.dialects.shapes import symbolic
from xrelax.ops.base import prop_ints


def _same_tensor(a: SSAValue, b: SSAValue) -> bool:
    """Whether two values provably have the same shape and dtype."""
    ta, tb = a.type, b.type
    if not (isinstance(ta, TensorType) and isinstance(tb, TensorType)):
        return False
    if ta.dims is None or tb.dims is None or ta.dtype != tb.dtype or len(ta.dims) != len(tb.dims):
        return False
    return all(symbolic.prove_equal(x, y) for x, y in zip(ta.dims, tb.dims, strict=True))


class IdentityOperator(RewritePattern):
    """A shape-only operator whose result provably equals its (first) operand."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (
            op.results
            and _same_tensor(op.operands[0], op.results[0])
            and _no_data_change(op)
            and not _obligations(op)
        ):
            rewriter.replace(op, [], [op.operands[0]])


def _obligations(op: Operation) -> tuple:
    """The facts ``op`` relies on unproven: a rewrite must not drop their check."""
    return op.obligations() if isinstance(op, DeducedResultOp) else ()


def _no_data_change(op: Operation) -> bool:
    if op.name == "relax.permute_dims":
        axes = prop_ints(dict(op.properties), "axes")
        rank = op.results[0].type.ndim  # type: ignore[union-attr]
        return axes is not None and axes == list(range(rank))
    return True


class ReshapeOfReshape(RewritePattern):
    """``reshape(reshape(x, s1), s2)`` is ``reshape(x, s2)`` when the inner reshape provably
    keeps the element count (otherwise its run-time check would be lost)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        inner = op.operands[0].owner
        if not isinstance(inner, Operation) or inner.name != op.name or _obligations(inner):
            return
        operands = [inner.operands[0], *op.operands[1:]]
        assert isinstance(op, DeducedResultOp)
        deduced = type(op).deduction([o.type for o in operands], op.properties).type
        if type_relation(op.results[0].type, deduced) != "yes":
            return
        new = type(op).create(
            operands=operands, properties=dict(op.properties), result_types=[op.results[0].type]
        )
        rewriter.replace(op, new)


class PermuteOfPermute(RewritePattern):
    """``permute_dims(permute_dims(x, a), b)`` is ``permute_dims(x, a[b])``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        inner = op.operands[0].owner
        if not isinstance(inner, Operation) or inner.name != op.name:
            return
        rank = op.results[0].type.ndim  # type: ignore[union-attr]
        if rank is None:
            return
        first = prop_ints(dict(inner.properties), "axes") or list(reversed(range(rank)))
        second = prop_ints(dict(op.properties), "axes") or list(reversed(range(rank)))
        axes = [first[a % rank] for a in second]
        new = type(op).create(
            operands=[inner.operands[0]],
            properties={"axes": DenseArrayBase.from_list(i64, axes)},
            result_types=[op.results[0].type],
        )
        rewriter.replace(op, new)


class NeutralConstant(RewritePattern):
    """``x + 0``, ``0 + x``, ``x - 0``, ``x * 1``, ``1 * x``, ``x / 1`` are ``x``."""

    NEUTRAL = {"relax.add": 0.0, "relax.subtract": 0.0, "relax.multiply": 1.0, "relax.divide": 1.0}
    COMMUTATIVE = ("relax.add", "relax.multiply")

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        neutral = self.NEUTRAL.get(op.name)
        if neutral is None:
            return
        lhs, rhs = op.operands
        candidates = [(lhs, rhs)] + ([(rhs, lhs)] if op.name in self.COMMUTATIVE else [])
        for keep, constant in candidates:
            if _is_splat(constant, neutral) and _same_tensor(keep, op.results[0]):
                rewriter.replace(op, [], [keep])
                return


def _is_splat(value: SSAValue, number: float) -> bool:
    owner = value.owner
    if not isinstance(owner, ConstOp):
        return False
    values = owner.value.get_values()
    return len(values) > 0 and bool(np.all(np.asarray(values, dtype=np.float64) == number))


class ShapeOperatorCanonicalization(HasCanonicalizationPatternsTrait):
    """reshape/flatten/squeeze/expand_dims/permute_dims/astype that change nothing."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (IdentityOperator(),)


class ReshapeCanonicalization(HasCanonicalizationPatternsTrait):
    """Identity reshapes and reshapes of reshapes."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (IdentityOperator(), ReshapeOfReshape())


class PermuteCanonicalization(HasCanonicalizationPatternsTrait):
    """Identity permutations and permutations of permutations."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (IdentityOperator(), PermuteOfPermute())


class NeutralElementCanonicalization(HasCanonicalizationPatternsTrait):
    """Adding zero, multiplying by one."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (NeutralConstant(),)
