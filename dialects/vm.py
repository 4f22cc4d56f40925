"""The vm dialect: the textual form of a VM executable (docs/design.md §7).

Two groups of ops:

* **Builtins** used inside relax functions while lowering (memory and shape-heap
  operations with their integer/dtype attributes): ``vm.alloc_storage``,
  ``vm.alloc_tensor``, ``vm.kill``, ``vm.alloc_shape_heap``, ``vm.store_shape``,
  ``vm.load_shape``, ``vm.make_shape``, ``vm.shape_of``, ``vm.match_shape``,
  ``vm.check_tensor``, and for prim values ``vm.match_prim`` and ``vm.make_prim``.
  Each one knows the ``vm.builtin.*`` packed function and the argument list it becomes
  (:meth:`VMBuiltinOp.call_args`). Sizes and shapes are symbolic dims; after
  ``relax-vm-shape-lower`` they only mention heap slots ``h0, h1, ...`` (``heap[0]``, ...)
  and integers.
* **Executable** ops: ``vm.func`` holding the four instructions ``vm.call``,
  ``vm.ret``, ``vm.if``, ``vm.goto`` on untyped registers (``!vm.ref``), plus
  ``vm.const`` (constant pool), ``vm.imm`` (immediate) and ``vm.func_ref``.

```mlir
vm.func @main(%x, %w) {
  %0 = vm.imm 2
  %h = vm.call "vm.builtin.alloc_shape_heap"(%0)
  %c = vm.const "main: parameter 'x'"
  vm.ret %x
}
```
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import sympy
from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    successor_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    IsolatedFromAbove,
    IsTerminator,
    MemoryAllocEffect,
    MemoryWriteEffect,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from xrelax.dialects import dtypes
from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.ir.dominance import check_dominance
from xrelax.dialects.ir.operation import XrelaxOperation
from xrelax.dialects.ir.syntax import (
    DefinedOperand,
    QuotedString,
    SymbolicDims,
    parse_bracket_dims,
    parse_defined_operand,
    parse_type,
    print_dims,
)
from xrelax.dialects.relax import PrimType
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import Dims
from xrelax.dialects.traits import BindsSymbolicVars

HEAP_SLOT_PREFIX = "h"


def heap_slot(index: int) -> sympy.Symbol:
    """The symbol standing for ``heap[index]`` in lowered shapes."""
    return symbolic.sym(f"{HEAP_SLOT_PREFIX}{index}")


def slot_index(expr: sympy.Expr) -> int | None:
    """The heap index of a slot symbol ``h<k>``, else None."""
    if expr.is_Symbol and expr.name.startswith(HEAP_SLOT_PREFIX):
        suffix = expr.name[len(HEAP_SLOT_PREFIX) :]
        if suffix.isdigit():
            return int(suffix)
    return None


class ShapeEntry(enum.IntEnum):
    """The kind of an entry of ``vm.builtin.make_shape``'s pattern (and of
    ``vm.builtin.make_prim``'s one entry), passed to the VM as its number."""

    IMMEDIATE = 0
    """The entry's integer itself."""
    HEAP = 1
    """The heap slot the entry's integer names."""


def shape_pattern(dims: Dims) -> tuple[tuple[int, int], ...]:
    """``vm.builtin.make_shape``'s pattern: (IMMEDIATE, value) and (HEAP, slot) pairs."""
    pattern: list[tuple[int, int]] = []
    for dim in dims:
        slot = slot_index(dim)
        if slot is not None:
            pattern.append((ShapeEntry.HEAP, slot))
        elif dim.is_Integer:
            pattern.append((ShapeEntry.IMMEDIATE, int(dim)))
        else:
            raise VerifyException(
                f"shape {symbolic.format_dims(dims)} is not lowered to heap slots and integers"
            )
    return tuple(pattern)


# ---------------------------------------------------------------------------------- types


@irdl_attr_definition
class RefType(ParametrizedAttribute, TypeAttribute):
    """``!vm.ref``: a VM register value (tensor, shape, storage, tuple, object)."""

    name = "vm.ref"


REF = RefType()


@functools.lru_cache(maxsize=4096)
def int_attr(value: int) -> IntegerAttr:
    """``value : i64``; attributes are immutable, so one per value is shared (building
    one checks its range: several µs per immediate emitted)."""
    return IntegerAttr(value, i64)


# -------------------------------------------------------------------------------- builtins


