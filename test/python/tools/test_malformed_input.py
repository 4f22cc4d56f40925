"""Malformed input never gives a Python traceback: relax-opt answers with a located
error and exit code 1 (exit code 2 would be an internal error)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xrelax.tools.relax_opt import main

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "examples").glob("*.mlir"))
TEXTS = [p.read_text() for p in EXAMPLES]


@st.composite
def mutations(draw: st.DrawFn) -> str:
    """An example with a few characters or tokens deleted, duplicated or replaced."""
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 3))):
        if not text:
            break
        start = draw(st.integers(0, len(text) - 1))
        end = min(len(text), start + draw(st.integers(1, 12)))
        action = draw(st.sampled_from(["delete", "duplicate", "replace"]))
        if action == "delete":
            text = text[:start] + text[end:]
        elif action == "duplicate":
            text = text[:end] + text[start:end] + text[end:]
        else:
            junk = draw(
                st.sampled_from(["%", "]", "[", "<", ">", "?", "-1", "n *", "f64", "@", ",", "{"])
            )
            text = text[:start] + junk + text[end:]
    return text


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(mutations())
def test_mutated_examples_give_located_errors(tmp_path_factory, capsys, text: str) -> None:
    path = tmp_path_factory.mktemp("in") / "input.mlir"
    path.write_text(text)
    code = main([str(path), "-p", "relax-to-vm", "-o", str(path.with_suffix(".out"))])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 1:
        first = err.splitlines()[0]
        assert first.startswith(str(path)) or first.startswith("relax-opt: error:"), first
