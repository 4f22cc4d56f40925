"""The audit's oracle: what each operator must compute, written from numpy's and
torch's semantics independently of the operators' ``reference`` kernels.

The rules the operators document and the oracle follows:

* Integer arithmetic wraps (numpy); integer sums, products and convolutions
  accumulate in int64 and cast back. Integer division truncates toward zero; an
  integer divisor of 0 gives 0 (numpy's convention, as integer ``fmod`` by 0). A
  negative integer exponent truncates ``1 / a ** -b`` (C, torch's tensor power).
* An integer ``mean`` (and ``avg_pool2d``) is exact, truncated toward zero; the mean
  of no integers is refused, of no floats NaN.
* Floating-point reductions accumulate in float32 for f16 (and in their own type
  otherwise) and round once; a sum that overflows the accumulator is infinite. Float
  maps of f16 are computed in f32 and rounded once; f32 ``gelu`` may be off by an ulp
  of ``0.5 * x`` (the erf form in f32, as torch).
* ``fmod`` is C's fmod (exact for floats).
* A negative index counts from the end of its axis (``negative_indices = false``:
  it is refused); any other index outside the axis is refused.
* Everything an operator requires of its operands' sizes (a window that fits, a
  non-empty max, a reshape that keeps the element count, a pooling window that holds
  an element of the input, ...) is refused when it does not hold; so is a ``cumsum``
  in i1.

An oracle returns :class:`Expected` (the value and how far a float result may be from
it) or raises :class:`Refused`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from programs import Case, Prim, Shape

FLOAT_TYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
INT_TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
NUMPY_TYPES = {**FLOAT_TYPES, **INT_TYPES, "i1": np.bool_}


class Refused(Exception):
    """The operands break the operator's contract: every path must refuse them."""


@dataclass
class Expected:
    """The oracle's result. A float result may differ from ``value`` by ``ulps`` units
    in the last place plus ``bound`` (absolute, per element: the accumulation error);
    everything else is exact, down to the sign of a zero unless ``zero_sign`` is off."""

    value: Any
    ulps: float = 0.0
    bound: Any = 0.0
    zero_sign: bool = True
    """Whether an exact zero's sign is checked (IEEE leaves it open for the maximum or
    minimum of two zeros)."""


Oracle = Callable[[list[Any], dict[str, Any]], Expected]
ORACLES: dict[str, Oracle] = {}


def oracle(*names: str) -> Callable[[Oracle], Oracle]:
    """Register the oracle of the operators ``names``."""

    def register(function: Oracle) -> Oracle:
        for name in names:
            ORACLES[name] = function
        return function

    return register


def expected(case: Case) -> Expected:
    """The oracle's result for ``case``, or :class:`Refused`."""
    args = [
        a.dims if isinstance(a, Shape) else a.value if isinstance(a, Prim) else a for a in case.args
    ]
    with np.errstate(all="ignore"):
        return ORACLES[case.op](args, dict(case.props))


# ----------------------------------------------------------------------------- helpers


def is_float(x: np.ndarray) -> bool:
    """Whether ``x`` holds floats."""
    return x.dtype.kind == "f"


def accumulator(dtype: np.dtype) -> np.dtype:
    """The type a float reduction of ``dtype`` accumulates in."""
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


def eps(dtype: np.dtype) -> float:
    """The machine epsilon of a float type."""
    return float(np.finfo(dtype).eps)


def finite_abs(x: Any) -> Any:
    """``|x|`` in float64, with infinities and NaN as 0."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(np.isfinite(x), np.abs(x), 0.0)


def accumulation_bound(terms: int, dtype: np.dtype, magnitude: Any) -> Any:
    """How far a float sum of ``terms`` terms whose finite ones add up to ``magnitude``
    in absolute value may be from the exact sum, accumulated in ``dtype``'s accumulator:
    a rounding per term; unbounded (inf: any value, infinities and NaN included) where
    ``magnitude`` exceeds the accumulator's range, so that a partial sum (or a product
    that a fused multiply-add keeps exact) overflows in one order and not another."""
    acc = accumulator(dtype)
    magnitude = np.asarray(magnitude, dtype=np.float64)
    return np.where(magnitude > float(np.finfo(acc).max), np.inf, terms * eps(acc) * magnitude)


def rounded(value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` (exact or float64) rounded once to ``dtype``."""
    return np.asarray(value).astype(dtype)


def wrapped(values: Any, dtype: np.dtype) -> np.ndarray:
    """Python integers wrapped into an integer ``dtype``."""
    bits = np.iinfo(dtype).bits
    flat = [((int(v) + 2 ** (bits - 1)) % 2**bits) - 2 ** (bits - 1) for v in np.ravel(values)]
    return np.array(flat, dtype=dtype).reshape(np.shape(values))


def exact_ints(x: np.ndarray) -> np.ndarray:
    """An integer array as Python integers (no overflow)."""
    return x.astype(object)


def axis_index(axis: int, ndim: int) -> int:
    """``axis`` of a rank-``ndim`` tensor in ``[0, ndim)`` (negative: from the end), or
    :class:`Refused`."""
    if not -ndim <= axis < ndim:
        raise Refused(f"axis {axis} out of range for rank {ndim}")
    return axis % ndim