@dataclass(frozen=True)
class CallArg:
    """One argument of a builtin call: an SSA value, an immediate or a constant."""

    kind: str  # "value" | "imm" | "const" | "shape" (symbolic dims over heap slots)
    value: Any


def value_arg(value: SSAValue) -> CallArg:
    """An argument read from a register."""
    return CallArg("value", value)


def imm_arg(value: int) -> CallArg:
    """An immediate integer argument."""
    return CallArg("imm", int(value))


def const_arg(value: Any) -> CallArg:
    """A constant-pool argument (str, tuple, float, numpy array)."""
    return CallArg("const", value)


class VMBuiltinOp(XrelaxOperation):
    """A builtin of the VM's library, lowered by codegen to ``vm.call "vm.builtin.*"``."""

    BUILTIN: ClassVar[str] = ""

    def builtin(self) -> str:
        """The name of the builtin the op calls."""
        return self.BUILTIN

    def call_args(self) -> list[CallArg]:
        """The arguments of the builtin call, in order."""
        raise NotImplementedError


@irdl_op_definition
class AllocStorageOp(VMBuiltinOp):
    """``%s = vm.alloc_storage [bytes] : !relax.object``: storage of a (symbolic) size."""

    name = "vm.alloc_storage"
    BUILTIN: ClassVar[str] = "vm.builtin.alloc_storage"

    size = prop_def(DimsAttr)
    dtype = prop_def(StringAttr)
    storage = result_def()
    traits = traits_def(MemoryAllocEffect())

    def __init__(self, size: sympy.Expr, result_type: Attribute, dtype: str = "uint8") -> None:
        super().__init__(
            properties={"size": DimsAttr.of([size]), "dtype": StringAttr(dtype)},
            result_types=[result_type],
        )

    @classmethod
    def parse(cls, parser: Parser) -> AllocStorageOp:
        size = parse_bracket_dims(parser)
        attrs = parser.parse_optional_attr_dict()
        dtype = attrs.pop("dtype", StringAttr("uint8"))
        parser.parse_punctuation(":")
        return cls.create(
            properties={"size": DimsAttr(size), "dtype": dtype},
            attributes=attrs,
            result_types=[parse_type(parser)],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_dims(printer, self.size.data)
        printer.print_op_attributes({"dtype": self.dtype, **self.attributes})
        printer.print_string(" : ")
        printer.print_attribute(self.storage.type)

    def verify_(self) -> None:
        if len(self.size.data) != 1:
            raise VerifyException("vm.alloc_storage takes one size")

    def call_args(self) -> list[CallArg]:
        return [_shape_arg(self.size.data, self), const_arg(self.dtype.data)]


@irdl_op_definition
class AllocTensorOp(VMBuiltinOp):
    """``%t = vm.alloc_tensor %s [offset] shape [n, 4] : T``: a tensor view in storage."""

    name = "vm.alloc_tensor"
    BUILTIN: ClassVar[str] = "vm.builtin.alloc_tensor"

    storage = operand_def()
    offset = prop_def(DimsAttr)
    shape = prop_def(DimsAttr)
    dtype = prop_def(StringAttr)
    tensor = result_def()
    traits = traits_def(MemoryAllocEffect())

    def __init__(
        self,
        storage: SSAValue,
        offset: sympy.Expr,
        shape: Dims,
        dtype: str,
        result_type: Attribute,
    ) -> None:
        super().__init__(
            operands=[storage],
            properties={
                "offset": DimsAttr.of([offset]),
                "shape": DimsAttr(shape),
                "dtype": StringAttr(dtype),
            },
            result_types=[result_type],
        )

    @classmethod
    def parse(cls, parser: Parser) -> AllocTensorOp:
        storage = parse_defined_operand(parser)
        offset = parse_bracket_dims(parser)
        parser.parse_keyword("shape")
        shape = parse_bracket_dims(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.create(
            operands=[storage],
            properties={
                "offset": DimsAttr(offset),
                "shape": DimsAttr(shape),
                "dtype": attrs.pop("dtype", StringAttr("float32")),
            },
            attributes=attrs,
            result_types=[parse_type(parser)],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.storage)
        printer.print_string(" ")
        print_dims(printer, self.offset.data)
        printer.print_string(" shape ")
        print_dims(printer, self.shape.data)
        printer.print_op_attributes({"dtype": self.dtype, **self.attributes})
        printer.print_string(" : ")
        printer.print_attribute(self.tensor.type)

    def verify_(self) -> None:
        if len(self.offset.data) != 1:
            raise VerifyException("vm.alloc_tensor takes one offset")
        _check_dtype_name(self.dtype.data)

    def call_args(self) -> list[CallArg]:
        (offset,) = self.offset.data
        if not offset.is_Integer:
            raise IRError(self, "tensor offsets in a storage must be static")
        return [
            value_arg(self.storage),
            imm_arg(int(offset)),
            _shape_arg(self.shape.data, self),
            const_arg(self.dtype.data),
        ]


@irdl_op_definition
class AllocTensorDirectOp(VMBuiltinOp):
    """``%t = vm.alloc_tensor_direct shape [n, 4] {dtype = "float32"} : T``: a tensor with
    storage of its own (an allocation no other tensor shares)."""

    name = "vm.alloc_tensor_direct"
    BUILTIN: ClassVar[str] = "vm.builtin.alloc_tensor_direct"

    shape = prop_def(DimsAttr)
    dtype = prop_def(StringAttr)
    tensor = result_def()
    traits = traits_def(MemoryAllocEffect())

    def __init__(self, shape: Dims, dtype: str, result_type: Attribute) -> None:
        super().__init__(
            properties={"shape": DimsAttr(shape), "dtype": StringAttr(dtype)},
            result_types=[result_type],
        )

    @classmethod
    def parse(cls, parser: Parser) -> AllocTensorDirectOp:
        parser.parse_keyword("shape")
        shape = parse_bracket_dims(parser)
        attrs = parser.parse_optional_attr_dict()
        dtype = attrs.pop("dtype", StringAttr("float32"))
        parser.parse_punctuation(":")
        op = cls.create(
            properties={"shape": DimsAttr(shape), "dtype": dtype},
            result_types=[parse_type(parser)],
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" shape ")
        print_dims(printer, self.shape.data)
        printer.print_op_attributes({"dtype": self.dtype, **self.attributes})
        printer.print_string(" : ")
        printer.print_attribute(self.tensor.type)

    def verify_(self) -> None:
        _check_dtype_name(self.dtype.data)

    def call_args(self) -> list[CallArg]:
        return [_shape_arg(self.shape.data, self), const_arg(self.dtype.data)]


@irdl_op_definition
class KillOp(VMBuiltinOp):
    """``vm.kill %x``: the end of a tensor's or a storage's lifetime (a storage's memory
    may then serve later allocations)."""

    name = "vm.kill"
    BUILTIN: ClassVar[str] = "vm.builtin.free_tensor"

    value = operand_def()
    traits = traits_def(MemoryWriteEffect())
    custom_directives = (DefinedOperand,)
    assembly_format = "custom<DefinedOperand>($value, type($value)) attr-dict"

    def builtin(self) -> str:
        if isinstance(self.value.owner, AllocStorageOp):
            return "vm.builtin.free_storage"
        return self.BUILTIN

    def __init__(self, value: SSAValue) -> None:
        super().__init__(operands=[value])

    def call_args(self) -> list[CallArg]:
        return [value_arg(self.value)]


@irdl_op_definition
class AllocShapeHeapOp(VMBuiltinOp):
    """``%h = vm.alloc_shape_heap 4 : T``: the per-call heap of symbolic values."""

    name = "vm.alloc_shape_heap"
    BUILTIN: ClassVar[str] = "vm.builtin.alloc_shape_heap"

    size = prop_def(IntegerAttr[I64])
    heap = result_def()
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "$size attr-dict `:` type($heap)"

    def __init__(self, size: int, result_type: Attribute) -> None:
        super().__init__(properties={"size": int_attr(size)}, result_types=[result_type])

    def verify_(self) -> None:
        if self.size.value.data < 0:
            raise VerifyException("vm.alloc_shape_heap takes a non-negative size")

    def call_args(self) -> list[CallArg]:
        return [imm_arg(self.size.value.data)]


@irdl_op_definition
class StoreShapeOp(VMBuiltinOp):
    """``vm.store_shape %shape, %heap [0, 1]``: heap[i_k] = shape[k]."""

    name = "vm.store_shape"
    BUILTIN: ClassVar[str] = "vm.builtin.store_shape"

    shape = operand_def()
    heap = operand_def()
    indices = prop_def(DimsAttr)
    traits = traits_def(MemoryWriteEffect())
    custom_directives = (DefinedOperand, SymbolicDims)
    assembly_format = (
        "custom<DefinedOperand>($shape, type($shape)) `,` "
        "custom<DefinedOperand>($heap, type($heap)) custom<SymbolicDims>($indices) attr-dict"
    )

    def __init__(self, shape: SSAValue, heap: SSAValue, indices: Sequence[int]) -> None:
        super().__init__(operands=[shape, heap], properties={"indices": DimsAttr.of(indices)})

    def call_args(self) -> list[CallArg]:
        return [
            value_arg(self.shape),
            value_arg(self.heap),
            *(imm_arg(int(i)) for i in self.indices.data),
        ]

    def verify_(self) -> None:
        _check_heap_indices(self.indices.data)


@irdl_op_definition
class LoadShapeOp(VMBuiltinOp):
    """``%s = vm.load_shape %heap [0, 1] : T``: the shape (heap[i_0], heap[i_1], ...)."""

    name = "vm.load_shape"
    BUILTIN: ClassVar[str] = "vm.builtin.load_shape"

    heap = operand_def()
    indices = prop_def(DimsAttr)
    result = result_def()
    traits = traits_def(Pure())
    custom_directives = (DefinedOperand, SymbolicDims)
    assembly_format = (
        "custom<DefinedOperand>($heap, type($heap)) custom<SymbolicDims>($indices) attr-dict "
        "`:` type($result)"
    )

    def __init__(self, heap: SSAValue, indices: Sequence[int], result_type: Attribute) -> None:
        super().__init__(
            operands=[heap],
            properties={"indices": DimsAttr.of(indices)},
            result_types=[result_type],
        )

    def call_args(self) -> list[CallArg]:
        return [value_arg(self.heap), *(imm_arg(int(i)) for i in self.indices.data)]

    def verify_(self) -> None:
        _check_heap_indices(self.indices.data)


def _check_heap_indices(indices: Dims) -> None:
    """Shape heap slots are written as non-negative integers."""
    for index in indices:
        if not index.is_Integer or index < 0:
            raise VerifyException(
                f"shape heap index {symbolic.format_expr(index)} is not a non-negative integer"
            )


class _FromHeapOp(VMBuiltinOp):
    """``%r = vm.NAME %heap [h0, 4] : T``: a value made of heap slots and integers."""

    heap = operand_def()
    dims = prop_def(DimsAttr)
    result = result_def()
    traits = traits_def(Pure())
    custom_directives = (DefinedOperand, SymbolicDims)
    assembly_format = (
        "custom<DefinedOperand>($heap, type($heap)) custom<SymbolicDims>($dims) attr-dict "
        "`:` type($result)"
    )

    def __init__(self, heap: SSAValue, dims: Dims, result_type: Attribute) -> None:
        super().__init__(
            operands=[heap], properties={"dims": DimsAttr(dims)}, result_types=[result_type]
        )

    def verify_(self) -> None:
        shape_pattern(self.dims.data)


@irdl_op_definition
class MakeShapeOp(_FromHeapOp):
    """``%s = vm.make_shape %heap [h0, 4] : T``: a shape of heap slots and integers."""

    name = "vm.make_shape"
    BUILTIN: ClassVar[str] = "vm.builtin.make_shape"

    def call_args(self) -> list[CallArg]:
        return [value_arg(self.heap), const_arg(shape_pattern(self.dims.data))]


@irdl_op_definition
class MakePrimOp(_FromHeapOp):
    """``%k = vm.make_prim %heap [h0] : T``: a prim value read from a heap slot (or an
    integer), as a Python int."""

    name = "vm.make_prim"
    BUILTIN: ClassVar[str] = "vm.builtin.make_prim"

    def call_args(self) -> list[CallArg]:
        return [value_arg(self.heap), const_arg(shape_pattern(self.dims.data)[0])]

    def verify_(self) -> None:
        if len(self.dims.data) != 1:
            raise VerifyException("vm.make_prim reads one value")
        super().verify_()


@irdl_op_definition
class ShapeOfOp(VMBuiltinOp):
    """``%s = vm.shape_of %x : (T) -> S``: the run-time shape of a tensor."""

    name = "vm.shape_of"
    BUILTIN: ClassVar[str] = "vm.builtin.shape_of"

    value = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `:` functional-type($value, $result)"

    def __init__(self, value: SSAValue, result_type: Attribute) -> None:
        super().__init__(operands=[value], result_types=[result_type])

    def call_args(self) -> list[CallArg]:
        return [value_arg(self.value)]


class MatchKind(enum.IntEnum):
    """The kind of a ``vm.match_shape`` / ``vm.match_prim`` entry: written by its name in
    lower case (``equal``), passed to the VM's match builtins as its number."""

    EQUAL = 0
    """Assert that the integer equals the entry's integer."""
    STORE = 1
    """Store the integer into the entry's heap slot."""
    CHECK = 2
    """Assert that the integer equals the entry's heap slot."""
    ANY = 3
    """Skip the integer."""


MATCH_KINDS = tuple(kind.name.lower() for kind in MatchKind)
"""``vm.match_shape`` entry kinds as written."""


@irdl_custom_directive
class MatchEntries(CustomDirective):
    """``[store h0 "n", equal 4 "4", check h1 "m", any ""]``: per matched integer, its
    kind, its heap slot or integer, and its label."""

    kinds: AttributeVariable
    values: AttributeVariable
    labels: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        def entry() -> tuple[str, int, str]:
            kind = parser.parse_identifier()
            if kind not in MATCH_KINDS:
                parser.raise_error(f"expected one of {', '.join(MATCH_KINDS)}")
            number = 0
            if kind in ("store", "check"):
                slot = parser.parse_identifier()
                index = slot_index(symbolic.sym(slot))
                if index is None:
                    parser.raise_error(f"expected a heap slot h<k>, got '{slot}'")
                number = index
            elif kind == "equal":
                number = parser.parse_integer(allow_boolean=False)
            return kind, number, parser.parse_optional_str_literal() or ""

        entries = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)
        self.kinds.set(state, ArrayAttr(StringAttr(k) for k, _, _ in entries))
        self.values.set(state, DimsAttr(tuple(sympy.Integer(v) for _, v, _ in entries)))
        self.labels.set(state, ArrayAttr(StringAttr(label) for _, _, label in entries))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        kinds, values, labels = (d.get(op) for d in (self.kinds, self.values, self.labels))
        with printer.in_square_brackets():
            for index, (kind, value, label) in enumerate(
                zip(kinds, values.data, labels, strict=True)  # type: ignore[union-attr, arg-type]
            ):
                if index:
                    printer.print_string(", ")
                printer.print_string(kind.data)
                if kind.data in ("store", "check"):
                    printer.print_string(f" {HEAP_SLOT_PREFIX}{value}")
                elif kind.data == "equal":
                    printer.print_string(f" {value}")
                printer.print_string(" ")
                printer.print_string_literal(label.data)


class _MatchOp(VMBuiltinOp):
    """The fields, syntax and arguments shared by ``vm.match_shape`` and ``vm.match_prim``:
    per matched integer, a (kind, value, label) entry and an error context."""

    value = operand_def()
    heap = operand_def()
    kinds = prop_def(ArrayAttr[StringAttr])
    values = prop_def(DimsAttr)
    labels = prop_def(ArrayAttr[StringAttr])
    context = prop_def(StringAttr)
    result = result_def()
    traits = traits_def(MemoryWriteEffect(), BindsSymbolicVars())
    custom_directives = (MatchEntries, QuotedString)
    assembly_format = (
        "$value `,` $heap custom<MatchEntries>($kinds, $values, $labels) "
        "custom<QuotedString>($context) attr-dict `:` type($value) `,` type($heap) `->` "
        "type($result)"
    )

    def __init__(
        self,
        value: SSAValue,
        heap: SSAValue,
        entries: Sequence[tuple[str, int, str]],
        context: str,
        result_type: Attribute | None = None,
    ) -> None:
        super().__init__(
            result_types=[result_type if result_type is not None else value.type],
            operands=[value, heap],
            properties={
                "kinds": ArrayAttr(StringAttr(k) for k, _, _ in entries),
                "values": DimsAttr(tuple(sympy.Integer(v) for _, v, _ in entries)),
                "labels": ArrayAttr(StringAttr(label) for _, _, label in entries),
                "context": StringAttr(context),
            },
        )

    @property
    def entries(self) -> list[tuple[str, int, str]]:
        """(kind, value, label) per matched integer."""
        return [
            (k.data, int(v), label.data)
            for k, v, label in zip(self.kinds, self.values.data, self.labels, strict=True)
        ]

    def verify_(self) -> None:
        if not len(self.kinds) == len(self.values.data) == len(self.labels):
            raise VerifyException("kinds, values and labels differ in length")
        for kind in self.kinds:
            if kind.data not in MATCH_KINDS:
                raise VerifyException(f"unknown match kind '{kind.data}'")

    def call_args(self) -> list[CallArg]:
        pattern = tuple((int(MatchKind[k.upper()]), v, label) for k, v, label in self.entries)
        return [
            value_arg(self.value),
            value_arg(self.heap),
            const_arg(pattern),
            const_arg(self.context.data),
        ]


@irdl_op_definition
class MatchShapeOp(_MatchOp):
    """``%y = vm.match_shape %x, %heap [store h0 "n", equal 4 "4"] "ctx" : T, H -> T2``.

    Checks the rank of a tensor or shape value and, per dimension, stores it into a heap
    slot (first occurrence of a variable), checks it against a slot or an integer, or
    skips it. The labels (printed symbolic expressions) and the context string go into
    the error message. The result is the value itself, with the matched type.
    """

    name = "vm.match_shape"
    BUILTIN: ClassVar[str] = "vm.builtin.match_shape"


@irdl_op_definition
class MatchPrimOp(_MatchOp):
    """``%j = vm.match_prim %i, %heap [store h0 "i"] "ctx" : T, H -> T2``.

    Checks that a prim value is an integer (an int, a numpy integer or a 0-d integer
    array) in the range of its type's element type and, with its one entry, stores it
    into a heap slot (binding a symbolic variable, which must be non-negative), checks
    it, or skips it. The result is the value as a Python int.
    """

    name = "vm.match_prim"
    BUILTIN: ClassVar[str] = "vm.builtin.match_prim"

    def verify_(self) -> None:
        super().verify_()
        if len(self.kinds) != 1:
            raise VerifyException("vm.match_prim matches one value (one entry)")

    def call_args(self) -> list[CallArg]:
        # A prim type narrower than i64 bounds the value: the builtin is told its dtype.
        type_ = self.result.type
        if isinstance(type_, PrimType) and type_.dtype != dtypes.I64:
            return [*super().call_args(), const_arg(dtypes.numpy_name(type_.dtype))]
        return super().call_args()


class _CheckOp(VMBuiltinOp):
    """A run-time check of a value's kind; ``context`` starts its error message."""

    value = operand_def()
    context = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value attr-dict `:` type($value)"


@irdl_op_definition
class CheckTensorOp(_CheckOp):
    """``vm.check_tensor %x {ndim = 2, dtype = "float32", context = "..."}``: a run-time
    check that a value is a tensor of that rank (-1: any) and dtype ("" : any)."""

    name = "vm.check_tensor"
    BUILTIN: ClassVar[str] = "vm.builtin.check_tensor_info"

    ndim = prop_def(IntegerAttr)
    dtype = prop_def(StringAttr)

    def __init__(self, value: SSAValue, ndim: int, dtype: str, context: str) -> None:
        super().__init__(
            operands=[value],
            properties={
                "ndim": int_attr(ndim),
                "dtype": StringAttr(dtype),
                "context": StringAttr(context),
            },
        )

    def verify_(self) -> None:
        if self.dtype.data:
            _check_dtype_name(self.dtype.data)

    def call_args(self) -> list[CallArg]:
        return [
            value_arg(self.value),
            imm_arg(self.ndim.value.data),
            const_arg(self.dtype.data),
            const_arg(self.context.data),
        ]


@irdl_op_definition
class CheckShapeOp(_CheckOp):
    """``vm.check_shape %s {ndim = 2, context = "..."}``: a run-time check that a value is
    a shape value of that rank (-1: any)."""

    name = "vm.check_shape"
    BUILTIN: ClassVar[str] = "vm.builtin.check_shape_info"

    ndim = prop_def(IntegerAttr)

    def __init__(self, value: SSAValue, ndim: int, context: str) -> None:
        super().__init__(
            operands=[value],
            properties={"ndim": int_attr(ndim), "context": StringAttr(context)},
        )

    def call_args(self) -> list[CallArg]:
        return [value_arg(self.value), imm_arg(self.ndim.value.data), const_arg(self.context.data)]


@irdl_op_definition
class CheckTupleOp(_CheckOp):
    """``vm.check_tuple %t {size = 2, context = "..."}``: a run-time check that a value is
    a tuple of that many fields."""

    name = "vm.check_tuple"
    BUILTIN: ClassVar[str] = "vm.builtin.check_tuple_info"

    size = prop_def(IntegerAttr)

    def __init__(self, value: SSAValue, size: int, context: str) -> None:
        super().__init__(
            operands=[value],
            properties={"size": int_attr(size), "context": StringAttr(context)},
        )

    def call_args(self) -> list[CallArg]:
        return [value_arg(self.value), imm_arg(self.size.value.data), const_arg(self.context.data)]


def _shape_arg(dims: Dims, op: Operation) -> CallArg:
    """A shape argument: a constant tuple, or ``make_shape`` from the heap (codegen)."""
    return CallArg("shape", dims)


# ------------------------------------------------------------------------------ executable


@irdl_op_definition
class FuncOp(XrelaxOperation):
    """``vm.func @name(%a, %b) { ... }``: a VM function over untyped registers."""

    name = "vm.func"

    body = region_def()
    sym_name = prop_def(SymbolNameConstraint())
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, name: str, param_names: Sequence[str], body: Region | None = None) -> None:
        if body is None:
            body = Region(Block(arg_types=[REF] * len(param_names)))
        for arg, param in zip(body.blocks.first.args, param_names, strict=True):
            # a numbered parameter (%0) keeps no name: it is then called arg<i>
            arg.name_hint = param if SSAValue.is_valid_name(param) else None
        super().__init__(properties={"sym_name": StringAttr(name)}, regions=[body])

    @property
    def param_names(self) -> list[str]:
        """Parameter names (relax-run keys inputs by them)."""
        return [a.name_hint or f"arg{i}" for i, a in enumerate(self.body.blocks.first.args)]

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False).resolve(REF)
        )
        attrs = parser.parse_optional_attr_dict_with_keyword(("sym_name",))
        body = parser.parse_region(args)
        op = FuncOp(name, [a.name.text[1:] for a in args], body)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_list(self.body.blocks.first.args, printer.print_operand)
        printer.print_string(")")
        printer.print_op_attributes(
            self.attributes, reserved_attr_names=("sym_name",), print_keyword=True
        )
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        for block in self.body.blocks:
            for arg in block.args:
                if arg.type != REF:
                    raise VerifyException("vm.func values are !vm.ref registers")
            last = block.last_op
            if last is None or not last.has_trait(IsTerminator):
                raise VerifyException("every block of a vm.func ends with vm.ret, vm.if or vm.goto")
        check_dominance(self.body)


