"""The operator lists of ``docs/importing-models.md``, generated from the importers.

    python -m xrelax.frontend.support            # rewrite the lists in the doc
    python -m xrelax.frontend.support --check    # exit 1 when the doc is out of date

The doc holds each list between ``<!-- generated: NAME -->`` and ``<!-- end -->``
lines; everything else in it is written by hand. A test checks that the doc is in sync.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "importing-models.md"

_SECTION = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end -->)", re.S)


def aten_operators() -> str:
    """The ATen operators the torch.export importer converts, as markdown."""
    from xrelax.frontend.torch import SUPPORTED

    names = [name.removeprefix("aten.") for name in SUPPORTED if name.startswith("aten.")]
    others = [name for name in SUPPORTED if not name.startswith("aten.")]
    lines = [
        f"{len(names)} ATen operators (every overload): "
        + ", ".join(f"`{n}`" for n in names)
        + ".",
        "",
        "Also: " + ", ".join(f"`{n}`" for n in others) + "; the in-place form `X_` of each "
        "operator `X` above; operators on sizes (`aten.sym_size`, `operator.mul` of sizes, "
        "...), computed symbolically; run-time assertions torch already proved, dropped.",
    ]
    return "\n".join(lines) + "\n"


def onnx_operators() -> str:
    """The ONNX operators the ONNX importer converts, as markdown."""
    from xrelax.frontend.onnx import SUPPORTED

    return (
        f"{len(SUPPORTED)} ONNX operators (default domain): "
        + ", ".join(f"`{n}`" for n in SUPPORTED)
        + ".\n"
    )


GENERATORS: dict[str, Callable[[], str]] = {
    "aten-operators": aten_operators,
    "onnx-operators": onnx_operators,
}


def render(text: str) -> str:
    """``text`` with each generated section replaced by its current content."""

    def replace(match: re.Match[str]) -> str:
        generate = GENERATORS.get(match["name"])
        if generate is None:
            raise KeyError(f"no generator for the section '{match['name']}'")
        return match.group(1) + generate() + match.group(4)

    return _SECTION.sub(replace, text)


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or with ``--check``, compare) the generated sections of the doc."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check the doc is in sync")
    args = parser.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    updated = render(text)
    if args.check:
        if updated != text:
            print(f"{DOC} is out of date: run python -m xrelax.frontend.support", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
