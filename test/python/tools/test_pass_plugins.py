"""User passes: a plugin file registering a pass by name, run by relax-opt and relax-run
(``--load-pass-plugin``) and, as the same pass object, by ``xrelax.apply``; pipelines
mixing names and instances; instrumentation from Python; docs/writing-a-pass.md is
the tested example."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.passes import ModulePass

import xrelax
from xrelax import transforms
from xrelax.tools import relax_opt, relax_run
from xrelax.transforms.plugins import load_python_file

REPO = Path(__file__).resolve().parents[3]
PLUGIN = REPO / "test" / "transforms" / "Inputs" / "fuse_silu.py"
LIT_TEST = REPO / "test" / "transforms" / "fuse-silu.mlir"
DOC = REPO / "docs" / "writing-a-pass.md"

SILU_PROGRAM = """\
relax.func @main(%x: !relax.tensor<[n, 3], f32>) -> !relax.tensor<[n, 3], f32> {
  %s = relax.sigmoid %x : (!relax.tensor<[n, 3], f32>)
  %y = relax.multiply %x, %s : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 3], f32>)
  relax.return %y : !relax.tensor<[n, 3], f32>
}
"""


@pytest.fixture(autouse=True)
def user_passes(monkeypatch):
    """Each test starts with no user pass registered, and leaves none behind."""
    monkeypatch.setattr(transforms, "_USER_PASSES", {})


def fuse_silu_pass() -> type[ModulePass]:
    return load_python_file(str(PLUGIN), "pass plugin").FuseSiluPass


def test_relax_opt_and_apply_run_the_same_pass(capsys):
    code = relax_opt.main(
        [str(LIT_TEST), "--split-input-file", "--load-pass-plugin", str(PLUGIN), "-p", "fuse-silu"]
    )
    assert code == 0
    from_relax_opt = capsys.readouterr().out
    assert from_relax_opt.count("relax.silu") == 2
    pass_object = fuse_silu_pass()()
    chunks = LIT_TEST.read_text().split("// -----\n")
    from_apply = [xrelax.print_module(xrelax.apply(xrelax.parse(c), [pass_object])) for c in chunks]
    assert from_apply == [c.rstrip() + "\n" for c in from_relax_opt.split("// -----\n")]


def test_pipelines_mix_names_instances_and_classes():
    fuse = fuse_silu_pass()
    xrelax.register_pass(fuse)
    for pipeline in (
        "relax-normalize,fuse-silu",
        ["relax-normalize", fuse()],
        ["relax-normalize,cse", fuse, "dce"],
    ):
        text = xrelax.print_module(xrelax.apply(xrelax.parse(SILU_PROGRAM), pipeline))
        assert "relax.silu %x" in text and "relax.multiply" not in text
    with pytest.raises(xrelax.CompileError, match="a pipeline element must be a pass name"):
        xrelax.apply(xrelax.parse(SILU_PROGRAM), ["cse", 3])
    with pytest.raises(xrelax.CompileError, match="unknown pass 'fuse-silu2'"):
        xrelax.apply(xrelax.parse(SILU_PROGRAM), "fuse-silu2")
    x = np.linspace(-3, 3, 6, dtype=np.float32).reshape(2, 3)
    vm = xrelax.VirtualMachine(xrelax.compile(xrelax.parse(SILU_PROGRAM), [fuse(), "relax-to-vm"]))
    np.testing.assert_allclose(vm["main"](x), x / (1 + np.exp(-x)), rtol=1e-6)


def test_instrumentation_from_python():
    stream = io.StringIO()
    report = xrelax.Instrumentation(print_after={"fuse-silu"}, stream=stream, timings=[])
    xrelax.apply(xrelax.parse(SILU_PROGRAM), ["relax-normalize", fuse_silu_pass()()], report)
    dump = stream.getvalue()
    assert dump.startswith("// -----// IR Dump After fuse-silu //----- //\nbuiltin.module {")
    assert "relax.silu %x" in dump and "Dump After relax-normalize" not in dump
    assert [name for name, _ in report.timings] == ["relax-normalize", "fuse-silu"]
    table = report.timing_report()
    assert "... Execution time report ..." in table
    assert re.search(r"\(\s*[\d.]+%\)  fuse-silu\n", table)
    everything = xrelax.Instrumentation(print_before_all=True, stream=io.StringIO())
    xrelax.apply(xrelax.parse(SILU_PROGRAM), "relax-normalize,cse", everything)
    assert everything.stream.getvalue().count("// -----// IR Dump Before") == 2


def test_register_pass_checks_names():
    fuse = fuse_silu_pass()
    assert xrelax.register_pass(fuse) is fuse
    assert xrelax.register_pass(fuse_silu_pass()) is not fuse  # the file again: replaced
    with pytest.raises(TypeError, match="register_pass expects a ModulePass subclass"):
        xrelax.register_pass(object)

    class Unnamed(ModulePass):
        def apply(self, ctx, op) -> None:
            pass

    with pytest.raises(TypeError, match="pass class .*Unnamed has no name"):
        xrelax.register_pass(Unnamed)
    for name, message in (
        ("cse", "pass 'cse' is already registered (a built-in pass)"),
        ("fuse-silu", "pass 'fuse-silu' is already registered by xrelax_plugin_fuse_silu_"),
    ):
        clash = type("Clash", (Unnamed,), {"name": name})
        with pytest.raises(ValueError, match=re.escape(message)):
            xrelax.register_pass(clash)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("import xrelax\ndef f(:\n", "SyntaxError: invalid syntax (line 2)"),
        ("import xrelax\n\nraise RuntimeError('no GPU')\n", "RuntimeError: no GPU (line 3)"),
        (
            "from xrelax.ops.elementwise import MultiplyOp\n",
            "registers no pass (decorate a ModulePass class with @xrelax.register_pass)",
        ),
        (None, "no such file"),
    ],
)
def test_a_plugin_that_fails_is_one_line(tmp_path, capsys, source, message):
    plugin = tmp_path / "plugin.py"
    if source is not None:
        plugin.write_text(source)
    program = tmp_path / "p.mlir"
    program.write_text(SILU_PROGRAM)
    assert relax_opt.main([str(program), "--load-pass-plugin", str(plugin), "-p", "cse"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("relax-opt: error: ") and err.count("\n") == 1
    assert message in err
    assert relax_run.main([str(program), "--load-pass-plugin", str(plugin), "--print"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("relax-run: error: ") and err.count("\n") == 1
    assert message in err


RAISING_PLUGIN = """\
import xrelax
from xdsl.passes import ModulePass


