"""Symbolic integer expressions for tensor shapes (docs/design.md §2).

A symbolic dimension is a sympy expression over named, integer, non-negative
symbols, kept in a canonical form: polynomials are expanded, constants are
folded eagerly, and ``floordiv``/``floormod``/``min``/``max`` are sympy
functions that simplify what they can when they are built.

Expansion is bounded: :func:`expand` refuses (:class:`ExpressionTooLarge`) a canonical
form of more than :data:`MAX_TERMS` terms before building it, and expression text nests
at most :data:`MAX_DEPTH` deep.

The public API: :func:`sym`, :func:`as_expr`, :func:`expand`, :func:`floordiv`,
:func:`floormod`, :func:`smin`, :func:`smax`, :func:`simplify`,
:func:`prove_equal`, :func:`prove_not_equal`, :func:`prove_le`,
:func:`prove_lt`, :func:`substitute`, :func:`evaluate`, :func:`free_vars`,
:func:`format_expr`, :func:`parse_expr`, :func:`parse_dims`, :func:`to_python`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import sympy
from xdsl.utils.exceptions import VerifyException

Expr = sympy.Expr
Dims = tuple[sympy.Expr, ...]

INF = math.inf


class SymbolicError(ValueError):
    """A malformed symbolic expression, or one that cannot be evaluated."""


class ExpressionTooLarge(SymbolicError, VerifyException):
    """An expression whose canonical (expanded) form would exceed :data:`MAX_TERMS` terms.

    It is also a ``VerifyException``: raised by a verifier or a pass, it becomes a
    diagnostic at the op being processed."""


MAX_TERMS = 256
"""The most terms an expression may have once expanded. Products of sums grow
exponentially when expanded (16 factors ``(a + b)`` give 65536 terms); a canonical form
of 256 terms already costs ~0.1 s to build and prints as 10 KB of text."""

MAX_DEPTH = 64
"""How deeply parentheses and function calls may nest in an expression's text."""


def expand(expr: sympy.Expr) -> sympy.Expr:
    """``sympy.expand(expr)``: the canonical form, refused (:class:`ExpressionTooLarge`)
    when it would have more than :data:`MAX_TERMS` terms, before any work is done."""
    if expr.is_Atom:
        return expr
    terms = _expanded_terms(expr)
    if terms > MAX_TERMS:
        raise ExpressionTooLarge(
            "symbolic expression too large: its canonical form would have "
            f"{'over a million' if terms >= _CAP else terms} terms (at most {MAX_TERMS})"
        )
    return sympy.expand(expr)


@lru_cache(maxsize=65536)
def _expanded_terms(expr: sympy.Expr) -> int:
    """An upper bound of the number of terms of ``expand(expr)`` (capped just above
    10**6); function arguments, expanded on their own, must each be within the limit."""
    if expr.is_Atom:
        return 1
    if expr.is_Add:
        return min(sum(_expanded_terms(a) for a in expr.args), _CAP)
    if expr.is_Mul:
        return min(math.prod(_expanded_terms(a) for a in expr.args), _CAP)
    if expr.is_Pow:
        base = _expanded_terms(expr.base)
        exponent = expr.exp
        if exponent.is_Integer and exponent > 1 and base > 1:
            # monomials of degree e in `base` unknowns: C(base + e - 1, e)
            e = min(int(exponent), _CAP)
            return _CAP if e >= _CAP else min(math.comb(base + e - 1, e), _CAP)
        return base
    for arg in expr.args:
        if _expanded_terms(arg) > MAX_TERMS:
            return _CAP
    return 1


_CAP = 10**6 + 1


@cache
def sym(name: str) -> sympy.Symbol:
    """The symbolic variable ``name``: integer and non-negative, one object per name."""
    return sympy.Symbol(name, integer=True, nonnegative=True)


def as_expr(value: int | str | sympy.Expr) -> sympy.Expr:
    """An int, a variable name, or an expression, as a canonical expression."""
    if isinstance(value, sympy.Expr):
        return expand(value)
    if isinstance(value, bool):
        raise SymbolicError(f"expected an integer expression, got {value!r}")
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, str):
        return parse_expr(value)
    raise SymbolicError(f"expected an integer expression, got {value!r}")


