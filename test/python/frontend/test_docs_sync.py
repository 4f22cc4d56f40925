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
