"""Names in ONNX graphs: the enclosing values a subgraph uses, and renaming them."""

from __future__ import annotations

from collections.abc import Callable

import onnx


def free_names(graph: onnx.GraphProto) -> list[str]:
    """The enclosing values ``graph`` (or a subgraph of it) uses by name, in order."""
    defined = {v.name for v in graph.input} | {t.name for t in graph.initializer}
    free: list[str] = []

    def use(name: str) -> None:
        if name and name not in defined and name not in free:
            free.append(name)

    for node in graph.node:
        for name in node.input:
            use(name)
        for attr in node.attribute:
            for sub in [attr.g] if attr.HasField("g") else list(attr.graphs):
                for name in free_names(sub):
                    use(name)
        defined.update(node.output)
    for value in graph.output:
        use(value.name)
    return free


def with_outer_names(
    attr: onnx.AttributeProto, rename: Callable[[str], str]
) -> onnx.AttributeProto:
    """``attr`` with the enclosing values its subgraphs use renamed by ``rename`` (a
    function body's values are renamed apart when it is expanded)."""
    if not (attr.HasField("g") or attr.graphs):
        return attr
    renamed = onnx.AttributeProto()
    renamed.CopyFrom(attr)
    for graph in [renamed.g] if renamed.HasField("g") else renamed.graphs:
        _rename_free(graph, rename)
    return renamed


def _rename_free(graph: onnx.GraphProto, rename: Callable[[str], str]) -> None:
    free = set(free_names(graph))
    for node in graph.node:
        for index, name in enumerate(node.input):
            if name in free:
                node.input[index] = rename(name)
        for attr in node.attribute:
            for sub in [attr.g] if attr.HasField("g") else attr.graphs:
                _rename_free(sub, lambda name: rename(name) if name in free else name)
    for value in graph.output:
        if value.name in free:
            value.name = rename(value.name)
