"""The relax operator library: one class per operator (DESIGN §4).

See :mod:`xrelax.ops.base` for what an operator defines.
"""

from xrelax.ops.elementwise import ELEMENTWISE_OPS

OPERATORS = (*ELEMENTWISE_OPS,)
