"""Python functions for the relax operators: ``from xrelax import op``.

Every operator class listed in :mod:`xrelax.ops` has a function named after it
(``relax.matmul`` -> ``op.matmul``), generated from its IRDL definition (so are
``relax.shape_of`` and ``relax.tuple``, whose result types are deduced too)::

    y = bb.emit(op.matmul(x, w))
    s = bb.emit(op.sum(y, axis=[1], keepdims=True))
    r = bb.emit(op.reshape(x, [n, 4]))          # a list of dims becomes a relax.shape

A function returns the operation with its result type deduced, **not yet inserted**
(as TVM's ``relax.op.*`` return a Call): :meth:`BlockBuilder.emit` inserts it, after
the not-yet-inserted operations its operands come from, so calls nest
(``bb.emit(op.add(op.exp(x), y))``); a rewrite pattern hands it to
``rewriter.replace``.

Operands are given positionally or by their names (``lhs``, ``rhs``, ``x``, ...):
relax values, not-yet-inserted operations, a list of dims for a shape operand
(ints, variable names, sympy expressions), an int, a variable name or a sympy
expression for a prim operand (a ``relax.prim_value``: ``op.arange(0, n, 2)``,
``op.full([n, 3], 7)``), a numpy array for a tensor operand (a ``relax.const``),
and a list of values for a variadic operand (``op.concat([a, b],
axis=0)``). Attributes are keywords, converted to the kind the operator declares:
ints (``axis=1``), lists of ints (``axes=[1, 0]``; an int where a list is declared
is a list of one), bools, floats, element types as names (``dtype="f16"``) or numpy
dtypes, or MLIR attributes as they are; ``None`` leaves an attribute out.

A call that does not fit the operator is a ``TypeError``; a deduction error (shapes
that cannot broadcast, ...) is a :class:`~xrelax.dialects.relax.RelaxError` naming
the operator.

Written by ``python -m xrelax.tools.gen_api``: each ``def`` below declares an
operator's signature and docstring, and ``@_function`` puts the operator's function in
its place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.ir import Operation

from xrelax.ops.library import operator_functions

FUNCTIONS: dict[str, Callable[..., Operation]] = operator_functions()
"""The function of each operator (and of ``shape_of``, ``tuple``), by its name
without ``relax.``."""

__all__ = ["FUNCTIONS", *FUNCTIONS]


def _function(declaration: Callable[..., Operation]) -> Callable[..., Operation]:
    """The operator's function, in place of the ``def`` that declares it."""
    return FUNCTIONS[declaration.__name__]


@_function
def abs(x: Any) -> Operation:
    """``relax.abs``: |x|."""


@_function
def acos(x: Any) -> Operation:
    """``relax.acos``: the arccosine of x (NaN outside [-1, 1])."""


@_function
def acosh(x: Any) -> Operation:
    """``relax.acosh``: the inverse hyperbolic cosine of x (NaN below 1)."""


@_function
def add(lhs: Any, rhs: Any) -> Operation:
    """``relax.add``: a + b."""


@_function
def arange(start: Any, end: Any, step: Any, *, dtype: Any = None) -> Operation:
    """``relax.arange``: start, start + step, ... up to (excluding) end (``dtype`` absent:
    i64). With ``!relax.prim`` operands of known values the length is symbolic
    (``[n]`` for 0, n, 1); with 0-d i64 tensors it depends on their values (the safety
    net).
    """


@_function
def argmax(
    x: Any,
    *,
    axis: Any = None,
    keepdims: Any = None,
    select_last_index: Any = None,
) -> Operation:
    """``relax.argmax``: the position of the largest element (see :class:`ArgReduceOp`)."""


@_function
def argmin(
    x: Any,
    *,
    axis: Any = None,
    keepdims: Any = None,
    select_last_index: Any = None,
) -> Operation:
    """``relax.argmin``: the position of the smallest element (see :class:`ArgReduceOp`)."""


@_function
def argsort(x: Any, *, axis: Any = None, descending: Any = None) -> Operation:
    """``relax.argsort``: the positions of the elements of x along ``axis`` (absent: -1)
    in stable ascending order (``descending``: descending), as i64.
    """


