"""``relax-vm-memory-lower``: memory ops -> the VM's storage builtins.

``relax.memory.alloc_storage`` / ``alloc_tensor`` / ``kill_*`` become
``vm.alloc_storage`` / ``vm.alloc_tensor`` / ``vm.kill`` with their byte size,
offset, shape and dtype as attributes; a ``relax.builtin.alloc_tensor`` (a tensor that
shares no storage) becomes ``vm.alloc_tensor_direct``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.dialects import dtypes, vm
from xrelax.dialects.relax import TensorType
from xrelax.dialects.relax_memory import (
    AllocStorageOp,
    AllocTensorOp,
    BuiltinAllocTensorOp,
    KillStorageOp,
    KillTensorOp,
)
from xrelax.transforms.function_walk import lower_function_bodies


def _alloc_tensor(storage, offset, type_: TensorType) -> vm.AllocTensorOp:
    assert type_.dims is not None
    return vm.AllocTensorOp(storage, offset, type_.dims, dtypes.numpy_name(type_.dtype), type_)


class LowerAllocStorage(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AllocStorageOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, vm.AllocStorageOp(op.bytes, op.storage.type))


class LowerAllocTensor(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AllocTensorOp, rewriter: PatternRewriter) -> None:
        type_ = op.result.type
        assert isinstance(type_, TensorType)
        rewriter.replace(op, _alloc_tensor(op.storage, op.offset.data[0], type_))


class LowerBuiltinAllocTensor(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BuiltinAllocTensorOp, rewriter: PatternRewriter) -> None:
        type_ = op.result.type
        assert isinstance(type_, TensorType) and type_.dims is not None
        rewriter.replace(
            op, vm.AllocTensorDirectOp(type_.dims, dtypes.numpy_name(type_.dtype), type_)
        )


class LowerKill(RewritePattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if isinstance(op, KillStorageOp | KillTensorOp):
            rewriter.replace(op, vm.KillOp(op.value))


@dataclass(frozen=True)
class VMMemoryLowerPass(ModulePass):
    """Lower relax memory ops to VM storage builtins."""

    name = "relax-vm-memory-lower"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [LowerAllocStorage(), LowerAllocTensor(), LowerBuiltinAllocTensor(), LowerKill()]
        lower_function_bodies(op, patterns)
