"""The failure classes the audit found that are not fixed yet (/tmp/audit_failures.md):
their tests are expected to fail, strictly, so that a fixed case fails until its entry
goes."""

from __future__ import annotations

from fnmatch import fnmatchcase

_DTYPES = ("f16", "f32", "f64", "i8", "i16", "i32", "i64", "i1")
_SPLITS = ("sections", "indices", "clamped", "unsorted", "negative", "indivisible", "empty", "one")

KNOWN: dict[str, tuple[str, tuple[str, ...]]] = {
    "A3": (
        "arange's VM computes the length before checking the step and the range",
        ("arange-*-reversed", "arange-*-zero-step"),
    ),
    "A4": (
        "split never fuses",
        (*(f"split-{d}-{name}" for d in _DTYPES for name in _SPLITS), "random-split"),
    ),
}
"""Failure class -> (what is wrong, the test ids of its cases, fnmatch patterns)."""


def known_failure(test_id: str) -> str | None:
    """The failure class a test id belongs to, with what is wrong."""
    for name, (what, patterns) in KNOWN.items():
        if any(fnmatchcase(test_id, p) for p in patterns):
            return f"{name}: {what}"
    return None
