"""Operator attributes known only at run time: ``runtime_attrs`` and ``tensor_to_shape``.

A framework may compute an operator's attribute (the axes of a reduction, the diagonal
of ``tril``, the begin of a slice) in the graph. Two forms bring such a value to the
operator:

* ``relax.runtime_attrs`` applies an operator whose attributes ``names`` are the values
  of its trailing integer tensors (0-d: an integer, 1-D: an array), read when it runs.
  Its result type is what is known without the values, its rank and element type (the
  operator's deduction on rank-only operands, trying stand-in values of the attributes'
  lengths); the importer then states the shape it knows with ``relax.match_shape``. It
  always runs on the safety net: the operator's reference kernel with the attributes,
  after the operator's own facts are checked on the concrete shapes.
* ``relax.tensor_to_shape`` makes a shape value of a 1-D integer tensor (TVM Relax's
  ``tensor_to_shape``), for operators whose result shape is the value (``reshape``,
  ``full``, ``broadcast_to``): ``relax.match_shape`` binds its entries to new symbolic
  variables, and the operator compiles to a kernel of symbolic shape.

```mlir
%y = relax.runtime_attrs %x, %axes {op = "relax.sum", names = ["axis"], attrs = {keepdims = true}}
       : (!relax.tensor<[n, 4], f32>, !relax.tensor<[1], i64>) -> !relax.tensor<ndim=2, f32>
%s = relax.tensor_to_shape %t : (!relax.tensor<[2], i64>) -> !relax.shape<ndim=2>
```
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.constraints import VerificationContext
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from xrelax.dialects.relax import (
    PrimType,
    RelaxError,
    ShapeType,
    TensorType,
    TupleType,
    show_type,
)
from xrelax.dialects.shapes.obligations import Facts
from xrelax.ops.base import INTEGER, OperatorOp, Props, expect_tensor, runtime_type
from xrelax.ops.catalog import STATIC_ATTRS_OPS
from xrelax.ops.functions import OperatorSignature

_SCALAR = IntegerAttr(0, i64)
_ARRAY = DenseArrayBase.from_list(i64, [0])


def _operator(name: str) -> type[OperatorOp]:
    """The relax operator called ``name`` (``relax.sum``)."""
    for op_type in STATIC_ATTRS_OPS:
        if op_type.name == name:
            return op_type
    raise RelaxError(f"expected 'op' to name a relax operator, got '{name}'")


def _accepts(op_type: type[OperatorOp], name: str, sample: Attribute) -> bool:
    constr = op_type.get_irdl_definition().properties[name].constr
    try:
        constr.verify(sample, VerificationContext())
    except VerifyException:
        return False
    return True


def _rank_only(type_: Attribute) -> Attribute:
    """``type_`` with its dims and values forgotten (its rank and element type kept)."""
    if isinstance(type_, TensorType):
        return TensorType.of(type_.ndim, type_.known_dtype)
    if isinstance(type_, ShapeType):
        return ShapeType.of(type_.ndim)
    if isinstance(type_, PrimType):
        return PrimType.of(type_.dtype)
    if isinstance(type_, TupleType):
        return TupleType.of(_rank_only(t) for t in type_.types)
    return type_


MAX_ATTRIBUTE_LENGTH = 1 << 10
"""The longest attribute array a run-time tensor may give (axes, pads, starts: a few per
axis); deduction builds stand-in values of that length."""


class _Spec:
    """A ``runtime_attrs`` op read: its operator, its operand types, its static
    attributes and the attribute each trailing operand sets."""

    def __init__(self, operand_types: Sequence[Attribute], properties: Props) -> None:
        for key in ("op", "names"):
            if key not in properties:
                raise RelaxError(f"expected a '{key}' property")
        op, given = properties["op"], properties["names"]
        if not isinstance(op, StringAttr):
            raise RelaxError("expected 'op' to be an operator's name as a string")
        if not isinstance(given, ArrayAttr) or not all(isinstance(n, StringAttr) for n in given):
            raise RelaxError("expected 'names' to be an array of attribute names (strings)")
        self.op_type = _operator(op.data)
        names = [n.data for n in given.data]
        attrs = properties.get("attrs")
        if attrs is not None and not isinstance(attrs, DictionaryAttr):
            raise RelaxError("expected 'attrs' to be a dictionary of attributes")
        self.static: Props = dict(attrs.data) if attrs is not None else {}
        declared = self.op_type.get_irdl_definition().properties
        if len(set(names)) != len(names):
            raise RelaxError(f"expected distinct 'names', got {names}")
        for name in [*names, *self.static]:
            if name not in declared:
                raise RelaxError(f"{self.op_type.name} has no attribute '{name}'")
        if set(names) & set(self.static):
            twice = sorted(set(names) & set(self.static))
            raise RelaxError(f"'{twice[0]}' is given in 'attrs' and as an operand")
        if len(operand_types) < len(names):
            raise RelaxError(f"expected an operand for each of {names}")
        split = len(operand_types) - len(names)
        self.operand_types = list(operand_types[:split])
        self.names = names
        self.lengths: list[int | None] = []
        self.lengths_known = True
        """False when an array's length is not known (the stand-in has one element)."""
        for name, type_ in zip(names, operand_types[split:], strict=True):
            self.lengths.append(self._length(name, type_))

    def _length(self, name: str, type_: Attribute) -> int | None:
        """None for an integer (a 0-d tensor), the length for an array (a 1-D tensor)."""
        what = f"'{name}'"
        value = expect_tensor(type_, what)
        if value.known_dtype is not None and value.dtype not in INTEGER.members:
            raise RelaxError(f"expected an integer tensor as {what}, got {show_type(value)}")
        if value.ndim is None:
            if _accepts(self.op_type, name, _ARRAY):
                self.lengths_known = False
                return 1
            if _accepts(self.op_type, name, _SCALAR):
                return None
        if value.ndim == 0 and _accepts(self.op_type, name, _SCALAR):
            return None
        if value.ndim == 1 and _accepts(self.op_type, name, _ARRAY):
            if value.dims is None or not value.dims[0].is_Integer:
                self.lengths_known = False
                return 1
            length = int(value.dims[0])
            if length > MAX_ATTRIBUTE_LENGTH:
                raise RelaxError(
                    f"{what} has {length} values: an attribute array holds at most "
                    f"{MAX_ATTRIBUTE_LENGTH} (one per axis, or per axis and side)"
                )
            return length
        kinds = [
            kind
            for kind, sample in (("a 0-d", _SCALAR), ("a 1-D", _ARRAY))
            if _accepts(self.op_type, name, sample)
        ]
        if not kinds:
            raise RelaxError(f"{what} of {self.op_type.name} is not an integer attribute")
        raise RelaxError(f"expected {' or '.join(kinds)} tensor as {what}, got {show_type(value)}")

    def stand_ins(self) -> list[Props]:
        """Attribute values of the operands' lengths to deduce with, in the order tried:
        for each attribute, distinct values (as axes must be) or ones (as strides must
        not be 0)."""
        choices = []
        for name, length in zip(self.names, self.lengths, strict=True):
            if length is None:
                choices.append([(name, IntegerAttr(0, i64)), (name, IntegerAttr(1, i64))])
            else:
                arrays = (list(range(length)), [1] * length)
                choices.append([(name, DenseArrayBase.from_list(i64, a)) for a in arrays])
        return [dict(chosen) for chosen in itertools.product(*choices)]


