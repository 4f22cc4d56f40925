"""The audit of prod, cumprod, argmax, argmin and runtime_attrs: their specs (cases,
random cases, signatures) and oracles, registered on import by table.py.

A float product's oracle is the exact product rounded once, within a rounding per
factor; where some order of the factors overflows or underflows the accumulator (the
product of the factors above 1 beyond its range, or of those below 1 under its normal
range) any value is accepted, as for order-dependent sums."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
from hypothesis import strategies as st
from oracle import (
    NUMPY_TYPES,
    ORACLES,
    Expected,
    Refused,
    accumulator,
    axes_of,
    axis_index,
    count,
    eps,
    exact_ints,
    is_float,
    oracle,
    rounded,
    wrapped,
)
from table import (
    ALL,
    FLOATS,
    INTS,
    NUMERIC,
    Case,
    array,
    edges,
    extremes,
    maker,
    np_type,
    ramp,
    random_shape,
    random_values,
    rank_only,
    reduce_cases,
    reduce_random,
    scalar,
    seeds,
    spec,
    specials,
)

# ----------------------------------------------------------------------------- oracles


def _product_bound(x: np.ndarray, axis: int | tuple[int, ...] | None, keepdims: bool) -> Any:
    """The accumulation bound of float products of x along ``axis`` (see the module)."""
    acc = accumulator(x.dtype)
    magnitude = np.abs(np.where(np.isfinite(x), x, 1.0).astype(np.longdouble))
    big = np.prod(np.where(magnitude > 1, magnitude, 1), axis=axis, keepdims=keepdims)
    small = np.prod(
        np.where((magnitude < 1) & (magnitude > 0), magnitude, 1), axis=axis, keepdims=keepdims
    )
    terms = x.size if axis is None else count(x.shape, np.atleast_1d(axis).tolist())
    exact = np.abs(np.prod(x.astype(np.longdouble), axis=axis, keepdims=keepdims))
    info = np.finfo(acc)
    unbounded = (big > float(info.max)) | (small < float(info.tiny))
    return np.where(unbounded, np.inf, (terms + 1) * eps(acc) * exact.astype(np.float64))


@oracle("relax.prod")
def _prod(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    axes, keepdims = axes_of(props, x.ndim), props.get("keepdims", False)
    if is_float(x):
        exact = np.prod(x.astype(np.longdouble), axis=axes, keepdims=keepdims)
        return Expected(rounded(exact, x.dtype), 1, _product_bound(x, axes, keepdims))
    return Expected(wrapped(np.prod(exact_ints(x), axis=axes, keepdims=keepdims), x.dtype))


@oracle("relax.cumprod")
def _cumprod(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    if props.get("dtype") == "i1":
        raise Refused("cumprod in i1")
    if "dtype" in props:
        dtype = np.dtype(NUMPY_TYPES[props["dtype"]])
    elif x.dtype.kind in "bi" and x.dtype.itemsize < 8:
        dtype = np.dtype(np.int64)
    else:
        dtype = x.dtype
    axis = props.get("axis")
    data = x.reshape(-1) if axis is None else x
    axis = 0 if axis is None else axis_index(axis, x.ndim)
    if props.get("exclusive", False):
        out = np.ones_like(data)
        into, source = [slice(None)] * data.ndim, [slice(None)] * data.ndim
        into[axis], source[axis] = slice(1, None), slice(None, -1)
        out[tuple(into)] = data[tuple(source)]
        data = out
    if dtype.kind == "f":
        source = data.astype(dtype)
        exact = np.cumprod(source.astype(np.longdouble), axis=axis)
        acc = accumulator(dtype)
        magnitude = np.abs(np.where(np.isfinite(source), source, 1.0).astype(np.longdouble))
        big = np.cumprod(np.where(magnitude > 1, magnitude, 1), axis=axis)
        small = np.cumprod(np.where((magnitude < 1) & (magnitude > 0), magnitude, 1), axis=axis)
        info = np.finfo(acc)
        unbounded = (big > float(info.max)) | (small < float(info.tiny))
        terms = data.shape[axis] + 1
        bound = np.where(unbounded, np.inf, terms * eps(acc) * np.abs(exact).astype(np.float64))
        return Expected(rounded(exact, dtype), 1, bound)
    products = np.cumprod(exact_ints(data.astype(np.int64)), axis=axis)
    return Expected(wrapped(products, dtype))


def _arg_extreme(function: Any) -> Any:
    def compute(args: list[Any], props: dict[str, Any]) -> Expected:
        (x,) = args
        axis = props.get("axis")
        data = x.reshape(-1) if axis is None else x
        along = 0 if axis is None else axis_index(axis, x.ndim)
        if data.shape[along] == 0:
            raise Refused("the position of an extreme of no elements")
        if props.get("select_last_index", False):
            found = data.shape[along] - 1 - function(np.flip(data, along), axis=along)
        else:
            found = function(data, axis=along)
        if props.get("keepdims", False):
            found = found.reshape((1,) * x.ndim) if axis is None else np.expand_dims(found, along)
        return Expected(np.asarray(found, np.int64))

    return compute


ORACLES["relax.argmax"] = _arg_extreme(np.argmax)
ORACLES["relax.argmin"] = _arg_extreme(np.argmin)

_ATTRIBUTE = re.compile(r"(\w+) = (true|false|-?\d+ : i64)")


@oracle("relax.runtime_attrs")
def _runtime_attrs(args: list[Any], props: dict[str, Any]) -> Expected:
    """The inner operator's oracle with the attributes the operands give."""
    names = json.loads(props["names"])
    split = len(args) - len(names)
    given: dict[str, Any] = {}
    for key, value in _ATTRIBUTE.findall(props.get("attrs", "")):
        given[key] = value == "true" if value in ("true", "false") else int(value.split()[0])
    for name, value in zip(names, args[split:], strict=True):
        given[name] = int(value) if value.ndim == 0 else [int(v) for v in value]
    return ORACLES[json.loads(props["op"])](list(args[:split]), given)


