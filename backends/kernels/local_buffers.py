"""Local buffers (``tir.alloc_buffer``) of the same shape and dtype whose lifetimes do not
overlap share one array: the kernel allocates (and frees) fewer temporaries.

A buffer lives from the first top-level op that uses it to the last one; its contents
before its first store are undefined, so a buffer may take over the array of one whose
last use came strictly earlier.
"""

from __future__ import annotations

import sympy
from xdsl.ir import SSAValue

from xrelax.dialects.tir import AllocBufferOp, LoadOp, PrimFuncOp, StoreOp


def plan_local_buffers(func: PrimFuncOp) -> dict[SSAValue, SSAValue]:
    """Each local buffer mapped to the buffer whose array it uses (itself if its own);
    buffers with the same array have disjoint lifetimes."""
    first: dict[SSAValue, int] = {}
    last: dict[SSAValue, int] = {}
    local = {op.buffer for op in func.body.block.ops if isinstance(op, AllocBufferOp)}
    for k, op in enumerate(func.body.block.ops):
        for inner in op.walk():
            if isinstance(inner, LoadOp | StoreOp) and inner.buffer in local:
                first.setdefault(inner.buffer, k)
                last[inner.buffer] = k
    shares: dict[SSAValue, SSAValue] = {}
    # The last use of the arrays so far, by owner.
    free_after: dict[SSAValue, int] = {}
    for buffer in sorted((b for b in local if b in first), key=lambda b: first[b]):
        owner = next(
            (o for o, end in free_after.items() if end < first[buffer] and _same_layout(o, buffer)),
            None,
        )
        owner = owner or buffer
        shares[buffer] = owner
        free_after[owner] = last[buffer]
    return shares


def _same_layout(a: SSAValue, b: SSAValue) -> bool:
    ta, tb = a.type, b.type
    return (
        ta.dtype == tb.dtype
        and len(ta.dims) == len(tb.dims)
        and all(sympy.expand(x - y) == 0 for x, y in zip(ta.dims, tb.dims, strict=True))
    )
