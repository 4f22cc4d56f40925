"""Importing a model file never runs code from it: crafted .pt2 archives that make
torch.export.load unpickle or evaluate attacker data are refused (a marker file their
payload would create never appears), unless the caller trusts the file; garbage
archives are one-line errors; ONNX external data stays inside the model's folder."""

from __future__ import annotations

import json
import pickle
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import sympy

from xrelax import frontend
from xrelax.frontend.common import FrontendError
from xrelax.frontend.model_files import (
    SizeExpressionError,
    UntrustedModelError,
    check_pt2,
    parse_size_expression,
)
from xrelax.tools.relax_import import main as relax_import

torch = pytest.importorskip("torch")


class OpensMarker:
    """A pickle that creates ``marker`` when it is unpickled."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """A genuine .pt2 with weights, a buffer and a symbolic batch dimension."""

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(4, 3)

        def forward(self, x):
            return torch.cat([self.lin(x), self.lin(x)]).relu()

    batch = torch.export.Dim("batch", min=2, max=64)
    program = torch.export.export(Model(), (torch.randn(5, 4),), dynamic_shapes=({0: batch},))
    path = tmp_path_factory.mktemp("pt2") / "model.pt2"
    torch.export.save(program, path)
    return path


def rewrite(source: Path, target: Path, edit: Callable[[str, bytes], bytes | None]) -> Path:
    """A copy of the archive with entries edited (``None`` drops an entry)."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as out:
        for info in src.infolist():
            data = edit(info.filename, src.read(info.filename))
            if data is not None:
                out.writestr(info, data)
    return target


def pickled_weight(marker: Path) -> Callable[[str, bytes], bytes]:
    def edit(name: str, data: bytes) -> bytes:
        if name.endswith("model_weights_config.json"):
            config = json.loads(data)
            config["config"]["lin.bias"]["use_pickle"] = True
            return json.dumps(config).encode()
        if name.endswith("data/weights/weight_1"):
            return pickle.dumps(OpensMarker(marker))
        return data

    return edit


def pickled_sample_inputs(marker: Path) -> Callable[[str, bytes], bytes]:
    # torch retries with weights_only=False when the safe loader refuses these
    def edit(name: str, data: bytes) -> bytes:
        return (
            pickle.dumps(OpensMarker(marker)) if name.endswith("sample_inputs/model.pt") else data
        )

    return edit


def evaluated_expression(marker: Path) -> Callable[[str, bytes], bytes]:
    # torch parses symbolic expressions with sympy.sympify, which is eval
    return expression(f"sympify.__globals__['__builtins__']['open']('{marker}', 'w')")


def sympified_string(template: str) -> Callable[[Path], Callable[[str, bytes], bytes]]:
    """An expression of sympy calls only, one of whose arguments is a string: sympy
    sympifies (evaluates) it."""

    def attack(marker: Path) -> Callable[[str, bytes], bytes]:
        return expression(template.format(code=repr(f"open({str(marker)!r}, 'w')")))

    return attack


def expression(code: str) -> Callable[[str, bytes], bytes]:
    def edit(name: str, data: bytes) -> bytes:
        if name.endswith("models/model.json"):
            program = json.loads(data)
            stack = [program]
            while stack:
                value = stack.pop()
                if isinstance(value, dict):
                    if isinstance(value.get("expr_str"), str):
                        value["expr_str"] = code
                    stack.extend(value.values())
                elif isinstance(value, list):
                    stack.extend(value)
            return json.dumps(program).encode()
        return data

    return edit


