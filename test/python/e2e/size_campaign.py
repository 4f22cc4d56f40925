"""A differential campaign over run-time sizes: every relax function of the examples and
of the lit inputs that compiles, called with random sizes that keep or break what its
types say, on the VM and on the reference interpreter. The two must agree on the values
or both refuse with a one-line error (docs/shape-safety.md).

    python test/python/e2e/size_campaign.py --inputs 20000     # a campaign
    (the default test run takes a bounded, seeded slice: test_size_campaign.py)
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import xrelax
from xrelax.backends.interpreter import InterpreterError
from xrelax.dialects import dtypes
from xrelax.dialects.ir.diagnostics import CompileError
from xrelax.dialects.relax import FuncOp, ShapeType, TensorType, TupleType

REPO = Path(__file__).resolve().parents[3]
SOURCES = [
    *sorted((REPO / "examples").glob("*.mlir")),
    *sorted((REPO / "test").rglob("*.mlir")),
]


LOWERED_OPS = ("vm.", "relax.builtin.", "relax.memory.", "relax.call_dps")
"""IR past the point the interpreter runs (lit inputs of the lowering passes)."""
CLEANUP = "relax-normalize,canonicalize,cse,dce"
PARTIAL_WRITES = {"relax-fuse-tir.mlir#2"}
"""Chunks whose kernels leave part of an output unwritten (its values are whatever the
allocation held, in the VM and the interpreter alike): nothing to compare."""

MAX_ELEMENTS = 1 << 16
"""Arguments are kept small: the campaign is about sizes, not about speed."""


class _TooLarge(Exception):
    """An argument would exceed :data:`MAX_ELEMENTS`."""


@dataclass
class Target:
    """A compiled relax function and what it was compiled from."""

    source: str
    module: Any
    function: FuncOp
    vm: Any


def targets() -> Iterator[Target]:
    """Every relax function (not a fused primitive) of every chunk that compiles."""
    for path in SOURCES:
        text = path.read_text()
        if "expected-error" in text:
            continue
        for index, chunk in enumerate(text.split("// -----")):
            if any(lowered in chunk for lowered in LOWERED_OPS):
                continue
            if f"{path.name}#{index}" in PARTIAL_WRITES:
                continue
            try:
                module = xrelax.parse(chunk, f"{path.name}#{index}")
                vm = xrelax.VirtualMachine(xrelax.compile(module))
                # The oracle runs the program as the pipeline sees it before lowering:
                # dead code that would fail is gone from both.
                module = xrelax.apply(module, CLEANUP)
            except (CompileError, xrelax.VMError, ValueError):
                continue  # not compilable (bf16 has no numpy type: hostile-input's issue)
            for op in module.body.block.ops:
                if isinstance(op, FuncOp) and not op.is_primitive:
                    yield Target(f"{path.relative_to(REPO)}#{index}", module, op, vm)


def _value(type_: Any, sizes: dict[str, int], rng: np.random.Generator, break_it: bool) -> Any:
    """A random argument of ``type_``; ``break_it`` changes one dimension by one."""
    if isinstance(type_, TupleType):
        return tuple(_value(t, sizes, rng, break_it) for t in type_.types)
    if isinstance(type_, TensorType | ShapeType):
        if type_.dims is not None:
            shape = [max(xrelax.dialects.shapes.symbolic.evaluate(d, sizes), 0) for d in type_.dims]
        else:
            shape = list(rng.integers(0, 4, size=type_.ndim if type_.ndim is not None else 2))
        if break_it and shape:
            axis = int(rng.integers(len(shape)))
            shape[axis] = max(shape[axis] + int(rng.choice([-1, 1])), 0)
        if isinstance(type_, ShapeType):
            return tuple(int(d) for d in shape)
        if np.prod(shape) > MAX_ELEMENTS:
            raise _TooLarge
        dtype = dtypes.numpy_dtype(type_.dtype) if type_.known_dtype is not None else np.float32
        if np.issubdtype(dtype, np.floating):
            return rng.uniform(-1, 1, shape).astype(dtype)
        if dtype == np.bool_:
            return rng.integers(0, 2, shape).astype(np.bool_)
        return rng.integers(-1, 4, shape).astype(dtype)
    return None


def _outcome(run: Any) -> tuple[Any, str | None]:
    try:
        return run(), None
    except (xrelax.VMError, InterpreterError) as err:
        return None, str(err)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        if not (isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype):
            return False
        if a.size == 0 or a.dtype.kind != "f":
            return bool(np.array_equal(a, b))
        # Kernels accumulate in the element type, the reference in float64: compare
        # against the output's magnitude, as many ulps of the type as a sum may lose.
        scale = max(1.0, float(np.nanmax(np.abs(b), initial=0.0)))
        tolerance = {2: 2e-2, 4: 1e-4}.get(a.dtype.itemsize, 1e-9) * scale
        both_nan = np.isnan(a) & np.isnan(b)
        return bool(np.all(both_nan | (a == b) | (np.abs(a - b) <= tolerance)))
    return a == b


def run_one(target: Target, rng: np.random.Generator) -> tuple[str, str]:
    """One call with random sizes: ('agree' | 'both refuse' | 'DISAGREE' ...), details."""
    func = target.function
    params = func.function_type.inputs.data
    names = sorted({n for t in params for n in xrelax.dialects.relax.type_free_vars(t)})
    sizes = {name: int(rng.integers(0, 6)) for name in names}
    break_it = bool(rng.random() < 0.3)
    try:
        args = [_value(t, sizes, rng, break_it) for t in params]
    except xrelax.dialects.shapes.symbolic.SymbolicError:
        return "skipped", "a parameter dimension is not computable from the sizes"
    except _TooLarge:
        return "skipped", f"an argument of more than {MAX_ELEMENTS} elements"
    name = func.sym_name.data
    with np.errstate(all="ignore"):
        expected, refused = _outcome(lambda: xrelax.interpret(target.module, name, *args))
        actual, vm_refused = _outcome(lambda: target.vm[name](*args))
    detail = f"{target.source} @{name} sizes={sizes} broken={break_it}"
    for message in (refused, vm_refused):
        if message is not None and "\n" in message:
            return "MULTI-LINE ERROR", f"{detail}: {message!r}"
    if refused is None and vm_refused is None:
        if _same(expected, actual):
            return "agree", detail
        return "DISAGREE", f"{detail}: values differ"
    if refused is not None and vm_refused is not None:
        return "both refuse", detail
    return "DISAGREE", f"{detail}: interpreter {refused!r}, VM {vm_refused!r}"


def campaign(inputs: int, seed: int) -> tuple[Counter, list[str], int]:
    """``inputs`` random calls spread over every target; outcome counts, failures, and
    the number of targets."""
    rng = np.random.default_rng(seed)
    pool = list(targets())
    counts: Counter = Counter()
    failures: list[str] = []
    for k in range(inputs):
        outcome, detail = run_one(pool[k % len(pool)], rng)
        counts[outcome] += 1
        if outcome.isupper():
            failures.append(f"{outcome}: {detail}")
    return counts, failures, len(pool)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    counts, failures, n_targets = campaign(args.inputs, args.seed)
    print(f"{n_targets} functions, {args.inputs} calls: {dict(counts)}")
    for failure in failures[:50]:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
