"""Custom-syntax helpers shared by the relax and tir ops (operand lists, functional
types with an optional result, symbolic dimension lists)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TypeVar

from xdsl.dialects.builtin import FlatSymbolRefAttr, StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    OperandVariable,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import BaseParser, Parser, UnresolvedOperand
from xdsl.printer import Printer

from xrelax.dialects.dims import DimsAttr, parse_dims_text
from xrelax.dialects.ir.xdsl_workarounds import skip_to
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import Dims


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """``%a, %b, ...`` (possibly empty)."""
    operands: list[UnresolvedOperand] = []
    first = parser.parse_optional_unresolved_operand()
    if first is None:
        return operands
    operands.append(first)
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    return operands


_FAST_TYPES = ("!relax.tensor", "!relax.shape", "!relax.prim", "!tir.buffer")
_LONGEST_FAST_TYPE = max(len(name) for name in _FAST_TYPES)
_TYPE_CACHE: dict[str, Attribute] = {}
_TypeT = TypeVar("_TypeT", bound=Attribute | None)


def memoised_type(parser: BaseParser, parse: Callable[[], _TypeT]) -> _TypeT:
    """``parse()`` (a type at the current position, or None), with a memoised fast path
    for the flat dialect types (``!relax.tensor<...>``, ``!relax.shape<...>``,
    ``!relax.prim<...>``, ``!tir.buffer<...>``): their whole text is looked up before
    xDSL's lexer touches it (parsing speed, docs/design.md §8)."""
    content = parser.lexer.input.content
    start = parser.pos
    name_end = content.find("<", start, start + _LONGEST_FAST_TYPE + 1)
    if name_end == -1 or content[start:name_end] not in _FAST_TYPES:
        return parse()
    end = content.find(">", name_end)
    text = content[start : end + 1]
    cached = _TYPE_CACHE.get(text)
    if cached is not None and end != -1:
        skip_to(parser, end + 1)
        return cached  # type: ignore[return-value]
    type_ = parse()
    if type_ is not None and end != -1 and parser.pos >= end + 1:
        _TYPE_CACHE[text] = type_
    return type_


def parse_type(parser: Parser) -> Attribute:
    """``parser.parse_type()`` through :func:`memoised_type`."""
    return memoised_type(parser, parser.parse_type)


def parse_paren_types(parser: Parser) -> list[Attribute]:
    """``(T1, T2)`` (possibly empty)."""
    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parse_type(parser))


def parse_result_types(parser: Parser) -> list[Attribute]:
    """``T`` or ``(T1, T2)`` or ``()`` after a ``->``."""
    types = parser.parse_optional_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parse_type(parser)
    )
    return [parse_type(parser)] if types is None else types


def print_result_types(printer: Printer, types: Sequence[Attribute]) -> None:
    """The inverse of :func:`parse_result_types`."""
    if len(types) == 1:
        printer.print_attribute(types[0])
    else:
        printer.print_string("(")
        printer.print_list(types, printer.print_attribute)
        printer.print_string(")")


def resolve_operands(
    parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute], pos: int
) -> list[SSAValue]:
    """Resolve ``operands`` with ``types``, checking the counts agree."""
    if len(operands) != len(types):
        parser.raise_error(
            f"expected {len(operands)} operand types, got {len(types)}", pos, parser.pos
        )
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


def parse_defined_operand(parser: Parser) -> SSAValue:
    """An operand whose type is not written: it must already be defined."""
    operand = parser.parse_unresolved_operand()
    values = parser.ssa_values.get(operand.operand_name)
    if values is None:
        parser.raise_error(f"use of undefined value %{operand.operand_name}", operand.span)
    return parser.resolve_operand(operand, values[operand.index].type)


def parse_bracket_dims(parser: Parser) -> Dims:
    """A ``[d0, d1, ...]`` list of symbolic expressions at the current token."""
    start = parser.pos
    if not parser.lexer.input.content.startswith("[", start):
        parser.raise_error("expected '[' starting a list of symbolic dimensions")
    end = _matching_bracket(parser, start)
    text = parser.lexer.input.content[start : end + 1]
    skip_to(parser, end + 1)
    return parse_dims_text(parser, text, start)