@_function
def asin(x: Any) -> Operation:
    """``relax.asin``: the arcsine of x (NaN outside [-1, 1])."""


@_function
def asinh(x: Any) -> Operation:
    """``relax.asinh``: the inverse hyperbolic sine of x."""


@_function
def astype(x: Any, *, dtype: Any = None) -> Operation:
    """``relax.astype``: x converted to the element type ``dtype``."""


@_function
def atan(x: Any) -> Operation:
    """``relax.atan``: the arctangent of x."""


@_function
def atanh(x: Any) -> Operation:
    """``relax.atanh``: the inverse hyperbolic tangent of x (NaN outside [-1, 1])."""


@_function
def avg_pool1d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> Operation:
    """``relax.avg_pool1d``: 1-D average pooling of NCW data."""


@_function
def avg_pool2d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> Operation:
    """``relax.avg_pool2d``: 2-D average pooling of NCHW data."""


@_function
def avg_pool3d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> Operation:
    """``relax.avg_pool3d``: 3-D average pooling of NCDHW data."""


@_function
def bitwise_and(lhs: Any, rhs: Any) -> Operation:
    """``relax.bitwise_and``: a & b (logical and on ``i1``)."""


@_function
def bitwise_or(lhs: Any, rhs: Any) -> Operation:
    """``relax.bitwise_or``: a | b (logical or on ``i1``)."""


@_function
def bitwise_xor(lhs: Any, rhs: Any) -> Operation:
    """``relax.bitwise_xor``: a ^ b (logical exclusive or on ``i1``)."""


@_function
def broadcast_to(x: Any, shape: Any) -> Operation:
    """``relax.broadcast_to``: x repeated along its size-1 (or missing leading) axes to
    the shape of the ``shape`` operand (numpy.broadcast_to), for any element type.
    """


@_function
def ceil(x: Any) -> Operation:
    """``relax.ceil``: x rounded toward +inf."""


@_function
def concat(tensors: Any, *, axis: Any = None) -> Operation:
    """``relax.concat``: the tensors joined along ``axis`` (absent: 0)."""


@_function
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
) -> Operation:
    """``relax.conv1d``: a 1-D convolution, data NCW, weights OIW."""


@_function
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
) -> Operation:
    """``relax.conv2d``: a 2-D convolution, data NCHW, weights OIHW."""


@_function
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
) -> Operation:
    """``relax.conv3d``: a 3-D convolution, data NCDHW, weights OIDHW."""


@_function
def conv_transpose1d(
    x: Any,
    weight: Any,
    *,
    strides: Any = None,
    padding: Any = None,
    output_padding: Any = None,
    dilation: Any = None,
    groups: Any = None,
) -> Operation:
    """``relax.conv_transpose1d``: a 1-D transposed convolution, data NCW, weights IOW."""


@_function
def conv_transpose2d(
    x: Any,
    weight: Any,
    *,
    strides: Any = None,
    padding: Any = None,
    output_padding: Any = None,
    dilation: Any = None,
    groups: Any = None,
) -> Operation:
    """``relax.conv_transpose2d``: a 2-D transposed convolution, data NCHW, weights IOHW."""


@_function
def conv_transpose3d(
    x: Any,
    weight: Any,
    *,
    strides: Any = None,
    padding: Any = None,
    output_padding: Any = None,
    dilation: Any = None,
    groups: Any = None,
) -> Operation:
    """``relax.conv_transpose3d``: a 3-D transposed convolution, data NCDHW, weights
    IODHW.
    """


@_function
def cos(x: Any) -> Operation:
    """``relax.cos``: the cosine of x (radians)."""


@_function
def cosh(x: Any) -> Operation:
    """``relax.cosh``: the hyperbolic cosine of x."""


@_function
def cumprod(x: Any, *, axis: Any = None, dtype: Any = None, exclusive: Any = None) -> Operation:
    """``relax.cumprod``: the running products of x (see :class:`ScanOp`)."""


@_function
def cumsum(x: Any, *, axis: Any = None, dtype: Any = None, exclusive: Any = None) -> Operation:
    """``relax.cumsum``: the running sums of x (see :class:`ScanOp`)."""