@pytest.mark.parametrize(
    ("attack", "message"),
    [
        (pickled_weight, "holds 'lin.bias' as a pickle"),
        (pickled_sample_inputs, "holds a pickle that torch's safe loader refuses"),
        (
            evaluated_expression,
            "holds the symbolic expression \"sympify.__globals__['__builtins__']['open']('",
        ),
        (sympified_string("Tuple({code})"), "(a string that is not a name at 6)"),
        (sympified_string("Mod({code}, Integer(2))"), "(a string that is not a name at 4)"),
        (
            sympified_string("PythonMod(Integer(3), {code})"),
            "(a string that is not a name at 22)",
        ),
        (sympified_string("ExprCondPair({code}, true)"), "(a string that is not a name at 13)"),
    ],
)
def test_crafted_pt2_never_runs_code(archive: Path, tmp_path: Path, capsys, attack, message):
    marker = tmp_path / "marker"
    crafted = rewrite(archive, tmp_path / "crafted.pt2", attack(marker))
    with pytest.raises(UntrustedModelError, match="--trust-pickle") as refused:
        frontend.import_model(crafted)
    assert message in str(refused.value)
    assert relax_import([str(crafted), "-o", str(tmp_path / "out.mlir")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "--trust-pickle" in err
    assert not marker.exists()
    # The payload is live: trusting the file runs it (and the import then fails).
    with pytest.raises(FrontendError):
        frontend.import_model(crafted, trust_pickle=True)
    assert marker.exists()


def test_huge_power_is_refused(archive: Path, tmp_path: Path) -> None:
    """sympy would compute 10**(10**9) exactly: a few bytes, minutes of work."""
    crafted = rewrite(
        archive, tmp_path / "power.pt2", expression("Pow(Integer(10), Integer(1000000000))")
    )
    with pytest.raises(UntrustedModelError) as refused:
        frontend.import_model(crafted)
    assert str(refused.value).startswith(
        f"'{crafted}' holds the symbolic expression 'Pow(Integer(10), Integer(1000000000))', "
        "not an integer expression over sizes (the exponent 1000000000 (0 to 64)); torch "
        "evaluates these, which would run code from the file; if you trust the file, "
    )


def archived_expressions(path: Path) -> tuple[list[str], list[str]]:
    """The ``expr_str`` values and ``range_constraints`` keys of a .pt2 archive."""
    with zipfile.ZipFile(path) as archive:
        name = next(n for n in archive.namelist() if n.endswith("models/model.json"))
        program = json.loads(archive.read(name))
    found, stack = [], [program]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            found += [v for k, v in value.items() if k == "expr_str"]
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found, list(program["range_constraints"])


def test_parser_reads_what_torch_writes(tmp_path: Path) -> None:
    """Sizes torch derives (floor division, modulo, min, max, powers, derived dims) and
    the assertions on a data-dependent size: our parser builds what sympy evaluates."""
    from torch.utils._sympy import functions

    class Sizes(torch.nn.Module):
        def forward(self, x, y, k):
            n = x.shape[0]
            count = k.item()
            torch._check(count >= 2)
            torch._check(count < 100)
            return (
                x.reshape(-1),
                x[: n // 2],
                x.new_zeros(n // 3 + 1, (n + 2) // 3, -(-n // 4), (-n) % 7 + 1),
                x.new_zeros(max(n, count), min(n - 1, 3), n**2 - n),
                torch.cat([y[1:], x, x]),
            )

    batch = torch.export.Dim("batch", min=2, max=64)
    x, y, k = torch.randn(6, 4), torch.randn(13, 4), torch.tensor(5)
    shapes = ({0: 2 * batch}, {0: 4 * batch + 1}, None)
    path = tmp_path / "sizes.pt2"
    torch.export.save(torch.export.export(Sizes(), (x, y, k), dynamic_shapes=shapes), path)
    expressions, range_keys = archived_expressions(path)
    parsed = [parse_size_expression(text) for text in expressions]
    kinds = {type(e).__name__ for expr in parsed for e in sympy.preorder_traversal(expr)}
    assert {"FloorDiv", "PythonMod", "Max", "Min", "Pow", "Mul", "Add"} <= kinds
    assert {"GreaterThan", "StrictLessThan", "Symbol"} <= kinds
    names = {name: getattr(functions, name) for name in ("FloorDiv", "PythonMod", "Mod")}
    for text in expressions:  # our own file: sympify is the reference here
        assert parse_size_expression(text) == sympy.sympify(text, locals=names), text
    assert "2*s" in " ".join(range_keys)
    for key in range_keys:
        assert str(parse_size_expression(key, bare_names=True)) == key
    check_pt2(path.read_bytes(), str(path))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Tuple(Integer(1))", "Tuple is not a size function"),
        ("ExprCondPair(Integer(1), true)", "ExprCondPair is not a size function"),
        ("Mod('s0', Integer(2))", "Mod of a string for an integer"),
        ("Integer(1).__class__", "'.' at 10"),
        ("Symbol('s0', integer=True)(Integer(1))", "'(' at 26"),
        ("Symbol('s0')", "Symbol('s0'), not an integer symbol"),
        (
            "Symbol('s0', integer=True, commutative=False)",
            "Symbol('s0', integer=True, commutative=False), not an integer symbol",
        ),
        ("Symbol('s0', integer=1)", "Symbol(integer=1)"),
        ("s0 + 1", "the bare name s0"),
        ("Integer(1.5)", "'.' at 9"),
        ("Integer(Symbol('s0', integer=True))", "Integer of something else than a number"),
        ("Float('0.5', precision=53)", "a string that is not a name at 6"),
        ("ToFloat(Symbol('s0', integer=True))", "ToFloat is not a size function"),
        ("FloorDiv(Integer(1))", "FloorDiv of 1 arguments"),
        ("FloorDiv(Integer(1), Integer(0))", "FloorDiv: division by zero"),
        ("Not(Integer(1))", "Not of an integer for a condition"),
        ("Add(Integer(1), true)", "Add of a condition for an integer"),
        ("Pow(Symbol('s0', integer=True), Integer(-1))", "the exponent -1 (0 to 64)"),
        ("Pow(Pow(Integer(16), Integer(64)), Integer(2))", "a power 16**64 too large"),
        ("Integer(123456789012345678901)", "a number of 21 digits"),
        ("Add(" * 70 + "Integer(1)" + ")" * 70, "nested more than 64 deep"),
        ("Add(Integer(1)", "it ends too early"),
        ("Integer(1) Integer(2)", "'Integer' at 11"),
        ("", "it ends too early"),
        (["Integer(1)"], "not a string but list"),
    ],
)
def test_parser_refusals(text, reason) -> None:
    with pytest.raises(SizeExpressionError) as refused:
        parse_size_expression(text)
    assert str(refused.value) == reason


def test_genuine_pt2_imports_without_trust(archive: Path) -> None:
    imported = frontend.import_model(archive)
    assert sorted(imported.params) == ["lin_bias", "lin_weight"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda name, data: data if "/data/" not in name else None,
            "the archive has no 'data/sample_inputs/model.pt'",
        ),
        (
            lambda name, data: data if not name.endswith("archive_version") else None,
            "is not a torch.export archive (no archive_version)",
        ),
        (
            lambda name, data: b"{" * 100_000 if name.endswith("models/model.json") else data,
            "malformed JSON in the archive",
        ),
        (
            lambda name, data: b'{"graph_module": 3}' if name.endswith("model.json") else data,
            "cannot load '{path}' as a torch.export program: ",
        ),
    ],
)
def test_malformed_pt2_is_one_line(archive: Path, tmp_path: Path, capfd, edit, message) -> None:
    crafted = rewrite(archive, tmp_path / "bad.pt2", edit)
    assert relax_import([str(crafted), "-o", str(tmp_path / "out.mlir")]) == 1
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert message.format(path=crafted) in err