# ----------------------------------------------------------------------------- specs

spec(
    "relax.prod",
    NUMERIC,
    reduce_cases("relax.prod"),
    reduce_random("relax.prod"),
    lambda dtype: ([rank_only(2, dtype)], {}),
)


def _cumprod_cases(dtype: str) -> list[Case]:
    make = maker("relax.cumprod", dtype)
    found = [
        make("flat", ramp((2, 3), dtype)),
        make("axis", ramp((2, 3), dtype), axis=1),
        make("exclusive", ramp((2, 3), dtype), axis=1, exclusive=True),
        make("specials", specials(dtype), axis=0),
        make("empty-axis", ramp((2, 0), dtype), axis=1),
        make("scalar", scalar(specials(dtype)[-1], dtype)),
        make("to-i1", ramp((2, 5), dtype), axis=1, dtype="i1"),
    ]
    if dtype in INTS:
        low, high = extremes(dtype)
        found.append(make("overflow", array([high, high, low, 3], dtype), axis=0))
    return found


@st.composite
def _cumprod_random(draw: st.DrawFn, dtype: str) -> Case:
    shape = draw(random_shape(1, 3))
    props: dict[str, Any] = {"exclusive": draw(st.booleans())}
    if draw(st.booleans()):
        props["axis"] = draw(st.integers(-len(shape), len(shape) - 1))
    x = random_values(draw(seeds()), shape, dtype, edges=dtype not in FLOATS)
    return maker("relax.cumprod", dtype)("random", x, **props)


spec("relax.cumprod", ALL, _cumprod_cases, _cumprod_random, lambda d: ([rank_only(2, d)], {}))


