"""The audit's table: for every operator, the dtypes it accepts, its fixed cases (edge
values, empty tensors and axes, index dtypes, sizes that break its contract) and a
hypothesis strategy of random cases."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st
from oracle import FLOAT_TYPES, INT_TYPES, NUMPY_TYPES
from programs import Case, Prim, Shape

FLOATS = tuple(FLOAT_TYPES)
INTS = tuple(INT_TYPES)
NUMERIC = FLOATS + INTS
ALL = (*NUMERIC, "i1")
"""The element types numpy holds natively (``bf16`` computes in f32 and rounds once: see
``test_bf16_is_f32_rounded_once``)."""

INDEX_MATRIX_DTYPES = ("f32", "i1")
"""The dtypes of x the gathers refuse every index dtype's out-of-range indices on (the
check does not depend on x's dtype; every dtype gets negative indices of every type)."""

# ----------------------------------------------------------------------------- values


def np_type(dtype: str) -> np.dtype:
    """The numpy dtype of an element type name."""
    return np.dtype(NUMPY_TYPES[dtype])


def specials(dtype: str) -> np.ndarray:
    """The edge values of ``dtype``: zeros of both signs, infinities, NaN, the extremes,
    the smallest subnormal; integer minimum and maximum."""
    t = np_type(dtype)
    if dtype == "i1":
        return np.array([False, True])
    if t.kind == "i":
        info = np.iinfo(t)
        return np.array([0, 1, -1, 2, -3, 7, info.min, info.max, info.min + 1, info.max - 1], t)
    info = np.finfo(t)
    tiny = float(info.smallest_subnormal)
    values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, math.inf, -math.inf, math.nan]
    return np.array([*values, float(info.max), -float(info.max), tiny, 1e-3], t)


def finite_specials(dtype: str) -> np.ndarray:
    """:func:`specials` without infinities and NaN."""
    values = specials(dtype)
    return values[np.isfinite(values)] if values.dtype.kind == "f" else values


def edges(shape: Sequence[int], dtype: str) -> np.ndarray:
    """The edge values repeated to fill ``shape``."""
    return np.resize(specials(dtype), shape)


def ramp(shape: Sequence[int], dtype: str, nonzero: bool = False) -> np.ndarray:
    """Deterministic moderate values in [-5, 5] (floats: quarters), ``nonzero``: no 0."""
    k = np.arange(math.prod(shape))
    values = (k * 5 + 3) % 11 - 5
    if nonzero:
        values = np.where(values == 0, 3, values)
    if dtype == "i1":
        return (values % 3 == 0).reshape(shape)
    scale = 0.75 if np_type(dtype).kind == "f" else 1
    return (values * scale).astype(np_type(dtype)).reshape(shape)


def labels(size: int, dtype: str) -> np.ndarray:
    """``0, 1, ..., size - 1`` modulo 100 (exact in every type but i1): a gather shows
    which element it read."""
    values = np.arange(size) % 100
    return (values % 2 == 1) if dtype == "i1" else values.astype(np_type(dtype))


def array(values: Any, dtype: str) -> np.ndarray:
    """``values`` as an array of ``dtype`` (floats too large for it are infinite)."""
    with np.errstate(over="ignore"):
        return np.array(values).astype(np_type(dtype))


def scalar(value: Any, dtype: str) -> np.ndarray:
    """A 0-d array."""
    return np.array(value, np_type(dtype))


def extremes(dtype: str) -> tuple[int, int]:
    """The integer type's minimum and maximum."""
    info = np.iinfo(np_type(dtype))
    return int(info.min), int(info.max)


# ----------------------------------------------------------------------------- random values


@st.composite
def random_shape(
    draw: st.DrawFn, min_rank: int = 0, max_rank: int = 3, low: int = 0, high: int = 4
) -> tuple[int, ...]:
    """A small shape (a 0 now and then)."""
    rank = draw(st.integers(min_rank, max_rank))
    return tuple(draw(st.integers(low, high)) for _ in range(rank))


def random_values(
    rng: np.random.Generator, shape: Sequence[int], dtype: str, edges: bool = True
) -> np.ndarray:
    """Random values: moderate ones, with (``edges``) a fifth of the table's edge values."""
    size = math.prod(shape)
    if dtype == "i1":
        return (rng.random(size) < 0.5).reshape(shape)
    t = np_type(dtype)
    if t.kind == "i":
        values = rng.integers(-9, 10, size).astype(t)
    else:
        values = (rng.integers(-40, 41, size) / 8).astype(t)
    if edges and size:
        pool = specials(dtype)
        pick = rng.random(size) < 0.2
        values[pick] = rng.choice(pool, int(pick.sum()))
    return values.reshape(shape)


def seeds() -> st.SearchStrategy[np.random.Generator]:
    """Random generators (hypothesis shrinks the seed)."""
    return st.integers(0, 2**32 - 1).map(np.random.default_rng)


# ----------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class Spec:
    """How the audit covers one operator."""

    op: str
    dtypes: tuple[str, ...]
    cases: Callable[[str], list[Case]]
    """The fixed cases filed under a dtype."""
    random: Callable[[str], st.SearchStrategy[Case]]
    """Random cases of a dtype."""
    signature: Callable[[str], tuple[list[str], dict[str, Any]]]
    """Rank-only operand types and properties of an application to a dtype (to ask the
    operator which dtypes it accepts)."""


SPECS: dict[str, Spec] = {}


def rank_only(ndim: int, dtype: str) -> str:
    """``!relax.tensor<ndim=..., dtype>``."""
    return f"!relax.tensor<ndim={ndim}, {dtype}>"


def spec(
    op: str,
    dtypes: Sequence[str],
    cases: Callable[[str], list[Case]],
    random: Callable[[str], st.SearchStrategy[Case]],
    signature: Callable[[str], tuple[list[str], dict[str, Any]]],
) -> None:
    """Register the audit of ``op``."""
    SPECS[op] = Spec(op, tuple(dtypes), cases, random, signature)


def maker(op: str, dtype: str) -> Callable[..., Case]:
    """``make(name, *args, static=..., constant=..., ones=..., **props)``: a case of
    ``op`` (see :class:`Case` for the keywords)."""

    def make(
        name: str,
        *args: Any,
        static: bool = False,
        constant: tuple = (),
        ones: bool = False,
        **props: Any,
    ) -> Case:
        return Case(op, dtype, name, tuple(args), props, static, constant, ones)

    return make


# ----------------------------------------------------------------------------- elementwise

FLOAT_UNARY = (
    "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "gelu", "silu", "sin", "cos", "erf", "isnan",
)  # fmt: skip
NUMERIC_UNARY = ("relu", "negative", "abs")


def unary_cases(op: str) -> Callable[[str], list[Case]]:
    """Edge values, an empty tensor, a 0-d one, a grid, values near overflow."""

    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        found = [
            make("specials", specials(dtype)),
            make("empty", ramp((2, 0), dtype)),
            make("scalar", scalar(0.5 if dtype in FLOATS else 3, dtype)),
            make("grid", ramp((3, 5), dtype)),
        ]
        if dtype in FLOATS:
            large = [11.0, 12.0, 88.0, 89.0, 709.0, 710.0, -745.0, 1e4, -1e4, 3e38, 1e300]
            found.append(make("large", array(large, dtype)))
        return found

    return cases


def unary_random(op: str) -> Callable[[str], st.SearchStrategy[Case]]:
    """A random tensor."""

    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        x = random_values(draw(seeds()), draw(random_shape()), dtype)
        return maker(op, dtype)("random", x)

    return lambda dtype: draw_case(dtype)


for _name in FLOAT_UNARY + NUMERIC_UNARY:
    spec(
        f"relax.{_name}",
        FLOATS if _name in FLOAT_UNARY else NUMERIC,
        unary_cases(f"relax.{_name}"),
        unary_random(f"relax.{_name}"),
        lambda dtype: ([rank_only(2, dtype)], {}),
    )

ARITHMETIC = ("add", "subtract", "multiply", "divide", "power", "fmod")
COMPARE = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")
BINARY_DTYPES = {
    **dict.fromkeys(ARITHMETIC, NUMERIC),
    **dict.fromkeys(("maximum", "minimum"), ALL),
    **dict.fromkeys(COMPARE, ALL),
    **dict.fromkeys(BITWISE, (*INTS, "i1")),
}


def binary_cases(op: str) -> Callable[[str], list[Case]]:
    """Every pair of edge values (by broadcasting a column against a row), an empty
    broadcast, a 0-d operand, rank broadcasting, and shapes that do not broadcast."""

    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        values = specials(dtype)
        found = [
            make("pairs", values[:, None], values[None, :]),
            make("empty", ramp((0, 1), dtype), ramp((3,), dtype)),
            make("scalar", scalar(values[-1], dtype), ramp((2, 3), dtype, nonzero=True)),
            make("ranks", ramp((2, 1, 3), dtype), ramp((4, 1), dtype, nonzero=True)),
            make("mismatch", ramp((2, 3), dtype), ramp((4,), dtype), static=True),
        ]
        return found

    return cases


