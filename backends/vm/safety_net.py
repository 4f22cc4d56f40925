"""The safety net at run time: every operator as a packed function ``relax.op.<name>``.

``relax-legalize-ops`` turns an operator it cannot compile to a kernel (unknown
shapes, data-dependent results) into ``call_packed "relax.op.<name>"`` whose
trailing argument is the operator's attribute dictionary as a constant
(:mod:`xrelax.ops.attribute_constants`). Importing this module registers those
functions; each checks the operator's facts on the values' shapes (as deduction would
have, had the shapes been known) and allocates its result with the operator's numpy
reference kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.ir import Attribute

from xrelax.backends.vm.builtins import register_func
from xrelax.backends.vm.error import VMError
from xrelax.ops.attribute_constants import from_constant, is_dict_constant
from xrelax.ops.base import OperatorOp
from xrelax.ops.library import OPERATORS


def _runtime_kernel(op_type: type[OperatorOp]) -> Callable[..., Any]:
    def kernel(*args: Any) -> Any:
        props: dict[str, Attribute] = {}
        if args and is_dict_constant(args[-1]):
            props, args = dict(from_constant(args[-1]).data), args[:-1]
        try:
            return op_type.run_reference(list(args), props)
        except Exception as err:  # noqa: BLE001 - the operator's refusal of the inputs
            raise VMError(refusal(op_type, err)) from err

    kernel.__name__ = op_type.name.replace(".", "_")
    kernel.__doc__ = f"``{op_type.name}`` at run time (its numpy reference kernel)."
    return kernel


def refusal(op_type: type[OperatorOp], err: BaseException) -> str:
    """The one-line message of an operator refusing its run-time inputs, led by its name."""
    message = " ".join(str(err).split()) or type(err).__name__
    return message if message.startswith(f"{op_type.name}:") else f"{op_type.name}: {message}"


def register_runtime_kernels() -> None:
    """Register ``relax.op.<name>`` for every operator (idempotent)."""
    for op_type in OPERATORS:
        register_func(op_type.runtime_name(), _runtime_kernel(op_type), override=True)


register_runtime_kernels()
