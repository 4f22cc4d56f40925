"""``relax-pack-weights``: the constant operands the native register tiles stream, packed
into panels at compile time (onnxruntime's MLAS packs a product's ``B`` the same way;
TVM Relax's ``AlterOpImpl`` changes a kernel's buffer layout and transforms the
constant that feeds it).

A register tile (:mod:`xrelax.backends.native.register_tiles`) of a matrix product
``C[i, j] += A[i, k] * B[k, j]`` or of a channels-last convolution ``Y[n, h, w, j] +=
X[n, h + kh, w + kw, c] * W[kh, kw, c, j]`` reads, at each reduction step, a run of
``R`` values of the operand indexed by the output's last axis ``j`` (``R``: the tile's
vectors times the vector width), the next step's run ``N`` values further on (``N``:
that axis' extent, 3,072 floats in BERT-base's feed-forward product). Where every call
of the kernel passes a constant there, this pass lays the constant out as panels::

    packed[p, ..., r] = B[..., p * R + r]     (zero past N)

of shape ``[ceil(N / R), ..., R]``, and the kernel reads ``packed[floordiv(j, R), ...,
floormod(j, R)]``: a tile's operand is one contiguous run over the whole reduction.
The kernel changes in place (its other calls pass constants too: each is packed). The
pass runs in ``relax-to-vm{kernels=native}`` after the TIR passes, before ``relax-dce``
drops the constants no call reads any more.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, FunctionType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xrelax.backends.native import padding, register_tiles
from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.ir.symbol_index import module_symbols
from xrelax.dialects.relax import CallTIROp
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import BufferType, ForOp, LoadOp, PrimFuncOp
from xrelax.transforms.fold_constant import const_value, make_const

__all__ = ["PackWeightsPass", "pack", "panel_widths"]


def panel_widths(func: PrimFuncOp) -> dict[int, int]:
    """The parameters of ``func`` worth packing, by index: each with the width ``R`` of
    its panels. A parameter is when every load of it is the streamed operand of a
    register tile (not a depthwise one, not through a window copy) whose vector axis is
    one loop that indexes only the parameter's last axis, of a static extent wider than
    a panel; the tiles then read it a panel at a time."""
    widths: dict[SSAValue, set[int]] = defaultdict(set)
    streamed: set[LoadOp] = set()
    for nest in func.body.block.ops:
        if not isinstance(nest, ForOp):
            continue
        plan = register_tiles.plan_tiles(nest, padding.materialized_loads(nest), one_row=True)
        if plan is None or plan.depthwise or plan.window is not None or len(plan.vector) != 1:
            continue
        load, lane = plan.streamed, symbolic.sym(plan.vector[0].var_name)
        *rest, last = load.indices.data
        if last != lane or any(lane in symbolic.free_vars(i) for i in rest):
            continue
        streamed.add(load)
        widths[load.buffer].add(register_tiles.vector_width() * plan.vectors)
    found = {}
    for index, arg in enumerate(func.body.block.args):
        type_ = arg.type
        if len(widths.get(arg, ())) != 1 or not isinstance(type_.dtype, Float32Type):
            continue
        (width,) = widths[arg]
        static = all(d.is_Integer for d in type_.dims)
        if not static or len(type_.dims) < 2 or int(type_.dims[-1]) <= width:
            continue
        uses = [use.operation for use in arg.uses]
        if all(isinstance(op, LoadOp) and op in streamed for op in uses):
            found[index] = width
    return found


def pack(array: np.ndarray, width: int) -> np.ndarray:
    """``array`` (``[..., N]``) as panels ``[ceil(N / width), ..., width]``, zero past N."""
    *rest, extent = array.shape
    panels = -(-extent // width)
    padded = np.zeros((*rest, panels * width), dtype=array.dtype)
    padded[..., :extent] = array
    return np.ascontiguousarray(np.moveaxis(padded.reshape(*rest, panels, width), -2, 0))


def _pack_parameter(func: PrimFuncOp, index: int, width: int) -> None:
    """Make parameter ``index`` of ``func`` a buffer of panels and read it so."""
    arg = func.body.block.args[index]
    dims = arg.type.dims
    panels = -(-int(dims[-1]) // width)
    new = BufferType.of([panels, *dims[:-1], width], arg.type.dtype)
    loads = [use.operation for use in arg.uses]
    Rewriter.replace_value_with_new_type(arg, new)
    for load in loads:
        *rest, last = load.indices.data
        indices = [symbolic.floordiv(last, width), *rest, symbolic.floormod(last, width)]
        load.indices = DimsAttr.of(indices)
    func.function_type = FunctionType.from_lists(func.body.block.arg_types, [])


@dataclass(frozen=True)
class PackWeightsPass(ModulePass):
    """Pack the constants the native register tiles stream (see the module docstring)."""

    name = "relax-pack-weights"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        calls: dict[str, list[CallTIROp]] = defaultdict(list)
        for call in op.walk():
            if isinstance(call, CallTIROp):
                calls[call.callee.string_value()].append(call)
        packed: dict[tuple[SSAValue, int], SSAValue] = {}
        for name, func in module_symbols(op).items():
            if not isinstance(func, PrimFuncOp) or name not in calls:
                continue
            for index, width in panel_widths(func).items():
                sites = calls[name]
                if not all(_constant(site, index) for site in sites):
                    continue
                _pack_parameter(func, index, width)
                for site in sites:
                    value = site.args[index]
                    key = (value, width)
                    if key not in packed:
                        const = make_const(pack(const_value(value), width))
                        const.result.name_hint = value.name_hint
                        Rewriter.insert_op(const, InsertPoint.after(value.owner))
                        packed[key] = const.result
                    site.operands[index] = packed[key]


def _constant(call: CallTIROp, index: int) -> bool:
    """Whether input ``index`` of ``call`` is a constant array (not an output)."""
    return index < len(call.args) and isinstance(const_value(call.args[index]), np.ndarray)