@st.composite
def broadcast_shapes(draw: st.DrawFn, count: int) -> list[tuple[int, ...]]:
    """``count`` shapes that broadcast together."""
    out = draw(random_shape())
    shapes = []
    for _ in range(count):
        rank = draw(st.integers(0, len(out)))
        dims = out[len(out) - rank :]
        shapes.append(tuple(1 if draw(st.booleans()) and d else d for d in dims))
    return shapes


def binary_random(op: str) -> Callable[[str], st.SearchStrategy[Case]]:
    """Two random tensors of broadcasting shapes."""

    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        rng = draw(seeds())
        a_shape, b_shape = draw(broadcast_shapes(2))
        a, b = random_values(rng, a_shape, dtype), random_values(rng, b_shape, dtype)
        return maker(op, dtype)("random", a, b)

    return lambda dtype: draw_case(dtype)


for _name, _dtypes in BINARY_DTYPES.items():
    spec(
        f"relax.{_name}",
        _dtypes,
        binary_cases(f"relax.{_name}"),
        binary_random(f"relax.{_name}"),
        lambda dtype: ([rank_only(2, dtype), rank_only(2, dtype)], {}),
    )


def _where_cases(dtype: str) -> list[Case]:
    make = maker("relax.where", dtype)
    values = specials(dtype)
    return [
        make("pairs", np.array([[True], [False]]), values[None, :], values[::-1][None, :]),
        make("scalar", np.array(True), ramp((3,), dtype), scalar(values[-1], dtype)),
        make("empty", np.ones((0, 1), bool), ramp((3,), dtype), ramp((1,), dtype)),
        make("mismatch", np.ones((2,), bool), ramp((3,), dtype), ramp((3,), dtype), static=True),
    ]


@st.composite
def _where_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    c, a, b = draw(broadcast_shapes(3))
    return maker("relax.where", dtype)(
        "random",
        random_values(rng, c, "i1"),
        random_values(rng, a, dtype),
        random_values(rng, b, dtype),
    )


spec(
    "relax.where",
    ALL,
    _where_cases,
    _where_random,
    lambda dtype: ([rank_only(1, "i1"), rank_only(1, dtype), rank_only(1, dtype)], {}),
)


def _astype_cases(dtype: str) -> list[Case]:
    make = maker("relax.astype", dtype)
    found = [make(f"to-{t}", specials(dtype), dtype=t) for t in ALL]
    found.append(make("empty", ramp((0, 2), dtype), dtype="f32"))
    if dtype in ("f32", "f64"):
        # around float16's largest finite value (65504) and where it rounds to inf
        found.append(
            make("f16-rounding", array([65504, 65519, 65520, 65536, -65520], dtype), dtype="f16")
        )
    found.append(make("scalar", scalar(specials(dtype)[-1], dtype), dtype="i8"))
    return found


@st.composite
def _astype_random(draw: st.DrawFn, dtype: str) -> Case:
    x = random_values(draw(seeds()), draw(random_shape()), dtype)
    target = draw(st.sampled_from(ALL))
    return maker("relax.astype", dtype)("random", x, dtype=target)


spec(
    "relax.astype",
    ALL,
    _astype_cases,
    _astype_random,
    lambda dtype: ([rank_only(1, dtype)], {"dtype": "f32"}),
)


# ----------------------------------------------------------------------------- matmul


def _matmul_cases(dtype: str) -> list[Case]:
    make = maker("relax.matmul", dtype)
    values = specials(dtype)
    found = [
        make("matrix", ramp((2, 3), dtype), ramp((3, 4), dtype)),
        make("vector-matrix", ramp((3,), dtype), ramp((3, 2), dtype)),
        make("matrix-vector", ramp((2, 3), dtype), ramp((3,), dtype)),
        make("vector-vector", ramp((3,), dtype), ramp((3,), dtype)),
        make("batch-broadcast", ramp((2, 1, 2, 3), dtype), ramp((3, 3, 2), dtype)),
        make("inner-empty", ramp((2, 0), dtype), ramp((0, 3), dtype)),
        make("rows-empty", ramp((0, 3), dtype), ramp((3, 2), dtype)),
        make("specials", np.diag(values), ramp((values.size, 3), dtype)),
        make("mismatch", ramp((2, 3), dtype), ramp((4, 2), dtype), static=True),
    ]
    if dtype in INTS:
        low, high = extremes(dtype)
        found.append(
            make("overflow", array([[high, high], [low, 3]], dtype), array([[2], [2]], dtype))
        )
    else:
        # float32 accumulation: 4096 ones sum to 4096 (float16: 2048), 6e4 + 6e4 - 6e4 is 6e4
        found.append(
            make("accumulate", ramp((1, 4096), dtype) * 0 + 1, ramp((4096, 1), dtype) * 0 + 1)
        )
        found.append(
            make("cancel", array([[60000, 60000, -60000]], dtype), array([[1], [1], [1]], dtype))
        )
    return found


@st.composite
def _matmul_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    n, k, m = draw(st.integers(0, 3)), draw(st.integers(0, 4)), draw(st.integers(0, 3))
    batch = draw(broadcast_shapes(2))
    lhs = (*batch[0][-2:], n, k) if draw(st.booleans()) else (k,)
    rhs = (*batch[1][-2:], k, m) if draw(st.booleans()) else (k,)
    a, b = random_values(rng, lhs, dtype), random_values(rng, rhs, dtype)
    return maker("relax.matmul", dtype)("random", a, b)


spec(
    "relax.matmul",
    NUMERIC,
    _matmul_cases,
    _matmul_random,
    lambda dtype: ([rank_only(2, dtype), rank_only(2, dtype)], {}),
)


# ----------------------------------------------------------------------------- reductions


def reduce_cases(op: str) -> Callable[[str], list[Case]]:
    """Edge values, axes, empty tensors and empty reduced axes, overflow, rounding."""

    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        found = [
            make("all", specials(dtype)),
            make("finite", finite_specials(dtype)),
            make("axis", ramp((3, 4), dtype), axis=[1]),
            make("keepdims", ramp((3, 4), dtype), axis=[0], keepdims=True),
            make("negative-axes", ramp((2, 3, 4), dtype), axis=[-1, 0]),
            make("all-keepdims", ramp((2, 3), dtype), keepdims=True),
            make("scalar", scalar(specials(dtype)[-1], dtype)),
            make("empty-all", ramp((0,), dtype)),
            make("empty-axis", ramp((2, 0), dtype), axis=[1]),
            make("empty-rows", ramp((0, 3), dtype), axis=[1]),
            make("axis-out-of-range", ramp((2, 3), dtype), axis=[2], static=True),
        ]
        if dtype in INTS:
            low, high = extremes(dtype)
            found += [
                make("overflow-max", array([high, high, high], dtype)),
                make("overflow-min", array([[low, low], [low, high]], dtype), axis=[1]),
                make("truncation", array([[-3, -4, -4], [3, 4, 4]], dtype), axis=[1]),
            ]
            if dtype == "i64":
                found.append(make("overflow-2e62", array([2**62, 2**62], dtype)))
        elif dtype in FLOATS:
            huge = float(np.finfo(np_type(dtype)).max) * 0.9 if dtype != "f16" else 60000.0
            found += [
                make("overflow", array([huge, huge], dtype)),
                make("accumulate", ramp((4096,), dtype) * 0 + 1),
            ]
        return found

    return cases


def reduce_random(op: str) -> Callable[[str], st.SearchStrategy[Case]]:
    """A random tensor reduced over random axes."""

    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        shape = draw(random_shape(1, 3))
        axes = draw(
            st.lists(st.integers(-len(shape), len(shape) - 1), unique_by=lambda a: a % len(shape))
        )
        props: dict[str, Any] = {"keepdims": draw(st.booleans())}
        if axes or draw(st.booleans()):
            props["axis"] = axes
        x = random_values(draw(seeds()), shape, dtype)
        return maker(op, dtype)("random", x, **props)

    return lambda dtype: draw_case(dtype)


for _name, _dtypes in (("sum", NUMERIC), ("mean", NUMERIC), ("max", ALL), ("min", ALL)):
    spec(
        f"relax.{_name}",
        _dtypes,
        reduce_cases(f"relax.{_name}"),
        reduce_random(f"relax.{_name}"),
        lambda dtype: ([rank_only(2, dtype)], {}),
    )


