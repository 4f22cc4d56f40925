"""``relax-fuzz``: run mutants of the corpus (see :mod:`xrelax.tools.fuzz`) and print a table of
outcomes and the failing mutants.

    relax-fuzz --count 1000                                  # in-process, seed 0
    relax-fuzz --seed 2024 --count 100000 --jobs 2 --log c.jsonl
    relax-fuzz --seed 2024 --start 7050 --count 1 --show     # one mutant again

``--jobs J`` runs ``J`` worker processes under a watchdog: a worker that dies or stops
answering is a crash or a hang, and a new worker carries on. The default corpus (the
examples and lit inputs) is installed with the package; ``--corpus`` replaces it. The
exit code is 1 when any mutant failed, 2 when the campaign cannot run (a bad flag, a
missing or empty corpus, a log that cannot be written): one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xrelax.tools.cli import int_in, one_line_errors, seconds_up_to, stdout_closed
from xrelax.tools.fuzz import (
    DEFAULT_CORPUS,
    FAILURES,
    CorpusError,
    Fuzzer,
    Outcome,
    Report,
    load_corpus,
    peak_rss_mb,
)

MAX_JOBS = 256
MAX_TIMEOUT = 1e6
"""Seconds; the alarm of a mutant must fit the platform's timer."""
MAX_MEMORY_MB = 1 << 40

# ------------------------------------------------------------------------------ workers


def _worker(args: argparse.Namespace) -> int:
    """Check the mutants whose indices arrive on stdin; one JSON line out per mutant."""
    _limit_address_space(args.memory_limit_mb)
    fuzzer = Fuzzer(load_corpus([Path(p) for p in args.corpus]), args.seed, args.timeout)
    for line in sys.stdin:
        index = int(line)
        outcome, name, mutant = fuzzer.check(index)
        record = {"index": index, "kind": outcome.kind, "step": outcome.step}
        if outcome.kind in FAILURES:
            record |= {"detail": outcome.detail, "seed": name, "text": mutant}
        record["rss"] = peak_rss_mb()
        sys.stdout.write(json.dumps(record) + "\n")
        sys.stdout.flush()
    return 0


def _limit_address_space(extra_mb: int) -> None:
    """Cap the worker's address space so that a runaway allocation fails, not the machine
    (never above the hard limit the worker inherited)."""
    with open("/proc/self/statm") as stream:
        pages = int(stream.read().split()[0])
    current = pages * os.sysconf("SC_PAGE_SIZE")
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = current + extra_mb * 2**20
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


class _Pending:
    """The indices still to check, taken one at a time (a campaign of any size costs no
    memory up front)."""

    def __init__(self, indices: Any) -> None:
        self._indices = indices
        self._next = next(indices, None)

    def __bool__(self) -> bool:
        return self._next is not None

    def pop(self) -> int:
        index = self._next
        assert index is not None
        self._next = next(self._indices, None)
        return index


