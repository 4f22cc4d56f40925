"""Fusion keeps every constraint of the kernels it merges: programs whose sizes break
what a kernel's buffers (or asserts) say are refused by the VM with and without fusion
alike, and sizes that keep them give numpy's numbers either way."""

from __future__ import annotations

import numpy as np
import pytest

import xrelax
from xrelax.transforms.relax_to_vm import DEFAULT_PIPELINE

UNFUSED = ",".join(
    p
    for p in DEFAULT_PIPELINE
    if p not in ("relax-fuse-ops", "relax-fuse-tir", "tir-inline-copies")
)

PROGRAM = """
tir.prim_func @addb(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[m], f32>, %C: !tir.buffer<[n, m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %a = tir.load %A[i, j] : f32
      %b = tir.load %B[j] : f32
      %c = arith.addf %a, %b : f32
      tir.store %C[i, j], %c : f32
    }
  }
}
tir.prim_func @twice(%A: !tir.buffer<[n], f32>, %C: !tir.buffer<[n * 2], f32>) {
  tir.for i in [0, n) {
    %a = tir.load %A[i] : f32
    tir.store %C[i], %a : f32
    tir.store %C[i + n], %a : f32
  }
}
tir.prim_func @window(%A: !tir.buffer<[n], f32>, %C: !tir.buffer<[w], f32>) {
  tir.assert [w] <= [n], "@window: the window fits"
  tir.for i in [0, w) {
    %a = tir.load %A[i] : f32
    tir.store %C[i], %a : f32
  }
}
relax.func @row_plus_bias(%x: !relax.tensor<[n, 4], f32>, %y: !relax.tensor<[k], f32>) -> !relax.tensor<[n, 4], f32> {
  %r = relax.dataflow -> !relax.tensor<[n, 4], f32> {
    %e = relax.exp %x : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
    %a = relax.call_tir @addb(%e, %y) : (!relax.tensor<[n, 4], f32>, !relax.tensor<[k], f32>) -> !relax.tensor<[n, 4], f32>
    relax.output %a : !relax.tensor<[n, 4], f32>
  }
  relax.return %r : !relax.tensor<[n, 4], f32>
}
relax.func @doubled(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %r = relax.dataflow -> !relax.tensor<[n], f32> {
    %e = relax.exp %x : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %a = relax.call_tir @twice(%e) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    relax.output %a : !relax.tensor<[n], f32>
  }
  relax.return %r : !relax.tensor<[n], f32>
}
relax.func @windowed(%x: !relax.tensor<[n], f32>, %s: !relax.shape<[w]>) -> !relax.tensor<[w], f32> {
  %r = relax.dataflow -> !relax.tensor<[w], f32> {
    %e = relax.exp %x : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %a = relax.call_tir @window(%e) : (!relax.tensor<[n], f32>) -> !relax.tensor<[w], f32>
    %b = relax.negative %a : (!relax.tensor<[w], f32>) -> !relax.tensor<[w], f32>
    relax.output %b : !relax.tensor<[w], f32>
  }
  relax.return %r : !relax.tensor<[w], f32>
}
relax.func @sliced_take(%x: !relax.tensor<[5, 3], f32>, %i: !relax.tensor<[2], i64>) -> !relax.tensor<[2, 3], f32> {
  %r = relax.dataflow -> !relax.tensor<[2, 3], f32> {
    %s = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 1>, end = array<i64: 3>} : (!relax.tensor<[5, 3], f32>) -> !relax.tensor<[2, 3], f32>
    %t = relax.take %s, %i {axis = 0 : i64} : (!relax.tensor<[2, 3], f32>, !relax.tensor<[2], i64>) -> !relax.tensor<[2, 3], f32>
    relax.output %t : !relax.tensor<[2, 3], f32>
  }
  relax.return %r : !relax.tensor<[2, 3], f32>
}
"""


@pytest.fixture(scope="module")
def machines():
    module = xrelax.parse(PROGRAM)
    fused = xrelax.compile(module)
    return {
        "fused": xrelax.VirtualMachine(fused),
        "unfused": xrelax.VirtualMachine(xrelax.compile(module, UNFUSED)),
    }


X = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
TABLE = np.arange(15, dtype=np.float32).reshape(5, 3)

CASES = [
    ("row_plus_bias", (X, np.ones(4, np.float32)), np.exp(X) + 1),
    ("row_plus_bias", (X, np.ones(5, np.float32)), "kernel @"),
    ("row_plus_bias", (X, np.ones(3, np.float32)), "kernel @"),
    ("doubled", (np.zeros(0, np.float32),), np.zeros(0, np.float32)),
    ("doubled", (np.ones(3, np.float32),), "kernel @"),
    ("windowed", (np.zeros(3, np.float32), (2,)), -np.ones(2, np.float32)),
    ("windowed", (np.zeros(3, np.float32), (4,)), "@window: the window fits"),
    ("sliced_take", (TABLE, np.array([1, -2])), TABLE[1:3][[1, 0]]),
    ("sliced_take", (TABLE, np.array([0, 2])), "index 2 out of range [0, 2) for axis 0"),
    ("sliced_take", (TABLE, np.array([-3, 0])), "index -3 out of range [0, 2) for axis 0"),
]


@pytest.mark.parametrize(("name", "args", "expected"), CASES)
@pytest.mark.parametrize("pipeline", ["fused", "unfused"])
def test_fused_and_unfused_agree_or_both_refuse(machines, pipeline, name, args, expected):
    run = machines[pipeline][name]
    if isinstance(expected, str):
        with pytest.raises(xrelax.VMError) as info:
            run(*args)
        message = str(info.value)
        assert "\n" not in message and message.startswith(f"{name}: "), message
        assert expected in message, message
    else:
        np.testing.assert_allclose(run(*args), expected, rtol=1e-6)


def test_the_fused_refusal_names_the_merged_kernel_and_its_dimension(machines):
    with pytest.raises(xrelax.VMError) as fused:
        machines["fused"]["row_plus_bias"](X, np.ones(5, np.float32))
    with pytest.raises(xrelax.VMError) as unfused:
        machines["unfused"]["row_plus_bias"](X, np.ones(5, np.float32))
    assert str(fused.value) == (
        "row_plus_bias: kernel @fused_exp_addb: @addb: buffer #1 %B dimension 0 is m: "
        "expected k == 4, got k = 5"
    )
    assert str(unfused.value) == (
        "row_plus_bias: kernel @addb: buffer #1 %B dimension 0 is 5, expected m = 4"
    )
    with pytest.raises(xrelax.VMError) as doubled:
        machines["fused"]["doubled"](np.ones(3, np.float32))
    assert str(doubled.value) == (
        "doubled: kernel @fused_exp1_twice: @twice: buffer #1 %C dimension 0 is n * 2: "
        "expected n == n * 2, got n = 3 (n * 2 = 6)"
    )
