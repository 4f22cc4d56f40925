"""In-place ATen operators and the views they write through, made functional.

``torch.export.export`` returns programs that keep PyTorch's in-place operators
(``relu_``, ``add_``, ``fill_``, ``copy_``, ``masked_fill_``, ...) and the views they
write through (``view``, ``slice``, ``select``, ``transpose``, the pieces of
``split``, ...). Relax values are immutable, so the importer functionalizes while it
converts, as torch's own functionalization (``run_decompositions``) does:

* A view remembers the node it views (its *base*). When the memory under it has been
  written since its value was computed, its value is computed again from the base.
* An in-place operator is converted as its functional form (``relu_`` as ``relu``,
  ``fill_`` as ``fill``, ``copy_`` as ``copy``); the result replaces the written
  tensor and is written back through each view to the tensor that owns the memory:
  a ``slice`` by ``slice_scatter``, a ``select`` by ``slice_scatter`` of the value with
  the axis put back, a reshaping view by a reshape, a permutation by its inverse, the
  pieces of a ``split``/``chunk``/``unbind`` by ``concat``.
* A model input that is written holds its new value from then on, and the importer
  returns that value as a result (the caller sees the write as torch's functional
  form reports it, a ``USER_INPUT_MUTATION`` output). A parameter, a buffer or a
  constant holds state the model keeps between calls; writing it is reported as
  unsupported, naming the operator and what it writes. So is writing through a view
  with no inverse here (``expand``, ``as_strided``, ``diagonal``, ...), and an in-place
  change of a tensor's shape (``unsqueeze_``, ``t_``, ...).

Whether a composite operator that may or may not return a view does (``reshape`` of
a non-contiguous tensor copies) is decided from the strides torch recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy
import torch
from xdsl.ir import SSAValue

from xrelax.dialects.shapes import symbolic
from xrelax.frontend.common import Unsupported
from xrelax.frontend.emitter import Emitter

SHAPE_CHANGING = {
    "aten.t_",
    "aten.transpose_",
    "aten.swapaxes_",
    "aten.swapdims_",
    "aten.unsqueeze_",
    "aten.squeeze_",
    "aten.as_strided_",
    "aten.resize_",
    "aten.resize_as_",
    "aten.set_",
}
"""In-place operators that change the shape or layout of their argument, not its values."""

_IDENTITY_VIEWS = {
    "aten.alias",
    "aten.detach",
    "aten.contiguous",
    "aten.to",
    "aten.view_as",
    "aten.lift_fresh",
}
_RESHAPING_VIEWS = {
    "aten.view",
    "aten._unsafe_view",
    "aten.reshape",
    "aten.reshape_as",
    "aten.flatten",
    "aten.unflatten",
    "aten.unsqueeze",
    "aten.squeeze",
}
_PERMUTING_VIEWS = {
    "aten.permute",
    "aten.transpose",
    "aten.swapaxes",
    "aten.t",
    "aten.numpy_T",
    "aten.mT",
    "aten.mH",
    "aten.adjoint",
}
_SPLITTING_VIEWS = {
    "aten.split",
    "aten.split_with_sizes",
    "aten.chunk",
    "aten.unbind",
    "aten.tensor_split",
}
_MAY_COPY = {"aten.reshape", "aten.reshape_as", "aten.flatten", "aten.contiguous", "aten.to"}
"""Composite operators whose result is a view only when no copy is needed."""

_I64_MAX = 2**63 - 1


def functional_form(target: torch._ops.OpOverload) -> torch._ops.OpOverload | None:
    """The out-of-place overload computing what the in-place ``target`` writes
    (``aten.add_.Tensor`` -> ``aten.add.Tensor``), or None."""
    name = target._schema.name.split("::")[-1]
    if not name.endswith("_") or name.startswith("_"):
        return None
    packet = getattr(torch.ops.aten, name[:-1], None)
    if packet is None:
        return None
    overload = getattr(packet, target._overloadname, None)
    if not isinstance(overload, torch._ops.OpOverload) or overload._schema.is_mutable:
        return None
    return overload


def written_arguments(target: torch._ops.OpOverload) -> list[str]:
    """The names of the arguments ``target`` writes."""
    return [
        a.name
        for a in target._schema.arguments
        if a.alias_info is not None and a.alias_info.is_write
    ]


def viewed_argument(node: torch.fx.Node, key: str) -> torch.fx.Node | None:
    """The node whose memory the result of ``node`` (an ATen operator, not in place)
    shares, or None when the result is new memory."""
    target = node.target
    if not isinstance(target, torch._ops.OpOverload) or target._schema.is_mutable:
        return None
    schema = target._schema
    if not any(r.alias_info is not None for r in schema.returns):
        return None
    for index, argument in enumerate(schema.arguments):
        if argument.alias_info is None:
            continue
        value = node.args[index] if index < len(node.args) else node.kwargs.get(argument.name)
        if not isinstance(value, torch.fx.Node):
            return None
        if key in _MAY_COPY and not _aliases(node, value, key):
            return None
        return value
    return None


def _aliases(node: torch.fx.Node, base: torch.fx.Node, key: str) -> bool:
    """Whether the composite ``node`` returned a view of ``base`` (from recorded strides)."""
    out, src = node.meta.get("val"), base.meta.get("val")
    if not isinstance(out, torch.Tensor) or not isinstance(src, torch.Tensor):
        return True
    if key == "aten.to":
        return out.dtype == src.dtype
    sizes, strides = concrete(src.shape), concrete(src.stride())
    probe = torch.empty_strided(sizes, strides, device="meta")
    if key == "aten.contiguous":
        return probe.is_contiguous()
    try:
        probe.view(concrete(out.shape))
    except RuntimeError:
        return False
    return True


def concrete(values: Sequence[Any]) -> list[int]:
    """Sizes or strides with each symbol at one value (torch guarded the layout facts a
    program relies on for every value of its dynamic dimensions, which are at least 2)."""
    result = []
    for value in values:
        expr = value.node.expr if isinstance(value, torch.SymInt) else sympy.Integer(value)
        result.append(int(expr.subs({s: 7 for s in expr.free_symbols})))
    return result


def write_back(
    em: Emitter, key: str, name: str, args: dict[str, Any], base: Any, value: Any
) -> Any:
    """The value of ``base`` after the result of view ``key`` (with ``args``) becomes
    ``value``; :class:`Unsupported` for a view with no inverse here."""
    if key in _IDENTITY_VIEWS:
        return value
    if key in _RESHAPING_VIEWS:
        return em.reshape(value, em.dims(base))
    if key in _PERMUTING_VIEWS:
        return _unpermute(em, key, args, base, value)
    if key == "aten.slice":
        start = 0 if args["start"] is None else args["start"]
        return _scatter(em, base, value, args["dim"], start, args["end"], args["step"])
    if key == "aten.narrow":
        start = args["start"]
        return _scatter(em, base, value, args["dim"], start, start + args["length"], 1)
    if key == "aten.select":
        dim, index = args["dim"], args["index"]
        if not isinstance(index, int):
            raise Unsupported(f"writes through {name} at a symbolic index")
        end = None if index == -1 else index + 1
        value = em.unsqueeze(value, [dim])
        return _scatter(em, base, value, dim, index, end, 1)
    if key in _SPLITTING_VIEWS:
        dim = args.get("dim", 0)
        pieces = [em.unsqueeze(v, [dim]) for v in value] if key == "aten.unbind" else value
        return em.op("concat", *pieces, axis=dim) if len(pieces) > 1 else pieces[0]
    if key == "operator.getitem":
        pieces = list(base)
        pieces[args["1"]] = value
        return pieces
    raise Unsupported(f"writes through {name}")


def _unpermute(em: Emitter, key: str, args: dict[str, Any], base: Any, value: Any) -> Any:
    ndim = em.ndim(base)
    if key == "aten.permute":
        axes = [a % ndim for a in args["dims"]]
        inverse = [axes.index(a) for a in range(ndim)]
        return em.permute(value, inverse)
    if key in ("aten.t", "aten.numpy_T"):
        return em.permute(value, list(reversed(range(ndim))))
    if key in ("aten.mT", "aten.mH", "aten.adjoint"):
        return em.transpose(value, -2, -1)
    first, second = (
        (args["dim0"], args["dim1"]) if "dim0" in args else (args["axis0"], args["axis1"])
    )
    return em.transpose(value, first, second)


def _scatter(
    em: Emitter, base: SSAValue, value: SSAValue, dim: int, start: Any, end: Any, step: int
) -> SSAValue:
    if not isinstance(start, int):
        raise Unsupported("writes through a slice with a symbolic start")
    if end is not None and not isinstance(end, int):
        if not symbolic.prove_le(em.dims(base)[dim % em.ndim(base)], end):
            raise Unsupported("writes through a slice with a symbolic end")
        end = None
    if end is not None and end >= _I64_MAX:
        end = None
    return em.slice_scatter(base, value, dim, start, end, step)
