"""``relax-fold-constant``: evaluate what is known at compile time.

* an operator whose tensor operands are all ``relax.const`` (and whose shape operands
  are static) becomes a ``relax.const`` of its reference kernel's result (a ``relax.tuple``
  of constants where it returns a tuple: ``split``), and ``relax.get_item`` of a
  ``relax.tuple`` is the element;
* a ``call_tir`` of constants runs its kernel at compile time;
* ``relax.shape_of`` of a tensor whose shape is known becomes ``relax.shape``;
* ``relax.match_shape`` of a value whose type already has the pattern, binding no new
  variable, is the value itself.

* a scale along the output channels of a convolution or matmul whose weights are
  constant (a batch norm's, once the weights are bound: ``relax-bind-params``) is
  multiplied into the weights: ``conv2d(x, W) * s`` is ``conv2d(x, W * s)``;
* the kernel taps of a convolution with constant weights that only ever read padding
  (a 3x3 convolution with padding 1 of a 1x1 image: all but the centre) are cut from
  its weights and padding.

Results larger than ``max-elements`` are left alone so modules stay small, unless no
larger than a constant operand (weights folded with weights); so are operators of a
splat constant larger than that (a splat may declare billions of elements).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    i64,
)
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from xrelax.backends.kernels import KernelError, compile_prim_func
from xrelax.dialects import dtypes
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.relax import (
    CallTIROp,
    ConstOp,
    GetItemOp,
    MatchShapeOp,
    ShapeOfOp,
    ShapeOp,
    ShapeType,
    TensorType,
    TupleOp,
    TupleType,
    defined_by_pattern,
    type_relation,
)
from xrelax.dialects.shapes import symbolic
from xrelax.ops.base import OperatorOp
from xrelax.ops.elementwise import AddOp, MultiplyOp
from xrelax.ops.linalg import MatmulOp
from xrelax.ops.nn import ConvOp, Window


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
    layout = dtypes.packed_layout(dtype)
    if layout is not None:
        packed = np.ascontiguousarray(array, dtype=layout).tobytes()
        attr = DenseIntOrFPElementsAttr(type_, BytesAttr(packed))
    else:
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
        if not isinstance(op, OperatorOp | CallTIROp) or not op.results:
            return
        result_type = op.results[0].type
        parts = result_type.types if isinstance(result_type, TupleType) else (result_type,)
        if not parts or not all(_static_tensor(t) for t in parts):
            return
        if isinstance(result_type, TupleType) and not isinstance(op, OperatorOp):
            return
        inputs = [const_value(o) for o in op.operands]
        if any(i is None for i in inputs):
            return
        arrays = [i for i in inputs if isinstance(i, np.ndarray)]
        if any(i.size > self.max_elements and 0 in i.strides for i in arrays):
            # a splat of billions of elements is one stored value: folding would compute
            # over all of them
            return
        bound = max([self.max_elements, *(i.size for i in arrays)])
        if sum(np.prod([int(d) for d in t.dims]) for t in parts) > bound:  # type: ignore[union-attr]
            return
        if isinstance(op, OperatorOp):
            try:
                result = type(op).run_reference(inputs, dict(op.properties))
            except Exception as err:  # noqa: BLE001 - the reference refuses these constants
                # A violation proven at compile time, as the kernel path reports it.
                raise IRError(op, f"{op.name}: {' '.join(str(err).split())}") from None
        else:
            result = self.run_kernel(op, inputs)
        if isinstance(result_type, TupleType):
            consts = [
                make_const(np.asarray(part, dtypes.numpy_dtype(t.known_dtype)))  # type: ignore[union-attr]
                for part, t in zip(result, parts, strict=True)
            ]
            rewriter.replace(op, [*consts, TupleOp.build_deduced([c.result for c in consts])])
        else:
            rewriter.replace(op, make_const(np.asarray(result)))

    def run_kernel(self, op: CallTIROp, inputs: list[Any]) -> np.ndarray:
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


class FoldScaleIntoWeights(RewritePattern):
    """``multiply(conv(x, W), s)`` with constant weights ``W`` and a constant ``s`` that
    varies only along the output channels is ``conv(x, W * s)``, and
    ``multiply(add(conv(x, W), b), s)`` with a constant bias is
    ``add(conv(x, W * s), b * s)``; likewise for ``matmul(x, W)`` along the last axis
    (TVM's FoldScaleAxis, forward: a batch norm after a convolution or a linear layer).
    Floating point only: the product is rounded once more or once less, as every
    runtime that folds batch norm does."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MultiplyOp, rewriter: PatternRewriter) -> None:
        for product, scale in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            factors = const_value(scale)
            if not isinstance(factors, np.ndarray) or op.result.type != product.type:
                continue
            found = _scaled_contraction(product)
            if found is None:
                continue
            contraction, bias_add, bias = found
            weights = const_value(contraction.operands[1])
            assert isinstance(weights, np.ndarray)
            scaled = _scaled_weights(contraction, weights, factors, product.type)
            if scaled is None or (bias is not None and bias.dtype != scaled.dtype):
                continue
            folded = make_const(scaled)
            rewriter.insert(folded, InsertPoint.before(contraction))
            contraction.operands[1] = folded.result
            if bias_add is not None:
                shifted = make_const(np.asarray(bias * factors))
                rewriter.insert(shifted, InsertPoint.before(bias_add))
                bias_add.operands[1] = shifted.result
                bias_add.operands[0] = contraction.results[0]
            rewriter.replace(op, [], [product])
            return


class TrimPaddingTaps(RewritePattern):
    """A convolution with constant weights over static spatial sizes whose first or last
    kernel taps along an axis read padding at every output position (the zeros of a
    3x3 window with padding 1 over a 1x1 image, as a ResNet's last stage sees at small
    input sizes) is the convolution by the remaining taps with that much less padding:
    the same output, without reading or multiplying the cut weights. Taps of non-finite
    weights stay (``inf * 0`` is NaN)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvOp, rewriter: PatternRewriter) -> None:
        weights = const_value(op.operands[1])
        data = op.operands[0].type
        if not (_plain_contraction(op) and isinstance(weights, np.ndarray)):
            return
        if not isinstance(data, TensorType) or data.dims is None:
            return
        sizes = data.dims[2:]
        if not all(size.is_Integer for size in sizes) or weights.ndim != len(sizes) + 2:
            return
        window = Window.of(op.properties, len(sizes))
        kept, before, after = [], [], []
        for axis, size in enumerate(sizes):
            trimmed = _useful_taps(window, axis, int(size), weights.shape[2 + axis])
            if trimmed is None:
                return
            kept.append(slice(trimmed[0], trimmed[1]))
            before.append(trimmed[2])
            after.append(trimmed[3])
        if all(k.stop - k.start == n for k, n in zip(kept, weights.shape[2:], strict=True)):
            return
        cut = weights[(slice(None), slice(None), *kept)]
        removed = weights.copy()
        removed[(slice(None), slice(None), *kept)] = 0
        if not np.isfinite(removed).all():
            return
        folded = make_const(np.ascontiguousarray(cut))
        rewriter.insert(folded, InsertPoint.before(op))
        op.operands[1] = folded.result
        op.properties["padding"] = DenseArrayBase.from_list(i64, [*before, *after])


def _useful_taps(
    window: Window, axis: int, size: int, taps: int
) -> tuple[int, int, int, int] | None:
    """Along ``axis``: the taps ``[first, stop)`` that read the data at some output
    position and the padding before and after that keeps the output size, or None
    when no such padding exists (it would have to be negative)."""
    stride, dilation = window.strides[axis], window.dilation[axis]
    pad = window.before[axis]
    reach = dilation * (taps - 1) + 1
    outputs = (size + pad + window.after[axis] - reach) // stride + 1
    useful = []
    for tap in range(taps):
        # the output positions o with 0 <= o * stride + offset < size
        offset = tap * dilation - pad
        low, high = max(0, -(offset // stride)), min(outputs - 1, -(-(size - offset) // stride) - 1)
        if low <= high:
            useful.append(tap)
    if not useful:
        return None
    first, stop = useful[0], useful[-1] + 1
    before = pad - first * dilation
    reach = dilation * (stop - first - 1) + 1
    after = max(0, (outputs - 1) * stride + reach - size - before)
    if before < 0 or (size + before + after - reach) // stride + 1 != outputs:
        return None
    return first, stop, before, after


def _scaled_contraction(
    product: SSAValue,
) -> tuple[Operation, Operation | None, np.ndarray | None] | None:
    """The contraction with constant weights whose result ``product`` is, directly or
    plus a constant bias: (contraction, the add or None, the bias or None); each used
    only on the way to ``product``."""
    owner = product.owner
    if not product.has_one_use():
        return None
    if _plain_contraction(owner) and isinstance(const_value(owner.operands[1]), np.ndarray):
        return owner, None, None
    if not isinstance(owner, AddOp):
        return None
    for inner, other in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
        contraction, bias = inner.owner, const_value(other)
        if (
            isinstance(bias, np.ndarray)
            and inner.has_one_use()
            and _plain_contraction(contraction)
            and isinstance(const_value(contraction.operands[1]), np.ndarray)
        ):
            return contraction, owner, bias
    return None


_CONVOLUTIONS = ("relax.conv1d", "relax.conv2d", "relax.conv3d")
_CONV_PROPERTIES = {"strides", "padding", "dilation", "groups"}


def _plain_contraction(op: Operation | None) -> bool:
    """A matmul, or a convolution of weights O, C / groups, *kernel in the default
    layout: the output channels are the weights' first axis."""
    if isinstance(op, MatmulOp):
        return True
    return (
        isinstance(op, ConvOp)
        and op.name in _CONVOLUTIONS
        and set(op.properties) <= _CONV_PROPERTIES
    )


def _scaled_weights(
    contraction: Operation, weights: np.ndarray, factors: np.ndarray, type_: Attribute
) -> np.ndarray | None:
    """``weights`` times ``factors`` along the output channels, when ``factors`` (as it
    broadcasts against the result ``type_``) varies along nothing else."""
    if weights.dtype.kind != "f" or factors.dtype != weights.dtype:
        return None
    if not isinstance(type_, TensorType) or type_.ndim is None or factors.ndim > type_.ndim:
        return None
    rank = type_.ndim
    channel = 1 if isinstance(contraction, ConvOp) else rank - 1
    if isinstance(contraction, MatmulOp) and (weights.ndim != 2 or rank < 1):
        return None
    column = factors.reshape((1,) * (rank - factors.ndim) + factors.shape)
    if any(size != 1 for axis, size in enumerate(column.shape) if axis != channel):
        return None
    vector = column.reshape(-1)
    channels = weights.shape[0] if isinstance(contraction, ConvOp) else weights.shape[1]
    if vector.size not in (1, channels):
        return None
    if isinstance(contraction, ConvOp):
        return weights * vector.reshape((-1,) + (1,) * (weights.ndim - 1))
    return weights * vector.reshape(1, -1)


class FoldGetItem(RewritePattern):
    """``relax.get_item`` of a ``relax.tuple``: the element (a folded ``split`` of
    constants is a tuple of constants, whose parts its users then fold further)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GetItemOp, rewriter: PatternRewriter) -> None:
        owner = op.tuple.owner
        if isinstance(owner, TupleOp) and op.result.type == owner.elements[op.index.data].type:
            rewriter.replace(op, [], [owner.elements[op.index.data]])


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
        patterns = [
            FoldOperator(self.max_elements, op),
            FoldScaleIntoWeights(),
            TrimPaddingTaps(),
            FoldGetItem(),
            FoldShapeOf(),
            FoldMatchShape(),
        ]
        PatternRewriteWalker(
            GreedyRewritePatternApplier(patterns, dce_enabled=False)
        ).rewrite_module(op)