@irdl_op_definition
class RuntimeAttrsOp(OperatorOp):
    """``relax.runtime_attrs``: the operator ``op`` applied to the leading operands, its
    attributes ``names`` taken from the trailing integer tensors when it runs (0-d: an
    integer, 1-D: an array) and the others from ``attrs``."""

    name = "relax.runtime_attrs"

    operands_ = var_operand_def()
    op = prop_def(StringAttr)
    names = prop_def(ArrayAttr[StringAttr])
    attrs = opt_prop_def(DictionaryAttr)
    result = result_def()
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        spec = _Spec(operand_types, properties)
        inner = spec.op_type
        types = tuple(_rank_only(t) for t in spec.operand_types)
        errors: list[RelaxError] = []
        for stand_in in spec.stand_ins():
            try:
                # The stand-ins' facts are no facts of the program: dropped.
                deduced = inner.deduction(types, {**spec.static, **stand_in}).type
                break
            except RelaxError as err:
                errors.append(err)
        else:
            raise RelaxError(f"{inner.name}: {errors[0]}")
        if spec.lengths_known:
            return _rank_only(deduced)
        if isinstance(deduced, TensorType):
            # The rank may depend on the length (the axes a reduction drops).
            return TensorType.of(None, deduced.known_dtype)
        raise RelaxError(f"expected 1-D tensors of known lengths as {spec.names}")

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        spec = _Spec([runtime_type(v) for v in inputs], props)
        split = len(spec.operand_types)
        given: Props = dict(spec.static)
        for name, length, value in zip(spec.names, spec.lengths, inputs[split:], strict=True):
            values = [int(v) for v in np.asarray(value).reshape(-1)]
            if any(not -(2**63) <= v < 2**63 for v in values):
                raise RelaxError(f"'{name}' {values} is out of the range of i64")
            array = DenseArrayBase.from_list(i64, values)
            given[name] = IntegerAttr(values[0], i64) if length is None else array
        try:
            return spec.op_type.run_reference(list(inputs[:split]), given)
        except RelaxError as err:
            message = str(err).removeprefix(f"{spec.op_type.name}: ")
            raise RelaxError(f"{spec.op_type.name}: {message}") from None


