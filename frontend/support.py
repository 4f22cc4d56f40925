"""The operator tables and lists of ``docs/importing-models.md``, generated from the
importers: what each converts natively, what the torch importer leaves to torch's
decompositions, and what the ONNX importer expands through ONNX's function bodies.

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


_NOT_DECOMPOSED = ("fft_", "linalg_", "sparse_", "to_sparse", "quantized_", "fbgemm_", "sym_")
"""Families of ATen operators left out of the decomposition list: complex results,
factorizations, sparse layouts, quantized kernels and size queries, which no
decomposition brings to converted operators."""


def aten_decomposed() -> list[str]:
    """The ATen operators (overload packets) without a converter that torch's tables
    decompose: public, functional, forward operators."""
    import torch

    from xrelax.frontend import torch_decompose
    from xrelax.frontend.torch import SUPPORTED

    candidates = set(torch_decompose._default_table()) | set(torch._decomp.decomposition_table)
    names = set()
    for op in candidates:
        if not isinstance(op, torch._ops.OpOverload) or op.namespace != "aten":
            continue
        name = op._overloadpacket.__name__
        if (
            name.startswith(("_", *_NOT_DECOMPOSED))
            or name.endswith("_")
            or "backward" in name
            or op._schema.is_mutable
            or op._overloadname == "out"
            or f"aten.{name}" in SUPPORTED
        ):
            continue
        names.add(name)
    return sorted(names)


def onnx_functions() -> dict[str, str]:
    """The ONNX operators (default domain) without a converter that ONNX defines as
    functions, and how their bodies fare: ``covered`` (every operator of the body is
    converted or expands so), ``built per input types`` (a context-dependent body), or
    the body's operators that are not covered."""
    import onnx

    from xrelax.frontend.onnx import _CONVERTERS

    schemas = {s.name: s for s in onnx.defs.get_all_schemas() if s.domain == ""}
    expanded = {
        name: s
        for name, s in schemas.items()
        if name not in _CONVERTERS and (s.has_function or s.has_context_dependent_function)
    }

    def missing(name: str, seen: frozenset[str]) -> set[str]:
        schema = expanded[name]
        if not schema.has_function:
            return set()
        gaps = set()
        for node in schema.function_body.node:
            if node.op_type in _CONVERTERS or node.op_type in seen:
                continue
            if node.op_type in expanded:
                gaps |= missing(node.op_type, seen | {name})
            else:
                gaps.add(node.op_type)
        return gaps

    result = {}
    for name in sorted(expanded):
        gaps = missing(name, frozenset())
        if gaps:
            result[name] = "body uses " + ", ".join(f"`{g}`" for g in sorted(gaps))
        elif expanded[name].has_function:
            result[name] = "covered"
        else:
            result[name] = "built per input types"
    return result


def coverage() -> str:
    """The table of what each importer covers natively, by decomposition and by function
    expansion, as markdown."""
    from xrelax.frontend.onnx import SUPPORTED as ONNX_SUPPORTED
    from xrelax.frontend.torch import SUPPORTED as TORCH_SUPPORTED

    aten = [n for n in TORCH_SUPPORTED if n.startswith("aten.")]
    functions = onnx_functions()
    covered = sum(1 for how in functions.values() if how == "covered")
    per_types = sum(1 for how in functions.values() if how == "built per input types")
    rows = [
        "| | torch.export (ATen) | ONNX (default domain) |",
        "|---|---:|---:|",
        f"| converted natively | {len(aten)} | {len(ONNX_SUPPORTED)} |",
        f"| decomposed by torch's tables (no converter) | {len(aten_decomposed())} | - |",
        f"| expanded through ONNX's function body (no converter) | - | {len(functions)} "
        f"({covered} covered, {per_types} built per input types) |",
    ]
    return "\n".join(rows) + "\n"


def aten_decomposition_list() -> str:
    """The ATen operators torch's tables decompose, as markdown."""
    names = aten_decomposed()
    return f"{len(names)} ATen operators: " + ", ".join(f"`{n}`" for n in names) + ".\n"


def onnx_function_list() -> str:
    """The ONNX operators imported through their function bodies, as markdown."""
    functions = onnx_functions()
    items = [
        f"`{name}`" + ("" if how == "covered" else f" ({how})") for name, how in functions.items()
    ]
    return f"{len(items)} ONNX operators: " + ", ".join(items) + ".\n"


def onnx_operators() -> str:
    """The ONNX operators the ONNX importer converts, as markdown."""
    from xrelax.frontend.onnx import SUPPORTED

    return (
        f"{len(SUPPORTED)} ONNX operators (default domain): "
        + ", ".join(f"`{n}`" for n in SUPPORTED)
        + ".\n"
    )


GENERATORS: dict[str, Callable[[], str]] = {
    "coverage": coverage,
    "aten-operators": aten_operators,
    "aten-decomposed": aten_decomposition_list,
    "onnx-operators": onnx_operators,
    "onnx-functions": onnx_function_list,
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
