"""Sums of products as matrix products: ``sum over K of left * right``.

The output axes split into ``P + L + R`` (in output order): batch axes (in either
operand; numpy broadcasts those an operand lacks), axes of the left operand only and of
the right operand only; ``K`` are the contracted axes (in both). Each operand is
transposed to ``(P, L, K)`` / ``(P, K, R)`` and reshaped into matrices (a copy only when
the view does not allow it: im2col for convolutions), then ``np.matmul`` (``np.dot``
for unbatched floating-point matrices: it costs less per call), or ``np.einsum`` when
``L`` and ``R`` are empty (batched dot products). Reduction axes in one operand only
are summed out first.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from xrelax.backends.kernels.buffers import Array, Buffer, Domain
from xrelax.backends.kernels.evaluator import Evaluator, is_contiguous

MATRIX_VECTOR = "matrix-vector"
"""The path note of many small matrix-vector products (a depthwise convolution's), which
the native backend computes itself rather than hand to BLAS."""
_SMALL_WINDOW = 64
"""The largest contraction (a convolution window: 7x7 is 49) whose batched
matrix-vector products are noted :data:`MATRIX_VECTOR`; a longer one (a decoding
step's ``[1, 768] x [768, 3072]``) stays with BLAS."""


@dataclass(frozen=True)
class Contraction:
    """``sum over K of left * right`` as a batched matrix product: output axes
    ``P + L + R`` (batch, left-only, right-only), contracted axes ``K``."""

    left: Array
    right: Array
    batch: list[str]
    left_only: list[str]
    right_only: list[str]
    contracted: list[str]

    def emit(
        self,
        ev: Evaluator,
        dest: Array,
        buffer: Buffer,
        indices: tuple[sympy.Expr, ...],
        out_domain: Domain,
        fused: bool,
    ) -> str:
        """Emit the product into ``dest`` (added to it unless ``fused``); the path name."""
        domain = ev.domain
        ext = {a.var: ev.src.py(a.extent) for a in domain.axes}
        vector = not self.left_only and not self.right_only

        def product(vs: list[str]) -> str:
            if len(vs) == 1:
                return ext[vs[0]]
            return " * ".join(f"({ext[v]})" for v in vs) or "1"

        def operand(array: Array, groups: list[list[str]]) -> str:
            own = array.vars
            private = [
                v
                for v in domain.names
                if v in own and v not in out_domain.names and v not in self.contracted
            ]
            code = array.code
            if private:
                axes = tuple(domain.position(v) for v in private)
                code = ev.bind(
                    f"np.add.reduce({code}, axis={axes}, keepdims=True)", array.vars, array.dtype
                ).code
            order = [v for g in groups for v in g]
            shape = [ext[v] if v in own else "1" for v in self.batch]
            shape += [product(g) for g in groups[1:] if g or not vector]
            whole = array.whole
            if not private and whole and [v for v in order if v in own] == list(whole.vars):
                # The matrix is the buffer's memory in order: reshape the buffer itself.
                if shape == [ext[v] for v in whole.vars]:
                    return whole.buffer
                code = f"{whole.buffer}.reshape(({', '.join(shape)},))"
                return ev.bind(code, array.vars, array.dtype).code
            perm = [domain.position(v) for v in order] + [
                k for k, v in enumerate(domain.names) if v not in order
            ]
            if perm != sorted(perm):
                code = f"{code}.transpose({', '.join(map(str, perm))})"
            return ev.bind(f"{code}.reshape(({', '.join(shape)},))", array.vars, array.dtype).code

        left = operand(self.left, [self.batch, self.left_only, self.contracted])
        right = operand(self.right, [self.batch, self.contracted, self.right_only])
        # np.dot skips np.matmul's ufunc machinery (~0.4 us a call) but wants an output
        # that is C-contiguous and of the product's dtype: used for 2-D float products.
        dot = (
            not vector
            and not self.batch
            and self.left.dtype == self.right.dtype == dest.dtype
            and dest.dtype.kind == "f"
        )
        if vector:
            call, path = f"np.einsum('...k,...k->...', {left}, {right}", "einsum"
        else:
            extents = domain.extents()
            window = sympy.Mul(*(extents[v] for v in self.contracted))
            if (
                self.batch
                and not (self.left_only and self.right_only)
                and window.is_Integer
                and window <= _SMALL_WINDOW
            ):
                ev.note(MATRIX_VECTOR)
            call, path = f"np.{'dot' if dot else 'matmul'}({left}, {right}", "matmul"
        out_shape = [ext[v] for v in self.batch]
        if not vector:
            out_shape += [product(self.left_only), product(self.right_only)]
        full = [ext[v] for v in out_domain.names]
        if fused and (vector or is_contiguous(buffer, indices, out_domain)):
            same = vector or out_shape == full
            if dot or not same:
                ev.src.contiguous.add(buffer.name)
            out = dest.code if same else f"{dest.code}.reshape(({', '.join(out_shape)},))"
            ev.src.line(f"{call}, out={out})")
            return path
        result = ev.bind(call + ")", frozenset(out_domain.names), dest.dtype)
        same = not full or out_shape == full
        reshaped = result.code if same else f"{result.code}.reshape(({', '.join(full)},))"
        if fused:
            ev.src.line(f"np.copyto({dest.code}, {reshaped})")
        else:
            ev.src.line(f"np.add({dest.code}, {reshaped}, out={dest.code})")
        return path


def plan_contraction(
    a: Array, b: Array, out_vars: list[str], red_vars: list[str]
) -> Contraction | None:
    """A plan for ``sum over red_vars of a * b`` as a (batched) matrix product."""
    va, vb = a.vars, b.vars
    if not set(red_vars) <= va | vb:
        return None
    contracted = [v for v in red_vars if v in va and v in vb]
    if not contracted:
        return None
    # Output axes in both operands are batch axes; so are those in neither (an operand
    # indexed at 0 on a batch of one: matmul broadcasts the product along them).
    shared = {v for v in out_vars if (v in va) == (v in vb)}
    for p in range(len(out_vars) + 1):
        batch, rest = out_vars[:p], out_vars[p:]
        if not shared <= set(batch):
            continue
        for left, right, vl, vr in ((a, b, va, vb), (b, a, vb, va)):
            q = 0
            while q < len(rest) and rest[q] in vl and rest[q] not in vr:
                q += 1
            if all(v in vr and v not in vl for v in rest[q:]):
                return Contraction(left, right, batch, rest[:q], rest[q:], contracted)
    return None
