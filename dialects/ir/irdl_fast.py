"""Faster building and verifying of IRDL ops, with xDSL's exact outcome.

Most ops have no variadic or optional operand, result, region or successor and no
segment-size option, so how their constructs split among their definitions is fixed;
xDSL's generic code works that split out again, through several helpers per
construct, for every op it builds or verifies: about a fifth of compiling a module
of 1,000 independent operators, and a third of verifying a compiled one. For ops of a
fixed arity:

* :func:`install_fast_builder` lets ``IRDLOperation.__init__`` pass plain arguments
  (one ``SSAValue`` per operand, one type per result, one ``Region`` per region, one
  ``Block`` per successor, in the right numbers) straight to ``Operation.__init__``,
  which is what xDSL's builder ends up doing with them; any other call goes through
  xDSL's builder, with its conversions and errors;
* :func:`install_fast_verifier` gives the op definition a verifier that checks the
  same counts, constraints (in the same order, with one constraint context),
  properties, attributes and traits directly. When any check fails it runs xDSL's own
  ``OpDef.verify``, so the error raised is xDSL's, word for word, and an op the fast
  check accepts is one xDSL accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl.constraints import VerificationContext
from xdsl.irdl.operations import (
    IRDLOperation,
    OpDef,
    OptAttributeDef,
    OptionalDef,
    OptPropertyDef,
    SingleBlockRegionDef,
    VariadicDef,
)

_generic_verify = OpDef.verify
_generic_init = IRDLOperation.__init__

SINGLE, VARIADIC, OPTIONAL = 0, 1, 2

_shapes: dict[type[Operation], tuple[tuple[int, ...], ...] | None] = {}
"""Op class -> for its operands, results, regions and successors, each definition's
kind (SINGLE, VARIADIC, OPTIONAL); None when the op has an option (segment sizes)."""


def _kind(definition: object) -> int:
    if isinstance(definition, OptionalDef):
        return OPTIONAL
    return VARIADIC if isinstance(definition, VariadicDef) else SINGLE


def _construct_shapes(op_class: type[IRDLOperation]) -> tuple[tuple[int, ...], ...] | None:
    if op_class in _shapes:
        return _shapes[op_class]
    op_def = op_class.get_irdl_definition()
    groups = (op_def.operands, op_def.results, op_def.regions, op_def.successors)
    shapes = tuple(tuple(_kind(d) for _, d in group) for group in groups)
    _shapes[op_class] = None if op_def.options else shapes
    return _shapes[op_class]


def _flatten(args: Sequence[Any] | None, kinds: tuple[int, ...], kind: type) -> list | None:
    """``args`` as one list, as xDSL's builder makes it, or None where the builder must
    convert or refuse them."""
    if args is None:
        args = ()
    if len(args) != len(kinds):
        return None
    flat: list[Any] = []
    for arg, how in zip(args, kinds, strict=True):
        if isinstance(arg, kind) and _single(type(arg)):
            flat.append(arg)
        elif how == SINGLE:
            return None
        elif arg is None and how == OPTIONAL:
            continue
        elif (
            type(arg) in (list, tuple)
            and (how == VARIADIC or len(arg) <= 1)
            and all(isinstance(a, kind) and _single(type(a)) for a in arg)
        ):
            flat.extend(arg)
        else:
            return None
    return flat


_singles: dict[type, bool] = {}


def _single(value_type: type) -> bool:
    """Whether xDSL's builder takes a value of ``value_type`` as one argument (it
    unpacks a ``Sequence``); cached, the ``Sequence`` check is slow."""
    single = _singles.get(value_type)
    if single is None:
        single = _singles[value_type] = not issubclass(value_type, Sequence)
    return single


def _fast_init(
    self: IRDLOperation,
    *,
    operands: Sequence[Any] | None = None,
    result_types: Sequence[Any] | None = None,
    properties: Mapping[str, Attribute | None] | None = None,
    attributes: Mapping[str, Attribute | None] | None = None,
    successors: Sequence[Any] | None = None,
    regions: Sequence[Any] | None = None,
) -> None:
    shapes = _construct_shapes(type(self))
    if shapes is not None:
        built_operands = _flatten(operands, shapes[0], SSAValue)
        built_results = _flatten(result_types, shapes[1], Attribute)
        built_regions = _flatten(regions, shapes[2], Region)
        built_successors = _flatten(successors, shapes[3], Block)
        if not (
            built_operands is None
            or built_results is None
            or built_regions is None
            or built_successors is None
        ):
            Operation.__init__(
                self,
                operands=built_operands,
                result_types=built_results,
                properties={k: v for k, v in (properties or {}).items() if v is not None},
                attributes={k: v for k, v in (attributes or {}).items() if v is not None},
                successors=built_successors,
                regions=built_regions,
            )
            return
    _generic_init(
        self,
        operands=operands,
        result_types=result_types,
        properties=properties,
        attributes=attributes,
        successors=successors,
        regions=regions,
    )


def install_fast_builder() -> None:
    """Build IRDL ops of a fixed arity without xDSL's generic argument splitting."""
    IRDLOperation.__init__ = _fast_init  # type: ignore[method-assign]


