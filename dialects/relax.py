"""The relax dialect: types and structural ops (docs/design.md §3).

Operators (``relax.add``, ``relax.matmul``, ...) live in :mod:`xrelax.ops`;
:mod:`xrelax.ops.registry` assembles them with the structural ops defined here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from io import StringIO
from typing import ClassVar

import sympy
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    IntAttr,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.dialects.builtin import (
    TensorType as BuiltinTensorType,
)
from xdsl.dialects.utils.format import parse_func_op_like, print_func_op_like
from xdsl.ir import (
    Attribute,
    Block,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    OptOperandDef,
    VarOperandDef,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    EffectInstance,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    Pure,
    ReturnLike,
    SymbolOpInterface,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from xrelax.dialects import dtypes
from xrelax.dialects.dims import (
    DimsAttr,
    check_extents,
    check_rank,
    parse_dims_text,
    raise_symbolic_error,
    take_angle_body,
)
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.ir.operation import XrelaxOperation
from xrelax.dialects.ir.symbol_index import lookup_symbol, symbol_fact
from xrelax.dialects.ir.syntax import (
    Callee,
    DefinedOperand,
    ResultTypeList,
    SymbolicDims,
    parse_bracket_dims,
    parse_operand_list,
    parse_paren_types,
    parse_result_types,
    parse_type,
    print_dims,
    print_result_types,
    resolve_operands,
    split_properties,
    symbol_ref,
)
from xrelax.dialects.ir.xdsl_workarounds import skip_to
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.obligations import Deduction, Facts
from xrelax.dialects.shapes.symbolic import Dims, Fact, SymbolicError
from xrelax.dialects.tir import PrimFuncOp, StoreOp
from xrelax.dialects.traits import BindsSymbolicVars, DeducesFromOperandShapes

# ----------------------------------------------------------------------------------- types

ShapeSpec = Sequence[int | str | sympy.Expr] | int | None
"""How a shape is given to the type constructors: dims, a rank, or None (unknown rank)."""

UNKNOWN_DTYPE = NoneAttr()


def _shape_attr(shape: ShapeSpec | Attribute) -> Attribute:
    if isinstance(shape, DimsAttr | IntAttr | NoneAttr):
        return shape
    if shape is None:
        return NoneAttr()
    if isinstance(shape, int):
        return IntAttr(shape)
    return DimsAttr.of(shape)


def _parse_shape_text(parser: AttrParser, text: str, start: int) -> Attribute:
    stripped = text.strip()
    if stripped == "*":
        return NoneAttr()
    if stripped.startswith("ndim"):
        _, _, value = stripped.partition("=")
        if not value.strip().isdigit():
            parser.raise_error("expected 'ndim=<integer>'", start, start + len(text))
        return IntAttr(int(value))
    if stripped.startswith("["):
        return DimsAttr(parse_dims_text(parser, text, start))
    parser.raise_error(
        "expected a shape: '[d0, d1, ...]', 'ndim=<k>' or '*'", start, start + max(len(text), 1)
    )


def _print_shape(shape: Attribute) -> str:
    if isinstance(shape, DimsAttr):
        return symbolic.format_dims(shape.data)
    if isinstance(shape, IntAttr):
        return f"ndim={shape.data}"
    return "*"


def _parse_dtype_text(parser: AttrParser, text: str, start: int) -> Attribute:
    name = text.strip()
    if name == "?":
        return UNKNOWN_DTYPE
    dtype = dtypes.BY_NAME.get(name)
    if dtype is None:
        parser.raise_error(
            f"unsupported element type '{name}' (expected one of "
            f"{', '.join(dtypes.BY_NAME)} or '?')",
            start,
            start + len(text),
        )
    return dtype


def _print_dtype(dtype: Attribute) -> str:
    return "?" if dtype == UNKNOWN_DTYPE else dtypes.NAME_OF[dtype]


class _ShapedType:
    """Accessors shared by tensor and shape types (``shape`` is the parameter)."""

    shape: Attribute

    @property
    def dims(self) -> Dims | None:
        """The symbolic dims, or None when only the rank (or nothing) is known."""
        return self.shape.data if isinstance(self.shape, DimsAttr) else None

    @property
    def ndim(self) -> int | None:
        """The rank, or None when unknown."""
        if isinstance(self.shape, DimsAttr):
            return len(self.shape.data)
        if isinstance(self.shape, IntAttr):
            return self.shape.data
        return None


@lru_cache(maxsize=16384)
def _parse_tensor_body(text: str) -> tuple[str, str]:
    shape_text, sep, dtype_text = text.rpartition(",")
    return (shape_text, dtype_text) if sep else (text, "")


@irdl_attr_definition
class TensorType(_ShapedType, ParametrizedAttribute, TypeAttribute):
    """``!relax.tensor<[n, 4], f32>``, ``<ndim=2, f32>``, ``<*, f32>``; ``?``: unknown dtype."""

    name = "relax.tensor"

    shape: Attribute
    """``#sym.dims`` (known shape), ``IntAttr`` (known rank) or ``NoneAttr`` (unknown rank)."""
    dtype: Attribute
    """An element type, or ``NoneAttr`` when unknown."""

    @staticmethod
    def of(shape: ShapeSpec | Attribute, dtype: Attribute | None) -> TensorType:
        """A tensor type from dims / a rank / None and an element type (None: unknown)."""
        return TensorType(_shape_attr(shape), UNKNOWN_DTYPE if dtype is None else dtype)

    @property
    def known_dtype(self) -> Attribute | None:
        """The element type, or None when unknown."""
        return None if self.dtype == UNKNOWN_DTYPE else self.dtype

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        text, start = take_angle_body(parser)
        shape_text, dtype_text = _parse_tensor_body(text)
        if not dtype_text:
            parser.raise_error("expected '<shape>, <dtype>'", start, start + len(text))
        shape = _parse_shape_text(parser, shape_text, start)
        dtype = _parse_dtype_text(parser, dtype_text, start + len(shape_text) + 1)
        return (shape, dtype)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{_print_shape(self.shape)}, {_print_dtype(self.dtype)}>")

    def verify(self) -> None:
        if not isinstance(self.shape, DimsAttr | IntAttr | NoneAttr):
            raise VerifyException(f"invalid tensor shape parameter {self.shape}")
        if isinstance(self.shape, DimsAttr):
            check_extents(self.shape.data)
        elif isinstance(self.shape, IntAttr):
            check_rank(self.shape.data)
        if self.dtype != UNKNOWN_DTYPE and not dtypes.is_dtype(self.dtype):
            raise VerifyException(f"unsupported element type {self.dtype}")


