"""Write ``op.py`` and ``topi.py``: one ``def`` per operator, from its IRDL definition.

    python -m xrelax.tools.gen_api            # rewrite both modules
    python -m xrelax.tools.gen_api --check    # exit 1 if either is out of date

Each ``def`` states the operator's Python signature (its operands in order, then its
properties as keywords defaulting to ``None``) and its docstring, so that ``op.matmul``
is found by grep and by an editor. The ``def`` is a declaration: its decorator puts the
operator's function (:func:`xrelax.ops.functions.operator_function`,
:func:`~xrelax.ops.functions.compute_function`), which converts and checks the call,
in its place. Adding an operator means running this tool (a test fails until then).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Callable
from pathlib import Path

from xrelax.ops.functions import OperatorSignature
from xrelax.ops.library import OPERATORS, operator_functions

PACKAGE = Path(__file__).resolve().parent.parent
COMMAND = "python -m xrelax.tools.gen_api"
LINE_LENGTH = 100

OP_HEADER = '''\
"""Python functions for the relax operators: ``from xrelax import op``.

Every operator class listed in :mod:`xrelax.ops` has a function named after it
(``relax.matmul`` -> ``op.matmul``), generated from its IRDL definition (so are
``relax.shape_of`` and ``relax.tuple``, whose result types are deduced too)::

    y = bb.emit(op.matmul(x, w))
    s = bb.emit(op.sum(y, axis=[1], keepdims=True))
    r = bb.emit(op.reshape(x, [n, 4]))          # a list of dims becomes a relax.shape

