"""The relax operator library: one class per operator (DESIGN §4).

See :mod:`xrelax.ops.base` for what an operator defines, and
``docs/adding-an-operator.md`` for how to add one.
"""

from xrelax.ops.create import CREATE_OPS
from xrelax.ops.elementwise import ELEMENTWISE_OPS
from xrelax.ops.gather import GATHER_OPS
from xrelax.ops.layout import LAYOUT_OPS
from xrelax.ops.linalg import LINALG_OPS
from xrelax.ops.manipulate import MANIPULATE_OPS
from xrelax.ops.math import MATH_OPS
from xrelax.ops.nn import NN_OPS
from xrelax.ops.reduce import ARG_REDUCE_OPS, REDUCE_OPS
from xrelax.ops.resize import RESIZE_OPS
from xrelax.ops.runtime_attrs import RUNTIME_ATTRS_OPS
from xrelax.ops.scan import SCAN_OPS
from xrelax.ops.scatter import SCATTER_OPS
from xrelax.ops.set import SET_OPS
from xrelax.ops.sort import SORT_OPS

OPERATORS = (
    *ELEMENTWISE_OPS,
    *LINALG_OPS,
    *MANIPULATE_OPS,
    *REDUCE_OPS,
    *ARG_REDUCE_OPS,
    *NN_OPS,
    *RESIZE_OPS,
    *CREATE_OPS,
    *SET_OPS,
    *MATH_OPS,
    *SCAN_OPS,
    *GATHER_OPS,
    *LAYOUT_OPS,
    *SORT_OPS,
    *SCATTER_OPS,
    *RUNTIME_ATTRS_OPS,
)
