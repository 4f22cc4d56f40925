"""MLIR's ``-verify-diagnostics``: match emitted diagnostics against annotations.

Annotations are comments in the input::

    %0 = relax.add %a, %b ...   // expected-error {{cannot broadcast}}
    // expected-error @+1 {{cannot broadcast}}
    // expected-warning @below {{...}}   (also @above, @-1, @+2, ...)

An annotation expects a diagnostic of its severity whose message contains the text
between ``{{`` and ``}}`` on the designated line. Every annotation must be matched
and every emitted diagnostic must be expected. An annotation without its closing
``}}``, or designating a line outside the input, is itself a located error.

Scanning and matching take time linear in the input and the diagnostics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xrelax.dialects.ir.diagnostics import Diagnostic, Location

_HEAD = re.compile(
    r"expected-(?P<severity>error|warning|note|remark)"
    r"(?:\s*@(?P<where>[+-]\d+|below|above))?"
    r"\s*\{\{"
)
"""An annotation up to its opening ``{{`` (the message runs to the next ``}}``)."""


@dataclass
class Expectation:
    """An ``expected-*`` annotation."""

    severity: str
    message: str
    line: int
    annotation_line: int
    matched: bool = False


def parse_expectations(
    text: str, line_offset: int = 0, file: str = "<stdin>"
) -> tuple[list[Expectation], list[Diagnostic]]:
    """The annotations of ``text`` (whose first line is ``line_offset + 1``), and an error
    for each malformed one."""
    lines = text.splitlines()
    found: list[tuple[int, int, re.Match[str], str | None]] = []
    malformed: list[Diagnostic] = []
    for index, line in enumerate(lines):
        pos = 0
        while (head := _HEAD.search(line, pos)) is not None:
            close = line.find("}}", head.end())
            if close < 0:
                where = Location(file, index + 1 + line_offset, head.start() + 1)
                severity = head.group("severity")
                message = f"unterminated 'expected-{severity}' annotation: no '}}}}' after '{{{{'"
                malformed.append(Diagnostic("error", message, where))
                break
            found.append((index, head.start(), head, line[head.end() : close]))
            pos = close + 2
    annotated = {index for index, *_ in found}
    below = _next_unannotated(len(lines), annotated, range(len(lines) - 1, -1, -1))
    above = _next_unannotated(len(lines), annotated, range(len(lines)))
    expectations: list[Expectation] = []
    for index, column, head, message in found:
        where = head.group("where")
        target: int | None = index
        if where == "below":
            target = below[index]
        elif where == "above":
            target = above[index]
        elif where is not None:
            # a designation beyond the input (or too long to be a line number) matches
            # nothing: say so where it is written
            shift = int(where) if len(where) <= 19 else None
            target = None if shift is None or not 0 <= index + shift < len(lines) else index + shift
        if target is None:
            shown = where if len(where) <= 20 else where[:20] + "..."
            malformed.append(
                Diagnostic(
                    "error",
                    f"'expected-{head.group('severity')} @{shown}' designates a line outside "
                    "the input",
                    Location(file, index + 1 + line_offset, column + 1),
                )
            )
            continue
        expectations.append(
            Expectation(
                head.group("severity"),
                message,
                target + 1 + line_offset,
                index + 1 + line_offset,
            )
        )
    return expectations, malformed


def _next_unannotated(count: int, annotated: set[int], order: range) -> list[int]:
    """For each line, the nearest line without an annotation strictly after it in
    ``order`` (the line itself when there is none), in one pass."""
    nearest = list(range(count))
    candidate: int | None = None
    for index in order:
        if candidate is not None:
            nearest[index] = candidate
        if index not in annotated:
            candidate = index
    return nearest


def check_diagnostics(
    expectations: list[Expectation], diagnostics: list[Diagnostic], file: str
) -> list[Diagnostic]:
    """The errors of the check: unexpected diagnostics and unmatched expectations."""
    problems: list[Diagnostic] = []
    by_line: dict[tuple[str, int], list[Expectation]] = {}
    for expectation in expectations:
        by_line.setdefault((expectation.severity, expectation.line), []).append(expectation)
    for diagnostic in diagnostics:
        line = diagnostic.location.line if diagnostic.location else None
        candidates = by_line.get((diagnostic.severity, line), ()) if line is not None else ()
        match = next(
            (e for e in candidates if not e.matched and e.message in diagnostic.message), None
        )
        if match is not None:
            match.matched = True
            continue
        problems.append(
            Diagnostic(
                "error",
                f"unexpected {diagnostic.severity}: {diagnostic.message}",
                diagnostic.location,
            )
        )
    for expectation in expectations:
        if not expectation.matched:
            problems.append(
                Diagnostic(
                    "error",
                    f'expected {expectation.severity} "{expectation.message}" was not produced',
                    Location(file, expectation.annotation_line, 1),
                )
            )
    return problems
