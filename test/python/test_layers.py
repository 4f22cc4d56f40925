"""The import graph of the xrelax package: no cycles, and no layer reaching up.

The graph is read from the source with ``ast``: every ``import``/``from ... import`` of
an ``xrelax`` module, wherever it stands (module level, inside a function, under
``if TYPE_CHECKING:``). A function-local import runs later but is still a dependency;
a ``TYPE_CHECKING`` import names another module's class in an annotation, which is a
dependency of the code's meaning. Counting both is the point: they are how a cycle
hides from the interpreter. (Function-local imports remain where they defer loading:
optional dependencies, ``import xrelax`` and the tools' start-up, the lazy dialect
registry; none of them may close a cycle.) ``from package import name`` is an edge to
the submodule ``package.name`` when there is one, else to the package; the execution
of a module's parent packages is not an edge.

The layers, bottom to top; a module imports only from its own layer or lower ones:

* ``dialects`` (with ``dialects/ir`` and ``dialects/shapes``): the IR.
* ``ops``: the relax operators, defined on the dialects; the relax dialect with its
  operators is assembled here (:mod:`xrelax.ops.registry`).
* ``backends``: what runs IR (the tir kernel compilers, the VM with the operators'
  run-time safety net, the interpreter). They sit below the passes because passes run
  IR at compile time: ``relax-fold-constant`` executes a ``call_tir`` of constants with
  the tir kernel compiler (TVM's FoldConstant builds and runs its kernels likewise).
  The lowering a backend compiles with is the backend's own (``tir-to-llvm`` in
  ``backends/native``).
* ``transforms``: passes, the pass manager and its plugins.
* ``frontend``: the model importers and the ``BlockBuilder`` (which shares kernels
  through the passes' kernel table).
* the public API: ``xrelax`` itself, ``xrelax.op``, ``xrelax.topi`` - a facade over
  everything below.
* ``tools``: thin wrappers over the API: the command-line tools, and the entry points
  other programs drive (``xdsl-opt``'s universe, the ONNX backend).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The package directory: the editable install maps ``xrelax`` to the repository root."""

NOT_PACKAGE = {"test", "bench", "docs", "examples"}

LAYERS = ("dialects", "ops", "backends", "transforms", "frontend", "api", "tools")
API = {"xrelax", "xrelax.op", "xrelax.topi"}


def _modules() -> dict[str, Path]:
    modules = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[0] in NOT_PACKAGE or any(p.startswith(".") for p in parts):
            continue
        names = ["xrelax", *parts]
        if names[-1] == "__init__":
            names.pop()
        modules[".".join(names)] = path
    return modules


MODULES = _modules()


def _imports(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """The xrelax modules ``module`` imports, with the line of each import."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.partition(".")[0] == "xrelax":
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if source.partition(".")[0] != "xrelax":
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                yield (submodule if submodule in MODULES else source), node.lineno


GRAPH = {
    module: sorted({(t, line) for t, line in _imports(module, path) if t != module})
    for module, path in MODULES.items()
}


def _layer(module: str) -> int:
    if module in API:
        return LAYERS.index("api")
    return LAYERS.index(module.split(".")[1])


def _where(module: str, line: int) -> str:
    return f"{MODULES[module].relative_to(ROOT)}:{line}"


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target, _ in GRAPH[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    return components


def _cycle_path(component: list[str]) -> str:
    """One cycle through the component, each step with the import making it."""
    members = set(component)
    start = component[0]
    path, lines, seen = [start], [], {start: 0}
    while True:
        target, line = next((t, n) for t, n in GRAPH[path[-1]] if t in members)
        lines.append(_where(path[-1], line))
        if target in seen:
            cycle = path[seen[target] :] + [target]
            steps = lines[seen[target] :]
            return " -> ".join(
                f"{m} ({s})" for m, s in zip(cycle, [*steps, ""], strict=True)
            ).removesuffix(" ()")
        seen[target] = len(path)
        path.append(target)


def test_graph_covers_the_package() -> None:
    assert "xrelax.dialects.relax" in GRAPH
    assert "xrelax.ops" in GRAPH
    assert not any(m.startswith(("xrelax.test", "xrelax.bench")) for m in GRAPH)
    unknown = {t for edges in GRAPH.values() for t, _ in edges} - GRAPH.keys()
    assert not unknown, f"imports of modules that do not exist: {sorted(unknown)}"


def test_no_import_cycles() -> None:
    cycles = [_cycle_path(component) for component in _cycles()]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_no_layer_imports_a_higher_one() -> None:
    upward = [
        f"{_where(module, line)}: {module} ({LAYERS[_layer(module)]}) imports {target} "
        f"({LAYERS[_layer(target)]})"
        for module, edges in sorted(GRAPH.items())
        for target, line in edges
        if _layer(target) > _layer(module)
    ]
    assert not upward, "imports reaching up a layer:\n" + "\n".join(upward)
