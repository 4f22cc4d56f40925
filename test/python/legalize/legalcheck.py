"""Shared helpers of the legalization tests.

:func:`check` builds a one-operator relax function over symbolic shapes, runs
``relax-legalize-ops``, and checks that every operator became a ``call_tir`` of a kernel
that takes no scalar fallback, and that the reference interpreter gives the same numbers
for the legalized function (the kernel backend) and the original one (the operator's
numpy reference kernel).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

import xrelax
from xrelax.backends.kernels import Kernel, compile_prim_func
from xrelax.dialects import dtypes
from xrelax.dialects.relax import CallTIROp, PrimType, ShapeType, TensorType
from xrelax.dialects.shapes.symbolic import sym
from xrelax.dialects.tir import PrimFuncOp
from xrelax.frontend.block_builder import BlockBuilder
from xrelax.ops.base import OperatorOp

F32, F64, I1, I8, I32, I64 = dtypes.F32, dtypes.F64, dtypes.I1, dtypes.I8, dtypes.I32, dtypes.I64

SETTINGS = settings(
    max_examples=int(os.environ.get("XRELAX_LEGALIZE_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
"""Hypothesis settings of the per-operator tests: few examples keep the directory fast
(every example compiles fresh kernels); ``XRELAX_LEGALIZE_EXAMPLES=500`` runs more."""


class Symbols:
    """Draws symbolic dimensions for concrete sizes and records the variables' values."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.env: dict[str, int] = {}

    def dim(self, value: int) -> sympy.Expr:
        """``value`` as a constant, a variable, ``2 * v`` or ``v + 1`` (``v`` fresh); the
        last two are bound by no whole buffer dimension (sym arguments)."""
        kinds = ["const", "var"]
        kinds += ["double"] * (value % 2 == 0 and value > 0) + ["plus"] * (value >= 1)
        kind = self.draw(st.sampled_from(kinds))
        if kind == "const":
            return sympy.Integer(value)
        name = f"n{len(self.env)}"
        self.env[name] = {"var": value, "double": value // 2, "plus": value - 1}[kind]
        var = sym(name)
        return {"var": var, "double": 2 * var, "plus": var + 1}[kind]

    def dims(self, shape: Sequence[int]) -> list[sympy.Expr]:
        """Symbolic dims of a concrete shape."""
        return [self.dim(v) for v in shape]


def seeds() -> st.SearchStrategy[np.random.Generator]:
    """Random generators (hypothesis shrinks the seed)."""
    return st.integers(0, 2**32 - 1).map(np.random.default_rng)


def random_array(
    rng: np.random.Generator,
    shape: Sequence[int],
    dtype: Attribute,
    low: float = -3.0,
    high: float = 3.0,
) -> np.ndarray:
    """Random values of an element type in ``[low, high)``."""
    np_dtype = dtypes.numpy_dtype(dtype)
    if np_dtype == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    if np.issubdtype(np_dtype, np.integer):
        return rng.integers(int(low), int(high), size=shape).astype(np_dtype)
    return rng.uniform(low, high, size=shape).astype(np_dtype)


def tensor(dims: Sequence[Any], dtype: Attribute, value: np.ndarray) -> tuple[Attribute, Any]:
    """A tensor operand: its type and its run-time value."""
    return TensorType.of(list(dims), dtype), value


def shape(dims: Sequence[Any], value: Sequence[int]) -> tuple[Attribute, Any]:
    """A shape operand: its type and its run-time value."""
    return ShapeType.of(list(dims)), tuple(value)


def prim(expr: Any, value: int) -> tuple[Attribute, Any]:
    """A prim operand (an i64 symbolic integer): its type and its run-time value."""
    return PrimType.of(I64, expr), value


def build(
    op: type[OperatorOp],
    operands: Sequence[tuple[Attribute, Any]],
    props: dict[str, Any],
    env: dict[str, int],
) -> tuple[ModuleOp, list[Any]]:
    """``@main`` applying ``op`` to its parameters, and the arguments: a leading shape
    parameter binds every variable, so dims such as ``2 * n`` need no other binding."""
    params: list[tuple[str, Attribute]] = [(f"x{k}", t) for k, (t, _) in enumerate(operands)]
    args = [v for _, v in operands]
    if env:
        params.insert(0, ("vars", ShapeType.of([sym(name) for name in env])))
        args.insert(0, tuple(env.values()))
    bb = BlockBuilder()
    with bb.function("main", params) as values:
        bb.emit_func_output(bb.emit_op(op.name, *values[len(params) - len(operands) :], **props))
    return bb.get(), args


def kernels(module: ModuleOp) -> list[PrimFuncOp]:
    """The prim_funcs of a module."""
    return [op for op in module.ops if isinstance(op, PrimFuncOp)]


def assert_vectorized(kernel: Kernel) -> None:
    """No store of ``kernel`` took the scalar fallback."""
    scalar = [str(p) for p in kernel.paths if p.path == "scalar"]
    assert not scalar, f"scalar fallback in @{kernel.name}: {scalar}"


def assert_same(got: Any, expected: Any, rtol: float, atol: float) -> None:
    """Equal dtypes and shapes; exact integers, floats within the tolerance."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            assert_same(g, e, rtol, atol)
        return
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(got, expected)


def check(
    op: type[OperatorOp],
    operands: Sequence[tuple[Attribute, Any]],
    props: dict[str, Any] | None = None,
    env: dict[str, int] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> ModuleOp:
    """Legalize ``op`` applied to ``operands`` (types with symbolic dims and values under
    ``env``) and compare the kernel's result with the reference kernel's; returns the
    legalized module."""
    module, args = build(op, operands, props or {}, env or {})
    expected = xrelax.interpret(module, "main", *args)
    legalized = xrelax.apply(module.clone(), "relax-legalize-ops")
    text = xrelax.print_module(legalized)
    (func,) = [f for f in legalized.ops if not isinstance(f, PrimFuncOp)]
    calls = [o for o in func.walk() if isinstance(o, CallTIROp)]
    assert len(calls) == 1, text
    assert not any(isinstance(o, OperatorOp) for o in func.walk()), text
    for prim_func in kernels(legalized):
        assert_vectorized(compile_prim_func(prim_func))
    assert_same(xrelax.interpret(legalized, "main", *args), expected, rtol, atol)
    return legalized
