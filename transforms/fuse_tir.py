"""``relax-fuse-tir``: merge the kernels of each primitive function into one prim_func.

A call of a ``primitive`` relax function (made by ``relax-fuse-ops``) becomes one
``call_tir`` of a new ``tir.prim_func`` whose stages are the kernels the function
calls, in order. The function's tensor parameters become input buffers, its result
the output buffer(s), and values passed between the kernels ``tir.alloc_buffer``
intermediates. Each kernel's symbolic variables are renamed to the caller's
expressions (matched from the buffer shapes, as ``match_buffer`` binds them), so the
fused kernel keeps the symbolic shapes of the relax program; variables no buffer binds
become ``sym`` parameters passed from the call site. Loop and let variables keep
their names (sibling stages share ``i``, ``j``) unless one would shadow a variable in
scope or name one of the caller's; then it is renamed apart. Primitive functions left
without callers are removed.

Every constraint of a merged kernel is kept: a buffer dimension its entry would check
(not the first whole occurrence of a variable) that the fused function's value is not
proven to have becomes a ``tir.assert``, and the kernels' own asserts are carried over;
all of them run at the start of the fused kernel, before it touches memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy
from xdsl.context import Context
from xdsl.dialects.builtin import FlatSymbolRefAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xrelax.dialects import tir
from xrelax.dialects.dims import DimsAttr
from xrelax.dialects.ir.diagnostics import IRError
from xrelax.dialects.ir.symbol_index import module_symbols
from xrelax.dialects.relax import (
    CallOp,
    CallTIROp,
    FuncOp,
    ReturnOp,
    ShapeType,
    TensorType,
    TupleOp,
    type_free_vars,
)
from xrelax.dialects.shapes import symbolic
from xrelax.transforms.function_walk import rewrite_function_bodies
from xrelax.transforms.kernel_table import KernelTable


@lru_cache(maxsize=4096)
def _buffer(type_: Attribute) -> tir.BufferType:
    """The buffer type of a tensor type (memoised: a fused chain repeats a few types)."""
    assert isinstance(type_, TensorType) and type_.dims is not None
    return tir.BufferType(DimsAttr(type_.dims), type_.dtype)


class _Merger:
    """Builds the fused prim_func of one primitive function."""

    def __init__(self, func: FuncOp, symbols: dict[str, Operation]) -> None:
        self.func = func
        self.symbols = symbols
        self.counter = 0

    def merge(self) -> tuple[tir.PrimFuncOp, list[str], list[int]]:
        """The fused kernel, its sym parameter names, and the indices of the function
        parameters that are its input buffers."""
        body = self.func.body.block
        ret = body.last_op
        assert isinstance(ret, ReturnOp)
        outputs = (
            list(ret.value.owner.operands) if isinstance(ret.value.owner, TupleOp) else [ret.value]
        )
        inputs = [i for i, a in enumerate(body.args) if isinstance(a.type, TensorType)]
        buffer_types = [_buffer(body.args[i].type) for i in inputs] + [
            _buffer(v.type) for v in outputs
        ]
        kernel = tir.PrimFuncOp(self.func.sym_name.data, buffer_types)
        block = kernel.body.block
        buffers: dict[SSAValue, SSAValue] = {}
        for index, arg in zip(inputs, block.args, strict=False):
            buffers[body.args[index]] = arg
            arg.name_hint = body.args[index].name_hint
        for value, arg in zip(outputs, block.args[len(inputs) :], strict=True):
            buffers[value] = arg
        self.outer = _caller_vars(body)
        """The caller's variables: a loop or let variable named like one is renamed."""
        self.top_scope: set[str] = set()
        """The let variables of the fused kernel's top level (in scope for later stages)."""
        self.checks: list[tir.AssertOp] = []
        self.used: set[str] = set()
        """The variables the copied ops' dims use."""
        self.locals: set[str] = set()
        """The loop and let variables of the copied ops (a fresh name avoids them too)."""
        for op in body.ops:
            if isinstance(op, ReturnOp | TupleOp):
                continue
            if not isinstance(op, CallTIROp):
                raise IRError(op, "relax-fuse-tir expects a primitive function of call_tir ops")
            if op.result not in buffers:
                alloc = tir.AllocBufferOp(_buffer(op.result.type))
                alloc.buffer.name_hint = op.result.name_hint
                block.add_op(alloc)
                buffers[op.result] = alloc.buffer
            self.inline(op, block, buffers)
        if self.checks:
            if block.first_op is None:
                block.add_ops(self.checks)
            else:
                block.insert_ops_before(self.checks, block.first_op)
        for check in self.checks:
            self.used |= check.lhs.free_vars() | check.rhs.free_vars()
        sym_params = sorted(self.used - kernel.bound_vars() - self.locals)
        kernel.sym_params = DimsAttr.of(sym_params)
        return kernel, sym_params, inputs

    def inline(self, call: CallTIROp, block: Block, buffers: dict[SSAValue, SSAValue]) -> None:
        """Append the stages of the kernel ``call`` calls. Its variables are bound as its
        entry binds them (``sym`` values first, then each variable's first whole buffer
        dimension); each other dimension the fused function's buffer is not proven to
        give becomes a ``tir.assert``, checked with the kernel's own asserts before the
        fused kernel touches memory."""
        callee = self.symbols.get(call.callee.string_value())
        assert isinstance(callee, tir.PrimFuncOp)
        actual = [*call.args, call.result]
        mapping: dict[str, sympy.Expr] = {}
        if call.sym_args is not None:
            mapping |= dict(zip(callee.sym_param_names, call.sym_args.data, strict=True))
        checked: list[tuple[int, int, sympy.Expr, sympy.Expr]] = []
        for k, (arg, value) in enumerate(zip(callee.body.block.args, actual, strict=True)):
            dims = value.type.dims  # type: ignore[union-attr]
            for d, (formal, real) in enumerate(zip(arg.type.dims, dims, strict=True)):
                if formal.is_Symbol and formal.name not in mapping:
                    mapping[formal.name] = real
                else:
                    checked.append((k, d, formal, real))
        for k, d, formal, real in checked:
            expected = symbolic.substitute(formal, mapping)
            if not symbolic.prove_equal(real, expected):
                label = callee.body.block.args[k].name_hint or f"arg{k}"
                what = f"@{callee.sym_name.data}: buffer #{k} %{label} dimension {d} is"
                what = f"{what} {symbolic.format_expr(formal)}"
                self.checks.append(tir.AssertOp([real], "==", [expected], what))
        values: dict[SSAValue, SSAValue] = {
            formal: buffers[real]
            for formal, real in zip(callee.body.block.args, actual, strict=True)
        }
        self.copy_block(callee.body.block, block, values, mapping, self.top_scope, hoist=True)

    def copy_block(
        self,
        source: Block,
        target: Block,
        values: dict[SSAValue, SSAValue],
        mapping: dict[str, sympy.Expr],
        scope: set[str],
        hoist: bool = False,
    ) -> None:
        """Append clones of ``source``'s ops to ``target``. A loop or let variable keeps
        its name unless the caller's variables or the variables in ``scope`` (the
        enclosing loops and lets of the fused kernel) have it; then it is renamed apart
        (within the loop's body, in the ops after the let). ``hoist``: the top level of
        a stage, whose lets stay in ``scope`` for the stages after it, and whose asserts
        that use no let variable go to the fused kernel's checks."""
        mapping = dict(mapping)
        if not hoist:
            scope = set(scope)
        lets: set[str] = set()
        for op in source.ops:
            clone = self.copy(op, values, mapping, scope)
            if (
                hoist
                and isinstance(op, tir.AssertOp)
                and not (lets & (op.lhs.free_vars() | op.rhs.free_vars()))
            ):
                self.checks.append(clone)  # type: ignore[arg-type]
                continue
            target.add_op(clone)
            if isinstance(clone, tir.LetOp):
                if clone.var_name != op.var_name:
                    mapping[op.var_name] = symbolic.sym(clone.var_name)
                scope.add(clone.var_name)
                lets.add(op.var_name)

    def copy(
        self,
        op: Operation,
        values: dict[SSAValue, SSAValue],
        mapping: dict[str, sympy.Expr],
        scope: set[str],
    ) -> Operation:
        """A clone of ``op`` with its dims substituted by ``mapping``."""
        if isinstance(op, tir.AllocBufferOp):
            dims = tuple(symbolic.substitute(d, mapping) for d in op.buffer.type.dims)
            clone = tir.AllocBufferOp(tir.BufferType(DimsAttr(dims), op.buffer.type.dtype))
            values[op.buffer] = clone.buffer
            return clone
        properties = dict(op.properties)
        for name, attr in properties.items():
            if type(attr) is DimsAttr:
                free = attr.free_vars()
                if not free.isdisjoint(mapping):
                    dims = tuple(symbolic.substitute(d, mapping) for d in attr.data)
                    if dims != attr.data:
                        attr = properties[name] = DimsAttr(dims)
                        free = attr.free_vars()
                self.used |= free
        inner_mapping, inner_scope = mapping, scope
        if isinstance(op, tir.ForOp | tir.LetOp):
            name = op.var_name
            if name in self.outer or name in scope:
                name = self.fresh(name)
                properties["var"] = StringAttr(name)
                inner_mapping = {**mapping, op.var_name: symbolic.sym(name)}
            self.locals.add(name)
            inner_scope = scope | {name}
        clone = op.create(
            operands=[values.get(v, v) for v in op.operands],
            result_types=[r.type for r in op.results],
            properties=properties,
            attributes=dict(op.attributes),
            location=op.location,
            regions=[Region() for _ in op.regions],
        )
        for old, new in zip(op.results, clone.results, strict=True):
            new.name_hint = old.name_hint
            values[old] = new
        for region, new_region in zip(op.regions, clone.regions, strict=True):
            for inner_block in region.blocks:
                new_block = Block()
                new_region.add_block(new_block)
                self.copy_block(inner_block, new_block, values, inner_mapping, inner_scope)
        return clone

    def fresh(self, base: str) -> str:
        base = base.rstrip("0123456789") or "v"
        while True:
            self.counter += 1
            name = f"{base}{self.counter}"
            if name not in self.outer and name not in self.locals:
                return name