def test_refused_archive_contents(archive: Path, tmp_path: Path) -> None:
    def add(entry: str) -> Callable[[str, bytes], bytes]:
        def edit(name: str, data: bytes) -> bytes:
            return data

        path = rewrite(archive, tmp_path / f"{entry.replace('/', '_')}.pt2", edit)
        with zipfile.ZipFile(path, "a") as zf:
            zf.writestr(entry, b"\x7fELF")
        return path

    with pytest.raises(UntrustedModelError, match="AOTInductor"):
        frontend.import_model(add("model/data/aotinductor/model/model.so"))
    with pytest.raises(UntrustedModelError, match="format of torch < 2.8"):
        frontend.import_model(add("version"))


def test_garbage_and_truncated_pt2(archive: Path, tmp_path: Path, capfd) -> None:
    data = archive.read_bytes()
    for name, content in [("garbage.pt2", bytes(range(256)) * 3), ("cut.pt2", data[:-700])]:
        path = tmp_path / name
        path.write_bytes(content)
        assert relax_import([str(path)]) == 1
        err = capfd.readouterr().err
        assert err.startswith(f"relax-import: error: '{path}' is not a ") and err.count("\n") == 1


def onnx_model_with_external_data(folder: Path, location: str) -> Path:
    onnx = pytest.importorskip("onnx")
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    weight.ClearField("raw_data")
    weight.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", "16")):
        weight.external_data.add(key=key, value=value)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        [weight],
    )
    path = folder / "model.onnx"
    onnx.save_model(helper.make_model(graph), path)
    return path


def test_onnx_external_data_stays_in_the_model_folder(tmp_path: Path) -> None:
    import numpy as np

    from xrelax.frontend import onnx as onnx_frontend

    secret = tmp_path / "secret.bin"
    secret.write_bytes(np.ones(4, np.float32).tobytes())
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "link.bin").symlink_to(secret)
    (folder / "w.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    refused = {
        "../secret.bin": "goes up with '..'",
        str(secret): "an absolute path",
        "link.bin": "a symbolic link leads outside the model's folder",
        "none.bin": "no such file",
    }
    for location, message in refused.items():
        path = onnx_model_with_external_data(folder, location)
        with pytest.raises(FrontendError, match=message):
            frontend.import_model(path)
        with pytest.raises(FrontendError, match=message):
            frontend.from_onnx(path)
        with pytest.raises(FrontendError, match=message):
            onnx_frontend.from_onnx(path)
    imported = frontend.import_model(onnx_model_with_external_data(folder, "w.bin"))
    np.testing.assert_array_equal(imported.params["w"], np.arange(4, dtype=np.float32))
