"""The audit's programs: one relax function per case, written twice.

* The **symbolic** form: every dimension other than 1 is a symbolic variable named
  after its size (``s300``), the operator's result goes through an elementwise
  neighbour (``relax.maximum %u, %u``, exact on every dtype) inside a dataflow region,
  so that ``relax-fuse-ops`` merges the two. Compiled with and without fusion, and run
  by the reference interpreter.
* The **rank-only** form (``!relax.tensor<ndim=2, f32>``): the operator has no shape
  to compile a kernel from and runs as ``call_packed "relax.op.<name>"``.

The functions of all cases of one operator and dtype form one module, legalized once
by the default pipeline and lowered with and without fusion; a case whose operand
types the operator refuses (a compile-time refusal) has a module of its own, and so
has every case when the shared module does not compile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

import xrelax
from xrelax.backends.interpreter import InterpreterError
from xrelax.backends.vm.assembler import assemble
from xrelax.dialects import dtypes
from xrelax.dialects.ir.diagnostics import LocatingParser
from xrelax.dialects.relax import (
    CallPackedOp,
    CallTIROp,
    FuncOp,
    RelaxError,
    TupleType,
    show_type,
)
from xrelax.ops.base import OperatorOp
from xrelax.ops.library import OPERATORS
from xrelax.transforms.pass_manager import Instrumentation
from xrelax.transforms.relax_to_vm import DEFAULT_PIPELINE

NO_FUSION_SKIPS = ("relax-fuse-ops", "relax-fuse-tir", "tir-inline-copies")
"""The passes the pipeline without fusion leaves out (as test_shape_safety.py)."""

OPERATOR_CLASSES: dict[str, type[OperatorOp]] = {op.name: op for op in OPERATORS}

REFUSALS = (xrelax.VMError, InterpreterError, xrelax.CompileError)
"""The exception types of a clean refusal."""


# ----------------------------------------------------------------------------- operands


@dataclass(frozen=True)
class Shape:
    """A shape operand: a ``!relax.shape`` parameter, or (``literal``) a ``relax.shape``
    of constants in the body (a ``-1`` entry cannot be a parameter's value)."""

    dims: tuple[int, ...]
    literal: bool = False


@dataclass(frozen=True)
class Prim:
    """A ``!relax.prim<i64>`` operand (a symbolic integer passed as a value)."""

    value: int


Operand = np.ndarray | Shape | Prim


@dataclass(frozen=True, eq=False)
class Case:
    """One application of an operator to run on every path."""

    op: str
    """The operator, ``relax.take``."""
    dtype: str
    """The element type the case is filed under (the operator's main operand's)."""
    name: str
    """Unique among the cases of ``op`` and ``dtype``."""
    args: tuple[Operand, ...]
    props: dict[str, Any] = field(default_factory=dict)
    """The properties as Python values (:func:`props_text` writes them)."""
    static: bool = False
    """Write every dimension as a constant rather than a symbolic variable."""
    constant: tuple[tuple[int, int], ...] = ()
    """``(operand, axis)`` pairs of dimensions written as constants (``gather_nd``'s
    index depth must be one)."""
    ones: bool = False
    """Write a dimension of size 1 as a symbolic variable (``s1``), not the constant 1:
    deduction cannot know that it broadcasts."""
    views: bool = False
    """Pass the tensors as read-only views with negative strides (not contiguous, not
    writable) instead of fresh contiguous arrays."""

    @property
    def id(self) -> str:
        """The test id: ``take-i32-negative-i8``."""
        return f"{self.op.removeprefix('relax.')}-{self.dtype}-{self.name}"

    @property
    def call_args(self) -> list[Any]:
        """The arguments of the function (literal shapes are not parameters)."""
        values: list[Any] = []
        for arg in self.args:
            if isinstance(arg, Shape):
                if not arg.literal:
                    values.append(arg.dims)
            elif isinstance(arg, Prim):
                values.append(arg.value)
            elif self.views:
                view = np.flip(np.flip(arg).copy()) if arg.ndim else arg.copy()
                view.flags.writeable = False
                values.append(view)
            else:
                values.append(arg.copy())
        return values


# ----------------------------------------------------------------------------- text


def props_text(props: dict[str, Any]) -> str:
    """An attribute dictionary: ints are ``i64``, lists ``array<i64: ...>``, floats
    ``f32``, strings element types."""
    items = []
    for key, value in props.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            text = f"{value} : i64"
        elif isinstance(value, float):
            text = f"{value:.8e} : f32"
        elif isinstance(value, str):
            text = value
        else:
            text = f"array<i64: {', '.join(map(str, value))}>" if value else "array<i64>"
        items.append(f"{key} = {text}")
    return "{" + ", ".join(items) + "}" if items else ""


def _dim(size: int, case: Case, constant: bool = False) -> str:
    if case.static or constant or (size == 1 and not case.ones):
        return str(size)
    return f"s{size}"


def _tensor(array: np.ndarray, rank_only: bool, case: Case, constant: set[int]) -> str:
    dtype = dtypes.NAME_OF[dtypes.from_numpy(array.dtype)]
    if rank_only:
        return f"!relax.tensor<ndim={array.ndim}, {dtype}>"
    dims = [_dim(d, case, a in constant) for a, d in enumerate(array.shape)]
    return f"!relax.tensor<[{', '.join(dims)}], {dtype}>"


def _prim(value: int, rank_only: bool, case: Case) -> str:
    if rank_only:
        return "!relax.prim<i64>"
    return f"!relax.prim<i64, {_dim(value, case) if value >= 0 else value}>"


def _shape(shape: Shape, rank_only: bool, case: Case) -> str:
    if shape.literal:
        return f"!relax.shape<[{', '.join(map(str, shape.dims))}]>"
    if rank_only:
        return f"!relax.shape<ndim={len(shape.dims)}>"
    return f"!relax.shape<[{', '.join(_dim(d, case) for d in shape.dims)}]>"


def _parse_type(text: str) -> Attribute:
    return LocatingParser(xrelax.context(), text).parse_type()


def _parse_props(text: str) -> dict[str, Attribute]:
    return dict(LocatingParser(xrelax.context(), text or "{}").parse_optional_attr_dict())


@dataclass(frozen=True)
class _Application:
    """The pieces of a case's function: parameters, operands and their types, literal
    shapes, and the deduced result type (None: deduction refuses the operands)."""

    params: list[str]
    operands: list[str]
    types: list[str]
    literals: list[str]
    result: str | None


@cache
def _application(case: Case, rank_only: bool) -> _Application:
    params, operands, literals, types = [], [], [], []
    for k, arg in enumerate(case.args):
        if isinstance(arg, Shape):
            type_ = _shape(arg, rank_only, case)
            if arg.literal:
                literals.append(f"%a{k} = relax.shape [{', '.join(map(str, arg.dims))}] : {type_}")
            else:
                params.append(f"%a{k}: {type_}")
        elif isinstance(arg, Prim):
            type_ = _prim(arg.value, rank_only, case)
            params.append(f"%a{k}: {type_}")
        else:
            constant = {a % max(arg.ndim, 1) for j, a in case.constant if j == k}
            type_ = _tensor(arg, rank_only, case, constant)
            params.append(f"%a{k}: {type_}")
        operands.append(f"%a{k}")
        types.append(type_)
    try:
        deduced = (
            OPERATOR_CLASSES[case.op]
            .deduction([_parse_type(t) for t in types], _parse_props(props_text(case.props)))
            .type
        )
        result = show_type(deduced)
    except RelaxError:
        result = None
    return _Application(params, operands, types, literals, result)


def shaped(case: Case) -> bool:
    """Whether deduction gives the symbolic form's result a shape (else the VM runs the
    operator on the safety net: an unknown shape has no kernel)."""
    result = _application(case, False).result
    if result is None:
        return False
    type_ = _parse_type(result)
    fields = type_.types if isinstance(type_, TupleType) else [type_]
    return all(field.dims is not None for field in fields)


def deduces(case: Case, rank_only: bool) -> bool:
    """Whether the operator's deduction accepts the case's operand types (else the
    parser refuses the function)."""
    return _application(case, rank_only).result is not None


def function_text(case: Case, index: int, rank_only: bool) -> str:
    """The relax function ``@c<index>`` applying the case's operator to its parameters."""
    app = _application(case, rank_only)
    result = app.result or "!relax.tensor<*, ?>"
    attrs = f" {props_text(case.props)}" if case.props else ""
    short = case.op.removeprefix("relax.")
    apply = f"relax.{short} {', '.join(app.operands)}{attrs} : ({', '.join(app.types)})"
    lines = [f"relax.func @c{index}({', '.join(app.params)}) -> {result} {{"]
    if rank_only or app.result is None or app.result.startswith("!relax.shape"):
        lines += [f"  {line}" for line in app.literals]
        lines += [f"  %u = {apply}", f"  relax.return %u : {result}", "}"]
        return "\n".join(lines)
    body = [*app.literals, f"%u = {apply} -> {result}", *_neighbour(result)]
    lines.append(f"  %r = relax.dataflow -> {result} {{")
    lines += [f"    {line}" for line in body]
    lines += [f"    relax.output %z : {result}", "  }", f"  relax.return %r : {result}", "}"]
    return "\n".join(lines)


def _neighbour(result: str) -> list[str]:
    """``%z = relax.maximum %u, %u`` (of each field of a tuple): the elementwise op the
    operator fuses with; the maximum of a value with itself is the value, on every
    dtype (``i1``: or)."""
    type_ = _parse_type(result)
    if not isinstance(type_, TupleType):
        return [f"%z = relax.maximum %u, %u : ({result}, {result})"]
    lines, fields = [], []
    for k, field_type in enumerate(type_.types):
        shown = show_type(field_type)
        lines.append(f"%e{k} = relax.get_item %u[{k}] : ({result}) -> {shown}")
        lines.append(f"%m{k} = relax.maximum %e{k}, %e{k} : ({shown}, {shown})")
        fields.append((f"%m{k}", shown))
    names, shown = zip(*fields, strict=True)
    lines.append(f"%z = relax.tuple {', '.join(names)} : ({', '.join(shown)}) -> {result}")
    return lines


# ----------------------------------------------------------------------------- compiling

_LEGALIZE = DEFAULT_PIPELINE.index("relax-legalize-ops") + 1
LEGALIZE = ",".join(DEFAULT_PIPELINE[:_LEGALIZE])
"""The default pipeline up to legalization, which both VM paths share."""
FUSED_REST = ",".join(DEFAULT_PIPELINE[_LEGALIZE:])
UNFUSED_REST = ",".join(p for p in DEFAULT_PIPELINE[_LEGALIZE:] if p not in NO_FUSION_SKIPS)
"""The rest of the default pipeline, with and without fusion."""


def kernel_calls(module: ModuleOp) -> dict[str, list[str]]:
    """Per relax function, its kernel calls: ``call_tir @k`` and ``call_packed "name"``."""
    calls: dict[str, list[str]] = {}
    for func in module.body.block.ops:
        if not isinstance(func, FuncOp):
            continue
        found = calls.setdefault(func.sym_name.data, [])
        for op in func.walk():
            if isinstance(op, CallTIROp):
                found.append(f"call_tir @{op.callee.root_reference.data}")
            elif isinstance(op, CallPackedOp):
                found.append(f'call_packed "{op.callee.data}"')
    return calls


@dataclass
class _CallsAfter(Instrumentation):
    """Records the kernel calls of each relax function after ``pass_name``."""

    pass_name: str = ""
    calls: dict[str, list[str]] = field(default_factory=dict)

    def after(self, pass_: Any, module: ModuleOp, seconds: float) -> None:
        super().after(pass_, module, seconds)
        if pass_.name == self.pass_name:
            self.calls = kernel_calls(module)


@dataclass
class Compiled:
    """A module compiled for one path: its VM, and the kernel calls of each function
    after legalization (unfused, safety net) or fusion (fused)."""

    vm: Any = None
    calls: dict[str, list[str]] = field(default_factory=dict)
    error: Exception | None = None


def _lower(module: ModuleOp, rest: str, inspect: str | None) -> Compiled:
    recorder = _CallsAfter(pass_name=inspect or "")
    try:
        lowered = xrelax.apply(module, rest, recorder, verify_each=False)
        vm = xrelax.VirtualMachine(assemble(lowered))
    except Exception as err:  # noqa: BLE001 - every failure is an outcome the audit judges
        return Compiled(error=err)
    return Compiled(vm, recorder.calls)


def compile_paths(text: str, rank_only: bool) -> dict[str, Compiled]:
    """``text`` compiled by the default pipeline: legalized once, then lowered with and
    without fusion (rank-only: the safety net, lowered as the default pipeline does)."""
    try:
        legalized = xrelax.apply(xrelax.parse(text), LEGALIZE, verify_each=False)
    except Exception as err:  # noqa: BLE001 - every failure is an outcome the audit judges
        failed = Compiled(error=err)
        return {"safety-net": failed} if rank_only else {"vm-fused": failed, "vm-unfused": failed}
    calls = kernel_calls(legalized)
    if rank_only:
        lowered = _lower(legalized, FUSED_REST, None)
        return {"safety-net": Compiled(lowered.vm, calls, lowered.error)}
    fused = _lower(legalized.clone(), FUSED_REST, "relax-fuse-tir")
    unfused = _lower(legalized, UNFUSED_REST, None)
    return {"vm-fused": fused, "vm-unfused": Compiled(unfused.vm, calls, unfused.error)}


PATHS = ("vm-fused", "vm-unfused", "safety-net", "interpreter")
"""The paths every case runs on, besides the oracle."""


class Batch:
    """The cases of one operator and dtype as modules, each compiled once per path: the
    cases whose types the operator accepts share one module, a case it refuses at
    compile time has its own, and so has every case when the shared module does not
    compile (the interpreter runs each case's function alone: its refusals print the
    whole module)."""

    def __init__(self, cases: Sequence[Case]) -> None:
        self.cases = list(cases)
        self.index = {id(case): k for k, case in enumerate(self.cases)}
        self._compiled: dict[tuple[bool, int | None], dict[str, Compiled]] = {}

    def text(self, rank_only: bool, only: int | None = None) -> str:
        """The shared module (or the module of case number ``only``)."""
        if only is not None:
            return function_text(self.cases[only], only, rank_only)
        shared = [k for k, c in enumerate(self.cases) if deduces(c, rank_only)]
        return "\n".join(function_text(self.cases[k], k, rank_only) for k in shared)

    def compiled(self, path: str, case: Case) -> tuple[Compiled, str]:
        """The compiled module holding the case's function, and the function's name."""
        number = self.index[id(case)]
        rank_only = path == "safety-net"
        if deduces(case, rank_only):
            shared = self._compile(rank_only, None)[path]
            if shared.error is None:
                return shared, f"c{number}"
        return self._compile(rank_only, number)[path], f"c{number}"

    def _compile(self, rank_only: bool, only: int | None) -> dict[str, Compiled]:
        key = (rank_only, only)
        if key not in self._compiled:
            self._compiled[key] = compile_paths(self.text(rank_only, only), rank_only)
        return self._compiled[key]


# ----------------------------------------------------------------------------- outcomes


@dataclass
class Outcome:
    """What one path gave: a value, or an error (``clean``: a one-line refusal of the
    accepted types)."""

    value: Any = None
    error: str | None = None
    error_type: str | None = None
    clean: bool = True
    notes: list[str] = field(default_factory=list)
    """What the path's IR showed that it should not (no fusion, no safety net)."""

    @property
    def refused(self) -> bool:
        """Whether the path gave an error."""
        return self.error is not None


def error_outcome(err: BaseException) -> Outcome:
    """The outcome of an exception: clean when it is a refusal type on one line."""
    message = str(err)
    clean = isinstance(err, REFUSALS) and "\n" not in message and "Traceback" not in message
    return Outcome(error=message, error_type=type(err).__name__, clean=clean)


def run_guarded(run: Callable[[], Any]) -> Outcome:
    """The outcome of ``run()``."""
    try:
        return Outcome(value=run())
    except Exception as err:  # noqa: BLE001 - every failure is an outcome the audit judges
        return error_outcome(err)


def _folded(batch: Batch, case: Case) -> bool:
    """Whether canonicalization removed the operator (``astype`` to its own type, a
    ``flatten`` of a vector): after legalization only its neighbours' kernels remain."""
    compiled, name = batch.compiled("vm-unfused", case)
    calls = compiled.calls.get(name, [])
    neighbours = [c for c in calls if c.startswith("call_tir @maximum")]
    return case.op != "relax.maximum" and bool(calls) and neighbours == calls


def run_path(batch: Batch, case: Case, path: str) -> Outcome:
    """Run ``case`` on ``path`` (one of :data:`PATHS`), checking the path's IR: the
    fused function makes one kernel call, the unfused one calls the operator's kernel
    and its neighbour's; the rank-only one (and a symbolic one whose result has no
    shape, a data-dependent operator's) calls ``relax.op.<name>``."""
    number = batch.index[id(case)]
    if path == "interpreter":
        try:
            module = xrelax.parse(batch.text(False, number))
        except Exception as err:  # noqa: BLE001 - judged as an outcome
            return error_outcome(err)
        return run_guarded(lambda: xrelax.interpret(module, f"c{number}", *case.call_args))
    compiled, name = batch.compiled(path, case)
    if compiled.error is not None:
        return error_outcome(compiled.error)
    outcome = run_guarded(lambda: compiled.vm[name](*case.call_args))
    calls = compiled.calls.get(name, [])
    packed = f'call_packed "relax.op.{case.op.removeprefix("relax.")}"'
    if path == "safety-net" or not shaped(case):
        if packed not in calls:
            outcome.notes.append(f"the operator of unknown shape does not call {packed}: {calls}")
    elif not _folded(batch, case):
        if path == "vm-fused" and (len(calls) != 1 or not calls[0].startswith("call_tir @fused_")):
            outcome.notes.append(f"the operator is not fused with its neighbour: {calls}")
        if path == "vm-unfused" and len([c for c in calls if c.startswith("call_tir")]) < 2:
            outcome.notes.append(f"expected a kernel call per operator without fusion: {calls}")
    return outcome
