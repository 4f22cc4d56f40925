"""Native kernels split between threads, against the numpy kernels: run by
``test_parallel.py`` in a process of its own with ``XRELAX_NUM_THREADS`` set (the pool
is sized once per process). Each case prints ``ok <name>``; a failure raises."""

from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np

import xrelax
from xrelax.backends.kernels import KernelError
from xrelax.backends.kernels import compiler as numpy_kernels
from xrelax.backends.native import compiler as native
from xrelax.backends.native.jit import jit
from xrelax.backends.native.parallel import PARALLEL_WORK, WAKE_WORK

RNG = np.random.default_rng(0)

ROWS = """
tir.prim_func @rows(%X: !tir.buffer<[n, 300], f32>, %S: !tir.buffer<[n], f32>) {
  %T = tir.alloc_buffer : !tir.buffer<[n, 300], f32>
  tir.for i in [0, n) {
    tir.for j in [0, 300) {
      %x = tir.load %X[i, j] : f32
      %e = math.exp %x : f32
      tir.store %T[i, j], %e : f32
    }
  }
  tir.for i2 in [0, n) {
    %z = arith.constant 0.000000e+00 : f32
    tir.store %S[i2], %z : f32
    tir.for k in [0, 300) {
      %s = tir.load %S[i2] : f32
      %t = tir.load %T[i2, k] : f32
      %a = arith.addf %s, %t : f32
      tir.store %S[i2], %a : f32
    }
  }
}
"""

PRODUCT = """
tir.prim_func @product(%A: !tir.buffer<[M, 160], f32>, %B: !tir.buffer<[160, 72], f32>, %C: !tir.buffer<[M, 72], f32>) {
  tir.for i in [0, M) {
    tir.for j in [0, 72) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 160) {
        %c = tir.load %C[i, j] : f32
        %a = tir.load %A[i, k] : f32
        %b = tir.load %B[k, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}
"""

TAKE = """
tir.prim_func @take(%X: !tir.buffer<[8, 64], f32>, %I: !tir.buffer<[n], i32>, %Y: !tir.buffer<[n, 64], f32>) {
  tir.for i in [0, n) {
    %k = tir.load %I[i] : i32
    tir.let t = %k : i32
    tir.for j in [0, 64) {
      %x = tir.load %X[t, j] : f32
      tir.store %Y[i, j], %x : f32
    }
  }
}
"""

CONV = """
relax.func @main(%x: !relax.tensor<[n, 32, 40, 40], f32>, %w: !relax.tensor<[64, 32, 3, 3], f32>) -> !relax.tensor<[n, 64, 40, 40], f32> {
  %out = relax.dataflow -> !relax.tensor<[n, 64, 40, 40], f32> {
    %c = relax.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>} : (!relax.tensor<[n, 32, 40, 40], f32>, !relax.tensor<[64, 32, 3, 3], f32>)
    %r = relax.relu %c : (!relax.tensor<[n, 64, 40, 40], f32>)
    relax.output %r : !relax.tensor<[n, 64, 40, 40], f32>
  }
  relax.return %out : !relax.tensor<[n, 64, 40, 40], f32>
}
"""


def kernels(text: str, name: str):
    """The numpy and native kernels of prim_func ``name`` in ``text``."""
    return numpy_kernels.load_library(text)[name], native.load_library(text)[name]


def split(call) -> bool:
    """Whether ``call()`` ran a kernel on several threads. The cases' sizes are below
    PARALLEL_WORK (never split) or at least WAKE_WORK (always split, a worker awake or
    not; in between the pool splits only if one is awake)."""
    before = jit().pool.shared()
    call()
    return jit().pool.shared() > before


def case_rows() -> None:
    # Symbolic rows: fewer than the threads, a few, many (the runtime splits where the
    # work pays; each thread reads back only the rows of its slice).
    reference, kernel = kernels(ROWS, "rows")
    for n in (1, 2, 3, 5, 200, 14001, 16000):
        x = RNG.uniform(-2, 2, (n, 300)).astype(np.float32)
        want, got = np.zeros(n, np.float32), np.zeros(n, np.float32)
        reference(x, want)
        assert n * 600 < PARALLEL_WORK or n * 600 >= WAKE_WORK
        assert split(lambda x=x, got=got: kernel(x, got)) == (n * 600 >= WAKE_WORK), n
        np.testing.assert_allclose(got, want, rtol=1e-5)


def case_product_rows() -> None:
    # A product in register tiles split along its rows: whole tiles per thread, the
    # last tile's remainder, fewer rows than threads times a tile.
    for m, k in ((3, 160), (8, 16000), (13, 9000), (96, 1280), (101, 1200), (250, 480)):
        text = PRODUCT.replace("M", str(m)).replace("160", str(k))
        _, kernel = kernels(text, "product")
        a = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
        b = RNG.uniform(-1, 1, (k, 72)).astype(np.float32)
        c = np.full((m, 72), 77, np.float32)
        shared = split(lambda a=a, b=b, c=c, kernel=kernel: kernel(a, b, c))
        assert shared == (m * 72 * k >= WAKE_WORK), m
        np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


