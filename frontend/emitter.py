"""Framework operators as compositions of relax operators, shared by the importers.

:class:`Emitter` wraps a :class:`~xrelax.dialects.block_builder.BlockBuilder` positioned
in a dataflow region. Operators the relax library has are one call (:meth:`Emitter.op`);
the others are decomposed here: ``linear`` and ``Gemm`` into ``permute_dims``, ``matmul``
and ``add``, batch normalisation in inference mode into per-channel arithmetic, scaled
dot-product attention into ``matmul`` and ``softmax`` (its causal mask into ``ones`` and
``tril``), and so on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from xdsl.ir import Attribute, SSAValue

from xrelax.dialects import dtypes, symbolic
from xrelax.dialects.block_builder import BlockBuilder
from xrelax.dialects.relax import GetItemOp, TensorType
from xrelax.dialects.symbolic import Dims
from xrelax.frontend.common import FrontendError, Unsupported
from xrelax.ops.base import broadcast_shape

Scalar = int | float | bool


class Emitter:
    """Emits relax operators into the current dataflow region of ``bb``."""

    def __init__(self, bb: BlockBuilder) -> None:
        self.bb = bb
        self._consts: dict[tuple[Any, ...], SSAValue] = {}

    # --------------------------------------------------------------------- basics

    def op(self, name: str, *operands: SSAValue, **props: Any) -> SSAValue:
        """``relax.NAME operands {props}`` with its result type deduced."""
        return self.bb.emit_op(f"relax.{name}", *operands, **props)

    @staticmethod
    def type_of(x: SSAValue) -> TensorType:
        """The tensor type of ``x``."""
        if not isinstance(x.type, TensorType):
            raise FrontendError(f"expected a tensor, got {x.type}")
        return x.type

    def dims(self, x: SSAValue) -> Dims:
        """The symbolic shape of ``x`` (an error when only the rank is known)."""
        dims = self.type_of(x).dims
        if dims is None:
            raise FrontendError(f"the shape of a tensor of type {x.type} is not known")
        return dims

    def ndim(self, x: SSAValue) -> int:
        """The rank of ``x``."""
        ndim = self.type_of(x).ndim
        if ndim is None:
            raise FrontendError(f"the rank of a tensor of type {x.type} is not known")
        return ndim

    def dtype(self, x: SSAValue) -> Attribute:
        """The element type of ``x``."""
        dtype = self.type_of(x).known_dtype
        if dtype is None:
            raise FrontendError(f"the element type of a tensor of type {x.type} is not known")
        return dtype

    def const(self, value: Any, dtype: Attribute | None = None) -> SSAValue:
        """``relax.const`` of a number or array (scalars are shared)."""
        array = np.asarray(value, None if dtype is None else dtypes.numpy_dtype(dtype))
        key = (array.dtype.str, array.shape, array.tobytes()) if array.size <= 16 else None
        if key is not None and key in self._consts:
            return self._consts[key]
        result = self.bb.const(array)
        if key is not None:
            self._consts[key] = result
        return result

    def scalar(self, value: Scalar, like: SSAValue) -> SSAValue:
        """A 0-d constant with the element type of ``like``."""
        return self.const(value, self.dtype(like))

    def operand(self, value: SSAValue | Scalar, like: SSAValue) -> SSAValue:
        """``value`` as a tensor: Python numbers become 0-d constants like ``like``, a
        symbolic integer a 0-d tensor of its value (``relax.full`` of a prim value)."""
        if isinstance(value, SSAValue):
            return value
        return self.full([], value, self.dtype(like))

    def prim(self, value: int | sympy.Expr) -> SSAValue:
        """``relax.prim_value``: a (symbolic) integer as a value (emitted once)."""
        expr = symbolic.as_expr(value)
        key = ("prim", expr)
        if key not in self._consts:
            self._consts[key] = self.bb.prim_value(expr)
        return self._consts[key]

    def full(self, dims: Sequence[int | sympy.Expr], fill: Any, dtype: Attribute) -> SSAValue:
        """A tensor of shape ``dims`` and element type ``dtype`` filled with ``fill``: a
        number, or a symbolic integer (a prim value); a 0-d constant is just that."""
        if isinstance(fill, sympy.Expr) and fill.is_Number:
            fill = int(fill) if fill.is_Integer else float(fill)
        if isinstance(fill, sympy.Expr):
            value = self.prim(fill)
        elif not dims:
            return self.const(fill, dtype)
        else:
            value = self.const(fill, dtype)
        props = {"dtype": dtype} if isinstance(fill, sympy.Expr) else {}
        return self.op("full", self.shape(dims), value, **props)

    def items(self, value: SSAValue, count: int) -> list[SSAValue]:
        """The elements of a tuple value."""
        return [self.bb.emit(GetItemOp(value, index)) for index in range(count)]

    def shape(self, dims: Sequence[int | sympy.Expr]) -> SSAValue:
        """``relax.shape [dims]``."""
        return self.bb.shape([symbolic.as_expr(d) for d in dims])

    def match(self, x: SSAValue, dims: Sequence[sympy.Expr]) -> SSAValue:
        """``x`` with shape ``dims``: unchanged when its type proves it, else through
        ``relax.match_shape`` (binding new variables, checking the rest at run time)."""
        known = self.type_of(x).dims
        if known is not None and len(known) == len(dims):
            if all(symbolic.prove_equal(a, b) for a, b in zip(known, dims, strict=True)):
                return x
            if any(symbolic.prove_not_equal(a, b) for a, b in zip(known, dims, strict=True)):
                shown = symbolic.format_dims(dims)
                raise FrontendError(f"internal error: deduced {x.type}, the framework says {shown}")
        return self.bb.match_shape(x, list(dims))

    def _has_shape(self, x: SSAValue, dims: Sequence[sympy.Expr]) -> bool:
        known = self.type_of(x).dims
        return (
            known is not None
            and len(known) == len(dims)
            and all(symbolic.prove_equal(a, b) for a, b in zip(known, dims, strict=True))
        )

    # --------------------------------------------------------------------- layout

    def reshape(self, x: SSAValue, dims: Sequence[int | sympy.Expr]) -> SSAValue:
        """``x`` with shape ``dims`` (one entry may be -1)."""
        dims = [symbolic.as_expr(d) for d in dims]
        if self._has_shape(x, dims):
            return x
        return self.op("reshape", x, self.shape(dims))

    def permute(self, x: SSAValue, axes: Sequence[int]) -> SSAValue:
        """``x`` with its axes in the order ``axes``."""
        ndim = self.ndim(x)
        axes = [a % ndim for a in axes] if ndim else []
        if axes == list(range(ndim)):
            return x
        return self.op("permute_dims", x, axes=axes)

    def transpose(self, x: SSAValue, a: int, b: int) -> SSAValue:
        """``x`` with axes ``a`` and ``b`` swapped."""
        axes = list(range(self.ndim(x)))
        a, b = axes[a], axes[b]
        axes[a], axes[b] = b, a
        return self.permute(x, axes)

    def unsqueeze(self, x: SSAValue, axes: Sequence[int]) -> SSAValue:
        """``x`` with size-1 axes inserted at ``axes`` (positions in the result)."""
        rank = self.ndim(x) + len(axes)
        return self.op("expand_dims", x, axis=sorted(a % rank for a in axes))

    def squeeze(self, x: SSAValue, axes: Sequence[int] | None = None) -> SSAValue:
        """``x`` without the size-1 ``axes`` (all size-1 axes when None); torch's rule:
        an axis of another size is kept."""
        dims = self.dims(x)
        ndim = len(dims)
        if axes is None:
            chosen = [a for a, d in enumerate(dims) if d == 1]
        else:
            chosen = sorted({a % ndim for a in axes if dims[a % ndim] == 1}) if ndim else []
        if not chosen:
            return x
        return self.op("squeeze", x, axis=chosen)

    def flatten(self, x: SSAValue, start: int = 0, end: int = -1) -> SSAValue:
        """``x`` with axes ``start..end`` (inclusive) merged into one."""
        dims = self.dims(x)
        if not dims:
            return self.reshape(x, [1])
        start, end = start % len(dims), end % len(dims)
        merged = symbolic.simplify(sympy.Mul(*dims[start : end + 1]))
        return self.reshape(x, [*dims[:start], merged, *dims[end + 1 :]])

    def broadcast_to(self, x: SSAValue, dims: Sequence[int | sympy.Expr]) -> SSAValue:
        """``x`` broadcast to ``dims`` (numpy rules)."""
        dims = [symbolic.as_expr(d) for d in dims]
        if self._has_shape(x, dims):
            return x
        zeros = self.op("zeros", self.shape(dims), dtype=self.dtype(x))
        # maximum with zeros (False) keeps every value, booleans included.
        return self.op("maximum" if dtypes.is_bool(self.dtype(x)) else "add", x, zeros)

    def slice(
        self,
        x: SSAValue,
        axis: int,
        start: int | sympy.Expr,
        end: int | sympy.Expr,
        step: int = 1,
    ) -> SSAValue:
        """``x[start:end:step]`` along ``axis`` (numpy's clamping); symbolic bounds become
        prim operands, so the result keeps a symbolic length."""
        ndim = self.ndim(x)
        axis %= ndim
        size = self.dims(x)[axis]
        start, end = symbolic.as_expr(start), symbolic.as_expr(end)
        if not end.is_Integer and symbolic.prove_le(size, end):
            end = sympy.Integer(2**63 - 1)
        whole = end.is_Integer and (int(end) >= 2**62 or (size.is_Integer and end >= size))
        if start == 0 and step == 1 and whole:
            return x
        if start.is_Integer and end.is_Integer:
            return self.op(
                "strided_slice", x, axes=[axis], begin=[int(start)], end=[int(end)], strides=[step]
            )
        if step < 1:
            raise Unsupported("a slice with a symbolic bound and a negative step")
        return self.op(
            "strided_slice",
            x,
            self.prim(start),
            self.prim(end),
            axes=[axis],
            strides=None if step == 1 else [step],
        )

    def index(self, x: SSAValue, indices: Sequence[SSAValue | None]) -> SSAValue:
        """torch's advanced indexing ``x[i0, :, i2]``: integer index tensors (broadcast
        together) for some leading axes of x, None for a whole axis. The broadcast index
        shape replaces the indexed axes where they are adjacent, else it comes first
        (numpy's rule). Built on ``relax.gather_nd`` over x with the indexed axes first."""
        ndim = self.ndim(x)
        indexed = [(axis, i) for axis, i in enumerate(indices) if i is not None]
        if not indexed:
            return x
        if any(dtypes.is_bool(self.dtype(i)) for _, i in indexed):
            raise Unsupported("a boolean mask index (a data-dependent shape)")
        tensors = [self.type_of(i) for _, i in indexed]
        common = broadcast_shape(tensors)
        if not isinstance(common, tuple):
            raise Unsupported("index tensors whose broadcast shape is not known")
        columns = []
        for _, i in indexed:
            i = self.broadcast_to(self.cast(i, dtypes.I64), common)
            columns.append(self.op("expand_dims", i, axis=[len(common)]))
        stacked = columns[0] if len(columns) == 1 else self.op("concat", *columns, axis=-1)
        axes = [axis for axis, _ in indexed]
        rest = [axis for axis in range(ndim) if axis not in axes]
        gathered = self.op("gather_nd", self.permute(x, axes + rest), stacked)
        first, batch = axes[0], len(common)
        if axes != list(range(first, first + len(axes))) or first == 0:
            return gathered
        order = [batch + r for r in range(first)] + list(range(batch))
        order += [batch + r for r in range(first, len(rest))]
        return self.permute(gathered, order)

    def tile(self, x: SSAValue, repeats: Sequence[int | sympy.Expr]) -> SSAValue:
        """``x`` repeated ``repeats[d]`` times along each axis d (torch's ``repeat``, ONNX
        ``Tile``; extra leading repeats add axes): each axis becomes a broadcast pair
        (repeat, size), then the pairs merge."""
        repeats = [symbolic.as_expr(r) for r in repeats]
        dims = [sympy.Integer(1)] * (len(repeats) - self.ndim(x)) + list(self.dims(x))
        one = sympy.Integer(1)
        spread = [d for dim in dims for d in (one, dim)]
        tiled = [d for pair in zip(repeats, dims, strict=True) for d in pair]
        x = self.broadcast_to(self.reshape(x, spread), tiled)
        return self.reshape(x, [sympy.expand(r * d) for r, d in zip(repeats, dims, strict=True)])

    def remainder(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """``a mod b`` with the sign of b (Python's ``%``, torch's ``remainder``, ONNX
        ``Mod``): ``fmod``, plus b where the remainder is non-zero and the signs differ."""
        rem = self.op("fmod", a, b)
        zero = self.scalar(0, rem)
        differs = self.op("not_equal", self.op("less", rem, zero), self.op("less", b, zero))
        fix = self.op("bitwise_and", differs, self.op("not_equal", rem, zero))
        return self.op("where", fix, self.op("add", rem, b), rem)

    def cast(self, x: SSAValue, dtype: Attribute) -> SSAValue:
        """``x`` in element type ``dtype``."""
        return x if self.dtype(x) == dtype else self.op("astype", x, dtype=dtype)

    def select(self, x: SSAValue, axis: int, index: int) -> SSAValue:
        """``x[..., index, ...]`` along ``axis``: the axis is dropped."""
        axis %= self.ndim(x)
        end = index + 1 if index != -1 else 2**63 - 1
        piece = self.op("strided_slice", x, axes=[axis], begin=[index], end=[end])
        return self.op("squeeze", piece, axis=[axis])

    # --------------------------------------------------------------------- linear algebra

    def linear(self, x: SSAValue, weight: SSAValue, bias: SSAValue | None) -> SSAValue:
        """``x @ weight.T + bias`` (torch's ``linear``: weight is out x in)."""
        y = self.op("matmul", x, self.permute(weight, [1, 0]))
        return y if bias is None else self.op("add", y, bias)

    def gemm(
        self,
        a: SSAValue,
        b: SSAValue,
        c: SSAValue | None,
        alpha: float = 1.0,
        beta: float = 1.0,
        trans_a: bool = False,
        trans_b: bool = False,
    ) -> SSAValue:
        """``alpha * op(a) @ op(b) + beta * c`` (ONNX ``Gemm``, torch ``addmm``)."""
        if trans_a:
            a = self.permute(a, [1, 0])
        if trans_b:
            b = self.permute(b, [1, 0])
        y = self.op("matmul", a, b)
        if alpha != 1.0:
            y = self.op("multiply", y, self.scalar(alpha, y))
        if c is None or beta == 0.0:
            return y
        if beta != 1.0:
            c = self.op("multiply", c, self.scalar(beta, c))
        return self.op("add", y, c)

    # --------------------------------------------------------------------- normalisation

    def channel_vector(self, v: SSAValue, ndim: int) -> SSAValue:
        """A per-channel vector ``[C]`` shaped to broadcast against N, C, *spatial."""
        if ndim <= 2:
            return v
        return self.op("expand_dims", v, axis=list(range(1, ndim - 1)))

    def batch_norm(
        self,
        x: SSAValue,
        mean: SSAValue,
        var: SSAValue,
        weight: SSAValue | None,
        bias: SSAValue | None,
        eps: float,
    ) -> SSAValue:
        """Batch normalisation with the running statistics (inference mode):
        ``(x - mean) * weight / sqrt(var + eps) + bias``, per channel (axis 1)."""
        ndim = self.ndim(x)
        scale = self.op("rsqrt", self.op("add", var, self.scalar(eps, var)))
        if weight is not None:
            scale = self.op("multiply", scale, weight)
        shift = self.op("negative", self.op("multiply", mean, scale))
        if bias is not None:
            shift = self.op("add", shift, bias)
        y = self.op("multiply", x, self.channel_vector(scale, ndim))
        return self.op("add", y, self.channel_vector(shift, ndim))

    def layer_norm(
        self,
        x: SSAValue,
        axes: Sequence[int],
        weight: SSAValue | None,
        bias: SSAValue | None,
        eps: float,
    ) -> SSAValue:
        """``relax.layer_norm`` over ``axes``; an absent weight is 1, an absent bias 0."""
        dims = self.dims(x)
        normalised = [dims[a] for a in axes]
        if any(not d.is_Integer for d in normalised) and (weight is None or bias is None):
            raise Unsupported("layer normalisation without affine parameters over symbolic axes")
        ones = [int(d) for d in normalised] if weight is None or bias is None else []
        if weight is None:
            weight = self.const(np.ones(ones), self.dtype(x))
        if bias is None:
            bias = self.const(np.zeros(ones), self.dtype(x))
        return self.op("layer_norm", x, weight, bias, axes=list(axes), epsilon=float(eps))

    # --------------------------------------------------------------------- activations

    def gelu_tanh(self, x: SSAValue) -> SSAValue:
        """GELU's tanh approximation: ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``."""
        cube = self.op("multiply", self.op("multiply", x, x), x)
        inner = self.op("add", x, self.op("multiply", cube, self.scalar(0.044715, x)))
        inner = self.op("multiply", inner, self.scalar(math.sqrt(2 / math.pi), x))
        one_plus = self.op("add", self.op("tanh", inner), self.scalar(1.0, x))
        return self.op("multiply", self.op("multiply", x, self.scalar(0.5, x)), one_plus)

    def clamp(self, x: SSAValue, low: Any = None, high: Any = None) -> SSAValue:
        """``x`` limited to ``[low, high]`` (a None bound is open)."""
        if low is not None:
            x = self.op("maximum", x, self.operand(low, x))
        if high is not None:
            x = self.op("minimum", x, self.operand(high, x))
        return x

    # --------------------------------------------------------------------- windows

    def conv(
        self,
        x: SSAValue,
        weight: SSAValue,
        bias: SSAValue | None,
        strides: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int],
        groups: int,
    ) -> SSAValue:
        """``relax.conv1d`` / ``conv2d`` (by the rank of x) plus a per-channel bias;
        attributes at their defaults are left out."""
        spatial = self.ndim(x) - 2
        if spatial not in (1, 2):
            raise Unsupported(f"{spatial}-d convolution")
        y = self.op(
            f"conv{spatial}d",
            x,
            weight,
            strides=_unless(strides, 1),
            padding=_unless(padding, 0),
            dilation=_unless(dilation, 1),
            groups=None if groups == 1 else groups,
        )
        return y if bias is None else self.op("add", y, self.channel_vector(bias, spatial + 2))

    def max_pool2d(
        self, x: SSAValue, kernel: Sequence[int], strides: Sequence[int], padding: Sequence[int]
    ) -> SSAValue:
        """2-D max pooling (attributes at their defaults are left out)."""
        return self.op(
            "max_pool2d",
            x,
            pool_size=list(kernel),
            strides=_unless(strides, 1),
            padding=_unless(padding, 0),
        )

    def avg_pool2d(
        self,
        x: SSAValue,
        kernel: Sequence[int],
        strides: Sequence[int],
        padding: Sequence[int],
        count_include_pad: bool,
    ) -> SSAValue:
        """2-D average pooling; with padding counted, a depthwise convolution of ones."""
        if not any(padding) or not count_include_pad:
            return self.op(
                "avg_pool2d",
                x,
                pool_size=list(kernel),
                strides=list(strides),
                padding=list(padding),
            )
        channels = self.dims(x)[1]
        if not channels.is_Integer:
            raise Unsupported("average pooling counting padding over symbolic channels")
        c = int(channels)
        ones = np.full((c, 1, *kernel), 1.0 / float(np.prod(kernel)))
        weight = self.const(ones, self.dtype(x))
        return self.op("conv2d", x, weight, strides=list(strides), padding=list(padding), groups=c)

    def adaptive_avg_pool2d(self, x: SSAValue, output: Sequence[int]) -> SSAValue:
        """Adaptive average pooling to ``output`` (when it divides the input size)."""
        dims = self.dims(x)
        if list(output) == [1, 1]:
            return self.op("mean", x, axis=[2, 3], keepdims=True)
        sizes = dims[2:]
        if not all(s.is_Integer and int(s) % o == 0 for s, o in zip(sizes, output, strict=True)):
            raise Unsupported("adaptive pooling to a size that does not divide the input")
        kernel = [int(s) // o for s, o in zip(sizes, output, strict=True)]
        return self.op("avg_pool2d", x, pool_size=kernel, strides=kernel)

    # --------------------------------------------------------------------- attention

    def attention(
        self,
        q: SSAValue,
        k: SSAValue,
        v: SSAValue,
        mask: SSAValue | None = None,
        scale: float | None = None,
    ) -> SSAValue:
        """``softmax(q @ k^T * scale + mask) @ v`` over the last two axes (a boolean mask
        keeps where true); ``scale`` absent: ``1 / sqrt(head size)``."""
        head = self.dims(q)[-1]
        if scale is None:
            if not head.is_Integer:
                raise Unsupported("attention with a symbolic head size and no scale")
            scale = 1.0 / math.sqrt(int(head))
        ndim = self.ndim(k)
        axes = [*range(ndim - 2), ndim - 1, ndim - 2]
        scores = self.op("matmul", q, self.permute(k, axes))
        scores = self.op("multiply", scores, self.scalar(scale, scores))
        if mask is not None:
            if dtypes.is_bool(self.dtype(mask)):
                lowest = self.scalar(float("-inf"), scores)
                scores = self.op("where", mask, scores, lowest)
            else:
                scores = self.op("add", scores, mask)
            return self.op("matmul", self.safe_softmax(scores, -1), v)
        return self.op("matmul", self.op("softmax", scores, axis=-1), v)

    def safe_softmax(self, x: SSAValue, axis: int) -> SSAValue:
        """Softmax along ``axis`` that is 0 where every entry is -inf (a query that the
        mask lets see nothing), as torch's attention and ``_safe_softmax`` give."""
        lowest = self.op("max", x, axis=[axis], keepdims=True)
        seen = self.op("not_equal", lowest, self.scalar(float("-inf"), x))
        zero = self.scalar(0.0, x)
        return self.op("where", seen, self.op("softmax", x, axis=axis), zero)

    def causal_mask(self, q: SSAValue, k: SSAValue) -> SSAValue:
        """The boolean mask of causal attention, ``tril(ones([L, S]))`` for L queries and S
        keys: query i sees keys 0..i (top-left aligned, as torch's ``is_causal``)."""
        size = [self.dims(q)[-2], self.dims(k)[-2]]
        return self.op("tril", self.op("ones", self.shape(size), dtype=dtypes.I1))


def _unless(values: Sequence[int], default: int) -> list[int] | None:
    """``values``, or None (the attribute left out) when each is ``default``."""
    return None if all(v == default for v in values) else list(values)
