"""The operator library: every relax operator class, in the order the relax dialect
registers them (:mod:`xrelax.ops.registry`), and the Python function of each."""

from collections.abc import Callable
from functools import cache

from xdsl.ir import Operation

from xrelax.dialects.relax import STRUCTURAL_OPS, DeducedResultOp
from xrelax.dialects.relax_memory import MEMORY_OPS
from xrelax.ops.catalog import STATIC_ATTRS_OPS
from xrelax.ops.functions import OperatorSignature, operator_function
from xrelax.ops.runtime_attrs import RUNTIME_ATTRS_OPS

OPERATORS = (*STATIC_ATTRS_OPS, *RUNTIME_ATTRS_OPS)


@cache
def operator_functions() -> dict[str, Callable[..., Operation]]:
    """The :mod:`xrelax.op` function of each operator, and of each structural op whose
    result type is deduced (``shape_of``, ``tuple``), by its name without ``relax.``."""
    return {
        OperatorSignature.of(op_type).function_name: operator_function(op_type)
        for op_type in (*OPERATORS, *STRUCTURAL_OPS, *MEMORY_OPS)
        if issubclass(op_type, DeducedResultOp)
    }