@irdl_op_definition
class TensorToShapeOp(OperatorOp):
    """``relax.tensor_to_shape``: the shape value whose sizes are the entries of the 1-D
    integer tensor x (each non-negative); ``relax.match_shape`` names them."""

    name = "relax.tensor_to_shape"

    x = operand_def(TensorType)
    result = result_def()
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        x = expect_tensor(operand_types[0])
        if x.known_dtype is not None and x.dtype not in INTEGER.members:
            raise RelaxError(f"expected an integer tensor, got {show_type(x)}")
        if x.ndim is not None and x.ndim != 1:
            raise RelaxError(f"expected a 1-D tensor, got {show_type(x)}")
        if x.dims is None or not x.dims[0].is_Integer:
            return ShapeType.of(None)
        return ShapeType.of(int(x.dims[0]))

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        sizes = tuple(int(v) for v in x)
        if any(s < 0 for s in sizes):
            raise RelaxError(f"expected non-negative sizes, got {list(sizes)}")
        return sizes


RUNTIME_ATTRS_OPS = (RuntimeAttrsOp, TensorToShapeOp)


def runtime_attrs(
    op_name: str,
    operands: Sequence[SSAValue],
    given: dict[str, SSAValue],
    **static: Any,
) -> RuntimeAttrsOp:
    """``relax.runtime_attrs`` of operator ``op_name`` (``"sum"`` or ``"relax.sum"``) on
    ``operands``, the attributes ``given`` from tensors and ``static`` as Python values
    (converted as :mod:`xrelax.op` converts them); the result type deduced."""
    inner = _operator(op_name if op_name.startswith("relax.") else f"relax.{op_name}")
    signature = OperatorSignature.of(inner)
    constraints = dict(signature.attributes)
    attrs = {
        key: signature.attribute(key, value, constraints[key])
        for key, value in static.items()
        if value is not None
    }
    props: Props = {
        "op": StringAttr(inner.name),
        "names": ArrayAttr([StringAttr(name) for name in given]),
    }
    if attrs:
        props["attrs"] = DictionaryAttr(attrs)
    values = [*operands, *given.values()]
    result = RuntimeAttrsOp.deduction([v.type for v in values], props).type
    return RuntimeAttrsOp.create(operands=values, properties=props, result_types=[result])
