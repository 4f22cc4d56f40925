"""Linear algebra operators: ``matmul``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from xrelax.dialects.relax import RelaxError, TensorType, show_type
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.obligations import Facts
from xrelax.ops import te
from xrelax.ops.base import (
    NUMERIC,
    OUTPUT,
    OperatorOp,
    Props,
    accumulator,
    broadcast_dims,
    broadcast_indices,
    check_dtype,
    expect_tensor,
    numpy_accumulator,
    numpy_result,
    require_equal,
    result_dims,
    same_dtype,
    tensor,
)

_ONE = sympy.Integer(1)


def _matmul_rank(lhs_rank: int, rhs_rank: int) -> int:
    """The result rank: the broadcast batch rank plus the kept matrix dimensions."""
    return max(lhs_rank, rhs_rank, 2) - (lhs_rank == 1) - (rhs_rank == 1)


@irdl_op_definition
class MatmulOp(OperatorOp):
    """``relax.matmul``: numpy's matmul (batched, broadcasting leading dims, 1-D operands
    promoted to a matrix and the added dimension dropped); f16 and bf16 accumulate in
    f32."""

    name = "relax.matmul"

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def deduce(
        cls, operand_types: Sequence[Attribute], properties: Props, facts: Facts
    ) -> Attribute:
        a, b = (expect_tensor(t) for t in operand_types)
        check_dtype(a, NUMERIC)
        check_dtype(b, NUMERIC)
        dtype = same_dtype([a, b])
        for type_, side in ((a, "lhs"), (b, "rhs")):
            if type_.ndim == 0:
                raise RelaxError(f"expected a {side} of rank >= 1, got {show_type(type_)}")
        if a.ndim is None or b.ndim is None:
            return tensor(None, dtype)
        rank = _matmul_rank(a.ndim, b.ndim)
        if a.dims is None or b.dims is None:
            return tensor(rank, dtype)
        lhs = a.dims if a.ndim >= 2 else (_ONE, *a.dims)
        rhs = b.dims if b.ndim >= 2 else (*b.dims, _ONE)
        if symbolic.prove_not_equal(lhs[-1], rhs[-2]):
            raise RelaxError(
                f"expected the inner dimensions to agree, got lhs {show_type(a)} with "
                f"{symbolic.format_expr(lhs[-1])} columns and rhs {show_type(b)} with "
                f"{symbolic.format_expr(rhs[-2])} rows"
            )
        require_equal(facts, lhs[-1], rhs[-2], "relax.matmul: the lhs columns equal the rhs rows")
        batch = broadcast_dims(lhs[:-2], rhs[:-2])
        if batch is None:
            return tensor(rank, dtype)
        rows = (lhs[-2],) if a.ndim >= 2 else ()
        columns = (rhs[-1],) if b.ndim >= 2 else ()
        return tensor((*batch, *rows, *columns), dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        a, b = inputs
        wide = numpy_accumulator(a.dtype)
        return numpy_result(np.matmul(a.astype(wide), b.astype(wide)), a.dtype)

    @classmethod
    def emit_te(cls, inputs: Sequence[Any], result_type: Attribute, props: Props) -> Any:
        a, b = inputs
        dims = result_dims(result_type)
        k = te.reduce_axis(0, a.shape[-1], "k")
        batch = len(dims) - (a.ndim >= 2) - (b.ndim >= 2)
        wide = accumulator(a.dtype)

        def body(*i: sympy.Expr) -> te.Expr:
            rows = i[batch : batch + 1] if a.ndim >= 2 else ()
            columns = i[len(i) - 1 :] if b.ndim >= 2 else ()
            lhs = (*broadcast_indices(a.shape[:-2], i[:batch]), *rows, k)
            rhs = (*broadcast_indices(b.shape[:-2], i[:batch]), k, *columns)
            if wide == a.dtype:
                return te.sum(a[lhs] * b[rhs], axis=k)
            product = te.cast(a[lhs], wide) * te.cast(b[rhs], wide)
            return te.cast(te.sum(product, axis=k), a.dtype)

        return te.compute(dims, body, OUTPUT)


LINALG_OPS = (MatmulOp,)
