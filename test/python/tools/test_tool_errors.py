"""Bad command lines and files given to the tools: one line on stderr and a non-zero exit,
never a traceback (the lit tests in test/tools check the messages of the simple cases)."""

from __future__ import annotations

import io
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import pytest

import xrelax
from xrelax.backends.vm import list_funcs
from xrelax.tools.fuzz import DEFAULT_CORPUS, load_corpus
from xrelax.tools.relax_fuzz import main as relax_fuzz
from xrelax.tools.relax_import import main as relax_import
from xrelax.tools.relax_run import main as relax_run

REPO = Path(__file__).resolve().parents[3]
T = "!relax.tensor<[n], f32>"
IDENTITY = f"relax.func @main(%x: {T}) -> {T} {{\n  relax.return %x : {T}\n}}\n"


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err.strip()


# ------------------------------------------------------------------------ relax-fuzz


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--corpus", "{tmp}/missing"], "corpus '{tmp}/missing': no such file or directory"),
        (["--corpus", "{tmp}"], "no program in the corpus ('{tmp}'): it needs .mlir files"),
        (["--corpus", "/dev/null"], "corpus '/dev/null' is neither a file nor a directory"),
        (["--count", "1", "--log", "{tmp}"], "cannot write log '{tmp}': Is a directory"),
    ],
)
def test_relax_fuzz_refuses_what_it_cannot_run(tmp_path: Path, capsys, argv, message) -> None:
    assert relax_fuzz([arg.replace("{tmp}", str(tmp_path)) for arg in argv]) == 2
    assert one_line(capsys) == f"relax-fuzz: error: {message.replace('{tmp}', str(tmp_path))}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--count", "1" + "0" * 5000],
            "argument --count: expected an integer in [0, 9223372036854775807], "
            "got 1000000000000000000000000000000000000...",
        ),
        (["--start", "x"], "argument --start: expected an integer, got 'x'"),
        (["--jobs", "-1"], "argument --jobs: expected an integer in [0, 256], got -1"),
        (
            ["--timeout", "0"],
            "argument --timeout: expected a number of seconds in (0, 1e+06], got 0",
        ),
    ],
)
def test_relax_fuzz_flags_out_of_range(capsys, argv, message) -> None:
    with pytest.raises(SystemExit) as info:
        relax_fuzz(argv)
    assert info.value.code == 2
    assert one_line(capsys) == f"relax-fuzz: error: {message} (see --help)"


def test_the_default_corpus_is_package_data() -> None:
    """A non-editable install has examples/ and test/ only as package data: every file
    of the default corpus must match its patterns (and no lit output)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["xrelax"]
    packaged = {path for pattern in patterns for path in REPO.glob(pattern)}
    packaged -= {path for path in packaged if "Output" in path.parts}
    corpus = {path for root in DEFAULT_CORPUS for path in root.rglob("*.mlir")}
    corpus -= {path for path in corpus if "Output" in path.parts}
    assert corpus and corpus == packaged
    assert DEFAULT_CORPUS == (REPO / "examples", REPO / "test")
    assert len(load_corpus()) > 200


# ------------------------------------------------------------------------ relax-run


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "identity.mlir"
    path.write_text(IDENTITY)
    return path


def npz_member(name: str, header: dict, data: bytes) -> bytes:
    """An .npz holding one member whose .npy header says ``header``."""
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(member, header)
    member.write(data)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr(f"{name}.npy", member.getvalue())
    return archive.getvalue()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (lambda: _npy(np.ones(3)), "not an .npz file (numpy.savez)"),
        (lambda: b"PK\x03\x04 truncated", "File is not a zip file"),
        (
            lambda: npz_member(
                "x", {"descr": "<f8", "fortran_order": False, "shape": (2**50,)}, b""
            ),
            "an array is too large to load",
        ),
    ],
    ids=["npy", "truncated zip", "huge array"],
)
def test_relax_run_inputs_that_are_no_npz(tmp_path, capsys, program, content, message) -> None:
    inputs = tmp_path / "in.npz"
    inputs.write_bytes(content())
    assert relax_run([str(program), "--inputs", str(inputs)]) == 1
    assert one_line(capsys) == f"relax-run: error: cannot read inputs '{inputs}': {message}"


def _npy(array: np.ndarray) -> bytes:
    stream = io.BytesIO()
    np.save(stream, array)
    return stream.getvalue()


def test_relax_run_writes_outputs_to_the_path_given(tmp_path, capsys, program) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.arange(3, dtype=np.float32))
    out = tmp_path / "result"  # np.savez(name) would write result.npz
    assert relax_run([str(program), "--inputs", str(inputs), "--outputs", str(out)]) == 0
    with np.load(out) as result:
        np.testing.assert_array_equal(result["out0"], [0.0, 1.0, 2.0])
    assert not (tmp_path / "result.npz").exists()
    assert relax_run([str(program), "--inputs", str(inputs), "--outputs", str(tmp_path)]) == 1
    assert one_line(capsys) == f"relax-run: error: cannot write '{tmp_path}': Is a directory"


def test_relax_run_prim_input_out_of_range(tmp_path, capsys) -> None:
    inputs = tmp_path / "in.npz"
    np.savez(inputs, i=np.array(2**64 - 1, np.uint64), x=np.ones((2, 3), np.float32))
    assert relax_run([str(REPO / "examples" / "prim_values.mlir"), "--inputs", str(inputs)]) == 1
    assert one_line(capsys) == (
        "relax-run: error: main: parameter 'i': expected an int64 in "
        "[-9223372036854775808, 9223372036854775807], got 18446744073709551615"
    )


def test_allow_missing_packed_keeps_the_registry(tmp_path, capsys) -> None:
    """The no-ops are the VM's own: a later program of the process still misses them."""
    call = f"""relax.func @main(%x: {T}) -> {T} {{
  relax.call_packed "test.tool_errors.missing"(%x) : ({T}) -> ()
  relax.return %x : {T}
}}
"""
    source = tmp_path / "call.mlir"
    source.write_text(call)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.ones(2, np.float32))
    assert relax_run([str(source), "--inputs", str(inputs), "--allow-missing-packed"]) == 0
    assert capsys.readouterr().err == (
        "relax-run: warning: packed function 'test.tool_errors.missing' is not registered; "
        "using a no-op\n"
    )
    assert "test.tool_errors.missing" not in list_funcs()
    with pytest.raises(xrelax.VMError, match="missing packed function 'test.tool_errors.missing'"):
        xrelax.VirtualMachine(xrelax.compile(xrelax.parse(call)))


def test_a_closed_stdout_ends_the_tool_quietly(tmp_path: Path) -> None:
    """``relax-run ... --print-full | head``: no traceback when the reader stops early."""
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.zeros(200_000, np.float32))
    source = tmp_path / "identity.mlir"
    source.write_text(IDENTITY)
    command = [sys.executable, "-m", "xrelax.tools.relax_run", str(source), "--inputs"]
    proc = subprocess.Popen(
        [*command, str(inputs), "--print-full"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.read(10)
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait() == 1
    assert stderr == ""


# ------------------------------------------------------------------------ relax-import


def test_relax_import_of_a_directory(tmp_path, capsys) -> None:
    assert relax_import([str(tmp_path)]) == 1
    assert one_line(capsys) == f"relax-import: error: cannot open '{tmp_path}': not a file"
