"""Inline code for the builtins every VM call runs: parameter checks, shapes, allocation.

When the arguments that steer a builtin are constants, the VM compiler emits the
builtin's common case as Python statements, guarded so that every other case (a wrong
value, an ndarray subclass, a shape given as a tuple) calls the builtin itself: errors
and unusual values behave exactly as without inlining. A builtin call costs ~0.1-0.5 us,
most of it argument passing and the generic loop over a shape pattern; its inline form
is a few attribute reads and comparisons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xrelax.dialects.vm import MatchKind, ShapeEntry

from . import builtins
from .executable import Arg, ArgKind, Call, If, Instruction, Ret

__all__ = ["CallSite", "Globals", "checked_match", "expansion_of", "list_heaps"]

NOT_CONSTANT = object()
"""The value of an argument that is a register."""


@dataclass
class Globals:
    """The module-level names the inline code uses, and their values."""

    values: dict[str, Any] = field(
        default_factory=lambda: {"_ndarray": np.ndarray, "_empty": np.empty, "_zeros": np.zeros}
    )

    def dtype(self, name: str) -> str | None:
        """A global holding ``np.dtype(name)`` (None if numpy has no such dtype)."""
        key = f"_dtype_{name}"
        if key not in self.values:
            if not key.isidentifier():
                return None
            try:
                self.values[key] = np.dtype(name)
            except TypeError:
                return None
        return key


@dataclass(frozen=True)
class CallSite:
    """A builtin call: ``lhs`` (``"r3 = "`` or ``""``), the call as code, the arguments as
    code and their constant values (``NOT_CONSTANT`` for registers)."""

    lhs: str
    call: str
    args: list[str]
    values: list[Any]
    list_heap: bool = False
    """The shape heap it allocates or reads is a Python list (see :func:`list_heaps`)."""


Expansion = Callable[[CallSite, Globals], list[str] | None]


def _registers(site: CallSite, *positions: int) -> bool:
    """Whether the arguments at ``positions`` are registers: the inline code reads their
    attributes, which a constant (``0.ndim``) would turn into a syntax error."""
    return all(site.values[i] is NOT_CONSTANT for i in positions)


def _check_tensor_info(site: CallSite, names: Globals) -> list[str] | None:
    if len(site.args) != 4 or not _registers(site, 0):
        return None
    value, ndim, dtype = site.args[0], site.values[1], site.values[2]
    if type(ndim) is not int or type(dtype) is not str:
        return None
    failed = [f"type({value}) is not _ndarray"]
    if ndim != -1:
        failed.append(f"{value}.ndim != {ndim}")
    if dtype:
        expected = names.dtype(dtype)
        if expected is None:
            return None
        failed.append(f"{value}.dtype is not {expected}")
    else:
        failed.append(f"{value}.dtype.kind not in {builtins.TENSOR_KINDS!r}")
    names.values["_as_tensor"] = builtins.as_tensor
    return [f"if {' or '.join(failed)}: {value} = _as_tensor({value}); {site.call}"]


def _match_shape(site: CallSite, names: Globals) -> list[str] | None:
    parts = _match_parts(site)
    if parts is None:
        return None
    failed, stores = parts
    lines = [f"if {' or '.join(failed)}: {site.call}"]
    if stores:
        lines.append(f"else: {'; '.join(stores)}")
    return lines


def _match_parts(site: CallSite) -> tuple[list[str], list[str]] | None:
    """The failure tests and the heap stores of an inline ``match_shape``."""
    if len(site.args) != 4 or not _is_match_pattern(site.values[2]) or not _registers(site, 0, 1):
        return None
    value, heap, pattern = site.args[0], site.args[1], site.values[2]
    failed = [f"type({value}) is not _ndarray", f"len(_s := {value}.shape) != {len(pattern)}"]
    stores: list[str] = []
    stored_dim: dict[int, int] = {}
    for i, (kind, slot, _) in enumerate(pattern):
        if kind == MatchKind.EQUAL:
            failed.append(f"_s[{i}] != {slot}")
        elif kind == MatchKind.CHECK:
            # A slot this pattern stored earlier holds that dimension once the stores run.
            expected = f"_s[{stored_dim[slot]}]" if slot in stored_dim else f"{heap}[{slot}]"
            failed.append(f"_s[{i}] != {expected}")
        elif kind == MatchKind.STORE:
            stores.append(f"{heap}[{slot}] = _s[{i}]")
            stored_dim[slot] = i
    return failed, stores


def _match_prim(site: CallSite, names: Globals) -> list[str] | None:
    pattern = site.values[2] if len(site.args) == 4 else None
    if not site.lhs or not _is_match_pattern(pattern) or len(pattern) != 1:
        return None
    value, heap = site.args[0], site.args[1]
    ((kind, slot, _),) = pattern
    failed = [f"type({value}) is not int"]
    stores = []
    # an expected value is an int64: any other fails the comparison
    if kind == MatchKind.EQUAL:
        failed.append(f"{value} != {slot}")
    elif kind == MatchKind.CHECK:
        failed.append(f"{value} != {heap}[{slot}]")
    elif kind == MatchKind.STORE:
        failed.append(f"not 0 <= {value} <= {builtins.INT64_MAX}")
        stores.append(f"{heap}[{slot}] = {value}")
    else:
        failed.append(f"not {builtins.INT64_MIN} <= {value} <= {builtins.INT64_MAX}")
    return [
        f"if {' or '.join(failed)}: {site.call}",
        f"else: {'; '.join([*stores, site.lhs + value])}",
    ]


def _is_match_pattern(pattern: Any) -> bool:
    return type(pattern) is tuple and all(
        type(p) is tuple
        and len(p) == 3
        and p[0] in tuple(MatchKind)
        and type(p[1]) is int
        and (p[0] in (MatchKind.EQUAL, MatchKind.ANY) or p[1] >= 0)
        for p in pattern
    )


def _make_shape(site: CallSite, names: Globals) -> list[str] | None:
    if len(site.args) != 2 or not site.lhs or type(site.values[1]) is not tuple:
        return None
    if not _registers(site, 0):
        return None
    heap, pattern = site.args[0], site.values[1]
    dims = []
    for entry in pattern:
        if type(entry) is not tuple or len(entry) != 2 or type(entry[1]) is not int:
            return None
        kind, value = entry
        if kind == ShapeEntry.IMMEDIATE:
            dims.append(str(value))
        elif kind == ShapeEntry.HEAP and value >= 0:
            dims.append(_heap_read(site, heap, value))
        else:
            return None
    return [f"{site.lhs}({', '.join(dims)}{',' if len(dims) == 1 else ''})"]


def _make_prim(site: CallSite, names: Globals) -> list[str] | None:
    entry = site.values[1] if len(site.args) == 2 else None
    if not site.lhs or type(entry) is not tuple or len(entry) != 2 or entry[0] != ShapeEntry.HEAP:
        return None
    if type(entry[1]) is not int or entry[1] < 0:
        return None
    return [f"{site.lhs}{_heap_read(site, site.args[0], entry[1])}"]


def _alloc_tensor_direct(site: CallSite, names: Globals) -> list[str] | None:
    if len(site.args) != 2 or not site.lhs or type(site.values[1]) is not str:
        return None
    dtype = names.dtype(site.values[1])
    return None if dtype is None else [f"{site.lhs}_empty({site.args[0]}, {dtype})"]


def _alloc_tensor(site: CallSite, names: Globals) -> list[str] | None:
    """A view of a planned storage: numpy's constructor itself (a failure re-runs the
    builtin, whose error says why the tensor does not fit)."""
    if len(site.args) != 4 or not site.lhs or type(site.values[3]) is not str:
        return None
    dtype = names.dtype(site.values[3])
    if dtype is None:
        return None
    storage, offset, shape = site.args[:3]
    # Positional arguments: numpy parses keywords at twice the cost (0.44 us -> 0.21).
    offset = "" if offset == "0" else f", {offset}"
    return [f"{site.lhs}_ndarray({shape}, {dtype}, {storage}{offset})"]


def _alloc_shape_heap(site: CallSite, names: Globals) -> list[str] | None:
    if len(site.args) != 1 or not site.lhs or type(site.values[0]) is not int:
        return None
    if site.list_heap:
        return [f"{site.lhs}[0] * {site.values[0]}"]
    return [f"{site.lhs}_zeros({site.values[0]}, {names.dtype('int64')})"]


def _heap_read(site: CallSite, heap: str, slot: int) -> str:
    """Code reading slot ``slot`` of the shape heap as a Python int."""
    return f"{heap}[{slot}]" if site.list_heap else f"{heap}.item({slot})"


def checked_match(check: CallSite, match: CallSite, names: Globals) -> list[str] | None:
    """One test for a tensor parameter's ``check_tensor_info`` and the ``match_shape`` of
    the same value that follows it (each type and attribute read once); when it fails,
    both builtins run, in order, to raise the error or take the unusual value."""
    parts = _match_parts(match)
    if _check_tensor_info(check, names) is None or parts is None:
        return None
    value, ndim, dtype = check.args[0], check.values[1], check.values[2]
    if value != match.args[0] or ndim != len(match.values[2]):
        return None
    failed, stores = parts
    if dtype:
        failed.insert(1, f"{value}.dtype is not {names.dtype(dtype)}")
    else:
        failed.insert(1, f"{value}.dtype.kind not in {builtins.TENSOR_KINDS!r}")
    lines = [f"if {' or '.join(failed)}: {value} = _as_tensor({value}); {check.call}; {match.call}"]
    if stores:
        lines.append(f"else: {'; '.join(stores)}")
    return lines


_EXPANSIONS: list[tuple[Callable[..., Any], Expansion]] = [
    (builtins.check_tensor_info, _check_tensor_info),
    (builtins.match_shape, _match_shape),
    (builtins.make_shape, _make_shape),
    (builtins.match_prim, _match_prim),
    (builtins.make_prim, _make_prim),
    (builtins.alloc_tensor_direct, _alloc_tensor_direct),
    (builtins.alloc_tensor, _alloc_tensor),
    (builtins.alloc_shape_heap, _alloc_shape_heap),
]


def list_heaps(
    instrs: Sequence[Instruction], targets: Sequence[Any], leaders: set[int]
) -> set[int]:
    """The registers holding a shape heap the VM can keep as a Python list (whose reads
    and writes cost a third of an int64 array's): every use of it is a ``make_shape`` or
    ``make_prim`` read, or the ``match_shape`` of a tensor that ``check_tensor_info``
    checked just before, so each value stored is an ndarray's dimension. A heap passed
    to anything else (a shape function's kernel, ``match_prim`` with its unbounded
    integers) stays an array. ``targets[pc]`` is the callee of instruction ``pc``."""
    heaps = {
        ins.dst
        for ins, target in zip(instrs, targets, strict=True)
        if target is builtins.alloc_shape_heap and ins.dst is not None
    }
    for pc, ins in enumerate(instrs):
        for reg in _registers_read(ins) & heaps:
            if not isinstance(ins, Call):  # returned or tested: the heap escapes
                heaps.discard(reg)
                continue
            heap = Arg(ArgKind.REGISTER, reg)
            args = ins.args
            if targets[pc] in (builtins.make_shape, builtins.make_prim) and heap not in args[1:]:
                continue
            matches = (
                targets[pc] is builtins.match_shape
                and pc not in leaders
                and targets[pc - 1] is builtins.check_tensor_info
                and len(args) == 4
                and args[1] == heap
                and args[0] == instrs[pc - 1].args[0] != heap
                and heap not in args[2:]
            )
            if not matches:
                heaps.discard(reg)
    return heaps


def _registers_read(ins: Instruction) -> set[int]:
    if isinstance(ins, Call):
        return {a.value for a in ins.args if a.kind == ArgKind.REGISTER}
    if isinstance(ins, Ret):
        return {ins.result}
    if isinstance(ins, If):
        return {ins.cond}
    return set()


def expansion_of(target: Any) -> Expansion | None:
    """How to inline a call of ``target`` (it returns the lines, or None to call it)."""
    return next((expand for f, expand in _EXPANSIONS if f is target), None)
