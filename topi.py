"""A TOPI-style library of TE compute definitions: one function per relax operator.

``topi.NAME(*tensors, **attributes)`` builds, from ``te.Tensor`` operands, the
tensor the operator ``relax.NAME`` computes (``topi.matmul(A, B)``,
``topi.sum(X, axis=[1], keepdims=True)``, ``topi.reshape(X, [n, 4])``), for use in
``te.compute`` programs and :meth:`BlockBuilder.emit_te`::

    def dense_relu(x, w):
        return topi.relu(topi.matmul(x, w))

    y = bb.emit_te(dense_relu, x, w)     # one kernel: matmul then relu

Each function is the operator's own legalization (its ``emit_te``), with the result
shape from the operator's deduction, so the kernels are the ones
``relax-legalize-ops`` generates and a new operator gets its function from
``python -m xrelax.tools.gen_api``. Operands and attributes are given as to the :mod:`xrelax.op`
functions, with ``te.Tensor`` operands (a shape operand is a list of dims). Operators
whose result shape depends on tensor values (``unique``) have none.

A fact about the shapes the deduction relies on but cannot prove (``k == m`` for
``topi.matmul`` of ``[n, k]`` and ``[m, 2]``) travels with the result tensor
(``te.Tensor.facts``) and becomes a ``tir.assert`` of the kernel that computes it
(``BlockBuilder.emit_te``, ``te.create_prim_func``).

Errors: a ``TypeError`` for a call that does not fit the operator, a
:class:`~xrelax.dialects.relax.RelaxError` when the deduction fails or cannot give the
result shape (operands whose shapes are not provably compatible: ``match_shape`` them
to common variables first).

Written by ``python -m xrelax.tools.gen_api``: each ``def`` below declares an
operator's signature and docstring, and ``@_compute`` puts the operator's compute
function in its place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xrelax.ops.functions import ComputeResult, OperatorSignature, compute_function
from xrelax.ops.library import OPERATORS

FUNCTIONS: dict[str, Callable[..., ComputeResult]] = {
    OperatorSignature.of(op_type).function_name: compute_function(op_type)
    for op_type in OPERATORS
    if not op_type.DATA_DEPENDENT
}
"""The compute function of each operator, by its name without ``relax.``."""

__all__ = ["FUNCTIONS", *FUNCTIONS]


def _compute(declaration: Callable[..., ComputeResult]) -> Callable[..., ComputeResult]:
    """The operator's compute function, in place of the ``def`` that declares it."""
    return FUNCTIONS[declaration.__name__]


@_compute
def abs(x: Any) -> ComputeResult:
    """``relax.abs``: |x|."""


@_compute
def acos(x: Any) -> ComputeResult:
    """``relax.acos``: the arccosine of x (NaN outside [-1, 1])."""


@_compute
def acosh(x: Any) -> ComputeResult:
    """``relax.acosh``: the inverse hyperbolic cosine of x (NaN below 1)."""


