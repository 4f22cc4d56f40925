"""The one module that uses xDSL's private names (xDSL 0.74).

Every item names the xDSL behaviour it works around. The rest of xrelax writes its
custom syntax with xDSL's public Parser and Printer API, and these functions.
"""

from __future__ import annotations

import math
import re

from xdsl.context import Context
from xdsl.dialects.builtin import AnyFloat, BytesAttr, DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.parser import AttrParser, Parser
from xdsl.parser.base_parser import BaseParser
from xdsl.utils.lexer import Position


def skip_to(parser: BaseParser, offset: Position) -> None:
    """Continue parsing at character ``offset`` of the input.

    xDSL has no public way to consume source text that is not made of MLIR tokens
    (MLIR gives dialect parsers the raw text, e.g. ``getFullSymbolSpec``). Symbolic
    expressions (``n * 2`` after ``relax.prim_value``, ``[n, m]`` dim lists) are read as
    text by the memoised expression parser, and a flat type already parsed is looked
    up by its text: both then continue after that text with this. ``relax.const``
    writes its type after the dense literal, which xDSL parses only with the type
    known: it reads the type, then goes back to the literal (and on after the type)."""
    parser._resume_from(offset)  # noqa: SLF001


def take_angle_body(parser: AttrParser) -> tuple[str, int]:
    """Consume ``<...>`` at the current token; its text and the offset of its first
    character.

    xDSL's scanner of a dialect attribute's body (MLIR's ``parseDialectSymbolBody``:
    brackets balanced, strings skipped) is private: ``_parse_dialect_symbol_body``."""
    if not parser.lexer.input.content.startswith("<", parser.pos):
        parser.raise_error("expected '<'")
    start = parser.pos + 1
    return parser._parse_dialect_symbol_body(), start  # noqa: SLF001


_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')
"""xDSL's string literal pattern without its nested repetition."""


class WorkaroundParser(Parser):
    """xDSL's :class:`Parser` with the faults below fixed; each override names one."""

    def __init__(self, ctx: Context, text: str, name: str = "<unknown>") -> None:
        super().__init__(ctx, text, name)
        # xDSL's string literal regex (``(?:[^"\\]+|...)*``) backtracks exponentially on
        # an unterminated string: 30 characters took minutes.
        self.lexer._unescaped_characters_regex = _STRING_LITERAL  # noqa: SLF001
        self._attribute_names: list[tuple[str, bool]] = []

    def parse_dense_int_or_fp_elements_attr(self, type):  # noqa: A002 - xDSL's signature
        """xDSL materialises a splat (one value, or the hex of one element) at its full
        size: ``dense<0.0> : tensor<1073741824xf32>`` cost gigabytes. Here a splat stores
        that one value whatever the shape, as MLIR's DenseElementsAttr does."""
        start = self.pos
        self.parse_punctuation("<", " in dense attribute")
        hex_text = self.parse_optional_str_literal()
        if hex_text is None and self._current_token.text in ("[", ">"):  # noqa: SLF001
            self._resume_from(start)  # noqa: SLF001
            return super().parse_dense_int_or_fp_elements_attr(type)
        if hex_text is None:
            self._parse_tensor_literal()  # noqa: SLF001
        self.parse_punctuation(">", " in dense attribute")
        full_type = type
        if full_type is None:
            self.parse_punctuation(":", " in dense attribute")
            full_type = self._parse_dense_literal_type()  # noqa: SLF001
        end = self.pos
        element_type = full_type.get_element_type()
        is_splat = hex_text is None or len(hex_text) == 2 + 2 * element_type.compile_time_size
        self._resume_from(start)  # noqa: SLF001
        if not is_splat or any(d < 0 for d in full_type.get_shape()):
            return super().parse_dense_int_or_fp_elements_attr(type)
        one = super().parse_dense_int_or_fp_elements_attr(TensorType(element_type, []))
        self._resume_from(end)  # noqa: SLF001
        data = one.data if math.prod(full_type.get_shape()) else BytesAttr(b"")
        return DenseIntOrFPElementsAttr(full_type, data)

    def _parse_block(self):
        """xDSL forgets that a block defined after a forward reference is defined: a
        second definition fails with a KeyError. It is reported as a re-declaration."""
        token = self._current_token  # noqa: SLF001
        name = token.text[1:]
        known = self.blocks.get(name)
        if known is not None and known[1] is None and name not in self.forward_block_references:
            self.raise_error(f"re-declaration of block '{name}'", token.span)
        return super()._parse_block()  # noqa: SLF001

    def _parse_dialect_type_or_attribute_body(self, attr_name, is_type, *rest):
        """Remembers which attribute is parsed, for :meth:`parse_paramattr_parameters`
        (xDSL does not tell the parameter parser whose parameters it reads)."""
        self._attribute_names.append((attr_name, is_type))
        try:
            return super()._parse_dialect_type_or_attribute_body(  # noqa: SLF001
                attr_name, is_type, *rest
            )
        finally:
            self._attribute_names.pop()

    def parse_paramattr_parameters(self, skip_white_space: bool = True) -> list[Attribute]:
        """xDSL builds a generic ``<p0, p1>`` attribute with the wrong number of parameters
        and fails with a Python exception; the number is checked against the attribute's
        definition here (a located error)."""
        start = self.pos
        params = super().parse_paramattr_parameters(skip_white_space)
        if not self._attribute_names:
            return params
        name, is_type = self._attribute_names[-1]
        lookup = self.ctx.get_optional_type if is_type else self.ctx.get_optional_attr
        definition = lookup(name) if "." in name else None
        if definition is not None and issubclass(definition, ParametrizedAttribute):
            expected = len(definition.get_irdl_definition().parameters)
            if len(params) != expected:
                self.raise_error(
                    f"'{name}' takes {expected} parameter(s), got {len(params)}", start, self.pos
                )
        return params

    def _parse_tensor_literal_element(self):
        """xDSL reads a hexadecimal integer given for a float as the float's value; in
        MLIR it is the bit pattern (xDSL itself prints NaN, infinities and some f32
        values that way, so its output did not re-parse)."""
        element = super()._parse_tensor_literal_element()  # noqa: SLF001
        if element.span.text.lower().startswith("0x"):
            return _BitPatternElement(element.is_negative, element.value, element.span)
        return element


class _BitPatternElement(Parser._TensorLiteralElement):  # noqa: SLF001
    """A ``0x...`` tensor literal element: for a float type, the bits of the value."""

    def to_type(self, parser, type):  # noqa: A002 - xDSL's signature
        if isinstance(type, AnyFloat) and isinstance(self.value, int):
            size = type.compile_time_size
            if self.value >= 1 << (8 * size):
                parser.raise_error(f"hexadecimal float literal too wide for {type}", self.span)
            return type.unpack(self.value.to_bytes(size, "little"), 1)[0]
        return super().to_type(parser, type)
