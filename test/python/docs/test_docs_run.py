"""Every code block of the README and docs/ runs as written after the README's install.

Per document, in order, in a scratch directory holding the repo's ``examples/`` and
``test/`` inputs and the files the docs name as the user's own (:func:`_user_files`: a
small model as ``model.pt2``, ``model.onnx``, ``model.mlir`` with ``model.npz``, inputs
as ``x.npz``/``x.npy``/``in.npz``):

* ``python`` blocks run in one Python process per document, in one namespace (a later
  block uses what an earlier one defined, as a reader does);
* ``sh`` blocks run in ``bash -e`` with the environment's tools first on ``PATH``;
* ``mlir`` blocks parse (a whole program) with ``xrelax.parse``.

A block that cannot run as written says why in a marker on the line before its fence:
``<!-- docs-test: excerpt PATH -->`` (its lines are a quote of that file: each non-blank
line without an elision ``...`` appears there, in order, its trailing comment aside; a
block introduced by the file's name, ```path`:``, is one too), or ``<!-- docs-test: skip REASON -->`` (the README's
set-up commands, which CI itself runs; a benchmark of minutes). Output listings are
plain fenced blocks and are not run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import xrelax

REPO = Path(__file__).resolve().parents[3]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LANGUAGES = ("python", "sh", "mlir")
_FENCE = re.compile(r"^```(\w*)\s*$")
_MARKER = re.compile(r"^<!-- docs-test: (excerpt|skip) (.+?) -->$")
_NAMED = re.compile(r"^`([\w/.-]+)`:$")
"""A block introduced by a repository file's name (```path`:``) quotes that file."""


@dataclass
class Block:
    """A fenced code block: its language, text, line and marker (kind, detail)."""

    document: Path
    line: int
    language: str
    text: str
    marker: tuple[str, str] | None

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(REPO)}:{self.line}"


def blocks(document: Path) -> list[Block]:
    """The fenced blocks of ``document`` in order."""
    found: list[Block] = []
    lines = document.read_text().splitlines()
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if fence is None:
            index += 1
            continue
        end = next(
            (j for j in range(index + 1, len(lines)) if lines[j].startswith("```")), len(lines)
        )
        previous = lines[index - 1].strip() if index else ""
        marker = _MARKER.match(previous)
        named = _NAMED.match(lines[index - 2]) if index >= 2 and not previous else None
        found.append(
            Block(
                document,
                index + 1,
                fence.group(1),
                "\n".join(lines[index + 1 : end]) + "\n",
                (marker.group(1), marker.group(2))
                if marker
                else ("excerpt", named.group(1))
                if named and (REPO / named.group(1)).is_file()
                else None,
            )
        )
        index = end + 1
    return found


@pytest.fixture(scope="module")
def user_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files the docs name as the reader's own, made once from a small model."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from torch.export import Dim

    directory = tmp_path_factory.mktemp("user_files")
    model = torch.nn.Sequential(torch.nn.Linear(784, 16), torch.nn.ReLU(), torch.nn.Linear(16, 10))
    torch.manual_seed(0)
    model = model.eval()
    example = (torch.randn(2, 784),)
    shapes = ({0: Dim("batch", min=1, max=64)},)
    program = torch.export.export(model, example, dynamic_shapes=shapes)
    torch.export.save(program, directory / "model.pt2")
    torch.onnx.export(program, example, str(directory / "model.onnx"), dynamo=True)
    x = np.random.default_rng(0).standard_normal((3, 784)).astype(np.float32)
    name = program.graph_signature.user_inputs[0]
    np.savez(directory / "x.npz", **{name: x})
    np.save(directory / "x.npy", x)
    mlp_inputs = {
        "x": x,
        "w1": np.full((784, 128), 0.01, np.float32),
        "b1": np.zeros(128, np.float32),
        "w2": np.full((128, 10), 0.01, np.float32),
        "b2": np.zeros(10, np.float32),
    }
    np.savez(directory / "in.npz", **mlp_inputs)
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [
            str(bin_dir / "relax-import"),
            "model.pt2",
            "-o",
            "model.mlir",
            "--params-out",
            "model.npz",
        ],
        cwd=directory,
        check=True,
    )
    return directory


_DRIVER = """
import contextlib, io, json, sys, traceback
namespace = {"__name__": "__docs__"}
for line in sys.stdin:
    block = json.loads(line)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block["code"], block["where"], "exec"), namespace)
        reply = {"error": None}
    except BaseException:
        reply = {"error": traceback.format_exc()[-3000:]}
    print(json.dumps(reply), flush=True)
"""


class PythonSession:
    """A fresh Python process per document: its blocks share one namespace, and what
    they register (passes, packed functions) does not leak into another document."""

    def __init__(self, directory: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _DRIVER],
            cwd=directory,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, block: Block) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"code": block.text, "where": block.where}) + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        assert reply, f"{block.where}: the Python process ended"
        error = json.loads(reply)["error"]
        assert error is None, f"{block.where}:\n{error}"

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def _run_sh(block: Block, directory: Path) -> None:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-e", "-c", block.text],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"{block.where}: exit {done.returncode}\n{done.stderr[-2000:]}"


def _check_excerpt(block: Block, path: str) -> None:
    source = [line.split("  #")[0].rstrip() for line in (REPO / path).read_text().splitlines()]
    position = 0
    for line in block.text.splitlines():
        wanted = line.split("  #")[0].rstrip()
        if not wanted.strip() or "..." in wanted:
            continue  # a blank line, or an elision
        found = next((i for i in range(position, len(source)) if source[i] == wanted), None)
        assert found is not None, f"{block.where}: not in {path} (in order): {wanted.strip()!r}"
        position = found + 1


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_every_block_runs(document: Path, user_files: Path, tmp_path: Path, monkeypatch) -> None:
    runnable = [b for b in blocks(document) if b.language in LANGUAGES]
    if not runnable:
        return
    for name in ("examples", "test"):
        (tmp_path / name).symlink_to(REPO / name)
    for path in user_files.iterdir():
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.chdir(tmp_path)
    session = PythonSession(tmp_path)
    try:
        for block in runnable:
            if block.marker is not None:
                kind, detail = block.marker
                if kind == "excerpt":
                    _check_excerpt(block, detail)
                continue
            if block.language == "python":
                session.run(block)
            elif block.language == "sh":
                _run_sh(block, tmp_path)
            else:
                xrelax.parse(block.text, block.where)
    finally:
        session.close()


def test_excerpts_name_files() -> None:
    for document in DOCUMENTS:
        for block in blocks(document):
            if block.marker is not None and block.marker[0] == "excerpt":
                assert (REPO / block.marker[1]).is_file(), f"{block.where}: no {block.marker[1]}"