A function returns the operation with its result type deduced, **not yet inserted**
(as TVM's ``relax.op.*`` return a Call): :meth:`BlockBuilder.emit` inserts it, after
the not-yet-inserted operations its operands come from, so calls nest
(``bb.emit(op.add(op.exp(x), y))``); a rewrite pattern hands it to
``rewriter.replace``.

Operands are given positionally or by their names (``lhs``, ``rhs``, ``x``, ...):
relax values, not-yet-inserted operations, a list of dims for a shape operand
(ints, variable names, sympy expressions), an int, a variable name or a sympy
expression for a prim operand (a ``relax.prim_value``: ``op.arange(0, n, 2)``,
``op.full([n, 3], 7)``), a numpy array for a tensor operand (a ``relax.const``),
and a list of values for a variadic operand (``op.concat([a, b],
axis=0)``). Attributes are keywords, converted to the kind the operator declares:
ints (``axis=1``), lists of ints (``axes=[1, 0]``; an int where a list is declared
is a list of one), bools, floats, element types as names (``dtype="f16"``) or numpy
dtypes, or MLIR attributes as they are; ``None`` leaves an attribute out.

A call that does not fit the operator is a ``TypeError``; a deduction error (shapes
that cannot broadcast, ...) is a :class:`~xrelax.dialects.relax.RelaxError` naming
the operator.

Written by ``{command}``: each ``def`` below declares an
operator's signature and docstring, and ``@_function`` puts the operator's function in
its place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.ir import Operation

from xrelax.ops.library import operator_functions

FUNCTIONS: dict[str, Callable[..., Operation]] = operator_functions()
"""The function of each operator (and of ``shape_of``, ``tuple``), by its name
without ``relax.``."""

__all__ = ["FUNCTIONS", *FUNCTIONS]


def _function(declaration: Callable[..., Operation]) -> Callable[..., Operation]:
    """The operator's function, in place of the ``def`` that declares it."""
    return FUNCTIONS[declaration.__name__]
'''

TOPI_HEADER = '''\
"""A TOPI-style library of TE compute definitions: one function per relax operator.

``topi.NAME(*tensors, **attributes)`` builds, from ``te.Tensor`` operands, the
tensor the operator ``relax.NAME`` computes (``topi.matmul(A, B)``,
``topi.sum(X, axis=[1], keepdims=True)``, ``topi.reshape(X, [n, 4])``), for use in
``te.compute`` programs and :meth:`BlockBuilder.emit_te`::

    def dense_relu(x, w):
        return topi.relu(topi.matmul(x, w))

    y = bb.emit_te(dense_relu, x, w)     # one kernel: matmul then relu

Each function is the operator's own legalization (its ``emit_te``), with the result
shape from the operator's deduction, so the kernels are the ones
``relax-legalize-ops`` generates and a new operator gets its function from
``{command}``. Operands and attributes are given as to the :mod:`xrelax.op`
functions, with ``te.Tensor`` operands (a shape operand is a list of dims). Operators
whose result shape depends on tensor values (``unique``) have none.

A fact about the shapes the deduction relies on but cannot prove (``k == m`` for
``topi.matmul`` of ``[n, k]`` and ``[m, 2]``) travels with the result tensor
(``te.Tensor.facts``) and becomes a ``tir.assert`` of the kernel that computes it
(``BlockBuilder.emit_te``, ``te.create_prim_func``).

Errors: a ``TypeError`` for a call that does not fit the operator, a
:class:`~xrelax.dialects.relax.RelaxError` when the deduction fails or cannot give the
result shape (operands whose shapes are not provably compatible: ``match_shape`` them
to common variables first).

Written by ``{command}``: each ``def`` below declares an
operator's signature and docstring, and ``@_compute`` puts the operator's compute
function in its place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xrelax.ops.functions import ComputeResult, OperatorSignature, compute_function
from xrelax.ops.library import OPERATORS

FUNCTIONS: dict[str, Callable[..., ComputeResult]] = {{
    OperatorSignature.of(op_type).function_name: compute_function(op_type)
    for op_type in OPERATORS
    if not op_type.DATA_DEPENDENT
}}
"""The compute function of each operator, by its name without ``relax.``."""

__all__ = ["FUNCTIONS", *FUNCTIONS]


def _compute(declaration: Callable[..., ComputeResult]) -> Callable[..., ComputeResult]:
    """The operator's compute function, in place of the ``def`` that declares it."""
    return FUNCTIONS[declaration.__name__]
'''


def _def(decorator: str, name: str, signature: inspect.Signature, returns: str, doc: str) -> str:
    """One declaration, laid out as ``ruff format`` lays it out."""
    params = [
        f"{p.name}: Any" for p in signature.parameters.values() if p.kind == p.POSITIONAL_OR_KEYWORD
    ]
    keywords = [p.name for p in signature.parameters.values() if p.kind == p.KEYWORD_ONLY]
    if keywords:
        params += ["*", *(f"{keyword}: Any = None" for keyword in keywords)]
    line = f"def {name}({', '.join(params)}) -> {returns}:"
    if len(line) > LINE_LENGTH:
        line = f"def {name}(\n" + "".join(f"    {p},\n" for p in params) + f") -> {returns}:"
    return f"\n\n@{decorator}\n{line}\n{_docstring(doc)}\n"


def _docstring(doc: str) -> str:
    lines = inspect.cleandoc(doc).splitlines()
    body = "\n".join(f"    {text}".rstrip() for text in lines)
    closing = "\n    " if len(lines) > 1 else ""
    return f'    """{body.removeprefix("    ")}{closing}"""'


def _module(header: str, decorator: str, returns: str, docs: dict[str, str]) -> str:
    """A generated module: ``header``, then a declaration per function of ``docs``."""
    functions = operator_functions()
    text = header.format(command=COMMAND)
    for name in sorted(docs):
        signature = inspect.signature(functions[name])
        text += _def(decorator, name, signature, returns, docs[name])
    return text


def render_op() -> str:
    """The text of ``op.py``."""
    docs = {name: function.__doc__ or "" for name, function in operator_functions().items()}
    return _module(OP_HEADER, "_function", "Operation", docs)


def render_topi() -> str:
    """The text of ``topi.py``."""
    docs = {
        OperatorSignature.of(op_type).function_name: op_type.__doc__ or ""
        for op_type in OPERATORS
        if not op_type.DATA_DEPENDENT
    }
    return _module(TOPI_HEADER, "_compute", "ComputeResult", docs)


MODULES: dict[str, Callable[[], str]] = {"op.py": render_op, "topi.py": render_topi}
"""Each generated module, by its file name in the package, and its renderer."""


def stale_modules() -> list[str]:
    """The generated modules whose checked-in text differs from what this tool writes."""
    return [name for name, render in MODULES.items() if (PACKAGE / name).read_text() != render()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gen_api", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    stale = stale_modules()
    if args.check:
        for name in stale:
            print(f"gen_api: {name} is out of date: run `{COMMAND}`", file=sys.stderr)
        return 1 if stale else 0
    for name in stale:
        (PACKAGE / name).write_text(MODULES[name]())
        print(f"gen_api: wrote {PACKAGE / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
