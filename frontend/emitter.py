"""Framework operators as compositions of relax operators, shared by the importers.

:class:`Emitter` wraps a :class:`~xrelax.frontend.block_builder.BlockBuilder` positioned
in a dataflow region. Operators the relax library has are one call (:meth:`Emitter.op`);
the others are decomposed here: ``linear`` and ``Gemm`` into ``permute_dims``, ``matmul``
and ``add``, batch normalisation in inference mode into per-channel arithmetic, scaled
dot-product attention into ``matmul`` and ``softmax`` (its causal mask into ``ones`` and
``tril``), and so on.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from xdsl.dialects.builtin import FloatAttr, StringAttr, f64
from xdsl.ir import Attribute, SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.relax import GetItemOp, TensorType
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import Dims
from xrelax.frontend.block_builder import BlockBuilder
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
        return self.op("broadcast_to", x, self.shape(dims))

    def pad(self, x: SSAValue, widths: Sequence[tuple[int, int]], value: Scalar = 0) -> SSAValue:
        """``x`` with ``(before, after)`` elements of ``value`` around each axis; a
        negative count removes elements (torch's ``constant_pad_nd``)."""
        ndim = self.ndim(x)
        for axis, (before, after) in enumerate(widths):
            if before < 0 or after < 0:
                end = after if after < 0 else 2**63 - 1
                x = self.slice(x, axis, max(-before, 0), end)
        flat = [max(w, 0) for pair in widths for w in pair]
        if not any(flat):
            return x
        flat += [0] * (2 * ndim - len(flat))
        return self.op("pad", x, self.scalar(value, x), pad_width=flat)

    def slice_scatter(
        self, x: SSAValue, src: SSAValue, axis: int, begin: int, end: int | None, step: int = 1
    ) -> SSAValue:
        """``x`` with ``x[begin:end:step]`` along ``axis`` replaced by ``src`` (of the
        slice's shape)."""
        return self.op(
            "slice_scatter",
            x,
            src,
            axis=axis % self.ndim(x),
            begin=begin or None,
            end=end,
            step=None if step == 1 else step,
        )

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
        together) for some axes of x, None for a whole axis. The broadcast index shape
        replaces the indexed axes where they are adjacent, else it comes first (numpy's
        rule). One index tensor is a ``relax.take``; several, a ``relax.gather_nd`` over x
        with the indexed axes first."""
        ndim = self.ndim(x)
        indexed = [(axis, i) for axis, i in enumerate(indices) if i is not None]
        if not indexed:
            return x
        if any(dtypes.is_bool(self.dtype(i)) for _, i in indexed):
            raise Unsupported("indexing with a boolean mask (a data-dependent shape)")
        if len(indexed) == 1:
            ((axis, indices),) = indexed
            return self.op("take", x, indices, axis=axis)
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

    def roll(self, x: SSAValue, shifts: Sequence[int], axes: Sequence[int]) -> SSAValue:
        """``x`` rotated by ``shifts[k]`` along ``axes[k]`` (torch.roll, numpy.roll)."""
        for shift, axis in zip(shifts, axes, strict=True):
            size = self.dims(x)[axis]
            if not size.is_Integer:
                raise Unsupported("roll along a symbolic dimension")
            shift %= max(int(size), 1)
            if shift:
                tail = self.slice(x, axis, int(size) - shift, int(size))
                head = self.slice(x, axis, 0, int(size) - shift)
                x = self.op("concat", tail, head, axis=axis % self.ndim(x))
        return x

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

    def hard_sigmoid(self, x: SSAValue, alpha: float = 1 / 6, beta: float = 0.5) -> SSAValue:
        """``clamp(alpha * x + beta, 0, 1)`` (torch's hardsigmoid; ONNX ``HardSigmoid``)."""
        y = self.op("add", self.op("multiply", x, self.scalar(alpha, x)), self.scalar(beta, x))
        return self.clamp(y, 0.0, 1.0)

    def hard_swish(self, x: SSAValue) -> SSAValue:
        """``x * hardsigmoid(x)``."""
        return self.op("multiply", x, self.hard_sigmoid(x))

    # --------------------------------------------------------------------- recurrent

    def recurrent_layer(
        self,
        cell: str,
        x: SSAValue,
        state: Sequence[SSAValue],
        weights: Sequence[SSAValue | None],
        order: str,
        reverse: bool = False,
        reset_after: bool = True,
    ) -> tuple[list[SSAValue], list[SSAValue]]:
        """One direction of one LSTM, GRU or plain RNN layer (``rnn_tanh``, ``rnn_relu``:
        the activation of the sum of both projections), unrolled over the (static) time
        axis of ``x`` ``[T, N, I]``: the hidden output at each time step (in time order)
        and the final state (``h`` and, for an LSTM, ``c``).

        ``weights`` are ``w_ih [G * H, I]``, ``w_hh [G * H, H]`` and the biases ``b_ih``
        and ``b_hh [G * H]`` (None: absent); ``order`` names the gates of their rows:
        torch's ``ifgo`` (LSTM) and ``rzn`` (GRU), ONNX's ``iofg`` and ``zrn``. A GRU's
        ``reset_after`` applies the reset gate after the hidden projection (torch;
        ONNX ``linear_before_reset=1``)."""
        steps = self.dims(x)[0]
        if not steps.is_Integer:
            raise Unsupported("a symbolic sequence length (the layer is unrolled)")
        w_ih, w_hh, b_ih, b_hh = weights
        inputs = self.op("matmul", x, self.permute(w_ih, [1, 0]))
        if b_ih is not None:
            inputs = self.op("add", inputs, b_ih)
        if cell != "gru" and b_hh is not None:
            inputs, b_hh = self.op("add", inputs, b_hh), None
        if cell == "gru" and not reset_after:
            # The candidate's hidden projection reads the reset hidden state: a projection
            # of its own, the other gates' projections together.
            rows = self._gates(self.permute(w_hh, [1, 0]), order)
            recurrent_w = self.op("concat", *(rows[g] for g in order if g != "n"), axis=1)
            candidate_w = rows["n"]
            biases = None if b_hh is None else self._gates(b_hh, order)
            if biases is not None:
                b_hh = self.op("concat", *(biases[g] for g in order if g != "n"), axis=0)
            candidate_b = None if biases is None else biases["n"]
            hidden_order = "".join(g for g in order if g != "n")
        else:
            recurrent_w = self.permute(w_hh, [1, 0])
            hidden_order = order
        h, *rest = state
        c = rest[0] if rest else None
        outputs: list[SSAValue] = []
        times = range(int(steps))
        for t in reversed(times) if reverse else times:
            projected = self.op("matmul", h, recurrent_w)
            if b_hh is not None:
                projected = self.op("add", projected, b_hh)
            given = self.select(inputs, 0, t)
            if cell in ("rnn_tanh", "rnn_relu"):
                h = self.op(cell.removeprefix("rnn_"), self.op("add", given, projected))
                outputs.append(h)
                continue
            if cell == "lstm":
                gates = self._gates(self.op("add", given, projected), hidden_order)
                i, f = self.op("sigmoid", gates["i"]), self.op("sigmoid", gates["f"])
                g, o = self.op("tanh", gates["g"]), self.op("sigmoid", gates["o"])
                c = self.op("add", self.op("multiply", f, c), self.op("multiply", i, g))
                h = self.op("multiply", o, self.op("tanh", c))
                outputs.append(h)
                continue
            mine, theirs = self._gates(given, order), self._gates(projected, hidden_order)
            r = self.op("sigmoid", self.op("add", mine["r"], theirs["r"]))
            z = self.op("sigmoid", self.op("add", mine["z"], theirs["z"]))
            if "n" in theirs:
                hidden = self.op("multiply", r, theirs["n"])
            else:
                hidden = self.op("matmul", self.op("multiply", r, h), candidate_w)
                if candidate_b is not None:
                    hidden = self.op("add", hidden, candidate_b)
            n = self.op("tanh", self.op("add", mine["n"], hidden))
            # (1 - z) * n + z * h = n + z * (h - n)
            h = self.op("add", n, self.op("multiply", z, self.op("subtract", h, n)))
            outputs.append(h)
        if reverse:
            outputs.reverse()
        return outputs, [h] if c is None else [h, c]

    def _gates(self, value: SSAValue, order: str) -> dict[str, SSAValue]:
        """The gate blocks of the last axis of ``value``, by name in ``order``: a slice
        each (a ``split``'s tuple would be a kernel of its own at every time step; a
        slice fuses into the gate arithmetic that reads it)."""
        axis = self.ndim(value) - 1
        size = self.dims(value)[axis]
        if not size.is_Integer or int(size) % len(order):
            raise Unsupported(f"gates of a {size}-wide projection")
        width = int(size) // len(order)
        return {
            gate: self.op("strided_slice", value, axes=[axis], begin=[k * width],
                          end=[(k + 1) * width])
            for k, gate in enumerate(order)
        }  # fmt: skip

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
        """``relax.conv1d`` / ``conv2d`` / ``conv3d`` (by the rank of x) plus a
        per-channel bias; attributes at their defaults are left out."""
        return self._convolution(
            "conv", "convolution", x, weight, bias, strides, padding, dilation, groups
        )

    def conv_transpose(
        self,
        x: SSAValue,
        weight: SSAValue,
        bias: SSAValue | None,
        strides: Sequence[int],
        padding: Sequence[int],
        output_padding: Sequence[int],
        dilation: Sequence[int],
        groups: int,
    ) -> SSAValue:
        """``relax.conv_transpose1d`` / ``2d`` / ``3d`` (by the rank of x) plus a
        per-channel bias; attributes at their defaults are left out."""
        return self._convolution(
            "conv_transpose", "transposed convolution", x, weight, bias, strides, padding,
            dilation, groups, output_padding=_unless(output_padding, 0),
        )  # fmt: skip

    def _convolution(
        self,
        kind: str,
        what: str,
        x: SSAValue,
        weight: SSAValue,
        bias: SSAValue | None,
        strides: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int],
        groups: int,
        **extra: Any,
    ) -> SSAValue:
        """``relax.<kind>{1,2,3}d`` by the rank of x, plus a per-channel bias."""
        spatial = self.ndim(x) - 2
        if spatial not in (1, 2, 3):
            raise Unsupported(f"{spatial}-d {what}")
        y = self.op(
            f"{kind}{spatial}d",
            x,
            weight,
            strides=_unless(strides, 1),
            padding=_unless(padding, 0),
            dilation=_unless(dilation, 1),
            groups=None if groups == 1 else groups,
            **extra,
        )
        return y if bias is None else self.op("add", y, self.channel_vector(bias, spatial + 2))

    def max_pool(
        self,
        x: SSAValue,
        kernel: Sequence[int],
        strides: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int] | None = None,
        ceil_mode: bool = False,
    ) -> SSAValue:
        """1-, 2- or 3-D max pooling (by the rank of x); ``padding`` is one value per
        side pair (symmetric) or the starts then the ends; ``ceil_mode`` (torch, ONNX)
        keeps a last partial window, as padding that never wins."""
        dilation = list(dilation or [1] * len(kernel))
        before, after = _sides(padding, len(kernel))
        if ceil_mode:
            after = self.ceil_padding(x, kernel, strides, dilation, before, after)
        return self.op(
            f"max_pool{len(kernel)}d",
            x,
            pool_size=list(kernel),
            strides=_unless(strides, 1),
            padding=_padding_attr(before, after),
            dilation=_unless(dilation, 1),
        )

    def max_pool_with_indices(
        self,
        x: SSAValue,
        kernel: Sequence[int],
        strides: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int],
        planes: bool,
        column_major: bool = False,
        nan_wins: bool = False,
    ) -> tuple[SSAValue, SSAValue]:
        """Max pooling and the position of each maximum, one comparison per window tap
        over strided slices: the first element of a window inside the input, replaced
        by each later greater one (or, with ``nan_wins`` as torch, each NaN). Positions
        are i64 flat indices, per plane of N, C (torch) with ``planes``, else in the
        whole input (ONNX; 2-d spatial axes column-major with ``column_major``)."""
        batch, channels, *sizes = self.dims(x)
        spatial = len(kernel)
        before, after = _sides(padding, spatial)
        padded = self.pad(x, [(0, 0), (0, 0), *zip(before, after, strict=True)])
        out = [
            symbolic.floordiv(size + before[a] + after[a] - dilation[a] * (kernel[a] - 1) - 1,
                              strides[a]) + 1
            for a, size in enumerate(sizes)
        ]  # fmt: skip
        steps = [sympy.expand(sympy.Mul(*sizes[a + 1 :])) for a in range(spatial)]
        if column_major:
            steps = [sympy.Integer(1), sizes[0]]
        base = None
        if not planes:
            lanes = self.arange(batch * channels)
            lanes = self.op("multiply", lanes, self.full([], sympy.Mul(*sizes), dtypes.I64))
            base = self.reshape(lanes, [batch, channels] + [1] * spatial)
        best = index = found = None
        for tap in itertools.product(*(range(k) for k in kernel)):
            value, valid, flat = padded, None, base
            for axis, t in enumerate(tap):
                start = t * dilation[axis]
                end = start + (out[axis] - 1) * strides[axis] + 1
                value = self.slice(value, 2 + axis, start, end, strides[axis])
                positions = self.arange(out[axis])
                positions = self.op("multiply", positions, self.scalar(strides[axis], positions))
                positions = self.op("add", positions, self.scalar(start - before[axis], positions))
                positions = self.reshape(
                    positions, [1, 1] + [out[axis] if a == axis else 1 for a in range(spatial)]
                )
                inside = self.op(
                    "bitwise_and",
                    self.op("greater_equal", positions, self.scalar(0, positions)),
                    self.op("less", positions, self.full([], sizes[axis], dtypes.I64)),
                )
                valid = inside if valid is None else self.op("bitwise_and", valid, inside)
                term = self.op("multiply", positions, self.full([], steps[axis], dtypes.I64))
                flat = term if flat is None else self.op("add", flat, term)
            if best is None:
                best, index, found = value, self.broadcast_to(flat, self.dims(value)), valid
                continue
            wins = self.op("greater", value, best)
            if nan_wins and dtypes.is_float(self.dtype(x)):
                wins = self.op("bitwise_or", wins, self.op("isnan", value))
            unseen = self.op("equal", found, self.const(False, dtypes.I1))
            take = self.op("bitwise_and", valid, self.op("bitwise_or", unseen, wins))
            best = self.op("where", take, value, best)
            index = self.op("where", take, flat, index)
            found = self.op("bitwise_or", found, valid)
        return best, index

    def arange(self, size: int | sympy.Expr) -> SSAValue:
        """``[0, 1, ..., size - 1]`` as i64."""
        return self.op("arange", self.prim(0), self.prim(size), self.prim(1), dtype=dtypes.I64)

    def avg_pool(
        self,
        x: SSAValue,
        kernel: Sequence[int],
        strides: Sequence[int],
        padding: Sequence[int],
        count_include_pad: bool,
        ceil_mode: bool = False,
        dilation: Sequence[int] | None = None,
    ) -> SSAValue:
        """1-, 2- or 3-D average pooling (by the rank of x). Counted padding is made
        explicit zeros first; the windows ``ceil_mode`` adds at the end count only what
        they cover, as in torch."""
        dilation = list(dilation or [1] * len(kernel))
        before, after = _sides(padding, len(kernel))
        extended = (
            self.ceil_padding(x, kernel, strides, dilation, before, after) if ceil_mode else after
        )
        if count_include_pad and (any(before) or any(after)):
            x = self.pad(x, [(0, 0), (0, 0), *zip(before, after, strict=True)])
            extended = [e - a for e, a in zip(extended, after, strict=True)]
            before = [0] * len(kernel)
        return self.op(
            f"avg_pool{len(kernel)}d",
            x,
            pool_size=list(kernel),
            strides=list(strides),
            padding=_padding_attr(before, extended),
            dilation=_unless(dilation, 1),
        )

    def ceil_padding(
        self,
        x: SSAValue,
        kernel: Sequence[int],
        strides: Sequence[int],
        dilation: Sequence[int],
        before: Sequence[int],
        after: Sequence[int],
    ) -> list[int]:
        """The end padding that gives ceil_mode's output size: a last window that starts
        inside the input (or the start padding) is kept."""
        padded = []
        for axis, size in enumerate(self.dims(x)[2:]):
            if not size.is_Integer:
                raise Unsupported("ceil_mode pooling over a symbolic size")
            reach = dilation[axis] * (kernel[axis] - 1) + 1
            extent = int(size) + before[axis] + after[axis]
            out = -(-(extent - reach) // strides[axis]) + 1
            if (out - 1) * strides[axis] >= int(size) + before[axis]:
                out -= 1
            needed = (out - 1) * strides[axis] + reach - extent
            padded.append(after[axis] + max(needed, 0))
        return padded

    def resize(
        self,
        x: SSAValue,
        dims: Sequence[int | sympy.Expr],
        mode: str,
        axes: Sequence[int],
        scales: SSAValue | None = None,
        coordinates: str = "half_pixel",
        nearest_mode: str = "round_prefer_floor",
        roi: SSAValue | None = None,
        **options: Any,
    ) -> SSAValue:
        """``relax.resize`` of x to ``dims`` along ``axes``; ``scales`` is a float tensor
        (one per axis) the coordinates are divided by, ``roi`` tf_crop_and_resize's
        region (a float tensor); ``options`` are cubic_coeff_a, exclude_outside and
        extrapolation_value. Defaults are left out."""
        props: dict[str, Any] = {"mode": StringAttr(mode)}
        if list(axes) != list(range(self.ndim(x))):
            props["axes"] = list(axes)
        if coordinates != "half_pixel":
            props["coordinate_transformation_mode"] = StringAttr(coordinates)
        if mode == "nearest" and nearest_mode != "round_prefer_floor":
            props["nearest_mode"] = StringAttr(nearest_mode)
        if mode == "cubic" and options.get("cubic_coeff_a", -0.75) != -0.75:
            props["cubic_coeff_a"] = FloatAttr(float(options["cubic_coeff_a"]), f64)
        if options.get("exclude_outside"):
            props["exclude_outside"] = True
        if options.get("extrapolation_value", 0.0) != 0.0:
            props["extrapolation_value"] = FloatAttr(float(options["extrapolation_value"]), f64)
        operands = [x, self.shape(dims), *(v for v in (scales, roi) if v is not None)]
        return self.op("resize", *operands, **props)

    def adaptive_avg_pool2d(self, x: SSAValue, output: Sequence[int | None]) -> SSAValue:
        """Adaptive average pooling to ``output`` (None keeps a size): one window per
        output when the size divides, else averaging matrices (torch's windows
        ``[floor(i * H / o), ceil((i + 1) * H / o))``)."""
        sizes = self.dims(x)[2:]
        output = [s if o is None else sympy.Integer(o) for s, o in zip(sizes, output, strict=True)]
        if all(o == 1 for o in output):
            return self.op("mean", x, axis=[2, 3], keepdims=True)
        if any(not s.is_Integer for s, o in zip(sizes, output, strict=True) if s != o):
            raise Unsupported("adaptive pooling of a symbolic size")
        if all(s == o or int(s) % int(o) == 0 for s, o in zip(sizes, output, strict=True)):
            kernel = [int(s) // int(o) for s, o in zip(sizes, output, strict=True)]
            return self.op("avg_pool2d", x, pool_size=kernel, strides=kernel)
        (h, w), (oh, ow) = ([int(v) for v in pair] for pair in (sizes, output))
        rows = self.const(_averaging_matrix(h, oh), self.dtype(x))
        columns = self.const(_averaging_matrix(w, ow).T, self.dtype(x))
        return self.op("matmul", self.op("matmul", rows, x), columns)

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


def _sides(padding: Sequence[int], spatial: int) -> tuple[list[int], list[int]]:
    """Start and end padding per spatial axis from one value per axis or both."""
    padding = list(padding)
    if len(padding) == 2 * spatial:
        return padding[:spatial], padding[spatial:]
    return padding, list(padding)


def _padding_attr(before: Sequence[int], after: Sequence[int]) -> list[int] | None:
    """The ``padding`` attribute: absent, one value per axis, or the starts then the ends."""
    if list(before) == list(after):
        return _unless(before, 0)
    return [*before, *after]


def _averaging_matrix(size: int, out: int) -> np.ndarray:
    """The ``[out, size]`` matrix averaging torch's adaptive pooling windows."""
    matrix = np.zeros((out, size))
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


def _unless(values: Sequence[int], default: int) -> list[int] | None:
    """``values``, or None (the attribute left out) when each is ``default``."""
    return None if all(v == default for v in values) else list(values)
