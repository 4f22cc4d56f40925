"""Neural-network operators: softmax, log_softmax, layer_norm, convolutions and pooling."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import sympy
from xdsl.dialects.builtin import FloatAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType, show_type
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.obligations import Facts
from xrelax.dialects.shapes.symbolic import Dims
from xrelax.ops import te
from xrelax.ops.base import (
    FLOAT,
    I64_ARRAY_PROP,
    I64_PROP,
    NUMERIC,
    OUTPUT,
    OperatorOp,
    Props,
    accumulator,
    check_dtype,
    dims_product,
    expect_tensor,
    known_shape,
    mean_of,
    normalize_axes,
    normalize_axis,
    numpy_result,
    prop_float,
    prop_int,
    prop_ints,
    reference_mean,
    require_equal,
    require_le,
    require_props,
    result_dims,
    same_dtype,
    tensor,
    widened,
)

# ------------------------------------------------------------------------------ softmax


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = np.exp(x - _axis_max(x, axis))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - _axis_max(x, axis)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _axis_max(x: np.ndarray, axis: int) -> np.ndarray:
    """The maximum along ``axis`` (an empty axis, whose softmax is empty, gives -inf)."""
    return np.max(x, axis=axis, keepdims=True, initial=-np.inf)


class SoftmaxFamilyOp(OperatorOp):
    """``%r = relax.NAME %x {axis = -1 : i64}``: a normalisation along ``axis``
    (absent: -1) of a floating-point tensor; same shape and dtype (f16 and bf16 computed
    in f32)."""

    x = operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    NUMPY_FN: ClassVar[Callable[[np.ndarray, int], np.ndarray]]
    TE_FN: ClassVar[Callable[[te.Expr, te.Expr, te.Expr], te.Expr]]
    """The result from ``x - max``, ``exp(x - max)`` and the sum of the latter along the axis."""

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        check_dtype(x, FLOAT)
        if x.ndim is not None:
            normalize_axis(prop_int(properties, "axis", -1), x.ndim)
        return tensor(known_shape(x), x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        value = cls.NUMPY_FN(x.astype(np.float64), prop_int(props, "axis", -1))
        return numpy_result(value, x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        dtype, x = x.dtype, widened(x)
        axis = normalize_axis(prop_int(props, "axis", -1), x.ndim)
        rest = [d for a, d in enumerate(x.shape) if a != axis]

        def along(i: Sequence[sympy.Expr], k: te.IterVar) -> tuple:
            return (*i[:axis], k, *i[axis:])

        def others(i: Sequence[sympy.Expr]) -> tuple:
            return (*i[:axis], *i[axis + 1 :])

        # Subtracting the maximum keeps exp from overflowing, as the reference does.
        k = te.reduce_axis(0, x.shape[axis], "k")
        top = te.compute(rest, lambda *i: te.max(x[along(i, k)], k), "max")
        shifted = te.compute(x.shape, lambda *i: te.exp(x[i] - top[others(i)]), "exp")
        k2 = te.reduce_axis(0, x.shape[axis], "k")
        total = te.compute(rest, lambda *i: te.sum(shifted[along(i, k2)], k2), "sum")
        return te.compute(
            result_dims(result_type),
            lambda *i: te.cast(
                cls.TE_FN(x[i] - top[others(i)], shifted[i], total[others(i)]), dtype
            ),
            OUTPUT,
        )


@irdl_op_definition
class SoftmaxOp(SoftmaxFamilyOp):
    """``relax.softmax``: exp(x) / sum(exp(x)) along ``axis``."""

    name = "relax.softmax"
    NUMPY_FN = staticmethod(_softmax)
    TE_FN = staticmethod(lambda shifted, e, total: e / total)


@irdl_op_definition
class LogSoftmaxOp(SoftmaxFamilyOp):
    """``relax.log_softmax``: x - log(sum(exp(x))) along ``axis``."""

    name = "relax.log_softmax"
    NUMPY_FN = staticmethod(_log_softmax)
    TE_FN = staticmethod(lambda shifted, e, total: shifted - te.log(total))


# ------------------------------------------------------------------------------ layer_norm


@irdl_op_definition
class LayerNormOp(OperatorOp):
    """``relax.layer_norm``: (x - mean) / sqrt(var + epsilon) * gamma + beta, the moments
    taken over ``axes``; gamma and beta have the sizes of x along ``axes``, in that order
    (``epsilon`` absent: 1e-5); f16 and bf16 are computed in f32."""

    name = "relax.layer_norm"

    x = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    axes = prop_def(I64_ARRAY_PROP)
    epsilon = opt_prop_def(FloatAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x, gamma, beta = (expect_tensor(t) for t in operand_types)
        check_dtype(x, FLOAT)
        dtype = same_dtype([x, gamma, beta])
        require_props(properties, "axes")
        axes = prop_ints(properties, "axes")
        for param, what in ((gamma, "gamma"), (beta, "beta")):
            if param.ndim is not None and param.ndim != len(axes):
                raise RelaxError(
                    f"expected {what} of rank {len(axes)} (one dimension per normalised "
                    f"axis), got {show_type(param)}"
                )
        if x.ndim is None:
            return tensor(None, dtype)
        positions = normalize_axes(axes, x.ndim, "axes")
        if x.dims is not None:
            expected = tuple(x.dims[a] for a in positions)
            for param, what in ((gamma, "gamma"), (beta, "beta")):
                if param.dims is None:
                    continue
                if any(
                    symbolic.prove_not_equal(e, d)
                    for e, d in zip(expected, param.dims, strict=True)
                ):
                    raise RelaxError(
                        f"expected {what} of shape {symbolic.format_dims(expected)} (x along "
                        f"axes {axes}), got {show_type(param)}"
                    )
                for k, (e, d) in enumerate(zip(expected, param.dims, strict=True)):
                    require_equal(
                        facts,
                        d,
                        e,
                        f"relax.layer_norm: {what} dimension {k} equals x along axis "
                        f"{positions[k]}",
                    )
        return tensor(known_shape(x), dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, gamma, beta = inputs
        axes = normalize_axes(prop_ints(props, "axes"), x.ndim, "axes")
        epsilon = prop_float(props, "epsilon", 1e-5)
        data = x.astype(np.float64)
        mean = data.mean(axis=tuple(axes), keepdims=True)
        variance = np.square(data - mean).mean(axis=tuple(axes), keepdims=True)
        # gamma's dimensions follow ``axes``; reorder them to x's order, then broadcast.
        order = np.argsort(axes)
        shape = [x.shape[a] if a in axes else 1 for a in range(x.ndim)]
        scale = np.transpose(gamma, order).reshape(shape)
        shift = np.transpose(beta, order).reshape(shape)
        value = (data - mean) / np.sqrt(variance + epsilon) * scale + shift
        return numpy_result(value, x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        dtype = inputs[0].dtype
        x, gamma, beta = (widened(t, f"wide_{t.name}") for t in inputs)
        axes = normalize_axes(prop_ints(props, "axes"), x.ndim, "axes")
        epsilon = te.const(prop_float(props, "epsilon", 1e-5), x.dtype)
        kept = [a for a in range(x.ndim) if a not in axes]
        count = dims_product([x.shape[a] for a in axes])

        def index(outer: Sequence[sympy.Expr], inner: Sequence[sympy.Expr]) -> list:
            """The index of x from the kept axes' and the normalised axes' indices."""
            position = dict(zip(kept, outer, strict=True)) | dict(zip(axes, inner, strict=True))
            return [position[a] for a in range(x.ndim)]

        def moment(name: str, term: Callable[[Sequence[sympy.Expr], list], te.Expr]) -> te.Tensor:
            r = [te.reduce_axis(0, x.shape[a], f"k{a}") for a in axes]
            return te.compute(
                [x.shape[a] for a in kept], lambda *i: mean_of(term(i, r), r, count), name
            )

        mean = moment("mean", lambda i, r: x[index(i, r)])

        def centred_square(i: Sequence[sympy.Expr], r: list) -> te.Expr:
            centred = x[index(i, r)] - mean[i]
            return centred * centred

        variance = moment("var", centred_square)

        def body(*i: sympy.Expr) -> te.Expr:
            outer, inner = [i[a] for a in kept], [i[a] for a in axes]
            normalised = (x[i] - mean[outer]) / te.sqrt(variance[outer] + epsilon)
            return te.cast(normalised * gamma[inner] + beta[inner], dtype)

        return te.compute(result_dims(result_type), body, OUTPUT)


# ------------------------------------------------------------------------------ windows


def _spatial_values(props: Props, name: str, rank: int, default: int | None) -> list[int]:
    """A per-spatial-dimension property given as one value for all or one per dimension."""
    values = prop_ints(props, name, None if default is None else [default])
    if len(values) == 1:
        values = values * rank
    if len(values) != rank:
        raise RelaxError(f"expected '{name}' to have 1 or {rank} values, got {values}")
    if any(v < 1 for v in values):
        raise RelaxError(f"expected positive '{name}', got {values}")
    return values


@dataclass(frozen=True)
class Window:
    """How a window slides over the spatial dimensions of a convolution or pooling."""

    strides: list[int]
    before: list[int]
    """Padding at the start of each spatial dimension."""
    after: list[int]
    """Padding at the end of each spatial dimension."""
    dilation: list[int]

    @staticmethod
    def of(props: Props, rank: int) -> Window:
        """From the properties ``strides``, ``padding`` and ``dilation`` (absent: 1, 0, 1).

        ``padding`` holds one value for all, one per spatial dimension, or, as TVM, the
        starts then the ends: ``(top, left, bottom, right)`` for two dimensions.
        """
        padding = prop_ints(props, "padding", [0])
        if len(padding) == 1:
            padding = padding * rank
        if len(padding) == rank:
            before, after = padding, padding
        elif len(padding) == 2 * rank:
            before, after = padding[:rank], padding[rank:]
        else:
            raise RelaxError(
                f"expected 'padding' to have 1, {rank} or {2 * rank} values, got {padding}"
            )
        if any(p < 0 for p in padding):
            raise RelaxError(f"expected non-negative 'padding', got {padding}")
        return Window(
            _spatial_values(props, "strides", rank, 1),
            before,
            after,
            _spatial_values(props, "dilation", rank, 1),
        )

    def output_dims(
        self, sizes: Dims, windows: Sequence[sympy.Expr], op: str, facts: Facts
    ) -> Dims:
        """The output size per spatial dimension: ``floordiv(size + padding - dilation *
        (window - 1) - 1, stride) + 1``; an error when statically empty (the window
        fits: required into ``facts``)."""
        out = []
        for index, (size, window) in enumerate(zip(sizes, windows, strict=True)):
            extent = size + self.before[index] + self.after[index]
            reach = self.dilation[index] * (window - 1) + 1
            dim = symbolic.floordiv(extent - reach, self.strides[index]) + 1
            if dim.is_Integer and dim < 1:
                raise RelaxError(
                    f"expected spatial dimension {index} (padded size "
                    f"{symbolic.format_expr(extent)}) to hold the window of extent "
                    f"{symbolic.format_expr(reach)}"
                )
            require_le(
                facts, reach, extent, f"{op}: spatial dimension {index} (padded) holds the window"
            )
            out.append(dim)
        return tuple(out)

    def load(
        self,
        x: te.Tensor | CanonicalView,
        lead: Sequence[Any],
        positions: Sequence[sympy.Expr],
        taps: Sequence[te.IterVar],
        pad_value: Any,
    ) -> te.Expr:
        """The TE counterpart of :meth:`gather`: x (N, C, *spatial) at window tap ``taps``
        of output ``positions``, reading ``pad_value`` in the padding."""
        index = (
            *lead,
            *(
                p * s + r * d - b
                for p, r, s, d, b in zip(
                    positions, taps, self.strides, self.dilation, self.before, strict=True
                )
            ),
        )
        padded = any(self.before) or any(self.after)
        return x.get(index, pad=pad_value) if padded else x[index]

    def gather(self, x: np.ndarray, window: Sequence[int], pad_value: Any) -> np.ndarray:
        """The windows of padded ``x`` (N, C, *spatial) as an array (N, C, *out, *window)."""
        rank = len(window)
        padded = np.pad(
            x,
            [(0, 0), (0, 0), *zip(self.before, self.after, strict=True)],
            constant_values=pad_value,
        )
        index = []
        for axis in range(rank):
            reach = self.dilation[axis] * (window[axis] - 1) + 1
            out = (padded.shape[2 + axis] - reach) // self.strides[axis] + 1
            starts = np.arange(out) * self.strides[axis]
            offsets = np.arange(window[axis]) * self.dilation[axis]
            shape_out = [1] * (2 * rank)
            shape_out[axis] = out
            shape_window = [1] * (2 * rank)
            shape_window[rank + axis] = window[axis]
            index.append(starts.reshape(shape_out) + offsets.reshape(shape_window))
        return padded[(slice(None), slice(None), *index)]


def _expect_rank(type_: TensorType, rank: int, what: str) -> None:
    if type_.ndim is not None and type_.ndim != rank:
        raise RelaxError(f"expected {what} of rank {rank}, got {show_type(type_)}")


# ------------------------------------------------------------------------------ layouts


@dataclass(frozen=True)
class Layout:
    """An order of the axes of a tensor: ``NHWC`` of the axes ``NCHW`` (the canonical
    order the operator is defined in) has ``order = (0, 3, 1, 2)``, the position of each
    canonical axis."""

    name: str
    order: tuple[int, ...]

    @staticmethod
    def of(props: Props, name: str, canonical: str) -> Layout:
        """The layout the string property ``name`` gives (absent: ``canonical``)."""
        attr = props.get(name)
        if attr is None:
            return Layout(canonical, tuple(range(len(canonical))))
        layout = attr.data if isinstance(attr, StringAttr) else None
        if layout is None or sorted(layout) != sorted(canonical):
            raise RelaxError(
                f"expected '{name}' to be an order of the axes {canonical}, got {attr}"
            )
        return Layout(layout, tuple(layout.index(axis) for axis in canonical))

    @property
    def is_canonical(self) -> bool:
        """Whether the axes are in the canonical order."""
        return self.order == tuple(range(len(self.order)))

    def canonical(self, dims: Sequence[Any]) -> tuple:
        """``dims`` (sizes or indices) in this layout, in the canonical order."""
        return tuple(dims[p] for p in self.order)

    def stored(self, dims: Sequence[Any]) -> tuple:
        """``dims`` in the canonical order, in this layout."""
        out: list[Any] = [None] * len(dims)
        for axis, position in enumerate(self.order):
            out[position] = dims[axis]
        return tuple(out)

    def to_canonical(self, value: np.ndarray) -> np.ndarray:
        """An array in this layout as a view in the canonical order."""
        return np.transpose(value, self.order)

    def from_canonical(self, value: np.ndarray) -> np.ndarray:
        """An array in the canonical order as a view in this layout."""
        return np.transpose(value, np.argsort(self.order))

    def view(self, tensor: te.Tensor) -> CanonicalView:
        """A TE tensor in this layout, read in the canonical order."""
        return CanonicalView(tensor, self)


@dataclass(frozen=True)
class CanonicalView:
    """A TE tensor stored in ``layout``, indexed (``[...]``, ``get``) in the canonical
    order: the operators' TE bodies are written once, for the canonical layout."""

    tensor: te.Tensor
    layout: Layout

    @property
    def shape(self) -> tuple[sympy.Expr, ...]:
        return self.layout.canonical(self.tensor.shape)

    @property
    def dtype(self) -> Attribute:
        return self.tensor.dtype

    def get(self, indices: Sequence[Any], pad: Any = None) -> te.Expr:
        return self.tensor.get(self.layout.stored(indices), pad=pad)

    def __getitem__(self, indices: Sequence[Any]) -> te.Expr:
        return self.get(indices)