@_function
def divide(lhs: Any, rhs: Any) -> Operation:
    """``relax.divide``: a / b; integer division truncates toward zero (TIR's Div)."""


@_function
def equal(lhs: Any, rhs: Any) -> Operation:
    """``relax.equal``: a == b."""


@_function
def erf(x: Any) -> Operation:
    """``relax.erf``: the error function of x."""


@_function
def exp(x: Any) -> Operation:
    """``relax.exp``: e to the power of x."""


@_function
def exp2(x: Any) -> Operation:
    """``relax.exp2``: 2 to the power of x."""


@_function
def expand_dims(x: Any, *, axis: Any = None) -> Operation:
    """``relax.expand_dims``: x with size-1 axes inserted at the positions ``axis`` gives
    (positions in the result).
    """


@_function
def expm1(x: Any) -> Operation:
    """``relax.expm1``: exp(x) - 1, accurate for small x."""


@_function
def flatten(x: Any) -> Operation:
    """``relax.flatten``: x as a one-dimensional tensor (a 0-d tensor gives one element)."""


@_function
def floor(x: Any) -> Operation:
    """``relax.floor``: x rounded toward -inf."""


@_function
def fmod(lhs: Any, rhs: Any) -> Operation:
    """``relax.fmod``: the remainder of a / b truncated toward zero, with the sign of a
    (C's ``fmod``, numpy.fmod, torch.fmod), exact; an integer divisor of 0 gives 0.
    """


@_function
def full(shape: Any, fill: Any, *, dtype: Any = None) -> Operation:
    """``relax.full``: a tensor of the given shape with every element ``fill``, a 0-d
    tensor or a prim value (a symbolic integer), of ``dtype`` (absent: the element type
    of ``fill``).
    """


@_function
def gather_elements(
    x: Any,
    indices: Any,
    *,
    axis: Any = None,
    negative_indices: Any = None,
) -> Operation:
    """``relax.gather_elements``: ``out[i] = x[i with i[axis] replaced by indices[i]]``
    (axis absent: 0); indices has the rank of x and is no larger along the other axes;
    the result has the shape of indices.
    """


@_function
def gather_nd(
    x: Any,
    indices: Any,
    *,
    batch_dims: Any = None,
    negative_indices: Any = None,
) -> Operation:
    """``relax.gather_nd``: indices ``[..., k]`` pick slices of x: after the leading
    ``batch_dims`` axes (absent: 0), which x and indices share, the last axis of indices
    gives the positions along the next k axes of x. The result has the shape
    ``indices.shape[:-1] + x.shape[batch_dims + k:]`` (ONNX GatherND).
    """


@_function
def gelu(x: Any) -> Operation:
    """``relax.gelu``: x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))) (the exact, erf form)."""


@_function
def greater(lhs: Any, rhs: Any) -> Operation:
    """``relax.greater``: a > b."""


@_function
def greater_equal(lhs: Any, rhs: Any) -> Operation:
    """``relax.greater_equal``: a >= b."""


@_function
def grid_sample(
    x: Any,
    grid: Any,
    *,
    mode: Any = None,
    padding_mode: Any = None,
    align_corners: Any = None,
) -> Operation:
    """``%r = relax.grid_sample %x, %grid {mode, padding_mode, align_corners}``: x (N, C,
    *spatial, floats) sampled at the normalized coordinates of grid (N, *out, D; the
    last axis in reversed spatial order: x, y, z) as ONNX GridSample does: ``mode``
    nearest (halves to even), linear or cubic (absent: linear); ``padding_mode`` zeros,
    border or reflection (absent: zeros); ``align_corners`` (absent: false) maps -1 and
    1 to the centres of the corner elements instead of their outer edges. Coordinates,
    weights and the weighted sum are computed in f32 (f64 for f64 x) and rounded once.
    """


@_function
def isnan(x: Any) -> Operation:
    """``relax.isnan``: whether x is NaN (an ``i1`` tensor of the shape of x)."""


