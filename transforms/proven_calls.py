"""Kernel calls whose arguments are proven to match the kernel's signature.

Every relax type is a fact at run time (parameters, ``match_cast`` and packed results
are checked, kernels write into tensors the VM allocated with the declared type), so a
``call_tir`` whose argument and output types match the kernel's buffers needs none of
the checks the kernel's entry makes. ``relax-call-tir-rewrite`` marks its
``call_dps`` ``{proven}`` (it made the outputs' allocations from those types), and
``relax-codegen-vm`` calls the kernel's unchecked entry
(``vm.builtin.call_tir_unchecked``) for a marked call whose types still match; an
unmarked ``call_dps`` (written by hand at the memory level) keeps the checked call.
The match is the one the entry checks at run time: same dtype and rank, each kernel
variable bound by the first dimension that is exactly that variable, and every
dimension equal to the argument's once the variables are replaced.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from xdsl.ir import Attribute

from xrelax.dialects.relax import TensorType
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import PrimFuncOp

PROVEN_ATTR = "proven"
"""The unit attribute of a ``relax.call_dps`` whose types prove the kernel's signature."""


def matches_signature(kernel: PrimFuncOp, arg_types: Sequence[Attribute]) -> bool:
    """Whether arguments of ``arg_types`` pass every check of ``kernel``'s entry."""
    params = kernel.body.block.args
    if kernel.sym_param_names or len(params) != len(arg_types):
        return False
    pairs = []
    for param, arg_type in zip(params, arg_types, strict=True):
        if not isinstance(arg_type, TensorType) or arg_type.dims is None:
            return False
        buffer = param.type
        if arg_type.dtype != buffer.dtype or len(arg_type.dims) != len(buffer.dims):
            return False
        pairs.extend(zip(buffer.dims, arg_type.dims, strict=True))
    binding: dict[sympy.Symbol, sympy.Expr] = {}
    for dim, actual in pairs:
        if dim.is_Symbol and dim not in binding:
            binding[dim] = actual
    for dim, actual in pairs:
        expected = binding.get(dim) if dim.is_Symbol else _replaced(dim, binding)
        if expected is None or expected != actual:
            return False
    return True


def _replaced(dim: sympy.Expr, binding: dict[sympy.Symbol, sympy.Expr]) -> sympy.Expr | None:
    if dim.is_Integer:
        return dim
    if not dim.free_symbols <= binding.keys():
        return None
    if all(binding[s] == s for s in dim.free_symbols):
        return dim
    return symbolic.substitute(dim, binding)
