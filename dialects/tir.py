"""The tir dialect: destination-passing loop-nest functions (docs/design.md §5).

```mlir
tir.prim_func @add(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[m], f32>,
                   %C: !tir.buffer<[n, m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %a = tir.load %A[i, j] : f32
      %b = tir.load %B[j] : f32
      %c = arith.addf %a, %b : f32
      tir.store %C[i, j], %c : f32
    }
  }
}
```

Buffer parameters bind the symbolic variables their shapes use as whole dimensions
(match_buffer semantics; other occurrences are run-time checks); ``sym [m]`` adds
integer parameters after the buffers for variables no buffer binds (call_tir_dyn).
Loop variables and buffer indices are symbolic expressions; scalar computation uses
xDSL's ``arith`` and ``math`` ops on SSA values. The outputs are the trailing buffers.
``tir.let t = %v : i64`` binds a symbolic variable to a computed integer for the ops
after it, so an index may depend on data (``take`` reads positions from a buffer).
``tir.assert [k] == [m], "why"`` is a symbolic fact the kernel checks when it runs
(an obligation of the operator it computes, docs/shape-safety.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import sympy
from xdsl.dialects.arith import FloatingPointLikeBinaryOperation, SignlessIntegerBinaryOperation
from xdsl.dialects.builtin import (
    FunctionType,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
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
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    IsolatedFromAbove,
    MemoryAllocEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from xrelax.dialects import dtypes
from xrelax.dialects.dims import DimsAttr, check_extents, parse_dims_text
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.ir.operation import XrelaxOperation
from xrelax.dialects.ir.syntax import (
    BareName,
    QuotedString,
    SymbolicDims,
    parse_bracket_dims,
    parse_defined_operand,
    parse_type,
    print_dims,
)
from xrelax.dialects.ir.xdsl_workarounds import skip_to, take_angle_body
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import Dims


@irdl_attr_definition
class BufferType(ParametrizedAttribute, TypeAttribute):
    """``!tir.buffer<[n, m], f32>``: a buffer of a symbolic shape and an element type."""

    name = "tir.buffer"

    shape: DimsAttr
    dtype: Attribute

    @staticmethod
    def of(shape: Iterable[int | str | sympy.Expr], dtype: Attribute) -> BufferType:
        """A buffer type from dims and an element type."""
        return BufferType(DimsAttr.of(shape), dtype)

    @property
    def dims(self) -> Dims:
        """The symbolic dims."""
        return self.shape.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        # The body is taken whole (a workaround, see take_angle_body): parsing it token
        # by token doubled the time of parsing a function signature.
        text, start = take_angle_body(parser)
        shape_text, sep, dtype_text = text.rpartition(",")
        if not sep or not shape_text.strip().startswith("["):
            parser.raise_error("expected '[dims], <dtype>'", start, start + len(text))
        dtype = dtypes.BY_NAME.get(dtype_text.strip())
        if dtype is None:
            at = start + len(shape_text) + 1
            parser.raise_error(
                f"unsupported element type '{dtype_text.strip()}'", at, at + len(dtype_text)
            )
        return (DimsAttr(parse_dims_text(parser, shape_text, start)), dtype)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{symbolic.format_dims(self.dims)}, {dtypes.NAME_OF[self.dtype]}>")

    def verify(self) -> None:
        if not dtypes.is_dtype(self.dtype):
            raise VerifyException(f"unsupported element type {self.dtype}")
        check_extents(self.shape.data)


class _IsolatedFromAbove(IsolatedFromAbove):
    """``IsolatedFromAbove`` whose check is :func:`verify_prim_func_scoping`'s walk (with
    SSA dominance) rather than a second walk of the function."""

    def verify(self, op: Operation) -> None:
        pass


@irdl_op_definition
class PrimFuncOp(XrelaxOperation):
    """``tir.prim_func @f(%A: !tir.buffer<...>, ...) sym [m] { ... }``."""

    name = "tir.prim_func"

    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    sym_params = prop_def(DimsAttr)
    sym_visibility = opt_prop_def(StringAttr)

    traits = traits_def(_IsolatedFromAbove(), SymbolOpInterface(), NoTerminator())

    def __init__(
        self,
        name: str,
        buffers: Sequence[BufferType],
        sym_params: Iterable[str] = (),
        body: Region | None = None,
    ) -> None:
        body = body if body is not None else Region(Block(arg_types=buffers))
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": FunctionType.from_lists(buffers, []),
                "sym_params": DimsAttr.of(sym_params),
            },
            regions=[body],
        )

    @property
    def buffer_types(self) -> tuple[BufferType, ...]:
        """The buffer parameter types (inputs, then outputs)."""
        return self.function_type.inputs.data  # type: ignore[return-value]

    @property
    def sym_param_names(self) -> list[str]:
        """The names of the extra integer parameters."""
        return [d.name for d in self.sym_params.data]

    @classmethod
    def parse(cls, parser: Parser) -> PrimFuncOp:
        name = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        sym_params: Dims = ()
        if parser.parse_optional_keyword("sym") is not None:
            sym_params = parse_bracket_dims(parser)
        extra = parser.parse_optional_attr_dict_with_keyword(
            ("sym_name", "function_type", "sym_params")
        )
        region = parser.parse_region(args)
        op = PrimFuncOp(name, [a.type for a in args], (), region)  # type: ignore[misc]
        op.sym_params = DimsAttr(sym_params)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_list(self.body.block.args, printer.print_block_argument)
        printer.print_string(")")
        if self.sym_params.data:
            printer.print_string(f" sym {symbolic.format_dims(self.sym_params.data)}")
        printer.print_op_attributes(
            self.attributes,
            reserved_attr_names=("sym_name", "function_type", "sym_params"),
            print_keyword=True,
        )
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    def verify_(self) -> None:
        if self.function_type.outputs.data:
            raise VerifyException("a tir.prim_func returns nothing (outputs are buffers)")
        if self.body.block.arg_types != self.function_type.inputs.data:
            raise VerifyException("entry block argument types differ from the function type")
        for index, type_ in enumerate(self.function_type.inputs.data):
            if not isinstance(type_, BufferType):
                raise VerifyException(f"parameter #{index} must be a !tir.buffer")
        for param in self.sym_params.data:
            if not param.is_Symbol:
                raise VerifyException("sym [...] lists plain symbolic variable names")
        verify_prim_func_scoping(self)

    def bound_vars(self) -> set[str]:
        """Variables defined by the signature: whole buffer dims and ``sym`` params."""
        names = set(self.sym_param_names)
        for buffer in self.buffer_types:
            names |= {d.name for d in buffer.dims if d.is_Symbol}
        return names


def verify_prim_func_scoping(func: PrimFuncOp) -> None:
    """Every symbolic variable is defined (signature or enclosing loop), loop
    variables do not shadow, every operand is defined before its use in an enclosing
    block of the function (SSA dominance, which xDSL does not check; this walk is also
    the function's ``IsolatedFromAbove`` check), loads and stores address buffers."""
    defined = func.bound_vars()
    for index, buffer in enumerate(func.buffer_types):
        if missing := buffer.shape.free_vars() - defined:
            raise IRError(
                func,
                f"buffer #{index} uses symbolic variable(s) {', '.join(sorted(missing))} "
                "that no buffer binds as a whole dimension and no sym parameter names",
            )
    args = set(func.body.block.args)
    _walk(func, func.body.block, defined, set(args), set(args))


def _used_vars(op: Operation) -> set[str]:
    """The symbolic variables ``op``'s own dims use."""
    kind = type(op)
    if kind is ForOp:
        return op.bounds.free_vars()
    if kind is LoadOp or kind is StoreOp:
        return op.indices.free_vars()
    if kind is IndexOp:
        return op.value.free_vars()
    if kind is AllocBufferOp:
        return op.buffer.type.shape.free_vars()
    if kind is AssertOp:
        return op.lhs.free_vars() | op.rhs.free_vars()
    return set()


def _walk(
    func: PrimFuncOp,
    block: Block,
    defined: set[str],
    buffers: set[SSAValue],
    visible: set[SSAValue],
) -> None:
    """Check ``block``'s ops; ``visible`` holds the SSA values defined before them in
    enclosing blocks (the values ``block`` adds are taken out again at its end)."""
    added: list[SSAValue] = [arg for arg in block.args if arg not in visible]
    visible.update(added)
    try:
        for op in block.ops:
            for index, operand in enumerate(op.operands):
                if operand not in visible:
                    if not func.is_ancestor(operand.owner):  # type: ignore[arg-type]
                        raise IRError(op, "uses a value defined outside its tir.prim_func")
                    raise IRError(op, f"operand #{index} does not dominate this use")
            kind = type(op)
            if kind is LetOp:
                if op.var_name in defined:
                    raise IRError(op, f"let variable '{op.var_name}' shadows an existing variable")
                defined = defined | {op.var_name}
                continue
            if missing := _used_vars(op) - defined:
                raise IRError(
                    op, f"uses undefined symbolic variable(s) {', '.join(sorted(missing))}"
                )
            if (kind is LoadOp or kind is StoreOp) and op.buffer not in buffers:
                raise IRError(op, "addresses a value that is not a buffer of this prim_func")
            if kind is ForOp:
                if op.var_name in defined:
                    raise IRError(op, f"loop variable '{op.var_name}' shadows an existing variable")
                # Nested ops are verified after this walk: the body may not be one block yet.
                for inner in op.body.blocks:
                    _walk(func, inner, defined | {op.var_name}, buffers, visible)
            elif op.regions:
                for region in op.regions:
                    for inner in region.blocks:
                        _walk(func, inner, defined, buffers, visible)
            if kind is AllocBufferOp:
                buffers.add(op.buffer)
            for result in op.results:
                visible.add(result)
                added.append(result)
    finally:
        visible.difference_update(added)


@irdl_op_definition
class AllocBufferOp(XrelaxOperation):
    """``%T = tir.alloc_buffer : !tir.buffer<[n], f32>``: a buffer local to the function."""

    name = "tir.alloc_buffer"

    buffer = result_def(BufferType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($buffer)"

    def __init__(self, type_: BufferType) -> None:
        super().__init__(result_types=[type_])


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_name(what: str, name: str) -> None:
    """A symbolic variable is named by an identifier (its uses are parsed as one)."""
    if _NAME.fullmatch(name) is None:
        raise VerifyException(f"{what} '{name}' is not an identifier")


# tir.for, tir.load and tir.store write their syntax by hand (xDSL's public Parser and
# Printer API): they make up most of every kernel, and xDSL's declarative-format
# machinery (its parsing state, constraint resolution and generic builder, per op) made
# parsing an executable's text about a sixth slower.


def parse_loop_bounds(parser: Parser) -> Dims:
    """``[lower, upper)``: two symbolic expressions, a half-open range."""
    start = parser.pos
    content = parser.lexer.input.content
    end = _closing_paren(content, start)
    if end == -1 or content[start] != "[":
        parser.raise_error("expected loop bounds '[lower, upper)'", start, start + 1)
    bounds = parse_dims_text(parser, content[start:end] + "]", start)
    if len(bounds) != 2:
        parser.raise_error("expected loop bounds '[lower, upper)'", start, end + 1)
    skip_to(parser, end + 1)
    return bounds


@irdl_op_definition
class ForOp(XrelaxOperation):
    """``tir.for i in [lo, hi) { ... }`` (``parallel`` marks a parallel loop)."""

    name = "tir.for"

    var = prop_def(StringAttr)
    bounds = prop_def(DimsAttr)
    parallel = opt_prop_def(UnitAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())

    def __init__(
        self,
        var: str,
        lower: int | sympy.Expr,
        upper: int | sympy.Expr,
        body: Region | None = None,
        parallel: bool = False,
    ) -> None:
        super().__init__(
            properties={
                "var": StringAttr(var),
                "bounds": DimsAttr.of([lower, upper]),
                "parallel": UnitAttr() if parallel else None,
            },
            regions=[body if body is not None else Region(Block())],
        )

    @property
    def var_name(self) -> str:
        """The loop variable."""
        return self.var.data

    @property
    def lower(self) -> sympy.Expr:
        """The inclusive lower bound."""
        return self.bounds.data[0]

    @property
    def upper(self) -> sympy.Expr:
        """The exclusive upper bound."""
        return self.bounds.data[1]

    def perfect_nest(self) -> list[ForOp]:
        """This loop and the loops perfectly nested in it (each the only op of the
        body around it), outermost first."""
        nest = [self]
        while len(body := nest[-1].body.block.ops) == 1 and isinstance(body.first, ForOp):
            nest.append(body.first)
        return nest

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        var = parser.parse_identifier()
        parser.parse_keyword("in")
        lower, upper = parse_loop_bounds(parser)
        parallel = parser.parse_optional_keyword("parallel") is not None
        attrs = parser.parse_optional_attr_dict_with_keyword(("var", "bounds", "parallel"))
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())  # `{ }`: an empty loop body
        op = ForOp(var, lower, upper, body, parallel)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        lower, upper = (symbolic.format_expr(b) for b in self.bounds.data)
        printer.print_string(f" {self.var_name} in [{lower}, {upper})")
        if self.parallel is not None:
            printer.print_string(" parallel")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_empty_block=False)

    def verify_(self) -> None:
        _check_name("loop variable", self.var_name)
        if len(self.bounds.data) != 2:
            raise VerifyException("tir.for has exactly two bounds")


