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
from functools import cache
from typing import Any

import numpy as np
import sympy
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
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable

from xrelax.backends.vm.error import missing_arguments
from xrelax.dialects import dtypes, relax
from xrelax.dialects.relax import PrimType, ShapeType, TensorType, TupleType
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.shapes.symbolic import Dims
from xrelax.ops.attribute_constants import to_constant
from xrelax.ops.base import RUNTIME_KERNEL_PREFIX, OperatorOp


class InterpreterError(ValueError):
    """A run-time failure (shape check, missing packed function, bad argument)."""


Env = dict[str, int]


def interpret(module: ModuleOp, entry: str, *args: Any) -> Any:
    """Run relax function ``entry`` of ``module`` on numpy arrays (tuples for tuple values).

    Floating-point arithmetic follows IEEE rules silently (overflow gives inf, 0/0 nan),
    as the VM's kernels do: numpy's warnings are off while it runs."""
    interpreter = Interpreter(module)
    interpreter.register_implementations(_functions_class()())
    func = SymbolTable.lookup_symbol(module, entry)
    if not isinstance(func, relax.FuncOp):
        raise InterpreterError(f"no relax function @{entry} in the module")
    try:
        with np.errstate(all="ignore"):
            (result,) = interpreter.call_op(func, args)
    except InterpretationError as err:
        raise InterpreterError(str(err)) from err
    except symbolic.SymbolicError as err:
        # A symbolic size that cannot be evaluated (a division by a variable that is 0).
        raise InterpreterError(f"{entry}: {err}") from None
    except RecursionError:
        raise InterpreterError(
            f"{entry}: calls nested too deeply (recursion deeper than Python allows)"
        ) from None
    return result


# ------------------------------------------------------------------------- checking values


def _where(func: str, what: str) -> str:
    return f"{func}: {what}"


Deferred = list[tuple[Sequence[int] | int, Dims, str]]
"""Dims that are expressions (of a shape, or of a prim value: an int), checked once every
variable they use is bound (:func:`check_deferred`)."""


def match_value(
    value: Any, type_: Attribute, env: Env, where: str, deferred: Deferred | None = None
) -> None:
    """Check ``value`` against ``type_``, binding new symbolic variables into ``env``; dims
    that are expressions are checked at once, or appended to ``deferred``."""
    if isinstance(type_, TensorType):
        if not isinstance(value, np.ndarray):
            raise InterpreterError(f"{where}: expected a tensor, got {type(value).__name__}")
        if type_.known_dtype is not None and value.dtype != dtypes.numpy_dtype(type_.dtype):
            raise InterpreterError(
                f"{where}: expected dtype {dtypes.numpy_name(type_.dtype)}, got {value.dtype}"
            )
        if value.dtype.kind not in "biuf" and value.dtype != dtypes.BFLOAT16:
            raise InterpreterError(
                f"{where}: expected a tensor of a boolean, integer or floating-point dtype, "
                f"got {value.dtype.name}"
            )
        _match_dims(value.shape, type_, env, where, deferred)
    elif isinstance(type_, ShapeType):
        if not isinstance(value, tuple):
            raise InterpreterError(f"{where}: expected a shape, got {type(value).__name__}")
        for index, dim in enumerate(value):
            _check_range(prim_int(dim, where), "int64", f"{where}: dimension {index}")
        _match_dims(value, type_, env, where, deferred)
    elif isinstance(type_, PrimType):
        integer = _check_range(prim_int(value, where), dtypes.numpy_name(type_.dtype), where)
        if type_.expr is not None:
            _match_prim(integer, type_.expr, env, where, deferred)
    elif isinstance(type_, TupleType):
        if not isinstance(value, tuple) or len(value) != len(type_.types):
            raise InterpreterError(f"{where}: expected a tuple of {len(type_.types)}")
        for index, (element, element_type) in enumerate(zip(value, type_.types, strict=True)):
            match_value(element, element_type, env, f"{where}[{index}]", deferred)


def _check_range(integer: int, dtype: str, where: str) -> int:
    """``integer``, unless it is outside the range of the integer ``dtype``."""
    limits = np.iinfo(dtype)
    if not limits.min <= integer <= limits.max:
        raise InterpreterError(
            f"{where}: expected an {dtype} in [{limits.min}, {limits.max}], got {integer}"
        )
    return integer