# vm.call, vm.const and vm.imm write their syntax by hand (xDSL's public Parser and Printer
# API): they are most of every VM function, and xDSL's declarative-format machinery (its
# parsing state, constraint resolution and generic builder, per op) made parsing an
# executable's text about a sixth slower.


@irdl_op_definition
class CallOp(XrelaxOperation):
    """``%r = vm.call "name"(%a, %b)``: call a packed function, kernel or VM function."""

    name = "vm.call"

    callee = prop_def(StringAttr)
    args = var_operand_def(REF)
    result = opt_result_def(REF)

    def __init__(self, callee: str, args: Sequence[SSAValue], has_result: bool = True) -> None:
        super().__init__(
            operands=[args],
            properties={"callee": StringAttr(callee)},
            result_types=[[REF] if has_result else []],
        )

    @classmethod
    def parse(cls, parser: Parser) -> CallOp:
        callee = parser.parse_str_literal()
        args = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN,
            lambda: parser.resolve_operand(parser.parse_unresolved_operand(), REF),
        )
        attrs = parser.parse_optional_attr_dict()
        # A result is written `%r = vm.call ... -> !vm.ref`: an op does not see how many
        # results its `%r =` binds.
        has_result = parser.parse_optional_punctuation("->") is not None
        start = parser.pos
        if has_result and parser.parse_type() != REF:
            parser.raise_error("a vm.call result is a !vm.ref", start, parser.pos)
        op = CallOp(callee, args, has_result)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.callee.data)
        printer.print_string("(")
        printer.print_list(self.args, printer.print_operand)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        if self.result is not None:
            printer.print_string(" -> ")
            printer.print_attribute(self.result.type)


