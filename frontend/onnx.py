"""Import an ONNX model into relax.

```python
imported = xrelax.frontend.from_onnx("model.onnx")
vm = xrelax.VirtualMachine(xrelax.compile(imported.module))
y = vm["main"](x, **imported.params)
```

* The model is validated as ONNX validates it: onnx's shape inference (strict, with
  types checked and constant data propagated) and ``onnx.checker.check_model`` with
  ``full_check``. Each converter then checks its attributes and constant inputs
  against the operator's specification (axis ranges, split sums, index ranges, ...);
  a model onnxruntime refuses is refused, in one line naming the node (its name, or
  ``#<index>`` when it has none, and its op_type) and what was expected.
* A ``dim_param`` of a graph input that is an identifier (``batch``) becomes the relax
  variable of that name, shared by every input that names it; any other dimension
  without a value (no name, ``?``, an expression) gets a variable of its own.
* Initializers with more than one element become parameters after the inputs, named
  after the initializer; one-element initializers become constants.
* Computations on sizes (``Shape``, ``Gather``, ``Concat``, ``Slice``, arithmetic, ...)
  and on small constants run at import time, with ONNX's arithmetic (integer ``Div``
  truncates, ``Mod`` follows ``fmod``), on symbolic values: a ``Reshape`` whose target
  the graph computes from ``Shape`` gets a symbolic shape, as it would in torch. No
  folded value may be larger than the VM would allocate.
* An operator without a converter whose ONNX schema defines it as a function of
  other operators (``LeakyRelu``, ``Celu``, ``RMSNormalization``, ...) is imported as
  that function's body; model-local functions are inlined.
* :data:`SUPPORTED` lists the operators converted directly (default domain).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any

import numpy as np
import onnx
import onnx.inliner
import sympy
from onnx import helper
from xdsl.ir import Attribute, SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.relax import TensorType
from xrelax.dialects.shapes import symbolic

# The converter families (onnx_control, _nn, _tensor) register on import.
from xrelax.frontend import onnx_control, onnx_nn, onnx_tensor  # noqa: F401
from xrelax.frontend.common import (
    FrontendError,
    ImportedModel,
    Unsupported,
)
from xrelax.frontend.onnx_importer import (
    _CONVERTERS,
    _I64_MAX,
    _I64_MIN,
    _MAX_LRN_HALF_WINDOW,
    _SMALL,
    _axes,
    _axes_input,
    _axis,
    _broadcast_known,
    _canonical,
    _cast_target,
    _checked_elements,
    _checked_indices,
    _Converter,
    _converts,
    _flag,
    _foldable,
    _folded_shape,
    _given,
    _Importer,
    _Known,
    _named,
    _relax_dtype,
    _run_time_ints,
    _run_time_sizes,
    _sizes_array,
    _sizes_value,
    _static,
    _string,
    _tensor_array,
    _Unrepresentable,
    _Value,
    _with_run_time_attrs,
    validated,
)
from xrelax.frontend.padding import pad_from_edges


def from_onnx(model: onnx.ModelProto | str | PathLike[str]) -> ImportedModel:
    """Import an ONNX model (a ``ModelProto`` or a path); raises
    :class:`~xrelax.frontend.UnsupportedOperatorsError` listing every unsupported
    operator, or :class:`~xrelax.frontend.FrontendError` (an invalid model, one line)."""
    path = None
    if not isinstance(model, onnx.ModelProto):
        from xrelax.frontend.model_files import load_onnx_model

        path, model = model, load_onnx_model(model)
    return _Importer(validated(model, path)).run()


@_converts("Abs", fold=lambda imp, a, attrs: np.abs(a[0]) if a[0].dtype != object else _no())
def _abs(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.op("abs", imp.tensor(inputs[0]))


def _no() -> Any:
    """Leave a fold to the IR (sizes it cannot compute with)."""
    raise Unsupported("not at import time")


@_converts("IsNaN", fold=lambda imp, a, attrs: np.isnan(a[0]) if a[0].dtype != object else _no())
def _isnan(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.op("isnan", imp.tensor(inputs[0]))


@_converts("Neg", fold=lambda imp, a, attrs: -a[0])
def _neg(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.op("negative", imp.tensor(inputs[0]))


@_converts("Identity", fold=lambda imp, a, attrs: a[0])
def _identity(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return inputs[0]


@_converts("Dropout")
def _dropout(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """The identity, as in inference; in training mode only when the ratio is 0 (it
    drops elements at random otherwise). The mask output keeps every element."""
    if imp.opset >= 12:
        training = _given(inputs, 2)
        ratio_value = _given(inputs, 1)
        training_mode = False
        if training is not None:
            (flag,) = _known_values(training, "training_mode")
            training_mode = bool(flag)
        ratio = 0.5
        if ratio_value is not None and training_mode:
            (ratio,) = _known_values(ratio_value, "ratio")
    else:
        ratio = attrs.get("ratio", 0.5)
        training_mode = imp.opset < 7 and not attrs.get("is_test", 0)
    if not 0 <= ratio < 1:
        raise FrontendError(f"ratio is {ratio}, expected a value in [0, 1)")
    if training_mode and ratio != 0:
        raise Unsupported(f"training mode with ratio {ratio} (random)")
    x = inputs[0]
    if len(node.output) < 2 or not node.output[1]:
        return x
    mask_dtype = dtypes.I1 if imp.opset >= 10 else imp.em.dtype(imp.tensor(x))
    return [x, imp.em.full(imp.dims(x), True if mask_dtype == dtypes.I1 else 1, mask_dtype)]


def _known_values(value: _Value, what: str) -> list[Any]:
    """The numbers of an import-time input (a flag, a ratio)."""
    if not isinstance(value, _Known) or value.array.dtype == object:
        raise Unsupported(f"a {what} computed at run time")
    return [v.item() for v in value.array.reshape(-1)]


@_converts("Gelu")
def _gelu(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    if _string(attrs, "approximate", "none", ("none", "tanh")) == "tanh":
        return imp.em.gelu_tanh(x)
    return imp.em.op("gelu", x)


@_converts("Reciprocal")
def _reciprocal(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.op("divide", imp.em.scalar(1.0, x), x)


@_converts("HardSigmoid")
def _hard_sigmoid(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.hard_sigmoid(x, attrs.get("alpha", 0.2), attrs.get("beta", 0.5))


@_converts("HardSwish")
def _hard_swish(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.hard_swish(imp.tensor(inputs[0]))


def _negative_part(imp: _Importer, x: SSAValue, negative: SSAValue) -> SSAValue:
    """``negative`` where x < 0, else x."""
    em = imp.em
    return em.op("where", em.op("less", x, em.scalar(0.0, x)), negative, x)


@_converts("LeakyRelu")
def _leaky_relu(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    return _negative_part(imp, x, em.op("multiply", x, em.scalar(attrs.get("alpha", 0.01), x)))


@_converts("PRelu")
def _prelu(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``slope * x`` where x < 0; the slope broadcasts to x one way."""
    em, x, slope = imp.em, imp.tensor(inputs[0]), imp.tensor(inputs[1])
    dims, slope_dims = em.dims(x), em.dims(slope)
    if imp.opset < 7 and len(slope_dims) == 1 and len(dims) > 2:
        slope = em.reshape(slope, [slope_dims[0], *[1] * (len(dims) - 2)])
        slope_dims = em.dims(slope)
    fits = len(slope_dims) <= len(dims) and all(
        s == 1 or not symbolic.prove_not_equal(s, d)
        for s, d in zip(reversed(slope_dims), reversed(dims), strict=False)
    )
    if not fits:
        raise FrontendError(
            f"slope of shape {symbolic.format_dims(slope_dims)} does not broadcast to X's "
            f"{symbolic.format_dims(dims)}"
        )
    return _negative_part(imp, x, em.op("multiply", x, slope))