def prim_int(value: Any, where: str) -> int:
    """A prim value given as a Python int, a numpy integer or a 0-d integer array."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return int(value)
    raise InterpreterError(f"{where}: expected an integer, got {type(value).__name__}")


def _match_prim(
    value: int, expr: sympy.Expr, env: Env, where: str, deferred: Deferred | None
) -> None:
    """Bind a plain variable ``expr`` to ``value`` (a variable is never negative), else
    check ``value`` against ``expr`` (an expression at once, or later via ``deferred``)."""
    if expr.is_Symbol and expr.name not in env:
        if value < 0:
            raise InterpreterError(
                f"{where}: symbolic variable {expr.name} would be {value}, but symbolic "
                "variables are non-negative"
            )
        env[expr.name] = value
    elif deferred is not None and not (expr.is_Symbol or expr.is_Integer):
        deferred.append((value, (expr,), where))
    else:
        check_prim(value, expr, env, where)


def check_prim(value: int, expr: sympy.Expr, env: Env, where: str) -> None:
    """Check a prim value against its expression (every variable bound), as the VM's
    ``match_prim`` does."""
    expected = symbolic.evaluate(expr, env)
    if expected != value:
        raise InterpreterError(f"{where}: value{_label(expr)}: expected {expected}, got {value}")


def check_deferred(deferred: Deferred, env: Env) -> None:
    """Check the dims :func:`match_value` deferred (every variable now bound)."""
    for value, dims, where in deferred:
        if isinstance(value, int):
            check_prim(value, dims[0], env, where)
        else:
            check_dims(value, dims, env, where)


def _match_dims(
    shape: Sequence[int],
    type_: TensorType | ShapeType,
    env: Env,
    where: str,
    deferred: Deferred | None,
) -> None:
    if type_.ndim is not None and len(shape) != type_.ndim:
        raise InterpreterError(f"{where}: expected rank {type_.ndim}, got rank {len(shape)}")
    if type_.dims is None:
        return
    if deferred is None:
        match_pattern(shape, type_.dims, env, where)
        return
    _bind_plain(shape, type_.dims, env, where)
    deferred.append((shape, type_.dims, where))


def match_pattern(shape: Sequence[int], pattern: Dims, env: Env, where: str) -> None:
    """Bind the plain variables of ``pattern`` (a size is never negative), then check
    every dimension, as the VM's ``match_shape`` does."""
    _bind_plain(shape, pattern, env, where)
    check_dims(shape, pattern, env, where)


def _bind_plain(shape: Sequence[int], pattern: Dims, env: Env, where: str) -> None:
    """Bind each variable at its first occurrence; check integers and bound variables."""
    for index, (dim, actual) in enumerate(zip(pattern, shape, strict=True)):
        if dim.is_Symbol and dim.name not in env:
            if actual < 0:
                raise InterpreterError(
                    f"{where}: dimension {index}{_label(dim)}: expected a size >= 0, got {actual}"
                )
            env[dim.name] = int(actual)
        elif (dim.is_Symbol or dim.is_Integer) and symbolic.evaluate(dim, env) != actual:
            _dim_error(index, dim, actual, env, where)


def check_dims(shape: Sequence[int], pattern: Dims, env: Env, where: str) -> None:
    """Check every dimension of ``shape`` against ``pattern`` (all variables bound)."""
    for index, (dim, actual) in enumerate(zip(pattern, shape, strict=True)):
        if symbolic.evaluate(dim, env) != actual:
            _dim_error(index, dim, actual, env, where)


def _dim_error(index: int, dim: sympy.Expr, actual: int, env: Env, where: str) -> None:
    expected = symbolic.evaluate(dim, env)
    raise InterpreterError(
        f"{where}: dimension {index}{_label(dim)}: expected {expected}, got {actual}"
    )


