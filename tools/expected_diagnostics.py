"""MLIR's ``-verify-diagnostics``: match emitted diagnostics against annotations.

Annotations are comments in the input::

    %0 = relax.add %a, %b ...   // expected-error {{cannot broadcast}}
    // expected-error @+1 {{cannot broadcast}}
    // expected-warning @below {{...}}   (also @above, @-1, @+2, ...)

An annotation expects a diagnostic of its severity whose message contains the text
between ``{{`` and ``}}`` on the designated line. Every annotation must be matched
and every emitted diagnostic must be expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xrelax.diagnostics import Diagnostic, Location

_ANNOTATION = re.compile(
    r"expected-(?P<severity>error|warning|note|remark)"
    r"(?:\s*@(?P<where>[+-]\d+|below|above))?"
    r"\s*\{\{(?P<message>.*?)\}\}"
)


@dataclass
class Expectation:
    """An ``expected-*`` annotation."""

    severity: str
    message: str
    line: int
    annotation_line: int
    matched: bool = False


def parse_expectations(text: str, line_offset: int = 0) -> list[Expectation]:
    """The annotations of ``text`` (whose first line is ``line_offset + 1``)."""
    lines = text.splitlines()
    annotated = [bool(_ANNOTATION.search(line)) for line in lines]
    expectations: list[Expectation] = []
    for index, line in enumerate(lines):
        for match in _ANNOTATION.finditer(line):
            where = match.group("where")
            target = index
            if where == "below":
                target = next((j for j in range(index + 1, len(lines)) if not annotated[j]), index)
            elif where == "above":
                target = next((j for j in range(index - 1, -1, -1) if not annotated[j]), index)
            elif where is not None:
                target = index + int(where)
            expectations.append(
                Expectation(
                    match.group("severity"),
                    match.group("message"),
                    target + 1 + line_offset,
                    index + 1 + line_offset,
                )
            )
    return expectations


def check_diagnostics(
    expectations: list[Expectation], diagnostics: list[Diagnostic], file: str
) -> list[Diagnostic]:
    """The errors of the check: unexpected diagnostics and unmatched expectations."""
    problems: list[Diagnostic] = []
    for diagnostic in diagnostics:
        line = diagnostic.location.line if diagnostic.location else None
        match = next(
            (
                e
                for e in expectations
                if not e.matched
                and e.severity == diagnostic.severity
                and e.line == line
                and e.message in diagnostic.message
            ),
            None,
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
