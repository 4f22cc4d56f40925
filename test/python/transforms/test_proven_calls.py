"""Kernel calls proven to match the kernel's signature (transforms/proven_calls.py): the
proof agrees with the checks of the kernel's entry, and the VM calls the unchecked
entry only where the compiler proved it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import xrelax
from xrelax.backends.kernels import KernelError, compile_prim_func
from xrelax.dialects import dtypes
from xrelax.dialects.relax import TensorType
from xrelax.dialects.shapes import symbolic
from xrelax.dialects.tir import PrimFuncOp
from xrelax.transforms.proven_calls import matches_signature

KERNEL = """builtin.module {
tir.prim_func @k(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[m], f32>, %C: !tir.buffer<[n * m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %a = tir.load %A[i, j] : f32
      %b = tir.load %B[j] : f32
      %c = arith.addf %a, %b : f32
      tir.store %C[i * m + j], %c : f32
    }
  }
}
}"""


def kernel() -> PrimFuncOp:
    (func,) = (op for op in xrelax.parse(KERNEL).body.block.ops if isinstance(op, PrimFuncOp))
    return func


def tensor(dims: str, dtype: str = "f32") -> TensorType:
    """``[a, b * 2]`` (dims) or ``ndim=2`` (a rank only)."""
    shape = int(dims[5:]) if dims.startswith("ndim=") else symbolic.parse_dims(dims)
    return TensorType.of(shape, dtypes.BY_NAME[dtype])


@pytest.mark.parametrize(
    ("types", "proven"),
    [
        (("[a, b]", "[b]", "[a * b]"), True),
        (("[4, 3]", "[3]", "[12]"), True),
        (("[a, 3]", "[3]", "[3 * a]"), True),
        (("[a, b]", "[c]", "[a * b]"), False),  # m bound to b, then compared with c
        (("[a, b]", "[b]", "[a * c]"), False),
        (("[4, 3]", "[3]", "[13]"), False),
        (("ndim=2", "[b]", "[a * b]"), False),  # a rank only
        (("[a, b, 1]", "[b]", "[a * b]"), False),  # another rank
    ],
)
def test_the_proof_of_a_signature(types: tuple[str, ...], proven: bool) -> None:
    assert matches_signature(kernel(), [tensor(t) for t in types]) is proven


def test_a_dtype_or_count_mismatch_is_not_proven() -> None:
    func = kernel()
    assert not matches_signature(func, [tensor("[a, b]", "f64"), tensor("[b]"), tensor("[a * b]")])
    assert not matches_signature(func, [tensor("[a, b]"), tensor("[b]")])


def test_a_proven_call_passes_every_check_of_the_entry() -> None:
    """For each proven signature and sizes of its variables, the checked entry accepts
    the arrays and the unchecked one computes the same thing."""
    compiled = compile_prim_func(kernel())
    for dims in [("[a, b]", "[b]", "[a * b]"), ("[a, 3]", "[3]", "[3 * a]")]:
        types = [tensor(t) for t in dims]
        assert matches_signature(kernel(), types)
        for a, b in itertools.product((0, 1, 3), (1, 3)):
            bindings = {"a": a, "b": b}
            shapes = [tuple(symbolic.evaluate(d, bindings) for d in t.dims) for t in types]
            rng = np.random.default_rng(a * 7 + b)
            x, y = (rng.standard_normal(s).astype(np.float32) for s in shapes[:2])
            checked, unchecked = np.empty(shapes[2], np.float32), np.empty(shapes[2], np.float32)
            compiled(x, y, checked)
            compiled.unchecked(x, y, unchecked)
            np.testing.assert_array_equal(checked, (x + y).reshape(-1))
            np.testing.assert_array_equal(unchecked, checked)


def test_the_checked_entry_still_refuses() -> None:
    compiled = compile_prim_func(kernel())
    x, y = np.zeros((2, 3), np.float32), np.zeros(4, np.float32)
    with pytest.raises(KernelError, match="buffer #1 %B dimension 0 is 4, expected m = 3"):
        compiled(x, y, np.zeros(6, np.float32))


MODULE = """
relax.func @main(%x: !relax.tensor<[n, 3], f32>, %y: !relax.tensor<ndim=2, f32>) -> !relax.tensor<[n, 3], f32> {
  %a = relax.exp %x : (!relax.tensor<[n, 3], f32>) -> !relax.tensor<[n, 3], f32>
  %b = relax.call_tir @twice(%y) : (!relax.tensor<ndim=2, f32>) -> !relax.tensor<[n, 3], f32>
  %c = relax.add %a, %b : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 3], f32>) -> !relax.tensor<[n, 3], f32>
  relax.return %c : !relax.tensor<[n, 3], f32>
}
tir.prim_func @twice(%A: !tir.buffer<[p, 3], f32>, %B: !tir.buffer<[p, 3], f32>) {
  tir.for i in [0, p) {
    tir.for j in [0, 3) {
      %a = tir.load %A[i, j] : f32
      %b = arith.addf %a, %a : f32
      tir.store %B[i, j], %b : f32
    }
  }
}
"""


def test_the_vm_checks_what_was_not_proven() -> None:
    """A call on a value of unknown shape keeps the kernel's checks: a wrong size is a
    located error, not wrong numbers; the proven calls run unchecked."""
    exe = xrelax.compile(xrelax.parse(MODULE))
    calls = [line.split() for line in exe.as_text().splitlines() if line.startswith("  call")]
    kernels = {c[1] if c[1] != "vm.builtin.call_tir_unchecked" else c[3]: c[1] for c in calls}
    assert kernels["twice"] == "twice"  # checked
    assert sorted(k for k, v in kernels.items() if v.endswith("unchecked")) == [
        "f[add],",
        "f[exp],",
    ]
    main = xrelax.VirtualMachine(exe)["main"]
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(main(x, x), np.exp(x) + 2 * x, rtol=1e-6)
    with pytest.raises(xrelax.VMError, match="twice"):
        main(x, np.ones((4, 3), np.float32))
