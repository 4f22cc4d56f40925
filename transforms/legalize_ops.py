"""``relax-legalize-ops``: operators -> ``call_tir`` of generated kernels, or the safety net.

An operator whose tensor operands and result have known shapes and dtypes (and whose
shape and prim operands are known expressions) is built with its ``emit_te`` (the
TE-style builder) into a ``tir.prim_func`` that first asserts the operator's obligations
(the facts its deduction relies on but could not prove: docs/shape-safety.md);
structurally identical kernels are shared. Shape and prim operands reach ``emit_te`` as
their symbolic expressions, and the variables no buffer binds become ``sym [...]``
arguments (call_tir_dyn): a kernel receives prim values that way. Anything else (unknown shape or
dtype, data-dependent results such as ``unique``) becomes a ``call_packed`` of the
operator's run-time kernel ``relax.op.<name>``, which allocates its result; the
operator's attributes travel as ``op_attrs``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
)

from xrelax.backends.native import BACKENDS as KERNEL_BACKENDS
from xrelax.dialects import dtypes
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.relax import (
    CallPackedOp,
    CallTIROp,
    FuncOp,
    PrimType,
    ShapeType,
    TensorType,
    TupleType,
)
from xrelax.ops import te
from xrelax.ops.base import OperatorOp
from xrelax.transforms.function_walk import lower_function_bodies
from xrelax.transforms.kernel_table import KernelTable


def _known_tensor(type_: Attribute) -> bool:
    return (
        isinstance(type_, TensorType) and type_.dims is not None and type_.known_dtype is not None
    )


def is_legalizable(op: OperatorOp) -> bool:
    """Whether ``op`` can become a ``call_tir`` (every shape and dtype known)."""
    if op.DATA_DEPENDENT:
        return False
    results = op.results[0].type
    outputs = results.types if isinstance(results, TupleType) else (results,)
    if not all(_known_tensor(t) for t in outputs):
        return False
    for operand in op.operands:
        type_ = operand.type
        if isinstance(type_, ShapeType):
            if type_.dims is None:
                return False
        elif isinstance(type_, PrimType):
            if type_.expr is None:
                return False
        elif not _known_tensor(type_):
            return False
    return True


class LegalizeOperator(RewritePattern):
    """Replace one operator by a kernel call or a safety-net packed call."""

    def __init__(self, kernels: KernelTable, backend: str = "numpy") -> None:
        self.kernels = kernels
        self.backend = backend
        """The kernel backend the kernels are built for (:meth:`OperatorOp.emit_te_for`)."""
        self.legalized: dict[tuple, tuple[str, list[str]]] = {}
        """(operator, operand types, properties, result type) -> (kernel, sym params):
        an operator seen before reuses its kernel without rebuilding it."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, OperatorOp):
            return
        result_type = op.results[0].type
        if is_legalizable(op):
            self.to_call_tir(op, result_type, rewriter)
        else:
            props = DictionaryAttr(dict(op.properties)) if op.properties else None
            call = CallPackedOp(
                type(op).runtime_name(), list(op.operands), result_type, True, props
            )
            rewriter.replace(op, call)

    def to_call_tir(
        self, op: OperatorOp, result_type: Attribute, rewriter: PatternRewriter
    ) -> None:
        args = [o for o in op.operands if isinstance(o.type, TensorType)]
        key = (
            type(op),
            tuple(o.type for o in op.operands),
            tuple(sorted(op.properties.items())),
            result_type,
        )
        if key not in self.legalized:
            self.legalized[key] = self.build_kernel(op, result_type)
        name, sym_params = self.legalized[key]
        call = CallTIROp(name, args, result_type, sym_params or None)
        for old, new in zip(op.results, call.results, strict=True):
            new.name_hint = old.name_hint
        rewriter.replace(op, call)

    def build_kernel(self, op: OperatorOp, result_type: Attribute) -> tuple[str, list[str]]:
        """The kernel of ``op`` built with its ``emit_te`` (shared if structurally known)."""
        inputs: list[object] = []
        tensors: list[te.Tensor] = []
        for index, operand in enumerate(op.operands):
            type_ = operand.type
            if isinstance(type_, ShapeType):
                inputs.append(type_.dims)
                continue
            if isinstance(type_, PrimType):
                inputs.append(type_.expr)
                continue
            assert isinstance(type_, TensorType) and type_.dims is not None
            placeholder = te.placeholder(type_.dims, type_.dtype, f"x{index}")
            inputs.append(placeholder)
            tensors.append(placeholder)
        results = result_type.types if isinstance(result_type, TupleType) else (result_type,)
        rounds = [getattr(t, "dtype", None) == dtypes.BF16 for t in results]
        bf16 = any(t.dtype == dtypes.BF16 for t in tensors)
        if bf16:  # computed in f32, each bf16 result rounded once (docs/semantics.md)
            inputs = [_widened(x) if isinstance(x, te.Tensor) else x for x in inputs]
            result_type = _bf16_as_f32(result_type)
        try:
            outputs = op.emit_te_for(self.backend, inputs, result_type, dict(op.properties))
        except NotImplementedError as err:
            raise IRError(op, f"cannot legalize: {err}") from None
        outputs = list(outputs) if isinstance(outputs, list | tuple) else [outputs]
        if bf16:
            outputs = [
                _rounded(x) if rounded and x.dtype == dtypes.F32 else x
                for x, rounded in zip(outputs, rounds, strict=True)
            ]
        short = op.name.removeprefix("relax.")
        func, sym_params = te.create_prim_func(short, [*tensors, *outputs], op.obligations())
        func_op = op.parent_op()
        while func_op is not None and not isinstance(func_op, FuncOp):
            func_op = func_op.parent_op()
        assert func_op is not None
        return self.kernels.add(func, func_op), sym_params


def _widened(x: te.Tensor) -> te.Tensor:
    """A bf16 tensor in f32 (exact); others as they are."""
    if x.dtype != dtypes.BF16:
        return x
    return te.compute(x.shape, lambda *i: te.cast(x[i], dtypes.F32), f"{x.name}_f32")


def _rounded(x: te.Tensor) -> te.Tensor:
    """An f32 result rounded to bf16."""
    return te.compute(x.shape, lambda *i: te.cast(x[i], dtypes.BF16), f"{x.name}_bf16")


def _bf16_as_f32(type_: Attribute) -> Attribute:
    """``type_`` with f32 for bf16 (a tensor, or the tensors of a tuple)."""
    if isinstance(type_, TupleType):
        return TupleType.of([_bf16_as_f32(t) for t in type_.types])
    if isinstance(type_, TensorType) and type_.dtype == dtypes.BF16:
        return TensorType(type_.shape, dtypes.F32)
    return type_


@dataclass(frozen=True)
class LegalizeOpsPass(ModulePass):
    """Legalize every relax operator; ``kernels`` (``numpy`` or ``native``) is the kernel
    backend to build the kernels for: both run every kernel, an operator may choose
    a form that is faster on one (:meth:`OperatorOp.emit_te_for`)."""

    name = "relax-legalize-ops"

    kernels: str = "numpy"

    def __post_init__(self) -> None:
        if self.kernels not in KERNEL_BACKENDS:
            raise ValueError(f"kernels must be one of {', '.join(KERNEL_BACKENDS)}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels = KernelTable.of_module(op)
        lower_function_bodies(op, [LegalizeOperator(kernels, self.kernels)])