@irdl_op_definition
class ConstOp(XrelaxOperation):
    """``%c = vm.const <attr>``: an entry of the constant pool (dense tensor, int, float,
    string, or an array of those for a tuple)."""

    name = "vm.const"

    value = prop_def()
    result = result_def(REF)
    traits = traits_def(Pure())

    def __init__(self, value: Attribute) -> None:
        super().__init__(properties={"value": value}, result_types=[REF])

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        op = ConstOp(parser.parse_attribute())
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        _check_constant(self.value)


def _check_dtype_name(name: str) -> None:
    """A tensor dtype is given by the numpy name of a relax element type."""
    if name not in dtypes.NUMPY_NAMES:
        raise VerifyException(
            f"unknown dtype '{name}' (expected one of {', '.join(dtypes.NUMPY_NAMES)})"
        )


def _check_constant(value: Attribute) -> None:
    if isinstance(value, ArrayAttr):
        for element in value.data:
            _check_constant(element)
    elif isinstance(value, DenseIntOrFPElementsAttr):
        element_type = value.get_element_type()
        if not dtypes.is_dtype(element_type):
            raise VerifyException(f"unsupported element type {element_type} of a vm.const tensor")
        dtypes.check_dense_size(value)
    elif not isinstance(value, IntegerAttr | FloatAttr | StringAttr):
        raise VerifyException(f"unsupported vm.const value {value}")