@irdl_attr_definition
class ShapeType(_ShapedType, ParametrizedAttribute, TypeAttribute):
    """A shape value: ``!relax.shape<[n, m * 2]>``, ``<ndim=2>``, ``<*>``."""

    name = "relax.shape"

    shape: Attribute

    @staticmethod
    def of(shape: ShapeSpec | Attribute) -> ShapeType:
        """A shape type from dims / a rank / None."""
        return ShapeType(_shape_attr(shape))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        text, start = take_angle_body(parser)
        return (_parse_shape_text(parser, text, start),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{_print_shape(self.shape)}>")

    def verify(self) -> None:
        if isinstance(self.shape, DimsAttr):
            check_extents(self.shape.data, allow_negative=True)
        elif isinstance(self.shape, IntAttr):
            check_rank(self.shape.data)


_PRIM_DTYPES = (
    dtypes.I64, dtypes.I32, dtypes.I16, dtypes.I8, dtypes.UI64, dtypes.UI32, dtypes.UI16, dtypes.UI8
)  # fmt: skip
"""The element types of a prim value (symbolic integers)."""


@irdl_attr_definition
class PrimType(ParametrizedAttribute, TypeAttribute):
    """A scalar integer value (TVM's ``PrimValue``): ``!relax.prim<i64>``, or
    ``!relax.prim<i64, n * 2>`` when its value is known to equal the expression.

    A parameter ``%i: !relax.prim<i64, i>`` binds ``i`` from the argument, as a whole
    dimension of a tensor parameter does.
    """

    name = "relax.prim"

    dtype: Attribute
    """An integer element type."""
    value: Attribute
    """``#sym.dims`` holding the one expression the value equals, or ``NoneAttr``."""

    @staticmethod
    def of(dtype: Attribute = dtypes.I64, value: int | str | sympy.Expr | None = None) -> PrimType:
        """A prim type of ``dtype``, with the expression its value equals (None: unknown)."""
        return PrimType(dtype, NoneAttr() if value is None else DimsAttr.of([value]))

    @property
    def expr(self) -> sympy.Expr | None:
        """The symbolic value, or None when unknown."""
        return self.value.data[0] if isinstance(self.value, DimsAttr) else None

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        text, start = take_angle_body(parser)
        dtype_text, sep, value_text = text.partition(",")
        dtype = _parse_dtype_text(parser, dtype_text, start)
        if dtype not in _PRIM_DTYPES:
            parser.raise_error(
                f"a prim value has an integer element type (i8 ... i64, ui8 ... ui64), got "
                f"'{dtype_text.strip()}'",
                start,
                start + len(dtype_text),
            )
        if not sep:
            return (dtype, NoneAttr())
        offset = start + len(dtype_text) + 1
        try:
            expr = symbolic.parse_expr(value_text.strip())
        except SymbolicError as err:
            leading = len(value_text) - len(value_text.lstrip())
            raise_symbolic_error(parser, err, offset + leading)
            raise
        return (dtype, DimsAttr((expr,)))

    def print_parameters(self, printer: Printer) -> None:
        value = "" if self.expr is None else f", {symbolic.format_expr(self.expr)}"
        printer.print_string(f"<{_print_dtype(self.dtype)}{value}>")

    def verify(self) -> None:
        if self.dtype not in _PRIM_DTYPES:
            raise VerifyException(f"a prim value has an integer element type, got {self.dtype}")
        if isinstance(self.value, DimsAttr):
            if len(self.value.data) != 1:
                raise VerifyException("a prim type holds one symbolic expression")
        elif not isinstance(self.value, NoneAttr):
            raise VerifyException(f"invalid prim value parameter {self.value}")


@irdl_attr_definition
class ObjectType(ParametrizedAttribute, TypeAttribute):
    """``!relax.object``: an opaque runtime object; every relax type is one."""

    name = "relax.object"


@irdl_attr_definition
class TupleType(ParametrizedAttribute, TypeAttribute):
    """``!relax.tuple<T1, T2>``."""

    name = "relax.tuple"

    elements: ArrayAttr[Attribute]

    @staticmethod
    def of(elements: Iterable[Attribute]) -> TupleType:
        """A tuple type of the given element types."""
        return TupleType(ArrayAttr(tuple(elements)))

    @property
    def types(self) -> tuple[Attribute, ...]:
        """The element types."""
        return self.elements.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        types = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parser.parse_type)
        return (ArrayAttr(types),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(self.elements.data, printer.print_attribute)


RELAX_TYPES = (TensorType, ShapeType, PrimType, ObjectType, TupleType)


def is_relax_type(attr: Attribute) -> bool:
    """Whether ``attr`` is a relax value type."""
    return isinstance(attr, RELAX_TYPES)


def scalar_bool_type() -> TensorType:
    """``!relax.tensor<[], i1>``, the type of an ``if`` condition."""
    return TensorType.of([], dtypes.I1)


# --------------------------------------------------------------------- relations between types


def type_free_vars(type_: Attribute) -> set[str]:
    """The symbolic variables a relax type mentions."""
    if isinstance(type_, TensorType | ShapeType) and isinstance(type_.shape, DimsAttr):
        return type_.shape.free_vars()
    if isinstance(type_, PrimType) and isinstance(type_.value, DimsAttr):
        return type_.value.free_vars()
    if isinstance(type_, TupleType):
        names: set[str] = set()
        for element in type_.types:
            names |= type_free_vars(element)
        return names
    return set()


def unrelated_dims(operand_types: Sequence[Attribute]) -> tuple[int, list[sympy.Expr]] | None:
    """Where broadcasting operands stop a deduction: the first result axis (operands
    right-aligned) at which two operand dims are neither provably equal nor 1, and the
    dims there; None when every axis relates."""
    shapes = [
        list(t.dims) for t in operand_types if isinstance(t, TensorType) and t.dims is not None
    ]
    if len(shapes) < 2:
        return None
    rank = max(len(dims) for dims in shapes)
    for axis in range(rank):
        here = [dims[axis - rank + len(dims)] for dims in shapes if axis - rank + len(dims) >= 0]
        sizes = [d for d in here if not symbolic.prove_equal(d, 1)]
        if any(not symbolic.prove_equal(sizes[0], d) for d in sizes[1:]):
            return axis, here
    return None


def _dims_relation(base: Attribute, derived: Attribute) -> str:
    """'yes' if ``derived`` shape is at least as specific as ``base``, 'refine' if it is
    less specific but compatible, 'no' if they provably disagree."""
    if isinstance(base, NoneAttr):
        return "yes"
    base_rank = len(base.data) if isinstance(base, DimsAttr) else base.data
    if isinstance(derived, NoneAttr):
        return "refine"
    derived_rank = len(derived.data) if isinstance(derived, DimsAttr) else derived.data
    if base_rank != derived_rank:
        return "no"
    if isinstance(base, IntAttr):
        return "yes"
    if isinstance(derived, IntAttr):
        return "refine"
    verdict = "yes"
    for b, d in zip(base.data, derived.data, strict=True):
        if symbolic.prove_equal(b, d):
            continue
        if symbolic.prove_not_equal(b, d):
            return "no"
        verdict = "refine"
    return verdict


def type_relation(base: Attribute, derived: Attribute) -> str:
    """How ``derived`` relates to ``base``.

    ``"yes"``: every value of ``derived`` is a value of ``base`` (``base`` is equal or
    less specific); ``"refine"``: compatible, but ``base`` claims more than ``derived``
    proves; ``"no"``: they provably disagree.
    """
    if base == derived or isinstance(base, ObjectType):
        return "yes"
    if isinstance(derived, ObjectType):
        return "refine"
    if isinstance(base, TensorType) and isinstance(derived, TensorType):
        if base.dtype != UNKNOWN_DTYPE and base.dtype != derived.dtype:
            if derived.dtype != UNKNOWN_DTYPE:
                return "no"
            dtype_verdict = "refine"
        else:
            dtype_verdict = "yes"
        shape_verdict = _dims_relation(base.shape, derived.shape)
        return _combine(dtype_verdict, shape_verdict)
    if isinstance(base, ShapeType) and isinstance(derived, ShapeType):
        return _dims_relation(base.shape, derived.shape)
    if isinstance(base, PrimType) and isinstance(derived, PrimType):
        return _prim_relation(base, derived)
    if isinstance(base, TupleType) and isinstance(derived, TupleType):
        if len(base.types) != len(derived.types):
            return "no"
        verdict = "yes"
        for b, d in zip(base.types, derived.types, strict=True):
            verdict = _combine(verdict, type_relation(b, d))
        return verdict
    return "no"


def _prim_relation(base: PrimType, derived: PrimType) -> str:
    if base.dtype != derived.dtype:
        return "no"
    if base.expr is None:
        return "yes"
    if derived.expr is None:
        return "refine"
    if symbolic.prove_equal(base.expr, derived.expr):
        return "yes"
    return "no" if symbolic.prove_not_equal(base.expr, derived.expr) else "refine"


def _combine(a: str, b: str) -> str:
    if "no" in (a, b):
        return "no"
    return "refine" if "refine" in (a, b) else "yes"


def check_declared_type(declared: Attribute, deduced: Attribute, what: str = "result") -> None:
    """Raise unless ``declared`` is ``deduced`` or less specific than it."""
    verdict = type_relation(declared, deduced)
    if verdict == "yes":
        return
    if verdict == "refine":
        raise VerifyException(
            f"declared {what} type {show_type(declared)} is more specific than the deduced "
            f"type {show_type(deduced)}; use relax.match_shape to assert it"
        )
    raise VerifyException(
        f"declared {what} type {show_type(declared)} does not match the deduced type "
        f"{show_type(deduced)}"
    )


def check_region_results(
    declared: Sequence[Attribute], values: Sequence[SSAValue], gives: str, what: str
) -> None:
    """A region's terminator values against the op's declared result types."""
    if len(values) != len(declared):
        raise VerifyException(
            f"{gives} {len(values)} values but the op declares {len(declared)} results"
        )
    for index, (type_, value) in enumerate(zip(declared, values, strict=True)):
        check_declared_type(type_, value.type, f"{what} #{index}")


def show_type(type_: Attribute) -> str:
    """The textual form of a type, for messages."""
    stream = StringIO()
    Printer(stream=stream).print_attribute(type_)
    return stream.getvalue()


class RelaxError(VerifyException):
    """A type or shape deduction error (the message says what was expected and found)."""


@dataclass(frozen=True)
class DeducesResultType(DeducesFromOperandShapes):
    """The op's single result type can be deduced: ``op.deduced_type()``.

    The parser fills an omitted result type with it, the verifier checks a written one
    against it, and ``relax-normalize`` refines a less specific written one to it.
    """

    def unrelated_dims(self, op: Operation) -> tuple[int, list[sympy.Expr]] | None:
        if not getattr(type(op), "BROADCASTS", False):
            return None  # its operands' dims do not meet axis by axis (a convolution's)
        return unrelated_dims([operand.type for operand in op.operands])


# ------------------------------------------------------------------------- structural ops


PRIMITIVE_ATTR = "primitive"
"""Marks a pure relax function made by ``relax-fuse-ops`` (callable in dataflow regions)."""


class RelaxFunctionCallable(CallableOpInterface):
    """``relax.func`` is callable: its body, parameter and result types."""

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        assert isinstance(op, FuncOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.inputs.data

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.outputs.data


@irdl_op_definition
class FuncOp(XrelaxOperation):
    """``relax.func @f(%x: T, ...) -> R { ... relax.return %y : R }``: a relax function."""

    name = "relax.func"

    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), RelaxFunctionCallable())

    def __init__(
        self,
        name: str,
        inputs: Sequence[Attribute],
        result: Attribute,
        body: Region | None = None,
        visibility: str | None = None,
    ) -> None:
        from xdsl.ir import Block

        body = body if body is not None else Region(Block(arg_types=inputs))
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": FunctionType.from_lists(inputs, [result]),
                "sym_visibility": StringAttr(visibility) if visibility else None,
            },
            regions=[body],
        )

    @property
    def result_type(self) -> Attribute:
        """The declared result type."""
        return self.function_type.outputs.data[0]

    @property
    def is_primitive(self) -> bool:
        """Whether this is a pure function made by fusion (``attributes {primitive}``)."""
        return PRIMITIVE_ATTR in self.attributes

    @property
    def param_names(self) -> list[str]:
        """Parameter names from the SSA name hints (``arg<i>`` when absent)."""
        return [arg.name_hint or f"arg{index}" for index, arg in enumerate(self.body.block.args)]

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        visibility = parser.parse_optional_visibility_keyword()
        name, inputs, outputs, region, extra, _, _ = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type", "sym_visibility")
        )
        if len(outputs) != 1:
            parser.raise_error(f"relax.func @{name} must declare exactly one result type")
        func = FuncOp(name, inputs, outputs[0], region, visibility.data if visibility else None)
        if extra is not None:
            func.attributes |= extra.data
        return func

    def print(self, printer: Printer) -> None:
        if self.sym_visibility:
            printer.print_string(f" {self.sym_visibility.data}")
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            reserved_attr_names=("sym_name", "function_type", "sym_visibility"),
        )

    def verify_(self) -> None:
        if len(self.function_type.outputs.data) != 1:
            raise VerifyException("a relax.func has exactly one result type")
        if self.body.block.arg_types != self.function_type.inputs.data:
            raise VerifyException("entry block argument types differ from the function type")
        for type_ in (*self.function_type.inputs.data, self.result_type):
            if not is_relax_type(type_):
                raise VerifyException(f"{show_type(type_)} is not a relax type")
        verify_function_scoping(self)


