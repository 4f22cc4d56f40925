"""Reading the expected-failure listings of the conformance suites and the zoo: one case
a line, ``name  # category: detail``."""

from __future__ import annotations

from pathlib import Path


def read_listing(path: Path, categories: tuple[str, ...], form: str) -> dict[str, str]:
    """The listed cases of ``path`` and their reasons (``category: detail``); a line not
    of the form ``<form>  # category: detail`` with a known category, or a case listed
    twice, fails with the line's number."""
    listed: dict[str, str] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        name, sep, reason = (part.strip() for part in line.partition("#"))
        category = reason.partition(": ")[0]
        assert sep and category in categories and reason.partition(": ")[2], (
            f"{path.name}:{number}: expected '{form}  # category: detail' with a category "
            f"of {categories}, got {line!r}"
        )
        assert name not in listed, f"{path.name}:{number}: {name} is listed twice"
        listed[name] = reason
    return listed
