"""Native kernels split between threads (:mod:`xrelax.backends.native.parallel`): the
cases of ``parallel_cases.py`` in a process whose pool has three threads, on any
machine (the pool is sized once per process, from ``XRELAX_NUM_THREADS``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llvmlite")

CASES = Path(__file__).with_name("parallel_cases.py")


def test_split_kernels_match_the_numpy_kernels_on_three_threads():
    env = {**os.environ, "XRELAX_NUM_THREADS": "3"}
    result = subprocess.run(
        [sys.executable, str(CASES)], env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    cases = sorted(line.split()[1] for line in lines if line.startswith("ok "))
    assert cases == [
        "case_concurrent_callers",
        "case_convolution",
        "case_failure_in_a_worker",
        "case_fork",
        "case_product_columns",
        "case_product_rows",
        "case_rows",
    ]
    assert lines[-1] == "workers xrelax-worker-1 xrelax-worker-2"


def test_one_thread_runs_every_kernel_on_its_caller():
    env = {**os.environ, "XRELAX_NUM_THREADS": "1"}
    script = (
        "import numpy as np, parallel_cases as pc, threading\n"
        "reference, kernel = pc.kernels(pc.ROWS, 'rows')\n"
        "x = np.ones((4000, 300), np.float32); got = np.zeros(4000, np.float32)\n"
        "assert not pc.split(lambda: kernel(x, got))\n"
        "np.testing.assert_allclose(got, 300 * np.e, rtol=1e-5)\n"
        "print(sorted(t.name for t in threading.enumerate()))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=CASES.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['MainThread']"
