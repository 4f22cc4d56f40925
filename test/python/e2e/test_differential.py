"""Differential testing: random relax programs compiled to the VM give the reference
interpreter's results, for random values of the symbolic variables."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_programs import PACKED_COPY, Program, programs

import xrelax

xrelax.register_func(PACKED_COPY, lambda x: x.copy(), override=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(1, 5), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_vm_matches_interpreter(program: Program, n: int, m: int, seed: int) -> None:
    inputs = program.inputs(np.random.default_rng(seed), n, m)
    expected = xrelax.interpret(program.module, "main", *inputs)
    exe = xrelax.compile(program.module)
    actual = xrelax.VirtualMachine(exe)["main"](*inputs)
    np.testing.assert_allclose(actual, expected, rtol=2e-5, atol=2e-6, err_msg=program.text)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