ONE_ROW = """
relax.func @main(%x: !relax.tensor<[1, K], f32>, %w: !relax.tensor<[K, N], f32>) -> !relax.tensor<[1, N], f32> {
  %out = relax.dataflow -> !relax.tensor<[1, N], f32> {
    %t = relax.tanh %x : (!relax.tensor<[1, K], f32>)
    %y = relax.matmul %t, %w : (!relax.tensor<[1, K], f32>, !relax.tensor<[K, N], f32>)
    relax.output %y : !relax.tensor<[1, N], f32>
  }
  relax.return %out : !relax.tensor<[1, N], f32>
}
"""


def case_product_columns() -> None:
    # A product of one row by weights bound (packed in panels) split along its columns:
    # each thread the whole tiles that start in its slice, and the lanes past the last
    # whole tile in the slice that holds them, after the tanh of the row (a prologue
    # every thread runs whole, into a buffer of its own). 200 and 256 columns are two tiles, fewer
    # than the threads: the pool's slices are then not in whole tiles (a tile from
    # where one starts would read vectors across two panels).
    rng = np.random.default_rng(1)  # (the other cases' data stay as they were)
    for k, n in ((42000, 200), (33000, 256), (3000, 3000)):
        module = xrelax.parse(ONE_ROW.replace("K", str(k)).replace("N", str(n)))
        w = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        exe = xrelax.compile(module, params={"w": w}, kernels="native")
        (func,) = exe.unprinted.ops
        assert len(func.buffer_types[1].dims) == 3  # in panels
        assert "tanh" in func.sym_name.data  # (one kernel: the prologue and the product)
        run = xrelax.VirtualMachine(exe, kernels="native")["main"]
        x = rng.uniform(-1, 1, (1, k)).astype(np.float32)
        got: list = []
        assert k * n >= WAKE_WORK and split(lambda x=x, got=got, run=run: got.append(run(x))), n
        np.testing.assert_allclose(got[0], np.tanh(x.astype(np.float64)) @ w, rtol=1e-4, atol=1e-3)


def case_convolution() -> None:
    # A 3x3 convolution (a padded copy, register tiles, the ReLU in them) through the
    # VM, split along the pairs of images and output channels (so one image is shared
    # too); each thread pads the whole images its slice touches, in a copy of its own.
    module = xrelax.parse(CONV)
    exe = xrelax.compile(module, kernels="native")
    run = xrelax.VirtualMachine(exe, kernels="native")["main"]
    reference = xrelax.VirtualMachine(xrelax.compile(module), kernels="numpy")["main"]
    for n in (1, 2, 3, 7):
        x = RNG.uniform(-1, 1, (n, 32, 40, 40)).astype(np.float32)
        w = RNG.uniform(-1, 1, (64, 32, 3, 3)).astype(np.float32)
        got: list = []
        assert split(lambda x=x, w=w, got=got: got.append(run(x, w))), n
        np.testing.assert_allclose(got[0], reference(x, w), rtol=1e-5, atol=1e-5)


def case_failure_in_a_worker() -> None:
    # An index out of range in the last rows (a worker's chunk, unless the caller took
    # it first): the numpy kernel's error, as on one thread.
    _, kernel = kernels(TAKE, "take")
    x = RNG.uniform(-1, 1, (8, 64)).astype(np.float32)
    index = np.zeros(140000, np.int32)
    index[-1] = 8
    try:
        kernel(x, index, np.zeros((140000, 64), np.float32))
    except KernelError as error:
        assert str(error) == "kernel @take: index 8 out of range [0, 8) for axis 0 of buffer %X"
    else:
        raise AssertionError("no error for an index out of range")
    index[-1] = 7
    y = np.zeros((140000, 64), np.float32)
    assert split(lambda: kernel(x, index, y))
    np.testing.assert_array_equal(y, x[index])


def case_concurrent_callers() -> None:
    # Two Python threads calling split kernels at once: one has the pool, the other
    # runs its call alone; both right.
    reference, kernel = kernels(ROWS, "rows")
    x = RNG.uniform(-2, 2, (4000, 300)).astype(np.float32)
    want = np.zeros(4000, np.float32)
    reference(x, want)
    errors: list[BaseException] = []

    def calls() -> None:
        try:
            for _ in range(30):
                got = np.zeros(4000, np.float32)
                kernel(x, got)
                np.testing.assert_allclose(got, want, rtol=1e-5)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=calls) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def case_fork() -> None:
    # A forked child has no workers: it starts its own and gets the same numbers.
    reference, kernel = kernels(ROWS, "rows")
    x = RNG.uniform(-2, 2, (4000, 300)).astype(np.float32)
    want = np.zeros(4000, np.float32)
    reference(x, want)
    pid = os.fork()
    if pid == 0:
        got = np.zeros(4000, np.float32)
        kernel(x, got)
        os._exit(0 if np.allclose(got, want, rtol=1e-5) else 1)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.01)
    os.kill(pid, 9)
    raise AssertionError("the forked child did not finish")


def main() -> None:
    for name, case in sorted(globals().items()):
        if name.startswith("case_"):
            case()
            print("ok", name, flush=True)
    workers = {t.name for t in threading.enumerate() if t.name.startswith("xrelax-worker")}
    print("workers", " ".join(sorted(workers)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