def _matching_bracket(parser: Parser, start: int) -> int:
    content = parser.lexer.input.content
    depth = 0
    for index in range(start, len(content)):
        char = content[index]
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index
        elif char in "\n{}":
            break
    parser.raise_error("unterminated '[' in a list of symbolic dimensions", start, start + 1)


def print_dims(printer: Printer, dims: Dims) -> None:
    """``[d0, d1, ...]``."""
    printer.print_string(symbolic.format_dims(dims))


def split_properties(
    op_type: type[IRDLOperation], attributes: dict[str, Attribute]
) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """Split a parsed attribute dictionary into (properties, discardable attributes)."""
    names = op_type.get_irdl_definition().properties.keys()
    props = {k: v for k, v in attributes.items() if k in names}
    attrs = {k: v for k, v in attributes.items() if k not in names}
    return props, attrs


@functools.lru_cache(maxsize=4096)
def symbol_ref(name: str) -> FlatSymbolRefAttr:
    """``@name`` as an attribute; attributes are immutable, so one per name is shared
    (building one verifies its parameters: several µs per call op built or parsed)."""
    return FlatSymbolRefAttr(name)


@irdl_custom_directive
class SymbolicDims(CustomDirective):
    """``custom<SymbolicDims>($prop)``: a ``#sym.dims`` property written as its bare
    ``[d0, d1, ...]`` list."""

    dims: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.dims.set(state, DimsAttr(parse_bracket_dims(parser)))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        print_dims(printer, self.dims.get(op).data)  # type: ignore[union-attr]

    def is_anchorable(self) -> bool:
        return self.dims.is_anchorable()

    def is_present(self, op: IRDLOperation) -> bool:
        return self.dims.is_present(op)


def defined_type(parser: Parser, operand: UnresolvedOperand) -> Attribute:
    """The type of ``operand``, which must be defined already (its type is not written)."""
    values = parser.ssa_values.get(operand.operand_name)
    if values is None or operand.index >= len(values):
        parser.raise_error(f"use of undefined value {operand.span.text}", operand.span)
    return values[operand.index].type


@irdl_custom_directive
class DefinedOperand(CustomDirective):
    """``custom<DefinedOperand>($x, type($x))``: an operand written without its type,
    which is the type of its definition (written before this use)."""

    operand: OperandVariable
    operand_type: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        operand = parser.parse_unresolved_operand()
        self.operand.set(state, operand)
        self.operand_type.set(state, (defined_type(parser, operand),))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_operand(self.operand.get(op))


@irdl_custom_directive
class BareName(CustomDirective):
    """``custom<BareName>($prop)``: a string property written as a bare identifier (a
    symbolic variable's name; the op's verifier checks it is one)."""

    name: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.name.set(state, StringAttr(parser.parse_identifier()))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(self.name.get(op).data)  # type: ignore[union-attr]


@irdl_custom_directive
class QuotedString(CustomDirective):
    """``custom<QuotedString>($prop)``: a string property written as a string literal
    (escaped, so any text re-parses)."""

    text: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.text.set(state, StringAttr(parser.parse_str_literal()))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string_literal(self.text.get(op).data)  # type: ignore[union-attr]


@irdl_custom_directive
class ResultTypeList(CustomDirective):
    """``custom<ResultTypeList>(type($results))``: the types of variadic results as
    ``T`` (one) or ``(T1, T2)`` (see :func:`parse_result_types`)."""

    types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.types.set(state, parse_result_types(parser))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        print_result_types(printer, self.types.get(op))

    def is_anchorable(self) -> bool:
        return self.types.is_anchorable()

    def is_present(self, op: IRDLOperation) -> bool:
        return self.types.is_present(op)

    def set_empty(self, state: ParsingState) -> None:
        self.types.set_empty(state)


@irdl_custom_directive
class Callee(CustomDirective):
    """``custom<Callee>($callee)``: ``@name``, a flat symbol reference (one attribute
    per name: :func:`symbol_ref`)."""

    callee: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.callee.set(state, symbol_ref(parser.parse_symbol_name().data))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_attribute(self.callee.get(op))  # type: ignore[arg-type]
