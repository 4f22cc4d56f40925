"""Running a case on every path and judging the outcomes against the oracle."""

from __future__ import annotations

from typing import Any

import numpy as np
from oracle import Expected, Refused, expected
from programs import PATHS, Batch, Case, Outcome, Shape, function_text, run_path
from table import labels


def oracle_outcome(case: Case) -> Outcome:
    """The oracle's outcome (its refusal is a clean one)."""
    try:
        return Outcome(value=expected(case))
    except Refused as refusal:
        return Outcome(error=str(refusal), error_type="Refused")


def audit(batch: Batch, case: Case) -> tuple[list[str], dict[str, Outcome]]:
    """The case's outcome on every path and the oracle, and what is wrong with them."""
    outcomes = {path: run_path(batch, case, path) for path in PATHS}
    outcomes["oracle"] = oracle_outcome(case)
    return judge(case, batch.index[id(case)], outcomes), outcomes


def judge(case: Case, number: int, outcomes: dict[str, Outcome]) -> list[str]:
    """The disagreements: every path computes the oracle's value, or every path refuses
    with a one-line error naming the function and the operator."""
    problems: list[str] = []
    oracle = outcomes["oracle"]
    short = case.op.removeprefix("relax.")
    for path in PATHS:
        outcome = outcomes[path]
        problems += [f"{path}: {note}" for note in outcome.notes]
        if outcome.refused:
            if not outcome.clean:
                problems.append(
                    f"{path}: not a clean refusal: {outcome.error_type}: {outcome.error}"
                )
            elif short not in outcome.error:
                problems.append(f"{path}: the refusal does not name {case.op}: {outcome.error}")
            elif outcome.error_type != "CompileError" and not outcome.error.startswith(
                f"c{number}: "
            ):
                problems.append(f"{path}: the refusal does not name the function: {outcome.error}")
            if not oracle.refused:
                problems.append(f"{path}: refused where the oracle computes: {outcome.error}")
        elif oracle.refused:
            problems.append(f"{path}: computed a value where the oracle refuses ({oracle.error})")
        else:
            mismatch = compare(oracle.value, outcome.value)
            if mismatch:
                problems.append(f"{path}: {mismatch}")
    return problems


def compare(want: Expected, got: Any) -> str | None:
    """How ``got`` differs from the oracle's value (None: it does not)."""
    if isinstance(want.value, tuple) and all(isinstance(v, int) for v in want.value):
        return None if got == want.value else f"expected the shape {want.value}, got {got!r}"
    if isinstance(want.value, tuple):
        if not isinstance(got, tuple) or len(got) != len(want.value):
            return f"expected a tuple of {len(want.value)}, got {summary(got)}"
        for k, (item, value) in enumerate(zip(want.value, got, strict=True)):
            bound = want.bound[k] if isinstance(want.bound, tuple) else want.bound
            mismatch = compare(Expected(item, want.ulps, bound, want.zero_sign), value)
            if mismatch:
                return f"[{k}]: {mismatch}"
        return None
    value = np.asarray(want.value)
    if not isinstance(got, np.ndarray):
        return f"expected an array, got {type(got).__name__}"
    if got.dtype != value.dtype or got.shape != value.shape:
        return f"expected {value.dtype}{list(value.shape)}, got {got.dtype}{list(got.shape)}"
    bad = _float_mismatches(value, got, want) if value.dtype.kind == "f" else got != value
    if not bad.any():
        return None
    where = [tuple(int(i) for i in w) for w in np.argwhere(bad)[:4]]
    shown = ", ".join(f"at {w}: {got[w]!r} instead of {value[w]!r}" for w in where)
    return f"{int(bad.sum())} of {value.size} elements differ: {shown}"


def _float_mismatches(value: np.ndarray, got: np.ndarray, want: Expected) -> np.ndarray:
    exact = value.astype(np.float64)
    actual = got.astype(np.float64)
    nan = np.isnan(exact)
    infinite = np.isinf(exact)
    bad = nan != np.isnan(actual)
    bad |= infinite & (actual != exact)
    bad |= ~infinite & ~nan & np.isinf(actual)
    finite = ~nan & ~infinite & np.isfinite(actual)
    # An inexact result may underflow to zero differently: below the normal range, an
    # error up to the smallest normal number is allowed.
    ulps = want.ulps * np.spacing(np.abs(value)).astype(np.float64)
    if want.ulps:
        ulps = np.maximum(ulps, float(np.finfo(value.dtype).tiny))
    bound = np.broadcast_to(np.asarray(want.bound, dtype=np.float64), value.shape)
    bad |= finite & (np.abs(actual - exact) > ulps + bound)
    if want.zero_sign and not want.ulps and not np.any(bound):
        bad |= (exact == 0) & (actual == 0) & (np.signbit(exact) != np.signbit(actual))
    return bad & ~np.isinf(bound)  # an infinite bound: the accumulation order decides


def summary(value: Any) -> str:
    """A short description of a value."""
    if isinstance(value, tuple):
        return "(" + ", ".join(summary(v) for v in value) + ")"
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{list(value.shape)} {shown_array(value)}"
    return repr(value)


def shown_array(value: np.ndarray, limit: int = 24) -> str:
    """The elements of an array, or a description of a large one."""
    flat = value.reshape(-1)
    if flat.size <= limit:
        return np.array2string(value, separator=", ", threshold=limit, max_line_width=10**6)
    if flat.dtype != np.bool_ and np.array_equal(flat, labels(flat.size, "i64")):
        return f"arange({flat.size}) % 100"
    return f"[{', '.join(map(str, flat[:6]))}, ..., {', '.join(map(str, flat[-3:]))}]"


def argument_text(arg: Any) -> str:
    """A case argument as Python text."""
    if isinstance(arg, Shape):
        return f"shape {list(arg.dims)}" + (" (literal)" if arg.literal else "")
    if isinstance(arg, np.ndarray):
        return f"{arg.dtype}{list(arg.shape)} {shown_array(arg)}"
    return f"prim {arg.value}"


def report(case: Case, number: int, problems: list[str], outcomes: dict[str, Outcome]) -> str:
    """What went wrong, each path's outcome, and the reproducer."""
    lines = [f"{case.id}: {case.op} {case.props}", "problems:"]
    lines += [f"  {p}" for p in problems]
    lines.append("outcomes:")
    for path, outcome in outcomes.items():
        shown = (
            f"{outcome.error_type}: {outcome.error}" if outcome.refused else summary(outcome.value)
        )
        lines.append(f"  {path}: {shown}")
    lines.append("inputs:")
    lines += [f"  %a{k}: {argument_text(a)}" for k, a in enumerate(case.args)]
    lines.append("symbolic program (vm-fused, vm-unfused, interpreter):")
    lines.append(function_text(case, number, rank_only=False))
    lines.append("rank-only program (safety-net):")
    lines.append(function_text(case, number, rank_only=True))
    return "\n".join(lines)
