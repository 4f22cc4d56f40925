"""Load-time verification of storage and tensor lifetimes, as a bytecode verifier does.

A VM function may free each storage it allocates once, and may not read a storage, or
a value that may alias it, after freeing it, nor read a tensor after killing it, on any
path of its control-flow graph. An executable that breaks this would give the buffer
pool memory it still uses: the pool would lend it to the next allocation (of any VM of
the process) while the old owner writes into it.

The check is a forward dataflow analysis over the function's basic blocks:

* Which registers may alias a storage is decided once for the function (flow
  insensitively): ``alloc_tensor`` views its storage argument, ``move`` copies, and any
  other call's result may alias each of its register arguments, except the builtins
  whose results are fresh (shapes, checks, direct allocations, ...).
* Which registers hold a freed (or killed) value is the state at each program point: a
  ``free_storage`` marks every register that may alias the storage, a ``free_tensor``
  the register and its copies, and writing a register clears its mark. States are
  joined by union (a value freed on some path into a block is freed there).

Only ``free_storage`` and ``free_tensor`` called directly free anything: passing them
as function values, or freeing a value that may not be a storage this function
allocated (a parameter, a tensor, a call's result), is refused.

The work is linear in the function's size: a function without frees is checked in one
scan, and the analysis stops with an error beyond a budget proportional to the size (a
control-flow graph no compiler emits, which would need many passes).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import Any

from . import builtins
from .error import VMError
from .executable import ArgKind, Call, Goto, If, Instruction, Ret, VMFunction

__all__ = ["WORK_PER_WORD", "block_leaders", "verify_lifetimes"]

WORK_PER_WORD = 64
"""The analysis may take this many steps per instruction or argument of a function."""

_FRESH = frozenset(
    {
        builtins.alloc_tensor_direct,
        builtins.alloc_shape_heap,
        builtins.shape_of,
        builtins.store_shape,
        builtins.load_shape,
        builtins.make_shape,
        builtins.match_shape,
        builtins.match_prim,
        builtins.make_prim,
        builtins.check_tensor_info,
        builtins.check_shape_info,
        builtins.check_tuple_info,
        builtins.read_if_cond,
        builtins.print_value,
        builtins.free_storage,
        builtins.free_tensor,
    }
)
"""Builtins whose result never aliases their arguments (ints, shapes, None, new arrays)."""

_FREES = (builtins.free_storage, builtins.free_tensor)
_OTHER = -1
"""The origin of a value that is not a storage from ``alloc_storage``."""
_FREED = "freed its storage"
_KILLED = "killed it"


def block_leaders(instrs: Sequence[Instruction]) -> set[int]:
    """The pcs that start a basic block (jump targets and the pcs after jumps)."""
    leaders = {0}
    for pc, ins in enumerate(instrs):
        if isinstance(ins, Goto):
            leaders.add(pc + ins.offset)
        elif isinstance(ins, If):
            leaders.add(pc + ins.false_offset)
        if isinstance(ins, Goto | If | Ret) and pc + 1 < len(instrs):
            leaders.add(pc + 1)
    return leaders


def verify_lifetimes(
    func: VMFunction, instrs: Sequence[Instruction], resolved: Sequence[Any]
) -> None:
    """Check the storage and tensor lifetimes of ``func``, whose decoded (and validated)
    instructions are ``instrs``; ``resolved[j]`` is what function index ``j`` calls.
    Raises a one-line ``VMError``."""
    frees = {j for j, target in enumerate(resolved) if any(target is f for f in _FREES)}
    if not frees:
        return
    calls_free = False
    for pc, ins in enumerate(instrs):
        if type(ins) is not Call:
            continue
        for arg in ins.args:
            if arg.kind is ArgKind.FUNC_IDX and arg.value in frees:
                raise _error(func.name, pc, f"passes {_free_name(resolved[arg.value])} as a value")
        if ins.func_idx in frees:
            calls_free = True
            if len(ins.args) != 1 or ins.args[0].kind is not ArgKind.REGISTER:
                raise _error(
                    func.name,
                    pc,
                    f"calls {_free_name(resolved[ins.func_idx])} with "
                    f"{_describe_args(ins)}; it takes one register",
                )
    if calls_free:
        _Lifetimes(func, instrs, resolved).run()


def _free_name(target: Callable[..., Any]) -> str:
    return (
        "vm.builtin.free_storage" if target is builtins.free_storage else "vm.builtin.free_tensor"
    )


def _describe_args(ins: Call) -> str:
    if len(ins.args) != 1:
        return f"{len(ins.args)} arguments"
    return {ArgKind.IMMEDIATE: "an immediate", ArgKind.CONST_IDX: "a constant"}.get(
        ins.args[0].kind, "a function"
    )


def _error(name: str, pc: int, what: str) -> VMError:
    return VMError(f"function '{name}': instruction {pc} {what}")


class _Classes:
    """Union-find over registers."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, reg: int) -> int:
        parent = self.parent
        while parent[reg] != reg:
            parent[reg] = parent[parent[reg]]
            reg = parent[reg]
        return reg

    def union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[b] = a

    def roots(self) -> list[int]:
        """The class of each register, as its root register."""
        return [self.find(reg) for reg in range(len(self.parent))]


