"""Random TE programs: the vectorized kernel computes what the scalar loop nests compute.

Each program draws an expression tree over loads of several shapes of access
(identity, transposed, reversed, broadcast, constant index, padded, data-dependent,
divided, modular),
constants, index values, arithmetic, comparisons with selects (data-dependent and
splittable index conditions) and casts; optionally a reduction stage feeds it.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xrelax.backends.kernels import KernelError, compile_prim_func
from xrelax.dialects import dtypes
from xrelax.dialects.shapes.symbolic import floordiv, floormod, sym
from xrelax.ops import te

F32, I32, I64 = dtypes.F32, dtypes.I32, dtypes.I64
n, m = sym("n"), sym("m")
A = te.placeholder((n, m), F32, "A")
AT = te.placeholder((m, n), F32, "AT")
B = te.placeholder((m,), F32, "B")
IDX = te.placeholder((n,), I64, "I")

LEAVES = {
    "A": lambda i, j: A[i, j],
    "A reversed": lambda i, j: A[n - 1 - i, m - 1 - j],
    "AT": lambda i, j: AT[j, i],
    "B": lambda i, j: B[j],
    "B reversed": lambda i, j: B[m - 1 - j],
    "A row 0": lambda i, j: A[0, j],
    "A shifted, padded": lambda i, j: A.get((i - 1, j + 1), pad=0.5),
    "A taken": lambda i, j: A[IDX[i], j],
    "index": lambda i, j: te.index(i * 2 - j, F32),
    "A halved column": lambda i, j: A[i, floordiv(j, 2)],
    "B rotated": lambda i, j: B[floormod(i + j, m)],
}
UNARY = {
    "neg": lambda x: -x,
    "abs": te.abs,
    "tanh": te.tanh,
    "sigmoid": te.sigmoid,
    "round trip through i32": lambda x: te.cast(te.cast(x * 4.0, I32), F32),
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "max": te.maximum,
    "min": te.minimum,
}


def expression(draw, depth: int, i, j) -> te.Expr:
    kind = draw(
        st.sampled_from(
            ["leaf", "const"]
            if depth == 0
            else ["leaf", "unary", "binary", "select", "split select"]
        )
    )
    if kind == "leaf":
        return LEAVES[draw(st.sampled_from(sorted(LEAVES)))](i, j)
    if kind == "const":
        return te.const(draw(st.sampled_from([-1.5, 0.0, 0.25, 2.0])), F32)
    if kind == "unary":
        return UNARY[draw(st.sampled_from(sorted(UNARY)))](expression(draw, depth - 1, i, j))
    if kind == "binary":
        fn = BINARY[draw(st.sampled_from(sorted(BINARY)))]
        return fn(expression(draw, depth - 1, i, j), expression(draw, depth - 1, i, j))
    a, b = (expression(draw, depth - 1, i, j) for _ in range(2))
    if kind == "select":
        return te.if_then_else(expression(draw, 0, i, j) < expression(draw, 0, i, j), a, b)
    bound = draw(st.integers(0, 4))
    return te.if_then_else(j < bound if draw(st.booleans()) else i >= bound, a, b)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rows=st.integers(1, 5), cols=st.integers(1, 5))
def test_vectorized_kernels_agree_with_scalar_loops(data, rows, cols):
    draw = data.draw
    k = te.reduce_axis(0, m, "k")
    outputs = []
    if draw(st.booleans()):
        combine = draw(st.sampled_from([te.sum, te.max, te.min]))
        S = te.compute((n,), lambda i: combine(expression(draw, 2, i, k), axis=k), "S")
        Y = te.compute((n, m), lambda i, j: expression(draw, 2, i, j) + S[i], "Y")
        outputs = [Y]
    else:
        outputs = [te.compute((n, m), lambda i, j: expression(draw, 3, i, j), "Y")]
    func, _ = te.create_prim_func("random", [A, AT, B, IDX, *outputs])
    fast = compile_prim_func(func)
    slow = compile_prim_func(func, vectorize=False)
    assert all(p.path != "scalar" for p in fast.paths), fast.paths
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    a = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    inputs = [a, np.ascontiguousarray(a.T), rng.uniform(-2, 2, cols).astype(np.float32)]
    inputs.append(rng.integers(0, rows, rows))
    got, want = np.empty((rows, cols), np.float32), np.empty((rows, cols), np.float32)
    fast(*inputs, got)
    slow(*inputs, want)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)


def _outcome(kernel, inputs, shape) -> tuple[np.ndarray | None, str | None]:
    out = np.zeros(shape, np.float32)
    try:
        kernel(*inputs, out)
    except KernelError as err:
        return None, str(err)
    return out, None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    rows=st.integers(1, 4),
    cols=st.integers(1, 4),
    broken=st.sampled_from(["index", "AT rows", "B length", "output"]),
)
def test_vectorized_and_scalar_kernels_refuse_inconsistent_inputs_alike(data, rows, cols, broken):
    """Indices outside the table and sizes that break the signature: both paths refuse
    with the same message, or (the broken part unused) compute the same values."""
    draw = data.draw
    outputs = [te.compute((n, m), lambda i, j: expression(draw, 3, i, j), "Y")]
    func, _ = te.create_prim_func("random", [A, AT, B, IDX, *outputs])
    fast = compile_prim_func(func)
    slow = compile_prim_func(func, vectorize=False)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    a = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    at = np.ascontiguousarray(a.T)
    b = rng.uniform(-2, 2, cols).astype(np.float32)
    idx = rng.integers(0, rows, rows)
    shape = (rows, cols)
    if broken == "index":
        idx[draw(st.integers(0, rows - 1))] = draw(st.sampled_from([-rows - 1, -1, rows, rows + 3]))
    elif broken == "AT rows":
        at = np.zeros((cols + 1, rows), np.float32)
    elif broken == "B length":
        b = np.zeros(cols + 1, np.float32)
    else:
        shape = (rows, cols + 1)
    got, fast_refused = _outcome(fast, [a, at, b, idx], shape)
    want, slow_refused = _outcome(slow, [a, at, b, idx], shape)
    assert fast_refused == slow_refused
    if broken != "index":
        assert fast_refused is not None and fast_refused.startswith("kernel @random: buffer #")
    if fast_refused is None:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)


def test_select_discards_a_condition_read_out_of_range():
    """A select whose condition reads out of range, inside the branch of a split select
    that no element takes: neither path reads it (the scalar path poisons it)."""
    inner = te.if_then_else(A[0, 0] < A[IDX[0], 0], A[0, 0], B[0])
    outputs = [te.compute((n, m), lambda i, j: te.if_then_else(i >= 1, inner, A[i, j]), "Y")]
    func, _ = te.create_prim_func("random", [A, AT, B, IDX, *outputs])
    a = np.arange(2, dtype=np.float32).reshape(1, 2)
    inputs = [a, np.ascontiguousarray(a.T), np.ones(2, np.float32), np.array([-2])]
    for kernel in (compile_prim_func(func), compile_prim_func(func, vectorize=False)):
        got, refused = _outcome(kernel, inputs, (1, 2))
        assert refused is None
        np.testing.assert_array_equal(got, a)
