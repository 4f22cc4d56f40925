"""The explicit-memory relax ops that lowering introduces (the seeds' "explicit memory
form"): destination-passing calls and allocations.

```mlir
%y = relax.builtin.alloc_tensor : !relax.tensor<[n, 4], f32>       // call-tir-rewrite
relax.call_dps @add(%x, %x, %y) : (...)
%s = relax.memory.alloc_storage [n * 16] : !relax.object           // plan-memory
%t = relax.memory.alloc_tensor %s [0] : !relax.tensor<[n, 4], f32>
relax.memory.kill_storage %s
```
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

import sympy
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import (
    MemoryAllocEffect,
    MemoryFreeEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from xrelax.dialects import dtypes
from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.ir.operation import XrelaxOperation
from xrelax.dialects.ir.symbol_index import lookup_symbol
from xrelax.dialects.ir.syntax import SymbolicDims, symbol_ref
from xrelax.dialects.relax import ObjectType, TensorType, show_type
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import PrimFuncOp


@functools.lru_cache(maxsize=4096)
def tensor_bytes(type_: TensorType) -> sympy.Expr:
    """The symbolic size in bytes of a tensor type with known dims and dtype (memoised:
    the passes ask for the same few types again and again)."""
    assert type_.dims is not None and type_.known_dtype is not None
    size = sympy.Integer(dtypes.numpy_dtype(type_.dtype).itemsize)
    for dim in type_.dims:
        size = size * dim
    return symbolic.simplify(sympy.expand(size))


def _check_allocatable(type_: Attribute) -> TensorType:
    if not isinstance(type_, TensorType) or type_.dims is None or type_.known_dtype is None:
        raise VerifyException(
            f"can only allocate a tensor of known shape and dtype, got {show_type(type_)}"
        )
    return type_


@irdl_op_definition
class BuiltinAllocTensorOp(XrelaxOperation):
    """``%t = relax.builtin.alloc_tensor : !relax.tensor<[n, 4], f32>``: a fresh tensor of
    the result type's shape and dtype (not yet placed in a storage)."""

    name = "relax.builtin.alloc_tensor"

    result = result_def(TensorType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, type_: TensorType) -> None:
        super().__init__(result_types=[type_])

    def verify_(self) -> None:
        _check_allocatable(self.result.type)


@irdl_op_definition
class AllocStorageOp(XrelaxOperation):
    """``%s = relax.memory.alloc_storage [bytes] : !relax.object``: a byte storage of a
    symbolic size that tensors are placed in."""

    name = "relax.memory.alloc_storage"

    size = prop_def(DimsAttr)
    storage = result_def(ObjectType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "custom<SymbolicDims>($size) attr-dict `:` type($storage)"
    custom_directives = (SymbolicDims,)

    def __init__(self, size: sympy.Expr) -> None:
        super().__init__(properties={"size": DimsAttr((size,))}, result_types=[ObjectType()])

    @property
    def bytes(self) -> sympy.Expr:
        """The size in bytes."""
        return self.size.data[0]

    def verify_(self) -> None:
        if len(self.size.data) != 1:
            raise VerifyException("relax.memory.alloc_storage takes one size")


@irdl_op_definition
class AllocTensorOp(XrelaxOperation):
    """``%t = relax.memory.alloc_tensor %s [offset] : T``: a tensor placed in a storage."""

    name = "relax.memory.alloc_tensor"

    storage = operand_def(ObjectType)
    offset = prop_def(DimsAttr)
    result = result_def(TensorType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "$storage custom<SymbolicDims>($offset) attr-dict `:` type($result)"
    custom_directives = (SymbolicDims,)

    def __init__(self, storage: SSAValue, offset: int | sympy.Expr, type_: TensorType) -> None:
        super().__init__(
            operands=[storage],
            properties={"offset": DimsAttr.of([offset])},
            result_types=[type_],
        )

    def verify_(self) -> None:
        _check_allocatable(self.result.type)
        if len(self.offset.data) != 1:
            raise VerifyException("relax.memory.alloc_tensor takes one offset")


class _KillOp(XrelaxOperation):
    value = operand_def()
    traits = traits_def(MemoryFreeEffect())
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue) -> None:
        super().__init__(operands=[value])


@irdl_op_definition
class KillTensorOp(_KillOp):
    """``relax.memory.kill_tensor %t``: the end of a tensor's lifetime."""

    name = "relax.memory.kill_tensor"


@irdl_op_definition
class KillStorageOp(_KillOp):
    """``relax.memory.kill_storage %s``: the end of a storage's lifetime."""

    name = "relax.memory.kill_storage"


class CallDPSSymbolUser(SymbolUserOpInterface):
    """``call_dps`` names a ``tir.prim_func`` taking its arguments."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallDPSOp)
        callee = lookup_symbol(op, op.callee)
        if not isinstance(callee, PrimFuncOp):
            raise VerifyException(f"'{op.callee}' does not reference a tir.prim_func")
        n_sym = len(op.sym_args.data) if op.sym_args is not None else 0
        if len(callee.buffer_types) != len(op.args) or len(callee.sym_params.data) != n_sym:
            raise VerifyException(
                f"@{callee.sym_name.data} takes {len(callee.buffer_types)} buffers and "
                f"{len(callee.sym_params.data)} symbolic integers, the call passes "
                f"{len(op.args)} and {n_sym}"
            )


@irdl_op_definition
class CallDPSOp(XrelaxOperation):
    """``relax.call_dps @k(%in, %out) sym [m] : (T1, T2)``: call a tir function in
    destination-passing style; the trailing arguments are written."""

    name = "relax.call_dps"

    callee = prop_def(SymbolRefAttr)
    args = var_operand_def()
    sym_args = opt_prop_def(DimsAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), CallDPSSymbolUser())
    assembly_format = (
        "$callee `(` $args `)` (`sym` custom<SymbolicDims>($sym_args)^)? attr-dict "
        "`:` `(` type($args) `)`"
    )
    custom_directives = (SymbolicDims,)

    def __init__(
        self,
        callee: str,
        args: Sequence[SSAValue],
        sym_args: Iterable[int | str | sympy.Expr] | None = None,
    ) -> None:
        sym = DimsAttr.of(sym_args) if sym_args else None
        super().__init__(
            operands=[args],
            properties={"callee": symbol_ref(callee), "sym_args": sym},
        )


MEMORY_OPS = (
    BuiltinAllocTensorOp,
    AllocStorageOp,
    AllocTensorOp,
    KillTensorOp,
    KillStorageOp,
    CallDPSOp,
)
