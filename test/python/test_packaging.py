"""pyproject.toml's package list names every package of the source tree, so that a
wheel (not only an editable install, which maps the whole directory) holds them all."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOT_SHIPPED = {"test", "bench", "examples", "docs"}


def test_every_package_is_listed():
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(("xrelax", *init.parent.relative_to(ROOT).parts))
        for init in ROOT.rglob("__init__.py")
        if not {".venv", *NOT_SHIPPED} & set(init.relative_to(ROOT).parts[:1])
        and "Output" not in init.parts
    }
    assert found == listed, f"unlisted: {sorted(found - listed)}, missing: {sorted(listed - found)}"