@xrelax.register_pass
class Broken(ModulePass):
    name = "broken"

    def apply(self, ctx, op):
        raise KeyError("no such op")
"""


def test_a_pass_that_raises_is_one_line_naming_it(tmp_path, capsys):
    plugin, program = tmp_path / "broken.py", tmp_path / "p.mlir"
    plugin.write_text(RAISING_PLUGIN)
    program.write_text(SILU_PROGRAM)
    expected = "pass 'broken' failed: raised KeyError: 'no such op' (broken.py:10)"
    args = [str(program), "--load-pass-plugin", str(plugin), "-p", "broken"]
    assert relax_opt.main(args) == 1
    assert capsys.readouterr().err == f"error: {expected}\n"
    assert relax_run.main(args) == 1
    assert capsys.readouterr().err == f"relax-run: error: {expected}\n"
    with pytest.raises(xrelax.CompileError, match=re.escape(expected)):
        xrelax.apply(xrelax.parse(SILU_PROGRAM), "broken")


def test_relax_run_loads_pass_plugins(tmp_path, capsys):
    program, inputs, outputs = tmp_path / "p.mlir", tmp_path / "in.npz", tmp_path / "out.npz"
    program.write_text(SILU_PROGRAM)
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(4, 3)
    np.savez(inputs, x=x)
    pipeline = "relax-normalize,fuse-silu,relax-to-vm"
    args = ["--load-pass-plugin", str(PLUGIN), "-p", pipeline]
    assert (
        relax_run.main([str(program), *args, "--inputs", str(inputs), "--outputs", str(outputs)])
        == 0
    )
    with np.load(outputs) as out:
        np.testing.assert_allclose(out["out0"], x / (1 + np.exp(-x)), rtol=1e-6)
    assert relax_opt.main([str(program), *args[:2], "-p", "fuse-silu"]) == 0
    assert "relax.silu" in capsys.readouterr().out


def test_the_doc_shows_the_tested_files():
    """Each code block of docs/writing-a-pass.md introduced by a file name is that file."""
    text = DOC.read_text()
    blocks = re.findall(r"^`([\w/.-]+)`:\n\n```\w+\n(.*?)```$", text, flags=re.M | re.S)
    assert [name for name, _ in blocks] == [
        "test/transforms/Inputs/fuse_silu.py",
        "test/transforms/fuse-silu.mlir",
    ]
    for name, body in blocks:
        assert body == (REPO / name).read_text(), name


def test_the_doc_examples_run(monkeypatch, capsys, tmp_path):
    text = DOC.read_text()
    (snippet,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "xrelax.apply(" in b]
    monkeypatch.chdir(REPO)
    exec(compile(snippet, str(DOC), "exec"), {})
    out = capsys.readouterr().out
    assert "// -----// IR Dump After fuse-silu //----- //" in out
    assert out.count("relax.silu %x") == 3
    assert "... Execution time report ..." in out
    (error_line,) = re.findall(r"^relax-opt: error: .*$", text, re.M)
    broken = tmp_path / "fuse_silu.py"
    broken.write_text(PLUGIN.read_text().replace("mul: MultiplyOp", "mul: MulOp"))
    monkeypatch.chdir(tmp_path)
    assert relax_opt.main(["--load-pass-plugin", "fuse_silu.py", str(LIT_TEST)]) == 1
    assert capsys.readouterr().err == error_line + "\n"
