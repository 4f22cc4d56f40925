"""Legalization of matmul (batched, broadcasting, 1-D operands) and of the reductions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from legalcheck import F32, I1, I32, SETTINGS, Symbols, check, random_array, seeds, tensor

from xrelax.ops.linalg import LINALG_OPS, MatmulOp
from xrelax.ops.reduce import REDUCE_OPS, MeanOp


def name(op: type) -> str:
    return op.name


@SETTINGS
@given(data=st.data())
def test_matmul(data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    dtype = data.draw(st.sampled_from([F32, I32]))
    rows, inner, columns = (data.draw(st.integers(1, 4)) for _ in range(3))
    batch = data.draw(st.lists(st.integers(1, 3), max_size=2))
    batch_dims = symbols.dims(batch)
    rows_dim, inner_dim, columns_dim = symbols.dims([rows, inner, columns])
    operands = []
    for matrix, dims in (
        ([rows, inner], [rows_dim, inner_dim]),
        ([inner, columns], [inner_dim, columns_dim]),
    ):
        kind = data.draw(st.sampled_from(["vector", "matrix", "batched"]))
        if kind == "vector":
            shape, sym_dims = [inner], [inner_dim]
        else:
            lead = data.draw(st.integers(0, len(batch))) if kind == "batched" else 0
            ones = [data.draw(st.booleans()) for _ in range(lead)]
            tail = slice(len(batch) - lead, None)
            shape = [1 if o else d for o, d in zip(ones, batch[tail], strict=True)] + matrix
            sym_dims = [1 if o else d for o, d in zip(ones, batch_dims[tail], strict=True)] + dims
        operands.append(tensor(sym_dims, dtype, random_array(rng, shape, dtype, -4, 5)))
    check(MatmulOp, operands, env=symbols.env, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", REDUCE_OPS, ids=name)
@SETTINGS
@given(data=st.data())
def test_reduce(op, data):
    symbols, rng = Symbols(data.draw), data.draw(seeds())
    kinds = [F32, I32] + ([I1] if I1 in op.DTYPES.members else [])
    dtype = data.draw(st.sampled_from(kinds))
    shape = data.draw(st.lists(st.integers(1, 4), max_size=3))
    axes = None
    if shape and data.draw(st.booleans()):
        rank = len(shape)
        axes = data.draw(st.lists(st.integers(-rank, rank - 1), unique_by=lambda a: a % rank))
    props = {"axis": axes, "keepdims": data.draw(st.sampled_from([None, False, True]))}
    operand = tensor(symbols.dims(shape), dtype, random_array(rng, shape, dtype, -9, 10))
    # numpy sums an f32 mean pairwise, the kernel in order.
    check(op, [operand], props, symbols.env, atol=1e-5 if op is MeanOp else 1e-6)


def test_family_is_covered():
    assert set(LINALG_OPS) == {MatmulOp}  # the reductions: test_reduce runs all of them