def _split_divisible(a: sympy.Expr, b: int) -> tuple[sympy.Expr, sympy.Expr]:
    """Split ``a`` into ``b * q + r`` where ``q`` gathers the terms ``b`` divides."""
    quotient, rest = sympy.Integer(0), sympy.Integer(0)
    for term in sympy.Add.make_args(a):
        coeff, monomial = term.as_coeff_Mul()
        if coeff.is_Integer and int(coeff) % b == 0:
            quotient += (int(coeff) // b) * monomial
        else:
            rest += term
    return quotient, rest


class FloorDiv(sympy.Function):
    """``floordiv(a, b)``: floor of ``a / b`` (Python's ``//``)."""

    is_integer = True

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        if b.is_Integer:
            if b == 0:
                raise SymbolicError("floordiv by zero")
            if a.is_Integer:
                return sympy.Integer(int(a) // int(b))
            if b == 1:
                return a
            if b > 0:
                quotient, rest = _split_divisible(expand(a), int(b))
                if quotient != 0:
                    return quotient + FloorDiv(rest, b)
        return None

    def _eval_is_nonnegative(self) -> bool | None:
        a, b = self.args
        if a.is_nonnegative and b.is_positive:
            return True
        return None


class FloorMod(sympy.Function):
    """``floormod(a, b)``: ``a - b * floordiv(a, b)`` (Python's ``%``)."""

    is_integer = True

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        if b.is_Integer:
            if b == 0:
                raise SymbolicError("floormod by zero")
            if a.is_Integer:
                return sympy.Integer(int(a) % int(b))
            if b == 1 or b == -1:
                return sympy.Integer(0)
            if b > 0:
                quotient, rest = _split_divisible(expand(a), int(b))
                if quotient != 0:
                    return FloorMod(rest, b)
        return None

    def _eval_is_nonnegative(self) -> bool | None:
        if self.args[1].is_positive:
            return True
        return None


def row_major_strides(dims: Sequence[sympy.Expr]) -> list[sympy.Expr]:
    """The element strides of a C-contiguous buffer of ``dims``."""
    strides, step = [], sympy.Integer(1)
    for dim in reversed(dims):
        strides.append(step)
        step = expand(step * dim)
    return strides[::-1]


def flat_offset(indices: Sequence[sympy.Expr], dims: Sequence[sympy.Expr]) -> sympy.Expr:
    """The row-major element offset of ``indices``, with floordiv/floormod pairs cancelled."""
    offset = sum(
        (i * s for i, s in zip(indices, row_major_strides(dims), strict=True)), sympy.Integer(0)
    )
    return expand(_expand_floors(expand(offset)))


def _expand_floors(expr: sympy.Expr) -> sympy.Expr:
    """``floormod(x, c)`` -> ``x - c * floordiv(x, c)`` and
    ``floordiv(floordiv(x, a), b)`` -> ``floordiv(x, a * b)`` (positive divisors)."""
    if expr.is_Atom:
        return expr
    args = [expand(_expand_floors(a)) for a in expr.args]
    if isinstance(expr, FloorMod):
        x, c = args
        return x - c * _floordiv(x, c)
    if isinstance(expr, FloorDiv):
        return _floordiv(*args)
    return expr.func(*args)


def _floordiv(x: sympy.Expr, c: sympy.Expr) -> sympy.Expr:
    if isinstance(x, FloorDiv):
        return _floordiv(x.args[0], expand(x.args[1] * c))
    return FloorDiv(x, c)


def floordiv(a: int | sympy.Expr, b: int | sympy.Expr) -> sympy.Expr:
    """``floor(a / b)``, folded where possible."""
    return expand(FloorDiv(as_expr(a), as_expr(b)))


def floormod(a: int | sympy.Expr, b: int | sympy.Expr) -> sympy.Expr:
    """``a mod b`` with the sign of ``b``, folded where possible."""
    return expand(FloorMod(as_expr(a), as_expr(b)))


def smin(*values: int | sympy.Expr) -> sympy.Expr:
    """The minimum of the values, folded where provable."""
    return _evaluated(sympy.Min(*(as_expr(v) for v in values)))


def smax(*values: int | sympy.Expr) -> sympy.Expr:
    """The maximum of the values, folded where provable."""
    return _evaluated(sympy.Max(*(as_expr(v) for v in values)))


def _evaluated(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with a min/max that sympy left unevaluated while factoring min/max
    arguments (``max(min(1, n), min(2, n))`` is built as ``min(n, max(1, 2))``) folded,
    so that the printed form parses back to the same expression."""
    if isinstance(expr, sympy.Min | sympy.Max) and any(
        isinstance(a, sympy.Min | sympy.Max) for a in expr.args
    ):
        return expr.doit()
    return expr


@lru_cache(maxsize=65536)
def simplify(expr: sympy.Expr) -> sympy.Expr:
    """The canonical form of ``expr`` (expanded, folded)."""
    return expand(expr)


# ----------------------------------------------------------------------------- proofs


def _bounds(expr: sympy.Expr) -> tuple[float, float]:
    """Constant lower and upper bounds of ``expr`` (``±inf`` when unbounded)."""
    if expr.is_Integer:
        return int(expr), int(expr)
    if expr.is_Symbol:
        return 0, INF
    if expr.is_Add:
        lo, hi = 0, 0
        for term in expr.args:
            tlo, thi = _bounds(term)
            lo, hi = lo + tlo, hi + thi
        return lo, hi
    if expr.is_Mul:
        lo, hi = 1, 1
        for factor in expr.args:
            flo, fhi = _bounds(factor)
            products = [_mul(x, y) for x in (lo, hi) for y in (flo, fhi)]
            lo, hi = min(products), max(products)
        return lo, hi
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        base_lo, base_hi = _bounds(expr.base)
        if base_lo >= 0:
            return base_lo ** int(expr.exp), base_hi ** int(expr.exp)
        return (-INF if int(expr.exp) % 2 else 0), INF
    if isinstance(expr, FloorMod):
        divisor = expr.args[1]
        if divisor.is_Integer and divisor > 0:
            a_lo, a_hi = _bounds(expr.args[0])
            if a_lo >= 0 and a_hi < int(divisor):
                return a_lo, a_hi
            return 0, int(divisor) - 1
        return -INF, INF
    if isinstance(expr, FloorDiv):
        divisor = expr.args[1]
        if divisor.is_Integer and divisor > 0:
            a_lo, a_hi = _bounds(expr.args[0])
            d = int(divisor)
            return (a_lo if a_lo == -INF else a_lo // d), (a_hi if a_hi == INF else a_hi // d)
        return -INF, INF
    if isinstance(expr, sympy.Min):
        bounds = [_bounds(a) for a in expr.args]
        return min(b[0] for b in bounds), min(b[1] for b in bounds)
    if isinstance(expr, sympy.Max):
        bounds = [_bounds(a) for a in expr.args]
        return max(b[0] for b in bounds), max(b[1] for b in bounds)
    return -INF, INF


def _mul(x: float, y: float) -> float:
    if x == 0 or y == 0:
        return 0
    return x * y


def prove_equal(a: int | sympy.Expr, b: int | sympy.Expr) -> bool:
    """True when ``a == b`` holds for every value of the variables."""
    a, b = as_expr(a), as_expr(b)
    return a == b or simplify(a - b) == 0


def prove_not_equal(a: int | sympy.Expr, b: int | sympy.Expr) -> bool:
    """True when ``a != b`` holds for every value of the variables."""
    lo, hi = _bounds(simplify(as_expr(a) - as_expr(b)))
    return lo > 0 or hi < 0


def prove_le(a: int | sympy.Expr, b: int | sympy.Expr) -> bool:
    """True when ``a <= b`` is proven for every value of the variables."""
    return _bounds(simplify(as_expr(b) - as_expr(a)))[0] >= 0


def prove_lt(a: int | sympy.Expr, b: int | sympy.Expr) -> bool:
    """True when ``a < b`` is proven for every value of the variables."""
    return _bounds(simplify(as_expr(b) - as_expr(a)))[0] > 0


RELATIONS = ("==", "<=", "<")
"""The relations a :class:`Fact` may state."""


@dataclass(frozen=True)
class Fact:
    """A relation between symbolic expressions that a program relies on: ``lhs REL rhs``.

    ``what`` says, in the user's terms, why it must hold ("the lhs columns of
    relax.matmul equal its rhs rows"). A fact the compiler can neither prove nor
    disprove is an *obligation*: it is checked at run time (docs/shape-safety.md).
    """

    lhs: sympy.Expr
    relation: str
    rhs: sympy.Expr
    what: str

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise SymbolicError(f"unknown relation '{self.relation}'")

    def decide(self) -> bool | None:
        """True when proven, False when provably violated, None when undecided."""
        if self.relation == "==":
            if prove_equal(self.lhs, self.rhs):
                return True
            return False if prove_not_equal(self.lhs, self.rhs) else None
        prove = prove_le if self.relation == "<=" else prove_lt
        disprove = prove_lt if self.relation == "<=" else prove_le
        if prove(self.lhs, self.rhs):
            return True
        return False if disprove(self.rhs, self.lhs) else None

    def holds(self, bindings: Mapping[str, int]) -> bool:
        """Whether the fact holds for the variable values ``bindings``."""
        lhs, rhs = evaluate(self.lhs, bindings), evaluate(self.rhs, bindings)
        return _COMPARE[self.relation](lhs, rhs)

    def substitute(self, mapping: Mapping[str | sympy.Symbol, int | sympy.Expr]) -> Fact:
        """The fact with variables replaced (see :func:`substitute`)."""
        return Fact(
            substitute(self.lhs, mapping), self.relation, substitute(self.rhs, mapping), self.what
        )

    def free_vars(self) -> set[str]:
        """The variables the fact mentions."""
        return free_vars(self.lhs) | free_vars(self.rhs)

    def __str__(self) -> str:
        return f"{format_expr(self.lhs)} {self.relation} {format_expr(self.rhs)}"

    def failure(self, bindings: Mapping[str, int]) -> str:
        """The one-line description of the fact failing for ``bindings``:
        ``<what>: expected k == m, got k = 3, m = 5``."""
        shown = {name: bindings[name] for name in sorted(self.free_vars()) if name in bindings}
        values = ", ".join(f"{name} = {value}" for name, value in shown.items())
        compound = [e for e in (self.lhs, self.rhs) if not (e.is_Symbol or e.is_Integer)]
        if compound:
            computed = ", ".join(f"{format_expr(e)} = {evaluate(e, bindings)}" for e in compound)
            values = f"{values} ({computed})" if values else computed
        return f"{self.what}: expected {self}" + (f", got {values}" if values else "")


_COMPARE = {
    "==": lambda a, b: a == b,
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
}


# ------------------------------------------------------------------ substitution / evaluation


def free_vars(expr: sympy.Expr) -> set[str]:
    """The names of the variables ``expr`` uses."""
    return {s.name for s in expr.free_symbols}


def substitute(
    expr: sympy.Expr, mapping: Mapping[str | sympy.Symbol, int | sympy.Expr]
) -> sympy.Expr:
    """``expr`` with variables replaced by values or expressions, re-canonicalised."""
    if expr.is_Integer:
        return expr
    if expr.is_Symbol:
        value = _lookup(mapping, expr)
        return expr if value is None else as_expr(value)
    replacements = {}
    for symbol in expr.free_symbols:
        value = _lookup(mapping, symbol)
        if value is not None:
            replacements[symbol] = as_expr(value)
    return expand(expr.xreplace(replacements) if replacements else expr)


def _lookup(
    mapping: Mapping[str | sympy.Symbol, int | sympy.Expr], symbol: sympy.Symbol
) -> int | sympy.Expr | None:
    """What ``mapping`` gives ``symbol`` (by name or by the symbol itself), if anything."""
    value = mapping.get(symbol.name)
    return mapping.get(symbol) if value is None else value


def evaluate(expr: sympy.Expr, bindings: Mapping[str, int]) -> int:
    """The integer value of ``expr`` when each variable has the value ``bindings`` gives it."""
    missing = free_vars(expr) - bindings.keys()
    if missing:
        names = ", ".join(sorted(missing))
        raise SymbolicError(f"no value for symbolic variable(s) {names} in {format_expr(expr)}")
    try:
        value = expr.xreplace({sym(k): sympy.Integer(v) for k, v in bindings.items()})
    except SymbolicError as err:  # floordiv or floormod by a variable that is 0
        used = ", ".join(f"{name} = {bindings[name]}" for name in sorted(free_vars(expr)))
        raise SymbolicError(f"{format_expr(expr)} divides by zero ({used})") from err
    if not value.is_Integer:
        raise SymbolicError(f"{format_expr(expr)} does not evaluate to an integer")
    return int(value)


# ----------------------------------------------------------------------------- printing


_ATOM, _PRODUCT, _SUM = 0, 1, 2


def format_expr(expr: sympy.Expr) -> str:
    """The deterministic textual form of ``expr``; :func:`parse_expr` reads it back."""
    return _format(expr)[0]


def format_dims(dims: Iterable[sympy.Expr]) -> str:
    """``[d0, d1, ...]``."""
    return "[" + ", ".join(format_expr(d) for d in dims) + "]"


@lru_cache(maxsize=65536)
def _format(expr: sympy.Expr) -> tuple[str, int]:
    """The text of ``expr`` and its precedence level."""
    if expr.is_Integer:
        value = int(expr)
        return str(value), (_SUM if value < 0 else _ATOM)
    if expr.is_Symbol:
        return expr.name, _ATOM
    if expr.is_Add:
        terms = sorted(expr.args, key=_term_order)
        text = _format_term(terms[0], first=True)
        for term in terms[1:]:
            text += _format_term(term, first=False)
        return text, _SUM
    if expr.is_Mul or expr.is_Pow:
        return _format_product(expr), _PRODUCT
    for cls, name in _FUNCTION_NAMES.items():
        if isinstance(expr, cls):
            args = sorted(expr.args, key=_sort_key) if cls in (sympy.Min, sympy.Max) else expr.args
            return f"{name}({', '.join(format_expr(a) for a in args)})", _ATOM
    raise SymbolicError(f"cannot print symbolic expression {expr}")


def _sort_key(expr: sympy.Expr) -> tuple[int, str]:
    return (0 if expr.is_Integer else 1, str(expr))


def _term_order(term: sympy.Expr) -> tuple[int, int, bool, bool, str]:
    """Sum terms print highest degree first, plain variables before function calls,
    added before subtracted, constants last, ties by text."""
    coeff, monomial = term.as_coeff_Mul()
    if monomial == 1:
        return (1, 0, False, False, "")
    degree = sum(int(e) for _, e in monomial.as_powers_dict().items() if e.is_Integer)
    has_call = any(not base.is_Symbol for base in monomial.as_powers_dict())
    return (0, -degree, has_call, bool(coeff < 0), _format_product(monomial))


def _format_term(term: sympy.Expr, first: bool) -> str:
    coeff, monomial = term.as_coeff_Mul()
    negative = coeff.is_negative
    magnitude = -term if negative else term
    body = _wrap(magnitude, _PRODUCT)
    if first:
        return f"-{body}" if negative else body
    return f" - {body}" if negative else f" + {body}"


def _format_product(expr: sympy.Expr) -> str:
    coeff, monomial = expr.as_coeff_Mul()
    if not coeff.is_Integer:
        raise SymbolicError(f"non-integer coefficient in {expr}")
    factors: list[str] = []
    for factor in sorted(sympy.Mul.make_args(monomial), key=_sort_key):
        if factor == 1:
            continue
        base, exponent = factor.as_base_exp()
        if not (exponent.is_Integer and exponent > 0):
            raise SymbolicError(f"cannot print symbolic expression {expr}")
        factors += [_wrap(base, _ATOM)] * int(exponent)
    if coeff == -1 and factors:
        return "-" + " * ".join(factors)
    if coeff != 1 or not factors:
        factors.append(str(int(coeff)))
    return " * ".join(factors)


def _wrap(expr: sympy.Expr, level: int) -> str:
    text, own = _format(expr)
    return f"({text})" if own > level else text


_FUNCTION_NAMES: dict[type, str] = {
    FloorDiv: "floordiv",
    FloorMod: "floormod",
    sympy.Min: "min",
    sympy.Max: "max",
}


def to_python(
    expr: sympy.Expr,
    names: Mapping[str, str] | None = None,
    on_zero: Callable[[sympy.Expr], str] | None = None,
) -> str:
    """A Python expression computing ``expr``; ``names`` renames variables. Where
    ``on_zero`` is given, a division whose divisor is not a constant evaluates
    ``on_zero(division)`` (code that raises) when the divisor is 0; else it raises
    Python's ``ZeroDivisionError``."""
    names = names or {}

    def code(e: sympy.Expr) -> str:
        if e.is_Integer:
            return str(int(e))
        if e.is_Symbol:
            return names.get(e.name, e.name)
        if e.is_Add:
            return "(" + " + ".join(code(a) for a in e.args) + ")"
        if e.is_Mul:
            return "(" + " * ".join(code(a) for a in e.args) + ")"
        if e.is_Pow:
            return f"({code(e.base)} ** {int(e.exp)})"
        if isinstance(e, FloorDiv | FloorMod):
            a, b = (code(x) for x in e.args)
            quotient = f"{a} {'//' if isinstance(e, FloorDiv) else '%'} {b}"
            if on_zero is None or e.args[1].is_Integer:
                return f"({quotient})"
            return f"({quotient} if {b} else {on_zero(e)})"
        if isinstance(e, sympy.Min | sympy.Max):
            fn = "min" if isinstance(e, sympy.Min) else "max"
            return f"{fn}({', '.join(code(a) for a in e.args)})"
        raise SymbolicError(f"cannot translate symbolic expression {e}")

    return code(expr)


# ----------------------------------------------------------------------------- parsing

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(.))")
_FUNCTIONS = {"floordiv": floordiv, "floormod": floormod, "min": smin, "max": smax}


class _ExprParser:
    """Recursive descent over ``sum := product (('+'|'-') product)*``,
    ``product := unary ('*' unary)*``, ``unary := '-' unary | atom``,
    ``atom := INT | NAME | NAME '(' sum (',' sum)* ')' | '(' sum ')'``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        for match in _TOKEN.finditer(text):
            number, name, punct = match.groups()
            if number is not None:
                self.tokens.append(("int", number, match.start(1)))
            elif name is not None:
                self.tokens.append(("name", name, match.start(2)))
            elif punct is not None and not punct.isspace():
                self.tokens.append(("punct", punct, match.start(3)))
        self.tokens.append(("end", "", len(text)))
        self.index = 0
        self.depth = 0

    def error(self, message: str) -> SymbolicError:
        err = SymbolicError(message)
        err.offset = self.tokens[self.index][2]  # type: ignore[attr-defined]
        return err

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.index]

    def take(self, value: str) -> bool:
        kind, text, _ = self.peek()
        if kind == "punct" and text == value:
            self.index += 1
            return True
        return False

    def expect(self, value: str) -> None:
        if not self.take(value):
            raise self.error(f"expected '{value}' in symbolic expression, got '{self.peek()[1]}'")

    def parse_sum(self) -> sympy.Expr:
        value = self.parse_product()
        while True:
            if self.take("+"):
                value = value + self.parse_product()
            elif self.take("-"):
                value = value - self.parse_product()
            else:
                return value

    def parse_product(self) -> sympy.Expr:
        value = self.parse_unary()
        while self.take("*"):
            value = value * self.parse_unary()
        return value

    def parse_unary(self) -> sympy.Expr:
        negate = False
        while self.take("-"):
            negate = not negate
        value = self.parse_atom()
        return -value if negate else value

    def enter(self) -> None:
        """One more level of parentheses; refused past :data:`MAX_DEPTH`."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.index -= 1
            raise self.error(f"symbolic expression nested too deeply (more than {MAX_DEPTH})")

    def parse_atom(self) -> sympy.Expr:
        kind, text, _ = self.peek()
        if kind == "int":
            self.index += 1
            return sympy.Integer(int(text))
        if kind == "name":
            self.index += 1
            if text in _FUNCTIONS and self.take("("):
                self.enter()
                args = [self.parse_sum()]
                while self.take(","):
                    args.append(self.parse_sum())
                self.expect(")")
                self.depth -= 1
                arity = {"floordiv": 2, "floormod": 2}.get(text)
                if arity is not None and len(args) != arity:
                    raise self.error(f"{text} takes {arity} arguments, got {len(args)}")
                try:
                    return _FUNCTIONS[text](*args)
                except SymbolicError as err:
                    raise self.error(str(err)) from None
            return sym(text)
        if self.take("("):
            self.enter()
            value = self.parse_sum()
            self.expect(")")
            self.depth -= 1
            return value
        shown = text or "end of input"
        raise self.error(f"expected a symbolic expression, got '{shown}'")

    def parse_dims(self) -> list[sympy.Expr]:
        self.expect("[")
        dims: list[sympy.Expr] = []
        if not self.take("]"):
            dims.append(expand(self.parse_sum()))
            while self.take(","):
                dims.append(expand(self.parse_sum()))
            self.expect("]")
        return dims

    def finish(self) -> None:
        if self.peek()[0] != "end":
            raise self.error(f"unexpected '{self.peek()[1]}' after symbolic expression")


@lru_cache(maxsize=65536)
def parse_expr(text: str) -> sympy.Expr:
    """The expression written as ``text`` (the form :func:`format_expr` prints)."""
    parser = _ExprParser(text)
    value = parser.parse_sum()
    parser.finish()
    return expand(value)


@lru_cache(maxsize=65536)
def parse_dims(text: str) -> Dims:
    """The dimension list written as ``[d0, d1, ...]``."""
    parser = _ExprParser(text)
    dims = parser.parse_dims()
    parser.finish()
    return tuple(dims)


def as_dims(values: Sequence[int | str | sympy.Expr]) -> Dims:
    """A tuple of canonical expressions."""
    return tuple(as_expr(v) for v in values)
