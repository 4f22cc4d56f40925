"""Every valid lit input and contract example round-trips: printing the parsed module,
re-parsing and printing again gives identical text, in the custom and generic forms."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.utils.exceptions import ParseError

import xrelax
from xrelax import CompileError

REPO = Path(__file__).resolve().parents[2]
SHARED_EXAMPLES = REPO.parent / "shared" / "examples"


ROUND_TRIP_DIRS = ("dialects", "ops", "transforms")


def _split(text: str) -> list[str]:
    chunks, current = [], []
    for line in text.splitlines(keepends=True):
        if line.strip() == "// -----":
            chunks.append("".join(current))
            current = []
        else:
            current.append(line)
    return [*chunks, "".join(current)]


def _chunks() -> list[tuple[str, str]]:
    cases = []
    for folder in ROUND_TRIP_DIRS:
        for path in sorted((REPO / "test" / folder).rglob("*.mlir")):
            if "Output" in path.parts:
                continue
            for index, chunk in enumerate(_split(path.read_text())):
                if "expected-" in chunk or not chunk.strip():
                    continue
                cases.append((f"{path.relative_to(REPO)}#{index}", chunk))
    for folder in (REPO / "examples", SHARED_EXAMPLES):
        if folder.is_dir():
            cases += [(str(p), p.read_text()) for p in sorted(folder.glob("*.mlir"))]
    return cases


CASES = _chunks()


@pytest.mark.parametrize(("name", "text"), CASES, ids=[c[0] for c in CASES])
def test_print_parse_fixpoint(name: str, text: str) -> None:
    try:
        module = xrelax.parse(text, name)
    except (CompileError, ParseError) as err:
        raise AssertionError(f"{name} does not parse: {err}") from err
    first = xrelax.print_module(module)
    assert xrelax.print_module(xrelax.parse(first)) == first
    generic = xrelax.print_module(module, generic=True)
    assert xrelax.print_module(xrelax.parse(generic)) == first


def test_contract_examples_are_bundled() -> None:
    """The repo's examples/ holds the contract programs verbatim."""
    if not SHARED_EXAMPLES.is_dir():
        pytest.skip("no ../shared/examples on this machine")
    for path in SHARED_EXAMPLES.glob("*.mlir"):
        assert (REPO / "examples" / path.name).read_text() == path.read_text()
