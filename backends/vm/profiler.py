"""The VM profiler: every packed call of one VM function call timed, as a table per
kernel and builtin (TVM's VM profiler, ``torch.profiler``'s ``key_averages().table()``)
or as a Chrome trace (``chrome://tracing``, Perfetto).

``VirtualMachine.profile("main", *args)`` runs a second compiled form of the
executable in which each call site is bracketed by two clock reads; the plain form
stays untimed. What no site covers (register moves, the dispatch between blocks, the
function's own entry and exit) is the row ``(VM dispatch)``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from typing import Any

from xrelax.ops.base import RUNTIME_KERNEL_PREFIX

from . import builtins

__all__ = ["Profile", "ProfileRow", "Recorder", "fused_operators"]

Site = tuple[str, int, str]
"""A timed call site: (VM function, pc, the kernel or packed function it calls)."""

DISPATCH = "(VM dispatch)"


@dataclass(frozen=True)
class ProfileRow:
    """The calls of one packed function: kernel, builtin or safety-net operator."""

    name: str
    kind: str
    """``kernel``, ``builtin``, ``safety net`` (an operator's reference at run time),
    ``packed`` (another registered function) or ``vm`` (the row ``(VM dispatch)``)."""
    calls: int
    seconds: float
    operators: tuple[str, ...]
    """The relax operators fused into a kernel (from its name), else empty."""


class Profile:
    """One profiled call: its result, the wall time, and the timed call sites."""

    def __init__(
        self,
        function: str,
        result: Any,
        seconds: float,
        sites: Sequence[Site],
        events: Sequence[tuple[int, float, float]],
        start: float,
    ) -> None:
        self.function = function
        self.result = result
        self.seconds = seconds
        """Wall time of the whole call."""
        self._sites = sites
        self._events = events
        self._start = start

    def rows(self) -> list[ProfileRow]:
        """One row per packed function, by total time (largest first), then the time
        outside every call site."""
        calls: dict[str, int] = {}
        seconds: dict[str, float] = {}
        for site, begin, end in self._events:
            name = self._sites[site][2]
            calls[name] = calls.get(name, 0) + 1
            seconds[name] = seconds.get(name, 0.0) + end - begin
        rows = [
            ProfileRow(name, _kind(name), calls[name], seconds[name], fused_operators(name))
            for name in seconds
        ]
        rows.sort(key=lambda row: (-row.seconds, row.name))
        outside = max(self.seconds - sum(seconds.values()), 0.0)
        rows.append(ProfileRow(DISPATCH, "vm", 1, outside, ()))
        return rows

    def table(self, limit: int | None = None) -> str:
        """The rows as an aligned text table with each row's share of the call's time;
        ``limit`` keeps the largest rows (the dispatch row is always shown)."""
        rows = self.rows()
        dispatch = rows.pop()
        shown = [*rows[:limit], dispatch] if limit is not None else [*rows, dispatch]
        header = ("name", "kind", "calls", "total ms", "share", "mean us", "operators")
        lines = [
            (
                row.name,
                row.kind,
                str(row.calls),
                f"{row.seconds * 1e3:.3f}",
                f"{row.seconds / self.seconds:.1%}" if self.seconds else "-",
                f"{row.seconds / row.calls * 1e6:.1f}",
                " ".join(row.operators),
            )
            for row in shown
        ]
        widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
        right = {2, 3, 4, 5}

        def line(cells: Sequence[str]) -> str:
            padded = [
                cell.rjust(width) if i in right else cell.ljust(width)
                for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
            ]
            return "  ".join(padded).rstrip()

        hidden = len(rows) - (len(shown) - 1)
        footer = [f"... {hidden} more rows"] if hidden > 0 else []
        kernels = sum(r.seconds for r in rows if r.kind == "kernel")
        summary = (
            f"{self.function}: {self.seconds * 1e3:.3f} ms, "
            f"{sum(r.calls for r in rows)} calls; kernels {kernels / self.seconds:.1%}, "
            f"outside kernels {1 - kernels / self.seconds:.1%}"
            if self.seconds
            else f"{self.function}: no time measured"
        )
        return "\n".join([summary, line(header), *(line(cells) for cells in lines), *footer])

    def chrome_trace(self) -> dict[str, Any]:
        """The call and each timed site as complete events (``"ph": "X"``, microseconds)
        of the Chrome trace event format."""
        events = [
            {
                "name": self.function,
                "cat": "vm function",
                "ph": "X",
                "ts": 0.0,
                "dur": self.seconds * 1e6,
                "pid": 0,
                "tid": 0,
            }
        ]
        for site, begin, end in self._events:
            function, pc, name = self._sites[site]
            events.append(
                {
                    "name": name,
                    "cat": _kind(name),
                    "ph": "X",
                    "ts": (begin - self._start) * 1e6,
                    "dur": (end - begin) * 1e6,
                    "pid": 0,
                    "tid": 0,
                    "args": {"function": function, "pc": pc},
                }
            )
        return {"traceEvents": events, "displayTimeUnit": "ms"}

    def save_chrome_trace(self, path: str | PathLike[str]) -> None:
        """Write :meth:`chrome_trace` as JSON to ``path``."""
        with open(path, "w") as file:
            json.dump(self.chrome_trace(), file)


class Recorder:
    """The clock of a profiled executable: its generated code calls :attr:`now` before
    a call site and :meth:`record` after it."""

    def __init__(self, sites: Sequence[Site]) -> None:
        self.sites = sites
        self.now = time.perf_counter
        self.events: list[tuple[int, float, float]] = []
        self.began = 0.0

    def record(self, site: int, begin: float) -> None:
        self.events.append((site, begin, self.now()))

    def start(self) -> None:
        self.events = []
        self.began = self.now()

    def finish(self, function: str, result: Any) -> Profile:
        seconds = self.now() - self.began
        return Profile(function, result, seconds, self.sites, self.events, self.began)


def _kind(name: str) -> str:
    if name.startswith("vm.builtin."):
        return "builtin"
    if name.startswith(RUNTIME_KERNEL_PREFIX):
        return "safety net"
    return "packed" if name in builtins._REGISTRY else "kernel"


_DIGITS = re.compile(r"\d+$")
_MORE = re.compile(r"and(\d+)$")


def fused_operators(kernel: str) -> tuple[str, ...]:
    """The relax operators a kernel computes, read from its name: ``relax-legalize-ops``
    names a kernel after its operator (``conv2d``, ``conv2d1``, ...) and
    ``relax-fuse-ops`` joins them (``fused_conv2d_add_relu``; past 64 characters the
    last part says how many more: ``_and3``). Operator names are those with a run-time
    kernel registered (``relax.op.<name>``); a kernel of another origin has none."""
    if _kind(kernel) != "kernel":
        return ()
    known = {
        name.removeprefix(RUNTIME_KERNEL_PREFIX)
        for name in builtins._REGISTRY
        if name.startswith(RUNTIME_KERNEL_PREFIX)
    }
    parts = kernel.removeprefix("fused_").split("_")
    found: list[str] = []
    i = 0
    while i < len(parts):
        for j in range(len(parts), i, -1):
            joined = "_".join(parts[i:j])
            name = joined if joined in known else _DIGITS.sub("", joined)
            if name in known:
                found.append(name)
                i = j
                break
        else:
            more = _MORE.fullmatch(parts[i]) if i == len(parts) - 1 else None
            if more is None:
                return ()
            found.append(f"(+{more.group(1)})")
            i += 1
    return tuple(found)