class _State:
    """What holds at a program point: ``freed`` maps a class to the pc that freed or
    killed it and how (an alias class, keyed by its root, freed by ``free_storage``; a
    copy class, keyed by ``~root``, killed by ``free_tensor``); a register of such a class
    is freed unless it is in ``written`` (written since).

    A block's state is shared with its successors; a block that changes it changes a
    copy (:meth:`_Lifetimes._own`)."""

    __slots__ = ("freed", "written")

    def __init__(self, freed: dict[int, tuple[int, str]], written: set[int]) -> None:
        self.freed = freed
        self.written = written


class _Lifetimes:
    """The dataflow analysis of one function (see the module docstring)."""

    def __init__(
        self, func: VMFunction, instrs: Sequence[Instruction], resolved: Sequence[Any]
    ) -> None:
        self.name = func.name
        self.instrs = instrs
        self.resolved = resolved
        self.reads = [_reads(ins) for ins in instrs]
        words = sum(1 + len(ins.args) if type(ins) is Call else 1 for ins in instrs)
        self.budget = WORK_PER_WORD * words
        self.work = 0
        aliases = _Classes(func.register_file_size)
        copies = _Classes(func.register_file_size)
        origins: dict[int, set[int]] = {reg: {_OTHER} for reg in range(func.num_args)}
        for pc, ins in enumerate(instrs):
            if type(ins) is not Call or ins.dst is None:
                continue
            target = resolved[ins.func_idx]
            regs = self.reads[pc]
            if target is builtins.move and len(ins.args) == 1 and regs:
                aliases.union(ins.dst, regs[0])
                copies.union(ins.dst, regs[0])
                continue
            origins.setdefault(ins.dst, set()).add(
                pc if target is builtins.alloc_storage else _OTHER
            )
            if target is builtins.alloc_tensor:
                if ins.args and ins.args[0].kind is ArgKind.REGISTER:
                    aliases.union(ins.dst, ins.args[0].value)
            elif target not in _FRESH and target is not builtins.alloc_storage:
                for reg in regs:
                    aliases.union(ins.dst, reg)
        self.alias_of = aliases.roots()
        self.copy_of = copies.roots()
        self.storage_origins: dict[int, set[int]] = {}
        for reg, found in origins.items():
            self.storage_origins.setdefault(self.copy_of[reg], set()).update(found)
        self.owned: _State | None = None
        """The state the block being analysed has copied (and may change in place)."""

    def run(self) -> None:
        instrs = self.instrs
        starts = sorted(block_leaders(instrs))
        ends = starts[1:] + [len(instrs)]
        block_of = {start: k for k, start in enumerate(starts)}
        successors = [self._successors(ends[k] - 1, block_of) for k in range(len(starts))]
        rank = {block: n for n, block in enumerate(_reverse_postorder(successors))}
        last_read = self._last_reads(starts, ends, successors, rank)
        entry: list[_State | None] = [None] * len(starts)
        entry[0] = _State({}, set())
        pending = [(0, 0)]
        queued = {0}
        while pending:
            _, block = heapq.heappop(pending)
            queued.discard(block)
            state = entry[block]
            assert state is not None
            self.owned = None
            for pc in range(starts[block], ends[block]):
                state = self._step(pc, state)
            self._charge(ends[block] - starts[block])
            for succ in successors[block]:
                joined = self._join(entry[succ], state, last_read, rank[succ])
                if joined is not entry[succ]:
                    entry[succ] = joined
                    if succ not in queued:
                        queued.add(succ)
                        heapq.heappush(pending, (rank[succ], succ))

    def _last_reads(
        self,
        starts: list[int],
        ends: list[int],
        successors: list[list[int]],
        rank: dict[int, int],
    ) -> dict[int, int] | None:
        """For an acyclic graph, the highest rank (in reverse postorder) of a block reading
        a register of each class: past it, a freed class is never read again and is left
        out of joined states. None when the graph has a cycle."""
        for block, succs in enumerate(successors):
            if block in rank and any(rank[s] <= rank[block] for s in succs):
                return None
        last: dict[int, int] = {}
        for block, n in rank.items():
            for pc in range(starts[block], ends[block]):
                for reg in self.reads[pc]:
                    for key in (self.alias_of[reg], ~self.copy_of[reg]):
                        if last.get(key, -1) < n:
                            last[key] = n
        return last

    def _charge(self, work: int) -> None:
        self.work += work
        if self.work > self.budget:
            raise VMError(
                f"function '{self.name}' is too complex to verify: its storage lifetimes take "
                f"more than {self.budget} steps ({WORK_PER_WORD} per instruction word)"
            )

    def _join(
        self, known: _State | None, state: _State, last_read: dict[int, int] | None, rank: int
    ) -> _State:
        """``known`` joined with ``state`` at a block of ``rank`` (``known`` itself when that
        changes nothing); on an acyclic graph, without the classes no later block reads."""
        if known is None or known is state:
            return state
        self._charge(len(known.freed) + len(state.freed) + len(known.written) + len(state.written))
        freed: dict[int, tuple[int, str]] = {}
        for source in (known, state):
            for key, why in source.freed.items():
                if key not in freed and (last_read is None or last_read.get(key, -1) >= rank):
                    freed[key] = why
        written = {
            reg
            for reg in known.written | state.written
            if self._why(known, reg) is None and self._why(state, reg) is None
        }
        if freed.keys() == known.freed.keys() and written == known.written:
            return known
        return _State(freed, written)

    def _why(self, state: _State, reg: int) -> tuple[int, str] | None:
        """The pc that freed or killed ``reg`` in ``state`` and how (None: it is live)."""
        if not state.freed or reg in state.written:
            return None
        return state.freed.get(~self.copy_of[reg]) or state.freed.get(self.alias_of[reg])

    def _successors(self, last: int, block_of: dict[int, int]) -> list[int]:
        ins = self.instrs[last]
        if isinstance(ins, Ret):
            return []
        if isinstance(ins, Goto):
            return [block_of[last + ins.offset]]
        if isinstance(ins, If):
            return [block_of[last + 1], block_of[last + ins.false_offset]]
        return [block_of[last + 1]]

    def _own(self, state: _State) -> _State:
        """``state``, copied unless the current block copied it already."""
        if state is not self.owned:
            self._charge(len(state.freed) + len(state.written))
            self.owned = _State(dict(state.freed), set(state.written))
        return self.owned

    def _step(self, pc: int, state: _State) -> _State:
        """``state`` after instruction ``pc``."""
        ins = self.instrs[pc]
        if state.freed:
            for reg in self.reads[pc]:
                self._read(pc, reg, state)
        if type(ins) is not Call:
            return state
        target = self.resolved[ins.func_idx]
        if target is builtins.free_storage:
            reg = ins.args[0].value
            if _OTHER in self.storage_origins.get(self.copy_of[reg], {_OTHER}):
                raise _error(
                    self.name,
                    pc,
                    f"frees %{reg}, which may not be a storage that "
                    "vm.builtin.alloc_storage of this function allocated",
                )
            root = self.alias_of[reg]
            state = self._own(state)
            self._charge(len(state.written))
            state.freed[root] = (pc, _FREED)
            state.written = {r for r in state.written if self.alias_of[r] != root}
        elif target is builtins.free_tensor:
            root = self.copy_of[ins.args[0].value]
            state = self._own(state)
            self._charge(len(state.written))
            state.freed[~root] = (pc, _KILLED)
            state.written = {r for r in state.written if self.copy_of[r] != root}
        if ins.dst is not None and self._why(state, ins.dst) is not None:
            state = self._own(state)
            state.written.add(ins.dst)
        return state

    def _read(self, pc: int, reg: int, state: _State) -> None:
        why = self._why(state, reg)
        if why is None:
            return
        freed_at, how = why
        ins = self.instrs[pc]
        if (
            how == _FREED
            and isinstance(ins, Call)
            and self.resolved[ins.func_idx] is builtins.free_storage
        ):
            raise _error(
                self.name,
                pc,
                f"frees the storage of %{reg} again (instruction {freed_at} freed it)",
            )
        raise _error(self.name, pc, f"reads %{reg} after instruction {freed_at} {how}")


def _reads(ins: Instruction) -> list[int]:
    """The registers ``ins`` reads."""
    if type(ins) is Call:
        return [a.value for a in ins.args if a.kind is ArgKind.REGISTER]
    if isinstance(ins, Ret):
        return [ins.result]
    if isinstance(ins, If):
        return [ins.cond]
    return []


def _reverse_postorder(successors: list[list[int]]) -> list[int]:
    """The blocks reachable from block 0 in reverse postorder (iteratively: no recursion
    limit on deep graphs)."""
    seen = {0}
    post: list[int] = []
    stack = [(0, iter(successors[0]))]
    while stack:
        block, children = stack[-1]
        for child in children:
            if child not in seen:
                seen.add(child)
                stack.append((child, iter(successors[child])))
                break
        else:
            stack.pop()
            post.append(block)
    return post[::-1]
