"""``XrelaxOperation``: the base class of every operation of xrelax's dialects.

xrelax's speed-ups of building and verifying IRDL operations (:mod:`.irdl_fast`) apply
to subclasses of this class only; xDSL's own operations, classes and op definitions are
left as xDSL defines them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation

from xrelax.dialects.ir.irdl_fast import build_plain, definition_verifier, fill_defaults

_own_verifiers: dict[type[Operation], Callable[[Operation], None]] = {}
"""Op class -> the ``verify_`` that ``@irdl_op_definition`` wraps after its definition
check (the class's own, or the one it inherits)."""

_verifier_installed: set[type[Operation]] = set()


class XrelaxOperation(IRDLOperation):
    """An operation of the relax, tir or vm dialect.

    It is built as ``IRDLOperation`` builds it, without xDSL's generic splitting of
    plain arguments for an op of a fixed arity; and verified as xDSL verifies it, with
    the checks of its IRDL definition made directly (xDSL's errors, word for word).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # ``@irdl_op_definition`` runs after this and wraps what ``verify_`` is now.
        _own_verifiers[cls] = cls.verify_

    def __init__(
        self,
        *,
        operands: Sequence[Any] | None = None,
        result_types: Sequence[Any] | None = None,
        properties: Mapping[str, Attribute | None] | None = None,
        attributes: Mapping[str, Attribute | None] | None = None,
        successors: Sequence[Any] | None = None,
        regions: Sequence[Any] | None = None,
    ) -> None:
        if not build_plain(
            self, operands, result_types, properties, attributes, successors, regions
        ):
            super().__init__(
                operands=operands,
                result_types=result_types,
                properties=properties,
                attributes=attributes,
                successors=successors,
                regions=regions,
            )

    @classmethod
    def build(cls, **fields: Any) -> Any:
        """xDSL's ``build`` (which declarative formats use to make parsed ops), through
        this class's ``__init__``."""
        op = cls.__new__(cls)
        XrelaxOperation.__init__(op, **fields)
        return op

    def __post_init__(self) -> None:
        fill_defaults(self)  # what IRDLOperation.__post_init__ does, which is skipped
        super(IRDLOperation, self).__post_init__()

    def verify(self, verify_nested_ops: bool = True) -> None:
        op_class = type(self)
        if op_class not in _verifier_installed:
            _install_verifier(op_class)
        super().verify(verify_nested_ops)


def _install_verifier(op_class: type[XrelaxOperation]) -> None:
    """Replace the ``verify_`` that ``@irdl_op_definition`` gave ``op_class`` (its IRDL
    definition's generic check, then the class's own ``verify_``) by the same two
    steps with the definition checked directly, where :mod:`.irdl_fast` can."""
    _verifier_installed.add(op_class)
    check_definition = definition_verifier(op_class)
    if check_definition is None:
        return
    own = _own_verifiers[op_class]
    if own is Operation.verify_:
        op_class.verify_ = check_definition  # type: ignore[method-assign]
        return

    def verify_(op: Operation) -> None:
        check_definition(op)
        own(op)

    op_class.verify_ = verify_  # type: ignore[method-assign]