def _closing_paren(content: str, start: int) -> int:
    """The index of the ``)`` that closes ``[lower, upper)``, or -1."""
    depth = 0
    for index in range(start + 1, len(content)):
        char = content[index]
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return index
            depth -= 1
        elif char in "\n{":
            break
    return -1


def _check_indices(op: Operation, buffer: SSAValue, indices: Dims) -> BufferType:
    type_ = buffer.type
    if not isinstance(type_, BufferType):
        raise VerifyException("expected a !tir.buffer operand")
    if len(indices) != len(type_.dims):
        raise VerifyException(f"{len(indices)} indices for a buffer of rank {len(type_.dims)}")
    return type_


@irdl_op_definition
class LoadOp(XrelaxOperation):
    """``%v = tir.load %A[i, j] : f32``; with ``pad %p`` an out-of-bounds index reads ``%p``."""

    name = "tir.load"

    buffer = operand_def(BufferType)
    pad = opt_operand_def()
    indices = prop_def(DimsAttr)
    result = result_def()
    traits = traits_def(MemoryReadEffect())

    def __init__(
        self,
        buffer: SSAValue,
        indices: Iterable[int | str | sympy.Expr],
        pad: SSAValue | None = None,
    ) -> None:
        assert isinstance(buffer.type, BufferType)
        super().__init__(
            operands=[buffer, [pad] if pad is not None else []],
            properties={"indices": DimsAttr.of(indices)},
            result_types=[buffer.type.dtype],
        )

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        buffer = parse_defined_operand(parser)
        indices = parse_bracket_dims(parser)
        pad = None
        if parser.parse_optional_keyword("pad") is not None:
            pad = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        dtype = parse_type(parser)
        pad_value = [parser.resolve_operand(pad, dtype)] if pad is not None else []
        return cls.create(
            operands=[buffer, *pad_value],
            properties={"indices": DimsAttr(indices)},
            result_types=[dtype],
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.buffer)
        print_dims(printer, self.indices.data)
        if self.pad is not None:
            printer.print_string(" pad ")
            printer.print_operand(self.pad)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        type_ = _check_indices(self, self.buffer, self.indices.data)
        if self.result.type != type_.dtype:
            raise VerifyException(
                f"loads {self.result.type} from a buffer of {dtypes.NAME_OF[type_.dtype]}"
            )
        if self.pad is not None and self.pad.type != type_.dtype:
            raise VerifyException("the pad value has a different type than the buffer")


