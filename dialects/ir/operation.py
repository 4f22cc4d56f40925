"""``XrelaxOperation``: the base class of every operation of xrelax's dialects.

xrelax's speed-ups of building and verifying IRDL operations (:mod:`.irdl_fast`) apply
to subclasses of this class only; xDSL's own operations are left as xDSL defines them.
"""

from __future__ import annotations

from xdsl.irdl import IRDLOperation


class XrelaxOperation(IRDLOperation):
    """An operation of the relax, tir or vm dialect."""
