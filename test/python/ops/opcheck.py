"""Shared helpers of the operator tests: parsing, symbolic shape generation, and the
check that a reference kernel agrees with the deduced result type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, DenseArrayBase, IntegerAttr, ModuleOp, i64
from xdsl.ir import Attribute

from xrelax.dialects import dtypes
from xrelax.dialects.dims import Sym
from xrelax.dialects.ir.diagnostics import LocatingParser, verify_module
from xrelax.dialects.relax import (
    ShapeType,
    TensorType,
    TupleType,
    show_type,
    type_relation,
)
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import Tir
from xrelax.ops.base import OperatorOp
from xrelax.ops.registry import relax_dialect

VARIABLES = ("n", "m", "k")


def make_context() -> Context:
    """A context with the builtin, sym, relax and tir dialects."""
    ctx = Context()
    for dialect in (Builtin, Sym, relax_dialect(), Tir):
        ctx.load_dialect(dialect)
    return ctx


CTX = make_context()


def parse(text: str) -> ModuleOp:
    """Parse and verify a module."""
    module = LocatingParser(CTX, text).parse_module()
    verify_module(module)
    return module


# ---------------------------------------------------------------------------- properties


def ints(*values: int) -> DenseArrayBase:
    """``array<i64: ...>``."""
    return DenseArrayBase.from_list(i64, list(values))


def int_attr(value: int) -> IntegerAttr:
    """``value : i64``."""
    return IntegerAttr(value, i64)


def bool_attr(value: bool) -> IntegerAttr:
    """``true`` / ``false``."""
    return IntegerAttr.from_bool(value)


# ---------------------------------------------------------------------------- symbolic shapes


@st.composite
def bindings(draw: st.DrawFn, low: int = 1, high: int = 4) -> dict[str, int]:
    """Values of the symbolic variables."""
    return {name: draw(st.integers(low, high)) for name in VARIABLES}


@st.composite
def expressions(draw: st.DrawFn, value: int, env: Mapping[str, int]) -> sympy.Expr:
    """A symbolic expression that evaluates to ``value`` under ``env``: the constant, a
    variable of that value, ``2 * v`` or ``v + c``. Two draws for one value may differ, so
    operands can agree at run time in ways deduction cannot prove."""
    options: list[sympy.Expr] = [sympy.Integer(value)]
    for name, bound in env.items():
        var = symbolic.sym(name)
        if bound == value:
            options.append(var)
        if 2 * bound == value:
            options.append(2 * var)
        if 0 < value - bound <= 2:
            options.append(var + (value - bound))
    return draw(st.sampled_from(options))


@st.composite
def dims_for(draw: st.DrawFn, shape: Sequence[int], env: Mapping[str, int]) -> tuple:
    """Symbolic dims evaluating to the concrete ``shape``."""
    return tuple(draw(expressions(v, env)) for v in shape)


def shapes(min_rank: int = 0, max_rank: int = 3, low: int = 1, high: int = 4) -> Any:
    """Concrete shapes."""
    return st.lists(st.integers(low, high), min_size=min_rank, max_size=max_rank).map(tuple)


# ---------------------------------------------------------------------------- cases


@dataclass
class Case:
    """One application of an operator: symbolic operand types, properties, and run-time
    inputs consistent with the types under ``env``."""

    op: type[OperatorOp]
    types: list[Attribute]
    props: dict[str, Attribute]
    inputs: list[Any]
    env: dict[str, int] = field(default_factory=dict)

    def __repr__(self) -> str:
        types = ", ".join(show_type(t) for t in self.types)
        shapes = [getattr(i, "shape", i) for i in self.inputs]
        return f"{self.op.name}({types}) {self.props} env={self.env} inputs={shapes}"


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
        return rng.random(shape) < 0.5
    if np.issubdtype(np_dtype, np.integer):
        return rng.integers(int(low), int(high), size=shape).astype(np_dtype)
    return rng.uniform(low, high, size=shape).astype(np_dtype)


def concrete_shape(dims: Sequence[sympy.Expr], env: Mapping[str, int]) -> tuple[int, ...]:
    """The dims evaluated under ``env``."""
    return tuple(symbolic.evaluate(d, env) for d in dims)


def assert_matches(type_: Attribute, value: Any, env: Mapping[str, int], where: str) -> None:
    """``value`` (a reference result) is a value of ``type_`` once ``env`` is substituted."""
    if isinstance(type_, TupleType):
        assert isinstance(value, tuple), f"{where}: expected a tuple, got {type(value)}"
        assert len(value) == len(type_.types), where
        for index, (element, item) in enumerate(zip(type_.types, value, strict=True)):
            assert_matches(element, item, env, f"{where}[{index}]")
        return
    assert isinstance(type_, TensorType), where
    assert isinstance(value, np.ndarray), f"{where}: expected an array, got {type(value)}"
    if type_.known_dtype is not None:
        expected = dtypes.numpy_dtype(type_.dtype)
        assert value.dtype == expected, f"{where}: dtype {value.dtype}, deduced {expected}"
    if type_.dims is not None:
        shape = concrete_shape(type_.dims, env)
        assert value.shape == shape, f"{where}: shape {value.shape}, deduced {shape}"
    elif type_.ndim is not None:
        assert value.ndim == type_.ndim, f"{where}: rank {value.ndim}, deduced {type_.ndim}"


def check_case(case: Case) -> Attribute:
    """Deduce the result type of ``case``, run the reference kernel, and check that the
    result has the deduced shape and dtype; returns the deduced type."""
    deduced = case.op.deduction(case.types, case.props).type
    value = case.op.reference(case.inputs, case.props)
    assert_matches(deduced, value, case.env, repr(case))
    return deduced


# ---------------------------------------------------------------------------- the safety net


def erase(type_: Attribute, how: str) -> Attribute:
    """``type_`` with less information: ``shape`` keeps the rank, ``rank`` drops it,
    ``dtype`` drops the element type."""
    if isinstance(type_, TensorType):
        if how == "shape":
            return TensorType.of(type_.ndim, type_.known_dtype)
        if how == "rank":
            return TensorType.of(None, type_.known_dtype)
        return TensorType.of(type_.shape, None)
    if isinstance(type_, ShapeType):
        return ShapeType.of(type_.ndim if how == "shape" else None)
    return type_


@st.composite
def erasures(draw: st.DrawFn, count: int) -> list[str | None]:
    """For each of ``count`` operands, how to erase its type (None: keep it)."""
    return draw(
        st.lists(st.sampled_from([None, "shape", "rank", "dtype"]), min_size=count, max_size=count)
    )


def check_safety_net(case: Case, deduced: Attribute, how: Sequence[str | None]) -> None:
    """With less specific operand types, deduction still succeeds and gives a type that
    every result of the specific deduction belongs to."""
    types = [t if h is None else erase(t, h) for t, h in zip(case.types, how, strict=True)]
    general = case.op.deduction(types, case.props).type
    assert type_relation(general, deduced) == "yes", (
        f"{case!r}: from {[show_type(t) for t in types]} deduced {show_type(general)}, "
        f"which does not contain {show_type(deduced)}"
    )