def _label(dim: sympy.Expr) -> str:
    """How a message names a pattern dimension (as the VM does)."""
    if dim.is_Integer:
        return ""
    kind = "variable" if dim.is_Symbol else "expression"
    return f" (symbolic {kind} {symbolic.format_expr(dim)})"


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
        if len(args) < len(params):
            missing = op.param_names[len(args) :]
            raise InterpreterError(f"{name}: {missing_arguments(missing, op.param_names)}")
        if len(args) > len(params):
            raise InterpreterError(
                f"{name}: expected {len(params)} arguments, got {len(args)} "
                f"(parameters: {', '.join(op.param_names) or 'none'})"
            )
        env: Env = {}
        deferred: Deferred = []
        for param, arg, type_ in zip(op.param_names, args, params, strict=True):
            match_value(arg, type_, env, _where(name, f"parameter '{param}'"), deferred)
        check_deferred(deferred, env)
        args = tuple(
            prim_int(arg, "") if isinstance(type_, PrimType) else arg
            for arg, type_ in zip(args, params, strict=True)
        )
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
        if isinstance(op.value.type, PrimType):
            where = f"{self.func_name}: match_shape {symbolic.format_dims(op.pattern.data)}"
            value = prim_int(value, where)
            _match_prim(value, op.pattern.data[0], self.env, where, None)
            return (value,)
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

    @impl(relax.PrimValueOp)
    def run_prim_value(
        self, interpreter: Interpreter, op: relax.PrimValueOp, args: tuple[Any, ...]
    ):
        return (symbolic.evaluate(op.expr, self.env),)

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

    def where(self, op: Operation) -> str:
        """How a message names ``op``: the function, the op (its callee) and its result."""
        text = f"{self.func_name}: {op.name}"
        if isinstance(op, relax.CallOp):
            text += f" @{op.callee.string_value()}"
        elif isinstance(op, relax.CallPackedOp):
            text += f" '{op.callee.data}'"
        name = op.results[0].name_hint if op.results else None
        return text + (f" (%{name})" if name else "")

    def check_result(self, op: Operation, value: Any) -> None:
        """A value an op returned against the op's declared result type."""
        match_value(value, op.results[0].type, self.env, f"{self.where(op)}: result")

    @impl(relax.CallOp)
    def run_call(self, interpreter: Interpreter, op: relax.CallOp, args: tuple[Any, ...]):
        (result,) = interpreter.call_op(op.callee.string_value(), args)
        self.check_result(op, result)
        return (result,)

    @impl(relax.CallPackedOp)
    def run_call_packed(
        self, interpreter: Interpreter, op: relax.CallPackedOp, args: tuple[Any, ...]
    ):
        from xrelax.backends.vm.builtins import get_func

        name = op.callee.data
        if name.startswith(RUNTIME_KERNEL_PREFIX):
            import xrelax.backends.vm.safety_net  # noqa: F401 - registers the safety-net kernels
        if op.op_attrs is not None:
            try:
                args = (*args, to_constant(op.op_attrs))
            except ValueError as err:
                raise InterpreterError(f"{self.where(op)}: {err}") from None
        try:
            func = get_func(name)
        except Exception:  # noqa: BLE001 - the registry's own error type is the VM's
            raise InterpreterError(
                f"{self.func_name}: packed function '{name}' is not registered"
            ) from None
        try:
            result = func(*args)
        except Exception as err:  # noqa: BLE001 - a user function's failure, reported
            raise InterpreterError(f"{self.where(op)}: {_one_line(err)}") from err
        if not op.res:
            return ()
        self.check_result(op, result)
        return (result,)

    def allocate(self, op: relax.CallTIROp, type_: TensorType) -> np.ndarray:
        """An output tensor of ``op`` (an impossible shape is the VM's one-line error)."""
        from xrelax.backends.vm.builtins import alloc_tensor_direct
        from xrelax.backends.vm.error import AllocationError

        shape = evaluate_dims(type_.dims, self.env)
        try:
            return alloc_tensor_direct(shape, dtypes.numpy_name(type_.dtype))
        except AllocationError as err:
            raise InterpreterError(err.located(self.func_name, op.result.name_hint)) from None

    @impl(relax.CallTIROp)
    def run_call_tir(self, interpreter: Interpreter, op: relax.CallTIROp, args: tuple[Any, ...]):
        from xrelax.backends.kernels import compile_prim_func
        from xrelax.backends.kernels.runtime import KernelError

        callee = interpreter.get_op_for_symbol(op.callee.string_value())
        outputs = [self.allocate(op, t) for t in op.output_types]
        sym_args = [symbolic.evaluate(e, self.env) for e in op.sym_args.data] if op.sym_args else []
        try:
            compile_prim_func(callee)(*args, *outputs, *sym_args)
        except KernelError as err:
            raise InterpreterError(f"{self.func_name}: {err}") from err
        except Exception as err:  # noqa: BLE001 - a kernel that fails without a check
            raise InterpreterError(
                f"{self.where(op)}: kernel @{op.callee.string_value()} failed: "
                f"{type(err).__name__}: {_one_line(err)}"
            ) from err
        result = outputs[0] if not isinstance(op.result.type, TupleType) else tuple(outputs)
        return (result,)


def run_operator(self: RelaxFunctions, interpreter: Interpreter, op: OperatorOp, args) -> tuple:
    """An operator: its obligations checked, its reference kernel run on the values' own
    shapes (:meth:`OperatorOp.run_reference`), its result checked against its type
    (docs/shape-safety.md)."""
    for fact in op.obligations():
        if not fact.holds(self.env):
            raise InterpreterError(f"{self.func_name}: {fact.failure(self.env)}")
    try:
        result = type(op).run_reference(args, dict(op.properties))
    except Exception as err:  # noqa: BLE001 - the operator's refusal of the inputs, reported
        message = _one_line(err).removeprefix(f"{op.name}: ")
        raise InterpreterError(f"{self.where(op)}: {message}") from err
    self.check_result(op, result)
    return (result,)


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split()) or type(err).__name__


@cache
def _functions_class() -> type[RelaxFunctions]:
    """The structural ops' implementations plus every operator's."""
    from xrelax.ops.library import OPERATORS

    namespace = {f"run_{cls.__name__}": impl(cls)(run_operator) for cls in OPERATORS}
    return register_impls(type("InterpreterFunctions", (RelaxFunctions,), namespace))