@_compute
def add(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.add``: a + b."""


@_compute
def arange(start: Any, end: Any, step: Any, *, dtype: Any = None) -> ComputeResult:
    """``relax.arange``: start, start + step, ... up to (excluding) end (``dtype`` absent:
    i64). With ``!relax.prim`` operands of known values the length is symbolic
    (``[n]`` for 0, n, 1); with 0-d i64 tensors it depends on their values (the safety
    net).
    """


@_compute
def argmax(
    x: Any,
    *,
    axis: Any = None,
    keepdims: Any = None,
    select_last_index: Any = None,
) -> ComputeResult:
    """``relax.argmax``: the position of the largest element (see :class:`ArgReduceOp`)."""


@_compute
def argmin(
    x: Any,
    *,
    axis: Any = None,
    keepdims: Any = None,
    select_last_index: Any = None,
) -> ComputeResult:
    """``relax.argmin``: the position of the smallest element (see :class:`ArgReduceOp`)."""


@_compute
def argsort(x: Any, *, axis: Any = None, descending: Any = None) -> ComputeResult:
    """``relax.argsort``: the positions of the elements of x along ``axis`` (absent: -1)
    in stable ascending order (``descending``: descending), as i64.
    """


@_compute
def asin(x: Any) -> ComputeResult:
    """``relax.asin``: the arcsine of x (NaN outside [-1, 1])."""


@_compute
def asinh(x: Any) -> ComputeResult:
    """``relax.asinh``: the inverse hyperbolic sine of x."""


@_compute
def astype(x: Any, *, dtype: Any = None) -> ComputeResult:
    """``relax.astype``: x converted to the element type ``dtype``."""


@_compute
def atan(x: Any) -> ComputeResult:
    """``relax.atan``: the arctangent of x."""


@_compute
def atanh(x: Any) -> ComputeResult:
    """``relax.atanh``: the inverse hyperbolic tangent of x (NaN outside [-1, 1])."""


@_compute
def avg_pool1d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> ComputeResult:
    """``relax.avg_pool1d``: 1-D average pooling of NCW data."""


@_compute
def avg_pool2d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> ComputeResult:
    """``relax.avg_pool2d``: 2-D average pooling of NCHW data."""


@_compute
def avg_pool3d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> ComputeResult:
    """``relax.avg_pool3d``: 3-D average pooling of NCDHW data."""


@_compute
def bitwise_and(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.bitwise_and``: a & b (logical and on ``i1``)."""


@_compute
def bitwise_or(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.bitwise_or``: a | b (logical or on ``i1``)."""


@_compute
def bitwise_xor(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.bitwise_xor``: a ^ b (logical exclusive or on ``i1``)."""


@_compute
def broadcast_to(x: Any, shape: Any) -> ComputeResult:
    """``relax.broadcast_to``: x repeated along its size-1 (or missing leading) axes to
    the shape of the ``shape`` operand (numpy.broadcast_to), for any element type.
    """


@_compute
def ceil(x: Any) -> ComputeResult:
    """``relax.ceil``: x rounded toward +inf."""


@_compute
def concat(tensors: Any, *, axis: Any = None) -> ComputeResult:
    """``relax.concat``: the tensors joined along ``axis`` (absent: 0)."""


@_compute
def conv1d(
    x: Any,
    weight: Any,
    *,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    groups: Any = None,
    data_layout: Any = None,
    kernel_layout: Any = None,
) -> ComputeResult:
    """``relax.conv1d``: a 1-D convolution, data NCW, weights OIW."""


@_compute
def conv2d(
    x: Any,
    weight: Any,
    *,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    groups: Any = None,
    data_layout: Any = None,
    kernel_layout: Any = None,
) -> ComputeResult:
    """``relax.conv2d``: a 2-D convolution, data NCHW, weights OIHW."""


@_compute
def conv3d(
    x: Any,
    weight: Any,
    *,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    groups: Any = None,
    data_layout: Any = None,
    kernel_layout: Any = None,
) -> ComputeResult:
    """``relax.conv3d``: a 3-D convolution, data NCDHW, weights OIDHW."""


@_compute
def conv_transpose1d(
    x: Any,
    weight: Any,
    *,
    strides: Any = None,
    padding: Any = None,
    output_padding: Any = None,
    dilation: Any = None,
    groups: Any = None,
) -> ComputeResult:
    """``relax.conv_transpose1d``: a 1-D transposed convolution, data NCW, weights IOW."""


@_compute
def conv_transpose2d(
    x: Any,
    weight: Any,
    *,
    strides: Any = None,
    padding: Any = None,
    output_padding: Any = None,
    dilation: Any = None,
    groups: Any = None,
) -> ComputeResult:
    """``relax.conv_transpose2d``: a 2-D transposed convolution, data NCHW, weights IOHW."""


@_compute
def conv_transpose3d(
    x: Any,
    weight: Any,
    *,
    strides: Any = None,
    padding: Any = None,
    output_padding: Any = None,
    dilation: Any = None,
    groups: Any = None,
) -> ComputeResult:
    """``relax.conv_transpose3d``: a 3-D transposed convolution, data NCDHW, weights
    IODHW.
    """


@_compute
def cos(x: Any) -> ComputeResult:
    """``relax.cos``: the cosine of x (radians)."""


@_compute
def cosh(x: Any) -> ComputeResult:
    """``relax.cosh``: the hyperbolic cosine of x."""


@_compute
def cumprod(x: Any, *, axis: Any = None, dtype: Any = None, exclusive: Any = None) -> ComputeResult:
    """``relax.cumprod``: the running products of x (see :class:`ScanOp`)."""


@_compute
def cumsum(x: Any, *, axis: Any = None, dtype: Any = None, exclusive: Any = None) -> ComputeResult:
    """``relax.cumsum``: the running sums of x (see :class:`ScanOp`)."""


@_compute
def divide(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.divide``: a / b; integer division truncates toward zero (TIR's Div)."""


@_compute
def equal(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.equal``: a == b."""


@_compute
def erf(x: Any) -> ComputeResult:
    """``relax.erf``: the error function of x."""


@_compute
def exp(x: Any) -> ComputeResult:
    """``relax.exp``: e to the power of x."""


@_compute
def exp2(x: Any) -> ComputeResult:
    """``relax.exp2``: 2 to the power of x."""


@_compute
def expand_dims(x: Any, *, axis: Any = None) -> ComputeResult:
    """``relax.expand_dims``: x with size-1 axes inserted at the positions ``axis`` gives
    (positions in the result).
    """


@_compute
def expm1(x: Any) -> ComputeResult:
    """``relax.expm1``: exp(x) - 1, accurate for small x."""


@_compute
def flatten(x: Any) -> ComputeResult:
    """``relax.flatten``: x as a one-dimensional tensor (a 0-d tensor gives one element)."""


@_compute
def floor(x: Any) -> ComputeResult:
    """``relax.floor``: x rounded toward -inf."""


@_compute
def fmod(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.fmod``: the remainder of a / b truncated toward zero, with the sign of a
    (C's ``fmod``, numpy.fmod, torch.fmod), exact; an integer divisor of 0 gives 0.
    """


@_compute
def full(shape: Any, fill: Any, *, dtype: Any = None) -> ComputeResult:
    """``relax.full``: a tensor of the given shape with every element ``fill``, a 0-d
    tensor or a prim value (a symbolic integer), of ``dtype`` (absent: the element type
    of ``fill``).
    """


@_compute
def gather_elements(
    x: Any,
    indices: Any,
    *,
    axis: Any = None,
    negative_indices: Any = None,
) -> ComputeResult:
    """``relax.gather_elements``: ``out[i] = x[i with i[axis] replaced by indices[i]]``
    (axis absent: 0); indices has the rank of x and is no larger along the other axes;
    the result has the shape of indices.
    """


@_compute
def gather_nd(
    x: Any,
    indices: Any,
    *,
    batch_dims: Any = None,
    negative_indices: Any = None,
) -> ComputeResult:
    """``relax.gather_nd``: indices ``[..., k]`` pick slices of x: after the leading
    ``batch_dims`` axes (absent: 0), which x and indices share, the last axis of indices
    gives the positions along the next k axes of x. The result has the shape
    ``indices.shape[:-1] + x.shape[batch_dims + k:]`` (ONNX GatherND).
    """


@_compute
def gelu(x: Any) -> ComputeResult:
    """``relax.gelu``: x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))) (the exact, erf form)."""


@_compute
def greater(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.greater``: a > b."""


@_compute
def greater_equal(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.greater_equal``: a >= b."""


@_compute
def grid_sample(
    x: Any,
    grid: Any,
    *,
    mode: Any = None,
    padding_mode: Any = None,
    align_corners: Any = None,
) -> ComputeResult:
    """``%r = relax.grid_sample %x, %grid {mode, padding_mode, align_corners}``: x (N, C,
    *spatial, floats) sampled at the normalized coordinates of grid (N, *out, D; the
    last axis in reversed spatial order: x, y, z) as ONNX GridSample does: ``mode``
    nearest (halves to even), linear or cubic (absent: linear); ``padding_mode`` zeros,
    border or reflection (absent: zeros); ``align_corners`` (absent: false) maps -1 and
    1 to the centres of the corner elements instead of their outer edges. Coordinates,
    weights and the weighted sum are computed in f32 (f64 for f64 x) and rounded once.
    """


@_compute
def isnan(x: Any) -> ComputeResult:
    """``relax.isnan``: whether x is NaN (an ``i1`` tensor of the shape of x)."""


@_compute
def layer_norm(
    x: Any,
    gamma: Any,
    beta: Any,
    *,
    axes: Any = None,
    epsilon: Any = None,
) -> ComputeResult:
    """``relax.layer_norm``: (x - mean) / sqrt(var + epsilon) * gamma + beta, the moments
    taken over ``axes``; gamma and beta have the sizes of x along ``axes``, in that order
    (``epsilon`` absent: 1e-5); f16 and bf16 are computed in f32.
    """


@_compute
def less(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.less``: a < b."""


@_compute
def less_equal(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.less_equal``: a <= b."""


@_compute
def log(x: Any) -> ComputeResult:
    """``relax.log``: the natural logarithm of x."""


@_compute
def log10(x: Any) -> ComputeResult:
    """``relax.log10``: the logarithm of x to base 10."""


@_compute
def log1p(x: Any) -> ComputeResult:
    """``relax.log1p``: log(1 + x), accurate for small x."""


@_compute
def log2(x: Any) -> ComputeResult:
    """``relax.log2``: the logarithm of x to base 2."""


@_compute
def log_softmax(x: Any, *, axis: Any = None) -> ComputeResult:
    """``relax.log_softmax``: x - log(sum(exp(x))) along ``axis``."""


@_compute
def matmul(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.matmul``: numpy's matmul (batched, broadcasting leading dims, 1-D operands
    promoted to a matrix and the added dimension dropped); f16 and bf16 accumulate in
    f32.
    """


@_compute
def max(x: Any, *, axis: Any = None, keepdims: Any = None) -> ComputeResult:
    """``relax.max``: the largest element."""


@_compute
def max_pool1d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> ComputeResult:
    """``relax.max_pool1d``: 1-D max pooling of NCW data."""


@_compute
def max_pool2d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> ComputeResult:
    """``relax.max_pool2d``: 2-D max pooling of NCHW data."""


@_compute
def max_pool3d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> ComputeResult:
    """``relax.max_pool3d``: 3-D max pooling of NCDHW data."""


@_compute
def maximum(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.maximum``: the larger of a and b."""


@_compute
def mean(x: Any, *, axis: Any = None, keepdims: Any = None) -> ComputeResult:
    """``relax.mean``: the mean of the elements, in the element type of x (f16 and bf16
    accumulate in f32; integers: exact, truncated toward zero, and at least one).
    """


@_compute
def min(x: Any, *, axis: Any = None, keepdims: Any = None) -> ComputeResult:
    """``relax.min``: the smallest element."""


@_compute
def minimum(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.minimum``: the smaller of a and b."""


@_compute
def multiply(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.multiply``: a * b."""


@_compute
def negative(x: Any) -> ComputeResult:
    """``relax.negative``: -x."""


@_compute
def not_equal(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.not_equal``: a != b."""


@_compute
def ones(shape: Any, *, dtype: Any = None) -> ComputeResult:
    """``relax.ones``: a tensor of ones."""


@_compute
def pad(x: Any, fill: Any, *, pad_width: Any = None) -> ComputeResult:
    """``relax.pad``: x surrounded along each axis by ``pad_width`` (before and after
    counts, one pair per axis) elements of the 0-d ``fill`` (numpy.pad, constant mode).
    """


@_compute
def permute_dims(x: Any, *, axes: Any = None) -> ComputeResult:
    """``relax.permute_dims``: x with its axes reordered (``axes`` absent: reversed)."""


@_compute
def power(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.power``: a to the power of b; an integer power with a negative exponent
    truncates ``1 / a ** -b`` (1, ±1 for a = -1, else 0), as C and torch do (numpy
    refuses it).
    """


@_compute
def prod(x: Any, *, axis: Any = None, keepdims: Any = None) -> ComputeResult:
    """``relax.prod``: the product of the elements, in the element type of x (f16 and
    bf16 accumulate in f32; integers wrap); of no elements, 1.
    """


@_compute
def relu(x: Any) -> ComputeResult:
    """``relax.relu``: max(x, 0)."""


@_compute
def reshape(x: Any, shape: Any) -> ComputeResult:
    """``relax.reshape``: x with the shape of the ``shape`` operand; one -1 entry is inferred."""


@_compute
def resize(
    x: Any,
    shape: Any,
    parameters: Any,
    *,
    mode: Any = None,
    axes: Any = None,
    coordinate_transformation_mode: Any = None,
    nearest_mode: Any = None,
    cubic_coeff_a: Any = None,
    exclude_outside: Any = None,
    extrapolation_value: Any = None,
) -> ComputeResult:
    """``%r = relax.resize %x, %shape[, %scales[, %roi]] {mode, axes, ...}``: x resampled
    to ``shape`` along ``axes`` (absent: all; the others keep their size) as ONNX Resize
    does. ``mode``: nearest, linear or cubic (linear and cubic of floats, computed in
    f64); ``scales`` (a float per resampled axis) is what coordinates are divided by
    (absent: output / input size); ``roi`` (floats, the starts then the ends per
    resampled axis) is tf_crop_and_resize's region, given exactly for it. Absent:
    coordinate_transformation_mode half_pixel, nearest_mode round_prefer_floor,
    cubic_coeff_a -0.75, exclude_outside false, extrapolation_value 0.
    """


@_compute
def round(x: Any) -> ComputeResult:
    """``relax.round``: x rounded to the nearest integer, halves to even (numpy, ONNX
    ``Round``, torch).
    """


@_compute
def rsqrt(x: Any) -> ComputeResult:
    """``relax.rsqrt``: 1 / sqrt(x)."""


@_compute
def scatter_elements(
    x: Any,
    indices: Any,
    updates: Any,
    *,
    axis: Any = None,
    reduction: Any = None,
) -> ComputeResult:
    """``relax.scatter_elements``: x with ``x[i with i[axis] = indices[i]]`` set to (or
    combined by ``reduction`` with) ``updates[i]`` for every position ``i`` of
    ``indices`` (axis absent: 0; reduction absent: "none").
    """


@_compute
def sigmoid(x: Any) -> ComputeResult:
    """``relax.sigmoid``: 1 / (1 + exp(-x))."""


@_compute
def silu(x: Any) -> ComputeResult:
    """``relax.silu``: x * sigmoid(x)."""


@_compute
def sin(x: Any) -> ComputeResult:
    """``relax.sin``: the sine of x (radians)."""


@_compute
def sinh(x: Any) -> ComputeResult:
    """``relax.sinh``: the hyperbolic sine of x."""


@_compute
def slice_scatter(
    x: Any,
    src: Any,
    *,
    axis: Any = None,
    begin: Any = None,
    end: Any = None,
    step: Any = None,
) -> ComputeResult:
    """``relax.slice_scatter``: x with the slice ``x[begin:end:step]`` along ``axis``
    replaced by ``src`` (torch.slice_scatter; ``begin`` absent: 0, ``end`` absent: the
    size, ``step`` absent: 1; the bounds as in numpy slicing).
    """


@_compute
def softmax(x: Any, *, axis: Any = None) -> ComputeResult:
    """``relax.softmax``: exp(x) / sum(exp(x)) along ``axis``."""


@_compute
def split(x: Any, *, indices_or_sections: Any = None, axis: Any = None) -> ComputeResult:
    """``relax.split``: x cut along ``axis`` (absent: 0) into a tuple of tensors, either
    ``indices_or_sections`` equal sections (numpy.split: the size must divide) or at the
    given indices (numpy slicing semantics).
    """


@_compute
def sqrt(x: Any) -> ComputeResult:
    """``relax.sqrt``: the square root of x."""


@_compute
def squeeze(x: Any, *, axis: Any = None) -> ComputeResult:
    """``relax.squeeze``: x without the size-1 axes ``axis`` gives (absent: all of them;
    then a symbolic dimension makes the result rank unknown).
    """


@_compute
def strided_slice(
    x: Any,
    bounds: Any,
    *,
    axes: Any = None,
    begin: Any = None,
    end: Any = None,
    strides: Any = None,
) -> ComputeResult:
    """``relax.strided_slice``: ``x[begin:end:stride]`` along each of ``axes`` (numpy slicing:
    negative indices count from the end, out-of-range indices are clamped; ``strides``
    absent: 1). The bounds are the ``begin`` and ``end`` properties, or prim operands
    after x (the begins, then the ends; positive strides): ``x[:, :n]`` keeps the
    symbolic length ``min(n, dim)``; a symbolic bound must not be negative.
    """


@_compute
def subtract(lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.subtract``: a - b."""


@_compute
def sum(x: Any, *, axis: Any = None, keepdims: Any = None) -> ComputeResult:
    """``relax.sum``: the sum of the elements, in the element type of x (f16 and bf16
    accumulate in f32).
    """


@_compute
def take(x: Any, indices: Any, *, axis: Any = None, negative_indices: Any = None) -> ComputeResult:
    """``relax.take``: the entries of x at ``indices`` along ``axis`` (absent: of the
    flattened x), as numpy.take.
    """


@_compute
def tan(x: Any) -> ComputeResult:
    """``relax.tan``: the tangent of x (radians)."""


@_compute
def tanh(x: Any) -> ComputeResult:
    """``relax.tanh``: the hyperbolic tangent of x."""


@_compute
def tril(x: Any, *, k: Any = None) -> ComputeResult:
    """``relax.tril``: the lower triangle, on and below diagonal k (numpy.tril)."""


@_compute
def triu(x: Any, *, k: Any = None) -> ComputeResult:
    """``relax.triu``: the upper triangle, on and above diagonal k (numpy.triu)."""


@_compute
def where(cond: Any, lhs: Any, rhs: Any) -> ComputeResult:
    """``relax.where``: a where cond is true, else b (three-way numpy broadcasting)."""


@_compute
def zeros(shape: Any, *, dtype: Any = None) -> ComputeResult:
    """``relax.zeros``: a tensor of zeros."""