@irdl_op_definition
class StoreOp(XrelaxOperation):
    """``tir.store %B[i, j], %v : f32``."""

    name = "tir.store"

    buffer = operand_def(BufferType)
    value = operand_def()
    indices = prop_def(DimsAttr)
    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self, buffer: SSAValue, indices: Iterable[int | str | sympy.Expr], value: SSAValue
    ) -> None:
        super().__init__(operands=[buffer, value], properties={"indices": DimsAttr.of(indices)})

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        buffer = parse_defined_operand(parser)
        indices = parse_bracket_dims(parser)
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        dtype = parse_type(parser)
        return cls.create(
            operands=[buffer, parser.resolve_operand(value, dtype)],
            properties={"indices": DimsAttr(indices)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.buffer)
        print_dims(printer, self.indices.data)
        printer.print_string(", ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    def verify_(self) -> None:
        type_ = _check_indices(self, self.buffer, self.indices.data)
        if self.value.type != type_.dtype:
            raise VerifyException(
                f"stores {self.value.type} into a buffer of {dtypes.NAME_OF[type_.dtype]}"
            )


@irdl_custom_directive
class IndexExpr(CustomDirective):
    """``i * 2 + 1``: a ``#sym.dims`` property of one expression, written bare (up to the
    ``{`` of the attributes or the ``:`` of the type)."""

    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        start = parser.pos
        content = parser.lexer.input.content
        end = start
        while end < len(content) and content[end] not in ":{\n":
            end += 1
        if end == len(content) or content[end] == "\n":
            parser.raise_error("expected '<expr> : <integer type>'", start, start + 1)
        exprs = parse_dims_text(parser, "[" + content[start:end] + "]", start - 1)
        if len(exprs) != 1:
            parser.raise_error("expected one symbolic index expression", start, end)
        skip_to(parser, end)
        self.value.set(state, DimsAttr(exprs))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(symbolic.format_expr(self.value.get(op).data[0]))  # type: ignore[union-attr]


@irdl_op_definition
class IndexOp(XrelaxOperation):
    """``%v = tir.index i * 2 + j : i64``: the value of a symbolic index expression."""

    name = "tir.index"

    value = prop_def(DimsAttr)
    result = result_def()
    traits = traits_def(Pure())
    custom_directives = (IndexExpr,)
    assembly_format = "custom<IndexExpr>($value) attr-dict `:` type($result)"

    def __init__(self, expr: int | str | sympy.Expr, type_: Attribute = dtypes.I64) -> None:
        super().__init__(properties={"value": DimsAttr.of([expr])}, result_types=[type_])

    @property
    def expr(self) -> sympy.Expr:
        """The expression."""
        return self.value.data[0]

    def verify_(self) -> None:
        if len(self.value.data) != 1:
            raise VerifyException("tir.index holds one expression")
        if self.result.type not in (dtypes.I32, dtypes.I64):
            raise VerifyException("tir.index produces i32 or i64")


@irdl_op_definition
class LetOp(XrelaxOperation):
    """``tir.let t = %v : i64``: the symbolic variable ``t`` holds the integer ``%v`` in the
    ops after it in its block (a data-dependent index, e.g. the positions ``take`` reads)."""

    name = "tir.let"

    var = prop_def(StringAttr)
    value = operand_def()
    custom_directives = (BareName,)
    assembly_format = "custom<BareName>($var) `=` $value attr-dict `:` type($value)"

    def __init__(self, var: str, value: SSAValue) -> None:
        super().__init__(operands=[value], properties={"var": StringAttr(var)})

    @property
    def var_name(self) -> str:
        """The bound variable."""
        return self.var.data

    def verify_(self) -> None:
        _check_name("let variable", self.var_name)
        if self.value.type not in (dtypes.I8, dtypes.I16, dtypes.I32, dtypes.I64):
            raise VerifyException("tir.let binds an integer value (i8, i16, i32 or i64)")


@irdl_custom_directive
class Relation(CustomDirective):
    """``==``, ``<=`` or ``<`` (the lexer's ``=`` and ``<`` tokens, adjacent)."""

    relation: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        start = parser.pos
        relation = parser.parse_optional_punctuation("<") or parser.parse_optional_punctuation("=")
        if relation is not None and parser.pos == start + 1:
            relation += parser.parse_optional_punctuation("=") or ""
        if relation not in symbolic.RELATIONS:
            parser.raise_error("expected a relation '==', '<=' or '<'", start, start + 1)
        self.relation.set(state, StringAttr(relation))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(self.relation.get(op).data)  # type: ignore[union-attr]


@irdl_op_definition
class AssertOp(XrelaxOperation):
    """``tir.assert [k, floormod(n, 4)] == [m, 0], "why"``: the kernel checks, when it
    reaches this op, that each pair of expressions stands in the relation (``==``, ``<=``
    or ``<``) and otherwise fails with the message and the values involved."""

    name = "tir.assert"

    lhs = prop_def(DimsAttr)
    rhs = prop_def(DimsAttr)
    relation = prop_def(StringAttr)
    message = prop_def(StringAttr)
    custom_directives = (SymbolicDims, Relation, QuotedString)
    assembly_format = (
        "custom<SymbolicDims>($lhs) custom<Relation>($relation) custom<SymbolicDims>($rhs) "
        "`,` custom<QuotedString>($message) attr-dict"
    )

    def __init__(
        self,
        lhs: Sequence[int | str | sympy.Expr],
        relation: str,
        rhs: Sequence[int | str | sympy.Expr],
        message: str,
    ) -> None:
        super().__init__(
            properties={
                "lhs": DimsAttr.of(lhs),
                "rhs": DimsAttr.of(rhs),
                "relation": StringAttr(relation),
                "message": StringAttr(message),
            }
        )

    @staticmethod
    def of_fact(fact: symbolic.Fact) -> AssertOp:
        """The check of one fact (its ``what`` is the message)."""
        return AssertOp([fact.lhs], fact.relation, [fact.rhs], fact.what)

    def facts(self) -> list[symbolic.Fact]:
        """The pairs as facts, in order."""
        relation, what = self.relation.data, self.message.data
        return [
            symbolic.Fact(a, relation, b, what)
            for a, b in zip(self.lhs.data, self.rhs.data, strict=True)
        ]

    def verify_(self) -> None:
        if self.relation.data not in symbolic.RELATIONS:
            raise VerifyException(f"unknown relation '{self.relation.data}' (expected ==, <= or <)")
        if len(self.lhs.data) != len(self.rhs.data):
            raise VerifyException(
                f"compares {len(self.lhs.data)} expressions with {len(self.rhs.data)}"
            )
        if not self.lhs.data:
            raise VerifyException("compares no expressions")


@irdl_op_definition
class RemFOp(FloatingPointLikeBinaryOperation):
    """``%r = tir.remf %a, %b : f32``: the remainder of a / b truncated toward zero, with
    the sign of a, computed exactly (C's ``fmod``). MLIR's ``arith.remf``, which xDSL
    0.74 does not define; the same syntax."""

    name = "tir.remf"

    traits = traits_def(Pure())


@irdl_op_definition
class PowUIOp(SignlessIntegerBinaryOperation):
    """``%r = tir.powui %a, %b : ui8``: a to the power of b for unsigned integers,
    wrapping around (MLIR's ``math.ipowi`` for signless integers, whose exponent may be
    negative; the same syntax)."""

    name = "tir.powui"

    traits = traits_def(Pure())


TIR_OPS = (
    PrimFuncOp,
    AllocBufferOp,
    ForOp,
    LoadOp,
    StoreOp,
    IndexOp,
    LetOp,
    AssertOp,
    RemFOp,
    PowUIOp,
)

Tir = Dialect("tir", list(TIR_OPS), [BufferType])