@irdl_op_definition
class ReturnOp(XrelaxOperation):
    """``relax.return %v : T``: the function result (equal to or more specific than declared)."""

    name = "relax.return"

    value = operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), ReturnLike(), HasParent(FuncOp), Pure()))
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue) -> None:
        super().__init__(operands=[value])

    def verify_(self) -> None:
        func = self.parent_op()
        assert isinstance(func, FuncOp)
        check_declared_type(func.result_type, self.value.type, "function result")


@irdl_op_definition
class DataflowOp(XrelaxOperation):
    """``%a, %b = relax.dataflow -> (T1, T2) { ... relax.output %p, %q : T1, T2 }``.

    A pure region: its values are dataflow vars (invisible outside), its results are the
    output vars.
    """

    name = "relax.dataflow"

    outputs = var_result_def()
    body = region_def("single_block")
    traits = lazy_traits_def(lambda: (HasParent(FuncOp, IfOp),))
    assembly_format = "(`->` custom<ResultTypeList>(type($outputs))^)? attr-dict-with-keyword $body"
    custom_directives = (ResultTypeList,)

    def __init__(self, result_types: Sequence[Attribute], body: Region) -> None:
        super().__init__(result_types=[result_types], regions=[body])

    def verify_(self) -> None:
        terminator = self.body.block.last_op
        if not isinstance(terminator, OutputOp):
            raise VerifyException("relax.dataflow must end with relax.output")
        check_region_results(
            self.outputs.types, terminator.values, "relax.output gives", "dataflow result"
        )


@irdl_op_definition
class OutputOp(XrelaxOperation):
    """``relax.output %p, %q : T1, T2``: the output vars of a dataflow region."""

    name = "relax.output"

    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(DataflowOp), Pure()))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, values: Sequence[SSAValue]) -> None:
        super().__init__(operands=[values])