class _Pool:
    """Worker processes fed one mutant index at a time, under a watchdog."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.command = [
            sys.executable,
            "-m",
            "xrelax.tools.relax_fuzz",
            "--worker",
            "--seed",
            str(args.seed),
            "--timeout",
            str(args.timeout),
            "--memory-limit-mb",
            str(args.memory_limit_mb),
            *sum((["--corpus", p] for p in args.corpus), []),
        ]

    def spawn(self) -> subprocess.Popen:
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        return subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )

    def run(self, start: int, count: int, report: Report, log: Any) -> None:
        import selectors

        indices = iter(range(start, start + count))
        pending = _Pending(indices)
        workers: dict[Any, tuple[subprocess.Popen, int, float]] = {}
        selector = selectors.DefaultSelector()
        watchdog = self.args.timeout * 3 + 30

        def feed(proc: subprocess.Popen) -> None:
            if not pending:
                proc.stdin.close()
                selector.unregister(proc.stdout)
                proc.wait()
                return
            index = pending.pop()
            proc.stdin.write(f"{index}\n")
            proc.stdin.flush()
            workers[proc.stdout] = (proc, index, time.monotonic())

        def start_worker() -> None:
            proc = self.spawn()
            selector.register(proc.stdout, selectors.EVENT_READ)
            feed(proc)

        for _ in range(min(self.args.jobs, count)):
            start_worker()
        done = 0
        while selector.get_map():
            for key, _ in selector.select(timeout=5):
                proc, index, _ = workers[key.fileobj]
                line = key.fileobj.readline()
                if line:
                    record = json.loads(line)
                else:
                    record = {"index": index, "kind": "crash", "step": ""}
                    record["detail"] = f"worker exited with {proc.wait()}"
                self._record(record, report, log)
                done += 1
                if not line:
                    selector.unregister(key.fileobj)
                    del workers[key.fileobj]
                    start_worker() if pending else None
                else:
                    feed(proc)
            for fileobj, (proc, index, since) in list(workers.items()):
                if proc.poll() is None and time.monotonic() - since > watchdog:
                    proc.kill()
                    proc.wait()
                    selector.unregister(fileobj)
                    del workers[fileobj]
                    record = {"index": index, "kind": "hang", "step": "", "detail": "watchdog"}
                    self._record(record, report, log)
                    if pending:
                        start_worker()

    def _record(self, record: dict[str, Any], report: Report, log: Any) -> None:
        outcome = Outcome(record["kind"], record.get("step", ""), record.get("detail", ""))
        if outcome.kind in ("crash", "hang") and "text" not in record:
            fuzzer = self._fuzzer()
            name, text, _ = fuzzer.mutant(record["index"])
            record |= {"seed": name, "text": text}
        report.add(record["index"], outcome, record.get("seed", ""), record.get("text", ""))
        report.peak_rss_mb = max(report.peak_rss_mb, record.get("rss", 0.0))
        if log is not None:
            log.write(record)

    def _fuzzer(self) -> Fuzzer:
        if not hasattr(self, "_cached"):
            corpus = [Path(p) for p in self.args.corpus]
            self._cached = Fuzzer(load_corpus(corpus), self.args.seed, self.args.timeout)
        return self._cached


# ------------------------------------------------------------------------------ command line


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].split(": ", 1)[1].replace("\n", " ")
    )
    one_line_errors(parser, "relax-fuzz")
    count = int_in(0, sys.maxsize)
    parser.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    parser.add_argument("--count", type=count, default=1000, help="number of mutants")
    parser.add_argument("--start", type=count, default=0, help="index of the first mutant")
    parser.add_argument(
        "--jobs", type=int_in(0, MAX_JOBS), default=0, help="worker processes (0: in-process)"
    )
    parser.add_argument(
        "--timeout", type=seconds_up_to(MAX_TIMEOUT), default=10.0, help="seconds per mutant"
    )
    parser.add_argument(
        "--memory-limit-mb",
        type=int_in(1, MAX_MEMORY_MB),
        default=4096,
        help="address space a worker may add before allocations fail (with --jobs)",
    )
    parser.add_argument(
        "--corpus",
        action="append",
        default=None,
        help="a .mlir file or a directory of them (repeatable; default: the examples and "
        "lit inputs installed with xrelax)",
    )
    parser.add_argument("--log", help="write one JSON line per mutant to this file")
    parser.add_argument("--show", action="store_true", help="print each failing mutant in full")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.corpus = args.corpus or [str(p) for p in DEFAULT_CORPUS]
    return args


class _LogError(Exception):
    """The log cannot be written."""


class _Log:
    """The ``--log`` file: one JSON line per record, flushed (a campaign cut short keeps
    what it found)."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self.stream = open(path, "w")  # noqa: SIM115 - closed by close()
        except OSError as err:
            raise self._error(err) from None

    def write(self, record: dict[str, Any]) -> None:
        try:
            self.stream.write(json.dumps(record) + "\n")
            self.stream.flush()
        except OSError as err:
            raise self._error(err) from None

    def close(self) -> None:
        try:
            self.stream.close()
        except OSError as err:
            raise self._error(err) from None

    def _error(self, err: OSError) -> _LogError:
        return _LogError(f"cannot write log '{self.path}': {err.strerror}")


def _campaign(args: argparse.Namespace) -> Report:
    corpus = load_corpus([Path(p) for p in args.corpus])
    with contextlib.ExitStack() as stack:
        log = None
        if args.log is not None:
            log = _Log(args.log)
            stack.callback(log.close)
        if args.jobs:
            report = Report()
            _Pool(args).run(args.start, args.count, report, log)
            return report
        report = Fuzzer(corpus, args.seed, args.timeout).run(args.start, args.count)
        if log is not None:
            for finding in report.findings:
                log.write({"index": finding.index, "kind": finding.outcome.kind})
        return report


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point: run the mutants, print the table and the findings; the exit
    code is 1 when any mutant failed, 2 when the campaign cannot run."""
    args = _parse_args(argv)
    if args.worker:
        return _worker(args)
    try:
        return _run(args)
    except (CorpusError, _LogError) as err:
        print(f"relax-fuzz: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return stdout_closed()
    except Exception as err:  # noqa: BLE001 - an internal error is still one line
        print(f"relax-fuzz: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        if os.environ.get("XRELAX_DEBUG"):
            traceback.print_exc()
        return 2


def _run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    report = _campaign(args)
    elapsed = time.monotonic() - started
    print(report.table())
    print(
        f"\n{sum(report.counts.values())} mutants in {elapsed:.0f} s; "
        f"peak RSS {report.peak_rss_mb:.0f} MB"
    )
    for finding in report.findings:
        o = finding.outcome
        print(f"\n[{finding.index}] {o.kind} in {o.step or '?'} ({finding.seed_name}): {o.detail}")
        if args.show:
            print(finding.text)
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
