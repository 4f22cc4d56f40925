"""xrelax leaves xDSL as xDSL defines it: importing and using xrelax replaces no class,
function or module attribute of xDSL, and ``xdsl-opt`` (which loads xrelax through its
``xdsl.universe`` entry point) runs plain-xDSL programs without any xrelax code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SUBPACKAGES = ("dialects", "ops", "transforms", "backends", "frontend", "tools", "op", "topi")

USE_XRELAX = f"""
import importlib, pkgutil
import numpy as np
import xrelax
for name in {SUBPACKAGES!r}:
    module = importlib.import_module("xrelax." + name)
    for info in pkgutil.walk_packages(getattr(module, "__path__", []), module.__name__ + "."):
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional importer's dependency (torch, onnx, llvmlite)
            pass
text = '''
relax.func @main(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {{
  %a = relax.add %x, %x : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 4], f32>)
  %b = relax.exp %a : (!relax.tensor<[n, 4], f32>)
  relax.return %b : !relax.tensor<[n, 4], f32>
}}
'''
x = np.ones((2, 4), np.float32)
assert np.allclose(xrelax.VirtualMachine(xrelax.compile(xrelax.parse(text)))["main"](x), np.exp(2))
"""

LIST_XDSL_MODULES = (
    USE_XRELAX
    + """
import json, sys
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] == "xdsl")))
"""
)

COMPARE = """
import importlib, inspect, json, sys
modules = [importlib.import_module(name) for name in json.loads(sys.argv[1])]
assert not any(name.split(".")[0] == "xrelax" for name in sys.modules)


def entries(namespace):
    found = {}
    for key, value in list(vars(namespace).items()):
        found[key] = value
        code = getattr(value, "__code__", None)
        if code is not None:
            found[key + ".__code__"] = code
    return found


def snapshot():
    taken = {}
    for module in modules:
        taken[module.__name__] = entries(module)
        for key, value in vars(module).items():
            if inspect.isclass(value) and value.__module__.split(".")[0] == "xdsl":
                taken[f"{module.__name__}.{key}"] = entries(value)
    return taken


before = snapshot()
exec(compile(sys.argv[2], "<use xrelax>", "exec"))
after = snapshot()
changed = sorted(
    f"{where}.{key}"
    for where, names in before.items()
    for key, value in names.items()
    if after[where].get(key, None) is not value
)
added = sorted(  # a submodule imported later is set on its package by Python itself
    f"{where}.{key}"
    for where, names in after.items()
    for key in names.keys() - before[where]
    if not inspect.ismodule(names[key])
)
print(json.dumps({"changed": changed, "added": added}))
"""


def _python(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", *args], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_importing_and_using_xrelax_changes_nothing_of_xdsl() -> None:
    xdsl_modules = json.loads(_python(LIST_XDSL_MODULES))
    assert "xdsl.irdl.operations" in xdsl_modules and "xdsl.parser" in xdsl_modules
    found = json.loads(_python(COMPARE, json.dumps(xdsl_modules), USE_XRELAX))
    assert found["changed"] == [], "xrelax replaced these xDSL definitions"
    assert found["added"] == [], "xrelax added these to xDSL's modules or classes"


PLAIN_XDSL = """\
func.func @f(%a: i32, %b: i64) -> i32 {
  %c = "arith.addi"(%a, %b) : (i32, i64) -> i32
  func.return %c : i32
}
"""

MALFORMED = """\
func.func @f(%a: i32) -> i32 {
  %c = arith.addi %a : i32
  func.return %c : i32
}
"""


RELAX = """\
relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  relax.return %x : !relax.tensor<[n], f32>
}
"""


def test_xdsl_opt_reports_plain_xdsl_errors_without_xrelax(tmp_path: Path) -> None:
    xdsl_opt = Path(sys.executable).parent / "xdsl-opt"
    outputs = []
    for name, text in (("mismatch", PLAIN_XDSL), ("malformed", MALFORMED), ("relax", RELAX)):
        path = tmp_path / f"{name}.mlir"
        path.write_text(text)
        done = subprocess.run(
            [str(xdsl_opt), str(path)], capture_output=True, text=True, timeout=300, check=False
        )
        outputs.append(done.stdout + done.stderr)
    mismatch, malformed, relax = outputs
    assert "relax.func @main" in relax  # the entry point loaded xrelax's dialects
    assert "attribute i32 expected from variable 'T', but got i64" in mismatch
    assert "Expected ','" in malformed
    for output in (mismatch, malformed):
        assert "xrelax" not in output and "_fast_init" not in output, output
