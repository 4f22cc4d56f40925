"""relax-fuzz: a bounded, deterministic slice of the mutation campaign (mutants of the
examples and lit inputs, and corrupted saved executables) must end in no internal error,
hang, crash, VM/interpreter mismatch, round-trip failure or memory growth."""

from __future__ import annotations

import random

import pytest

import xrelax
from xrelax.tools import relax_fuzz
from xrelax.tools.fuzz import FAILURES, Fuzzer, check_program, load_corpus

SLICE = 1500


@pytest.fixture(scope="module")
def fuzzer() -> Fuzzer:
    return Fuzzer(load_corpus(), seed=0, timeout=10)


def test_slice_has_no_failures(fuzzer: Fuzzer) -> None:
    report = fuzzer.run(0, SLICE)
    shown = "\n".join(
        f"[{f.index}] {f.outcome.kind} in {f.outcome.step}: {f.outcome.detail}\n{f.text[:2000]}"
        for f in report.findings[:5]
    )
    assert not report.findings, f"{len(report.findings)} failing mutants, e.g.:\n{shown}"
    # The slice reaches every stage: clean refusals and programs that run.
    assert report.counts["error"] > SLICE // 2 and report.counts["ok"] > SLICE // 40
    steps = {step.split(":")[1] for step in report.steps}
    assert {"load", "compile"} <= steps, report.steps
    assert sum(report.counts.values()) == SLICE


def test_mutants_are_deterministic_and_include_executables(fuzzer: Fuzzer) -> None:
    again = Fuzzer(fuzzer.seeds, seed=0)
    assert [fuzzer.mutant(i) for i in range(50)] == [again.mutant(i) for i in range(50)]
    kinds = [fuzzer.mutant(i)[2] for i in range(400)]
    assert 20 < sum(kinds) < 120  # about 12% are corrupted or truncated executables
    assert len({fuzzer.mutant(i)[1] for i in range(100)}) > 90


def test_outcomes_are_classified(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {\n"
    text += "  relax.return %x : !relax.tensor<[n], f32>\n}\n"
    rng = random.Random(0)
    assert check_program(text, rng).kind == "ok"
    assert check_program(text.replace("return", "retrun"), rng).kind == "error"

    def broken(*args: object) -> None:
        raise KeyError("bb1")

    monkeypatch.setattr(xrelax, "compile", broken)
    outcome = check_program(text, rng)
    assert (outcome.kind, outcome.step, outcome.detail) == (
        "internal",
        "compile",
        "KeyError: 'bb1'",
    )
    assert outcome.kind in FAILURES


def test_cli_reports_a_table(capsys) -> None:
    assert relax_fuzz.main(["--count", "30", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "| outcome | mutants | share |" in out and "| total | 30 | |" in out


def test_a_corruption_that_makes_a_loop_is_not_a_hang() -> None:
    # The VM runs loops as written (vm-level programs may loop): a corrupted jump that
    # loops forever is the program's doing, unlike a hang of the toolchain.
    from xrelax.backends.vm import ExecBuilder

    ib = ExecBuilder()
    with ib.function("main", num_inputs=0):
        ib.emit_goto(0)
    looping = ib.get().to_bytes().hex()
    fuzzer = Fuzzer(load_corpus(), seed=0, timeout=0.5)
    fuzzer.mutant = lambda index: ("loop", looping, True)  # type: ignore[method-assign]
    fuzzer._executables["loop"] = (b"", "main", [])
    outcome, _, _ = fuzzer.check(0)
    assert (outcome.kind, outcome.step) == ("error", "run"), outcome
    assert outcome.detail == "a loop still running after 0.5 s"
