"""Scans: ``cumsum`` and ``cumprod`` (running sums and products along an axis, as
numpy.cumsum and numpy.cumprod)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType
from xrelax.dialects.shapes.obligations import Facts
from xrelax.ops import te
from xrelax.ops.base import (
    I64_PROP,
    NUMERIC,
    OUTPUT,
    OperatorOp,
    Props,
    accumulator,
    check_dtype,
    dims_product,
    expect_dtype,
    expect_tensor,
    known_shape,
    normalize_axis,
    numpy_accumulator,
    numpy_result,
    prop_bool,
    prop_int,
    result_dims,
    tensor,
)
from xrelax.ops.manipulate import reshaped


def _accumulator(x_dtype: Attribute, props: Props) -> Attribute:
    """The result element type: ``dtype``, else x's (booleans and narrow integers sum in
    i64, narrow unsigned integers in ui64, as numpy does)."""
    if "dtype" in props:
        dtype = expect_dtype(props["dtype"])
        if dtype == dtypes.I1:
            raise RelaxError("expected a numeric 'dtype' for the sums, got i1")
        return dtype
    if x_dtype in (dtypes.I1, dtypes.I8, dtypes.I16, dtypes.I32):
        return dtypes.I64
    if x_dtype in (dtypes.UI8, dtypes.UI16, dtypes.UI32):
        return dtypes.UI64
    return x_dtype


class ScanOp(OperatorOp):
    """``%r = relax.NAME %x {axis = 1 : i64, exclusive = true, dtype = i32}``: the running
    combinations of x along ``axis`` (absent: of x flattened); ``exclusive`` leaves out
    each element itself (the first is the identity); ``dtype`` is the type they are
    returned in (absent: x's, i64 for booleans and integers narrower than 64 bits); f16
    and bf16 accumulate in f32, integers wrap."""

    x = operand_def(TensorType)
    axis = opt_prop_def(I64_PROP)
    dtype = opt_prop_def(TypeAttribute)
    exclusive = opt_prop_def(BoolAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    IDENTITY: ClassVar[int]
    NUMPY_FN: ClassVar[Callable[..., np.ndarray]]
    TE_FN: ClassVar[Callable[[te.Expr, te.IterVar], te.Expr]]

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        if x.known_dtype is not None and x.dtype != dtypes.I1:
            check_dtype(x, NUMERIC)
        prop_bool(properties, "exclusive")
        dtype = None
        if "dtype" in properties or x.known_dtype is not None:
            dtype = _accumulator(x.dtype, properties)
        axis = prop_int(properties, "axis")
        if axis is None:
            dims = x.dims
            shape = (dims_product(dims),) if dims is not None else 1
            return tensor(shape, dtype)
        if x.ndim is not None:
            normalize_axis(axis, x.ndim)
        return tensor(known_shape(x), dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        dtype = dtypes.numpy_dtype(_accumulator(dtypes.from_numpy(x.dtype), props))
        axis = prop_int(props, "axis")
        with np.errstate(over="ignore", invalid="ignore"):
            running = cls.NUMPY_FN(x, axis=axis, dtype=numpy_accumulator(dtype))
        if prop_bool(props, "exclusive"):
            # Each result moves one place along: the first is the identity (undoing
            # the element itself is not exact, and inf - inf is NaN).
            along = 0 if axis is None else normalize_axis(axis, x.ndim)
            shifted = np.full_like(running, cls.IDENTITY)
            inner = [slice(None)] * running.ndim
            inner[along] = slice(1, None)
            outer = list(inner)
            outer[along] = slice(None, -1)
            shifted[tuple(inner)] = running[tuple(outer)]
            running = shifted
        return numpy_result(running, dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        (x,) = inputs
        axis = prop_int(props, "axis")
        if axis is None:
            x, axis = reshaped(x, (dims_product(x.shape),), "flat"), 0
        axis = normalize_axis(axis, x.ndim)
        dtype = result_type.dtype
        wide = accumulator(dtype)
        exclusive = prop_bool(props, "exclusive")
        size = x.shape[axis]

        def body(*i: Any) -> te.Expr:
            # Every element up to i (before i: exclusive) along the axis, the others
            # masked to the identity: a full-length reduction, which vectorizes.
            k = te.reduce_axis(0, size, "k")
            keep = k < i[axis] if exclusive else k <= i[axis]
            element = te.cast(x[(*i[:axis], k, *i[axis + 1 :])], wide)
            identity = te.const(cls.IDENTITY, wide)
            return te.cast(cls.TE_FN(te.if_then_else(keep, element, identity), k), dtype)

        return te.compute(result_dims(result_type), body, OUTPUT)


@irdl_op_definition
class CumsumOp(ScanOp):
    """``relax.cumsum``: the running sums of x (see :class:`ScanOp`)."""

    name = "relax.cumsum"
    IDENTITY: ClassVar[int] = 0
    NUMPY_FN = staticmethod(np.cumsum)
    TE_FN = staticmethod(te.sum)


@irdl_op_definition
class CumprodOp(ScanOp):
    """``relax.cumprod``: the running products of x (see :class:`ScanOp`)."""

    name = "relax.cumprod"
    IDENTITY: ClassVar[int] = 1
    NUMPY_FN = staticmethod(np.cumprod)
    TE_FN = staticmethod(te.prod)


SCAN_OPS = (CumsumOp, CumprodOp)