@_function
def layer_norm(
    x: Any,
    gamma: Any,
    beta: Any,
    *,
    axes: Any = None,
    epsilon: Any = None,
) -> Operation:
    """``relax.layer_norm``: (x - mean) / sqrt(var + epsilon) * gamma + beta, the moments
    taken over ``axes``; gamma and beta have the sizes of x along ``axes``, in that order
    (``epsilon`` absent: 1e-5); f16 and bf16 are computed in f32.
    """


@_function
def less(lhs: Any, rhs: Any) -> Operation:
    """``relax.less``: a < b."""


@_function
def less_equal(lhs: Any, rhs: Any) -> Operation:
    """``relax.less_equal``: a <= b."""


@_function
def log(x: Any) -> Operation:
    """``relax.log``: the natural logarithm of x."""


@_function
def log10(x: Any) -> Operation:
    """``relax.log10``: the logarithm of x to base 10."""


@_function
def log1p(x: Any) -> Operation:
    """``relax.log1p``: log(1 + x), accurate for small x."""


@_function
def log2(x: Any) -> Operation:
    """``relax.log2``: the logarithm of x to base 2."""


@_function
def log_softmax(x: Any, *, axis: Any = None) -> Operation:
    """``relax.log_softmax``: x - log(sum(exp(x))) along ``axis``."""


@_function
def matmul(lhs: Any, rhs: Any) -> Operation:
    """``relax.matmul``: numpy's matmul (batched, broadcasting leading dims, 1-D operands
    promoted to a matrix and the added dimension dropped); f16 and bf16 accumulate in
    f32.
    """


@_function
def max(x: Any, *, axis: Any = None, keepdims: Any = None) -> Operation:
    """``relax.max``: the largest element."""


@_function
def max_pool1d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> Operation:
    """``relax.max_pool1d``: 1-D max pooling of NCW data."""


@_function
def max_pool2d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> Operation:
    """``relax.max_pool2d``: 2-D max pooling of NCHW data."""


@_function
def max_pool3d(
    x: Any,
    *,
    pool_size: Any = None,
    strides: Any = None,
    padding: Any = None,
    dilation: Any = None,
    layout: Any = None,
) -> Operation:
    """``relax.max_pool3d``: 3-D max pooling of NCDHW data."""


@_function
def maximum(lhs: Any, rhs: Any) -> Operation:
    """``relax.maximum``: the larger of a and b."""


@_function
def mean(x: Any, *, axis: Any = None, keepdims: Any = None) -> Operation:
    """``relax.mean``: the mean of the elements, in the element type of x (f16 and bf16
    accumulate in f32; integers: exact, truncated toward zero, and at least one).
    """


@_function
def min(x: Any, *, axis: Any = None, keepdims: Any = None) -> Operation:
    """``relax.min``: the smallest element."""


@_function
def minimum(lhs: Any, rhs: Any) -> Operation:
    """``relax.minimum``: the smaller of a and b."""


@_function
def multiply(lhs: Any, rhs: Any) -> Operation:
    """``relax.multiply``: a * b."""


@_function
def negative(x: Any) -> Operation:
    """``relax.negative``: -x."""


@_function
def non_max_suppression(
    boxes: Any,
    scores: Any,
    max_output: Any,
    iou_threshold: Any,
    score_threshold: Any,
    *,
    center_point_box: Any = None,
) -> Operation:
    """``relax.non_max_suppression``: ONNX's NonMaxSuppression. For each batch and class,
    boxes by descending score (equal scores by position) whose score is above
    ``score_threshold`` (-inf: every box), each kept unless its intersection over union
    with a kept one is above ``iou_threshold``, at most ``max_output`` of them; the rows
    ``[batch, class, box]`` (i64). Boxes are ``[y1, x1, y2, x2]`` corners
    (``center_point_box``: ``[x, y, width, height]``).
    """


@_function
def nonzero(x: Any) -> Operation:
    """``relax.nonzero``: the i64 positions of the non-zero elements of x, one column per
    element in row-major order and one row per axis (numpy.nonzero stacked).
    """


@_function
def not_equal(lhs: Any, rhs: Any) -> Operation:
    """``relax.not_equal``: a != b."""


