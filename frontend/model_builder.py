"""ModelBuilder: a framework graph's inputs, weights and symbolic dimensions made into
one relax function.

The function ``main`` takes the model's inputs first, in the framework's order, then
its weights, as parameters named after the framework's own names (``fc1.weight``
becomes ``fc1_weight``); the weights' values travel beside the IR
(:class:`~xrelax.frontend.common.ImportedModel`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Attribute, SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.ir.diagnostics import IRError, verify_module
from xrelax.dialects.relax import FuncOp, RelaxError, TensorType
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.block_builder import BlockBuilder
from xrelax.frontend.common import (
    FrontendError,
    ImportedModel,
    Names,
    UnsupportedOperatorsError,
)
from xrelax.frontend.control_flow import structure_dataflow

_EXPRESSION_WORDS = ("floordiv", "floormod", "min", "max")
"""Function names of the symbolic expression syntax: never variable names."""


@dataclass
class _Input:
    name: str
    dims: list[sympy.Expr]
    dtype: Attribute


@dataclass
class ModelBuilder:
    """Collects a model's inputs, weights and symbolic variables, then builds ``main``.

    Framework dimension symbols map to relax variables with :meth:`variable`. A variable
    that no input has as a whole dimension (torch's derived dims: inputs ``[2 * n]``
    only) is solved from such a dimension and bound with ``relax.match_shape``, which
    also checks the relation at run time.
    """

    framework: str
    names: Names = field(default_factory=Names)
    var_names: Names = field(default_factory=lambda: Names(_EXPRESSION_WORDS))
    symbols: dict[Any, sympy.Symbol] = field(default_factory=dict)
    inputs: list[_Input] = field(default_factory=list)
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    unsupported: Counter[str] = field(default_factory=Counter)

    def variable(self, key: Any, preferred: str) -> sympy.Symbol:
        """The relax variable of framework symbol ``key`` (named ``preferred`` when free)."""
        if key not in self.symbols:
            self.symbols[key] = symbolic.sym(self.var_names.unique(preferred))
        return self.symbols[key]

    def add_input(self, name: str, dims: Sequence[int | sympy.Expr], dtype: Attribute) -> str:
        """Declare a model input; returns its parameter name."""
        unique = self.names.unique(name)
        self.inputs.append(_Input(unique, [symbolic.as_expr(d) for d in dims], dtype))
        return unique

    def add_weight(self, name: str, value: np.ndarray) -> str:
        """Declare a weight parameter with its value; returns its parameter name.
        Weights no operator uses are left out of the function and the parameter file."""
        unique = self.names.unique(name)
        # (np.ascontiguousarray alone makes a 0-d array 1-d)
        self.weights[unique] = np.ascontiguousarray(value).reshape(np.shape(value))
        return unique

    def build(
        self, body: Callable[[BlockBuilder, dict[str, SSAValue]], Sequence[SSAValue]]
    ) -> ImportedModel:
        """Build ``main``: ``body`` gets the builder (inside the dataflow region) and the
        parameter values by name, and returns the outputs. Raises
        :class:`UnsupportedOperatorsError` when ``body`` recorded any in ``unsupported``."""
        types, matches = self._input_types()
        params = [(i.name, t) for i, t in zip(self.inputs, types, strict=True)]
        for name, value in self.weights.items():
            dtype = _element_type(value.dtype, f"weight '{name}'")
            params.append((name, TensorType.of(list(value.shape), dtype)))
        bb = BlockBuilder()
        with bb.function("main", params) as args:
            values = {name: arg for (name, _), arg in zip(params, args, strict=True)}
            with bb.dataflow():
                for value, dims in matches:
                    if isinstance(value, str):
                        values[value] = bb.match_shape(values[value], dims, name=value)
                    else:
                        bb.match_shape(bb.shape([value]), dims)
                outputs = list(body(bb, values))
                if self.unsupported:
                    raise UnsupportedOperatorsError(self.framework, self.unsupported)
                if len(outputs) == 1:
                    result = bb.emit_output(outputs[0], names=["result"])
                else:
                    result = bb.emit_output(bb.emit_op("relax.tuple", *outputs), names=["result"])
            bb.emit_func_output(result)
        module = bb.get()
        structure_dataflow(module)
        used = _prune_unused_weights(module, len(self.inputs))
        _verify(module)
        weights = list(self.weights.items())
        return ImportedModel(module, dict(weights[i] for i in used), [i.name for i in self.inputs])

    def _input_types(self) -> tuple[list[TensorType], list[tuple[Any, list[sympy.Expr]]]]:
        """Parameter types of the inputs, and the (value, pattern) pairs to match first.

        A dimension whose variables no earlier input defines becomes a fresh variable
        named after the input; matching the input against its real dimensions then checks
        the relation, once the variables only that dimension determines are solved."""
        defined: set[sympy.Symbol] = set()
        for item in self.inputs:
            defined |= {d for d in item.dims if isinstance(d, sympy.Symbol)}
        types, pending = [], []
        declared: set[sympy.Symbol] = set()
        for item in self.inputs:
            dims: list[sympy.Expr] = []
            for axis, dim in enumerate(item.dims):
                if not (isinstance(dim, sympy.Symbol) or dim.free_symbols <= declared):
                    fresh = symbolic.sym(self.var_names.unique(f"{item.name}_{axis}"))
                    pending.append((fresh, dim))
                    dim = fresh
                dims.append(dim)
                if isinstance(dim, sympy.Symbol):
                    declared.add(dim)
            types.append(TensorType.of(dims, item.dtype))
        matches = _solve(pending, defined)
        matches += [
            (item.name, item.dims)
            for item, type_ in zip(self.inputs, types, strict=True)
            if list(type_.dims) != item.dims
        ]
        return types, matches


def _solve(
    pending: list[tuple[sympy.Symbol, sympy.Expr]], defined: set[sympy.Symbol]
) -> list[tuple[sympy.Expr, list[sympy.Expr]]]:
    """``(shape expression, [s])`` pairs binding each variable ``s`` that only occurs
    inside dimensions: from ``t = a * s + b``, ``s = floordiv(t - b, a)``."""
    known = set(defined) | {fresh for fresh, _ in pending}
    unbound = set().union(*(dim.free_symbols for _, dim in pending)) - known
    solutions: list[tuple[sympy.Expr, list[sympy.Expr]]] = []
    while unbound:
        for fresh, dim in pending:
            free = dim.free_symbols & unbound
            if len(free) != 1:
                continue
            (var,) = free
            poly = sympy.Poly(dim, var)
            if poly.degree() != 1 or not poly.coeffs()[0].is_Integer:
                continue
            a = int(poly.coeffs()[0])
            b = sympy.expand(dim - a * var)
            solutions.append((symbolic.floordiv(fresh - b, a), [var]))
            unbound.discard(var)
            break
        else:
            var = min(unbound, key=str)
            dim = next(d for _, d in pending if var in d.free_symbols)
            raise FrontendError(
                f"cannot bind symbolic dimension {var.name}: no input has it as a dimension, "
                f"and it cannot be solved from {symbolic.format_expr(dim)}"
            )
    return solutions


def _element_type(dtype: np.dtype, what: str) -> Attribute:
    try:
        return dtypes.from_numpy(dtype)
    except ValueError:
        raise FrontendError(f"{what} has element type {dtype}, which relax lacks") from None


def _prune_unused_weights(module: ModuleOp, inputs: int) -> list[int]:
    """Drop the weight parameters (after the first ``inputs``) of ``main`` that nothing
    uses; returns the positions among the weights of those kept."""
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    block = func.body.block
    kept = [i for i, arg in enumerate(block.args[inputs:]) if arg.uses]
    for arg in reversed(block.args[inputs:]):
        if not arg.uses:
            block.erase_arg(arg)
    func.function_type = FunctionType.from_lists(
        [arg.type for arg in block.args], func.function_type.outputs.data
    )
    return kept


def _verify(module: ModuleOp) -> None:
    try:
        verify_module(module)
    except (IRError, RelaxError) as err:
        raise FrontendError(f"internal error: the imported IR does not verify: {err}") from None