class _PatternDefinesVars(MemoryEffect):
    """match_shape binds symbolic variables and checks shapes: never trivially dead."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.WRITE)}


@irdl_op_definition
class MatchShapeOp(XrelaxOperation):
    """``%y = relax.match_shape %x [n, m] : (T) -> T2``.

    Matches the shape of a tensor (or a shape value) against a pattern: the first
    occurrence of a variable binds it, later occurrences are run-time checks. The
    result is the value with the pattern as its shape. A prim value is matched against
    a pattern of one expression (``[k]``: binds ``k`` to a value computed at run time).
    """

    name = "relax.match_shape"

    value = operand_def()
    pattern = prop_def(DimsAttr)
    result = result_def()
    traits = traits_def(_PatternDefinesVars(), DeducesResultType(), BindsSymbolicVars())

    def __init__(self, value: SSAValue, pattern: Iterable[int | str | sympy.Expr]) -> None:
        dims = DimsAttr.of(pattern)
        super().__init__(
            operands=[value],
            properties={"pattern": dims},
            result_types=[self.infer_type(value.type, dims.data)],
        )

    @staticmethod
    def infer_type(value_type: Attribute, pattern: Dims) -> Attribute:
        """The type of the matched value."""
        if isinstance(value_type, TensorType):
            return TensorType(DimsAttr(pattern), value_type.dtype)
        if isinstance(value_type, ShapeType):
            return ShapeType(DimsAttr(pattern))
        if isinstance(value_type, PrimType):
            if len(pattern) != 1:
                raise RelaxError(
                    f"relax.match_shape of a prim value takes a pattern of one expression, "
                    f"got {symbolic.format_dims(pattern)}"
                )
            return PrimType(value_type.dtype, DimsAttr(pattern))
        raise RelaxError(
            "relax.match_shape expects a tensor, a shape or a prim value, got "
            f"{show_type(value_type)}"
        )

    @classmethod
    def parse(cls, parser: Parser) -> MatchShapeOp:
        operand = parser.parse_unresolved_operand()
        pattern = parse_bracket_dims(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        (value,) = resolve_operands(parser, [operand], parse_paren_types(parser), pos)
        result = _parse_optional_result(parser)
        if result is None:
            try:
                result = cls.infer_type(value.type, pattern)
            except VerifyException as err:
                parser.raise_error(str(err), pos, parser.pos)
        op = cls.create(
            operands=[value],
            properties={"pattern": DimsAttr(pattern)},
            result_types=[result],
            attributes=attrs,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(" ")
        print_dims(printer, self.pattern.data)
        printer.print_op_attributes(self.attributes)
        _print_functional_type(printer, [self.value], [self.result])

    def verify_(self) -> None:
        value_type = self.value.type
        ndim = value_type.ndim if isinstance(value_type, TensorType | ShapeType) else None
        if ndim is not None and ndim != len(self.pattern.data):
            raise VerifyException(
                f"pattern {symbolic.format_dims(self.pattern.data)} has rank "
                f"{len(self.pattern.data)} but the value has rank {ndim}"
            )
        check_declared_type(self.result.type, self.deduced_type())

    def deduced_type(self) -> Attribute:
        """The value's type with the pattern as its shape."""
        return self.infer_type(self.value.type, self.pattern.data)


