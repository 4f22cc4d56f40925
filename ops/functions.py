"""The Python functions of the operators, generated from their classes: the builders
of :mod:`xrelax.op` (``op.matmul(x, w)`` -> a ``relax.matmul`` operation) and the TE
computes of :mod:`xrelax.topi` (``topi.matmul(A, B)`` -> a ``te.Tensor``).

:class:`OperatorSignature` maps a Python call onto an operator: operands
positionally or by name, attributes as keywords converted to the kinds the operator
declares (see :mod:`xrelax.op` for the accepted Python values).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np
import sympy
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    i64,
)
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import VarOperandDef
from xdsl.irdl.constraints import AttrConstraint, VerificationContext
from xdsl.utils.exceptions import VerifyException

from xrelax.dialects import dtypes
from xrelax.dialects.relax import (
    ConstOp,
    DeducedResultOp,
    PrimValueOp,
    RelaxError,
    ShapeOp,
    ShapeType,
    TensorType,
    TupleType,
    show_type,
)
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.obligations import Deduction
from xrelax.ops import te
from xrelax.ops.base import OperatorOp


@dataclass(frozen=True)
class OperatorSignature:
    """How a Python call maps onto an operator: its operands (in order, variadic or
    not) and its attributes with their declared constraints."""

    op_type: type[DeducedResultOp]
    operands: tuple[tuple[str, bool], ...]
    attributes: tuple[tuple[str, AttrConstraint], ...]

    @staticmethod
    @cache
    def of(op_type: type[DeducedResultOp]) -> OperatorSignature:
        """The signature of ``op_type`` (from its IRDL definition)."""
        definition = op_type.get_irdl_definition()
        operands = tuple((n, isinstance(d, VarOperandDef)) for n, d in definition.operands)
        attributes = tuple((n, d.constr) for n, d in definition.properties.items())
        return OperatorSignature(op_type, operands, attributes)

    @property
    def function_name(self) -> str:
        """``matmul`` for ``relax.matmul``."""
        return self.op_type.name.removeprefix("relax.")

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[list[Any], dict]:
        """The raw value of each operand (a list for a variadic one) and the converted
        attributes of a call ``f(*args, **kwargs)``."""
        names = [name for name, _ in self.operands]
        values: dict[str, Any] = {}
        args = list(args)
        for position, (name, variadic) in enumerate(self.operands):
            if not args:
                break
            if variadic:
                rest = len(self.operands) - position - 1
                taken, args = args[: len(args) - rest], args[len(args) - rest :]
                single = len(taken) == 1 and isinstance(taken[0], list | tuple)
                values[name] = list(taken[0]) if single else taken
            else:
                values[name] = args.pop(0)
        if args:
            raise TypeError(
                f"{self.function_name}() takes {len(names)} operand(s) ({', '.join(names)}); "
                f"give attributes by keyword ({self._attribute_names()})"
            )
        for name in names:
            if name in kwargs:
                if name in values:
                    raise TypeError(f"{self.function_name}() got operand '{name}' twice")
                values[name] = kwargs.pop(name)
        for name, variadic in self.operands:
            if variadic:
                values.setdefault(name, [])
        missing = [name for name in names if name not in values]
        if missing:
            raise TypeError(
                f"{self.function_name}() is missing operand '{missing[0]}' "
                f"(operands: {', '.join(names)})"
            )
        constraints = dict(self.attributes)
        for key in kwargs:
            if key not in constraints:
                raise TypeError(
                    f"{self.function_name}() got an unexpected keyword '{key}' "
                    f"(attributes: {self._attribute_names()})"
                )
        # In the order the operator declares them, whatever the keyword order.
        attributes = {
            key: self.attribute(key, kwargs[key], constraint)
            for key, constraint in self.attributes
            if kwargs.get(key) is not None
        }
        operands = []
        for name, variadic in self.operands:
            value = values[name]
            if variadic:
                value = list(value) if isinstance(value, list | tuple) else [value]
            operands.append(value)
        return operands, attributes

    def deduction(self, operand_types: Sequence[Attribute], attributes: dict) -> Deduction:
        """The result type and its facts, a deduction error naming the operator."""
        try:
            return self.op_type.deduction(operand_types, attributes)
        except RelaxError as err:
            raise RelaxError(f"{self.op_type.name}: {err}") from None

    def _attribute_names(self) -> str:
        return ", ".join(name for name, _ in self.attributes) or "none"

    def attribute(self, key: str, value: Any, constraint: AttrConstraint) -> Attribute:
        """``value`` (a Python value or an attribute) as attribute ``key`` of the
        operator; a TypeError naming the function when it does not fit ``constraint``."""
        if isinstance(value, Attribute):
            attribute = value if _accepts(constraint, value) else None
        else:
            if isinstance(value, np.ndarray):
                value = value.tolist()
            hashable = tuple(value) if isinstance(value, list) else value
            try:
                attribute = _converted(constraint, type(value), hashable)
            except TypeError:  # unhashable: not a value any attribute kind takes
                attribute = None
        if attribute is None:
            raise TypeError(
                f"{self.function_name}(): attribute '{key}' expects {_describe(constraint)}, "
                f"got {value!r}"
            )
        return attribute


def _accepts(constraint: AttrConstraint, attribute: Attribute) -> bool:
    try:
        constraint.verify(attribute, VerificationContext())
    except VerifyException:
        return False
    return True


@lru_cache(maxsize=4096)
def _converted(constraint: AttrConstraint, kind: type, value: Any) -> Attribute | None:
    """The first attribute ``value`` may stand for that ``constraint`` accepts (memoised:
    attributes are immutable, and importers give the same few values again and again)."""
    return next((a for a in _attribute_candidates(value) if _accepts(constraint, a)), None)


def _attribute_candidates(value: Any) -> Iterator[Attribute]:
    """The attributes a Python value may stand for, most specific first."""
    if isinstance(value, bool | np.bool_):
        yield IntegerAttr.from_bool(bool(value))
    elif isinstance(value, int | np.integer):
        yield IntegerAttr(int(value), i64)
        yield DenseArrayBase.from_list(i64, [int(value)])
        yield FloatAttr(float(value), dtypes.F32)
    elif isinstance(value, float | np.floating):
        yield FloatAttr(float(value), dtypes.F32)
    elif isinstance(value, str | np.dtype) or (
        isinstance(value, type) and issubclass(value, np.generic)
    ):
        if (dtype := _dtype(value)) is not None:
            yield dtype
    elif isinstance(value, Sequence) and all(
        isinstance(v, int | np.integer) and not isinstance(v, bool) for v in value
    ):
        yield DenseArrayBase.from_list(i64, [int(v) for v in value])


def _dtype(value: Any) -> Attribute | None:
    if isinstance(value, str) and value in dtypes.BY_NAME:
        return dtypes.BY_NAME[value]
    try:
        return dtypes.from_numpy(value)
    except (TypeError, ValueError):
        return None


_KINDS: tuple[tuple[str, Attribute], ...] = (
    ("an integer", IntegerAttr(0, i64)),
    ("a list of integers", DenseArrayBase.from_list(i64, [0])),
    ("a bool", IntegerAttr.from_bool(True)),
    ("a float", FloatAttr(0.0, dtypes.F32)),
    (f"an element type ({', '.join(dtypes.BY_NAME)})", dtypes.F32),
)


def _describe(constraint: AttrConstraint) -> str:
    """What a constraint accepts, in the terms of the Python values given for it."""
    accepted = [description for description, sample in _KINDS if _accepts(constraint, sample)]
    return " or ".join(accepted) or str(constraint)


def const_op(value: np.ndarray | np.generic) -> ConstOp:
    """A (not yet inserted) ``relax.const`` of a numpy array."""
    array = np.asarray(value)
    dtype = dtypes.from_numpy(array.dtype)
    builtin_type = BuiltinTensorType(dtype, list(array.shape))
    attr = DenseIntOrFPElementsAttr.from_list(builtin_type, array.ravel().tolist())
    return ConstOp(attr, TensorType.of(list(array.shape), dtype))


def operand_value(value: Any, what: str) -> SSAValue:
    """A relax value for an operand given as a value, an operation, a list of dims
    (a ``relax.shape``), an integer or symbolic expression (a ``relax.prim_value``) or a
    numpy array (a ``relax.const``)."""
    if isinstance(value, SSAValue):
        return value
    if isinstance(value, Operation):
        if len(value.results) != 1:
            raise TypeError(f"{what}: {value.name} has {len(value.results)} results, not one")
        return value.results[0]
    if isinstance(value, np.ndarray | np.generic):
        return const_op(value).results[0]
    if isinstance(value, list | tuple) and all(_is_dim(v) for v in value):
        return ShapeOp(_dims(value)).results[0]
    if _is_dim(value):
        return PrimValueOp(value).results[0]
    raise TypeError(
        f"{what} must be a relax value, an operation, a list of dims, an integer or "
        f"symbolic expression (a relax.prim_value) or a numpy array, got {type(value).__name__}"
    )


def _is_dim(value: Any) -> bool:
    return isinstance(value, int | str | sympy.Expr | np.integer) and not isinstance(value, bool)


def _dims(values: Sequence[Any]) -> tuple[sympy.Expr, ...]:
    return symbolic.as_dims([int(v) if isinstance(v, np.integer) else v for v in values])


def _python_signature(signature: OperatorSignature) -> inspect.Signature:
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    keyword = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter(name, positional) for name, _ in signature.operands]
    params += [inspect.Parameter(name, keyword, default=None) for name, _ in signature.attributes]
    return inspect.Signature(params)


def operator_function(op_type: type[DeducedResultOp]) -> Callable[..., Operation]:
    """The :mod:`xrelax.op` function of ``op_type``: the operation, not inserted, with
    its result type deduced."""
    signature = OperatorSignature.of(op_type)

    def build(*args: Any, **kwargs: Any) -> Operation:
        raw, attributes = signature.bind(args, kwargs)
        operands: list[SSAValue] = []
        for (name, variadic), value in zip(signature.operands, raw, strict=True):
            what = f"{signature.function_name}(): operand '{name}'"
            items = value if variadic else [value]
            operands += [operand_value(item, what) for item in items]
        result = signature.deduction([o.type for o in operands], attributes).type
        return op_type.create(operands=operands, properties=attributes, result_types=[result])

    build.__name__ = build.__qualname__ = signature.function_name
    build.__doc__ = op_type.__doc__
    build.__signature__ = _python_signature(signature)  # type: ignore[attr-defined]
    return build


# ------------------------------------------------------------------ TE computes (topi)

ComputeResult = te.Tensor | tuple[te.Tensor, ...]
"""What a TE compute returns: a tensor, or a tuple of them (``split``)."""


def _input(value: Any, what: str) -> tuple[Any, Any]:
    """The ``emit_te`` input and the relax type of one operand."""
    if isinstance(value, te.Tensor):
        return value, TensorType.of(list(value.shape), value.dtype)
    if isinstance(value, list | tuple) and all(_is_dim(d) for d in value):
        dims = _dims(value)
        return dims, ShapeType.of(dims)
    raise TypeError(f"{what} must be a te.Tensor or a list of dims, got {type(value).__name__}")


def _known(type_: Any) -> bool:
    return isinstance(type_, TensorType) and None not in (type_.dims, type_.known_dtype)


def compute_function(op_type: type[OperatorOp]) -> Callable[..., ComputeResult]:
    """The :mod:`xrelax.topi` function of ``op_type``: its ``emit_te`` on ``te.Tensor``
    operands, with the result type its deduction gives. The facts the deduction relies
    on but cannot prove travel with the result tensors (``te.Tensor.facts``): the
    kernel computing them checks them first."""
    signature = OperatorSignature.of(op_type)
    name = signature.function_name

    def compute(*args: Any, **kwargs: Any) -> ComputeResult:
        raw, attributes = signature.bind(args, kwargs)
        inputs: list[Any] = []
        types: list[Any] = []
        for (operand, variadic), value in zip(signature.operands, raw, strict=True):
            for item in value if variadic else [value]:
                te_input, type_ = _input(item, f"topi.{name}(): operand '{operand}'")
                inputs.append(te_input)
                types.append(type_)
        result_type, facts = signature.deduction(types, attributes)
        results = result_type.types if isinstance(result_type, TupleType) else (result_type,)
        if not all(_known(t) for t in results):
            raise RelaxError(
                f"topi.{name}: the result shape is not known ({show_type(result_type)}); "
                "make the operands' shapes provably compatible (match_shape) first"
            )
        outputs = op_type.emit_te(inputs, result_type, attributes)
        for output in outputs if isinstance(outputs, list | tuple) else [outputs]:
            output.facts = tuple(dict.fromkeys([*output.facts, *facts]))
        return tuple(outputs) if isinstance(outputs, list | tuple) else outputs

    compute.__name__ = compute.__qualname__ = name
    compute.__doc__ = f"The compute of ``{op_type.name}``: {op_type.__doc__ or ''}"
    return compute
