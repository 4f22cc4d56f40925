"""``op.py`` and ``topi.py`` are what ``python -m xrelax.tools.gen_api`` writes: one
``def`` per operator, which grep and editors find, standing for the operator's function."""

from __future__ import annotations

import ast
from pathlib import Path

from xrelax import op, topi
from xrelax.tools import gen_api


def test_checked_in_modules_are_what_the_generator_writes() -> None:
    stale = gen_api.stale_modules()
    assert not stale, f"{', '.join(stale)} out of date: run `{gen_api.COMMAND}`"
    assert gen_api.main(["--check"]) == 0


def test_each_function_is_declared_by_its_own_def() -> None:
    for module in (op, topi):
        tree = ast.parse(Path(module.__file__).read_text())
        declared = {
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
        }
        assert declared == set(module.FUNCTIONS), module.__name__
        for name, function in module.FUNCTIONS.items():
            assert getattr(module, name) is function
    assert topi.FUNCTIONS.keys() < op.FUNCTIONS.keys()


def test_a_stale_module_names_the_command(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "op.py").write_text(gen_api.render_op().replace("def matmul(", "def mm("))
    (tmp_path / "topi.py").write_text(gen_api.render_topi())
    monkeypatch.setattr(gen_api, "PACKAGE", tmp_path)
    assert gen_api.main(["--check"]) == 1
    assert capsys.readouterr().err == (
        "gen_api: op.py is out of date: run `python -m xrelax.tools.gen_api`\n"
    )
    assert gen_api.main([]) == 0
    assert (tmp_path / "op.py").read_text() == gen_api.render_op()