@_converts("Elu")
def _elu(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    below = em.op("subtract", em.op("exp", x), em.scalar(1.0, x))
    return _negative_part(imp, x, em.op("multiply", below, em.scalar(attrs.get("alpha", 1.0), x)))


@_converts("Selu")
def _selu(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    alpha = attrs.get("alpha", 1.67326319217681884765625)
    gamma = attrs.get("gamma", 1.05070102214813232421875)
    below = em.op("subtract", em.op("multiply", em.op("exp", x), em.scalar(alpha, x)),
                  em.scalar(alpha, x))  # fmt: skip
    positive = em.op("greater", x, em.scalar(0.0, x))
    return em.op("multiply", em.op("where", positive, x, below), em.scalar(gamma, x))


@_converts("ThresholdedRelu")
def _thresholded_relu(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    above = em.op("greater", x, em.scalar(attrs.get("alpha", 1.0), x))
    return em.op("where", above, x, em.scalar(0.0, x))


@_converts("Softsign")
def _softsign(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    return em.op("divide", x, em.op("add", em.op("abs", x), em.scalar(1.0, x)))


@_converts("Clip")
def _clip(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``min(max(x, low), high)``; a NaN bound is no bound (as in onnxruntime), also
    when it is only known at run time."""
    em, x = imp.em, imp.tensor(inputs[0])
    if imp.opset < 11:
        bounds: list[Any] = [attrs.get("min"), attrs.get("max")]
    else:
        bounds = [_given(inputs, 1), _given(inputs, 2)]
    for index, (bound, combine) in enumerate(zip(bounds, ("maximum", "minimum"), strict=True)):
        if bound is None:
            continue
        if isinstance(bound, _Known | float | int):
            (value,) = (
                [bound]
                if not isinstance(bound, _Known)
                else _known_values(bound, ("min", "max")[index])
            )
            if not (isinstance(value, float) and math.isnan(value)):
                x = em.op(combine, x, em.scalar(value, x))
            continue
        limit = em.reshape(imp.tensor(bound), [])
        limited = em.op(combine, x, limit)
        if dtypes.is_float(em.dtype(x)):
            limited = em.op("where", em.op("isnan", limit), x, limited)
        x = limited
    return x


# ------------------------------------------------------------------ arithmetic


def _fold_broadcasting(np_fn: Callable[..., Any]) -> Callable[..., Any]:
    """A broadcasting fold of ``np_fn``, of numbers or of sizes (sums, differences and
    products of symbolic sizes are sizes)."""

    def fold(imp: _Importer, a: list[np.ndarray], attrs: dict) -> Any:
        _broadcast_known(a, "the result")
        return np_fn(*a)

    return fold


def _fold_divide(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    """ONNX's Div: integer division truncates toward zero."""
    shape = _broadcast_known(a, "the quotient")
    lhs, rhs = np.broadcast_to(a[0], shape), np.broadcast_to(a[1], shape)
    if lhs.dtype.kind == "f" or rhs.dtype.kind == "f":
        return lhs / rhs
    if lhs.dtype != object and rhs.dtype != object:
        if np.any(rhs == 0):
            raise FrontendError("integer division by zero")
        quotient = np.abs(lhs) // np.abs(rhs)
        return np.where((lhs < 0) != (rhs < 0), -quotient, quotient).astype(lhs.dtype)
    result = np.empty(shape, object)
    for index in np.ndindex(shape):
        result[index] = _size_division(lhs[index], rhs[index], symbolic.floordiv)
    return result


def _size_division(lhs: Any, rhs: Any, op: Callable[..., sympy.Expr]) -> sympy.Expr:
    """``op`` (floordiv or floormod) of a size by a positive number: where both are
    non-negative, truncation and flooring agree; anything else is left to the IR."""
    lhs, rhs = symbolic.as_expr(_int(lhs)), symbolic.as_expr(_int(rhs))
    if not (rhs.is_Integer and int(rhs) > 0 and symbolic.prove_le(0, lhs)):
        raise Unsupported("a division of sizes")
    return op(lhs, rhs)


def _int(value: Any) -> Any:
    return value if isinstance(value, sympy.Expr) else int(value)


def _fold_power(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    """Pow in the base's element type: an integer base is raised in double precision
    and truncated, as onnxruntime does."""
    base, exponent = a
    if base.dtype == object or exponent.dtype == object:
        raise Unsupported("a power of sizes")
    _broadcast_known(a, "the power")
    if base.dtype.kind in "iu":
        return np.trunc(np.power(base.astype(np.float64), exponent.astype(np.float64))).astype(
            base.dtype
        )
    return np.power(base, exponent.astype(base.dtype))


def _fold_compare(
    np_fn: Callable[..., Any], decide: Callable[[sympy.Expr, sympy.Expr], bool | None]
) -> Callable[..., Any]:
    """A comparison fold; sizes compare where the comparison is provable."""

    def fold(imp: _Importer, a: list[np.ndarray], attrs: dict) -> Any:
        shape = _broadcast_known(a, "the comparison")
        if a[0].dtype != object and a[1].dtype != object:
            return np_fn(a[0], a[1])
        lhs, rhs = np.broadcast_to(a[0], shape), np.broadcast_to(a[1], shape)
        result = np.empty(shape, bool)
        for index in np.ndindex(shape):
            decided = decide(symbolic.as_expr(_int(lhs[index])), symbolic.as_expr(_int(rhs[index])))
            if decided is None:
                raise Unsupported("a comparison of sizes")
            result[index] = decided
        return result

    return fold


def _decided(true: Callable[..., bool], false: Callable[..., bool]) -> Callable[..., bool | None]:
    def decide(a: sympy.Expr, b: sympy.Expr) -> bool | None:
        if true(a, b):
            return True
        if false(a, b):
            return False
        return None

    return decide


_BINARY: dict[str, tuple[str, Callable[..., Any]]] = {
    "Add": ("add", _fold_broadcasting(np.add)),
    "Sub": ("subtract", _fold_broadcasting(np.subtract)),
    "Mul": ("multiply", _fold_broadcasting(np.multiply)),
    "Equal": (
        "equal",
        _fold_compare(np.equal, _decided(symbolic.prove_equal, symbolic.prove_not_equal)),
    ),
    "Less": (
        "less",
        _fold_compare(np.less, _decided(symbolic.prove_lt, lambda a, b: symbolic.prove_le(b, a))),
    ),
    "LessOrEqual": (
        "less_equal",
        _fold_compare(
            np.less_equal, _decided(symbolic.prove_le, lambda a, b: symbolic.prove_lt(b, a))
        ),
    ),
    "Greater": (
        "greater",
        _fold_compare(
            np.greater, _decided(lambda a, b: symbolic.prove_lt(b, a), symbolic.prove_le)
        ),
    ),
    "GreaterOrEqual": (
        "greater_equal",
        _fold_compare(
            np.greater_equal, _decided(lambda a, b: symbolic.prove_le(b, a), symbolic.prove_lt)
        ),
    ),
}


def _binary(relax_name: str) -> _Converter:
    def convert(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
        return imp.em.op(relax_name, imp.tensor(inputs[0]), imp.tensor(inputs[1]))

    return convert


for _onnx_name, (_relax_name, _fold) in _BINARY.items():
    _converts(_onnx_name, fold=_fold)(_binary(_relax_name))


def _no_zero_divisor(divisor: _Value, what: str) -> None:
    """Refuse an integer divisor known to hold a zero, as onnxruntime does."""
    known = isinstance(divisor, _Known) and divisor.array.dtype.kind in "iu"
    if known and np.any(divisor.array == 0):
        raise FrontendError(f"integer {what} by zero")


@_converts("Div", fold=_fold_divide)
def _divide(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    _no_zero_divisor(inputs[1], "division")
    return imp.em.op("divide", imp.tensor(inputs[0]), imp.tensor(inputs[1]))


@_converts("Pow", fold=_fold_power)
def _pow(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Pow in the base's element type; an exponent of another type is converted (an
    integer base with a float exponent is raised in double precision and truncated)."""
    em = imp.em
    base, exponent = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    if em.dtype(base) == em.dtype(exponent):
        return em.op("power", base, exponent)
    if dtypes.is_float(em.dtype(base)):
        return em.op("power", base, em.cast(exponent, em.dtype(base)))
    wide = em.op("power", em.cast(base, dtypes.F64), em.cast(exponent, dtypes.F64))
    return em.cast(wide, em.dtype(base))


def _variadic(relax_name: str) -> _Converter:
    def convert(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
        result = imp.tensor(inputs[0])
        for value in inputs[1:]:
            result = imp.em.op(relax_name, result, imp.tensor(value))
        return result

    return convert


def _fold_extreme(np_fn: Callable[..., Any], size_fn: Callable[..., Any]) -> Callable[..., Any]:
    def fold(imp: _Importer, a: list[np.ndarray], attrs: dict) -> Any:
        shape = _broadcast_known(a, "the result")
        if all(v.dtype != object for v in a):
            return np_fn.reduce([np.broadcast_to(v, shape) for v in a])
        result = np.empty(shape, object)
        arrays = [np.broadcast_to(v, shape) for v in a]
        for index in np.ndindex(shape):
            result[index] = size_fn(*(symbolic.as_expr(_int(v[index])) for v in arrays))
        return result

    return fold


def _fold_sum(imp: _Importer, a: list[np.ndarray], attrs: dict) -> Any:
    shape = _broadcast_known(a, "the sum")
    total = np.broadcast_to(a[0], shape)
    for value in a[1:]:
        total = total + value
    return total


_converts("Max", fold=_fold_extreme(np.maximum, symbolic.smax))(_variadic("maximum"))
_converts("Min", fold=_fold_extreme(np.minimum, symbolic.smin))(_variadic("minimum"))
_converts("Sum", fold=_fold_sum)(_variadic("add"))


@_converts("Mean")
def _mean(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    total = _variadic("add")(imp, node, inputs, attrs)
    return imp.em.op("divide", total, imp.em.scalar(len(inputs), total))


_converts("And", fold=_fold_broadcasting(np.logical_and))(_binary("bitwise_and"))
_converts("Or", fold=_fold_broadcasting(np.logical_or))(_binary("bitwise_or"))
_converts("Xor", fold=_fold_broadcasting(np.logical_xor))(_binary("bitwise_xor"))


def _fmod_flag(imp: _Importer, attrs: dict, dtype_kind: str) -> bool:
    """Mod's ``fmod``: 1 takes the sign of the dividend (C's fmod), 0 the divisor's;
    floating-point operands need 1 before opset 28."""
    fmod = _flag(attrs, "fmod")
    if dtype_kind == "f" and not fmod and imp.opset < 28:
        raise FrontendError(
            f"fmod is 0 with floating-point operands; expected 1 before opset 28 (got {imp.opset})"
        )
    return fmod


def _fold_mod(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    shape = _broadcast_known(a, "the remainder")
    lhs, rhs = np.broadcast_to(a[0], shape), np.broadcast_to(a[1], shape)
    fmod = _fmod_flag(imp, attrs, "f" if "f" in (lhs.dtype.kind, rhs.dtype.kind) else "i")
    if lhs.dtype != object and rhs.dtype != object:
        if lhs.dtype.kind in "iu" and np.any(rhs == 0):
            raise FrontendError("integer remainder by zero")
        return np.fmod(lhs, rhs) if fmod else np.mod(lhs, rhs)
    result = np.empty(shape, object)
    for index in np.ndindex(shape):
        result[index] = _size_division(lhs[index], rhs[index], symbolic.floormod)
    return result


@_converts("Mod", fold=_fold_mod)
def _mod(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em = imp.em
    _no_zero_divisor(inputs[1], "remainder")
    a, b = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    fmod = _fmod_flag(imp, attrs, "f" if dtypes.is_float(em.dtype(a)) else "i")
    return em.op("fmod", a, b) if fmod else _floored_remainder(imp, a, b)


def _floored_remainder(imp: _Importer, a: SSAValue, b: SSAValue) -> SSAValue:
    """``a mod b`` with the sign of b, as numpy's ``mod`` (ONNX's reference) computes
    it: fmod, plus b where the remainder is non-zero and the signs differ; a zero
    remainder of floating-point operands takes b's sign."""
    em = imp.em
    result = em.remainder(a, b)
    if not dtypes.is_float(em.dtype(result)):
        return result
    zero = em.scalar(0.0, result)
    signed_zero = em.op("where", em.op("less", b, zero), em.scalar(-0.0, result), zero)
    return em.op("where", em.op("equal", result, zero), signed_zero, result)


_converts("BitwiseAnd")(_binary("bitwise_and"))
_converts("BitwiseOr")(_binary("bitwise_or"))
_converts("BitwiseXor")(_binary("bitwise_xor"))


@_converts("BitwiseNot")
def _bitwise_not(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``x`` xor all ones (every bit flipped)."""
    x = imp.tensor(inputs[0])
    return imp.em.op("bitwise_xor", x, imp.em.scalar(dtypes.all_ones(imp.em.dtype(x)), x))


@_converts("BitShift")
def _bit_shift(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``x << y`` as ``x * 2 ** y``, ``x >> y`` as ``x / 2 ** y`` floored, exactly (the
    product wraps around). A shift by a negative amount or one at least as wide as the
    type gives what the sign fills in (ONNX): 0, or -1 for a right shift of a negative
    x. ``2 ** y`` wraps to 0 for such a shift of an unsigned x, and relax's integer
    division by 0 gives 0."""
    em, x, y = imp.em, imp.tensor(inputs[0]), imp.tensor(inputs[1])
    direction = attrs.get("direction", b"")
    direction = direction.decode() if isinstance(direction, bytes) else direction
    if direction not in ("LEFT", "RIGHT"):
        raise FrontendError(f"direction must be LEFT or RIGHT, got {direction!r}")
    if not dtypes.is_integer(em.dtype(x)):
        raise Unsupported(f"{dtypes.NAME_OF[em.dtype(x)]} (BitShift shifts integers)")
    two = em.scalar(2, x)
    if direction == "LEFT":  # 2 ** y is 0 for y < 0 (truncated) and wraps to 0 for y >= width
        return em.op("multiply", x, em.op("power", two, y))
    if dtypes.is_unsigned(em.dtype(x)):
        return em.op("divide", x, em.op("power", two, y))
    # 2 ** (width - 1) wraps to the lowest value: that shift is the sign fill too.
    width = dtypes.numpy_dtype(em.dtype(x)).itemsize * 8
    exact = em.op(
        "bitwise_and",
        em.op("greater_equal", y, em.scalar(0, y)),
        em.op("less", y, em.scalar(width - 1, y)),
    )
    divisor = em.op("power", two, em.op("where", exact, y, em.scalar(0, y)))
    quotient = em.op("divide", x, divisor)  # truncated: one too large below zero if inexact
    inexact = em.op("greater", em.op("multiply", quotient, divisor), x)
    floored = em.op("subtract", quotient, em.cast(inexact, em.dtype(x)))
    negative = em.op("less", x, em.scalar(0, x))
    fill = em.op("where", negative, em.scalar(-1, x), em.scalar(0, x))
    return em.op("where", exact, floored, fill)


@_converts("IsInf")
def _isinf(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    positive = em.op("equal", x, em.scalar(float("inf"), x))
    negative = em.op("equal", x, em.scalar(float("-inf"), x))
    found = [m for m, flag in ((positive, "detect_positive"), (negative, "detect_negative"))
             if _flag(attrs, flag, 1)]  # fmt: skip
    if not found:
        return em.full(em.dims(x), False, dtypes.I1)
    return found[0] if len(found) == 1 else em.op("bitwise_or", *found)


@_converts("Sign")
def _sign(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """1, -1 or 0 by the sign of x (NaN stays NaN)."""
    em, x = imp.em, imp.tensor(inputs[0])
    zero = em.scalar(0, x)
    sign = em.op(
        "where",
        em.op("greater", x, zero),
        em.scalar(1, x),
        em.op("where", em.op("less", x, zero), em.scalar(-1, x), zero),
    )
    return em.op("where", em.op("isnan", x), x, sign) if dtypes.is_float(em.dtype(x)) else sign


@_converts("Shrink")
def _shrink(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    lambd, bias = attrs.get("lambd", 0.5), attrs.get("bias", 0.0)
    below = em.op("less", x, em.scalar(-lambd, x))
    above = em.op("greater", x, em.scalar(lambd, x))
    inner = em.op("where", above, em.op("subtract", x, em.scalar(bias, x)), em.scalar(0, x))
    return em.op("where", below, em.op("add", x, em.scalar(bias, x)), inner)


@_converts("Not", fold=lambda imp, a, attrs: np.logical_not(a[0]))
def _not(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.op("equal", x, imp.em.const(False, dtypes.I1))


def _fold_where(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    _broadcast_known(a, "the result")
    return np.where(a[0], a[1], a[2])


@_converts("Where", fold=_fold_where)
def _where(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    cond, x, y = (imp.tensor(v) for v in inputs)
    return imp.em.op("where", cond, x, y)


@_converts("Cast", fold=lambda imp, a, attrs: _cast_known(a[0], attrs["to"]))
def _cast(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.cast(x, dtypes.from_numpy(_cast_target(attrs["to"])))


@_converts("BitCast")
def _bit_cast(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """The bits of x as another type of their width: between integers (and from i1, a
    byte of 0 or 1), the cast, which keeps the bits; a float's bits have no relax
    operator."""
    x = imp.tensor(inputs[0])
    source, target = imp.em.dtype(x), dtypes.from_numpy(_cast_target(attrs["to"]))
    if dtypes.numpy_dtype(source).itemsize != dtypes.numpy_dtype(target).itemsize:
        shown = f"{dtypes.NAME_OF[source]} to {dtypes.NAME_OF[target]}"
        raise FrontendError(f"BitCast needs types of one width, got {shown}")
    if source != target and not (dtypes.is_integer(target) and not dtypes.is_float(source)):
        shown = f"{dtypes.NAME_OF[source]} to {dtypes.NAME_OF[target]}"
        raise Unsupported(f"{shown}: a float's bits, which no relax operator reads")
    return imp.em.cast(x, target)


def _fold_cast_like(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    target = np.int64 if a[1].dtype == object else a[1].dtype
    return _cast_known(a[0], helper.np_dtype_to_tensor_dtype(np.dtype(target)))


@_converts("CastLike", fold=_fold_cast_like)
def _cast_like(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x, like = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    return imp.em.cast(x, imp.em.dtype(like))


def _cast_known(array: np.ndarray, to: int) -> np.ndarray:
    target = _cast_target(to)
    if array.dtype == object:
        if target.kind in "iu":
            return array
        array = _canonical(array)
        if array.dtype == object:
            raise Unsupported("a symbolic size as a number")  # cast in the IR instead
    return dtypes.astype(array, target)


# ------------------------------------------------------------------ linear algebra


@_converts("MatMul")
def _matmul(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    return imp.em.op("matmul", imp.tensor(inputs[0]), imp.tensor(inputs[1]))


@_converts("Gemm")
def _gemm(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em = imp.em
    a, b = imp.tensor(inputs[0]), imp.tensor(inputs[1])
    c = _given(inputs, 2)
    trans_a, trans_b = _flag(attrs, "transA"), _flag(attrs, "transB")
    c_value = None if c is None else imp.tensor(c)
    exact = imp.opset < 7 and not attrs.get("broadcast", 0)
    if c_value is not None:
        rows = em.dims(a)[1 if trans_a else 0]
        columns = em.dims(b)[0 if trans_b else 1]
        c_dims = em.dims(c_value)
        if exact and (len(c_dims) != 2 or symbolic.prove_not_equal(c_dims[0], rows)):
            raise FrontendError(
                f"C has shape {symbolic.format_dims(c_dims)}; with broadcast=0 it must be "
                f"the product's [{symbolic.format_expr(rows)}, {symbolic.format_expr(columns)}]"
            )
        # C broadcasts to [M, N] one way: it may not widen the product.
        for have, want in zip(reversed(c_dims), (columns, rows), strict=False):
            if have != 1 and symbolic.prove_not_equal(have, want):
                raise FrontendError(
                    f"C of shape {symbolic.format_dims(c_dims)} does not broadcast to the "
                    f"product's [{symbolic.format_expr(rows)}, {symbolic.format_expr(columns)}]"
                )
        if len(c_dims) > 2:
            raise FrontendError(f"C has rank {len(c_dims)}, expected at most 2")
    return em.gemm(
        a,
        b,
        c_value,
        alpha=attrs.get("alpha", 1.0),
        beta=attrs.get("beta", 1.0),
        trans_a=trans_a,
        trans_b=trans_b,
    )


@_converts("Constant")
def _constant(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    if "value" in attrs:
        array = _tensor_array(attrs["value"], "its value")
        return array if isinstance(array, _Unrepresentable) else _Known(array)
    for key, dtype in (
        ("value_float", np.float32),
        ("value_floats", np.float32),
        ("value_int", np.int64),
        ("value_ints", np.int64),
    ):
        if key in attrs:
            return _Known(np.asarray(attrs[key], dtype))
    raise Unsupported(f"attribute {next(iter(attrs), 'none')}")


@_converts("Shape")
def _shape(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    dims = imp.dims(inputs[0])
    rank = len(dims)
    start = attrs.get("start", 0)
    end = attrs.get("end", rank)
    start, end = (max(0, min(rank, p + rank if p < 0 else p)) for p in (start, end))
    return _Known(_sizes_array(dims[start:end]))


@_converts("Size")
def _size(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    total = symbolic.simplify(sympy.Mul(*imp.dims(inputs[0])))
    return _Known(_canonical(np.asarray(total, object)))


def _integer_indices(array: np.ndarray) -> np.ndarray:
    """Known indices as integers (sizes that are numbers), else left to the IR."""
    array = _canonical(array)
    if array.dtype == object:
        raise Unsupported("symbolic indices")
    return array


def _fold_gather(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    data, indices = a[0], _integer_indices(a[1])
    axis = _axis(attrs.get("axis", 0), data.ndim)
    indices = _checked_indices(indices, sympy.Integer(data.shape[axis]), axis)
    shape = [*data.shape[:axis], *indices.shape, *data.shape[axis + 1 :]]
    _folded_shape(shape, data.dtype if data.dtype != object else np.int64, "the result")
    return np.take(data, indices, axis=axis)


@_converts("Gather", fold=_fold_gather)
def _gather(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    axis = _axis(attrs.get("axis", 0), em.ndim(x))
    indices = inputs[1]
    size = em.dims(x)[axis]
    if isinstance(indices, _Known) and _canonical(indices.array).dtype != object:
        checked = _checked_indices(_canonical(indices.array), size, axis)
        if checked.ndim == 0 and size.is_Integer:
            return em.select(x, axis, int(checked))
        return em.op("take", x, em.const(checked), axis=axis)
    return em.op("take", x, imp.tensor(indices), axis=axis)


@_converts("GatherElements")
def _gather_elements(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    axis = _axis(attrs.get("axis", 0), em.ndim(x))
    indices = inputs[1]
    if isinstance(indices, _Known) and _canonical(indices.array).dtype != object:
        _checked_indices(_canonical(indices.array), em.dims(x)[axis], axis)
    return em.op("gather_elements", x, imp.tensor(indices), axis=axis)


@_converts("GatherND")
def _gather_nd(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x, indices = imp.em, imp.tensor(inputs[0]), imp.tensor(inputs[1])
    batch_dims = attrs.get("batch_dims", 0)
    rank, index_rank = em.ndim(x), em.ndim(indices)
    if not 0 <= batch_dims < min(rank, index_rank):
        raise FrontendError(
            f"batch_dims is {batch_dims}, expected [0, {min(rank, index_rank) - 1}]"
        )
    known = inputs[1]
    if isinstance(known, _Known) and _canonical(known.array).dtype != object:
        array = _canonical(known.array)
        depth = array.shape[-1]
        for k in range(depth):
            _checked_indices(array[..., k], em.dims(x)[batch_dims + k], batch_dims + k)
    return em.op("gather_nd", x, indices, batch_dims=batch_dims or None)


@_converts("CumSum", "CumProd")
def _cumsum(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Running sums or products; ``reverse`` scans the reversed axis and reverses back
    (the same order of operations as onnxruntime)."""
    em, x = imp.em, imp.tensor(inputs[0])
    scan = "cumsum" if node.op_type == "CumSum" else "cumprod"
    if not isinstance(inputs[1], _Known):
        return _cumsum_at_run_time(imp, scan, x, inputs[1], attrs)
    axes = imp.ints(inputs[1], "axis")
    if len(axes) != 1:
        raise FrontendError(f"axis has {len(axes)} values, expected 1")
    axis = _axis(axes[0], em.ndim(x))
    reverse = _flag(attrs, "reverse")
    exclusive = _flag(attrs, "exclusive")
    if reverse:
        x = em.slice(x, axis, -1, _I64_MIN, -1)
    y = em.op(scan, x, axis=axis, exclusive=exclusive or None, dtype=em.dtype(x))
    return em.slice(y, axis, -1, _I64_MIN, -1) if reverse else y


def _cumsum_at_run_time(
    imp: _Importer, scan: str, x: SSAValue, given: _Value, attrs: dict
) -> SSAValue:
    """CumSum or CumProd (``scan``) along an axis known only at run time."""
    em = imp.em
    axis = _run_time_ints(imp, given, "axis", scalar=True)
    along = {"axes": em.reshape(axis, [1])}

    def reversed_(value: SSAValue) -> SSAValue:
        flipped = _with_run_time_attrs(
            imp, "strided_slice", [value], along, begin=[-1], end=[_I64_MIN], strides=[-1]
        )
        return em.match(flipped, em.dims(x))

    if _flag(attrs, "reverse"):
        x = reversed_(x)
    exclusive = _flag(attrs, "exclusive") or None
    y = _with_run_time_attrs(imp, scan, [x], {"axis": axis}, exclusive=exclusive, dtype=em.dtype(x))
    y = em.match(y, em.dims(x))
    return reversed_(y) if _flag(attrs, "reverse") else y


def _fold_range(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    """Range as onnxruntime computes it: ``ceil((limit - start) / delta)`` elements, an
    integer range exactly, a floating-point one by repeated addition of delta."""
    _range_bounds(a)
    if any(v.dtype == object for v in a):
        raise Unsupported("a symbolic Range")
    dtype = a[0].dtype
    start, limit, delta = (v.reshape(-1)[0] for v in a)
    if delta == 0:
        raise FrontendError("delta is 0")
    if dtype.kind in "iu":
        start, limit, delta = int(start), int(limit), int(delta)
        length = max(-((start - limit) // delta), 0)
        _folded_shape([length], dtype, "the range")
        return (start + delta * np.arange(length, dtype=np.int64)).astype(dtype)
    length = max(math.ceil(float(np.asarray(limit - start, dtype)) / float(delta)), 0)
    _folded_shape([length], dtype, "the range")
    steps = np.full(length, delta, dtype)
    if length:
        steps[0] = start
    return np.add.accumulate(steps, dtype=dtype)


def _range_bounds(bounds: Sequence[Any]) -> None:
    """Range's start, limit and delta must be scalars."""
    for name, bound in zip(("start", "limit", "delta"), bounds, strict=True):
        shape = list(np.shape(bound)) if isinstance(bound, np.ndarray) else None
        if shape is not None and math.prod(shape) != 1:
            raise FrontendError(f"{name} has shape {shape}, expected a scalar")


@_converts("Range", fold=_fold_range)
def _range(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Bounds known at import time (sizes) become prim values: a symbolic length."""
    em = imp.em
    _range_bounds([v.array if isinstance(v, _Known) else None for v in inputs])
    kinds = {_value_dtype(imp, v).kind for v in inputs}
    if "f" in kinds:
        return _float_range(imp, inputs)
    delta = inputs[2]
    if isinstance(delta, _Known) and imp.sizes(delta, "delta") == [0]:
        raise FrontendError("delta is 0")
    bounds = []
    for value in inputs:
        bound = imp.scalar(value, "Range bound")
        if isinstance(bound.type, TensorType):
            bound = em.cast(em.reshape(bound, []), dtypes.I64)
        bounds.append(bound)
    dtype = _relax_dtype(_value_dtype(imp, inputs[0]))
    return em.op("arange", *bounds, dtype=dtype)


def _float_range(imp: _Importer, inputs: list[_Value]) -> SSAValue:
    """A floating-point Range whose bounds are known only at run time, as onnxruntime
    computes it: ``ceil((limit - start) / delta)`` elements, start then repeated
    additions of delta in the element type (a running sum on the safety net, which
    adds in order); a delta of 0 or a count that is not finite is refused when it
    runs (the range's step becomes 0)."""
    em, f64, i64 = imp.em, dtypes.F64, dtypes.I64
    start, limit, delta = (em.reshape(imp.tensor(v), []) for v in inputs)
    dtype = em.dtype(start)
    if dtype not in (dtypes.F32, dtypes.F64):
        raise Unsupported(f"{dtypes.NAME_OF[dtype]} bounds computed at run time")
    quotient = em.op("divide", em.cast(em.op("subtract", limit, start), f64), em.cast(delta, f64))
    truncated = em.cast(quotient, i64)
    above = em.op("less", em.cast(truncated, f64), quotient)
    count = em.op("maximum", em.op("add", truncated, em.cast(above, i64)), em.const(0, i64))
    finite = em.op("less", em.op("abs", quotient), em.const(2.0**62, f64))
    step = em.cast(finite, i64)
    positions = em.op("arange", em.const(0, i64), count, step, dtype=i64)
    first = em.op("equal", positions, em.const(0, i64))
    return em.op("cumsum", em.op("where", first, start, delta), axis=0, dtype=dtype)


def _value_dtype(imp: _Importer, value: _Value) -> np.dtype:
    """The numpy element type of a value (sizes are int64)."""
    if isinstance(value, _Known):
        return np.dtype(np.int64) if value.array.dtype == object else value.array.dtype
    return np.dtype(dtypes.numpy_name(imp.em.dtype(imp.tensor(value))))


def _tile_repeats(imp: _Importer, value: _Value, rank: int) -> list[sympy.Expr]:
    if isinstance(value, _Known):
        repeats = imp.sizes(value, "repeats")
    else:
        repeats = _run_time_sizes(imp, value, "repeats")
    if len(repeats) != rank:
        raise FrontendError(f"repeats has {len(repeats)} values, expected {rank} (the rank)")
    if any(r.is_Integer and int(r) < 0 for r in repeats):
        raise FrontendError(f"repeats {symbolic.format_dims(repeats)} has a negative value")
    return repeats


def _fold_tile(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    repeats = _static(_tile_repeats(imp, _Known(a[1]), a[0].ndim))
    if repeats is None:
        raise Unsupported("symbolic repeats")
    shape = [d * r for d, r in zip(a[0].shape, repeats, strict=True)]
    _folded_shape(shape, a[0].dtype if a[0].dtype != object else np.int64, "the result")
    return np.tile(a[0], repeats)


@_converts("Tile", fold=_fold_tile)
def _tile(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    repeats = _tile_repeats(imp, inputs[1], imp.em.ndim(x))
    return imp.em.tile(x, repeats)


def _fold_concat(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    axis = _axis(attrs["axis"], a[0].ndim)
    return np.concatenate(a, axis=axis)


@_converts("Concat", fold=_fold_concat)
def _concat(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    values = [imp.tensor(v) for v in inputs]
    axis = _axis(attrs["axis"], imp.em.ndim(values[0]))
    if len(values) == 1:
        return values[0]
    return imp.em.op("concat", *values, axis=axis)


def _slice_spec(imp: _Importer, inputs: list[_Value], attrs: dict, rank: int) -> list:
    """``(axis, start, end, step)`` per sliced axis, from inputs (opset >= 10) or
    attributes, checked."""
    if imp.opset < 10:
        starts, ends = [symbolic.as_expr(s) for s in attrs["starts"]], attrs["ends"]
        ends = [symbolic.as_expr(e) for e in ends]
        axes = list(attrs.get("axes", range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts = imp.sizes(inputs[1], "starts")
        ends = imp.sizes(inputs[2], "ends")
        given_axes = _given(inputs, 3)
        axes = imp.ints(given_axes, "axes") if given_axes is not None else list(range(len(starts)))
        given_steps = _given(inputs, 4)
        steps = imp.ints(given_steps, "steps") if given_steps is not None else [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise FrontendError(
            f"starts, ends, axes and steps have {len(starts)}, {len(ends)}, {len(axes)} and "
            f"{len(steps)} values; expected as many each"
        )
    axes = _axes(axes, rank)
    if 0 in steps:
        raise FrontendError("a step is 0")
    return list(zip(axes, starts, ends, steps, strict=True))


def _fold_slice(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    data = a[0]
    known = [None if v is None else _Known(v) for v in a]
    index: list[Any] = [slice(None)] * data.ndim
    for axis, start, end, step in _slice_spec(imp, known, attrs, data.ndim):
        if not (start.is_Integer and end.is_Integer):
            raise Unsupported("a symbolic slice bound")
        index[axis] = slice(int(start), int(end), step)
    return data[tuple(index)]


@_converts("Slice", fold=_fold_slice)
def _slice(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    given = [_given(inputs, i) for i in range(1, 5)]
    if imp.opset >= 10 and any(v is not None and not isinstance(v, _Known) for v in given):
        return _slice_at_run_time(imp, x, given)
    for axis, start, end, step in _slice_spec(imp, inputs, attrs, imp.em.ndim(x)):
        if end.is_Integer:
            end = sympy.Integer(max(min(int(end), _I64_MAX), _I64_MIN))
        if start.is_Integer:
            start = sympy.Integer(max(min(int(start), _I64_MAX), _I64_MIN))
        x = imp.em.slice(x, axis, start, end, step)
    return x


def _slice_at_run_time(imp: _Importer, x: SSAValue, given: list[_Value]) -> SSAValue:
    """Slice with starts, ends, axes or steps known only at run time (numpy's slicing,
    which clamps as ONNX does)."""
    em = imp.em
    names = ("begin", "end", "axes", "strides")
    what = ("starts", "ends", "axes", "steps")
    static: dict[str, Any] = {}
    run_time: dict[str, SSAValue] = {}
    lengths = []
    for name, label, value in zip(names, what, given, strict=True):
        if value is None:
            continue
        if isinstance(value, _Known) and all(e.is_Integer for e in imp.sizes(value, label)):
            static[name] = imp.ints(value, label)
            lengths.append(len(static[name]))
        else:
            run_time[name] = _run_time_ints(imp, value, label)
            lengths.append(int(em.dims(run_time[name])[0]))
    if len(set(lengths)) != 1:
        raise FrontendError(f"starts, ends, axes and steps have {lengths} values; expected as many")
    count = lengths[0]
    if "axes" not in static and "axes" not in run_time:
        static["axes"] = list(range(count))
    if "axes" in static:
        static["axes"] = _axes(static["axes"], em.ndim(x))
    if "strides" in static and 0 in static["strides"]:
        raise FrontendError("a step is 0")
    y = _with_run_time_attrs(imp, "strided_slice", [x], run_time, **static)
    sliced = set(static.get("axes", range(em.ndim(x))))
    return _named(imp, y, [None if a in sliced else d for a, d in enumerate(em.dims(x))])


def _squeezed_axes(imp: _Importer, value: _Value, inputs: list[_Value], attrs: dict) -> list:
    """The axes Squeeze removes: each must have size 1 (a symbolic one is checked at
    run time); without axes, every axis of size 1."""
    dims = imp.dims(value)
    axes = _axes_input(imp, inputs, attrs, 1) if imp.opset >= 13 else attrs.get("axes")
    if axes is None:
        if any(not d.is_Integer for d in dims):
            raise Unsupported("squeezing a tensor of symbolic shape without axes")
        return [a for a, d in enumerate(dims) if d == 1]
    chosen = _axes(list(axes), len(dims))
    for axis in chosen:
        if dims[axis].is_Integer and dims[axis] != 1:
            raise FrontendError(f"axis {axis} has size {dims[axis]}, expected 1 to squeeze it")
    return sorted(chosen)


def _fold_squeeze(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    known = [None if v is None else _Known(v) for v in a]
    return np.squeeze(a[0], axis=tuple(_squeezed_axes(imp, known[0], known, attrs)))


@_converts("Squeeze", fold=_fold_squeeze)
def _squeeze(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    given = _given(inputs, 1)
    if imp.opset >= 13 and given is not None and not isinstance(given, _Known):
        axes = _run_time_ints(imp, given, "axes")
        if em.dims(axes)[0] != 0:
            y = _with_run_time_attrs(imp, "squeeze", [x], {"axis": axes})
            return _named(imp, y, [None] * (em.ndim(x) - int(em.dims(axes)[0])))
        inputs = inputs[:1]
    chosen = _squeezed_axes(imp, x, inputs, attrs)
    if not chosen:
        return x
    dims = list(em.dims(x))
    if any(not dims[a].is_Integer for a in chosen):
        x = em.match(x, [sympy.Integer(1) if a in chosen else d for a, d in enumerate(dims)])
    return em.op("squeeze", x, axis=chosen)


def _unsqueezed_axes(imp: _Importer, rank: int, inputs: list[_Value], attrs: dict) -> list:
    axes = _axes_input(imp, inputs, attrs, 1) if imp.opset >= 13 else attrs.get("axes")
    if axes is None:
        raise FrontendError("axes is absent")
    return sorted(_axes(list(axes), rank + len(axes)))


def _fold_unsqueeze(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    known = [None if v is None else _Known(v) for v in a]
    return np.expand_dims(a[0], tuple(_unsqueezed_axes(imp, a[0].ndim, known, attrs)))


@_converts("Unsqueeze", fold=_fold_unsqueeze)
def _unsqueeze(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    given = _given(inputs, 1)
    if imp.opset >= 13 and given is not None and not isinstance(given, _Known):
        axes = _run_time_ints(imp, given, "axes")
        y = _with_run_time_attrs(imp, "expand_dims", [x], {"axis": axes})
        return _named(imp, y, [None] * (imp.em.ndim(x) + int(imp.em.dims(axes)[0])))
    return imp.em.op("expand_dims", x, axis=_unsqueezed_axes(imp, imp.em.ndim(x), inputs, attrs))


def _target_dims(
    imp: _Importer, dims: Sequence[sympy.Expr], shape: _Value, attrs: dict
) -> list[sympy.Expr]:
    """A Reshape target: 0 copies the input's dimension (unless ``allowzero``), one
    -1 is inferred from the element count."""
    target = imp.sizes(shape, "shape")
    allowzero = _flag(attrs, "allowzero")
    numbers = [int(d) for d in target if d.is_Integer]
    if any(d < -1 for d in numbers):
        raise FrontendError(f"shape {symbolic.format_dims(target)} has a value below -1")
    if numbers.count(-1) > 1:
        raise FrontendError(f"shape {symbolic.format_dims(target)} has more than one -1")
    if allowzero and 0 in numbers and -1 in numbers:
        raise FrontendError(f"shape {symbolic.format_dims(target)} has 0 and -1 with allowzero")
    if not allowzero:
        for index, d in enumerate(target):
            if d == 0:
                if index >= len(dims):
                    raise FrontendError(
                        f"shape {symbolic.format_dims(target)}: 0 at position {index} copies a "
                        f"dimension the input (rank {len(dims)}) lacks"
                    )
                target[index] = dims[index]
    if -1 in target:
        index = target.index(-1)
        total = symbolic.simplify(sympy.Mul(*dims))
        known = symbolic.simplify(sympy.Mul(*(d for i, d in enumerate(target) if i != index)))
        if known == 0:
            raise FrontendError(
                f"shape {symbolic.format_dims(target)}: -1 cannot be inferred beside a 0"
            )
        if total.is_Integer and known.is_Integer:
            if int(total) % int(known):
                raise FrontendError(
                    f"cannot reshape {symbolic.format_dims(dims)} ({total} elements) to "
                    f"{symbolic.format_dims(target)}"
                )
            target[index] = sympy.Integer(int(total) // int(known))
        else:
            quotient = sympy.cancel(total / known)
            if quotient.is_polynomial() and sympy.fraction(quotient)[1] == 1:
                target[index] = sympy.expand(quotient)
    return target


def _run_time_target(
    imp: _Importer, dims: Sequence[sympy.Expr], shape: _Value, attrs: dict
) -> list[sympy.Expr]:
    """A Reshape target known only at run time, as new symbolic variables: its 0
    entries copy the input's dimension (unless ``allowzero``) and its first -1 is the
    element count over the others', computed in the IR; any other negative entry (a
    second -1, a 0 beyond the input's rank) is refused when it runs."""
    em = imp.em
    target = _run_time_ints(imp, shape, "shape")
    length = int(em.dims(target)[0])
    i64 = dtypes.I64

    if not _flag(attrs, "allowzero"):
        copied = _sizes_value(imp, [dims[i] if i < len(dims) else -2 for i in range(length)])
        target = em.op("where", em.op("equal", target, em.const(0, i64)), copied, target)
    minus = em.op("equal", target, em.const(-1, i64))
    seen = em.op("cumsum", em.cast(minus, i64), axis=0)
    first = em.op("bitwise_and", minus, em.op("equal", seen, em.const(1, i64)))
    others = em.op("prod", em.op("where", minus, em.const(1, i64), target))
    total = em.full([], symbolic.simplify(sympy.Mul(*dims)), i64)
    target = em.op("where", first, em.op("divide", total, others), target)
    return _run_time_sizes(imp, target, "shape")


def _fold_reshape(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    dims = [sympy.Integer(d) for d in a[0].shape]
    target = _static(_target_dims(imp, dims, _Known(a[1]), attrs))
    if target is None or math.prod(target) != a[0].size:
        raise Unsupported("a reshape the IR checks")
    return a[0].reshape(target)


@_converts("Reshape", fold=_fold_reshape)
def _reshape(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    if not isinstance(inputs[1], _Known):
        return imp.em.reshape(x, _run_time_target(imp, imp.em.dims(x), inputs[1], attrs))
    return imp.em.reshape(x, _target_dims(imp, imp.em.dims(x), inputs[1], attrs))


def _flattened(dims: Sequence[sympy.Expr], attrs: dict) -> list[sympy.Expr]:
    rank = len(dims)
    axis = attrs.get("axis", 1)
    if not -rank <= axis <= rank:
        raise FrontendError(f"axis {axis} is out of range: expected [{-rank}, {rank}]")
    axis = axis + rank if axis < 0 else axis
    outer = symbolic.simplify(sympy.Mul(*dims[:axis]))
    inner = symbolic.simplify(sympy.Mul(*dims[axis:]))
    return [outer, inner]


@_converts(
    "Flatten",
    fold=lambda imp, a, attrs: a[0].reshape(
        [int(d) for d in _flattened([sympy.Integer(d) for d in a[0].shape], attrs)]
    ),
)
def _flatten(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.reshape(x, _flattened(imp.em.dims(x), attrs))


def _permutation(attrs: dict, rank: int) -> list[int]:
    perm = list(attrs.get("perm") or reversed(range(rank)))
    if sorted(perm) != list(range(rank)):
        raise FrontendError(f"perm {perm} is not a permutation of the {rank} axes")
    return perm


@_converts(
    "Transpose", fold=lambda imp, a, attrs: np.transpose(a[0], _permutation(attrs, a[0].ndim))
)
def _transpose(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    return imp.em.permute(x, _permutation(attrs, imp.em.ndim(x)))


def _expanded_dims(dims: Sequence[sympy.Expr], shape: Sequence[sympy.Expr]) -> list[sympy.Expr]:
    """Expand's result shape: ``dims`` and ``shape`` broadcast both ways."""
    if any(d.is_Integer and int(d) < 0 for d in shape):
        raise FrontendError(f"shape {symbolic.format_dims(shape)} has a negative value")
    rank = max(len(dims), len(shape))
    one = sympy.Integer(1)
    dims = [one] * (rank - len(dims)) + list(dims)
    shape = [one] * (rank - len(shape)) + list(shape)
    target = []
    for a, b in zip(dims, shape, strict=True):
        if b == 1 or symbolic.prove_equal(a, b):
            target.append(a)
        elif a == 1:
            target.append(b)
        elif a.is_Integer and b.is_Integer:
            raise FrontendError(
                f"cannot expand {symbolic.format_dims(dims)} to {symbolic.format_dims(shape)}"
            )
        elif b.is_Integer:
            target.append(b)  # a is 1 or b: broadcast_to checks it at run time
        else:
            raise Unsupported("an expansion whose sizes are only known at run time")
    return target


def _fold_expand(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    shape = _static(
        _expanded_dims([sympy.Integer(d) for d in a[0].shape], imp.sizes(_Known(a[1]), "shape"))
    )
    if shape is None:
        raise Unsupported("a symbolic expansion")
    _folded_shape(shape, a[0].dtype if a[0].dtype != object else np.int64, "the result")
    return np.array(np.broadcast_to(a[0], shape))


@_converts("Expand", fold=_fold_expand)
def _expand(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    if not isinstance(inputs[1], _Known):
        return imp.em.broadcast_to(x, _run_time_expansion(imp, imp.em.dims(x), inputs[1]))
    target = _expanded_dims(imp.em.dims(x), imp.sizes(inputs[1], "shape"))
    return imp.em.broadcast_to(x, target)


def _run_time_expansion(
    imp: _Importer, dims: Sequence[sympy.Expr], shape: _Value
) -> list[sympy.Expr]:
    """Expand's result shape for a shape known only at run time: an entry of 1 keeps the
    input's dimension, any other is the size (``broadcast_to`` checks that the input's
    is 1 or equal), as new symbolic variables."""
    em, i64 = imp.em, dtypes.I64
    target = _run_time_ints(imp, shape, "shape")
    length = int(em.dims(target)[0])
    rank = max(length, len(dims))
    if length < rank:
        target = em.op("concat", em.const(np.ones(rank - length, np.int64)), target, axis=0)
    kept = [sympy.Integer(1)] * (rank - len(dims)) + list(dims)
    own = _sizes_value(imp, kept)
    target = em.op("where", em.op("equal", target, em.const(1, i64)), own, target)
    return _run_time_sizes(imp, target, "shape")


@_converts("ConstantOfShape")
def _constant_of_shape(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    value = np.zeros(1, np.float32)
    if "value" in attrs:
        value = _tensor_array(attrs["value"], "value")
        if isinstance(value, _Unrepresentable):
            raise Unsupported(value.what)
        if value.size != 1:
            raise FrontendError(f"value has {value.size} elements, expected 1")
    if isinstance(inputs[0], _Known):
        dims = imp.sizes(inputs[0], "shape")
    else:
        dims = _run_time_sizes(imp, inputs[0], "shape")
    if any(d.is_Integer and int(d) < 0 for d in dims):
        raise FrontendError(f"shape {symbolic.format_dims(dims)} has a negative value")
    fill = value.reshape(-1)[0]
    static = _static(dims)
    if static is not None:
        _checked_elements(static, value.dtype, "the result")
        if math.prod(static) <= _SMALL:
            return _Known(np.full(static, fill, value.dtype))
    dtype = _relax_dtype(value.dtype)
    if dtype is None:
        raise Unsupported(f"a {value.dtype} value")
    return imp.em.op("full", imp.em.shape(dims), imp.em.const(fill, dtype))


def _split_sizes(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict, size: sympy.Expr
) -> list[sympy.Expr]:
    """The sizes of Split's parts: given (they must add up to the axis), or
    ``num_outputs`` (opset 18: parts of ``ceil(size / n)``, the last smaller) or the
    number of outputs (equal parts)."""
    outputs = len(node.output)
    given = attrs.get("split") if imp.opset < 13 else _given(inputs, 1)
    if given is not None:
        if imp.opset < 13:
            sizes = list(given)
        elif isinstance(given, _Known):
            sizes = imp.sizes(given, "split")
        else:
            sizes = _run_time_sizes(imp, given, "split")
        sizes = [symbolic.as_expr(s) for s in sizes]
        if len(sizes) != outputs:
            raise FrontendError(f"split has {len(sizes)} sizes for {outputs} outputs")
        if any(s.is_Integer and int(s) < 0 for s in sizes):
            raise FrontendError(f"split {symbolic.format_dims(sizes)} has a negative size")
        total = symbolic.simplify(sympy.Add(*sizes))
        if symbolic.prove_not_equal(total, size):
            raise FrontendError(
                f"split {symbolic.format_dims(sizes)} adds up to {symbolic.format_expr(total)}, "
                f"expected the axis size {symbolic.format_expr(size)}"
            )
        return sizes
    parts = attrs.get("num_outputs", outputs)
    if parts != outputs:
        raise FrontendError(f"num_outputs is {parts}, but the node has {outputs} outputs")
    if not size.is_Integer:
        raise Unsupported("a split of a symbolic size without sizes")
    if "num_outputs" in attrs:
        chunk = -(-int(size) // parts)
        sizes = [chunk] * (parts - 1) + [int(size) - chunk * (parts - 1)]
        if sizes[-1] < 0:
            raise FrontendError(f"{parts} parts of {chunk} exceed the axis size {size}")
    else:
        if int(size) % parts:
            raise FrontendError(f"the axis size {size} does not split into {parts} equal parts")
        sizes = [int(size) // parts] * parts
    return [sympy.Integer(s) for s in sizes]


@_converts("Split")
def _split(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    dims = imp.dims(inputs[0])
    axis = _axis(attrs.get("axis", 0), len(dims))
    sizes = _split_sizes(imp, node, inputs, attrs, dims[axis])
    static = _static(sizes)
    if isinstance(inputs[0], _Known) and _foldable(inputs[0]) and static is not None:
        return [_Known(p) for p in np.split(inputs[0].array, np.cumsum(static)[:-1], axis=axis)]
    em, x = imp.em, imp.tensor(inputs[0])
    total = symbolic.simplify(sympy.Add(*sizes))
    if not symbolic.prove_equal(total, dims[axis]):
        x = em.match(x, [total if a == axis else d for a, d in enumerate(dims)])
    if len(sizes) == 1:
        return [x]
    if any(not s.is_Integer for s in sizes):
        parts, begin = [], sympy.Integer(0)
        for s in sizes:
            parts.append(em.slice(x, axis, begin, begin + s))
            begin = begin + s
        return parts
    indices = [int(i) for i in np.cumsum([int(s) for s in sizes])[:-1]]
    return em.items(em.op("split", x, indices_or_sections=indices, axis=axis), len(sizes))


@_converts("Trilu")
def _trilu(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    given = _given(inputs, 1)
    name = "triu" if _flag(attrs, "upper", 1) else "tril"
    x = imp.tensor(inputs[0])
    if given is not None and not isinstance(given, _Known):
        k_value = _run_time_ints(imp, given, "k", scalar=True)
        return imp.em.match(_with_run_time_attrs(imp, name, [x], {"k": k_value}), imp.em.dims(x))
    k = 0
    if given is not None:
        values = imp.ints(given, "k")
        if len(values) != 1:
            raise FrontendError(f"k has {len(values)} values, expected 1")
        (k,) = values
    return imp.em.op(name, x, k=k or None)


def _pad_widths(imp: _Importer, inputs: list[_Value], attrs: dict, dims: Sequence) -> list:
    """``(before, after)`` per axis from ``pads`` (input, or attribute before opset 11),
    for ``axes`` (opset 18) or every axis; the result may not be negative."""
    rank = len(dims)
    pads = list(attrs["pads"]) if imp.opset < 11 else imp.ints(inputs[1], "pads")
    given_axes = _given(inputs, 3) if imp.opset >= 18 else None
    axes = _axes(imp.ints(given_axes, "axes"), rank) if given_axes is not None else range(rank)
    axes = list(axes)
    if len(pads) != 2 * len(axes):
        raise FrontendError(f"pads has {len(pads)} values, expected {2 * len(axes)}")
    widths = [(0, 0)] * rank
    for k, axis in enumerate(axes):
        widths[axis] = (pads[k], pads[k + len(axes)])
    for axis, (before, after) in enumerate(widths):
        size = dims[axis]
        if size.is_Integer and int(size) + before + after < 0:
            raise FrontendError(
                f"pads ({before}, {after}) of axis {axis} (size {size}) leave a negative size"
            )
    return widths


def _pad_mode(attrs: dict) -> str:
    return _string(attrs, "mode", "constant", ("constant", "reflect", "edge", "wrap"))


def _fold_pad(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    if _pad_mode(attrs) != "constant":
        raise Unsupported("a pad the IR computes")
    known = [None if v is None else _Known(v) for v in a]
    data = a[0]
    widths = _pad_widths(imp, known, attrs, [sympy.Integer(d) for d in data.shape])
    shape = [size + b + e for size, (b, e) in zip(data.shape, widths, strict=True)]
    _folded_shape(shape, data.dtype if data.dtype != object else np.int64, "the result")
    if imp.opset < 11:
        value = attrs.get("value", 0.0)
    else:
        value = 0 if len(a) < 3 or a[2] is None else a[2].reshape(-1)[0]
    # A negative width removes elements.
    kept = tuple(
        slice(max(-b, 0), size + min(e, 0)) for (b, e), size in zip(widths, data.shape, strict=True)
    )
    grown = [(max(b, 0), max(e, 0)) for b, e in widths]
    return np.pad(data[kept], grown, constant_values=value)


@_converts("Pad", fold=_fold_pad)
def _pad(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    mode = _pad_mode(attrs)
    dims = em.dims(x)
    if imp.opset >= 11 and not isinstance(inputs[1], _Known):
        return _pad_at_run_time(imp, x, inputs, mode)
    widths = _pad_widths(imp, inputs, attrs, dims)
    if mode != "constant":
        return _pad_from_edges(imp, x, widths, mode)
    value = _given(inputs, 2) if imp.opset >= 11 else None
    if value is None or isinstance(value, _Known):
        fill = attrs.get("value", 0.0) if value is None else value.array.reshape(-1)[0].item()
        return em.pad(x, widths, fill)
    for axis, (before, after) in enumerate(widths):
        if before < 0 or after < 0:
            x = em.slice(x, axis, max(-before, 0), after if after < 0 else _I64_MAX)
    flat = [max(w, 0) for pair in widths for w in pair]
    return em.op("pad", x, em.reshape(imp.tensor(value), []), pad_width=flat)


def _pad_from_edges(imp: _Importer, x: SSAValue, widths: Sequence[tuple], mode: str) -> SSAValue:
    """``x`` padded with its own elements (:func:`~xrelax.frontend.padding.pad_from_edges`);
    a negative count removes elements first, as onnxruntime does."""
    em, kept = imp.em, []
    for axis, (before, after) in enumerate(widths):
        before, after = symbolic.as_expr(before), symbolic.as_expr(after)
        if (before.is_Integer and before < 0) or (after.is_Integer and after < 0):
            end = int(after) if after.is_Integer and after < 0 else _I64_MAX
            start = -int(before) if before.is_Integer and before < 0 else 0
            x = em.slice(x, axis, start, end)
        kept.append(tuple(w if not (w.is_Integer and w < 0) else 0 for w in (before, after)))
    return pad_from_edges(em, x, kept, mode)


def _pad_at_run_time(imp: _Importer, x: SSAValue, inputs: list[_Value], mode: str) -> SSAValue:
    """Padding by pads known only at run time: constant (a negative count crops), or of
    x's own elements (the counts as symbolic variables, each non-negative)."""
    em = imp.em
    rank = em.ndim(x)
    given_axes = _given(inputs, 3) if imp.opset >= 18 else None
    if given_axes is not None and not isinstance(given_axes, _Known):
        if mode != "constant":
            raise Unsupported(f"mode={mode} with axes computed at run time")
        return _pad_along_run_time_axes(imp, x, inputs, given_axes)
    axes = list(range(rank)) if given_axes is None else _axes(imp.ints(given_axes, "axes"), rank)
    pads = _run_time_ints(imp, inputs[1], "pads")
    if int(em.dims(pads)[0]) != 2 * len(axes):
        raise FrontendError(f"pads has {em.dims(pads)[0]} values, expected {2 * len(axes)}")
    if mode != "constant":
        sizes = _run_time_sizes(imp, pads, "pads")
        widths: list[tuple[Any, Any]] = [(0, 0)] * rank
        for k, axis in enumerate(axes):
            widths[axis] = (sizes[k], sizes[k + len(axes)])
        return _pad_from_edges(imp, x, widths, mode)
    # pad_width is (before, after) per axis: the pads' positions, 2 * len(axes) for 0
    slots = [2 * len(axes)] * (2 * rank)
    for k, axis in enumerate(axes):
        slots[2 * axis], slots[2 * axis + 1] = k, k + len(axes)
    return _pad_by_slots(imp, x, inputs, pads, em.const(np.array(slots, np.int64)))


def _pad_along_run_time_axes(
    imp: _Importer, x: SSAValue, inputs: list[_Value], given_axes: _Value
) -> SSAValue:
    """Constant padding of the axes known only at run time: each axis finds its pads by
    comparing it with every axis of x (an axis out of range or named twice leaves a
    position out of range, which the gather refuses)."""
    em, i64 = imp.em, dtypes.I64
    rank = em.ndim(x)
    axes = _run_time_ints(imp, given_axes, "axes")
    count = int(em.dims(axes)[0])
    pads = _run_time_ints(imp, inputs[1], "pads")
    if int(em.dims(pads)[0]) != 2 * count:
        raise FrontendError(f"pads has {em.dims(pads)[0]} values, expected {2 * count}")
    if count == 0:
        return x
    rank_value = em.const(rank, i64)
    negative = em.op("less", axes, em.const(0, i64))
    wrapped = em.op("where", negative, em.op("add", axes, rank_value), axes)
    valid = em.op(
        "bitwise_and",
        em.op("greater_equal", wrapped, em.const(0, i64)),
        em.op("less", wrapped, rank_value),
    )
    # one row per given axis, one column per axis of x
    hit = em.op(
        "equal", em.reshape(wrapped, [count, 1]), em.const(np.arange(rank).reshape(1, rank))
    )
    hits = em.op("sum", em.cast(hit, i64), axis=[0])
    rows = em.const(np.arange(count).reshape(count, 1))
    row = em.op("sum", em.op("where", hit, rows, em.const(0, i64)), axis=[0])
    absent, missing = em.const(2 * count, i64), em.op("equal", hits, em.const(0, i64))
    before = em.op("where", missing, absent, row)
    after = em.op("where", missing, absent, em.op("add", row, em.const(count, i64)))
    slots = em.reshape(
        em.op("concat", em.reshape(before, [rank, 1]), em.reshape(after, [rank, 1]), axis=1),
        [2 * rank],
    )
    twice = em.op("greater", em.op("max", hits), em.const(1, i64))
    outside = em.op("less", em.op("min", em.cast(valid, i64)), em.const(1, i64))
    wrong = em.op("bitwise_or", twice, outside)
    slots = em.op("where", wrong, em.const(-1, i64), slots)
    return _pad_by_slots(imp, x, inputs, pads, slots)


def _pad_by_slots(
    imp: _Importer, x: SSAValue, inputs: list[_Value], pads: SSAValue, slots: SSAValue
) -> SSAValue:
    """``x`` padded by ``pad_width[i] = pads[slots[i]]``, a slot of ``len(pads)`` being 0
    (and -1 refused by the gather when it runs, ``negative_indices`` off)."""
    em, i64 = imp.em, dtypes.I64
    rank = em.ndim(x)
    padded = em.op("concat", pads, em.const(np.zeros(1, np.int64)), axis=0)
    widths = em.op("take", padded, slots, axis=0, negative_indices=False)
    zero = em.const(0, i64)
    value = _given(inputs, 2)
    fill = em.scalar(0, x)
    if value is not None:
        fill = em.cast(em.reshape(imp.tensor(value), []), em.dtype(x))
    grown = em.op("maximum", widths, zero)
    y = _with_run_time_attrs(imp, "pad", [x, fill], {"pad_width": grown})
    y = _named(imp, y, [None] * rank)
    # a negative count removes elements: a slice of what the padding left
    begins = em.op("maximum", em.op("negative", widths), zero)
    ends = em.op("where", em.op("less", widths, zero), widths, em.const(_I64_MAX, i64))
    begin = em.op("take", begins, em.const(np.arange(0, 2 * rank, 2)), axis=0)
    end = em.op("take", ends, em.const(np.arange(1, 2 * rank, 2)), axis=0)
    cropped = _with_run_time_attrs(
        imp, "strided_slice", [y], {"begin": begin, "end": end}, axes=list(range(rank))
    )
    return _named(imp, cropped, [None] * rank)


def _scatter_positions(
    indices: np.ndarray, dims: Sequence[sympy.Expr], updates: Sequence[sympy.Expr]
) -> np.ndarray:
    """ScatterND's indices checked: each row addresses the leading axes of data (in
    range, counted from the end when negative) and the updates' shape fits."""
    depth = indices.shape[-1] if indices.ndim else 0
    if indices.ndim == 0 or depth > len(dims):
        raise FrontendError(
            f"indices of shape {list(indices.shape)} do not index data of rank {len(dims)}"
        )
    expected = [*[sympy.Integer(d) for d in indices.shape[:-1]], *dims[depth:]]
    if len(updates) != len(expected) or any(
        symbolic.prove_not_equal(u, e) for u, e in zip(updates, expected, strict=True)
    ):
        raise FrontendError(
            f"updates have shape {symbolic.format_dims(updates)}, expected "
            f"{symbolic.format_dims(expected)}"
        )
    columns = [_checked_indices(indices[..., k], dims[k], k) for k in range(depth)]
    return np.stack(columns, axis=-1) if columns else indices.astype(np.int64)


_SCATTER_UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _fold_scatter_nd(imp: _Importer, a: list[np.ndarray], attrs: dict) -> np.ndarray:
    data, indices, updates = a[0], _integer_indices(a[1]), a[2]
    reduction = _string(attrs, "reduction", "none", ("none", *_SCATTER_UFUNCS))
    dims = [sympy.Integer(d) for d in data.shape]
    positions = _scatter_positions(indices, dims, [sympy.Integer(d) for d in updates.shape])
    result = data.copy()
    where = tuple(np.moveaxis(positions, -1, 0))
    if reduction == "none":
        result[where] = updates
    else:
        _SCATTER_UFUNCS[reduction].at(result, where, updates)
    return result


@_converts("ScatterND", fold=_fold_scatter_nd)
def _scatter_nd(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """ScatterND with indices known at import: the updated positions of the leading
    axes, flattened, select between the updates (gathered) and the data."""
    em = imp.em
    reduction = _string(attrs, "reduction", "none", ("none", *_SCATTER_UFUNCS))
    if reduction != "none":
        raise Unsupported(f"reduction={reduction}")
    if not isinstance(inputs[1], _Known):
        raise Unsupported("indices computed at run time")
    data, updates = imp.tensor(inputs[0]), imp.tensor(inputs[2])
    dims = em.dims(data)
    positions = _scatter_positions(_integer_indices(inputs[1].array), dims, em.dims(updates))
    depth = positions.shape[-1]
    if not all(d.is_Integer for d in dims[:depth]):
        raise Unsupported("scattering along a symbolic dimension")
    leading = [int(d) for d in dims[:depth]]
    rest = list(dims[depth:])
    # Which update (if any) lands on each position of the leading axes; the last wins.
    flat = np.ravel_multi_index(tuple(np.moveaxis(positions, -1, 0)), leading).ravel()
    count = math.prod(leading)
    source = np.full(count, -1, np.int64)
    source[flat] = np.arange(flat.size)
    written = source >= 0
    rows = em.reshape(data, [count, *rest])
    picked = em.op(
        "take", em.reshape(updates, [flat.size, *rest]), em.const(np.maximum(source, 0)), axis=0
    )
    mask = em.const(written.reshape(count, *[1] * len(rest)))
    return em.reshape(em.op("where", mask, picked, rows), dims)


# ------------------------------------------------------------------ recurrent

_DEFAULT_ACTIVATIONS = {"lstm": ["Sigmoid", "Tanh", "Tanh"], "gru": ["Sigmoid", "Tanh"]}


@_converts("LSTM", "GRU")
def _recurrent(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em = imp.em
    cell = node.op_type.lower()
    direction = _string(attrs, "direction", "forward", ("forward", "reverse", "bidirectional"))
    reverse = {"forward": [False], "reverse": [True], "bidirectional": [False, True]}[direction]
    for unsupported in ("clip", "activation_alpha", "activation_beta"):
        if unsupported in attrs:
            raise Unsupported(unsupported)
    if "activations" in attrs and attrs["activations"] != _DEFAULT_ACTIVATIONS[cell] * len(reverse):
        raise Unsupported(f"activations={attrs['activations']}")
    if _flag(attrs, "input_forget"):
        raise Unsupported("input_forget")
    if _given(inputs, 7) is not None:
        raise Unsupported("peepholes")
    layout = _flag(attrs, "layout")
    x, w, r = (imp.tensor(v) for v in inputs[:3])
    if layout:
        x = em.transpose(x, 0, 1)
    steps, batch = em.dims(x)[0], em.dims(x)[1]
    lengths = _given(inputs, 4)
    if lengths is not None:
        given = _known_values(lengths, "sequence_lens")
        if not steps.is_Integer or any(length != int(steps) for length in given):
            raise Unsupported("sequence_lens shorter than the sequence")
    hidden = attrs.get("hidden_size")
    gates = 4 if cell == "lstm" else 3
    expected = [len(reverse), gates * hidden if hidden else None]
    for name, value in (("W", w), ("R", r)):
        dims = em.dims(value)
        if hidden is None or dims[0] != len(reverse) or dims[1] != gates * hidden:
            raise FrontendError(
                f"{name} has shape {symbolic.format_dims(dims)}, expected "
                f"[{expected[0]}, {expected[1]}, ...] for {direction} with hidden_size {hidden}"
            )

    def initial(index: int) -> SSAValue:
        value = _given(inputs, index)
        if value is not None:
            given = imp.tensor(value)
            return em.transpose(given, 0, 1) if layout else given
        shape = em.shape([len(reverse), batch, hidden])
        return em.op("zeros", shape, dtype=em.dtype(x))

    states = [initial(5)] + ([initial(6)] if cell == "lstm" else [])
    bias_value = _given(inputs, 3)
    bias = None if bias_value is None else imp.tensor(bias_value)
    steps_out, finals = [], [[] for _ in states]
    for index, backwards in enumerate(reverse):
        weights: list[SSAValue | None] = [em.select(w, 0, index), em.select(r, 0, index)]
        if bias is None:
            weights += [None, None]
        else:
            both = em.select(bias, 0, index)
            weights += em.items(em.op("split", both, indices_or_sections=2, axis=0), 2)
        state = [em.select(s, 0, index) for s in states]
        step_outputs, final = em.recurrent_layer(
            cell,
            x,
            state,
            weights,
            "iofg" if cell == "lstm" else "zrn",
            reverse=backwards,
            reset_after=_flag(attrs, "linear_before_reset"),
        )
        steps_out.append(em.op("concat", *(em.unsqueeze(h, [0, 1]) for h in step_outputs), axis=0))
        for kept, value in zip(finals, final, strict=True):
            kept.append(em.unsqueeze(value, [0]))
    y = steps_out[0] if len(steps_out) == 1 else em.op("concat", *steps_out, axis=1)
    results = [y, *(k[0] if len(k) == 1 else em.op("concat", *k, axis=0) for k in finals)]
    if layout:
        results = [em.permute(y, [2, 0, 1, 3]), *(em.transpose(v, 0, 1) for v in results[1:])]
    return results


# ------------------------------------------------------------------ reductions, normalisation


def _reduce(relax_name: str, axes_input: int) -> _Converter:
    """A Reduce operator whose axes are an input from opset ``axes_input`` on."""

    def convert(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
        x = imp.tensor(inputs[0])
        rank = imp.em.ndim(x)
        if imp.opset >= axes_input:
            given = _given(inputs, 1)
            if given is not None and not isinstance(given, _Known):
                reduced = _reduce_at_run_time(imp, relax_name, x, given, attrs)
                if reduced is not None:
                    return reduced
                given = None
            axes = None if given is None else imp.ints(given, "axes")
            if not axes and _flag(attrs, "noop_with_empty_axes"):
                return x
        else:
            axes = attrs.get("axes")
        keepdims = _flag(attrs, "keepdims", 1)
        chosen = _axes(axes, rank) if axes else None
        if relax_name in _EMPTY_REDUCTION:
            dims = imp.em.dims(x)
            reduced = range(rank) if chosen is None else chosen
            if any(dims[a] == 0 for a in reduced):
                kept = [sympy.Integer(1) if a in reduced else d for a, d in enumerate(dims)]
                shape = kept if keepdims else [d for a, d in enumerate(dims) if a not in reduced]
                dtype = imp.em.dtype(x)
                return imp.em.full(shape, _EMPTY_REDUCTION[relax_name](dtype), dtype)
        return imp.em.op(relax_name, x, axis=chosen, keepdims=keepdims)

    return convert


def _reduce_at_run_time(
    imp: _Importer, relax_name: str, x: SSAValue, given: _Value, attrs: dict
) -> SSAValue | None:
    """A reduction over axes known only at run time (None when there are none: every
    axis, or none with ``noop_with_empty_axes``)."""
    axes = _run_time_ints(imp, given, "axes")
    count = int(imp.em.dims(axes)[0])
    if count == 0:
        return None
    em = imp.em
    keepdims = _flag(attrs, "keepdims", 1)
    rank = em.ndim(x) - (0 if keepdims else count)
    if relax_name in _EMPTY_REDUCTION and any(d == 0 for d in em.dims(x)):
        # x has no elements: a sum of zeros gives the result's shape, which ONNX fills
        # with the type's lowest (max) or highest (min) value.
        zeros = em.full(em.dims(x), 0, dtypes.I64)
        y = _with_run_time_attrs(imp, "sum", [zeros], {"axis": axes}, keepdims=keepdims or None)
        dtype, shape = em.dtype(x), em.dims(_named(imp, y, [None] * rank))
        return em.full(shape, _EMPTY_REDUCTION[relax_name](dtype), dtype)
    y = _with_run_time_attrs(imp, relax_name, [x], {"axis": axes}, keepdims=keepdims or None)
    return _named(imp, y, [None] * rank)


def _lowest(dtype: Attribute) -> Any:
    """The smallest value of an element type (-inf for floats, False for booleans)."""
    np_dtype = np.dtype(dtypes.numpy_name(dtype))
    if np_dtype.kind == "f":
        return float("-inf")
    return False if np_dtype.kind == "b" else int(np.iinfo(np_dtype).min)


def _highest(dtype: Attribute) -> Any:
    """The largest value of an element type (inf for floats, True for booleans)."""
    np_dtype = np.dtype(dtypes.numpy_name(dtype))
    if np_dtype.kind == "f":
        return float("inf")
    return True if np_dtype.kind == "b" else int(np.iinfo(np_dtype).max)


_EMPTY_REDUCTION = {"max": _lowest, "min": _highest}
"""What ReduceMax and ReduceMin give over an empty set (relax refuses to reduce one)."""


_converts("ReduceMean")(_reduce("mean", 18))
_converts("ReduceSum")(_reduce("sum", 13))
_converts("ReduceMax")(_reduce("max", 18))
_converts("ReduceMin")(_reduce("min", 18))
_converts("ReduceProd")(_reduce("prod", 18))


@_converts("ReduceLogSumExp")
def _reduce_log_sum_exp(
    imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict
) -> Any:
    """``log(sum(exp(x - m))) + m`` with ``m`` the maximum (0 where it is infinite), as
    onnxruntime computes it: no overflow for large elements (ONNX's function body
    overflows to inf for 3e38), -inf for a row of -inf or no elements."""
    em, x = imp.em, imp.tensor(inputs[0])
    if not dtypes.is_float(em.dtype(x)):
        raise Unsupported(f"ReduceLogSumExp of {dtypes.NAME_OF[em.dtype(x)]}")
    reduce_max, reduce_sum = _reduce("max", 18), _reduce("sum", 18)
    if any(d == 0 for d in em.dims(x)):  # no element to overflow
        return em.op("log", reduce_sum(imp, node, [em.op("exp", x), *inputs[1:]], attrs))
    kept = {**attrs, "keepdims": 1}

    def finite(m: SSAValue) -> SSAValue:
        infinite = em.op("equal", em.op("abs", m), em.scalar(float("inf"), m))
        return em.op("where", infinite, em.scalar(0.0, m), m)

    shift = finite(reduce_max(imp, node, [x, *inputs[1:]], kept))
    exp = em.op("exp", em.op("subtract", x, shift))
    total = reduce_sum(imp, node, [exp, *inputs[1:]], attrs)
    return em.op("add", em.op("log", total), finite(reduce_max(imp, node, [x, *inputs[1:]], attrs)))


@_converts("Softmax", "LogSoftmax")
def _softmax(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Softmax along ``axis``; before opset 13, over the axes from ``axis`` on,
    flattened into one."""
    em, x = imp.em, imp.tensor(inputs[0])
    rank = em.ndim(x)
    axis = _axis(attrs.get("axis", -1 if imp.opset >= 13 else 1), max(rank, 1))
    log = node.op_type == "LogSoftmax"
    if imp.opset >= 13 or axis == rank - 1:
        return _softmax_along(imp, x, axis, log)
    dims = list(em.dims(x))
    flat = em.reshape(x, _flattened(dims, {"axis": axis}))
    return em.reshape(_softmax_along(imp, flat, 1, log), dims)


def _softmax_along(imp: _Importer, x: SSAValue, axis: int, log: bool) -> SSAValue:
    """(Log)softmax along ``axis`` in x's precision: a float16 softmax rounds each step
    to float16, as ONNX specifies (relax.softmax computes it in float32)."""
    em = imp.em
    if em.dtype(x) != dtypes.F16:
        return em.op("log_softmax" if log else "softmax", x, axis=axis)
    shifted = em.op("subtract", x, em.op("max", x, axis=[axis], keepdims=True))
    exponentials = em.op("exp", shifted)
    total = em.op("sum", exponentials, axis=[axis], keepdims=True)
    if log:
        return em.op("subtract", shifted, em.op("log", total))
    return em.op("divide", exponentials, total)


@_converts("LRN")
def _lrn(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """``x / (bias + alpha / size * s) ** beta``, where s sums the squares of the
    ``size`` channels around each (a sum of shifted slices of the padded squares)."""
    em, x = imp.em, imp.tensor(inputs[0])
    size = attrs["size"]
    if size < 1 or size % 2 == 0:
        raise FrontendError(f"size is {size}, expected an odd number (as onnxruntime does)")
    channels = em.dims(x)[1]
    # Channels beyond the tensor add nothing: a window wider than it is clipped to it.
    half = (size - 1) // 2
    if channels.is_Integer:
        half = min(half, max(int(channels) - 1, 0))
    elif half > _MAX_LRN_HALF_WINDOW:
        raise Unsupported(f"size {size} over a symbolic number of channels")
    squares = em.op("multiply", x, x)
    padded = em.pad(squares, [(0, 0), (half, half)] + [(0, 0)] * (em.ndim(x) - 2))
    total = None
    for shift in range(2 * half + 1):
        part = em.slice(padded, 1, shift, channels + shift)
        total = part if total is None else em.op("add", total, part)
    scale = em.op("multiply", total, em.scalar(attrs.get("alpha", 1e-4) / size, x))
    scale = em.op("add", scale, em.scalar(attrs.get("bias", 1.0), x))
    return em.op("divide", x, em.op("power", scale, em.scalar(attrs.get("beta", 0.75), x)))


@_converts("LayerNormalization")
def _layer_norm(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Normalisation over the axes from ``axis`` on, computed in the ``stash_type``
    (float32 by default: a float16 input is normalised in float32 and rounded once,
    as onnxruntime does); the optional outputs are the mean and the inverse standard
    deviation, in the stash type."""
    em, x = imp.em, imp.tensor(inputs[0])
    rank = em.ndim(x)
    axes = list(range(_axis(attrs.get("axis", -1), rank), rank))
    stash = _cast_target(attrs.get("stash_type", onnx.TensorProto.FLOAT))
    dtype, wide = em.dtype(x), dtypes.from_numpy(stash)
    epsilon = attrs.get("epsilon", 1e-5)
    computed = em.cast(x, wide) if dtypes.is_float(dtype) and dtype != wide else x
    scale = em.cast(imp.tensor(inputs[1]), em.dtype(computed))
    bias_value = _given(inputs, 2)
    bias = None if bias_value is None else em.cast(imp.tensor(bias_value), em.dtype(computed))
    y = em.cast(em.layer_norm(computed, axes, scale, bias, epsilon), dtype)
    wanted = [o for o in node.output[1:] if o]
    if not wanted:
        return y
    mean = em.op("mean", computed, axis=axes, keepdims=True)
    centred = em.op("subtract", computed, mean)
    variance = em.op("mean", em.op("multiply", centred, centred), axis=axes, keepdims=True)
    inverse = em.op("rsqrt", em.op("add", variance, em.scalar(epsilon, variance)))
    return [y, em.cast(mean, wide), em.cast(inverse, wide)]


def _arg_extreme(imp: _Importer, x: SSAValue, axis: int, largest: bool, last: bool) -> SSAValue:
    """The index (i64, the axis kept) of the first or last largest or smallest element
    along ``axis`` (``relax.argmax``, ``relax.argmin``); a NaN counts as the extreme, as
    numpy's argmax and ONNX's reference do (onnxruntime skips NaNs)."""
    name = "argmax" if largest else "argmin"
    return imp.em.op(name, x, axis=axis, keepdims=True, select_last_index=last or None)


@_converts("ArgMax", "ArgMin")
def _argmax(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    em, x = imp.em, imp.tensor(inputs[0])
    rank = em.ndim(x)
    axis = _axis(attrs.get("axis", 0), rank)
    if em.dims(x)[axis] == 0:
        raise FrontendError(f"axis {axis} has size 0: no element to choose")
    index = _arg_extreme(imp, x, axis, node.op_type == "ArgMax", _flag(attrs, "select_last_index"))
    return index if _flag(attrs, "keepdims", 1) else em.op("squeeze", index, axis=[axis])


@_converts("Hardmax")
def _hardmax(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """1 at the first largest element along ``axis`` (before opset 13, of the axes
    from ``axis`` on, flattened), 0 elsewhere."""
    em, x = imp.em, imp.tensor(inputs[0])
    rank = em.ndim(x)
    axis = _axis(attrs.get("axis", -1 if imp.opset >= 13 else 1), max(rank, 1))
    dims = list(em.dims(x))
    flat = (
        x
        if imp.opset >= 13 or axis == rank - 1
        else em.reshape(x, _flattened(dims, {"axis": axis}))
    )
    along = axis if flat is x else 1
    index = _arg_extreme(imp, flat, along, largest=True, last=False)
    size = em.dims(flat)[along]
    positions = em.op("arange", em.prim(0), em.prim(size), em.prim(1), dtype=dtypes.I64)
    shape = [d if a == along else 1 for a, d in enumerate(em.dims(flat))]
    one_hot = em.cast(em.op("equal", em.reshape(positions, shape), index), em.dtype(x))
    return one_hot if flat is x else em.reshape(one_hot, dims)


@_converts("InstanceNormalization")
def _instance_norm(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Each channel of each sample normalised over its spatial axes, then scaled and
    shifted per channel."""
    em, x = imp.em, imp.tensor(inputs[0])
    rank = em.ndim(x)
    if rank < 3:
        raise FrontendError(f"input has rank {rank}, expected at least 3")
    axes = list(range(2, rank))
    mean = em.op("mean", x, axis=axes, keepdims=True)
    centred = em.op("subtract", x, mean)
    variance = em.op("mean", em.op("multiply", centred, centred), axis=axes, keepdims=True)
    epsilon = em.scalar(attrs.get("epsilon", 1e-5), x)
    normalised = em.op("multiply", centred, em.op("rsqrt", em.op("add", variance, epsilon)))
    scale = em.channel_vector(imp.tensor(inputs[1]), rank)
    bias = em.channel_vector(imp.tensor(inputs[2]), rank)
    return em.op("add", em.op("multiply", normalised, scale), bias)


@_converts("DepthToSpace", "SpaceToDepth")
def _depth_space(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Blocks of channels moved to space (or back): a reshape, a permutation, a
    reshape, in ONNX's DCR or CRD order."""
    em, x = imp.em, imp.tensor(inputs[0])
    block = attrs["blocksize"]
    if em.ndim(x) != 4:
        raise FrontendError(f"input has rank {em.ndim(x)}, expected 4")
    if block < 1:
        raise FrontendError(f"blocksize is {block}, expected at least 1")
    n, c, h, w = em.dims(x)
    # SpaceToDepth has its mode from opset 28 on (DCR before).
    crd = _string(attrs, "mode", "DCR", ("DCR", "CRD")) == "CRD"
    if node.op_type == "SpaceToDepth":
        for size in (h, w):
            if size.is_Integer and int(size) % block:
                raise FrontendError(f"a spatial size {size} is not a multiple of blocksize {block}")
        split = em.reshape(
            x, [n, c, symbolic.floordiv(h, block), block, symbolic.floordiv(w, block), block]
        )
        moved = em.permute(split, [0, 1, 3, 5, 2, 4] if crd else [0, 3, 5, 1, 2, 4])
        return em.reshape(
            moved, [n, c * block * block, symbolic.floordiv(h, block), symbolic.floordiv(w, block)]
        )
    if c.is_Integer and int(c) % (block * block):
        raise FrontendError(f"{c} channels are not a multiple of blocksize {block} squared")
    depth = symbolic.floordiv(c, block * block)
    if not crd:
        split = em.reshape(x, [n, block, block, depth, h, w])
        moved = em.permute(split, [0, 3, 4, 1, 5, 2])
    else:
        split = em.reshape(x, [n, depth, block, block, h, w])
        moved = em.permute(split, [0, 1, 4, 2, 5, 3])
    return em.reshape(moved, [n, depth, h * block, w * block])


@_converts("EyeLike")
def _eye_like(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    """Ones where the column is the row plus ``k``, zeros elsewhere."""
    em = imp.em
    dims = imp.dims(inputs[0])
    if len(dims) != 2:
        raise FrontendError(f"input has rank {len(dims)}, expected 2")
    dtype = _value_dtype(imp, inputs[0]) if "dtype" not in attrs else _cast_target(attrs["dtype"])
    rows, columns = (
        em.op("arange", em.prim(0), em.prim(d), em.prim(1), dtype=dtypes.I64) for d in dims
    )
    shifted = em.op("add", em.reshape(rows, [dims[0], 1]), em.scalar(attrs.get("k", 0), rows))
    diagonal = em.op("equal", shifted, em.reshape(columns, [1, dims[1]]))
    return em.cast(diagonal, dtypes.from_numpy(dtype))


@_converts("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(imp: _Importer, node: onnx.NodeProto, inputs: list[_Value], attrs: dict) -> Any:
    x = imp.tensor(inputs[0])
    rank = imp.em.ndim(x)
    if rank < 3:
        raise FrontendError(f"X has rank {rank}, expected at least 3")
    name = "mean" if node.op_type == "GlobalAveragePool" else "max"
    return imp.em.op(name, x, axis=list(range(2, rank)), keepdims=True)


SUPPORTED: list[str] = sorted(set(_CONVERTERS) - set(onnx_tensor.REFUSED))
"""The ONNX operators (default domain) the importer converts directly; operators ONNX
defines as functions of these import as the function body."""