@irdl_op_definition
class ImmOp(XrelaxOperation):
    """``%i = vm.imm 3``: an immediate integer argument."""

    name = "vm.imm"

    value = prop_def(IntegerAttr[I64])
    result = result_def(REF)
    traits = traits_def(Pure())

    def __init__(self, value: int) -> None:
        super().__init__(properties={"value": int_attr(value)}, result_types=[REF])

    @classmethod
    def parse(cls, parser: Parser) -> ImmOp:
        op = ImmOp(parser.parse_integer(allow_boolean=False))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_int(self.value.value.data)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class FuncRefOp(XrelaxOperation):
    """``%f = vm.func_ref "name"``: a function as a value (e.g. for call_tir_dyn)."""

    name = "vm.func_ref"

    callee = prop_def(StringAttr)
    result = result_def(REF)
    traits = traits_def(Pure())
    custom_directives = (QuotedString,)
    assembly_format = "custom<QuotedString>($callee) attr-dict"

    def __init__(self, callee: str) -> None:
        super().__init__(properties={"callee": StringAttr(callee)}, result_types=[REF])


@irdl_op_definition
class RetOp(XrelaxOperation):
    """``vm.ret %v``: return a register."""

    name = "vm.ret"

    value = operand_def(REF)
    traits = traits_def(IsTerminator())
    assembly_format = "$value attr-dict"

    def __init__(self, value: SSAValue) -> None:
        super().__init__(operands=[value])


