"""``relax-bind-params``: parameters of a relax function replaced by constants (TVM's
``BindParams``), so that folding precomputes everything that depends only on them.

A model's weights are parameters after its inputs (the importers' form). When the user
has them at compile time, binding makes each a ``relax.const`` and drops it from the
signature; ``relax-fold-constant`` then folds what depends only on weights (batch-norm
statistics into a scale and shift, the scale into the convolution's or matmul's
weights, transposes of weights). ``xrelax.compile(module, params=...)`` binds before
the pipeline; in a pipeline, ``relax-bind-params{params=weights.npz}`` reads an
``.npz`` (``relax-import --params-out`` writes one).
"""

from __future__ import annotations

import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xrelax.dialects import dtypes
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.relax import FuncOp, TensorType, show_type
from xrelax.transforms.fold_constant import make_const


def bind_params(module: ModuleOp, params: Mapping[str, Any], func: str = "main") -> None:
    """Replace the parameters of relax function ``func`` named in ``params`` by
    constants of their values (numpy arrays, or anything ``np.asarray`` takes). Each
    value must have the parameter's static shape and element type; a name that is no
    parameter is an error."""
    target = next(
        (op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == func), None
    )
    if target is None:
        raise IRError(module, f"relax-bind-params: no relax function '{func}' to bind")
    names = target.param_names
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise IRError(
            target,
            f"relax-bind-params: '{unknown[0]}' is not a parameter of '{func}' "
            f"(parameters: {', '.join(names)})",
        )
    block = target.body.block
    for arg in list(block.args):
        if arg.name_hint not in params:
            continue
        array = _checked(target, arg.name_hint, arg.type, params[arg.name_hint])
        const = make_const(array)
        const.result.name_hint = arg.name_hint
        Rewriter.insert_op(const, InsertPoint.at_start(block))
        arg.replace_all_uses_with(const.result)
        block.erase_arg(arg)
    inputs = [arg.type for arg in block.args]
    target.function_type = FunctionType.from_lists(inputs, [target.result_type])


def _checked(func: FuncOp, name: str, type_: Any, value: Any) -> np.ndarray:
    if not isinstance(type_, TensorType) or type_.dims is None or type_.known_dtype is None:
        raise IRError(
            func, f"relax-bind-params: parameter '{name}' has type {show_type(type_)}: only "
            "tensors of known shape and element type can be bound"
        )  # fmt: skip
    if not all(d.is_Integer for d in type_.dims):
        raise IRError(
            func, f"relax-bind-params: parameter '{name}' has type {show_type(type_)}: only "
            "parameters of static shape can be bound"
        )  # fmt: skip
    array = np.asarray(value)
    shape = tuple(int(d) for d in type_.dims)
    dtype = dtypes.numpy_dtype(type_.dtype)
    if array.shape != shape or array.dtype != dtype:
        raise IRError(
            func, f"relax-bind-params: parameter '{name}' is {show_type(type_)}, the value "
            f"given is {array.dtype}{list(array.shape)}"
        )  # fmt: skip
    return array


@dataclass(frozen=True)
class BindParamsPass(ModulePass):
    """Bind the parameters of ``func`` to the arrays of the ``.npz`` file ``params``."""

    name = "relax-bind-params"

    params: str = ""
    func: str = "main"

    def __post_init__(self) -> None:
        if not self.params:
            raise ValueError('relax-bind-params needs params="file.npz"')

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            with np.load(self.params, allow_pickle=False) as archive:
                arrays = {name: archive[name] for name in archive.files}
        except (OSError, ValueError, zipfile.BadZipFile) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else err
            raise IRError(op, f"relax-bind-params: cannot read '{self.params}': {reason}") from None
        bind_params(op, arrays, self.func)
