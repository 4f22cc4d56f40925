"""Building the Python source of a kernel: indented lines, fresh names, constants."""

from __future__ import annotations

import builtins
import keyword
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np
import sympy

from xrelax.dialects import dtypes
from xrelax.dialects.shapes import symbolic

GLOBAL_NAMES = frozenset({"np", "ndarray", "rt", "pool", "FP_STATE", "FP_IGNORE"})
"""The module-level names every kernel's code reads (the compiler's namespace)."""

RESERVED = GLOBAL_NAMES | frozenset(dir(builtins)) | frozenset(keyword.kwlist)
"""Names generated code never binds: a symbolic variable or buffer named ``pool`` or
``range`` gets another Python name."""


class Source:
    """The lines of one generated function and the namespace they need."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0
        self.taken: set[str] = set(RESERVED)
        self.namespace: dict[str, Any] = {}
        self._constants: dict[tuple[str, str], str] = {}
        self.py_names: dict[str, str] = {}
        self.kernel_name = self.fresh("name")
        """The Python name of the kernel's first parameter: its name, for its errors."""
        """Python names of the symbolic variables known at run time."""
        self._pure: set[str] = set()
        self.contiguous: set[str] = set()
        """Buffers the code reads or writes as raw row-major memory (``np.ndarray`` over
        them, or a reshape that must not copy): the entry makes them C-contiguous."""

    def line(self, text: str) -> None:
        """Append ``text`` at the current indentation."""
        self.lines.append("    " * self.depth + text)

    def assign(self, name: str, code: str) -> None:
        """``name = code`` where ``code`` has no side effects: dropped from the text if
        ``name`` is never read (a view that a later step bypassed)."""
        self.line(f"{name} = {code}")
        self._pure.add(name)

    @contextmanager
    def indented(self, header: str) -> Iterator[None]:
        """``header:`` followed by an indented block."""
        self.line(header)
        self.depth += 1
        mark = len(self.lines)
        yield
        if len(self.lines) == mark:
            self.line("pass")
        self.depth -= 1

    def fresh(self, base: str) -> str:
        """A new Python identifier based on ``base``."""
        base = re.sub(r"\W", "_", base) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, k = base, 0
        while name in self.taken or keyword.iskeyword(name):
            k += 1
            name = f"{base}{k}"
        self.taken.add(name)
        return name

    def bind_symbol(self, var: str) -> str:
        """The Python name of the run-time symbolic variable ``var`` (created once)."""
        if var not in self.py_names:
            self.py_names[var] = self.fresh(var)
        return self.py_names[var]

    def const(self, value: Any, dtype: np.dtype) -> str:
        """A global name holding the numpy scalar ``value`` of ``dtype``."""
        scalar = dtype.type(value)
        key = (dtype.str, repr(scalar.item()) if dtype.kind != "f" else scalar.tobytes().hex())
        if key not in self._constants:
            name = self.fresh(f"c{len(self._constants)}")
            self.namespace[name] = scalar
            self._constants[key] = name
        return self._constants[key]

    def value(self, base: str, value: Any) -> str:
        """A new global name holding ``value`` (read by the generated code)."""
        name = self.fresh(base)
        self.namespace[name] = value
        return name

    def dtype(self, dtype: np.dtype) -> str:
        """A global name holding the numpy dtype ``dtype``."""
        key = ("dtype", dtype.str)
        if key not in self._constants:
            name = self.fresh(f"dtype_{dtype.name}")
            self.namespace[name] = dtype
            self._constants[key] = name
        return self._constants[key]

    def py(self, expr: sympy.Expr, names: Mapping[str, str] | None = None) -> str:
        """Python code computing the symbolic expression ``expr`` at run time."""
        mapping = dict(self.py_names)
        if names:
            mapping.update(names)
        return symbolic.to_python(sympy.expand(expr), mapping, self._division_error)

    def _division_error(self, division: sympy.Expr) -> str:
        """Code raising the kernel's error for ``division`` by a divisor of 0."""
        variables = sorted(symbolic.free_vars(division))
        values = ", ".join(f"{v!r}: {self.py_names.get(v, v)}" for v in variables)
        text = symbolic.format_expr(division)
        return f"rt.division_error({self.kernel_name}, {text!r}, {{{values}}})"

    def text(self) -> str:
        """The source, without the side-effect-free assignments nothing reads."""
        lines = list(self.lines)
        while True:
            reads = Counter(word for line in lines for word in re.findall(r"\b\w+\b", line))
            dead = {
                k
                for k, line in enumerate(lines)
                if (match := _ASSIGNMENT.match(line))
                and match.group(1) in self._pure
                and reads[match.group(1)] == 1
            }
            if not dead:
                return "\n".join(lines) + "\n"
            lines = _fill_empty_blocks([line for k, line in enumerate(lines) if k not in dead])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _fill_empty_blocks(lines: list[str]) -> list[str]:
    """``pass`` in the blocks that removing lines emptied."""
    filled: list[str] = []
    for k, line in enumerate(lines):
        filled.append(line)
        if line.endswith(":") and (k + 1 == len(lines) or _indent(lines[k + 1]) <= _indent(line)):
            filled.append(" " * (_indent(line) + 4) + "pass")
    return filled


_ASSIGNMENT = re.compile(r"\s*(\w+) = ")


def numpy_expr(expr: sympy.Expr, names: Mapping[str, str]) -> str:
    """Python code for ``expr`` whose variables may be numpy arrays (``names`` maps them)."""
    if expr.is_Integer:
        return str(int(expr))
    if expr.is_Symbol:
        return names[expr.name]
    if expr.is_Add:
        return "(" + " + ".join(numpy_expr(a, names) for a in expr.args) + ")"
    if expr.is_Mul:
        return "(" + " * ".join(numpy_expr(a, names) for a in expr.args) + ")"
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        return f"({numpy_expr(expr.base, names)} ** {int(expr.exp)})"
    if isinstance(expr, symbolic.FloorDiv):
        a, b = (numpy_expr(x, names) for x in expr.args)
        return f"({a} // {b})"
    if isinstance(expr, symbolic.FloorMod):
        a, b = (numpy_expr(x, names) for x in expr.args)
        return f"({a} % {b})"
    if isinstance(expr, sympy.Min | sympy.Max):
        fn = "np.minimum" if isinstance(expr, sympy.Min) else "np.maximum"
        code = numpy_expr(expr.args[0], names)
        for arg in expr.args[1:]:
            code = f"{fn}({code}, {numpy_expr(arg, names)})"
        return code
    raise symbolic.SymbolicError(f"cannot translate symbolic expression {expr}")


def dtype_code(dtype: np.dtype) -> str:
    """The numpy scalar type of ``dtype`` as code (``np.float32``; bf16 is ml_dtypes')."""
    if dtype == dtypes.BFLOAT16:
        return "rt.bfloat16"
    return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"
