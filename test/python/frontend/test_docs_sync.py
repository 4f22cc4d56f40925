"""docs/importing-models.md: its operator lists are what the importers convert, and its
table of supported models is the model zoo."""

from __future__ import annotations

import re

import pytest

from xrelax.frontend import support


def test_operator_lists_are_in_sync() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    text = support.DOC.read_text(encoding="utf-8")
    assert support.render(text) == text, "run: python -m xrelax.frontend.support"


def test_model_table_is_the_zoo() -> None:
    pytest.importorskip("torch")
    from model_zoo import ZOO

    text = support.DOC.read_text(encoding="utf-8")
    section = text.split("## Supported models", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\w+)` \|", section, re.M)
    assert sorted(set(listed)) == sorted(ZOO)


def test_second_zoo_table_is_the_zoo_and_its_failures() -> None:
    """Every model of the second zoo has a row; a cell says ``yes`` exactly when the
    case is not listed in ``zoo2_expected_failures.txt``."""
    pytest.importorskip("torch")
    from model_zoo2 import ZOO2
    from test_model_zoo2 import EXPECTED

    text = support.DOC.read_text(encoding="utf-8")
    section = text.split("## The second model zoo", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \|[^|]*\|[^|]*\| ([^|]*) \| ([^|]*) \|$", section, re.M)
    assert [name for name, _, _ in rows] == list(ZOO2)
    for name, torch_cell, onnx_cell in rows:
        for path, cell in (("torch", torch_cell), ("onnx", onnx_cell)):
            assert (cell == "yes") == (f"{name}-{path}" not in EXPECTED), (name, path, cell)