@irdl_op_definition
class IfOp(XrelaxOperation):
    """``vm.if %c, ^then, ^else``: continue into ``^then`` (the next block) when ``%c`` is
    true, else jump to ``^else`` (the instruction's false offset)."""

    name = "vm.if"

    cond = operand_def(REF)
    then_block = successor_def()
    else_block = successor_def()
    traits = traits_def(IsTerminator())
    assembly_format = "$cond `,` $then_block `,` $else_block attr-dict"

    def __init__(self, cond: SSAValue, then_block: Block, else_block: Block) -> None:
        super().__init__(operands=[cond], successors=[then_block, else_block])

    def verify_(self) -> None:
        block = self.parent_block()
        if block is None or block.next_block is not self.then_block:
            raise VerifyException("the true successor of vm.if must be the next block")
        if self.then_block.args or self.else_block.args:
            raise VerifyException("vm.if successors take no block arguments")


@irdl_op_definition
class GotoOp(XrelaxOperation):
    """``vm.goto ^bb(%a)``: jump, passing values to the target block's arguments."""

    name = "vm.goto"

    args = var_operand_def(REF)
    target = successor_def()
    traits = traits_def(IsTerminator())
    assembly_format = "$target (`(` $args^ `)`)? attr-dict"

    def __init__(self, target: Block, args: Sequence[SSAValue] = ()) -> None:
        super().__init__(operands=[args], successors=[target])

    def verify_(self) -> None:
        if len(self.args) != len(self.target.args):
            raise VerifyException(
                f"vm.goto passes {len(self.args)} values to a block of {len(self.target.args)}"
            )


BUILTIN_OPS = (
    AllocStorageOp,
    AllocTensorOp,
    AllocTensorDirectOp,
    KillOp,
    AllocShapeHeapOp,
    StoreShapeOp,
    LoadShapeOp,
    MakeShapeOp,
    MakePrimOp,
    ShapeOfOp,
    MatchShapeOp,
    MatchPrimOp,
    CheckTensorOp,
    CheckShapeOp,
    CheckTupleOp,
)
EXECUTABLE_OPS = (FuncOp, CallOp, ConstOp, ImmOp, FuncRefOp, RetOp, IfOp, GotoOp)

VM = Dialect("vm", [*BUILTIN_OPS, *EXECUTABLE_OPS], [RefType])