_verified: set[type[Operation]] = set()


def install_fast_verifier(op_class: type[Operation]) -> None:
    """Give ``op_class``'s IRDL definition the fast verifier when the split of its
    constructs is fixed or has one variadic (or optional) operand and result at most
    (once per class; other classes keep xDSL's)."""
    if op_class in _verified:
        return
    _verified.add(op_class)
    if not issubclass(op_class, IRDLOperation):
        return
    shapes = _construct_shapes(op_class)
    if shapes is None or any(kind != SINGLE for kinds in shapes[2:] for kind in kinds):
        return
    if any(len(kinds) - kinds.count(SINGLE) > 1 for kinds in shapes[:2]):
        return
    op_def = op_class.get_irdl_definition()
    op_def.verify = _fast_verifier(op_def, shapes)  # type: ignore[method-assign]


@dataclass(frozen=True)
class _Layout:
    """How a group of operands (or results) splits among its definitions: the
    constraints in order, and where the one variadic or optional definition is."""

    constraints: list[Any]
    variadic: int | None
    """The index of the variadic or optional definition."""
    optional: bool

    @staticmethod
    def of(defs: list[tuple[str, Any]], kinds: tuple[int, ...]) -> _Layout:
        variadic = next((i for i, kind in enumerate(kinds) if kind != SINGLE), None)
        optional = variadic is not None and kinds[variadic] == OPTIONAL
        return _Layout([d.constr for _, d in defs], variadic, optional)

    def check(self, types: Sequence[Attribute], context: VerificationContext) -> bool:
        """Verify ``types`` as ``OpDef.verify`` does; False where it raises."""
        count = len(self.constraints)
        if self.variadic is None:
            if len(types) != count:
                return False
            for constraint, type_ in zip(self.constraints, types, strict=True):
                constraint.verify((type_,), context)
            return True
        extra = len(types) - (count - 1)
        if extra < 0 or (self.optional and extra > 1):
            return False
        for index, constraint in enumerate(self.constraints):
            if index < self.variadic:
                constraint.verify((types[index],), context)
            elif index == self.variadic:
                constraint.verify(tuple(types[index : index + extra]), context)
            else:
                constraint.verify((types[index - 1 + extra],), context)
        return True


def _fast_verifier(op_def: OpDef, shapes: tuple[tuple[int, ...], ...]) -> Callable:
    operands = _Layout.of(op_def.operands, shapes[0])
    results = _Layout.of(op_def.results, shapes[1])
    regions = [(isinstance(d, SingleBlockRegionDef), d.entry_args) for _, d in op_def.regions]
    successors = len(op_def.successors)
    properties = [
        (name, d.constr, isinstance(d, OptPropertyDef)) for name, d in op_def.properties.items()
    ]
    attributes = [
        (name, d.constr, isinstance(d, OptAttributeDef)) for name, d in op_def.attributes.items()
    ]
    traits = list(op_def.traits)

    def accepts(op: Operation) -> bool:
        """The checks of ``OpDef.verify`` before the traits; False where it raises."""
        if len(op.regions) != len(regions) or len(op.successors) != successors:
            return False
        context = VerificationContext()
        if not operands.check(op.operand_types, context):
            return False
        if not results.check(op.result_types, context):
            return False
        for (single_block, entry_args), region in zip(regions, op.regions, strict=True):
            if single_block and len(region.blocks) != 1:
                return False
            entry = region.first_block
            if entry is not None:
                entry_args.verify(entry.arg_types, context)
        for defs, given in ((properties, op.properties), (attributes, op.attributes)):
            for name, constraint, optional in defs:
                value = given.get(name)
                if value is None:
                    if optional:
                        continue
                    return False
                constraint.verify(value, context)
        return all(name in op_def.properties for name in op.properties)

    def verify(op: Operation) -> None:
        try:
            accepted = accepts(op)
        except Exception:  # noqa: BLE001 - xDSL's verify raises its own error below
            accepted = False
        if not accepted:
            _generic_verify(op_def, op)
            return
        for trait in traits:
            trait.verify(op)

    return verify
