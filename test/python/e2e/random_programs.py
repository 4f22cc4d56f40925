"""Random well-typed relax programs for differential testing (VM vs interpreter).

A program takes two or three tensors whose shapes use the symbolic variables ``n`` and
``m`` (and static sizes), and applies a random sequence of operators, part of them in a
dataflow region and part outside it, with an occasional pure packed call and a
``match_shape`` re-binding of a shape. The programs are built with the BlockBuilder,
so every intermediate type is deduced, and values are kept small so float32 results
compare tightly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from xrelax.dialects import dtypes
from xrelax.dialects.relax import RelaxError, TensorType
from xrelax.frontend.block_builder import BlockBuilder

UNARY = ("exp", "negative", "abs", "tanh", "sigmoid", "relu", "silu", "gelu")
BINARY = ("add", "subtract", "multiply", "maximum", "minimum")
DIMS = (("n", 4), ("n", "m"), (3, "m"), ("n",), ("m", 4))
LOOSE_DIMS = (*DIMS, ("k", 4), ("k", "m"), ("k",))
"""With ``k``, a variable nothing relates to ``n`` and ``m``: a loose program's
operators then rely on facts that only hold for some sizes (``k == m``)."""


@dataclass
class Program:
    """A module, its parameter shapes (symbolic), and a description for failures."""

    module: ModuleOp
    param_dims: list[tuple]
    text: str

    def __repr__(self) -> str:
        return f"Program(params={self.param_dims}, steps={self.text!r})"

    def inputs(self, rng: np.random.Generator, n: int, m: int, k: int = 1) -> list[np.ndarray]:
        """Random float32 inputs for ``n``, ``m`` and ``k``."""
        env = {"n": n, "m": m, "k": k}
        shapes = [tuple(env.get(d, d) for d in dims) for dims in self.param_dims]
        return [rng.uniform(-1, 1, size=s).astype(np.float32) for s in shapes]


def _dims_of(value: SSAValue) -> tuple:
    type_ = value.type
    assert isinstance(type_, TensorType) and type_.dims is not None
    return type_.dims


@st.composite
def programs(draw: st.DrawFn, loose: bool = False) -> Program:
    """A random relax program (see the module docstring); a ``loose`` one also uses the
    variable ``k`` and operators whose facts the compiler cannot prove (a matmul of
    ``[n, m]`` by ``[k, 4]``, a reshape of ``[n, m]`` to ``[k, 4]``, a max over ``m``)."""
    n_params = draw(st.integers(2, 3))
    param_dims = [draw(st.sampled_from(LOOSE_DIMS if loose else DIMS)) for _ in range(n_params)]
    bb = BlockBuilder()
    params = {f"p{i}": TensorType.of(list(d), dtypes.F32) for i, d in enumerate(param_dims)}
    steps: list[str] = []
    defined = {d for dims in param_dims for d in dims if isinstance(d, str)}
    with bb.function("main", params) as args:
        values = list(args)
        n_dataflow = draw(st.integers(1, 6))
        with bb.dataflow():
            for _ in range(n_dataflow):
                if loose and draw(st.booleans()):
                    values.append(_loose_step(draw, bb, values, steps, defined))
                else:
                    values.append(_step(draw, bb, values, steps))
            out = bb.emit_output(values[-1])
        values = [*args, out]
        for _ in range(draw(st.integers(0, 3))):
            values.append(_step(draw, bb, values, steps))
            if draw(st.booleans()):
                values.append(_outside_step(draw, bb, values[-1], steps))
        bb.emit_func_output(values[-1])
    return Program(bb.get(), param_dims, "; ".join(steps))


PACKED_COPY = "test.differential.copy"


def _outside_step(draw: st.DrawFn, bb: BlockBuilder, x: SSAValue, steps: list[str]) -> SSAValue:
    """A binding outside dataflow: a packed call or a match_shape binding new variables."""
    if draw(st.booleans()):
        steps.append("call_packed")
        result = bb.call_packed(PACKED_COPY, [x], x.type, pure=False)
        assert result is not None
        return result
    dims = _dims_of(x)
    names = [f"r{len(steps)}_{i}" for i in range(len(dims))]
    steps.append(f"match_shape {names}")
    return bb.match_shape(
        bb.call_packed(PACKED_COPY, [x], TensorType.of(len(dims), dtypes.F32), pure=True), names
    )


def _step(draw: st.DrawFn, bb: BlockBuilder, values: list[SSAValue], steps: list[str]) -> SSAValue:
    x = draw(st.sampled_from(values[-3:]))
    kind = draw(
        st.sampled_from(
            ("unary", "binary", "binary", "reduce", "softmax", "matmul", "permute", "reshape")
        )
    )
    dims = _dims_of(x)
    if kind == "unary":
        name = draw(st.sampled_from(UNARY))
        steps.append(f"{name}")
        return bb.emit_op(name, x)
    if kind == "binary":
        partners = [v for v in values if _dims_of(v) in (dims, dims[1:])] or [x]
        y = draw(st.sampled_from(partners))
        name = draw(st.sampled_from(BINARY))
        steps.append(f"{name}")
        return bb.emit_op(name, x, y)
    if kind == "reduce" and len(dims) >= 1:
        name = draw(st.sampled_from(("sum", "mean", "max")))
        axis = draw(st.integers(0, len(dims) - 1))
        keep = draw(st.booleans())
        steps.append(f"{name}(axis={axis}, keepdims={keep})")
        return bb.emit_op(name, x, axis=[axis], keepdims=keep)
    if kind == "softmax" and dims:
        steps.append("softmax")
        return bb.emit_op("softmax", x, axis=-1)
    if kind == "matmul" and len(dims) == 2:
        partners = [v for v in values if len(_dims_of(v)) == 2 and _dims_of(v)[0] == dims[1]]
        if partners:
            y = draw(st.sampled_from(partners))
            steps.append("matmul")
            return bb.emit_op("matmul", x, y)
    if kind == "permute" and len(dims) == 2:
        steps.append("permute_dims")
        return bb.emit_op("permute_dims", x, axes=[1, 0])
    if kind == "reshape" and len(dims) == 2:
        steps.append("flatten")
        return bb.emit_op("flatten", x)
    steps.append("exp")
    return bb.emit_op("exp", x)


def _loose_step(
    draw: st.DrawFn,
    bb: BlockBuilder,
    values: list[SSAValue],
    steps: list[str],
    defined: set[str],
) -> SSAValue:
    """An operator relying on a fact about the sizes that the types do not prove."""
    x = draw(st.sampled_from(values[-3:]))
    dims = _dims_of(x)
    kind = draw(st.sampled_from(("matmul", "reshape", "max")))
    if kind == "matmul" and len(dims) == 2:
        partners = [v for v in values if len(_dims_of(v)) == 2 and _dims_of(v)[0] != dims[1]]
        if partners:
            y = draw(st.sampled_from(partners))
            try:
                result = bb.emit_op("matmul", x, y)
            except RelaxError:  # provably different inner dimensions
                return bb.emit_op("exp", x)
            steps.append(f"matmul {dims} x {_dims_of(y)}")
            return result
    if kind == "reshape" and dims:
        targets = [("k", 4), ("m", "n"), ("k",), (-1, 2)]
        usable = [t for t in targets if {d for d in t if isinstance(d, str)} <= defined]
        target = draw(st.sampled_from(usable))
        try:
            result = bb.emit_op("reshape", x, bb.shape(list(target)))
        except RelaxError:  # provably the wrong element count
            return bb.emit_op("exp", x)
        steps.append(f"reshape {dims} to {target}")
        return result
    steps.append(f"max {dims}")
    return bb.emit_op("max", x, axis=[len(dims) - 1] if dims else None)
