"""Symbolic shape expressions: printing, parsing, folding and the soundness of proofs."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import (
    SymbolicError,
    evaluate,
    floordiv,
    floormod,
    format_expr,
    parse_expr,
    prove_equal,
    prove_le,
    prove_lt,
    prove_not_equal,
    smax,
    smin,
    substitute,
    sym,
    to_python,
)

NAMES = ("n", "m", "k")


@st.composite
def expressions(draw: st.DrawFn, depth: int = 3) -> sympy.Expr:
    """Random expressions over n, m, k with + - * floordiv floormod min max."""
    if depth == 0 or draw(st.booleans()):
        if draw(st.booleans()):
            return sympy.Integer(draw(st.integers(-6, 12)))
        return sym(draw(st.sampled_from(NAMES)))
    a = draw(expressions(depth - 1))
    b = draw(expressions(depth - 1))
    op = draw(st.sampled_from(["+", "-", "*", "floordiv", "floormod", "min", "max"]))
    if op == "+":
        return sympy.expand(a + b)
    if op == "-":
        return sympy.expand(a - b)
    if op == "*":
        return sympy.expand(a * b)
    if op in ("floordiv", "floormod"):
        divisor = draw(st.integers(1, 5))
        return floordiv(a, divisor) if op == "floordiv" else floormod(a, divisor)
    return smin(a, b) if op == "min" else smax(a, b)


bindings = st.fixed_dictionaries({name: st.integers(0, 40) for name in NAMES})


@settings(max_examples=300, deadline=None)
@given(expressions())
def test_print_parse_round_trip(expr: sympy.Expr) -> None:
    text = format_expr(expr)
    parsed = parse_expr(text)
    assert parsed == expr, text
    assert format_expr(parsed) == text


@settings(max_examples=300, deadline=None)
@given(expressions(), expressions(), bindings)
def test_prove_equal_is_sound(a: sympy.Expr, b: sympy.Expr, values: dict[str, int]) -> None:
    if prove_equal(a, b):
        assert evaluate(a, values) == evaluate(b, values)


@settings(max_examples=300, deadline=None)
@given(expressions(), expressions(), bindings)
def test_order_proofs_are_sound(a: sympy.Expr, b: sympy.Expr, values: dict[str, int]) -> None:
    va, vb = evaluate(a, values), evaluate(b, values)
    if prove_le(a, b):
        assert va <= vb
    if prove_lt(a, b):
        assert va < vb
    if prove_not_equal(a, b):
        assert va != vb


@settings(max_examples=300, deadline=None)
@given(expressions(), bindings)
def test_python_translation_matches_evaluate(expr: sympy.Expr, values: dict[str, int]) -> None:
    assert eval(to_python(expr), {}, dict(values)) == evaluate(expr, values)  # noqa: S307


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("n", "n"),
        ("2*m", "m * 2"),
        ("n * 224 * 224 * 3", "n * 150528"),
        ("2 * floordiv(m, 2)", "floordiv(m, 2) * 2"),
        ("(n + 1) * 2", "n * 2 + 2"),
        ("n*-1", "-n"),
        ("n*n", "n * n"),
        ("m - n", "m - n"),
        ("floordiv(n * 4 + 3, 4)", "n"),
        ("floormod(n * 4 + 3, 4)", "3"),
        ("floordiv(n * 4 + m, 4)", "n + floordiv(m, 4)"),
        ("max(n, 0)", "n"),
        ("min(n, m) + max(3, 4)", "min(m, n) + 4"),
        ("3 * 4", "12"),
        ("floordiv(-7, 2)", "-4"),
        ("floormod(-7, 2)", "1"),
    ],
)
def test_canonical_forms(text: str, printed: str) -> None:
    assert format_expr(parse_expr(text)) == printed


def test_proofs() -> None:
    n, m = sym("n"), sym("m")
    assert prove_equal((n + 1) * m, n * m + m)
    assert not prove_equal(n, m)
    assert prove_le(n, n + 1) and prove_lt(n, n + 1) and not prove_lt(n, n)
    assert prove_le(floormod(n, 4), 3)
    assert prove_not_equal(n, n + 1) and not prove_not_equal(n, m)
    assert prove_le(0, n * m)


def test_substitute_and_evaluate() -> None:
    expr = parse_expr("floordiv(n * 3 + 1, 2) * m")
    assert evaluate(expr, {"n": 5, "m": 2}) == 16
    assert format_expr(substitute(expr, {"n": 1})) == "m * 2"
    assert format_expr(substitute(parse_expr("n + m"), {"m": "n * 2"})) == "n * 3"
    with pytest.raises(SymbolicError, match="no value for symbolic variable"):
        evaluate(expr, {"n": 1})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("n +", "expected a symbolic expression, got 'end of input'"),
        ("floordiv(n)", "floordiv takes 2 arguments, got 1"),
        ("floordiv(n, 0)", "floordiv by zero"),
        ("n % 2", "unexpected '%'"),
        ("(n", "expected ')'"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(SymbolicError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_expr(text)


def test_symbols_are_integer_and_nonnegative() -> None:
    assert sym("n") is sym("n")
    assert sym("n").is_integer and sym("n").is_nonnegative
    assert symbolic.as_expr("n + 1") == sym("n") + 1
