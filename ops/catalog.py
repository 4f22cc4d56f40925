"""The operators whose attributes are written in the IR, one tuple per module of them.

These are what ``relax.runtime_attrs`` may apply to attributes known only at run time
(:mod:`xrelax.ops.runtime_attrs` looks them up here by name); with its two operators
they make the operator library (:data:`xrelax.ops.library.OPERATORS`).
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
from xrelax.ops.scan import SCAN_OPS
from xrelax.ops.scatter import SCATTER_OPS
from xrelax.ops.set import SET_OPS
from xrelax.ops.sort import SORT_OPS

STATIC_ATTRS_OPS = (
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
)
