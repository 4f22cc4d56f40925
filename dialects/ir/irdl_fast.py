"""Faster building and verifying of xrelax's IRDL ops, with xDSL's exact outcome.

Most ops have no variadic or optional operand, result, region or successor and no
segment-size option, so how their constructs split among their definitions is fixed;
xDSL's generic code works that split out again, through several helpers per
construct, for every op it builds or verifies: about a fifth of compiling a module
of 1,000 independent operators, and a third of verifying a compiled one. For ops of a
fixed arity:

* :func:`build_plain` initialises an op from plain arguments (one ``SSAValue`` per
  operand, one type per result, one ``Region`` per region, one ``Block`` per
  successor, in the right numbers) straight through ``Operation.__init__``, which is
  what xDSL's builder ends up doing with them; it declines any other call, which then
  goes through xDSL's builder, with its conversions and errors;
* :func:`fill_defaults` sets the default values a built op lacks from a per-class
  list;
* :func:`definition_verifier` makes a check of the op's IRDL definition that verifies
  the same counts, constraints (in the same order, with one constraint context),
  properties, attributes and traits directly. When any check fails it runs xDSL's own
  ``OpDef.verify``, so the error raised is xDSL's, word for word, and an op the fast
  check accepts is one xDSL accepts.

They serve :class:`xrelax.dialects.ir.operation.XrelaxOperation` only: xDSL's classes and
op definitions are never modified.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl.constraints import (
    AttrConstraint,
    EqIntConstraint,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    VerificationContext,
)
from xdsl.irdl.operations import (
    IRDLOperation,
    OpDef,
    OptAttributeDef,
    OptionalDef,
    OptPropertyDef,
    SingleBlockRegionDef,
    VariadicDef,
)
from xdsl.traits import OpTrait

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
        elif arg is None and how == OPTIONAL:
            continue
        elif (
            type(arg) in (list, tuple)
            # a single definition takes a sequence of one (as declarative formats pass)
            and (how == VARIADIC or len(arg) == 1 or how == OPTIONAL and not arg)
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


def build_plain(
    op: IRDLOperation,
    operands: Sequence[Any] | None,
    result_types: Sequence[Any] | None,
    properties: Mapping[str, Attribute | None] | None,
    attributes: Mapping[str, Attribute | None] | None,
    successors: Sequence[Any] | None,
    regions: Sequence[Any] | None,
) -> bool:
    """Initialise ``op`` as xDSL's builder would from these arguments, when they are
    plain and its class has a fixed arity; False (``op`` untouched) otherwise."""
    shapes = _construct_shapes(type(op))
    if shapes is None:
        return False
    built_operands = _flatten(operands, shapes[0], SSAValue)
    built_results = _flatten(result_types, shapes[1], Attribute)
    built_regions = _flatten(regions, shapes[2], Region)
    built_successors = _flatten(successors, shapes[3], Block)
    if (
        built_operands is None
        or built_results is None
        or built_regions is None
        or built_successors is None
    ):
        return False
    Operation.__init__(
        op,
        operands=built_operands,
        result_types=built_results,
        properties={k: v for k, v in (properties or {}).items() if v is not None},
        attributes={k: v for k, v in (attributes or {}).items() if v is not None},
        successors=built_successors,
        regions=built_regions,
    )
    return True


_defaults: dict[type[Operation], tuple[list[tuple[str, Attribute]], ...]] = {}
"""Op class -> the default values of its properties, then of its attributes."""


def fill_defaults(op: IRDLOperation) -> None:
    """Give ``op`` the default value of each property and attribute it lacks, as
    ``IRDLOperation.__post_init__`` does (which reads every definition each time)."""
    defaults = _defaults.get(type(op))
    if defaults is None:
        op_def = op.get_irdl_definition()
        defaults = _defaults[type(op)] = tuple(
            [
                (name, d.default_value)
                for name, d in definitions.items()
                if not isinstance(d, OptionalDef) and d.default_value is not None
            ]
            for definitions in (op_def.properties, op_def.attributes)
        )
    for values, given in zip(defaults, (op.properties, op.attributes), strict=True):
        for name, value in values:
            if name not in given:
                given[name] = value


def definition_verifier(op_class: type[IRDLOperation]) -> Callable[[Operation], None] | None:
    """``op_class``'s IRDL definition check (what ``OpDef.verify`` checks, with its
    errors) when the split of its constructs is fixed or has one variadic (or
    optional) operand and result at most; None for other classes."""
    shapes = _construct_shapes(op_class)
    if shapes is None or any(kind != SINGLE for kinds in shapes[2:] for kind in kinds):
        return None
    if any(len(kinds) - kinds.count(SINGLE) > 1 for kinds in shapes[:2]):
        return None
    return _fast_verifier(op_class.get_irdl_definition(), shapes)


def _element_constraint(constraint: RangeConstraint) -> AttrConstraint | None:
    """The constraint on the one element of a range of exactly one element, which
    ``constraint`` checks as this constraint on it alone; None for other ranges."""
    if (
        type(constraint) is RangeLengthConstraint
        and constraint.length == EqIntConstraint(1)
        and type(constraint.constraint) is RangeOf
    ):
        return constraint.constraint.constr
    return None


@dataclass(frozen=True)
class _Layout:
    """How a group of operands (or results) splits among its definitions: the
    constraints in order, and where the one variadic or optional definition is."""

    constraints: list[tuple[AttrConstraint | None, RangeConstraint]]
    """Each definition's range constraint, after the constraint on its one element
    where that is all the range constraint checks (a single operand or result)."""
    variadic: int | None
    """The index of the variadic or optional definition."""
    optional: bool

    @staticmethod
    def of(defs: list[tuple[str, Any]], kinds: tuple[int, ...]) -> _Layout:
        variadic = next((i for i, kind in enumerate(kinds) if kind != SINGLE), None)
        optional = variadic is not None and kinds[variadic] == OPTIONAL
        constraints = [(_element_constraint(d.constr), d.constr) for _, d in defs]
        return _Layout(constraints, variadic, optional)

    def check(self, values: Sequence[SSAValue], context: VerificationContext) -> bool:
        """Verify the types of ``values`` as ``OpDef.verify`` does; False where it
        raises."""
        count = len(self.constraints)
        if self.variadic is None:
            if len(values) != count:
                return False
            for (element, constraint), value in zip(self.constraints, values, strict=True):
                if element is not None:
                    element.verify(value.type, context)
                else:
                    constraint.verify((value.type,), context)
            return True
        types = [value.type for value in values]
        extra = len(types) - (count - 1)
        if extra < 0 or (self.optional and extra > 1):
            return False
        for index, (_, constraint) in enumerate(self.constraints):
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
    # a trait that keeps OpTrait's verify checks nothing
    traits = [trait for trait in op_def.traits if type(trait).verify is not OpTrait.verify]
    defined_properties = op_def.properties.keys()

    def accepts(op: Operation) -> bool:
        """The checks of ``OpDef.verify`` before the traits; False where it raises."""
        if len(op.regions) != len(regions) or len(op.successors) != successors:
            return False
        context = VerificationContext()
        if not operands.check(op.operands, context):
            return False
        if not results.check(op.results, context):
            return False
        if regions:
            for (single_block, entry_args), region in zip(regions, op.regions, strict=True):
                if single_block and len(region.blocks) != 1:
                    return False
                entry = region.first_block
                if entry is not None:
                    entry_args.verify(entry.arg_types, context)
        for given, defined in ((op.properties, properties), (op.attributes, attributes)):
            for name, constraint, optional in defined:
                value = given.get(name)
                if value is None:
                    if optional:
                        continue
                    return False
                constraint.verify(value, context)
        return op.properties.keys() <= defined_properties

    def verify(op: Operation) -> None:
        try:
            accepted = accepts(op)
        except Exception:  # noqa: BLE001 - xDSL's verify raises its own error below
            accepted = False
        if not accepted:
            op_def.verify(op)
            return
        for trait in traits:
            trait.verify(op)

    return verify
