"""No private xDSL name (``_foo``) is used outside ``dialects/ir/xdsl_workarounds.py``:
neither imported from an ``xdsl`` module nor read as an attribute (``parser._x``,
``super()._x``), where ``_x`` is a name xDSL defines and xrelax does not."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import xdsl

REPO = Path(__file__).resolve().parents[2]
WORKAROUNDS = REPO / "dialects" / "ir" / "xdsl_workarounds.py"

_DEFINED = re.compile(
    r"^\s*(?:async\s+)?(?:def|class)\s+(_\w+)|self\.(_\w+)\s*[:=]|^\s*(_\w+)\s*[:=]", re.M
)


def _defined_private_names(files: list[Path]) -> set[str]:
    names: set[str] = set()
    for path in files:
        for match in _DEFINED.finditer(path.read_text(encoding="utf-8")):
            name = next(group for group in match.groups() if group)
            if not name.startswith("__"):
                names.add(name)
    return names


def _our_sources() -> list[Path]:
    return [
        path
        for path in REPO.rglob("*.py")
        if ".venv" not in path.parts and "Output" not in path.parts
    ]


def test_private_xdsl_names_only_in_the_workaround_module() -> None:
    ours = _our_sources()
    xdsl_private = _defined_private_names(list(Path(xdsl.__file__).parent.rglob("*.py")))
    xdsl_private -= _defined_private_names([path for path in ours if path != WORKAROUNDS])
    assert {"_resume_from", "_current_token", "_parse_block"} <= xdsl_private
    offenders = []
    for path in ours:
        if path == WORKAROUNDS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in xdsl_private:
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.attr}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xdsl"):
                offenders += [
                    f"{path.relative_to(REPO)}:{node.lineno}: {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_")
                ]
    assert not offenders, "\n".join(offenders)