def _cumsum_cases(dtype: str) -> list[Case]:
    make = maker("relax.cumsum", dtype)
    found = [
        make("flat", ramp((2, 3), dtype)),
        make("axis", ramp((2, 3), dtype), axis=1),
        make("negative-axis", ramp((2, 3), dtype), axis=-2),
        make("exclusive", ramp((2, 3), dtype), axis=1, exclusive=True),
        make("specials", specials(dtype), axis=0),
        make("empty-rows", ramp((0, 3), dtype), axis=1),
        make("empty-axis", ramp((2, 0), dtype), axis=1),
        make("scalar", scalar(specials(dtype)[-1], dtype)),
        make("to-f64", ramp((5,), dtype), axis=0, dtype="f64"),
        make(
            "to-i32",
            finite_specials(dtype) if dtype not in FLOATS else ramp((5,), dtype),
            axis=0,
            dtype="i32",
        ),
        make("to-i1", ramp((2, 5), dtype), axis=1, dtype="i1"),
    ]
    if dtype in INTS:
        low, high = extremes(dtype)
        found.append(make("overflow", array([high, high, low, 1], dtype), axis=0))
    if dtype in FLOATS:
        found.append(make("accumulate", ramp((4096,), dtype) * 0 + 1, axis=0))
    return found


@st.composite
def _cumsum_random(draw: st.DrawFn, dtype: str) -> Case:
    shape = draw(random_shape(1, 3))
    props: dict[str, Any] = {"exclusive": draw(st.booleans())}
    if draw(st.booleans()):
        props["axis"] = draw(st.integers(-len(shape), len(shape) - 1))
    if draw(st.booleans()):
        props["dtype"] = draw(st.sampled_from(ALL))
    # finite values: a float converted to an integer type out of its range is undefined
    x = random_values(draw(seeds()), shape, dtype, edges=dtype not in FLOATS)
    return maker("relax.cumsum", dtype)("random", x, **props)


spec("relax.cumsum", ALL, _cumsum_cases, _cumsum_random, lambda dtype: ([rank_only(2, dtype)], {}))


# ----------------------------------------------------------------------------- nn


def softmax_cases(op: str) -> Callable[[str], list[Case]]:
    """Rows with infinities and NaN, large values, empty axes, float32 accumulation."""

    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        inf, nan = math.inf, math.nan
        rows = [[0, -inf], [-inf, -inf], [inf, 0], [nan, 0], [1000, 1000], [1e4, 0], [-0.0, 0.0]]
        return [
            make("rows", ramp((2, 5), dtype)),
            make("axis0", ramp((3, 2), dtype), axis=0),
            make("specials", array(rows, dtype), axis=-1),
            make("empty-axis", ramp((2, 0), dtype)),
            make("empty-rows", ramp((0, 3), dtype)),
            make("scalar-axis", ramp((3, 1), dtype), axis=1),
            make("axis-out-of-range", ramp((3, 1), dtype), axis=-3, static=True),
            make("accumulate", ramp((1, 4096), dtype) * 0),
        ]

    return cases


def softmax_random(op: str) -> Callable[[str], st.SearchStrategy[Case]]:
    """A random tensor along a random axis."""

    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        shape = draw(random_shape(1, 3))
        x = random_values(draw(seeds()), shape, dtype)
        return maker(op, dtype)("random", x, axis=draw(st.integers(-len(shape), len(shape) - 1)))

    return lambda dtype: draw_case(dtype)


for _name in ("softmax", "log_softmax"):
    spec(
        f"relax.{_name}",
        FLOATS,
        softmax_cases(f"relax.{_name}"),
        softmax_random(f"relax.{_name}"),
        lambda dtype: ([rank_only(2, dtype)], {}),
    )


def _layer_norm_cases(dtype: str) -> list[Case]:
    make = maker("relax.layer_norm", dtype)
    inf, nan = math.inf, math.nan
    one, zero = array([1, 1], dtype), array([0, 0], dtype)
    spread = np.concatenate([np.ones(4095), [0.0]])
    return [
        make("rows", ramp((2, 3), dtype), ramp((3,), dtype), ramp((3,), dtype), axes=[1]),
        make(
            "two-axes",
            ramp((2, 3, 4), dtype),
            ramp((3, 4), dtype),
            ramp((3, 4), dtype),
            axes=[1, 2],
        ),
        make(
            "reordered-axes",
            ramp((2, 3, 4), dtype),
            ramp((4, 3), dtype),
            ramp((4, 3), dtype),
            axes=[2, 1],
        ),
        make("negative-axes", ramp((2, 3), dtype), ramp((3,), dtype), ramp((3,), dtype), axes=[-1]),
        make("spread", array([[0, 600]], dtype), one, zero, axes=[1]),
        make("constant", array([[5, 5]], dtype), one, array([2, -1], dtype), axes=[1]),
        make("epsilon-zero", array([[5, 5]], dtype), one, zero, axes=[1], epsilon=0.0),
        make(
            "specials",
            array([[nan, 1], [inf, 1], [-inf, -inf], [1, 2]], dtype),
            one,
            zero,
            axes=[1],
        ),
        make("empty-rows", ramp((0, 3), dtype), ramp((3,), dtype), ramp((3,), dtype), axes=[1]),
        make("empty-axis", ramp((2, 0), dtype), ramp((0,), dtype), ramp((0,), dtype), axes=[1]),
        make(
            "accumulate",
            array(spread[None, :], dtype),
            array(np.ones(4096), dtype),
            array(np.zeros(4096), dtype),
            axes=[1],
        ),
        make(
            "mismatch",
            ramp((2, 3), dtype),
            ramp((4,), dtype),
            ramp((4,), dtype),
            axes=[1],
            static=True,
        ),
    ]