@irdl_op_definition
class ShapeOp(XrelaxOperation):
    """``%s = relax.shape [n * 4, 2] : !relax.shape<[n * 4, 2]>``: a shape value."""

    name = "relax.shape"

    dims = prop_def(DimsAttr)
    result = result_def(ShapeType)
    traits = traits_def(Pure(), DeducesResultType())

    def __init__(self, dims: Iterable[int | str | sympy.Expr]) -> None:
        attr = DimsAttr.of(dims)
        super().__init__(properties={"dims": attr}, result_types=[ShapeType(attr)])

    @classmethod
    def parse(cls, parser: Parser) -> ShapeOp:
        dims = parse_bracket_dims(parser)
        attrs = parser.parse_optional_attr_dict()
        result: Attribute = ShapeType(DimsAttr(dims))
        if parser.parse_optional_punctuation(":") is not None:
            result = parse_type(parser)
        return cls.create(
            properties={"dims": DimsAttr(dims)}, result_types=[result], attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_dims(printer, self.dims.data)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        check_declared_type(self.result.type, self.deduced_type())

    def deduced_type(self) -> Attribute:
        """``!relax.shape`` of the dims."""
        return ShapeType(self.dims)


@irdl_op_definition
class PrimValueOp(XrelaxOperation):
    """``%k = relax.prim_value n * 2 : !relax.prim<i64, n * 2>``: a symbolic integer as a
    value (TVM's ``R.prim_value``); the expression uses defined variables only."""

    name = "relax.prim_value"

    value = prop_def(DimsAttr)
    result = result_def(PrimType)
    traits = traits_def(Pure(), DeducesResultType())

    def __init__(self, value: int | str | sympy.Expr, dtype: Attribute = dtypes.I64) -> None:
        attr = DimsAttr.of([value])
        super().__init__(properties={"value": attr}, result_types=[PrimType(dtype, attr)])

    @property
    def expr(self) -> sympy.Expr:
        """The symbolic expression of the value."""
        return self.value.data[0]

    @classmethod
    def parse(cls, parser: Parser) -> PrimValueOp:
        start = parser.pos
        content = parser.lexer.input.content
        end = start
        while end < len(content) and content[end] not in ":{\n":
            end += 1
        text = content[start:end]
        if not text.strip():
            parser.raise_error("expected a symbolic integer expression", start, start + 1)
        try:
            expr = symbolic.parse_expr(text.strip())
        except SymbolicError as err:
            raise_symbolic_error(parser, err, start + len(text) - len(text.lstrip()))
            raise
        skip_to(parser, end)
        value = DimsAttr((expr,))
        attrs = parser.parse_optional_attr_dict()
        result: Attribute = PrimType(dtypes.I64, value)
        if parser.parse_optional_punctuation(":") is not None:
            result = parse_type(parser)
        return cls.create(properties={"value": value}, result_types=[result], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {symbolic.format_expr(self.expr)}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if len(self.value.data) != 1:
            raise VerifyException("relax.prim_value holds one symbolic expression")
        check_declared_type(self.result.type, self.deduced_type())

    def deduced_type(self) -> Attribute:
        """``!relax.prim`` of the expression (in the written integer type)."""
        written = self.result.type
        dtype = written.dtype if isinstance(written, PrimType) else dtypes.I64
        return PrimType(dtype, self.value)


def _parse_optional_result(parser: Parser) -> Attribute | None:
    if parser.parse_optional_punctuation("->") is None:
        return None
    return parse_type(parser)


def _print_functional_type(
    printer: Printer, operands: Sequence[SSAValue], results: Sequence[SSAValue]
) -> None:
    printer.print_string(" : (")
    printer.print_list([o.type for o in operands], printer.print_attribute)
    printer.print_string(")")
    if results:
        printer.print_string(" -> ")
        print_result_types(printer, [r.type for r in results])


class DeducedResultOp(XrelaxOperation):
    """An op written ``relax.NAME %a, %b {attrs} : (types) -> result`` whose result type
    can be deduced from its operand types and properties (the ``-> result`` part may be
    left out). Subclasses implement :meth:`deduce`.
    """

    traits = traits_def(DeducesResultType())

    BROADCASTS: ClassVar[bool] = False
    """The result shape is the numpy broadcast of the operands' shapes (an element-wise
    operator): a deduction that lost dims names the operand dims it could not relate."""

    @classmethod
    def deduce(
        cls,
        operand_types: Sequence[Attribute],
        properties: dict[str, Attribute],
        facts: Facts,
    ) -> Attribute:
        """The result type; raises :class:`RelaxError` on a provable error and adds
        what it relies on but cannot prove to ``facts`` (``require``)."""
        raise NotImplementedError

    @classmethod
    def deduction(
        cls, operand_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> Deduction:
        """:meth:`deduce`'s result type and facts, memoised on the inputs."""
        return _deduction_memo(cls, tuple(operand_types), tuple(sorted(properties.items())))

    def deduced_type(self) -> Attribute:
        """The deduced result type of this op."""
        return self.deduction(self.operand_types, self.properties).type

    def obligations(self) -> tuple[Fact, ...]:
        """The facts the deduction relies on but cannot prove: each must be checked at
        run time before a kernel computes this op (docs/shape-safety.md)."""
        return self.deduction(self.operand_types, self.properties).facts

    @classmethod
    def build_deduced(
        cls, operands: Sequence[SSAValue], **properties: Attribute | None
    ) -> DeducedResultOp:
        """Create the op with its deduced result type."""
        props = {k: v for k, v in properties.items() if v is not None}
        result = cls.deduction([o.type for o in operands], props).type
        return cls.create(operands=list(operands), properties=props, result_types=[result])

    @property
    def operand_types(self) -> list[Attribute]:
        return [o.type for o in self.operands]

    @classmethod
    def parse(cls, parser: Parser) -> DeducedResultOp:
        start = parser.pos
        operands = parse_operand_list(parser)
        attributes = parser.parse_optional_attr_dict()
        props, attrs = split_properties(cls, attributes)
        parser.parse_punctuation(":")
        pos = parser.pos
        values = resolve_operands(parser, operands, parse_paren_types(parser), pos)
        result = _parse_optional_result(parser)
        if result is None:
            expected = _operand_count(cls)
            if not expected[0] <= len(values) <= expected[1]:
                counts = (
                    f"{expected[0]}" if expected[0] == expected[1] else f"at least {expected[0]}"
                )
                parser.raise_error(
                    f"'{cls.name}' op expected {counts} operands, got {len(values)}", start, pos
                )
            try:
                result = cls.deduction([v.type for v in values], props).type
            except (VerifyException, SymbolicError) as err:
                parser.raise_error(f"'{cls.name}' op {err}", start, pos)
        return cls.create(
            operands=values, properties=props, attributes=attrs, result_types=[result]
        )

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes({**self.properties, **self.attributes})
        _print_functional_type(printer, self.operands, self.results)

    def verify_(self) -> None:
        try:
            deduced = self.deduced_type()
        except SymbolicError as err:
            raise VerifyException(str(err)) from err
        check_declared_type(self.results[0].type, deduced)


def _operand_count(op_type: type[IRDLOperation]) -> tuple[int, float]:
    """The (minimum, maximum) number of operands ``op_type`` takes."""
    defs = [d for _, d in op_type.get_irdl_definition().operands]
    fixed = sum(1 for d in defs if not isinstance(d, VarOperandDef | OptOperandDef))
    return fixed, (fixed if len(defs) == fixed else float("inf"))


@lru_cache(maxsize=65536)
def _deduction_memo(
    cls: type[DeducedResultOp],
    operand_types: tuple[Attribute, ...],
    properties: tuple[tuple[str, Attribute], ...],
) -> Deduction:
    facts = Facts()
    result = cls.deduce(list(operand_types), dict(properties), facts)
    return Deduction(result, facts.as_tuple())


@irdl_op_definition
class ShapeOfOp(DeducedResultOp):
    """``%s = relax.shape_of %x : (T) -> !relax.shape<[n, 4]>``: the shape of a tensor."""

    name = "relax.shape_of"

    value = operand_def(TensorType)
    result = result_def(ShapeType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: dict[str, Attribute], facts: Facts
    ) -> Attribute:
        (value,) = operand_types
        if not isinstance(value, TensorType):
            raise RelaxError(f"expected a tensor, got {show_type(value)}")
        return ShapeType(value.shape)


@irdl_op_definition
class TupleOp(DeducedResultOp):
    """``%t = relax.tuple %a, %b : (T1, T2) -> !relax.tuple<T1, T2>``."""

    name = "relax.tuple"

    elements = var_operand_def()
    result = result_def(TupleType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: dict[str, Attribute], facts: Facts
    ) -> Attribute:
        return TupleType.of(operand_types)


@irdl_op_definition
class GetItemOp(XrelaxOperation):
    """``%e = relax.get_item %t[1] : (!relax.tuple<T1, T2>) -> T2``."""

    name = "relax.get_item"

    tuple = operand_def(TupleType)
    index = prop_def(IntAttr)
    result = result_def()
    traits = traits_def(Pure(), DeducesResultType())

    def __init__(self, value: SSAValue, index: int) -> None:
        super().__init__(
            operands=[value],
            properties={"index": IntAttr(index)},
            result_types=[self.infer_type(value.type, index)],
        )

    @staticmethod
    def infer_type(tuple_type: Attribute, index: int) -> Attribute:
        """The element type."""
        if not isinstance(tuple_type, TupleType):
            raise RelaxError(f"expected a tuple, got {show_type(tuple_type)}")
        if not 0 <= index < len(tuple_type.types):
            raise RelaxError(
                f"index {index} is out of range for a tuple of {len(tuple_type.types)}"
            )
        return tuple_type.types[index]

    @classmethod
    def parse(cls, parser: Parser) -> GetItemOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        index = parser.parse_integer(allow_negative=False, allow_boolean=False)
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        (value,) = resolve_operands(parser, [operand], parse_paren_types(parser), pos)
        result = _parse_optional_result(parser)
        if result is None:
            try:
                result = cls.infer_type(value.type, index)
            except VerifyException as err:
                parser.raise_error(str(err), pos, parser.pos)
        return cls.create(
            operands=[value],
            properties={"index": IntAttr(index)},
            result_types=[result],
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tuple)
        printer.print_string(f"[{self.index.data}]")
        printer.print_op_attributes(self.attributes)
        _print_functional_type(printer, [self.tuple], [self.result])

    def verify_(self) -> None:
        check_declared_type(self.result.type, self.deduced_type())

    def deduced_type(self) -> Attribute:
        """The element type."""
        return self.infer_type(self.tuple.type, self.index.data)


@irdl_op_definition
class ConstOp(XrelaxOperation):
    """``%c = relax.const dense<[1.0, 2.0]> : !relax.tensor<[2], f32>``."""

    name = "relax.const"

    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, value: DenseIntOrFPElementsAttr, result_type: TensorType) -> None:
        super().__init__(properties={"value": value}, result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        parser.parse_keyword("dense")
        literal_pos = parser.pos
        take_angle_body(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_pos = parser.pos
        result = parse_type(parser)
        after = parser.pos
        if not isinstance(result, TensorType) or result.dims is None:
            parser.raise_error(
                "relax.const needs a tensor type with a static shape", type_pos, after
            )
        if result.known_dtype is None or any(not d.is_Integer for d in result.dims):
            parser.raise_error(
                "relax.const needs a static shape and a known dtype", type_pos, after
            )
        builtin_type = BuiltinTensorType(result.dtype, [int(d) for d in result.dims])
        skip_to(parser, literal_pos)
        # parse_with_type checks the type with xDSL's generic isa: 4 ms per constant
        value = parser.parse_dense_int_or_fp_elements_attr(builtin_type)
        skip_to(parser, after)
        return cls.create(properties={"value": value}, result_types=[result], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.value.print_without_type(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        type_ = self.result.type
        assert isinstance(type_, TensorType)
        value_type = self.value.get_type()
        dims = type_.dims
        if dims is None or tuple(int(d) if d.is_Integer else -1 for d in dims) != tuple(
            value_type.get_shape()
        ):
            raise VerifyException(
                f"constant of shape {list(value_type.get_shape())} does not match "
                f"{show_type(type_)}"
            )
        if type_.dtype != value_type.get_element_type():
            raise VerifyException(f"constant element type differs from {show_type(type_)}")
        dtypes.check_dense_size(self.value)


def _written_buffers(kernel: Operation) -> frozenset[int]:
    """The indices of the buffer parameters a prim_func stores into."""
    assert isinstance(kernel, PrimFuncOp)
    params = {arg: k for k, arg in enumerate(kernel.body.block.args)}
    return frozenset(
        params[op.buffer] for op in kernel.walk() if isinstance(op, StoreOp) and op.buffer in params
    )


def _check_callee_is(
    op: Operation, callee: SymbolRefAttr, kind: str, op_types: tuple[type, ...]
) -> Operation:
    found = lookup_symbol(op, callee)
    if found is None:
        raise VerifyException(f"'@{callee.string_value()}' does not reference a {kind}")
    if not isinstance(found, op_types):
        raise VerifyException(f"'@{callee.string_value()}' is a {found.name}, expected a {kind}")
    return found


class CallTIRSymbolUser(SymbolUserOpInterface):
    """``call_tir`` must name a ``tir.prim_func`` whose signature fits the call."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallTIROp)
        callee = _check_callee_is(op, op.callee, "tir.prim_func", (PrimFuncOp,))
        assert isinstance(callee, PrimFuncOp)
        op.check_against(callee)


@irdl_op_definition
class CallTIROp(XrelaxOperation):
    """``%y = relax.call_tir @kernel(%a, %b) sym [m] : (T1, T2) -> T``.

    A pure call of a destination-passing tir function: the output buffers (one per
    result tensor, tuple results give several) are allocated by the caller from the
    declared result type; ``sym [...]`` passes extra symbolic integers (call_tir_dyn).
    """

    name = "relax.call_tir"

    callee = prop_def(SymbolRefAttr)
    args = var_operand_def()
    sym_args = opt_prop_def(DimsAttr)
    result = result_def()
    traits = traits_def(Pure(), CallTIRSymbolUser())
    assembly_format = (
        "custom<Callee>($callee) `(` $args `)` (`sym` custom<SymbolicDims>($sym_args)^)? "
        "attr-dict `:` `(` type($args) `)` `->` type($result)"
    )
    custom_directives = (Callee, SymbolicDims)

    def __init__(
        self,
        callee: str,
        args: Sequence[SSAValue],
        result_type: Attribute,
        sym_args: Iterable[int | str | sympy.Expr] | None = None,
    ) -> None:
        super().__init__(
            operands=[args],
            properties={
                "callee": symbol_ref(callee),
                "sym_args": DimsAttr.of(sym_args) if sym_args else None,
            },
            result_types=[result_type],
        )

    @property
    def output_types(self) -> tuple[TensorType, ...]:
        """The tensors the caller allocates, in order."""
        result = self.result.type
        if isinstance(result, TupleType):
            return tuple(result.types)  # type: ignore[return-value]
        return (result,)  # type: ignore[return-value]

    def verify_(self) -> None:
        for index, type_ in enumerate(self.output_types):
            if not isinstance(type_, TensorType) or type_.dims is None or type_.known_dtype is None:
                raise VerifyException(
                    f"result #{index} of call_tir must be a tensor with a known shape and dtype "
                    f"(the caller allocates it), got {show_type(type_)}"
                )
        for index, arg in enumerate(self.args):
            if not isinstance(arg.type, TensorType):
                raise VerifyException(f"argument #{index} of call_tir must be a tensor")

    def check_against(self, callee: Operation) -> None:
        """Check argument counts and dtypes against the prim_func's buffer parameters,
        and that the kernel stores into none of the inputs (call_tir is pure)."""
        assert isinstance(callee, PrimFuncOp)
        buffers = callee.buffer_types
        expected = len(self.args) + len(self.output_types)
        n_sym = len(self.sym_args.data) if self.sym_args is not None else 0
        if len(buffers) != expected or len(callee.sym_params.data) != n_sym:
            raise VerifyException(
                f"@{callee.sym_name.data} takes {len(buffers)} buffers and "
                f"{len(callee.sym_params.data)} symbolic integers, but the call passes "
                f"{len(self.args)} inputs + {len(self.output_types)} outputs and {n_sym} "
                f"symbolic integers"
            )
        actual = [a.type for a in self.args] + list(self.output_types)
        for index, (buffer, tensor) in enumerate(zip(buffers, actual, strict=True)):
            if not isinstance(tensor, TensorType):
                continue
            if tensor.known_dtype is not None and tensor.dtype != buffer.dtype:
                raise VerifyException(
                    f"buffer #{index} of @{callee.sym_name.data} has element type "
                    f"{_print_dtype(buffer.dtype)}, but the call passes {show_type(tensor)}"
                )
            if tensor.ndim is not None and tensor.ndim != len(buffer.dims):
                raise VerifyException(
                    f"buffer #{index} of @{callee.sym_name.data} has rank {len(buffer.dims)}, "
                    f"but the call passes {show_type(tensor)}"
                )
        written = symbol_fact(callee, "written buffers", _written_buffers)
        inputs = [k for k in sorted(written) if k < len(self.args)]
        if inputs:
            arg = callee.body.block.args[inputs[0]]
            label = f" %{arg.name_hint}" if arg.name_hint else ""
            raise VerifyException(
                f"@{callee.sym_name.data} writes buffer #{inputs[0]}{label}, an input of this "
                "call: a call_tir kernel writes only its outputs (the inputs are the caller's "
                "values, which other uses still read)"
            )


class _CallPackedEffects(MemoryEffect):
    """A call_packed has unknown effects unless marked ``pure``."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance] | None:
        assert isinstance(op, CallPackedOp)
        return set() if op.pure is not None else None


@irdl_op_definition
class CallPackedOp(XrelaxOperation):
    """``%r = relax.call_packed "name"(%a) {pure} : (T1) -> T2``: a call of a registered
    packed function; effectful (not allowed in a dataflow region) unless ``pure``."""

    name = "relax.call_packed"

    callee = prop_def(StringAttr)
    args = var_operand_def()
    pure = opt_prop_def(UnitAttr)
    op_attrs = opt_prop_def(DictionaryAttr)
    """Attributes passed to the function as a trailing constant (the safety net's operators)."""
    res = var_result_def()
    traits = traits_def(_CallPackedEffects())

    def __init__(
        self,
        callee: str,
        args: Sequence[SSAValue],
        result_type: Attribute | None,
        pure: bool = False,
        op_attrs: DictionaryAttr | None = None,
    ) -> None:
        super().__init__(
            operands=[args],
            properties={
                "callee": StringAttr(callee),
                "pure": UnitAttr() if pure else None,
                "op_attrs": op_attrs,
            },
            result_types=[[result_type] if result_type is not None else []],
        )

    @classmethod
    def parse(cls, parser: Parser) -> CallPackedOp:
        callee = parser.parse_str_literal()
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        props, attrs = split_properties(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        pos = parser.pos
        values = resolve_operands(parser, operands, parse_paren_types(parser), pos)
        parser.parse_punctuation("->")
        results = parse_result_types(parser)
        if len(results) > 1:
            parser.raise_error("relax.call_packed returns at most one value (use a tuple)", pos)
        return cls.create(
            operands=values,
            properties={"callee": StringAttr(callee), **props},
            result_types=results,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.callee.data)
        printer.print_string("(")
        printer.print_list(self.args, printer.print_operand)
        printer.print_string(")")
        extra = {k: v for k, v in self.properties.items() if k != "callee"}
        printer.print_op_attributes({**extra, **self.attributes})
        _print_functional_type(printer, self.args, self.res)
        if not self.res:
            printer.print_string(" -> ()")

    def verify_(self) -> None:
        if self.pure is None and _inside_dataflow(self):
            raise VerifyException(
                f'impure relax.call_packed "{self.callee.data}" is not allowed in a '
                "relax.dataflow region (mark it {pure} or move it after the region)"
            )


class CallSymbolUser(SymbolUserOpInterface):
    """``relax.call`` must name a ``relax.func`` and match its parameter count."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallOp)
        callee = _check_callee_is(op, op.callee, "relax.func", (FuncOp,))
        assert isinstance(callee, FuncOp)
        params = callee.function_type.inputs.data
        if len(params) != len(op.args):
            raise VerifyException(
                f"@{callee.sym_name.data} takes {len(params)} arguments, the call passes "
                f"{len(op.args)}"
            )
        for index, (param, arg) in enumerate(zip(params, op.args, strict=True)):
            if type_relation(_erase_dims(param), arg.type) == "no":
                raise VerifyException(
                    f"argument #{index} has type {show_type(arg.type)}, incompatible with "
                    f"parameter type {show_type(param)} of @{callee.sym_name.data}"
                )
        returned = op.callee_result_type(callee)
        if type_relation(op.result.type, returned) == "no":
            raise VerifyException(
                f"declared result type {show_type(op.result.type)} is incompatible with the "
                f"result type {show_type(callee.result_type)} of @{callee.sym_name.data}"
                + ("" if returned == callee.result_type else f" ({show_type(returned)} here)")
            )


def _bind_callee_vars(param: Attribute, arg: Attribute, mapping: dict[sympy.Expr, sympy.Expr]):
    """Map the variables a callee parameter type defines to the argument's dims."""
    if isinstance(param, TensorType | ShapeType) and isinstance(arg, TensorType | ShapeType):
        if param.dims is not None and arg.dims is not None and len(param.dims) == len(arg.dims):
            for dim, given in zip(param.dims, arg.dims, strict=True):
                if dim.is_Symbol and dim not in mapping:
                    mapping[dim] = given
    elif isinstance(param, TupleType) and isinstance(arg, TupleType):
        for p, a in zip(param.types, arg.types, strict=False):
            _bind_callee_vars(p, a, mapping)


def _in_caller_vars(type_: Attribute, mapping: dict[sympy.Expr, sympy.Expr]) -> Attribute:
    """A callee type in the caller's variables; dims over unmapped variables are erased."""
    if isinstance(type_, TensorType | ShapeType) and type_.dims is not None:
        if not all(s in mapping for d in type_.dims for s in d.free_symbols):
            return _erase_dims(type_)
        dims = tuple(symbolic.simplify(d.xreplace(mapping)) for d in type_.dims)
        return (
            TensorType.of(dims, type_.dtype)
            if isinstance(type_, TensorType)
            else ShapeType.of(dims)
        )
    if isinstance(type_, TupleType):
        return TupleType.of(_in_caller_vars(t, mapping) for t in type_.types)
    return type_


def _erase_dims(type_: Attribute) -> Attribute:
    """The type with symbolic dims reduced to the rank (callee variables are not ours)."""
    if isinstance(type_, TensorType) and isinstance(type_.shape, DimsAttr):
        return TensorType(IntAttr(len(type_.shape.data)), type_.dtype)
    if isinstance(type_, ShapeType) and isinstance(type_.shape, DimsAttr):
        return ShapeType(IntAttr(len(type_.shape.data)))
    if isinstance(type_, PrimType):
        return PrimType.of(type_.dtype)
    if isinstance(type_, TupleType):
        return TupleType.of(_erase_dims(t) for t in type_.types)
    return type_


@irdl_op_definition
class CallOp(XrelaxOperation):
    """``%r = relax.call @g(%a, %b) : (T1, T2) -> T3``: a call of a relax function."""

    name = "relax.call"

    callee = prop_def(SymbolRefAttr)
    args = var_operand_def()
    result = result_def()
    traits = traits_def(CallSymbolUser())
    assembly_format = (
        "custom<Callee>($callee) `(` $args `)` attr-dict `:` `(` type($args) `)` `->` type($result)"
    )
    custom_directives = (Callee,)

    def __init__(self, callee: str, args: Sequence[SSAValue], result_type: Attribute) -> None:
        super().__init__(
            operands=[args],
            properties={"callee": symbol_ref(callee)},
            result_types=[result_type],
        )

    def callee_result_type(self, callee: FuncOp | None = None) -> Attribute:
        """The callee's declared result type in this function's variables (what the
        arguments' types say of the callee's variables), dims it cannot say erased."""
        if callee is None:
            callee = lookup_symbol(self, self.callee)
        assert isinstance(callee, FuncOp)
        mapping: dict[sympy.Expr, sympy.Expr] = {}
        for param, arg in zip(callee.function_type.inputs.data, self.args, strict=False):
            _bind_callee_vars(param, arg.type, mapping)
        return _in_caller_vars(callee.result_type, mapping)

    def result_needs_check(self) -> bool:
        """Whether the declared result type claims more than the callee's proves (then it
        is checked at run time)."""
        return type_relation(self.result.type, self.callee_result_type()) != "yes"

    def verify_(self) -> None:
        if _inside_dataflow(self):
            callee = lookup_symbol(self, self.callee)
            if not (isinstance(callee, FuncOp) and callee.is_primitive):
                raise VerifyException(
                    "relax.call is not allowed in a relax.dataflow region (the callee may have "
                    "effects) unless the callee is a pure 'primitive' function; call it "
                    "outside the region"
                )


@irdl_op_definition
class IfOp(XrelaxOperation):
    """``%r = relax.if %c -> T { ... relax.yield %u : T } else { ... relax.yield %v : T }``.

    Control flow on a scalar boolean tensor; outside dataflow regions only.
    """

    name = "relax.if"

    cond = operand_def(TensorType)
    res = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    assembly_format = (
        "custom<DefinedOperand>($cond, type($cond)) (`->` custom<ResultTypeList>(type($res))^)? "
        "$then_region `else` $else_region attr-dict-with-keyword"
    )
    custom_directives = (DefinedOperand, ResultTypeList)

    def __init__(
        self,
        cond: SSAValue,
        result_types: Sequence[Attribute],
        then_region: Region,
        else_region: Region,
    ) -> None:
        super().__init__(
            operands=[cond], result_types=[result_types], regions=[then_region, else_region]
        )

    def verify_(self) -> None:
        if _inside_dataflow(self):
            raise VerifyException("relax.if is not allowed in a relax.dataflow region")
        check_declared_type(scalar_bool_type(), self.cond.type, "condition")
        for region_name, region in (("then", self.then_region), ("else", self.else_region)):
            terminator = region.block.last_op
            if not isinstance(terminator, YieldOp):
                raise VerifyException(f"the {region_name} region must end with relax.yield")
            check_region_results(
                self.res.types,
                terminator.values,
                f"the {region_name} region yields",
                f"{region_name}-branch result",
            )


@irdl_op_definition
class YieldOp(XrelaxOperation):
    """``relax.yield %v : T``: the result of a ``relax.if`` branch."""

    name = "relax.yield"

    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(IfOp), Pure()))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, values: Sequence[SSAValue]) -> None:
        super().__init__(operands=[values])


def _inside_dataflow(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        if isinstance(parent, DataflowOp):
            return True
        parent = parent.parent_op()
    return False


def is_pure(op: Operation) -> bool:
    """Whether ``op`` has no side effects (operators, call_tir, pure call_packed, ...)."""
    from xdsl.traits import is_side_effect_free

    return is_side_effect_free(op)


STRUCTURAL_OPS: tuple[type[Operation], ...] = (
    FuncOp,
    ReturnOp,
    DataflowOp,
    OutputOp,
    MatchShapeOp,
    ShapeOp,
    ShapeOfOp,
    PrimValueOp,
    CallTIROp,
    CallPackedOp,
    CallOp,
    IfOp,
    YieldOp,
    TupleOp,
    GetItemOp,
    ConstOp,
)


# ---------------------------------------------------------------------------- scoping

# Scoping rules of a relax function, checked in one walk of its body (docs/design.md §2-3).
#
# * SSA values: every operand is defined before its use in an enclosing block, and a
#   value defined inside a ``relax.dataflow`` region (a dataflow var) is not used
#   outside it. (xDSL checks neither dominance nor region visibility.)
# * Symbolic variables: a variable is defined by its first occurrence as a whole
#   dimension of a parameter type or of a ``relax.match_shape`` pattern, or as the
#   value of a prim parameter (``%i: !relax.prim<i64, i>``); every other occurrence
#   (result types, shape values, prim values, ``call_tir`` symbolic arguments,
#   expressions in patterns) must come after a definition. Variables a dataflow
#   region binds stay visible after it; variables bound inside an ``if`` branch do
#   not leave it. The signature may only mention variables its parameters define.


def defined_by_pattern(dims: Iterable) -> set[str]:
    """Variables a dims pattern binds: those appearing as a whole dimension."""
    return {d.name for d in dims if d.is_Symbol}


def type_binds(type_: Attribute) -> set[str]:
    """Variables a value of ``type_`` binds: whole dimensions, a prim value's variable."""
    if isinstance(type_, TensorType | ShapeType) and isinstance(type_.shape, DimsAttr):
        return defined_by_pattern(type_.shape.data)
    if isinstance(type_, PrimType) and type_.expr is not None:
        return defined_by_pattern([type_.expr])
    if isinstance(type_, TupleType):
        names: set[str] = set()
        for element in type_.types:
            names |= type_binds(element)
        return names
    return set()


def _undefined(names: set[str], defined: set[str]) -> str | None:
    missing = sorted(names - defined)
    return ", ".join(missing) if missing else None


def verify_function_scoping(func: Operation) -> None:
    """Check SSA visibility and symbolic-variable scoping of a ``relax.func``."""
    assert isinstance(func, FuncOp)
    params = func.function_type.inputs.data
    defined: set[str] = set()
    for type_ in params:
        defined |= type_binds(type_)
    for index, type_ in enumerate(params):
        if missing := _undefined(type_free_vars(type_), defined):
            raise IRError(
                func,
                f"parameter #{index} type {show_type(type_)} uses symbolic variable(s) "
                f"{missing} that no parameter binds as a whole dimension",
            )
    if missing := _undefined(type_free_vars(func.result_type), defined):
        general = show_type(erase_vars_outside(func.result_type, defined))
        raise IRError(
            func,
            f"result type {show_type(func.result_type)} uses symbolic variable(s) {missing} "
            f"that the parameters do not define; declare it as {general} and return "
            "the more specific value",
        )
    _walk_block(func.body.block, set(func.body.block.args), defined)


def erase_vars_outside(type_: Attribute, defined: set[str]) -> Attribute:
    """``type_`` with each shape that uses a variable outside ``defined`` reduced to
    its rank (a prim to its dtype): the declaration the parameters can justify."""
    if isinstance(type_, TupleType):
        return TupleType.of(erase_vars_outside(t, defined) for t in type_.types)
    if type_free_vars(type_) <= defined:
        return type_
    if isinstance(type_, TensorType):
        return TensorType.of(type_.ndim, type_.known_dtype)
    if isinstance(type_, ShapeType):
        return ShapeType.of(type_.ndim)
    if isinstance(type_, PrimType):
        return PrimType.of(type_.dtype)
    return type_


def _walk_block(block: Block, visible: set[SSAValue], defined: set[str]) -> set[str]:
    """Check ``block``; returns the symbolic variables defined when it ends."""
    for op in block.ops:
        for index, operand in enumerate(op.operands):
            if operand not in visible:
                raise IRError(op, _invisible_message(op, index, operand))
        if isinstance(op, MatchShapeOp):
            pattern = op.pattern.data
            binds = defined_by_pattern(pattern)
            used = op.pattern.free_vars()
            if missing := _undefined(used, defined | binds):
                raise IRError(
                    op,
                    f"symbolic variable(s) {missing} in pattern {symbolic.format_dims(pattern)} "
                    "are used in an expression before being bound; bind each variable as a "
                    "whole dimension first",
                )
            defined = defined | binds
        elif op.has_trait(BindsSymbolicVars):
            defined = defined | type_binds(op.results[0].type)
        uses: set[str] = set()
        if isinstance(op, ShapeOp):
            uses |= op.dims.free_vars()
        if isinstance(op, PrimValueOp):
            uses |= op.value.free_vars()
        if isinstance(op, CallTIROp) and op.sym_args is not None:
            uses |= op.sym_args.free_vars()
        if missing := _undefined(uses, defined):
            raise IRError(op, f"uses undefined symbolic variable(s) {missing}")
        after = defined
        for region in op.regions:
            for inner in region.blocks:
                inner_defined = _walk_block(inner, visible | set(inner.args), defined)
                if isinstance(op, DataflowOp):
                    after = inner_defined
        for result in op.results:
            if missing := _undefined(type_free_vars(result.type), after):
                raise IRError(
                    op,
                    f"result type {show_type(result.type)} uses undefined symbolic variable(s) "
                    f"{missing}",
                )
        defined = after
        visible.update(op.results)
    return defined


def _invisible_message(op: Operation, index: int, operand: SSAValue) -> str:
    name = f"%{operand.name_hint}" if operand.name_hint else f"operand #{index}"
    owner = operand.owner
    region_op = owner.parent_op() if isinstance(owner, Operation) else None
    while region_op is not None:
        if isinstance(region_op, DataflowOp) and not _is_ancestor(region_op, op):
            return (
                f"uses {name}, a dataflow value of a relax.dataflow region, outside that "
                "region (only the values its relax.output lists are visible after it)"
            )
        region_op = region_op.parent_op()
    return f"uses {name} before it is defined"


def _is_ancestor(ancestor: Operation, op: Operation) -> bool:
    current: Operation | None = op
    while current is not None:
        if current is ancestor:
            return True
        current = current.parent_op()
    return False