def _arg_cases(op: str) -> Any:
    def cases(dtype: str) -> list[Case]:
        make = maker(op, dtype)
        return [
            make("specials", specials(dtype)),
            make("rows", edges((3, 4), dtype), axis=1),
            make("last", edges((3, 4), dtype), axis=0, select_last_index=True),
            make("keepdims", ramp((2, 3), dtype), axis=-1, keepdims=True),
            make("ties", np.zeros((2, 3), np_type(dtype)), axis=1, select_last_index=True),
            make("scalar", scalar(specials(dtype)[-1], dtype)),
            make("empty-rows", ramp((0, 3), dtype), axis=1),
            make("axis-out-of-range", ramp((2, 3), dtype), axis=2, static=True),
        ]

    return cases


def _arg_random(op: str) -> Any:
    @st.composite
    def draw_case(draw: st.DrawFn, dtype: str) -> Case:
        shape = draw(random_shape(1, 3))
        props: dict[str, Any] = {
            "keepdims": draw(st.booleans()),
            "select_last_index": draw(st.booleans()),
        }
        if draw(st.booleans()):
            props["axis"] = draw(st.integers(-len(shape), len(shape) - 1))
        x = random_values(draw(seeds()), shape, dtype)
        return maker(op, dtype)("random", x, **props)

    return lambda dtype: draw_case(dtype)


for _name in ("relax.argmax", "relax.argmin"):
    spec(_name, ALL, _arg_cases(_name), _arg_random(_name), lambda d: ([rank_only(2, d)], {}))

_MAX = {"op": '"relax.max"', "names": '["axis"]'}
_TRIU = {"op": '"relax.triu"', "names": '["k"]'}


def _runtime_attrs_cases(dtype: str) -> list[Case]:
    make = maker("relax.runtime_attrs", dtype)
    axes = np.array([1], np.int64)
    return [
        make("max-axes", ramp((2, 3, 2), dtype), np.array([-1, 0], np.int64), **_MAX),
        make("max-keepdims", edges((3, 4), dtype), axes, **_MAX, attrs="{keepdims = true}"),
        make("max-out-of-range", ramp((2, 3), dtype), np.array([2], np.int64), **_MAX),
        make("max-empty", ramp((2, 0), dtype), axes, **_MAX),
        make("triu", edges((3, 4), dtype), np.array(1, np.int64), **_TRIU),
    ]


@st.composite
def _runtime_attrs_random(draw: st.DrawFn, dtype: str) -> Case:
    shape = draw(random_shape(2, 3))
    x = random_values(draw(seeds()), shape, dtype)
    k = np.array(draw(st.integers(-4, 4)), np.int64)
    return maker("relax.runtime_attrs", dtype)("random", x, k, **_TRIU)


spec(
    "relax.runtime_attrs",
    ALL,
    _runtime_attrs_cases,
    _runtime_attrs_random,
    lambda dtype: ([rank_only(2, dtype), "!relax.tensor<[1], i64>"], _MAX),
)


@oracle("relax.tensor_to_shape")
def _tensor_to_shape(args: list[Any], props: dict[str, Any]) -> Expected:
    (x,) = args
    sizes = tuple(int(v) for v in x)
    if any(s < 0 for s in sizes):
        raise Refused(f"a negative size in {list(sizes)}")
    return Expected(sizes)


def _tensor_to_shape_cases(dtype: str) -> list[Case]:
    make = maker("relax.tensor_to_shape", dtype)
    return [
        make("pair", array([2, 3], dtype)),
        make("static", array([4, 0, 1], dtype), static=True),
        make("empty", array([], dtype)),
        make("negative", array([2, -1], dtype)),
    ]


@st.composite
def _tensor_to_shape_random(draw: st.DrawFn, dtype: str) -> Case:
    sizes = draw(st.lists(st.integers(-1, 6), max_size=4))
    return maker("relax.tensor_to_shape", dtype)("random", array(sizes, dtype))


spec(
    "relax.tensor_to_shape",
    INTS,
    _tensor_to_shape_cases,
    _tensor_to_shape_random,
    lambda dtype: (["!relax.tensor<[2], " + dtype + ">"], {}),
)