@_function
def ones(shape: Any, *, dtype: Any = None) -> Operation:
    """``relax.ones``: a tensor of ones."""


@_function
def pad(x: Any, fill: Any, *, pad_width: Any = None) -> Operation:
    """``relax.pad``: x surrounded along each axis by ``pad_width`` (before and after
    counts, one pair per axis) elements of the 0-d ``fill`` (numpy.pad, constant mode).
    """


@_function
def permute_dims(x: Any, *, axes: Any = None) -> Operation:
    """``relax.permute_dims``: x with its axes reordered (``axes`` absent: reversed)."""


@_function
def power(lhs: Any, rhs: Any) -> Operation:
    """``relax.power``: a to the power of b; an integer power with a negative exponent
    truncates ``1 / a ** -b`` (1, ±1 for a = -1, else 0), as C and torch do (numpy
    refuses it).
    """


@_function
def prod(x: Any, *, axis: Any = None, keepdims: Any = None) -> Operation:
    """``relax.prod``: the product of the elements, in the element type of x (f16 and
    bf16 accumulate in f32; integers wrap); of no elements, 1.
    """


@_function
def relu(x: Any) -> Operation:
    """``relax.relu``: max(x, 0)."""


@_function
def reshape(x: Any, shape: Any) -> Operation:
    """``relax.reshape``: x with the shape of the ``shape`` operand; one -1 entry is inferred."""


@_function
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
) -> Operation:
    """``%r = relax.resize %x, %shape[, %scales[, %roi]] {mode, axes, ...}``: x resampled
    to ``shape`` along ``axes`` (absent: all; the others keep their size) as ONNX Resize
    does. ``mode``: nearest, linear or cubic (linear and cubic of floats, computed in
    f64); ``scales`` (a float per resampled axis) is what coordinates are divided by
    (absent: output / input size); ``roi`` (floats, the starts then the ends per
    resampled axis) is tf_crop_and_resize's region, given exactly for it. Absent:
    coordinate_transformation_mode half_pixel, nearest_mode round_prefer_floor,
    cubic_coeff_a -0.75, exclude_outside false, extrapolation_value 0.
    """


@_function
def round(x: Any) -> Operation:
    """``relax.round``: x rounded to the nearest integer, halves to even (numpy, ONNX
    ``Round``, torch).
    """


@_function
def rsqrt(x: Any) -> Operation:
    """``relax.rsqrt``: 1 / sqrt(x)."""


@_function
def runtime_attrs(
    operands_: Any,
    *,
    op: Any = None,
    names: Any = None,
    attrs: Any = None,
) -> Operation:
    """``relax.runtime_attrs``: the operator ``op`` applied to the leading operands, its
    attributes ``names`` taken from the trailing integer tensors when it runs (0-d: an
    integer, 1-D: an array) and the others from ``attrs``.
    """


@_function
def scatter_elements(
    x: Any,
    indices: Any,
    updates: Any,
    *,
    axis: Any = None,
    reduction: Any = None,
) -> Operation:
    """``relax.scatter_elements``: x with ``x[i with i[axis] = indices[i]]`` set to (or
    combined by ``reduction`` with) ``updates[i]`` for every position ``i`` of
    ``indices`` (axis absent: 0; reduction absent: "none").
    """


@_function
def shape_of(value: Any) -> Operation:
    """``%s = relax.shape_of %x : (T) -> !relax.shape<[n, 4]>``: the shape of a tensor."""


@_function
def sigmoid(x: Any) -> Operation:
    """``relax.sigmoid``: 1 / (1 + exp(-x))."""


@_function
def silu(x: Any) -> Operation:
    """``relax.silu``: x * sigmoid(x)."""


@_function
def sin(x: Any) -> Operation:
    """``relax.sin``: the sine of x (radians)."""


@_function
def sinh(x: Any) -> Operation:
    """``relax.sinh``: the hyperbolic sine of x."""


@_function
def slice_scatter(
    x: Any,
    src: Any,
    *,
    axis: Any = None,
    begin: Any = None,
    end: Any = None,
    step: Any = None,
) -> Operation:
    """``relax.slice_scatter``: x with the slice ``x[begin:end:step]`` along ``axis``
    replaced by ``src`` (torch.slice_scatter; ``begin`` absent: 0, ``end`` absent: the
    size, ``step`` absent: 1; the bounds as in numpy slicing).
    """