# ------------------------------------------------------------------------------ convolution


class ConvOp(OperatorOp):
    """``%r = relax.convNd %x, %w {strides, padding, dilation, groups, data_layout,
    kernel_layout}``: a convolution (cross-correlation) of data N, C, *spatial with
    weights O, C / groups, *kernel (strides and dilation absent: 1, padding absent: 0,
    groups absent: 1). ``data_layout`` (also the result's) and ``kernel_layout`` order
    those axes in memory: ``"NHWC"`` and ``"HWIO"`` for a channels-last conv2d (absent:
    the class's ``LAYOUT``)."""

    x = operand_def(TensorType)
    weight = operand_def(TensorType)
    strides = opt_prop_def(I64_ARRAY_PROP)
    padding = opt_prop_def(I64_ARRAY_PROP)
    dilation = opt_prop_def(I64_ARRAY_PROP)
    groups = opt_prop_def(I64_PROP)
    data_layout = opt_prop_def(StringAttr)
    kernel_layout = opt_prop_def(StringAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    SPATIAL: ClassVar[int]
    """The number of spatial dimensions."""
    LAYOUT: ClassVar[tuple[str, str]]
    """The canonical data and weight layouts (the default ones)."""

    @classmethod
    def layouts(cls, props: Props) -> tuple[Layout, Layout]:
        """The data and the weight layout."""
        return (
            Layout.of(props, "data_layout", cls.LAYOUT[0]),
            Layout.of(props, "kernel_layout", cls.LAYOUT[1]),
        )

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x, weight = (expect_tensor(t) for t in operand_types)
        check_dtype(x, NUMERIC)
        dtype = same_dtype([x, weight])
        rank = cls.SPATIAL + 2
        data, kernel_layout = cls.layouts(properties)
        _expect_rank(x, rank, f"{data.name} data")
        _expect_rank(weight, rank, f"{kernel_layout.name} weights")
        window = Window.of(properties, cls.SPATIAL)
        groups = prop_int(properties, "groups", 1)
        if groups < 1:
            raise RelaxError(f"expected a positive number of groups, got {groups}")
        if x.dims is None or weight.dims is None:
            return tensor(rank, dtype)
        batch, channels, *sizes = data.canonical(x.dims)
        out_channels, in_channels, *kernel = kernel_layout.canonical(weight.dims)
        if symbolic.prove_not_equal(channels, in_channels * groups):
            raise RelaxError(
                f"expected data with {symbolic.format_expr(in_channels * groups)} channels "
                f"(weight input channels * groups), got {show_type(x)}"
            )
        require_equal(
            facts,
            in_channels * groups,
            channels,
            f"{cls.name}: the data channels equal the weight input channels * groups",
        )
        remainder = symbolic.floormod(out_channels, groups)
        if remainder.is_Integer and remainder != 0:
            raise RelaxError(
                f"expected output channels divisible by groups = {groups}, got {show_type(weight)}"
            )
        require_equal(facts, remainder, 0, f"{cls.name}: groups divide the output channels")
        out = window.output_dims(sizes, kernel, cls.name, facts)
        return tensor(data.stored((batch, out_channels, *out)), dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        data, kernel_layout = cls.layouts(props)
        x, weight = data.to_canonical(inputs[0]), kernel_layout.to_canonical(inputs[1])
        window = Window.of(props, cls.SPATIAL)
        groups = prop_int(props, "groups", 1)
        kernel = weight.shape[2:]
        accumulate = np.float64 if np.issubdtype(x.dtype, np.floating) else x.dtype
        windows = window.gather(x.astype(accumulate), kernel, 0)
        batch, channels, *out = windows.shape[: 2 + cls.SPATIAL]
        windows = windows.reshape(batch, groups, channels // groups, *windows.shape[2:])
        weights = weight.astype(accumulate).reshape(
            groups, weight.shape[0] // groups, channels // groups, *kernel
        )
        spatial = "".join(chr(ord("p") + i) for i in range(cls.SPATIAL))
        taps = "".join(chr(ord("u") + i) for i in range(cls.SPATIAL))
        value = np.einsum(f"ngc{spatial}{taps},gfc{taps}->ngf{spatial}", windows, weights)
        value = data.from_canonical(value.reshape(batch, weight.shape[0], *out))
        return numpy_result(value, x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        return cls.emit_te_for("numpy", inputs, result_type, props)

    @classmethod
    def emit_te_for(
        cls, kernels: str, inputs: Sequence[Any], result_type: Attribute, props: Props
    ) -> Any:
        """The banded depthwise form is for the numpy kernels (a batched matmul beats a
        multiply-add per window point there); native loops do a sum over the window's
        points directly, in 25 multiply-adds per output of a 5x5 window where the band
        takes 160 (5 rows of 32)."""
        x, weight = inputs
        window = Window.of(props, cls.SPATIAL)
        groups = prop_int(props, "groups", 1)
        dims = result_dims(result_type)
        data, kernel_layout = cls.layouts(props)
        if not (data.is_canonical and kernel_layout.is_canonical):
            return _conv_te(data.view(x), kernel_layout.view(weight), window, groups, dims, data)
        if (
            kernels == "numpy"
            and _banded_depthwise(window, groups, weight.shape, x.shape, dims)
            and accumulator(x.dtype) == x.dtype
        ):
            return _banded_depthwise_te(x, weight, window, dims)
        return _conv_te(x, weight, window, groups, dims, data)


def _conv_te(
    x: te.Tensor | CanonicalView,
    weight: te.Tensor | CanonicalView,
    window: Window,
    groups: int,
    dims: Dims,
    layout: Layout,
) -> Any:
    """A grouped convolution of x (N, C, *spatial) with weights (O, C / groups, *kernel)
    as a sum of products over the channels of a group and the window taps, accumulated
    in f32 for f16 and bf16; the result ``dims`` are in the data ``layout``."""
    out_channels, channels, *kernel = weight.shape
    wide = accumulator(x.dtype)
    rc = te.reduce_axis(0, channels, "rc")
    taps = [te.reduce_axis(0, k, f"r{a}") for a, k in enumerate(kernel)]
    per_group = symbolic.floordiv(out_channels, groups)
    # The reduction runs over the data's axes in memory order, so that the kernel
    # backend's im2col reads whole runs (channels-last: the channels of a tap, then the
    # next tap's).
    reduced = [axis for _, axis in sorted(zip(layout.order[1:], [rc, *taps], strict=True))]

    def body(*index: sympy.Expr) -> te.Expr:
        b, o, *positions = layout.canonical(index)
        # Output channel o reads the input channels of its group.
        channel = symbolic.floordiv(o, per_group) * channels + rc if groups > 1 else rc
        value = window.load(x, (b, channel), positions, taps, 0)
        if wide == x.dtype:
            return te.sum(value * weight[(o, rc, *taps)], reduced)
        product = te.cast(value, wide) * te.cast(weight[(o, rc, *taps)], wide)
        return te.cast(te.sum(product, reduced), x.dtype)

    return te.compute(dims, body, OUTPUT)


_BANDED_MIN_TAPS = 17
"""A depthwise window of at least this many points (convnext's 7x7) is computed by
rows: fewer points are a multiply-add per point (the kernel backend's ``products``)."""
_BANDED_MAX_WIDTH = 64
"""The widest output computed by rows: the banded matrix holds ``W + KW - 1`` points per
output column and the product does that many multiply-adds per output point (at
width 56, 4-6x faster than im2col all the same; wider, the band's size grows as W²)."""


def _banded_depthwise(
    window: Window, groups: int, kernel_shape: Dims, x_shape: Dims, out: Dims
) -> bool:
    """Whether a convolution is a 2-D depthwise one (a channel each, unit strides and
    dilation) of a static window of at least :data:`_BANDED_MIN_TAPS` points and a
    static output width of at most :data:`_BANDED_MAX_WIDTH`: then
    :func:`_banded_depthwise_te` applies."""
    out_channels, channels, *kernel = kernel_shape
    return (
        len(kernel) == 2
        and channels == 1
        and groups > 1
        and symbolic.prove_equal(out_channels, groups)
        and symbolic.prove_equal(x_shape[1], groups)
        and window.strides == [1, 1]
        and window.dilation == [1, 1]
        and all(k.is_Integer for k in kernel)
        and int(kernel[0]) * int(kernel[1]) >= _BANDED_MIN_TAPS
        and out[3].is_Integer
        and int(out[3]) <= _BANDED_MAX_WIDTH
    )


def _banded_depthwise_te(x: te.Tensor, weight: te.Tensor, window: Window, out: Dims) -> Any:
    """A depthwise convolution as one matrix product per image and channel.

    Each output row ``out[b, c, h, :]`` sums, over the window rows ``kh``, the padded
    input row ``h + kh`` (all ``W + KW - 1`` of its points ``j``) times a banded matrix
    ``band[c, kh, j, w] = weight[c, 0, kh, j - w]`` (zero off the band). The product over
    ``(kh, j)`` is then a batched matmul whose input operand copies ``KH`` padded rows
    per output row, where an im2col copy of the windows copies ``KH * KW`` points per
    output point: 4x less copying at 7x7 (measured 3x faster for convnext's blocks).
    """
    _, _, rows, cols = weight.shape
    width = int(out[3])
    span = width + int(cols) - 1
    band = te.compute(
        (weight.shape[0], rows, span, width),
        lambda c, kh, j, w: weight.get((c, 0, kh, j - w), pad=0),
        "band",
    )
    kh = te.reduce_axis(0, rows, "kh")
    j = te.reduce_axis(0, span, "j")
    top, left = window.before
    padded = any(window.before) or any(window.after)

    def body(b: sympy.Expr, c: sympy.Expr, h: sympy.Expr, w: sympy.Expr) -> te.Expr:
        index = (b, c, h + kh - top, j - left)
        value = x.get(index, pad=0) if padded else x[index]
        return te.sum(value * band[c, kh, j, w], [kh, j])

    return te.compute(out, body, OUTPUT)


@irdl_op_definition
class Conv1dOp(ConvOp):
    """``relax.conv1d``: a 1-D convolution, data NCW, weights OIW."""

    name = "relax.conv1d"
    SPATIAL: ClassVar[int] = 1
    LAYOUT: ClassVar[tuple[str, str]] = ("NCW", "OIW")


@irdl_op_definition
class Conv2dOp(ConvOp):
    """``relax.conv2d``: a 2-D convolution, data NCHW, weights OIHW."""

    name = "relax.conv2d"
    SPATIAL: ClassVar[int] = 2
    LAYOUT: ClassVar[tuple[str, str]] = ("NCHW", "OIHW")


@irdl_op_definition
class Conv3dOp(ConvOp):
    """``relax.conv3d``: a 3-D convolution, data NCDHW, weights OIDHW."""

    name = "relax.conv3d"
    SPATIAL: ClassVar[int] = 3
    LAYOUT: ClassVar[tuple[str, str]] = ("NCDHW", "OIDHW")


# ------------------------------------------------------------------ transposed convolution


def _output_padding(props: Props, rank: int) -> list[int]:
    """``output_padding``: one value for all or one per spatial dimension (absent: 0)."""
    values = prop_ints(props, "output_padding", [0])
    if len(values) == 1:
        values = values * rank
    if len(values) != rank or any(v < 0 for v in values):
        raise RelaxError(
            f"expected 'output_padding' to have 1 or {rank} non-negative values, got {values}"
        )
    return values


class ConvTransposeOp(OperatorOp):
    """``%r = relax.conv_transposeNd %x, %w {strides, padding, output_padding, dilation,
    groups}``: the transpose (gradient) of a convolution, data N, C, *spatial with weights
    C, O / groups, *kernel: each input element adds its weighted kernel to the output at
    ``stride`` steps; ``padding`` crops the output at the start and end, ``output_padding``
    extends its end (absent: strides and dilation 1, paddings 0, groups 1)."""

    x = operand_def(TensorType)
    weight = operand_def(TensorType)
    strides = opt_prop_def(I64_ARRAY_PROP)
    padding = opt_prop_def(I64_ARRAY_PROP)
    output_padding = opt_prop_def(I64_ARRAY_PROP)
    dilation = opt_prop_def(I64_ARRAY_PROP)
    groups = opt_prop_def(I64_PROP)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    SPATIAL: ClassVar[int]
    """The number of spatial dimensions."""
    LAYOUT: ClassVar[tuple[str, str]]
    """The data and weight layouts, for messages."""

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x, weight = (expect_tensor(t) for t in operand_types)
        check_dtype(x, NUMERIC)
        dtype = same_dtype([x, weight])
        rank = cls.SPATIAL + 2
        _expect_rank(x, rank, f"{cls.LAYOUT[0]} data")
        _expect_rank(weight, rank, f"{cls.LAYOUT[1]} weights")
        window = Window.of(properties, cls.SPATIAL)
        extra = _output_padding(properties, cls.SPATIAL)
        groups = prop_int(properties, "groups", 1)
        if groups < 1:
            raise RelaxError(f"expected a positive number of groups, got {groups}")
        if x.dims is None or weight.dims is None:
            return tensor(rank, dtype)
        batch, channels, *sizes = x.dims
        in_channels, per_group, *kernel = weight.dims
        if symbolic.prove_not_equal(channels, in_channels):
            raise RelaxError(
                f"expected data with {symbolic.format_expr(in_channels)} channels (the "
                f"weight's first dimension), got {show_type(x)}"
            )
        require_equal(
            facts, channels, in_channels, f"{cls.name}: the data channels equal the weight's"
        )
        remainder = symbolic.floormod(in_channels, groups)
        if remainder.is_Integer and remainder != 0:
            raise RelaxError(
                f"expected input channels divisible by groups = {groups}, got {show_type(weight)}"
            )
        require_equal(facts, remainder, 0, f"{cls.name}: groups divide the input channels")
        out = []
        for axis, (size, k) in enumerate(zip(sizes, kernel, strict=True)):
            require_le(facts, 1, size, f"{cls.name}: spatial dimension {axis} is not empty")
            dim = sympy.expand(
                (size - 1) * window.strides[axis]
                + window.dilation[axis] * (k - 1)
                + 1
                + extra[axis]
                - window.before[axis]
                - window.after[axis]
            )
            if dim.is_Integer and dim < 1:
                raise RelaxError(
                    f"expected the padding of spatial dimension {axis} to leave an output, "
                    f"got size {dim}"
                )
            require_le(
                facts,
                1,
                dim,
                f"{cls.name}: the padding of spatial dimension {axis} leaves an output",
            )
            out.append(dim)
        return tensor((batch, sympy.expand(per_group * groups), *out), dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        x, weight = inputs
        window = Window.of(props, cls.SPATIAL)
        extra = _output_padding(props, cls.SPATIAL)
        groups = prop_int(props, "groups", 1)
        accumulate = np.float64 if np.issubdtype(x.dtype, np.floating) else x.dtype
        batch, channels, *sizes = x.shape
        _, per_group, *kernel = weight.shape
        full = [
            (n - 1) * s + d * (k - 1) + 1 + e
            for n, s, d, k, e in zip(
                sizes, window.strides, window.dilation, kernel, extra, strict=True
            )
        ]
        out = np.zeros((batch, groups, per_group, *full), accumulate)
        data = x.astype(accumulate).reshape(batch, groups, channels // groups, *sizes)
        weights = weight.astype(accumulate).reshape(groups, channels // groups, per_group, *kernel)
        spatial = "".join(chr(ord("p") + i) for i in range(cls.SPATIAL))
        for tap in np.ndindex(*kernel):
            contribution = np.einsum(f"ngc{spatial},gco->ngo{spatial}", data, weights[(..., *tap)])
            index = tuple(
                slice(t * d, t * d + (n - 1) * s + 1, s)
                for t, d, n, s in zip(tap, window.dilation, sizes, window.strides, strict=True)
            )
            out[(slice(None), slice(None), slice(None), *index)] += contribution
        crop = tuple(
            slice(b, f - a) for b, a, f in zip(window.before, window.after, full, strict=True)
        )
        value = out[(slice(None), slice(None), slice(None), *crop)]
        return numpy_result(value.reshape(batch, groups * per_group, *value.shape[3:]), x.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        # As torch computes it: every input point times every kernel tap (a product over
        # the channels of a group), then each output point sums the products that land on
        # it. Only products that exist are summed: an infinite or NaN weight never meets
        # a padding zero or a zero between strided input points.
        x, weight = inputs
        window = Window.of(props, cls.SPATIAL)
        products = _TapProducts(x, weight, prop_int(props, "groups", 1))
        out = result_dims(result_type)
        if all(k.is_Integer for k in products.kernel):
            return _scatter_phases(products, window, out)
        return _scatter_taps(products, window, out)


class _TapProducts:
    """The products of a transposed convolution's input points with its kernel taps,
    summed over the input channels of a group: (N, O, *input) per tap."""

    def __init__(self, x: te.Tensor, weight: te.Tensor, groups: int) -> None:
        self.x, self.weight, self.groups = x, weight, groups
        self.batch, channels, *self.sizes = x.shape
        _, self.per_group, *self.kernel = weight.shape
        self.out_channels = sympy.expand(self.per_group * groups)
        self.in_per_group = symbolic.floordiv(channels, groups)
        self.wide = accumulator(x.dtype)

    def product(self, b: Any, o: Any, taps: Sequence[Any], points: Sequence[Any]) -> te.Expr:
        """The product at output channel o of input point ``points`` and tap ``taps``."""
        rc = te.reduce_axis(0, self.in_per_group, "rc")
        if self.groups > 1:
            channel = symbolic.floordiv(o, self.per_group) * self.in_per_group + rc
            column = symbolic.floormod(o, self.per_group)
        else:
            channel, column = rc, o
        value, tap = self.x[(b, channel, *points)], self.weight[(channel, column, *taps)]
        if self.wide != self.x.dtype:
            value, tap = te.cast(value, self.wide), te.cast(tap, self.wide)
        return te.sum(value * tap, [rc])

    def of_tap(self, tap: Sequence[int]) -> te.Tensor:
        """The products of one (static) tap: (N, O, *input)."""
        return te.compute(
            (self.batch, self.out_channels, *self.sizes),
            lambda b, o, *points: self.product(b, o, tap, points),
            "products",
        )

    def of_all_taps(self) -> te.Tensor:
        """The products of every tap: (N, O, *kernel, *input)."""
        rank = len(self.kernel)
        return te.compute(
            (self.batch, self.out_channels, *self.kernel, *self.sizes),
            lambda b, o, *rest: self.product(b, o, rest[:rank], rest[rank:]),
            "products",
        )

    def result(self, value: te.Expr) -> te.Expr:
        return value if self.wide == self.x.dtype else te.cast(value, self.x.dtype)


def _scatter_phases(products: _TapProducts, window: Window, out: Dims) -> Any:
    """A transposed convolution of a static kernel: the output points of one phase (their
    position modulo the stride) receive the same taps, each from the input shifted by a
    fixed offset, so a phase is a sum of shifted products; the output interleaves the
    phases."""
    phases = list(itertools.product(*(range(s) for s in window.strides)))
    parts = [_phase(products, window, out, phase) for phase in phases]

    def body(b: sympy.Expr, o: sympy.Expr, *y: sympy.Expr) -> te.Expr:
        q = [symbolic.floordiv(i, s) for i, s in zip(y, window.strides, strict=True)]
        value = parts[-1].get((b, o, *q), pad=0)
        for phase, part in reversed(list(zip(phases, parts, strict=True))[:-1]):
            at = sympy.And(
                *(
                    sympy.Eq(symbolic.floormod(i, s), p)
                    for i, p, s in zip(y, phase, window.strides, strict=True)
                    if s > 1
                )
            )
            value = te.if_then_else(at, part.get((b, o, *q), pad=0), value)
        return products.result(value)

    return te.compute(out, body, OUTPUT)


def _phase(products: _TapProducts, window: Window, out: Dims, phase: tuple[int, ...]) -> te.Tensor:
    """The output points ``phase + stride * q`` of a transposed convolution: the sum of
    its taps t, each read at input point ``q + shift`` where (phase + before - t *
    dilation) = stride * shift."""
    per_axis = [
        [(t, (p + b - t * d) // s) for t in range(int(k)) if (p + b - t * d) % s == 0]
        for p, b, d, s, k in zip(
            phase, window.before, window.dilation, window.strides, products.kernel, strict=True
        )
    ]
    taps = [
        (products.of_tap([t for t, _ in tap]), [shift for _, shift in tap])
        for tap in itertools.product(*per_axis)
    ]
    sizes = [
        symbolic.floordiv(n - p + s - 1, s)
        for n, p, s in zip(out[2:], phase, window.strides, strict=True)
    ]

    def body(b: sympy.Expr, o: sympy.Expr, *q: sympy.Expr) -> te.Expr:
        total = te.const(0, products.wide)
        for part, shifts in taps:
            index = [qa + shift for qa, shift in zip(q, shifts, strict=True)]
            total = total + part.get((b, o, *index), pad=0)
        return total

    return te.compute((*out[:2], *sizes), body, "phase")


def _scatter_taps(products: _TapProducts, window: Window, out: Dims) -> Any:
    """A transposed convolution of a symbolic kernel: each output point sums, over the
    taps, the product of tap t and input point (p + before - t * dilation) / stride
    where that is a whole number."""
    every = products.of_all_taps()
    taps = [te.reduce_axis(0, k, f"r{a}") for a, k in enumerate(products.kernel)]

    def body(b: sympy.Expr, o: sympy.Expr, *positions: sympy.Expr) -> te.Expr:
        offsets = [
            p + before - t * d
            for p, t, d, before in zip(positions, taps, window.dilation, window.before, strict=True)
        ]
        points = [
            symbolic.floordiv(i, s) if s > 1 else i
            for i, s in zip(offsets, window.strides, strict=True)
        ]
        value = every.get((b, o, *taps, *points), pad=0)
        on_grid = [
            sympy.Eq(symbolic.floormod(i, s), 0)
            for i, s in zip(offsets, window.strides, strict=True)
            if s > 1
        ]
        if on_grid:
            value = te.if_then_else(sympy.And(*on_grid), value, te.const(0, products.wide))
        return products.result(te.sum(value, taps))

    return te.compute(out, body, OUTPUT)


@irdl_op_definition
class ConvTranspose1dOp(ConvTransposeOp):
    """``relax.conv_transpose1d``: a 1-D transposed convolution, data NCW, weights IOW."""

    name = "relax.conv_transpose1d"
    SPATIAL: ClassVar[int] = 1
    LAYOUT: ClassVar[tuple[str, str]] = ("NCW", "IOW")


@irdl_op_definition
class ConvTranspose2dOp(ConvTransposeOp):
    """``relax.conv_transpose2d``: a 2-D transposed convolution, data NCHW, weights IOHW."""

    name = "relax.conv_transpose2d"
    SPATIAL: ClassVar[int] = 2
    LAYOUT: ClassVar[tuple[str, str]] = ("NCHW", "IOHW")


@irdl_op_definition
class ConvTranspose3dOp(ConvTransposeOp):
    """``relax.conv_transpose3d``: a 3-D transposed convolution, data NCDHW, weights
    IODHW."""

    name = "relax.conv_transpose3d"
    SPATIAL: ClassVar[int] = 3
    LAYOUT: ClassVar[tuple[str, str]] = ("NCDHW", "IODHW")


# ------------------------------------------------------------------------------ pooling


class PoolOp(OperatorOp):
    """``%r = relax.NAME %x {pool_size, strides, padding, dilation, layout}``: a pooling
    of data N, C, *spatial over windows of ``pool_size`` (strides and dilation absent: 1,
    padding absent: 0); the padding is below the window on each side, so that the first
    and the last window hold an element of the input. ``layout`` (also the result's)
    orders the axes in memory: ``"NHWC"`` for channels-last 2-D pooling (absent: the
    class's ``LAYOUT``)."""

    x = operand_def(TensorType)
    pool_size = prop_def(I64_ARRAY_PROP)
    strides = opt_prop_def(I64_ARRAY_PROP)
    padding = opt_prop_def(I64_ARRAY_PROP)
    dilation = opt_prop_def(I64_ARRAY_PROP)
    layout = opt_prop_def(StringAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    SPATIAL: ClassVar[int]
    """The number of spatial dimensions."""
    LAYOUT: ClassVar[str]
    """The canonical data layout (the default one)."""

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        check_dtype(x, NUMERIC)
        rank = cls.SPATIAL + 2
        layout = Layout.of(properties, "layout", cls.LAYOUT)
        _expect_rank(x, rank, f"{layout.name} data")
        require_props(properties, "pool_size")
        pool_size = _spatial_values(properties, "pool_size", cls.SPATIAL, None)
        window = Window.of(properties, cls.SPATIAL)
        # The first and last windows hold an element of the input (a pooling of padding
        # only has nothing to pool): padding below the window, and a padded input not empty.
        for axis, (before, after, extent) in enumerate(
            zip(window.before, window.after, pool_size, strict=True)
        ):
            if max(before, after) >= extent:
                raise RelaxError(
                    f"expected the padding of spatial dimension {axis} ({before}, {after}) "
                    f"below the window extent {extent}: a window of padding only has no "
                    "element to pool"
                )
        if x.dims is None:
            return tensor(rank, x.dtype)
        batch, channels, *sizes = layout.canonical(x.dims)
        for axis, size in enumerate(sizes):
            if window.before[axis] or window.after[axis]:
                require_le(facts, 1, size, f"{cls.name}: a padded spatial dimension is not empty")
        pool = [sympy.Integer(p) for p in pool_size]
        out = window.output_dims(sizes, pool, cls.name, facts)
        return tensor(layout.stored((batch, channels, *out)), x.dtype)

    @classmethod
    def pool(cls, x: np.ndarray, window: Window, pool_size: list[int]) -> np.ndarray:
        """The pooled values of each window."""
        raise NotImplementedError

    @classmethod
    def pool_te(
        cls,
        x: te.Tensor | CanonicalView,
        window: Window,
        lead: Sequence[sympy.Expr],
        positions: Sequence[sympy.Expr],
        taps: list[te.IterVar],
    ) -> te.Expr:
        """The TE counterpart of :meth:`pool`: the pooled value of one window."""
        raise NotImplementedError

    @classmethod
    def window_axes(cls) -> tuple[int, ...]:
        """The axes of :meth:`Window.gather`'s result that run over a window."""
        return tuple(range(2 + cls.SPATIAL, 2 + 2 * cls.SPATIAL))

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        layout = Layout.of(props, "layout", cls.LAYOUT)
        x = layout.view(inputs[0])
        window = Window.of(props, cls.SPATIAL)
        pool_size = _spatial_values(props, "pool_size", cls.SPATIAL, None)
        taps = [te.reduce_axis(0, k, f"r{a}") for a, k in enumerate(pool_size)]

        def body(*index: sympy.Expr) -> te.Expr:
            b, c, *positions = layout.canonical(index)
            return cls.pool_te(x, window, (b, c), positions, taps)

        return te.compute(result_dims(result_type), body, OUTPUT)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        layout = Layout.of(props, "layout", cls.LAYOUT)
        x = layout.to_canonical(inputs[0])
        pool_size = _spatial_values(props, "pool_size", cls.SPATIAL, None)
        value = cls.pool(x, Window.of(props, cls.SPATIAL), pool_size)
        return numpy_result(layout.from_canonical(value), x.dtype)


def _lowest(dtype: np.dtype) -> float | int:
    """The value padding a max pooling: below every element."""
    return -np.inf if dtypes.is_float_numpy(dtype) else int(np.iinfo(dtype).min)


class MaxPoolOp(PoolOp):
    """``relax.max_poolNd``: the largest element of each window (padding never wins; a
    dilated window that holds padding only gives the type's lowest value)."""

    @classmethod
    def pool(cls, x: np.ndarray, window: Window, pool_size: list[int]) -> np.ndarray:
        return window.gather(x, pool_size, _lowest(x.dtype)).max(axis=cls.window_axes())

    @classmethod
    def pool_te(
        cls,
        x: te.Tensor | CanonicalView,
        window: Window,
        lead: Sequence[sympy.Expr],
        positions: Sequence[sympy.Expr],
        taps: list[te.IterVar],
    ) -> te.Expr:
        lowest = _lowest(dtypes.numpy_dtype(x.dtype))
        return te.max(window.load(x, lead, positions, taps, lowest), taps)


def _taps_inside(start: sympy.Expr, taps: int, dilation: int, size: sympy.Expr) -> sympy.Expr:
    """How many of the window taps ``start + r * dilation`` (``0 <= r < taps``) fall
    inside ``[0, size)``."""
    if dilation == 1:
        return symbolic.smin(start + taps, size) - symbolic.smax(start, 0)
    first = symbolic.smax(symbolic.floordiv(dilation - 1 - start, dilation), 0)
    last = symbolic.smin(symbolic.floordiv(size - 1 - start, dilation), taps - 1)
    return symbolic.smax(last - first + 1, 0)


class AvgPoolOp(PoolOp):
    """``relax.avg_poolNd``: the mean of each window over its elements inside the input
    (TVM Relax's default ``count_include_pad = false``), as ``relax.mean`` computes a
    mean (f16 in f32; integers exact, truncated toward zero); a dilated window that
    holds padding only gives 0."""

    @classmethod
    def pool(cls, x: np.ndarray, window: Window, pool_size: list[int]) -> np.ndarray:
        axes = cls.window_axes()
        inside = np.ones((1, 1, *x.shape[2:]), np.int64)
        count = window.gather(inside, pool_size, 0).sum(axis=axes, keepdims=True)
        windows = window.gather(x, pool_size, 0)
        return reference_mean(windows, axes, np.maximum(count, 1))

    @classmethod
    def pool_te(
        cls,
        x: te.Tensor | CanonicalView,
        window: Window,
        lead: Sequence[sympy.Expr],
        positions: Sequence[sympy.Expr],
        taps: list[te.IterVar],
    ) -> te.Expr:
        count = sympy.Integer(1)
        for axis, (position, tap) in enumerate(zip(positions, taps, strict=True)):
            start = position * window.strides[axis] - window.before[axis]
            count *= _taps_inside(start, tap.hi, window.dilation[axis], x.shape[2 + axis])
        value = window.load(x, lead, positions, taps, 0)
        return mean_of(value, taps, symbolic.smax(sympy.expand(count), 1))


@irdl_op_definition
class MaxPool1dOp(MaxPoolOp):
    """``relax.max_pool1d``: 1-D max pooling of NCW data."""

    name = "relax.max_pool1d"
    SPATIAL: ClassVar[int] = 1
    LAYOUT: ClassVar[str] = "NCW"


@irdl_op_definition
class MaxPool2dOp(MaxPoolOp):
    """``relax.max_pool2d``: 2-D max pooling of NCHW data."""

    name = "relax.max_pool2d"
    SPATIAL: ClassVar[int] = 2
    LAYOUT: ClassVar[str] = "NCHW"


@irdl_op_definition
class MaxPool3dOp(MaxPoolOp):
    """``relax.max_pool3d``: 3-D max pooling of NCDHW data."""

    name = "relax.max_pool3d"
    SPATIAL: ClassVar[int] = 3
    LAYOUT: ClassVar[str] = "NCDHW"


@irdl_op_definition
class AvgPool1dOp(AvgPoolOp):
    """``relax.avg_pool1d``: 1-D average pooling of NCW data."""

    name = "relax.avg_pool1d"
    SPATIAL: ClassVar[int] = 1
    LAYOUT: ClassVar[str] = "NCW"


@irdl_op_definition
class AvgPool2dOp(AvgPoolOp):
    """``relax.avg_pool2d``: 2-D average pooling of NCHW data."""

    name = "relax.avg_pool2d"
    SPATIAL: ClassVar[int] = 2
    LAYOUT: ClassVar[str] = "NCHW"


@irdl_op_definition
class AvgPool3dOp(AvgPoolOp):
    """``relax.avg_pool3d``: 3-D average pooling of NCDHW data."""

    name = "relax.avg_pool3d"
    SPATIAL: ClassVar[int] = 3
    LAYOUT: ClassVar[str] = "NCDHW"


NN_OPS = (
    SoftmaxOp,
    LogSoftmaxOp,
    LayerNormOp,
    Conv1dOp,
    Conv2dOp,
    Conv3dOp,
    ConvTranspose1dOp,
    ConvTranspose2dOp,
    ConvTranspose3dOp,
    MaxPool1dOp,
    MaxPool2dOp,
    MaxPool3dOp,
    AvgPool1dOp,
    AvgPool2dOp,
    AvgPool3dOp,
)
