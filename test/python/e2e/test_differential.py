"""Differential testing: random relax programs compiled to the VM give the reference
interpreter's results, for random values of the symbolic variables; for sizes that break
a fact the compiler could not prove, both refuse."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_programs import PACKED_COPY, Program, programs

import xrelax
from xrelax.backends.interpreter import InterpreterError

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


def _outcome(run) -> tuple[object, str | None]:
    try:
        return run(), None
    except (xrelax.VMError, InterpreterError) as err:
        message = str(err)
        assert "\n" not in message and message.startswith("main: "), message
        return None, message


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    programs(loose=True),
    st.integers(0, 4),
    st.integers(0, 4),
    st.integers(0, 6),
    st.integers(0, 2**32 - 1),
)
def test_vm_and_interpreter_agree_or_both_refuse(
    program: Program, n: int, m: int, k: int, seed: int
) -> None:
    inputs = program.inputs(np.random.default_rng(seed), n, m, k)
    # The oracle runs the program as the pipeline sees it before lowering: an operator
    # whose result is unused (and whose facts may not hold) is gone from both.
    cleaned = xrelax.apply(program.module.clone(), "relax-normalize,canonicalize,cse,dce")
    expected, refused = _outcome(lambda: xrelax.interpret(cleaned, "main", *inputs))
    exe = xrelax.compile(program.module)
    actual, vm_refused = _outcome(lambda: xrelax.VirtualMachine(exe)["main"](*inputs))
    assert (refused is None) == (vm_refused is None), (program.text, refused, vm_refused)
    if refused is None:
        np.testing.assert_allclose(actual, expected, rtol=2e-5, atol=2e-6, err_msg=program.text)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
