"""The reference interpreter: run relax functions directly on numpy arrays.

It is the oracle of the numeric tests: operators run their numpy reference kernels,
``call_tir`` runs the tir function through the kernel backend, ``call_packed`` calls
the registered packed function, and every parameter type and ``match_shape`` is
checked at run time (symbolic variables bound on first occurrence, checked after).
Built on xDSL's ``Interpreter``: one implementation per op kind.

```python
out = interpret(module, "main", x, w)
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import (
    InterpretationError,
    Interpreter,
    InterpreterFunctions,
    ReturnedValues,
    impl,
    impl_callable,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute
from xdsl.traits import SymbolTable

from xrelax.dialects import dtypes, relax, symbolic
from xrelax.dialects.relax import ShapeType, TensorType, TupleType
from xrelax.dialects.symbolic import Dims


class InterpreterError(ValueError):
    """A run-time failure (shape check, missing packed function, bad argument)."""


Env = dict[str, int]


def interpret(module: ModuleOp, entry: str, *args: Any) -> Any:
    """Run relax function ``entry`` of ``module`` on numpy arrays (tuples for tuple values).

    Floating-point arithmetic follows IEEE rules silently (overflow gives inf, 0/0 nan),
    as the VM's kernels do: numpy's warnings are off while it runs."""
    interpreter = Interpreter(module)
    interpreter.register_implementations(RelaxFunctions())
    interpreter.register_implementations(operator_functions())
    func = SymbolTable.lookup_symbol(module, entry)
    if not isinstance(func, relax.FuncOp):
        raise InterpreterError(f"no relax function @{entry} in the module")
    try:
        with np.errstate(all="ignore"):
            (result,) = interpreter.call_op(func, args)
    except InterpretationError as err:
        raise InterpreterError(str(err)) from err
    return result


# ------------------------------------------------------------------------- checking values


def _where(func: str, what: str) -> str:
    return f"{func}: {what}"


def match_value(value: Any, type_: Attribute, env: Env, where: str) -> None:
    """Check ``value`` against ``type_``, binding new symbolic variables into ``env``."""
    if isinstance(type_, TensorType):
        if not isinstance(value, np.ndarray):
            raise InterpreterError(f"{where}: expected a tensor, got {type(value).__name__}")
        if type_.known_dtype is not None and value.dtype != dtypes.numpy_dtype(type_.dtype):
            raise InterpreterError(
                f"{where}: expected dtype {dtypes.numpy_name(type_.dtype)}, got {value.dtype}"
            )
        _match_dims(value.shape, type_, env, where)
    elif isinstance(type_, ShapeType):
        if not isinstance(value, tuple):
            raise InterpreterError(f"{where}: expected a shape, got {type(value).__name__}")
        _match_dims(value, type_, env, where)
    elif isinstance(type_, TupleType):
        if not isinstance(value, tuple) or len(value) != len(type_.types):
            raise InterpreterError(f"{where}: expected a tuple of {len(type_.types)}")
        for index, (element, element_type) in enumerate(zip(value, type_.types, strict=True)):
            match_value(element, element_type, env, f"{where}[{index}]")


def _match_dims(shape: Sequence[int], type_: TensorType | ShapeType, env: Env, where: str) -> None:
    if type_.ndim is not None and len(shape) != type_.ndim:
        raise InterpreterError(f"{where}: expected rank {type_.ndim}, got rank {len(shape)}")
    if type_.dims is None:
        return
    match_pattern(shape, type_.dims, env, where)


def match_pattern(shape: Sequence[int], pattern: Dims, env: Env, where: str) -> None:
    """Bind the plain variables of ``pattern`` first, then check every dimension."""
    for dim, actual in zip(pattern, shape, strict=True):
        if dim.is_Symbol and dim.name not in env:
            env[dim.name] = int(actual)
    for index, (dim, actual) in enumerate(zip(pattern, shape, strict=True)):
        expected = symbolic.evaluate(dim, env)
        if expected != actual:
            label = (
                f" (symbolic variable {dim.name})"
                if dim.is_Symbol
                else ("" if dim.is_Integer else f" ({symbolic.format_expr(dim)})")
            )
            raise InterpreterError(
                f"{where}: dimension {index}{label}: expected {expected}, got {actual}"
            )


def evaluate_dims(dims: Dims, env: Env) -> tuple[int, ...]:
    """The concrete shape of symbolic ``dims``."""
    return tuple(symbolic.evaluate(d, env) for d in dims)


# ----------------------------------------------------------------------------- op semantics


@register_impls
class RelaxFunctions(InterpreterFunctions):
    """Implementations of the structural relax ops."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, Env]] = []

    @property
    def env(self) -> Env:
        return self.frames[-1][1]

    @property
    def func_name(self) -> str:
        return self.frames[-1][0]

    @impl_callable(relax.FuncOp)
    def call_func(
        self, interpreter: Interpreter, op: relax.FuncOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        name = op.sym_name.data
        params = op.function_type.inputs.data
        if len(args) != len(params):
            raise InterpreterError(f"{name}: expected {len(params)} arguments, got {len(args)}")
        env: Env = {}
        for param, arg, type_ in zip(op.param_names, args, params, strict=True):
            match_value(arg, type_, env, _where(name, f"parameter '{param}'"))
        self.frames.append((name, env))
        try:
            return interpreter.run_ssacfg_region(op.body, args, name)
        finally:
            self.frames.pop()

    @impl_terminator(relax.ReturnOp)
    def run_return(self, interpreter: Interpreter, op: relax.ReturnOp, args: tuple[Any, ...]):
        return ReturnedValues(args), ()

    @impl_terminator(relax.OutputOp)
    def run_output(self, interpreter: Interpreter, op: relax.OutputOp, args: tuple[Any, ...]):
        return ReturnedValues(args), ()

    @impl_terminator(relax.YieldOp)
    def run_yield(self, interpreter: Interpreter, op: relax.YieldOp, args: tuple[Any, ...]):
        return ReturnedValues(args), ()

    @impl(relax.DataflowOp)
    def run_dataflow(self, interpreter: Interpreter, op: relax.DataflowOp, args: tuple[Any, ...]):
        return interpreter.run_ssacfg_region(op.body, (), "dataflow")

    @impl(relax.IfOp)
    def run_if(self, interpreter: Interpreter, op: relax.IfOp, args: tuple[Any, ...]):
        (cond,) = args
        region = op.then_region if bool(np.asarray(cond)) else op.else_region
        return interpreter.run_ssacfg_region(region, (), "if")

    @impl(relax.MatchShapeOp)
    def run_match_shape(
        self, interpreter: Interpreter, op: relax.MatchShapeOp, args: tuple[Any, ...]
    ):
        (value,) = args
        shape = value.shape if isinstance(value, np.ndarray) else value
        if len(shape) != len(op.pattern.data):
            raise InterpreterError(
                f"{self.func_name}: match_shape {symbolic.format_dims(op.pattern.data)}: "
                f"expected rank {len(op.pattern.data)}, got rank {len(shape)}"
            )
        where = f"{self.func_name}: match_shape {symbolic.format_dims(op.pattern.data)}"
        match_pattern(shape, op.pattern.data, self.env, where)
        return (value,)

    @impl(relax.ShapeOp)
    def run_shape(self, interpreter: Interpreter, op: relax.ShapeOp, args: tuple[Any, ...]):
        return (evaluate_dims(op.dims.data, self.env),)

    @impl(relax.ShapeOfOp)
    def run_shape_of(self, interpreter: Interpreter, op: relax.ShapeOfOp, args: tuple[Any, ...]):
        return (tuple(int(d) for d in args[0].shape),)

    @impl(relax.TupleOp)
    def run_tuple(self, interpreter: Interpreter, op: relax.TupleOp, args: tuple[Any, ...]):
        return (tuple(args),)

    @impl(relax.GetItemOp)
    def run_get_item(self, interpreter: Interpreter, op: relax.GetItemOp, args: tuple[Any, ...]):
        return (args[0][op.index.data],)

    @impl(relax.ConstOp)
    def run_const(self, interpreter: Interpreter, op: relax.ConstOp, args: tuple[Any, ...]):
        return (dtypes.dense_array(op.value),)

    @impl(relax.CallOp)
    def run_call(self, interpreter: Interpreter, op: relax.CallOp, args: tuple[Any, ...]):
        (result,) = interpreter.call_op(op.callee.string_value(), args)
        return (result,)

    @impl(relax.CallPackedOp)
    def run_call_packed(
        self, interpreter: Interpreter, op: relax.CallPackedOp, args: tuple[Any, ...]
    ):
        from xrelax.backends.vm.builtins import get_func

        name = op.callee.data
        if name.startswith("relax.op."):
            import xrelax.ops.runtime  # noqa: F401 - registers the safety-net kernels
        if op.op_attrs is not None:
            args = (*args, relax.show_type(op.op_attrs))
        try:
            func = get_func(name)
        except Exception:  # noqa: BLE001 - the registry's own error type is the VM's
            raise InterpreterError(
                f"{self.func_name}: packed function '{name}' is not registered"
            ) from None
        result = func(*args)
        return (result,) if op.res else ()

    @impl(relax.CallTIROp)
    def run_call_tir(self, interpreter: Interpreter, op: relax.CallTIROp, args: tuple[Any, ...]):
        from xrelax.backends.kernels import compile_prim_func

        callee = interpreter.get_op_for_symbol(op.callee.string_value())
        outputs = [
            np.empty(evaluate_dims(t.dims, self.env), dtype=dtypes.numpy_dtype(t.dtype))
            for t in op.output_types
        ]
        sym_args = [symbolic.evaluate(e, self.env) for e in op.sym_args.data] if op.sym_args else []
        compile_prim_func(callee)(*args, *outputs, *sym_args)
        result = outputs[0] if not isinstance(op.result.type, TupleType) else tuple(outputs)
        return (result,)


def operator_functions() -> InterpreterFunctions:
    """Implementations of every operator: its numpy reference kernel."""
    global _OPERATOR_FUNCTIONS
    if _OPERATOR_FUNCTIONS is None:
        from xrelax.ops import OPERATORS

        def run_operator(self: InterpreterFunctions, interpreter: Interpreter, op, args):
            return (type(op).reference(args, dict(op.properties)),)

        namespace = {f"run_{cls.__name__}": impl(cls)(run_operator) for cls in OPERATORS}
        functions = type("OperatorFunctions", (InterpreterFunctions,), namespace)
        _OPERATOR_FUNCTIONS = register_impls(functions)()
    return _OPERATOR_FUNCTIONS


_OPERATOR_FUNCTIONS: InterpreterFunctions | None = None
