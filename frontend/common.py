"""What the model importers share: errors, the imported model, parameter files, names,
and :class:`ModelBuilder`, which turns a framework graph's inputs, weights and symbolic
dimensions into one relax function.

The function ``main`` takes the model's inputs first, in the framework's order, then
its weights, as parameters named after the framework's own names (``fc1.weight``
becomes ``fc1_weight``). The weights' values travel beside the IR, in an ``.npz``
keyed by those names (:func:`save_params`, :func:`load_params`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any

import numpy as np
import sympy
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Attribute, SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.relax import FuncOp, RelaxError, TensorType
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.block_builder import BlockBuilder

# ----------------------------------------------------------------------------- errors


class FrontendError(Exception):
    """A model the importer cannot translate; the message is one line."""


class Unsupported(Exception):
    """Raised by an operator converter: this operator, or this use of it, is not supported.

    ``what`` names it as the report lists it (``aten.foo.default``, ``Foo``, or the
    operator with the unsupported attribute: ``aten.sdpa.default (is_causal=True)``).
    """

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class UnsupportedOperatorsError(FrontendError):
    """Every unsupported operator of a model, by name and number of nodes."""

    def __init__(self, framework: str, counts: Mapping[str, int]) -> None:
        self.counts = dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
        nodes = sum(self.counts.values())
        listed = ", ".join(f"{name} ({count})" for name, count in self.counts.items())
        kinds = len(self.counts)
        super().__init__(
            f"{kinds} unsupported {framework} operator{'s' if kinds > 1 else ''} "
            f"in {nodes} node{'s' if nodes > 1 else ''}: {listed}"
        )


# ----------------------------------------------------------------------------- results


@dataclass
class ImportedModel:
    """A relax module with one function ``main`` and the values of its weight parameters."""

    module: ModuleOp
    params: dict[str, np.ndarray]
    """The weights, keyed by parameter name, in parameter order."""
    inputs: list[str]
    """The names of the parameters that are model inputs (they come first)."""
    written_inputs: list[str] = field(default_factory=list)
    """The model inputs the model writes in place (``x.add_(1)``), in input order: the
    function returns their new values first, then the model's outputs."""

    def text(self) -> str:
        """The module's textual form."""
        from xrelax import print_module

        return print_module(self.module)


def load_params(path: str | PathLike[str]) -> dict[str, np.ndarray]:
    """The weights an importer saved (``relax-import --params-out``), keyed by parameter
    name: pass them to the VM as keyword arguments, ``vm["main"](x, **params)``."""
    with np.load(path, allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def save_params(path: str | PathLike[str], params: Mapping[str, np.ndarray]) -> None:
    """Write weights keyed by parameter name to an ``.npz``."""
    np.savez(path, **{name: np.asarray(value) for name, value in params.items()})


# ----------------------------------------------------------------------------- names

_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")
_NUMBER_SUFFIX = re.compile(r"_(\d+)$")


def sanitize_name(name: str) -> str:
    """``name`` as an SSA name that prints as itself: other characters become ``_``
    (``fc1.weight`` -> ``fc1_weight``), a leading digit gets a ``_``, and a final
    ``_<digits>`` (which MLIR printers treat as a uniquing suffix) loses its ``_``
    (``layers.0`` -> ``layers0``, ``1`` -> ``v1``)."""
    text = _NOT_NAME.sub("_", name) or "_"
    text = f"_{text}" if text[0].isdigit() else text
    return _NUMBER_SUFFIX.sub(r"\1", text) if not _NUMBER_SUFFIX.fullmatch(text) else f"v{text[1:]}"


class Names:
    """Hands out distinct identifiers: a taken name gets a ``_v1``, ``_v2``, ... suffix."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.taken = set(reserved)

    def unique(self, name: str) -> str:
        """A free identifier derived from ``name``; it is taken from now on."""
        base = sanitize_name(name)
        candidate, index = base, 1
        while candidate in self.taken:
            candidate, index = f"{base}_v{index}", index + 1
        self.taken.add(candidate)
        return candidate


# ----------------------------------------------------------------------------- the builder

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
        from xrelax.frontend.control_flow import structure_dataflow

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
    from xrelax.dialects.ir.diagnostics import IRError, verify_module

    try:
        verify_module(module)
    except (IRError, RelaxError) as err:
        raise FrontendError(f"internal error: the imported IR does not verify: {err}") from None


# ----------------------------------------------------------------------------- allocation


def check_allocation(elements: int, dtype: Any, what: str) -> None:
    """Refuse a value of ``elements`` elements of ``dtype`` that the VM would not
    allocate (an import-time fold, a weight), before anything allocates it: the VM's
    own allocation builtin is asked for the bytes (an untouched allocation, released
    at once), so an importer and the VM refuse the same sizes."""
    from xrelax.backends.vm.builtins import alloc_tensor_direct
    from xrelax.backends.vm.error import AllocationError

    nbytes = elements * np.dtype(dtype).itemsize
    try:
        alloc_tensor_direct((nbytes,), "uint8")
    except AllocationError:
        raise FrontendError(
            f"{what} would take {nbytes} bytes, more than the VM allocates"
        ) from None
