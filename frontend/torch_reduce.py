"""ATen converters of the reductions beyond ``sum``, ``mean``, ``amax`` and ``amin`` (in
:mod:`xrelax.frontend.torch`): ``argmax``/``argmin``, ``prod``, ``var``/``std`` (and
``var_mean``/``std_mean``) with a ``correction``, ``cumprod``; and the modes of
``aten.pad`` that take the input's own elements (reflect, replicate, circular; its
decompositions are index arithmetic the importer converts as it is). Registered on
import."""

from __future__ import annotations

from typing import Any

import sympy
import torch
from xdsl.ir import SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.common import FrontendError, Unsupported
from xrelax.frontend.padding import pad_from_edges
from xrelax.frontend.torch_importer import Importer, converts, reduce_converter, reduced_axes

converts("aten.prod", half_in_float=True)(reduce_converter("prod"))


@converts("aten.argmax", "aten.argmin")
def _arg_extreme(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """The position of the extreme (a NaN is one; the first), of x flattened without
    ``dim``; a 0-d x has the position 0."""
    em, x = imp.em, a["self"]
    name = str(node.target._overloadpacket).removeprefix("aten.")
    keepdim = bool(a.get("keepdim", False))
    if em.ndim(x) == 0:
        return em.const(0, dtypes.I64)
    return em.op(name, x, axis=a.get("dim"), keepdims=keepdim or None)


def indices_of_extreme(imp: Importer, x: SSAValue, name: str, dim: int, keepdim: bool) -> Any:
    """The indices ``aten.max.dim`` and ``aten.min.dim`` return beside the values."""
    if imp.em.ndim(x) == 0:
        return imp.em.const(0, dtypes.I64)
    arg = "argmax" if name == "max" else "argmin"
    return imp.em.op(arg, x, axis=dim, keepdims=keepdim or None)


@converts("aten.cumprod", half_in_float=True)
def _cumprod(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    x = imp.cast(a["self"], imp.out_dtype(node))
    if imp.em.ndim(x) == 0:  # torch's dimension 0 (or -1) of a 0-d tensor
        return x
    return imp.em.op("cumprod", x, axis=a["dim"])


@converts("aten.var", "aten.std", "aten.var_mean", "aten.std_mean", half_in_float=True)
def _variance(imp: Importer, node: torch.fx.Node, a: dict[str, Any]) -> Any:
    """``sum((x - mean)^2) / (N - correction)`` over ``dim`` (all: None or []), its
    square root for ``std``; ``unbiased`` (the older overloads) is a correction of 1.
    ``N - correction <= 0`` divides by 0 as torch does (inf or NaN)."""
    em, x = imp.em, a["self"]
    name = str(node.target._overloadpacket).removeprefix("aten.")
    dtype = em.dtype(x)
    if not dtypes.is_float(dtype):
        raise Unsupported(f"{name} of {dtypes.NAME_OF[dtype]} (torch takes floats only)")
    correction = a.get("correction")
    if correction is None:
        correction = 1 if a.get("unbiased", True) else 0
    keepdim = bool(a.get("keepdim", False))
    axes = reduced_axes(em, x, a.get("dim"))
    dims = em.dims(x)
    reduced = range(len(dims)) if axes is None else [d % max(len(dims), 1) for d in axes]
    count = symbolic.simplify(sympy.Mul(*(dims[d] for d in reduced)))
    mean = em.op("mean", x, axis=axes, keepdims=True)
    deviation = em.op("subtract", x, mean)
    squares = em.op("sum", em.op("multiply", deviation, deviation), axis=axes, keepdims=keepdim)
    # torch divides by max(N - correction, 0)
    if count.is_Integer:
        divisor = em.scalar(max(float(int(count) - correction), 0.0), x)
    else:
        size = em.cast(em.full([], count, dtypes.I64), dtype)
        divisor = em.op("subtract", size, em.scalar(float(correction), x))
        divisor = em.op("maximum", divisor, em.scalar(0.0, x))
    variance = em.op("divide", squares, divisor)
    result = em.op("sqrt", variance) if name.startswith("std") else variance
    if not name.endswith("_mean"):
        return result
    return [result, mean if keepdim else em.op("mean", x, axis=axes, keepdims=False)]


_TORCH_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad_like_torch(imp: Importer, x: SSAValue, pad: list[Any], mode: str) -> SSAValue:
    """``x`` padded by torch's ``pad`` (``(before, after)`` pairs from the last axis
    backwards) in ``mode`` ``reflect``, ``replicate`` or ``circular``; a negative count
    removes elements, as torch reads each output element through the padding. torch
    refuses reflecting by as many elements as the size or more."""
    em = imp.em
    if any(not isinstance(p, int) for p in pad):
        raise Unsupported("a symbolic pad width")
    if len(pad) % 2 or len(pad) // 2 > em.ndim(x):
        raise FrontendError(f"pad {pad} does not fit a tensor of rank {em.ndim(x)}")
    pairs = [(pad[k], pad[k + 1]) for k in range(0, len(pad), 2)]
    widths = [(0, 0)] * (em.ndim(x) - len(pairs)) + list(reversed(pairs))
    for axis, (before, after) in enumerate(widths):
        size = em.dims(x)[axis]
        widest = max(before, after)
        if mode == "reflect" and size.is_Integer and widest > 0 and widest >= int(size):
            raise FrontendError(
                f"reflect padding ({before}, {after}) of axis {axis} needs a size above "
                f"{widest}, got {size}"
            )
    return pad_from_edges(em, x, widths, _TORCH_MODES[mode])