@_function
def softmax(x: Any, *, axis: Any = None) -> Operation:
    """``relax.softmax``: exp(x) / sum(exp(x)) along ``axis``."""


@_function
def split(x: Any, *, indices_or_sections: Any = None, axis: Any = None) -> Operation:
    """``relax.split``: x cut along ``axis`` (absent: 0) into a tuple of tensors, either
    ``indices_or_sections`` equal sections (numpy.split: the size must divide) or at the
    given indices (numpy slicing semantics).
    """


@_function
def sqrt(x: Any) -> Operation:
    """``relax.sqrt``: the square root of x."""


@_function
def squeeze(x: Any, *, axis: Any = None) -> Operation:
    """``relax.squeeze``: x without the size-1 axes ``axis`` gives (absent: all of them;
    then a symbolic dimension makes the result rank unknown).
    """


@_function
def strided_slice(
    x: Any,
    bounds: Any,
    *,
    axes: Any = None,
    begin: Any = None,
    end: Any = None,
    strides: Any = None,
) -> Operation:
    """``relax.strided_slice``: ``x[begin:end:stride]`` along each of ``axes`` (numpy slicing:
    negative indices count from the end, out-of-range indices are clamped; ``strides``
    absent: 1). The bounds are the ``begin`` and ``end`` properties, or prim operands
    after x (the begins, then the ends; positive strides): ``x[:, :n]`` keeps the
    symbolic length ``min(n, dim)``; a symbolic bound must not be negative.
    """


@_function
def subtract(lhs: Any, rhs: Any) -> Operation:
    """``relax.subtract``: a - b."""


@_function
def sum(x: Any, *, axis: Any = None, keepdims: Any = None) -> Operation:
    """``relax.sum``: the sum of the elements, in the element type of x (f16 and bf16
    accumulate in f32).
    """


@_function
def take(x: Any, indices: Any, *, axis: Any = None, negative_indices: Any = None) -> Operation:
    """``relax.take``: the entries of x at ``indices`` along ``axis`` (absent: of the
    flattened x), as numpy.take.
    """


@_function
def tan(x: Any) -> Operation:
    """``relax.tan``: the tangent of x (radians)."""


@_function
def tanh(x: Any) -> Operation:
    """``relax.tanh``: the hyperbolic tangent of x."""


@_function
def tensor_to_shape(x: Any) -> Operation:
    """``relax.tensor_to_shape``: the shape value whose sizes are the entries of the 1-D
    integer tensor x (each non-negative); ``relax.match_shape`` names them.
    """


@_function
def tril(x: Any, *, k: Any = None) -> Operation:
    """``relax.tril``: the lower triangle, on and below diagonal k (numpy.tril)."""


@_function
def triu(x: Any, *, k: Any = None) -> Operation:
    """``relax.triu``: the upper triangle, on and above diagonal k (numpy.triu)."""


@_function
def tuple(elements: Any) -> Operation:
    """``%t = relax.tuple %a, %b : (T1, T2) -> !relax.tuple<T1, T2>``."""


@_function
def unique(x: Any) -> Operation:
    """``relax.unique``: the sorted distinct elements of x, as a 1-D tensor whose length
    depends on the values.
    """


@_function
def unique_all(x: Any, *, axis: Any = None, sorted: Any = None) -> Operation:
    """``relax.unique_all``: the distinct elements of x (absent ``axis``: of the flattened
    x; else the distinct slices along ``axis``), sorted (``sorted = false``: in order of
    first occurrence), with the i64 position of each one's first occurrence, the position
    of each element (slice) of x among them, and how often each occurs.
    """


@_function
def where(cond: Any, lhs: Any, rhs: Any) -> Operation:
    """``relax.where``: a where cond is true, else b (three-way numpy broadcasting)."""


@_function
def zeros(shape: Any, *, dtype: Any = None) -> Operation:
    """``relax.zeros``: a tensor of zeros."""
