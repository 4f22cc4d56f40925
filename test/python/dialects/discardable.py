"""Shared by the dialects' round-trip tests: every op of some dialects given a
discardable attribute keeps it through print and parse, custom and generic."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i64

import xrelax

FOO = IntegerAttr(1, i64)


def tagged(text: str, name: str, prefixes: tuple[str, ...]) -> tuple[str, set[str]]:
    """``text`` parsed, every op whose name starts with one of ``prefixes`` given
    ``{foo = 1 : i64}``, printed; the names of those ops."""
    module = xrelax.parse(text, name)
    names = set()
    for op in module.walk():
        if op.name.startswith(prefixes):
            op.attributes["foo"] = FOO
            names.add(op.name)
    return xrelax.print_module(module), names


def check_round_trip(text: str, name: str, prefixes: tuple[str, ...]) -> None:
    """The tagged ``text`` re-parses with every tag in place and prints the same, also
    through the generic form."""
    printed, _ = tagged(text, name, prefixes)
    reparsed = xrelax.parse(printed, name)
    for op in reparsed.walk():
        if op.name.startswith(prefixes):
            assert op.attributes.get("foo") == FOO, op.name
    assert xrelax.print_module(reparsed) == printed
    generic = xrelax.print_module(reparsed, generic=True)
    assert xrelax.print_module(xrelax.parse(generic, name)) == printed