@st.composite
def _layer_norm_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    shape = draw(random_shape(1, 3, 1))
    axes = draw(st.permutations(range(len(shape))).map(lambda p: p[: max(1, len(p) // 2 + 1)]))
    params = tuple(shape[a] for a in axes)
    x = random_values(rng, shape, dtype, edges=False)
    gamma, beta = (
        random_values(rng, params, dtype, edges=False),
        random_values(rng, params, dtype, edges=False),
    )
    return maker("relax.layer_norm", dtype)("random", x, gamma, beta, axes=list(axes))


spec(
    "relax.layer_norm",
    FLOATS,
    _layer_norm_cases,
    _layer_norm_random,
    lambda dtype: ([rank_only(2, dtype), rank_only(1, dtype), rank_only(1, dtype)], {"axes": [1]}),
)


def conv_cases(op: str, spatial: int) -> Callable[[str], list[Case]]:
    """Strides, padding, dilation, groups, windows that do not fit, empty batches,
    edge values, integer wrapping and float32 accumulation."""

    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        image = (5,) * spatial
        kernel = (3,) * spatial
        values = specials(dtype)
        found = [
            make("basic", ramp((1, 2, *image), dtype), ramp((3, 2, *kernel), dtype)),
            make(
                "strided",
                ramp((2, 2, *(7,) * spatial), dtype),
                ramp((2, 2, *kernel), dtype),
                strides=[2],
                padding=[1],
                dilation=[2],
            ),
            make(
                "asymmetric-padding",
                ramp((1, 1, *image), dtype),
                ramp((1, 1, *kernel), dtype),
                padding=[0] * spatial + [2] * spatial,
            ),
            make("groups", ramp((1, 4, *image), dtype), ramp((4, 2, *kernel), dtype), groups=2),
            make(
                "window-too-large",
                ramp((1, 1, *(2,) * spatial), dtype),
                ramp((1, 1, *kernel), dtype),
            ),
            make(
                "padding-fits",
                ramp((1, 1, *(2,) * spatial), dtype),
                ramp((1, 1, *kernel), dtype),
                padding=[1],
            ),
            make("empty-batch", ramp((0, 2, *image), dtype), ramp((3, 2, *kernel), dtype)),
            make(
                "empty-padded-groups",
                ramp((1, 2, *(0,) * spatial), dtype),
                ramp((2, 1, *(1,) * spatial), dtype),
                padding=[0] * spatial + [1] * spatial,
                groups=2,
            ),
            make(
                "specials",
                values.reshape(1, 1, *(1,) * (spatial - 1), -1),
                ramp((1, 1, *(1,) * spatial), dtype) * 0 + 1,
            ),
            make(
                "channels-mismatch",
                ramp((1, 3, *image), dtype),
                ramp((2, 2, *kernel), dtype),
                static=True,
            ),
        ]
        if spatial == 2:
            found.append(
                make(
                    "depthwise-banded",
                    ramp((1, 2, 6, 6), dtype),
                    ramp((2, 1, 5, 5), dtype),
                    groups=2,
                    padding=[2],
                    static=True,
                )
            )
        if dtype in INTS:
            low, high = extremes(dtype)
            found.append(
                make(
                    "overflow",
                    array([high, high, low], dtype).reshape(1, 1, *(1,) * (spatial - 1), 3),
                    array([2, 2], dtype).reshape(1, 1, *(1,) * (spatial - 1), 2),
                )
            )
        else:
            width = (64, 64) if spatial == 2 else (4096,)
            ones = ramp((1, 1, *width), dtype) * 0 + 1
            found.append(make("accumulate", ones, ones, static=True))
        return found

    return cases


def conv_random(op: str, spatial: int) -> Callable[[str], st.SearchStrategy[Case]]:
    """A random convolution whose window fits."""

    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        rng = draw(seeds())
        groups = draw(st.integers(1, 2))
        channels = groups * draw(st.integers(1, 2))
        out = groups * draw(st.integers(1, 2))
        kernel = [draw(st.integers(1, 3)) for _ in range(spatial)]
        dilation = [draw(st.integers(1, 2)) for _ in range(spatial)]
        padding = [draw(st.integers(0, 2)) for _ in range(2 * spatial)]
        sizes = [
            draw(
                st.integers(
                    max(0, dilation[a] * (kernel[a] - 1) + 1 - padding[a] - padding[spatial + a]), 6
                )
            )
            for a in range(spatial)
        ]
        x = random_values(rng, (draw(st.integers(0, 2)), channels, *sizes), dtype)
        w = random_values(rng, (out, channels // groups, *kernel), dtype)
        props = {
            "strides": [draw(st.integers(1, 3)) for _ in range(spatial)],
            "padding": padding,
            "dilation": dilation,
            "groups": groups,
        }
        return maker(op, dtype)("random", x, w, **props)

    return lambda dtype: draw_case(dtype)


for _name, _spatial in (("conv1d", 1), ("conv2d", 2)):
    spec(
        f"relax.{_name}",
        NUMERIC,
        conv_cases(f"relax.{_name}", _spatial),
        conv_random(f"relax.{_name}", _spatial),
        lambda dtype, s=_spatial: ([rank_only(s + 2, dtype), rank_only(s + 2, dtype)], {}),
    )


def pool_cases(op: str) -> Callable[[str], list[Case]]:
    """Windows with strides and padding, windows that do not fit, edge values,
    integer truncation and overflow."""

    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        values = specials(dtype)
        found = [
            make("basic", ramp((1, 2, 4, 4), dtype), pool_size=[2, 2], strides=[2, 2]),
            make(
                "padded",
                ramp((1, 1, 5, 5), dtype),
                pool_size=[3, 3],
                strides=[2, 2],
                padding=[1, 1],
            ),
            make("window-too-large", ramp((1, 1, 2, 2), dtype), pool_size=[3, 3]),
            # static sizes: a kernel of constants (symbolic windows legalize slowly)
            make("overlap", ramp((1, 1, 4, 5), dtype), pool_size=[3, 3], static=True),
            make(
                "asymmetric",
                ramp((1, 1, 4, 4), dtype),
                pool_size=[2, 3],
                padding=[0, 1, 1, 0],
                static=True,
            ),
            make("empty-batch", ramp((0, 1, 4, 4), dtype), pool_size=[2, 2], static=True),
            make("specials", values.reshape(1, 1, 1, -1), pool_size=[1, 2], static=True),
            make(
                "specials-padded",
                values.reshape(1, 1, 1, -1),
                pool_size=[1, 3],
                padding=[0, 1],
                static=True,
            ),
            make(
                "window-too-large-static", ramp((1, 1, 2, 2), dtype), pool_size=[3, 3], static=True
            ),
            make(
                "padding-only-window",
                ramp((1, 1, 1, 1), dtype),
                pool_size=[1, 2],
                padding=[0, 2, 0, 0],
            ),
            make("empty-padded", ramp((1, 1, 0, 2), dtype), pool_size=[1, 1], padding=[1, 0]),
        ]
        if dtype in INTS:
            low, high = extremes(dtype)
            found += [
                make(
                    "truncation",
                    array([[[[-3, -4, 3, 4]]]], dtype),
                    pool_size=[1, 2],
                    strides=[1, 2],
                    static=True,
                ),
                make(
                    "overflow",
                    array([[[[high, high, low, low]]]], dtype),
                    pool_size=[1, 2],
                    strides=[1, 2],
                    static=True,
                ),
            ]
        else:
            found.append(
                make("overflow", array([[[[60000, 60000]]]], dtype), pool_size=[1, 2], static=True)
            )
        return found

    return cases


def pool_random(op: str) -> Callable[[str], st.SearchStrategy[Case]]:
    """A random pooling (a non-empty input, padding at most half the window: no window of
    padding only)."""

    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        pool = [draw(st.integers(1, 3)) for _ in range(2)]
        padding = [draw(st.integers(0, p // 2)) for p in pool * 2]
        sizes = [
            draw(st.integers(max(1, pool[a] - padding[a] - padding[a + 2]), 6)) for a in range(2)
        ]
        shape = (draw(st.integers(0, 2)), draw(st.integers(1, 2)), *sizes)
        x = random_values(draw(seeds()), shape, dtype)
        strides = [draw(st.integers(1, 3)) for _ in range(2)]
        return maker(op, dtype)("random", x, pool_size=pool, strides=strides, padding=padding)

    return lambda dtype: draw_case(dtype)


for _name in ("max_pool2d", "avg_pool2d"):
    spec(
        f"relax.{_name}",
        NUMERIC,
        pool_cases(f"relax.{_name}"),
        pool_random(f"relax.{_name}"),
        lambda dtype: ([rank_only(4, dtype)], {"pool_size": [2, 2]}),
    )


# ----------------------------------------------------------------------------- manipulation


def one_tensor_spec(
    op: str,
    cases: Callable[[Callable[..., Case], str], list[Case]],
    random_props: Callable[[st.DrawFn, tuple[int, ...]], dict[str, Any]],
    min_rank: int = 0,
    probe: dict[str, Any] | None = None,
) -> None:
    """Register an operator of one tensor on every dtype: ``cases(make, dtype)`` gives
    its fixed cases, ``random_props(draw, shape)`` the properties of a random one."""

    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        shape = draw(random_shape(min_rank))
        x = random_values(draw(seeds()), shape, dtype)
        return maker(op, dtype)("random", x, **random_props(draw, shape))

    spec(
        op,
        ALL,
        lambda dtype: cases(maker(op, dtype), dtype),
        lambda dtype: draw_case(dtype),
        lambda dtype: ([rank_only(max(min_rank, 2), dtype)], probe or {}),
    )


def _shape_random(
    op: str, target: Callable[[st.DrawFn, tuple[int, ...]], tuple[int, ...]]
) -> Callable[[str], st.SearchStrategy[Case]]:
    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        shape = draw(random_shape())
        x = random_values(draw(seeds()), shape, dtype)
        return maker(op, dtype)("random", x, Shape(target(draw, shape)))

    return lambda dtype: draw_case(dtype)


def _reshape_cases(dtype: str) -> list[Case]:
    make = maker("relax.reshape", dtype)
    return [
        make("split-axis", ramp((6,), dtype), Shape((2, 3))),
        make("merge", ramp((2, 3), dtype), Shape((6,))),
        make("infer", ramp((2, 3), dtype), Shape((-1, 2), literal=True)),
        make("infer-empty", ramp((0, 3), dtype), Shape((-1, 3), literal=True)),
        make("infer-zero", ramp((0, 3), dtype), Shape((-1, 0), literal=True)),
        make("infer-indivisible", ramp((5,), dtype), Shape((-1, 2), literal=True)),
        make("count-mismatch", ramp((6,), dtype), Shape((4, 2))),
        make("zero-count", ramp((0, 3), dtype), Shape((5, 0))),
        make("to-scalar", ramp((1,), dtype), Shape(())),
        make("from-scalar", scalar(specials(dtype)[-1], dtype), Shape((1, 1))),
        make("specials", specials(dtype), Shape((specials(dtype).size // 2, 2))),
    ]


def _reshape_target(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    size = math.prod(shape)
    first = draw(st.sampled_from([d for d in range(1, size + 1) if size % d == 0] or [0]))
    return (first, size // first) if first else (0, draw(st.integers(0, 3)))


spec(
    "relax.reshape",
    ALL,
    _reshape_cases,
    _shape_random("relax.reshape", _reshape_target),
    lambda dtype: ([rank_only(2, dtype), "!relax.shape<ndim=1>"], {}),
)

one_tensor_spec(
    "relax.flatten",
    lambda make, dtype: [
        make("matrix", ramp((2, 3), dtype)),
        make("scalar", scalar(specials(dtype)[-1], dtype)),
        make("empty", ramp((2, 0, 3), dtype)),
        make("specials", specials(dtype)),
    ],
    lambda draw, shape: {},
)


def _permutation(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    if draw(st.booleans()):
        return {}
    axes = draw(st.permutations(range(len(shape))))
    return {"axes": [a - len(shape) if draw(st.booleans()) else a for a in axes]}


one_tensor_spec(
    "relax.permute_dims",
    lambda make, dtype: [
        make("reverse", ramp((2, 3, 4), dtype)),
        make("axes", ramp((2, 3, 4), dtype), axes=[1, 0, 2]),
        make("negative-axes", ramp((2, 3, 4), dtype), axes=[-1, 0, 1]),
        make("empty", ramp((0, 2), dtype)),
        make("scalar", scalar(specials(dtype)[-1], dtype)),
        make("repeated-axis", ramp((2, 3), dtype), axes=[0, 0], static=True),
    ],
    _permutation,
)


def _inserted(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    rank = len(shape) + draw(st.integers(1, 2))
    axes = draw(
        st.lists(
            st.integers(-rank, rank - 1),
            min_size=rank - len(shape),
            max_size=rank - len(shape),
            unique_by=lambda a: a % rank,
        )
    )
    return {"axis": axes}


one_tensor_spec(
    "relax.expand_dims",
    lambda make, dtype: [
        make("front", ramp((2, 3), dtype), axis=[0]),
        make("back", ramp((2, 3), dtype), axis=[-1]),
        make("several", ramp((2, 3), dtype), axis=[0, 2]),
        make("scalar", scalar(specials(dtype)[-1], dtype), axis=[0]),
        make("empty", ramp((0,), dtype), axis=[1]),
        make("out-of-range", ramp((2,), dtype), axis=[3], static=True),
    ],
    _inserted,
    probe={"axis": [0]},
)


def _squeezed(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    ones = [a for a, d in enumerate(shape) if d == 1]
    return {"axis": draw(st.lists(st.sampled_from(ones), unique=True))} if ones else {"axis": []}


one_tensor_spec(
    "relax.squeeze",
    lambda make, dtype: [
        make("axis", ramp((2, 1, 3), dtype), axis=[1]),
        make("negative-axis", ramp((2, 1, 3), dtype), axis=[-2]),
        make("all", ramp((1, 3, 1), dtype), static=True),
        make("not-one", ramp((2, 3), dtype), axis=[1]),
        make("empty", ramp((0, 1), dtype), axis=[1]),
        make("scalar-result", ramp((1,), dtype), axis=[0]),
    ],
    _squeezed,
    probe={"axis": [1]},
)


def _concat_cases(dtype: str) -> list[Case]:
    make = maker("relax.concat", dtype)
    return [
        make("two", ramp((2, 3), dtype), ramp((1, 3), dtype)),
        make("three", ramp((2, 1), dtype), ramp((2, 2), dtype), ramp((2, 3), dtype), axis=1),
        make("negative-axis", ramp((2, 3), dtype), edges((1, 3), dtype), axis=-2),
        make("empty-piece", ramp((0, 3), dtype), ramp((2, 3), dtype)),
        make("all-empty", ramp((0, 3), dtype), ramp((0, 3), dtype)),
        make("one", specials(dtype)),
        make("mismatch", ramp((2, 3), dtype), ramp((2, 4), dtype), static=True),
        make("axis-out-of-range", ramp((2, 3), dtype), ramp((2, 3), dtype), axis=2, static=True),
    ]


@st.composite
def _concat_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    shape = draw(random_shape(1, 3))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    pieces = []
    for _ in range(draw(st.integers(1, 3))):
        piece = list(shape)
        piece[axis] = draw(st.integers(0, 3))
        pieces.append(random_values(rng, piece, dtype))
    return maker("relax.concat", dtype)("random", *pieces, axis=axis)


spec(
    "relax.concat",
    ALL,
    _concat_cases,
    _concat_random,
    lambda dtype: ([rank_only(2, dtype), rank_only(2, dtype)], {}),
)


def _split_random(draw: st.DrawFn, shape: tuple[int, ...]) -> dict[str, Any]:
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[axis]
    if draw(st.booleans()):
        return {
            "axis": axis,
            "indices_or_sections": draw(st.sampled_from([d for d in range(1, 5) if size % d == 0])),
        }
    points = draw(st.lists(st.integers(-size - 1, size + 1), min_size=1, max_size=3))
    return {"axis": axis, "indices_or_sections": points}


one_tensor_spec(
    "relax.split",
    lambda make, dtype: [
        make("sections", ramp((6,), dtype), indices_or_sections=3),
        make("indices", ramp((2, 5), dtype), indices_or_sections=[1, 3], axis=1),
        make("clamped", ramp((5,), dtype), indices_or_sections=[2, 10]),
        make("unsorted", ramp((5,), dtype), indices_or_sections=[3, 1]),
        make("negative", ramp((5,), dtype), indices_or_sections=[-2]),
        make("indivisible", ramp((7,), dtype), indices_or_sections=3),
        make("zero-sections", ramp((4,), dtype), indices_or_sections=0, static=True),
        make("empty", ramp((0,), dtype), indices_or_sections=2),
        make("one", specials(dtype), indices_or_sections=1),
    ],
    _split_random,
    min_rank=1,
    probe={"indices_or_sections": 2},
)

_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


def _strided_slice_cases(dtype: str) -> list[Case]:
    make = maker("relax.strided_slice", dtype)
    x = ramp((5, 4), dtype)
    return [
        make("basic", x, axes=[0], begin=[1], end=[4]),
        make("strided", x, axes=[0, 1], begin=[0, 3], end=[5, 0], strides=[2, -1]),
        make("negative-bounds", x, axes=[0], begin=[-3], end=[-1]),
        make("clamped", x, axes=[1], begin=[-100], end=[100]),
        make("empty", x, axes=[0], begin=[3], end=[1]),
        make("limits", x, axes=[0], begin=[_I64_MIN], end=[_I64_MAX]),
        make("reversed-limits", x, axes=[1], begin=[_I64_MAX], end=[_I64_MIN], strides=[-1]),
        make("negative-stride-clamped", x, axes=[0], begin=[100], end=[-100], strides=[-2]),
        make("prim-bounds", x, Prim(1), Prim(3), axes=[0]),
        make("prim-negative", x, Prim(-3), Prim(5), axes=[1]),
        make("prim-clamped", x, Prim(2), Prim(100), axes=[0]),
        make("prim-empty", x, Prim(4), Prim(1), axes=[0]),
        make("empty-x", ramp((0, 4), dtype), axes=[0], begin=[1], end=[3]),
        make("specials", specials(dtype), axes=[0], begin=[-1], end=[-100], strides=[-3]),
        make("zero-stride", x, axes=[0], begin=[0], end=[2], strides=[0], static=True),
        make("huge-stride", x, axes=[0], begin=[1], end=[5], strides=[_I64_MAX]),
        make(
            "huge-negative-stride", x, axes=[0], begin=[-1], end=[_I64_MIN], strides=[_I64_MIN + 1]
        ),
    ]


@st.composite
def _strided_slice_random(draw: st.DrawFn, dtype: str) -> Case:
    shape = draw(random_shape(1, 3))
    axes = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True))
    begin = [draw(st.integers(-6, 6)) for _ in axes]
    end = [draw(st.integers(-6, 6)) for _ in axes]
    strides = [draw(st.sampled_from([-3, -2, -1, 1, 2, 3])) for _ in axes]
    x = random_values(draw(seeds()), shape, dtype)
    return maker("relax.strided_slice", dtype)(
        "random", x, axes=axes, begin=begin, end=end, strides=strides
    )


spec(
    "relax.strided_slice",
    ALL,
    _strided_slice_cases,
    _strided_slice_random,
    lambda dtype: ([rank_only(2, dtype)], {"axes": [0], "begin": [0], "end": [1]}),
)


def _broadcast_to_cases(dtype: str) -> list[Case]:
    make = maker("relax.broadcast_to", dtype)
    return [
        make("rows", specials(dtype), Shape((2, specials(dtype).size))),
        make("ones", ramp((2, 1), dtype), Shape((2, 3))),
        make("scalar", scalar(specials(dtype)[-1], dtype), Shape((2, 2))),
        make("to-empty", ramp((1, 3), dtype), Shape((0, 3))),
        # a dimension that is 1 only at run time (numpy broadcasts it)
        make("runtime-one", ramp((1,), dtype), Shape((3,)), ones=True),
        make("same", ramp((2, 3), dtype), Shape((2, 3))),
        make("incompatible", ramp((3,), dtype), Shape((4,))),
        make("lower-rank", ramp((2, 3), dtype), Shape((3,)), static=True),
    ]


def _broadcast_target(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    lead = tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2))))
    return lead + tuple(draw(st.integers(0, 3)) if d == 1 else d for d in shape)


spec(
    "relax.broadcast_to",
    ALL,
    _broadcast_to_cases,
    _shape_random("relax.broadcast_to", _broadcast_target),
    lambda dtype: ([rank_only(2, dtype), "!relax.shape<ndim=2>"], {}),
)


def _pad_cases(dtype: str) -> list[Case]:
    make = maker("relax.pad", dtype)
    fill = scalar(specials(dtype)[-1], dtype)
    return [
        make("basic", ramp((2, 3), dtype), fill, pad_width=[1, 0, 2, 1]),
        make("zero", ramp((2, 3), dtype), fill, pad_width=[0, 0, 0, 0]),
        make("empty-x", ramp((0, 2), dtype), fill, pad_width=[1, 1, 0, 1]),
        make("scalar", scalar(specials(dtype)[1], dtype), fill, pad_width=[]),
        make("specials", specials(dtype), scalar(specials(dtype)[0], dtype), pad_width=[2, 1]),
        make("wrong-widths", ramp((2, 3), dtype), fill, pad_width=[1, 1], static=True),
        make("negative-widths", ramp((2, 3), dtype), fill, pad_width=[0, -1, 0, 0], static=True),
    ]


@st.composite
def _pad_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    shape = draw(random_shape())
    widths = [draw(st.integers(0, 2)) for _ in range(2 * len(shape))]
    x, fill = random_values(rng, shape, dtype), random_values(rng, (), dtype)
    return maker("relax.pad", dtype)("random", x, fill, pad_width=widths)


spec(
    "relax.pad",
    ALL,
    _pad_cases,
    _pad_random,
    lambda dtype: ([rank_only(1, dtype), rank_only(0, dtype)], {"pad_width": [1, 1]}),
)


def _slice_scatter_cases(dtype: str) -> list[Case]:
    make = maker("relax.slice_scatter", dtype)
    x = ramp((4, 3), dtype)
    src = edges((2, 3), dtype)
    return [
        make("basic", x, src, axis=0, begin=1, end=3),
        make("step", ramp((5, 3), dtype), edges((3, 3), dtype), axis=0, step=2),
        make("negative-begin", x, src, axis=0, begin=-2),
        make("axis1", x, edges((4, 2), dtype), axis=1, begin=0, end=2),
        make("empty-slice", x, ramp((0, 3), dtype), axis=0, begin=2, end=2),
        make("clamped", x, src, axis=0, begin=2, end=100),
        make("mismatch", x, ramp((3, 3), dtype), axis=0, begin=1, end=3),
    ]


@st.composite
def _slice_scatter_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    shape = draw(random_shape(1, 3))
    axis = draw(st.integers(0, len(shape) - 1))
    begin, end, step = draw(st.integers(-5, 5)), draw(st.integers(-5, 5)), draw(st.integers(1, 3))
    length = len(range(*slice(begin, end, step).indices(shape[axis])))
    src_shape = list(shape)
    src_shape[axis] = length
    x, src = random_values(rng, shape, dtype), random_values(rng, src_shape, dtype)
    return maker("relax.slice_scatter", dtype)(
        "random", x, src, axis=axis, begin=begin, end=end, step=step
    )


spec(
    "relax.slice_scatter",
    ALL,
    _slice_scatter_cases,
    _slice_scatter_random,
    lambda dtype: ([rank_only(2, dtype), rank_only(2, dtype)], {"axis": 0}),
)


def triangle_cases(make: Callable[..., Case], dtype: str) -> list[Case]:
    """Diagonals in and beyond the matrix, batches, empty and non-square matrices."""
    return [
        make("square", ramp((3, 3), dtype)),
        make("above", ramp((3, 3), dtype), k=1),
        make("below", ramp((3, 3), dtype), k=-1),
        make("wide", ramp((2, 4), dtype)),
        make("tall", ramp((4, 2), dtype), k=1),
        make("batched", ramp((2, 3, 3), dtype)),
        make("beyond", ramp((3, 3), dtype), k=5),
        make("before", ramp((3, 3), dtype), k=-5),
        make("k-maximum", ramp((3, 3), dtype), k=2**63 - 1),
        make("k-minimum", ramp((3, 3), dtype), k=-(2**63)),
        make("empty", ramp((0, 3), dtype)),
        make("specials", edges((3, 3), dtype)),
        make("vector", ramp((3,), dtype), static=True),
    ]


for _name in ("tril", "triu"):
    one_tensor_spec(
        f"relax.{_name}",
        triangle_cases,
        lambda draw, shape: {"k": draw(st.integers(-4, 4))},
        min_rank=2,
    )


# ----------------------------------------------------------------------------- creation


def filled_cases(op: str) -> Callable[[str], list[Case]]:
    """Shapes with and without elements, 0-d."""

    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        return [
            make("matrix", Shape((2, 3)), dtype=dtype),
            make("vector", Shape((5,)), dtype=dtype),
            make("empty", Shape((0, 3)), dtype=dtype),
            make("scalar", Shape(()), dtype=dtype),
        ]

    return cases


def filled_random(op: str) -> Callable[[str], st.SearchStrategy[Case]]:
    """A random shape."""

    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        return maker(op, dtype)("random", Shape(draw(random_shape())), dtype=dtype)

    return lambda dtype: draw_case(dtype)


for _name in ("zeros", "ones"):
    spec(
        f"relax.{_name}",
        ALL,
        filled_cases(f"relax.{_name}"),
        filled_random(f"relax.{_name}"),
        lambda dtype: (["!relax.shape<ndim=2>"], {"dtype": dtype}),
    )


def _full_cases(dtype: str) -> list[Case]:
    make = maker("relax.full", dtype)
    values = specials(dtype)
    found = [make(f"fill-{k}", Shape((2, 3)), scalar(v, dtype)) for k, v in enumerate(values)]
    found += [
        make("empty", Shape((0, 2)), scalar(values[-1], dtype)),
        make("scalar", Shape(()), scalar(values[-1], dtype)),
        make("to-f32", Shape((2,)), scalar(values[-1], dtype), dtype="f32"),
        make("to-i8", Shape((2,)), scalar(values[-1], dtype), dtype="i8"),
    ]
    if dtype == "i64":
        found += [
            make("prim", Shape((2,)), Prim(7)),
            make("prim-negative", Shape((2,)), Prim(-7), dtype="f16"),
        ]
    return found


@st.composite
def _full_random(draw: st.DrawFn, dtype: str) -> Case:
    fill = random_values(draw(seeds()), (), dtype)
    props = {"dtype": draw(st.sampled_from(ALL))} if draw(st.booleans()) else {}
    return maker("relax.full", dtype)("random", Shape(draw(random_shape())), fill, **props)


spec(
    "relax.full",
    ALL,
    _full_cases,
    _full_random,
    lambda dtype: (["!relax.shape<ndim=2>", rank_only(0, dtype)], {}),
)


def _arange_cases(dtype: str) -> list[Case]:
    make = maker("relax.arange", dtype)

    def bounds(*values: int) -> tuple[Prim, ...]:
        return tuple(Prim(v) for v in values)

    return [
        make("count", *bounds(0, 5, 1), dtype=dtype),
        make("stepped", *bounds(-3, 4, 2), dtype=dtype),
        make("descending", *bounds(5, 0, -1), dtype=dtype),
        make("uneven", *bounds(1, 8, 3), dtype=dtype),
        make("empty", *bounds(2, 2, 1), dtype=dtype),
        make("wide", *bounds(0, 300, 1), dtype=dtype),
        make("large", *bounds(2**62, 2**62 + 3, 1), dtype=dtype),
        make("extreme", *bounds(-(2**63), 2**63 - 1, 2**62), dtype=dtype),
        make("extreme-descending", *bounds(2**63 - 1, -(2**63), -(2**62)), dtype=dtype),
        make("reversed", *bounds(5, 0, 1), dtype=dtype),
        make("zero-step", *bounds(0, 5, 0), dtype=dtype),
    ]


@st.composite
def _arange_random(draw: st.DrawFn, dtype: str) -> Case:
    step = draw(st.sampled_from([-3, -2, -1, 1, 2, 3]))
    start = draw(st.integers(-8, 8))
    end = (
        start
        + step * draw(st.integers(0, 5))
        + draw(st.integers(0, abs(step) - 1)) * (1 if step > 0 else -1)
    )
    return maker("relax.arange", dtype)("random", Prim(start), Prim(end), Prim(step), dtype=dtype)


spec(
    "relax.arange",
    ALL,
    _arange_cases,
    _arange_random,
    lambda dtype: (["!relax.prim<i64>"] * 3, {"dtype": dtype}),
)


def _unique_cases(dtype: str) -> list[Case]:
    make = maker("relax.unique", dtype)
    values = specials(dtype)
    return [
        make("specials", np.concatenate([values, values[::-1]])),
        make("matrix", ramp((3, 4), dtype)),
        make("empty", ramp((0,), dtype)),
        make("scalar", scalar(values[-1], dtype)),
    ]


spec(
    "relax.unique",
    ALL,
    _unique_cases,
    unary_random("relax.unique"),
    lambda dtype: ([rank_only(2, dtype)], {}),
)


# ----------------------------------------------------------------------------- gathers


def _from_end_cases(
    make: Callable[..., Case],
    x: np.ndarray,
    indices: np.ndarray,
    bad: np.ndarray,
    **props: Any,
) -> list[Case]:
    """With ``negative_indices = false`` a negative index is refused, the others are
    read; ``true`` is the default."""
    return [
        make("torch-negative", x, bad, negative_indices=False, **props),
        make("torch-positive", x, indices, negative_indices=False, **props),
        make("numpy-rule", x, bad, negative_indices=True, **props),
    ]


def _take_cases(dtype: str) -> list[Case]:
    make = maker("relax.take", dtype)
    x = labels(5, dtype)
    found = []
    for index in INTS:
        low, high = extremes(index)
        found += [
            make(f"negative-{index}", x, array([-1, -5, 0, 4], index), axis=0),
        ]
        if dtype in INDEX_MATRIX_DTYPES:
            found += [
                make(f"above-{index}", x, array([5], index), axis=0),
                make(f"below-{index}", x, array([-6], index), axis=0),
                make(f"minimum-{index}", x, array([low], index), axis=0),
                make(f"maximum-{index}", x, array([high], index), axis=0),
            ]
    found += [
        make("narrow-i8-axis300", labels(300, dtype), array([-1, -128, 127, 0], "i8"), axis=0),
        make(
            "narrow-i16-axis70000", labels(70000, dtype), array([-1, -32768, 32767], "i16"), axis=0
        ),
        make("flat", labels(6, dtype).reshape(2, 3), array([[-1, 0], [5, -6]], "i32")),
        make("flat-above", labels(6, dtype).reshape(2, 3), array([6], "i32")),
        make("axis1", labels(6, dtype).reshape(2, 3), array([-1, 0, 2], "i64"), axis=1),
        make("negative-axis", labels(6, dtype).reshape(2, 3), array([[-2], [1]], "i64"), axis=-2),
        make("empty-indices", x, array(np.zeros(0), "i64"), axis=0),
        make("empty-x", labels(0, dtype), array([0], "i64"), axis=0),
        make("empty-both", labels(0, dtype), array(np.zeros(0), "i64"), axis=0),
        make("scalar-index", x, array(-2, "i64"), axis=0),
        make("scalar-index-above", x, array(5, "i64"), axis=0),
        make("scalar-index-below", x, array(-6, "i32"), axis=0),
        make("scalar-x", scalar(specials(dtype)[-1], dtype), array([0, -1], "i64")),
    ]
    return found + _from_end_cases(make, x, array([0, 4], "i32"), array([-1], "i32"), axis=0)


@st.composite
def index_rule(draw: st.DrawFn) -> dict[str, Any]:
    """The ``negative_indices`` property, absent or either value."""
    return {} if draw(st.booleans()) else {"negative_indices": draw(st.booleans())}


def random_indices(
    rng: np.random.Generator, sizes: Any, shape: Sequence[int], index: str
) -> np.ndarray:
    """Indices in ``[-size, size)`` of an axis of each of ``sizes`` (broadcast against the
    last axis), a tenth of them anywhere in ``[-size - 2, size + 2)``."""
    sizes = np.asarray(sizes, dtype=np.int64)
    wide = rng.random(shape) < 0.1
    span = 2 * sizes + np.where(wide, 4, 0)
    offset = np.where(wide, sizes + 2, sizes)
    values = rng.integers(0, 2**31, shape) % np.maximum(span, 1) - offset
    return np.asarray(values).astype(np_type(index))


@st.composite
def _take_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    shape = draw(random_shape(1, 3, 1))
    axis = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    size = math.prod(shape) if axis is None else shape[axis]
    indices = random_indices(rng, size, draw(random_shape(0, 2)), draw(st.sampled_from(INTS)))
    props = draw(index_rule()) | ({} if axis is None else {"axis": axis})
    return maker("relax.take", dtype)("random", random_values(rng, shape, dtype), indices, **props)


spec(
    "relax.take",
    ALL,
    _take_cases,
    _take_random,
    lambda dtype: ([rank_only(2, dtype), rank_only(1, "i64")], {"axis": 0}),
)


def _gather_elements_cases(dtype: str) -> list[Case]:
    make = maker("relax.gather_elements", dtype)
    x = labels(12, dtype).reshape(3, 4)
    found = []
    for index in INTS:
        low, high = extremes(index)
        found += [
            make(f"negative-{index}", x, array([[-1, 0, 2, -3], [1, -2, 0, 2]], index)),
        ]
        if dtype in INDEX_MATRIX_DTYPES:
            found += [
                make(f"above-{index}", x, array([[3, 0, 0, 0]], index)),
                make(f"below-{index}", x, array([[-4, 0, 0, 0]], index)),
                make(f"minimum-{index}", x, array([[low, 0, 0, 0]], index)),
                make(f"maximum-{index}", x, array([[high, 0, 0, 0]], index)),
            ]
    found += [
        make("axis1", x, array([[-1, 3], [0, -4], [2, 1]], "i64"), axis=1),
        make("smaller", x, array([[2, -1]], "i64")),
        make("larger", x, array([[0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], "i64")),
        # numpy would broadcast x's axis of 1 against the larger indices
        make(
            "larger-broadcastable",
            labels(3, dtype).reshape(3, 1),
            array([[0, 1, 2], [2, 1, 0]], "i64"),
        ),
        make(
            "narrow-i8-axis300",
            labels(300, dtype).reshape(300, 1),
            array([[-1], [-128], [127]], "i8"),
        ),
        make(
            "narrow-i16-axis70000",
            labels(70000, dtype).reshape(70000, 1),
            array([[-1], [-32768], [32767]], "i16"),
        ),
        make("empty", x, array(np.zeros((0, 4)), "i64")),
    ]
    return found + _from_end_cases(
        make,
        x,
        array([[0, 2, 1, 0]], "i32"),
        array([[-1, 0, 0, 0]], "i32"),
    )


@st.composite
def _gather_elements_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    shape = draw(random_shape(1, 3, 1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = [
        draw(st.integers(0, 3)) if a == axis % len(shape) else draw(st.integers(0, d))
        for a, d in enumerate(shape)
    ]
    indices = random_indices(rng, shape[axis], index_shape, draw(st.sampled_from(INTS)))
    props = draw(index_rule())
    return maker("relax.gather_elements", dtype)(
        "random", random_values(rng, shape, dtype), indices, axis=axis, **props
    )


spec(
    "relax.gather_elements",
    ALL,
    _gather_elements_cases,
    _gather_elements_random,
    lambda dtype: ([rank_only(2, dtype), rank_only(2, "i64")], {}),
)


def _gather_nd_cases(dtype: str) -> list[Case]:
    make = maker("relax.gather_nd", dtype)
    x = labels(12, dtype).reshape(3, 4)
    depth = ((1, -1),)
    found = []
    for index in INTS:
        low, high = extremes(index)
        found += [
            make(f"negative-{index}", x, array([[-1, -4], [0, 3]], index), constant=depth),
        ]
        if dtype in INDEX_MATRIX_DTYPES:
            found += [
                make(f"above-{index}", x, array([[3, 0]], index), constant=depth),
                make(f"below-{index}", x, array([[0, -5]], index), constant=depth),
                make(f"minimum-{index}", x, array([[low, 0]], index), constant=depth),
                make(f"maximum-{index}", x, array([[0, high]], index), constant=depth),
            ]
    batched = labels(24, dtype).reshape(2, 3, 4)
    found += [
        make("depth1", x, array([[-1], [0]], "i64"), constant=depth),
        make("depth0", x, array(np.zeros((2, 0)), "i64"), constant=depth),
        make("scalar-result", labels(3, dtype), array([-3], "i64"), constant=depth),
        make("scalar-result-above", labels(3, dtype), array([3], "i64"), constant=depth),
        make("scalar-result-below", labels(3, dtype), array([-4], "i8"), constant=depth),
        make("batch", batched, array([[-1], [2]], "i64"), batch_dims=1, constant=depth),
        make("batch-larger", batched, array([[0], [1], [2]], "i64"), batch_dims=1, constant=depth),
        make("batch-smaller", x, array([[1], [2]], "i64"), batch_dims=1, constant=depth),
        make(
            "narrow-i8-axis300",
            labels(300, dtype),
            array([[-1], [-128], [127]], "i8"),
            constant=depth,
        ),
        make(
            "narrow-i16-axis70000",
            labels(70000, dtype),
            array([[-1], [-32768], [32767]], "i16"),
            constant=depth,
        ),
        make("empty", x, array(np.zeros((0, 2)), "i64"), constant=depth),
        make("too-deep", x, array([[0, 0, 0]], "i64"), constant=depth, static=True),
    ]
    return found + _from_end_cases(
        make, x, array([[2, 3]], "i32"), array([[0, -1]], "i32"), constant=depth
    )


@st.composite
def _gather_nd_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    shape = draw(random_shape(1, 3, 1))
    batch = draw(st.integers(0, len(shape) - 1))
    depth = draw(st.integers(1, len(shape) - batch))
    lead = (*shape[:batch], *draw(random_shape(0, 1)))
    sizes = shape[batch : batch + depth]
    indices = random_indices(rng, sizes, (*lead, depth), draw(st.sampled_from(INTS)))
    x = random_values(rng, shape, dtype)
    props = draw(index_rule())
    return maker("relax.gather_nd", dtype)(
        "random", x, indices, batch_dims=batch, constant=((1, -1),), **props
    )


spec(
    "relax.gather_nd",
    ALL,
    _gather_nd_cases,
    _gather_nd_random,
    lambda dtype: ([rank_only(2, dtype), "!relax.tensor<[1, 2], i64>"], {}),
)


# ----------------------------------------------------------------------------- sort, scatter

MORE_FLOAT_MAPS = (
    "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "floor", "ceil",
    "round", "log1p", "expm1", "log2", "log10", "exp2",
)  # fmt: skip

for _name in MORE_FLOAT_MAPS:
    spec(
        f"relax.{_name}",
        FLOATS,
        unary_cases(f"relax.{_name}"),
        unary_random(f"relax.{_name}"),
        lambda dtype: ([rank_only(2, dtype)], {}),
    )


def _argsort_cases(dtype: str) -> list[Case]:
    make = maker("relax.argsort", dtype)
    values = specials(dtype)
    ties = np.concatenate([values, values[::-1], values])
    return [
        make("specials", ties),
        make("specials-descending", ties, descending=True),
        make("axis0", np.stack([values, values[::-1]]), axis=0, descending=True),
        make("empty", ramp((2, 0), dtype)),
        make("scalar", scalar(1, dtype)),
        make("bad-axis", ramp((2, 3), dtype), axis=2, static=True),
    ]


@st.composite
def _argsort_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    shape = draw(random_shape(1, 3))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    values = random_values(rng, shape, dtype)
    return maker("relax.argsort", dtype)(
        "random", values, axis=axis, descending=draw(st.booleans())
    )


spec(
    "relax.argsort",
    ALL,
    _argsort_cases,
    _argsort_random,
    lambda dtype: ([rank_only(2, dtype)], {}),
)

SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")


def _scatter_cases(dtype: str) -> list[Case]:
    make = maker("relax.scatter_elements", dtype)
    x = labels(12, dtype).reshape(3, 4)
    updates = labels(8, dtype).reshape(2, 4)
    found = []
    reductions = ("none", "max", "min") if dtype == "i1" else SCATTER_REDUCTIONS
    for reduction in reductions:
        text = f'"{reduction}"'
        found += [
            make(f"duplicates-{reduction}", x, array([[0, 2, -1, 0], [0, -3, 2, 1]], "i64"),
                 updates, reduction=text),
            make(f"axis1-{reduction}", x, array([[3, 3], [0, -4], [1, 1]], "i64"),
                 labels(6, dtype).reshape(3, 2), axis=1, reduction=text),
        ]  # fmt: skip
    for index in INTS:
        found += [
            make(f"above-{index}", x, array([[3, 0, 0, 0]], index), updates[:1]),
            make(f"below-{index}", x, array([[-4, 0, 0, 0]], index), updates[:1]),
        ]
    found += [
        make("smaller", x, array([[2, -1]], "i64"), labels(2, dtype).reshape(1, 2)),
        make("empty", x, array(np.zeros((0, 4)), "i64"), updates[:0]),
        make("larger", x, array(np.zeros((2, 5)), "i64"), labels(10, dtype).reshape(2, 5)),
        make("rank0", scalar(1, dtype), scalar(0, "i64"), scalar(1, dtype), static=True),
    ]
    if dtype == "i1":
        found.append(
            make("bool-add", x, array([[0, 0, 0, 0]], "i64"), updates[:1], reduction='"add"')
        )
    return found


@st.composite
def _scatter_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    shape = draw(random_shape(1, 3, 1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = [
        draw(st.integers(0, 4)) if a == axis % len(shape) else draw(st.integers(0, d))
        for a, d in enumerate(shape)
    ]
    reductions = ("none", "max", "min") if dtype == "i1" else SCATTER_REDUCTIONS
    reduction = draw(st.sampled_from(reductions))
    indices = random_indices(rng, shape[axis], index_shape, draw(st.sampled_from(INTS)))
    if reduction == "mul" and dtype in FLOATS:
        # powers of two: the product is exact in any order
        updates = 2.0 ** rng.integers(-2, 3, index_shape) * rng.choice([-1, 1], index_shape)
        updates = np.asarray(updates).astype(np_type(dtype))
    else:
        # edge values only where the combination does not depend on the order
        updates = random_values(rng, index_shape, dtype, edges=reduction in ("none", "max", "min"))
    x = random_values(rng, shape, dtype, edges=reduction in ("none", "max", "min"))
    return maker("relax.scatter_elements", dtype)(
        "random", x, indices, updates, axis=axis, reduction=f'"{reduction}"'
    )


spec(
    "relax.scatter_elements",
    ALL,
    _scatter_cases,
    _scatter_random,
    lambda dtype: ([rank_only(2, dtype), rank_only(2, "i64"), rank_only(2, dtype)], {}),
)


# ----------------------------------------------------------------------------- unique_all, nonzero


def _unique_all_cases(dtype: str) -> list[Case]:
    make = maker("relax.unique_all", dtype)
    values = specials(dtype)
    rows = np.stack([ramp((4,), dtype), ramp((4,), dtype)[::-1], ramp((4,), dtype)])
    return [
        make("specials", np.concatenate([values, values[::-1]])),
        make("specials-unsorted", np.concatenate([values[::-1], values]), sorted=False),
        make("rows", rows, axis=0),
        make("columns-unsorted", rows, axis=-1, sorted=False),
        make("empty", ramp((0,), dtype)),
        make("scalar", scalar(values[-1], dtype)),
        make("bad-axis", rows, axis=2, static=True),
    ]


spec(
    "relax.unique_all",
    ALL,
    _unique_all_cases,
    unary_random("relax.unique_all"),
    lambda dtype: ([rank_only(2, dtype)], {}),
)


def _nonzero_cases(dtype: str) -> list[Case]:
    make = maker("relax.nonzero", dtype)
    return [
        make("specials", specials(dtype)),
        make("matrix", ramp((3, 4), dtype)),
        make("empty", ramp((2, 0), dtype)),
        make("scalar", scalar(1, dtype), static=True),
    ]


@st.composite
def _nonzero_random(draw: st.DrawFn, dtype: str) -> Case:
    x = random_values(draw(seeds()), draw(random_shape(1, 3)), dtype)
    return maker("relax.nonzero", dtype)("random", x)


spec(
    "relax.nonzero",
    ALL,
    _nonzero_cases,
    _nonzero_random,
    lambda dtype: ([rank_only(2, dtype)], {}),
)


def _nms_cases(dtype: str) -> list[Case]:
    make = maker("relax.non_max_suppression", dtype)
    boxes = array(
        [[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [1, 1, 0, 0]]],
        dtype,
    )
    scores = array([[[0.9, 0.75, 0.6, 0.95, 0.5], [0.5, 0.5, 0.5, 0.5, 0.5]]], dtype)
    limit, iou, low = array(3, "i64"), array([0.5], dtype), array(0.0, dtype)
    return [
        make("corners", boxes, scores, limit, iou, low),
        make("center", boxes, scores, limit, iou, array(0.55, dtype), center_point_box=True),
        make("no-threshold", boxes, scores, array(9, "i64"), iou, array(-np.inf, dtype)),
        make("none", boxes, scores, array(0, "i64"), iou, low),
        make("mismatch", boxes, scores[:, :, :3], limit, iou, low, static=True),
    ]


@st.composite
def _nms_random(draw: st.DrawFn, dtype: str) -> Case:
    rng = draw(seeds())
    batches, classes, count = (draw(st.integers(1, 3)) for _ in range(3))
    boxes = (rng.integers(0, 16, (batches, count, 4)) / 4).astype(np_type(dtype))
    scores = (rng.integers(0, 8, (batches, classes, count)) / 8).astype(np_type(dtype))
    limit = array(draw(st.integers(0, 4)), "i64")
    iou = array([draw(st.sampled_from([0.0, 0.25, 0.5]))], dtype)
    score = array(draw(st.sampled_from([-np.inf, 0.25])), dtype)
    return maker("relax.non_max_suppression", dtype)("random", boxes, scores, limit, iou, score)


spec(
    "relax.non_max_suppression",
    FLOATS,
    _nms_cases,
    _nms_random,
    lambda dtype: (
        [rank_only(3, dtype), rank_only(3, dtype), "!relax.tensor<[], i64>",
         "!relax.tensor<[1], f32>", "!relax.tensor<[], f32>"],
        {},
    ),
)  # fmt: skip

# Families audited in modules of their own register their specs and oracles on import.
import table_nn  # noqa: E402, F401
import table_reduce  # noqa: E402, F401