def distinct_axes(axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    """:func:`axis_index` of each axis; a repeated axis is refused."""
    normalised = tuple(axis_index(a, ndim) for a in axes)
    if len(set(normalised)) != len(normalised):
        raise Refused(f"axes {list(axes)} repeat an axis")
    return normalised


def axes_of(props: dict[str, Any], ndim: int, key: str = "axis") -> tuple[int, ...]:
    """The reduced axes (absent: all), normalised."""
    axes = props.get(key)
    return tuple(range(ndim)) if axes is None else distinct_axes(axes, ndim)


def count(shape: Sequence[int], axes: Sequence[int]) -> int:
    """The number of elements along ``axes``."""
    return math.prod(shape[a] for a in axes)


def broadcast(*arrays: np.ndarray) -> None:
    """Refuse operands that do not broadcast together (numpy's rule)."""
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError as err:
        raise Refused(str(err)) from None


def position(index: int, size: int, negative: bool, what: str) -> int:
    """An index on an axis of ``size`` by the index rule, or :class:`Refused`."""
    if negative and -size <= index < 0:
        return index + size
    if not 0 <= index < size:
        raise Refused(f"{what}: index {index} out of range for an axis of {size}")
    return index


# ----------------------------------------------------------------------------- elementwise

_SQRT2 = math.sqrt(2.0)
_erf = np.vectorize(math.erf, otypes=[np.float64])


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.where(
        x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x)))
    )


_FLOAT_UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], float]] = {
    # name: (float64 function, ulps of a float32 result: numpy's float32 SIMD maps are
    # within 4, the kernels' erf within 7, composite maps round each step)
    "relax.exp": (np.exp, 4),
    "relax.log": (np.log, 4),
    "relax.sqrt": (np.sqrt, 1),
    "relax.rsqrt": (lambda x: 1 / np.sqrt(x), 2),
    "relax.tanh": (np.tanh, 4),
    "relax.sigmoid": (_sigmoid, 4),
    "relax.silu": (lambda x: x * _sigmoid(x), 4),
    "relax.gelu": (lambda x: 0.5 * x * (1 + _erf(x / _SQRT2)), 8),
    "relax.sin": (np.sin, 4),
    "relax.cos": (np.cos, 4),
    "relax.erf": (_erf, 8),
}


def _float_unary(name: str) -> Oracle:
    function, ulps = _FLOAT_UNARY[name]

    def compute(args: list[Any], props: dict[str, Any]) -> Expected:
        (x,) = args
        value = function(x.astype(np.float64))
        # float64 kernels may differ from the oracle's math library by an ulp or two
        ulps_allowed = max(ulps, 2) if x.dtype == np.float64 else ulps
        bound = 0.0
        if name == "relax.gelu" and x.dtype != np.float16:
            # the erf form cancels for x < -3: an ulp of 0.5 * x (docs/semantics.md)
            spacing = np.spacing(np.abs(0.5 * x)).astype(np.float64)
            bound = np.where(np.isfinite(spacing), 2 * spacing, 0.0)
        return Expected(rounded(value, x.dtype), ulps_allowed, bound)

    return compute


for _name in _FLOAT_UNARY:
    ORACLES[_name] = _float_unary(_name)


@oracle("relax.isnan")
def _isnan(args: list[Any], props: dict[str, Any]) -> Expected:
    return Expected(np.isnan(args[0]))