class FuseCall(RewritePattern):
    """Replace a call of a primitive function by one call_tir of its fused kernel."""

    def __init__(self, module: ModuleOp) -> None:
        self.symbols = module_symbols(module)
        """The module's symbols before fusion (a SymbolTable lookup walks the module)."""
        self.kernels = KernelTable(module)
        """The fused kernels made so far (identical ones are shared)."""
        self.wanted: dict[str, str] = {}
        """Kernel name -> the primitive function's name, taken once that function is gone."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallOp, rewriter: PatternRewriter) -> None:
        callee = self.symbols.get(op.callee.string_value())
        if not isinstance(callee, FuncOp) or not callee.is_primitive:
            return
        kernel, sym_params, inputs = _Merger(callee, self.symbols).merge()
        name = self.add_kernel(kernel, callee)
        mapping = self.symbol_mapping(callee, op)
        sym_args = [symbolic.substitute(symbolic.sym(v), mapping) for v in sym_params]
        call = CallTIROp(name, [op.args[i] for i in inputs], op.result.type, sym_args or None)
        call.result.name_hint = op.result.name_hint
        rewriter.replace(op, call)

    def symbol_mapping(self, callee: FuncOp, call: CallOp) -> dict[str, sympy.Expr]:
        """The callee's variables in terms of the caller's (from the argument types)."""
        mapping: dict[str, sympy.Expr] = {}
        for param, arg in zip(callee.function_type.inputs.data, call.args, strict=True):
            if isinstance(param, TensorType | ShapeType) and param.dims is not None:
                real = arg.type.dims  # type: ignore[union-attr]
                for formal, value in zip(param.dims, real, strict=True):
                    if formal.is_Symbol:
                        mapping.setdefault(formal.name, value)
        return mapping

    def add_kernel(self, kernel: tir.PrimFuncOp, anchor: FuncOp) -> str:
        kernel.sym_name = StringAttr(anchor.sym_name.data + "_kernel")
        name = self.kernels.add(kernel, anchor)
        self.wanted.setdefault(name, anchor.sym_name.data)
        return name


@dataclass(frozen=True)
class FuseTIRPass(ModulePass):
    """Merge the kernels of every primitive relax function into one prim_func each."""

    name = "relax-fuse-tir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fuse = FuseCall(op)
        rewrite_function_bodies(op, PatternRewriteWalker(fuse, apply_recursively=False))
        called = _callees(op)
        dropped: set[str] = set()
        for func in list(op.ops):
            if isinstance(func, FuncOp) and func.is_primitive and func.sym_name.data not in called:
                dropped |= _callees(func)
                op.body.block.erase_op(func)
        still_called = _callees(op)
        for kernel in list(op.ops):
            name = getattr(kernel, "sym_name", None)
            if isinstance(kernel, tir.PrimFuncOp) and name.data in dropped - still_called:
                op.body.block.erase_op(kernel)
        _take_free_names(op, fuse.wanted)


def _take_free_names(module: ModuleOp, wanted: dict[str, str]) -> None:
    """Give each fused kernel its primitive function's name once that name is free."""
    taken = module_symbols(module)
    renames = {name: target for name, target in wanted.items() if target not in taken}
    if not renames:
        return
    for top in module.ops:
        if isinstance(top, tir.PrimFuncOp):
            if top.sym_name.data in renames:
                top.sym_name = StringAttr(renames[top.sym_name.data])
            continue
        for op in top.walk():
            if isinstance(op, CallTIROp) and op.callee.string_value() in renames:
                op.callee = FlatSymbolRefAttr(renames[op.callee.string_value()])


def _caller_vars(body: Block) -> set[str]:
    """The symbolic variables of a primitive function's types and kernel ``sym`` values:
    the namespace the fused kernel's dims are written in."""
    names: set[str] = set()
    for value in [*body.args, *(r for op in body.ops for r in op.results)]:
        names |= type_free_vars(value.type)
    for op in body.ops:
        if isinstance(op, CallTIROp) and op.sym_args is not None:
            names |= op.sym_args.free_vars()
    return names


def _callees(root: Operation) -> set[str]:
    """The symbols called (relax.call, call_tir) anywhere inside ``root``; a module's
    kernels are not walked (they call nothing, and hold most of its ops)."""
    tops = root.ops if isinstance(root, ModuleOp) else [root]
    return {
        c.callee.string_value()
        for top in tops
        if not isinstance(top, tir.PrimFuncOp)
        for c in top.walk()
        if isinstance(c, CallOp | CallTIROp)
    }