@oracle("relax.relu")
def _relu(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    value = np.where(np.isnan(x) | (x > 0), x, np.zeros((), x.dtype)).astype(x.dtype)
    return Expected(value, zero_sign=False)


@oracle("relax.negative")
def _negative(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    if is_float(x):
        return Expected(-x)
    return Expected(wrapped(-exact_ints(x), x.dtype))


@oracle("relax.abs")
def _abs(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    if is_float(x):
        return Expected(np.abs(x))
    return Expected(wrapped(np.abs(exact_ints(x)), x.dtype))


def _trunc_div(a: int, b: int) -> int:
    if b == 0:
        return 0
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def _int_binary(function: Callable[[int, int], int]) -> Callable[[np.ndarray, np.ndarray], Any]:
    def compute(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = np.broadcast_arrays(exact_ints(a), exact_ints(b))
        flat = [function(int(x), int(y)) for x, y in zip(a.ravel(), b.ravel(), strict=True)]
        return np.array(flat, dtype=object).reshape(a.shape)

    return compute


def _c_fmod(a: int, b: int) -> int:
    return 0 if b == 0 else a - _trunc_div(a, b) * b


def _int_power(a: int, b: int) -> int:
    if b < 0:  # 1 / a ** -b truncated (C, torch): 1 for a = 1, ±1 for a = -1, else 0
        return {1: 1, -1: -1 if b % 2 else 1}.get(a, 0)
    return pow(a, b, 2**64)


_BINARY: dict[str, tuple[Callable[..., Any], Callable[..., Any] | None, float]] = {
    # name: (float64 function, exact integer function, ulps of float results)
    "relax.add": (np.add, _int_binary(lambda a, b: a + b), 0),
    "relax.subtract": (np.subtract, _int_binary(lambda a, b: a - b), 0),
    "relax.multiply": (np.multiply, _int_binary(lambda a, b: a * b), 0),
    "relax.divide": (np.true_divide, _int_binary(_trunc_div), 0),
    "relax.fmod": (np.fmod, _int_binary(_c_fmod), 0),
    "relax.power": (np.power, _int_binary(_int_power), 2),
    "relax.maximum": (np.maximum, None, 0),
    "relax.minimum": (np.minimum, None, 0),
}


_ZERO_SIGN_OPEN = ("relax.maximum", "relax.minimum")
"""The maximum or minimum of two zeros may be either (IEEE's maxNum, numpy)."""


def _binary(name: str) -> Oracle:
    float_fn, int_fn, ulps = _BINARY[name]

    def compute(args: list[Any], props: dict[str, Any]) -> Expected:
        a, b = args
        broadcast(a, b)
        if is_float(a):
            value = rounded(float_fn(a.astype(np.float64), b.astype(np.float64)), a.dtype)
            return Expected(value, ulps, zero_sign=name not in _ZERO_SIGN_OPEN)
        if int_fn is None or a.dtype == np.bool_:
            return Expected(float_fn(a, b).astype(a.dtype))
        return Expected(wrapped(int_fn(a, b), a.dtype))

    return compute


for _name in _BINARY:
    ORACLES[_name] = _binary(_name)

_NUMPY_MAPS = {
    "relax.equal": np.equal,
    "relax.not_equal": np.not_equal,
    "relax.less": np.less,
    "relax.less_equal": np.less_equal,
    "relax.greater": np.greater,
    "relax.greater_equal": np.greater_equal,
    "relax.bitwise_and": np.bitwise_and,
    "relax.bitwise_or": np.bitwise_or,
    "relax.bitwise_xor": np.bitwise_xor,
}


def _numpy_map(name: str) -> Oracle:
    def compute(args: list[Any], props: dict[str, Any]) -> Expected:
        broadcast(*args)
        return Expected(np.asarray(_NUMPY_MAPS[name](*args)))

    return compute


for _name in _NUMPY_MAPS:
    ORACLES[_name] = _numpy_map(_name)


@oracle("relax.where")
def _where(args: list[Any], props: dict[str, Any]) -> Expected:
    cond, a, b = args
    broadcast(cond, a, b)
    return Expected(np.where(cond, a, b).astype(a.dtype))


@oracle("relax.astype")
def _astype(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    return Expected(x.astype(NUMPY_TYPES[props["dtype"]]))


# ----------------------------------------------------------------------------- reductions


def _float_total(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> tuple[Any, Any]:
    """The sum along ``axes`` in ``x``'s accumulator (infinite where it overflows it),
    and the accumulation error bound."""
    acc = accumulator(x.dtype)
    exact = np.sum(x.astype(np.longdouble), axis=axes, keepdims=keepdims)
    magnitude = np.sum(finite_abs(x), axis=axes, keepdims=keepdims)
    total = exact.astype(acc).astype(np.float64)
    return total, accumulation_bound(count(x.shape, axes), x.dtype, magnitude)


@oracle("relax.sum")
def _sum(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    axes, keepdims = axes_of(props, x.ndim), props.get("keepdims", False)
    if is_float(x):
        total, bound = _float_total(x, axes, keepdims)
        return Expected(rounded(total, x.dtype), 1, bound)
    if x.dtype == np.bool_:
        raise AssertionError("relax.sum does not take i1")
    return Expected(wrapped(np.sum(exact_ints(x), axis=axes, keepdims=keepdims), x.dtype))


@oracle("relax.mean")
def _mean(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    axes, keepdims = axes_of(props, x.ndim), props.get("keepdims", False)
    n = count(x.shape, axes)
    if is_float(x):
        total, bound = _float_total(x, axes, keepdims)
        return Expected(rounded(total / n if n else total * np.nan, x.dtype), 1, bound / max(n, 1))
    if n == 0:
        raise Refused("relax.mean of no integers")
    totals = np.sum(exact_ints(x), axis=axes, keepdims=keepdims)
    return Expected(np.asarray(_truncated_means(totals, n)).astype(x.dtype))


def _truncated_means(totals: Any, n: int) -> Any:
    """Exact integer sums divided by ``n``, truncated toward zero."""
    return np.frompyfunc(lambda t: _trunc_div(int(t), n), 1, 1)(totals)


def _extreme(name: str, function: Callable[..., Any]) -> Oracle:
    def compute(args: list[Any], props: dict[str, Any]) -> Expected:
        (x,) = args
        axes = axes_of(props, x.ndim)
        if count(x.shape, axes) == 0:
            raise Refused(f"{name} of no elements")
        return Expected(np.asarray(function(x, axis=axes, keepdims=props.get("keepdims", False))))

    return compute


ORACLES["relax.max"] = _extreme("relax.max", np.max)
ORACLES["relax.min"] = _extreme("relax.min", np.min)


@oracle("relax.cumsum")
def _cumsum(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    if props.get("dtype") == "i1":
        raise Refused("cumsum in i1")
    if "dtype" in props:
        dtype = np.dtype(NUMPY_TYPES[props["dtype"]])
    elif x.dtype.kind in "bi" and x.dtype.itemsize < 8:
        dtype = np.dtype(np.int64)
    else:
        dtype = x.dtype
    axis = props.get("axis")
    data = x.reshape(-1) if axis is None else x
    axis = 0 if axis is None else axis_index(axis, x.ndim)
    if props.get("exclusive", False):
        data = _shifted(data, axis)
    if dtype.kind == "f":
        source = data.astype(dtype).astype(np.float64)
        magnitude = np.cumsum(finite_abs(source), axis=axis)
        bound = accumulation_bound(data.shape[axis], dtype, magnitude)
        return Expected(rounded(np.cumsum(source, axis=axis), dtype), 1, bound)
    sums = np.cumsum(exact_ints(data.astype(np.int64)), axis=axis)
    return Expected(wrapped(sums, dtype))


def _shifted(x: np.ndarray, axis: int) -> np.ndarray:
    """``x`` moved one place along ``axis``, a zero entering first (exclusive sums)."""
    out = np.zeros_like(x)
    into, source = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    into[axis], source[axis] = slice(1, None), slice(None, -1)
    out[tuple(into)] = x[tuple(source)]
    return out


# ----------------------------------------------------------------------------- nn


def _softmax_family(log: bool) -> Oracle:
    def compute(args: list[Any], props: dict[str, Any]) -> Expected:
        (x,) = args
        axis = axis_index(props.get("axis", -1), x.ndim)
        data = x.astype(np.float64)
        top = np.max(data, axis=axis, keepdims=True, initial=-np.inf)
        shifted = data - top
        total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
        value = shifted - np.log(total) if log else np.exp(shifted) / total
        bound = (x.shape[axis] + 4) * eps(accumulator(x.dtype)) * (1 + np.abs(value))
        return Expected(rounded(value, x.dtype), 1, bound)

    return compute


ORACLES["relax.softmax"] = _softmax_family(log=False)
ORACLES["relax.log_softmax"] = _softmax_family(log=True)


@oracle("relax.layer_norm")
def _layer_norm(args: list[Any], props: dict[str, Any]) -> Expected:
    x, gamma, beta = args
    axes = list(distinct_axes(props["axes"], x.ndim))
    wanted = tuple(x.shape[a] for a in axes)
    if gamma.shape != wanted or beta.shape != wanted:
        raise Refused(f"gamma {gamma.shape} and beta {beta.shape} for x along axes: {wanted}")
    epsilon = props.get("epsilon", 1e-5)
    data = x.astype(np.float64)
    mean = data.mean(axis=tuple(axes), keepdims=True)
    variance = ((data - mean) ** 2).mean(axis=tuple(axes), keepdims=True)
    # gamma[k0, k1, ...] scales x at axes[0] = k0, axes[1] = k1, ...
    shape = [1] * x.ndim
    for k, a in enumerate(axes):
        shape[a] = gamma.shape[k]
    order = sorted(range(len(axes)), key=lambda k: axes[k])
    scale = np.transpose(gamma.astype(np.float64), order).reshape(shape)
    shift = np.transpose(beta.astype(np.float64), order).reshape(shape)
    normalised = (data - mean) / np.sqrt(variance + epsilon)
    value = normalised * scale + shift
    n = count(x.shape, axes)
    bound = (
        8 * (n + 4) * eps(accumulator(x.dtype)) * (np.abs(normalised * scale) + np.abs(shift) + 1)
    )
    return Expected(rounded(value, x.dtype), 1, bound)


def _output_size(
    size: int, window: int, stride: int, before: int, after: int, dilation: int
) -> int:
    reach = dilation * (window - 1) + 1
    if size + before + after < reach:
        raise Refused(f"a window of extent {reach} does not fit in {size} + {before + after}")
    return (size + before + after - reach) // stride + 1


def _spatial(props: dict[str, Any], key: str, rank: int, default: int) -> list[int]:
    values = props.get(key, [default])
    return list(values) * rank if len(values) == 1 else list(values)


def _padding(props: dict[str, Any], rank: int) -> tuple[list[int], list[int]]:
    padding = _spatial(props, "padding", rank, 0)
    return (padding[:rank], padding[rank:]) if len(padding) == 2 * rank else (padding, padding)


def _windows(
    shape: Sequence[int], window: Sequence[int], props: dict[str, Any]
) -> tuple[list[int], list[list[list[tuple[int, int]]]]]:
    """The output sizes and, per spatial axis and output position, the taps ``(tap,
    input position)`` of the window (a position outside the input is padding)."""
    rank = len(window)
    strides = _spatial(props, "strides", rank, 1)
    dilation = _spatial(props, "dilation", rank, 1)
    before, after = _padding(props, rank)
    sizes, taps = [], []
    for a in range(rank):
        out = _output_size(shape[a], window[a], strides[a], before[a], after[a], dilation[a])
        sizes.append(out)
        taps.append(
            [
                [(t, p * strides[a] + t * dilation[a] - before[a]) for t in range(window[a])]
                for p in range(out)
            ]
        )
    return sizes, taps


def _conv(args: list[Any], props: dict[str, Any]) -> Expected:
    x, w = args
    groups = props.get("groups", 1)
    batch, channels, *spatial = x.shape
    out_channels, in_channels, *window = w.shape
    if in_channels * groups != channels or out_channels % groups:
        raise Refused(f"channels {channels}, weights {w.shape}, groups {groups}")
    sizes, taps = _windows(spatial, window, props)
    floats = is_float(x)
    data = x.astype(np.float64 if floats else object)
    weights = w.astype(np.float64 if floats else object)
    out = np.zeros((batch, out_channels, *sizes), dtype=np.float64 if floats else object)
    magnitude = np.zeros(out.shape)
    zero = np.zeros(batch, dtype=out.dtype)
    per_group = out_channels // groups if groups else 0
    for o in range(out_channels):
        first = (o // per_group) * in_channels
        for where in np.ndindex(*sizes):
            total = np.zeros(batch, dtype=out.dtype)
            size = np.zeros(batch)
            for picks in np.ndindex(*(len(taps[a][where[a]]) for a in range(len(sizes)))):
                chosen = [taps[a][where[a]][k] for a, k in enumerate(picks)]
                tap = tuple(t for t, _ in chosen)
                point = tuple(p for _, p in chosen)
                inside = all(0 <= p < n for p, n in zip(point, spatial, strict=True))
                for c in range(in_channels):
                    # padding is zeros, multiplied like the data (0 * inf is NaN, as torch)
                    value = data[(slice(None), first + c, *point)] if inside else zero
                    product = value * weights[(o, c, *tap)]
                    total = total + product
                    if floats:  # a product of finite factors may overflow: inf
                        size = size + finite_abs(value) * finite_abs(weights[(o, c, *tap)])
            out[(slice(None), o, *where)] = total
            magnitude[(slice(None), o, *where)] = size
    if not floats:
        return Expected(wrapped(out, x.dtype))
    terms = in_channels * math.prod(window)
    return Expected(rounded(out, x.dtype), 1, accumulation_bound(terms, x.dtype, magnitude))


ORACLES["relax.conv1d"] = _conv
ORACLES["relax.conv2d"] = _conv
ORACLES["relax.conv3d"] = _conv


def _pool(average: bool, rank: int = 2) -> Oracle:
    def compute(args: list[Any], props: dict[str, Any]) -> Expected:
        (x,) = args
        window = _spatial(props, "pool_size", rank, 1)
        before, after = _padding(props, rank)
        for axis in range(rank):
            # every window holds an element of the input (docs/semantics.md)
            if max(before[axis], after[axis]) >= window[axis]:
                raise Refused(
                    f"padding {before[axis]}, {after[axis]} of a window of {window[axis]}"
                )
            if (before[axis] or after[axis]) and not x.shape[2 + axis]:
                raise Refused(f"an empty spatial dimension {axis}, padded")
        sizes, taps = _windows(x.shape[2:], window, props)
        floats = is_float(x)
        values = np.zeros((*x.shape[:2], *sizes), dtype=object)
        bound = np.zeros(values.shape)
        axes = tuple(range(2, 2 + rank))
        for where in np.ndindex(*sizes):
            block = x
            for a in range(rank):
                inside = [p for _, p in taps[a][where[a]] if 0 <= p < x.shape[2 + a]]
                block = np.take(block, inside, axis=2 + a)
            at, n = (slice(None), slice(None), *where), math.prod(block.shape[2:])
            if not average:
                values[at] = np.max(block, axis=axes)
            elif floats:
                data = block.astype(np.float64)
                values[at] = np.sum(data, axis=axes) / n
                magnitude = np.sum(finite_abs(data), axis=axes)
                bound[at] = accumulation_bound(n, x.dtype, magnitude) / n
            else:
                values[at] = _truncated_means(np.sum(exact_ints(block), axis=axes), n)
        if average and floats:
            return Expected(rounded(values.astype(np.float64), x.dtype), 1, bound)
        return Expected(values.astype(x.dtype))

    return compute


ORACLES["relax.max_pool2d"] = _pool(average=False)
ORACLES["relax.avg_pool2d"] = _pool(average=True)
for _rank in (1, 3):
    ORACLES[f"relax.max_pool{_rank}d"] = _pool(average=False, rank=_rank)
    ORACLES[f"relax.avg_pool{_rank}d"] = _pool(average=True, rank=_rank)


@oracle("relax.matmul")
def _matmul(args: list[Any], props: dict[str, Any]) -> Expected:
    a, b = args
    inner_a = a.shape[-1]
    inner_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if inner_a != inner_b:
        raise Refused(f"inner dimensions {inner_a} and {inner_b}")
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError as err:
        raise Refused(str(err)) from None
    if not is_float(a):
        return Expected(np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(a.dtype))
    value = np.matmul(a.astype(np.float64), b.astype(np.float64))
    magnitude = np.matmul(finite_abs(a), finite_abs(b))
    return Expected(rounded(value, a.dtype), 1, accumulation_bound(inner_a, a.dtype, magnitude))


# ----------------------------------------------------------------------------- layout


@oracle("relax.reshape")
def _reshape(args: list[Any], props: dict[str, Any]) -> Expected:
    x, target = args
    target = list(target)
    if target.count(-1) == 1:
        known = math.prod(d for d in target if d != -1)
        if known == 0 or x.size % known:
            raise Refused(f"cannot infer the -1 of {target} for {x.size} elements")
        target[target.index(-1)] = x.size // known
    if math.prod(target) != x.size:
        raise Refused(f"{x.size} elements into {target}")
    return Expected(x.reshape(target))


@oracle("relax.flatten")
def _flatten(args: list[Any], props: dict[str, Any]) -> Expected:
    return Expected(args[0].reshape(-1))


@oracle("relax.permute_dims")
def _permute_dims(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    axes = props.get("axes")
    if axes is None:
        return Expected(np.transpose(x))
    if len(axes) != x.ndim:
        raise Refused(f"axes {axes} do not permute {x.ndim} axes")
    return Expected(np.transpose(x, distinct_axes(axes, x.ndim)))


@oracle("relax.expand_dims")
def _expand_dims(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    rank = x.ndim + len(props["axis"])
    inserted = set(distinct_axes(props["axis"], rank))
    shape, rest = [], iter(x.shape)
    for position in range(rank):
        shape.append(1 if position in inserted else next(rest))
    return Expected(x.reshape(shape))


@oracle("relax.squeeze")
def _squeeze(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    axes = props.get("axis")
    if axes is None:
        removed = [a for a in range(x.ndim) if x.shape[a] == 1]
    else:
        removed = list(distinct_axes(axes, x.ndim))
    if any(x.shape[a] != 1 for a in removed):
        raise Refused(f"squeeze of axes {removed} of {x.shape}")
    return Expected(x.reshape([d for a, d in enumerate(x.shape) if a not in removed]))


@oracle("relax.concat")
def _concat(args: list[Any], props: dict[str, Any]) -> Expected:
    if len({x.ndim for x in args}) > 1:
        raise Refused(f"tensors of different ranks: {[x.shape for x in args]}")
    axis = axis_index(props.get("axis", 0), args[0].ndim)
    rest = {tuple(d for a, d in enumerate(x.shape) if a != axis) for x in args}
    if len(rest) > 1:
        raise Refused(f"tensors differing outside axis {axis}: {[x.shape for x in args]}")
    return Expected(np.concatenate(args, axis=axis))


@oracle("relax.split")
def _split(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    axis = axis_index(props.get("axis", 0), x.ndim)
    points = props["indices_or_sections"]
    size = x.shape[axis]
    if isinstance(points, int):
        if points < 1 or size % points:
            raise Refused(f"{points} sections of {size}")
        bounds = [k * (size // points) for k in range(points + 1)]
    else:
        bounds = [None, *points, None]
    pieces = []
    for begin, end in zip(bounds, bounds[1:], strict=False):
        index = [slice(None)] * x.ndim
        index[axis] = slice(begin, end, 1)
        pieces.append(x[tuple(index)])
    return Expected(tuple(pieces))


@oracle("relax.strided_slice")
def _stridedslice(args: list[Any], props: dict[str, Any]) -> Expected:
    x, *bounds = args
    axes = props["axes"]
    begin = props.get("begin", bounds[: len(axes)])
    end = props.get("end", bounds[len(axes) :])
    strides = props.get("strides", [1] * len(axes))
    if 0 in strides:
        raise Refused(f"strides {strides} hold 0")
    index = [slice(None)] * x.ndim
    for axis, b, e, s in zip(distinct_axes(axes, x.ndim), begin, end, strides, strict=True):
        index[axis] = slice(b, e, s)
    return Expected(x[tuple(index)])


@oracle("relax.broadcast_to")
def _broadcast_to(args: list[Any], props: dict[str, Any]) -> Expected:
    x, shape = args
    try:
        return Expected(np.broadcast_to(x, tuple(shape)).copy())
    except ValueError as err:
        raise Refused(str(err)) from None


@oracle("relax.pad")
def _pad(args: list[Any], props: dict[str, Any]) -> Expected:
    x, fill = args
    widths = props["pad_width"]
    if len(widths) != 2 * x.ndim or min(widths, default=0) < 0:
        raise Refused(f"pad_width {widths} for rank {x.ndim}")
    out = np.full(
        [d + widths[2 * a] + widths[2 * a + 1] for a, d in enumerate(x.shape)], fill, x.dtype
    )
    out[tuple(slice(widths[2 * a], widths[2 * a] + d) for a, d in enumerate(x.shape))] = x
    return Expected(out)


@oracle("relax.slice_scatter")
def _slice_scatter(args: list[Any], props: dict[str, Any]) -> Expected:
    x, src = args
    index = [slice(None)] * x.ndim
    index[axis_index(props["axis"], x.ndim)] = slice(
        props.get("begin"), props.get("end"), props.get("step", 1)
    )
    out = x.copy()
    if out[tuple(index)].shape != src.shape:
        raise Refused(f"src {src.shape} for a slice of {out[tuple(index)].shape}")
    out[tuple(index)] = src
    return Expected(out)


def _triangle(lower: bool) -> Oracle:
    def compute(args: list[Any], props: dict[str, Any]) -> Expected:
        (x,) = args
        if x.ndim < 2:
            raise Refused(f"a triangle of a tensor of rank {x.ndim}")
        k = props.get("k", 0)
        rows, cols = np.indices(x.shape[-2:])
        keep = (cols - rows <= k) if lower else (cols - rows >= k)
        return Expected(np.where(keep, x, np.zeros((), x.dtype)).astype(x.dtype))

    return compute


ORACLES["relax.tril"] = _triangle(lower=True)
ORACLES["relax.triu"] = _triangle(lower=False)


# ----------------------------------------------------------------------------- creation


ORACLES["relax.zeros"] = lambda args, props: Expected(
    np.zeros(args[0], NUMPY_TYPES[props["dtype"]])
)
ORACLES["relax.ones"] = lambda args, props: Expected(np.ones(args[0], NUMPY_TYPES[props["dtype"]]))


@oracle("relax.full")
def _full(args: list[Any], props: dict[str, Any]) -> Expected:
    shape, fill = args
    fill = np.asarray(fill, np.int64) if isinstance(fill, int) else fill
    dtype = NUMPY_TYPES[props["dtype"]] if "dtype" in props else fill.dtype
    return Expected(np.full(shape, fill.astype(dtype), dtype))


@oracle("relax.arange")
def _arange(args: list[Any], props: dict[str, Any]) -> Expected:
    start, end, step = (int(v) for v in args)
    if step == 0:
        raise Refused("arange with step 0")
    length = -((start - end) // step)
    if length < 0:
        raise Refused(f"arange({start}, {end}, {step}) is reversed")
    values = [start + k * step for k in range(length)]
    dtype = NUMPY_TYPES[props.get("dtype", "i64")]
    if np.dtype(dtype).kind == "i":
        return Expected(wrapped(values, np.dtype(dtype)).reshape(length))
    return Expected(np.array(values, dtype=np.float64).astype(dtype).reshape(length))


@oracle("relax.unique")
def _unique(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    flat = x.reshape(-1)
    if is_float(x):
        values = sorted({float(v) for v in flat if not np.isnan(v)})
        values += [math.nan] if np.isnan(flat).any() else []
    else:
        values = sorted({v.item() for v in flat})
    return Expected(np.array(values, dtype=x.dtype).reshape(len(values)), zero_sign=False)


# ----------------------------------------------------------------------------- gathers


@oracle("relax.take")
def _take(args: list[Any], props: dict[str, Any]) -> Expected:
    x, indices = args
    negative = props.get("negative_indices", True)
    axis = props.get("axis")
    data = x.reshape(-1) if axis is None else x
    axis = 0 if axis is None else axis_index(axis, x.ndim)
    size = data.shape[axis]
    positions = np.array(
        [position(int(i), size, negative, "relax.take") for i in indices.ravel()], dtype=np.int64
    ).reshape(indices.shape)
    return Expected(np.take(data, positions, axis=axis))


@oracle("relax.gather_elements")
def _gather_elements(args: list[Any], props: dict[str, Any]) -> Expected:
    x, indices = args
    negative = props.get("negative_indices", True)
    axis = axis_index(props.get("axis", 0), x.ndim)
    for a in range(x.ndim):
        if a != axis and indices.shape[a] > x.shape[a]:
            raise Refused(f"indices {indices.shape} larger than x {x.shape} along axis {a}")
    out = np.zeros(indices.shape, x.dtype)
    for where in np.ndindex(*indices.shape):
        point = list(where)
        point[axis] = position(int(indices[where]), x.shape[axis], negative, "gather_elements")
        out[where] = x[tuple(point)]
    return Expected(out)


@oracle("relax.gather_nd")
def _gather_nd(args: list[Any], props: dict[str, Any]) -> Expected:
    x, indices = args
    negative = props.get("negative_indices", True)
    batch = props.get("batch_dims", 0)
    depth = indices.shape[-1]
    if batch + depth > x.ndim:
        raise Refused(f"indices address {batch + depth} axes of a tensor of rank {x.ndim}")
    if indices.shape[:batch] != x.shape[:batch]:
        raise Refused(f"batch axes {indices.shape[:batch]} and {x.shape[:batch]}")
    lead = indices.shape[:-1]
    out = np.zeros((*lead, *x.shape[batch + depth :]), x.dtype)
    for where in np.ndindex(*lead):
        point = [
            position(int(indices[(*where, m)]), x.shape[batch + m], negative, "gather_nd")
            for m in range(depth)
        ]
        out[where] = x[(*where[:batch], *point)]
    return Expected(out)


# ----------------------------------------------------------------------------- sort, scatter

for _name, _function, _ulps in (
    ("relax.tan", np.tan, 4),
    ("relax.sinh", np.sinh, 4),
    ("relax.cosh", np.cosh, 4),
    ("relax.asin", np.arcsin, 4),
    ("relax.acos", np.arccos, 4),
    ("relax.atan", np.arctan, 4),
    ("relax.asinh", np.arcsinh, 4),
    ("relax.acosh", np.arccosh, 4),
    ("relax.atanh", np.arctanh, 4),
    ("relax.floor", np.floor, 0),
    ("relax.ceil", np.ceil, 0),
    ("relax.round", np.rint, 0),
    ("relax.log1p", np.log1p, 4),
    ("relax.expm1", np.expm1, 4),
    ("relax.log2", np.log2, 4),
    ("relax.log10", np.log10, 4),
    ("relax.exp2", np.exp2, 4),
):
    _FLOAT_UNARY[_name] = (_function, _ulps)
    ORACLES[_name] = _float_unary(_name)


def _order_key(value: Any) -> tuple:
    """NaN after every number; -0.0 equal to 0.0."""
    if isinstance(value, float | np.floating) and np.isnan(value):
        return (1, 0.0)
    return (0, value)


@oracle("relax.argsort")
def _argsort(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    if x.ndim == 0:
        return Expected(np.zeros((), np.int64))
    axis = axis_index(props.get("axis", -1), x.ndim)
    descending = props.get("descending", False)
    moved = np.moveaxis(x, axis, -1)
    out = np.zeros(moved.shape, np.int64)
    for where in np.ndindex(*moved.shape[:-1]):
        row = moved[where]
        # Python's sort is stable, also with reverse=True
        order = sorted(range(len(row)), key=lambda i: _order_key(row[i]), reverse=descending)
        out[where] = order
    return Expected(np.moveaxis(out, -1, axis))


_COMBINE = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "max": np.maximum,
    "min": np.minimum,
}


@oracle("relax.scatter_elements")
def _scatter_elements(args: list[Any], props: dict[str, Any]) -> Expected:
    x, indices, updates = args
    reduction = props.get("reduction", '"none"').strip('"')
    if x.ndim == 0:
        raise Refused("scatter_elements of a 0-d tensor")
    if x.dtype == np.bool_ and reduction in ("add", "mul"):
        raise Refused(f"reduction {reduction} of booleans")
    axis = axis_index(props.get("axis", 0), x.ndim)
    for a in range(x.ndim):
        if a != axis and indices.shape[a] > x.shape[a]:
            raise Refused(f"indices {indices.shape} larger than x {x.shape} along axis {a}")
    out = x.copy()
    with np.errstate(all="ignore"):
        for where in np.ndindex(*indices.shape):
            point = list(where)
            point[axis] = position(int(indices[where]), x.shape[axis], True, "scatter_elements")
            point = tuple(point)
            if reduction == "none":
                out[point] = updates[where]
            else:
                out[point] = _COMBINE[reduction](out[point], updates[where])
    return Expected(out, zero_sign=reduction not in ("max", "min"))


def _group_key(value: Any) -> Any:
    """Equal elements of unique_all: NaNs are one value, -0.0 is 0.0."""
    if isinstance(value, tuple):
        return tuple(_group_key(v) for v in value)
    if isinstance(value, float) and math.isnan(value):
        return (1, 0.0)
    return (0, value)


@oracle("relax.unique_all")
def _unique_all(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    axis = props.get("axis")
    if axis is None:
        items = [v.item() for v in x.reshape(-1)]
    else:
        axis = axis_index(axis, x.ndim)
        moved = np.moveaxis(x, axis, 0)
        items = [tuple(v.item() for v in s.reshape(-1)) for s in moved]
    first: dict[Any, int] = {}
    for position, item in enumerate(items):
        first.setdefault(_group_key(item), position)
    keys = list(first)
    if props.get("sorted", True):
        keys.sort()
    slot = {key: index for index, key in enumerate(keys)}
    inverse = np.array([slot[_group_key(item)] for item in items], np.int64)
    counts = np.bincount(inverse, minlength=len(keys)).astype(np.int64)
    starts = np.array([first[key] for key in keys], np.int64)
    if axis is None:
        values = np.array([x.reshape(-1)[p] for p in starts], x.dtype).reshape(len(keys))
    else:
        values = np.take(x, starts, axis=axis)
    return Expected((values, starts, inverse, counts), zero_sign=False)


@oracle("relax.nonzero")
def _nonzero(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    if x.ndim == 0:
        raise Refused("nonzero of a 0-d tensor")
    found = [where for where in np.ndindex(*x.shape) if x[where] != 0]
    return Expected(np.array(found, np.int64).reshape(len(found), x.ndim).T.copy())


@oracle("relax.non_max_suppression")
def _non_max_suppression(args: list[Any], props: dict[str, Any]) -> Expected:
    from onnx.reference.ops.op_non_max_suppression import suppress_by_iou

    boxes, scores, limit, iou, score = args
    if boxes.shape[0] != scores.shape[0] or boxes.shape[1] != scores.shape[2]:
        raise Refused("boxes and scores differ in their batches or boxes")
    limit, iou, score = (
        int(limit.reshape(-1)[0]),
        float(iou.reshape(-1)[0]),
        float(score.reshape(-1)[0]),
    )
    center = int(props.get("center_point_box", False))
    rows = []
    for b in range(scores.shape[0]):
        data = boxes[b].astype(np.float64)
        for c in range(scores.shape[1]):
            candidates = [
                (float(s), -i)
                for i, s in enumerate(scores[b, c])
                if score == -math.inf or s > score
            ]
            kept: list[int] = []
            for _, negative in sorted(candidates, reverse=True):
                if len(kept) >= limit:
                    break
                i = -negative
                if not any(suppress_by_iou(data, i, k, center, iou) for k in kept):
                    kept.append(i)
            rows += [(b, c, i) for i in kept]
    return Expected(np.array(rows, np.int64).reshape(len(rows), 3))
