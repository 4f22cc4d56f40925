"""The buffer pool: large buffers are reused by exact size, small ones never pooled, the
pool bounded; the VM gives a killed storage back; memory is lent to one owner at a time,
whatever is given back."""

from __future__ import annotations

import numpy as np
import pytest

import xrelax
from xrelax.backends import buffer_pool
from xrelax.backends.vm import VMError


@pytest.fixture(autouse=True)
def empty_pool():
    buffer_pool.clear()
    yield
    buffer_pool.clear()


def test_a_given_back_buffer_is_taken_again_by_exact_size():
    size = buffer_pool.MIN_POOLED
    first = buffer_pool.take(size)
    assert first.nbytes == size and first.ctypes.data % buffer_pool.ALIGNMENT == 0
    buffer_pool.give(first)
    assert buffer_pool.cached_bytes() == size
    assert not np.shares_memory(buffer_pool.take(size + 64), first)
    again = buffer_pool.take(size)
    assert again is not first and again.ctypes.data == first.ctypes.data
    assert buffer_pool.cached_bytes() == 0


def test_small_buffers_are_not_pooled():
    buffer_pool.give(buffer_pool.take(buffer_pool.MIN_POOLED - 1))
    assert buffer_pool.cached_bytes() == 0


def test_the_pool_is_bounded(monkeypatch):
    monkeypatch.setattr(buffer_pool, "MAX_CACHED", 3 * buffer_pool.MIN_POOLED)
    taken = [buffer_pool.take(buffer_pool.MIN_POOLED) for _ in range(4)]
    buffer_pool.give_all(taken)
    assert buffer_pool.cached_bytes() == buffer_pool.MIN_POOLED  # emptied at the fourth


def test_a_buffer_larger_than_the_bound_is_not_kept(monkeypatch):
    monkeypatch.setattr(buffer_pool, "MAX_CACHED", 3 * buffer_pool.MIN_POOLED)
    buffer_pool.give(buffer_pool.take(buffer_pool.MIN_POOLED))
    buffer_pool.give(buffer_pool.take(4 * buffer_pool.MIN_POOLED))
    assert buffer_pool.cached_bytes() == buffer_pool.MIN_POOLED


def test_a_buffer_given_back_twice_is_refused_even_after_its_memory_is_lent_again():
    size = buffer_pool.MIN_POOLED
    first = buffer_pool.take(size)
    buffer_pool.give(first)
    with pytest.raises(VMError) as info:
        buffer_pool.give(first)
    assert str(info.value) == ("a buffer of 262144 bytes was given back to the buffer pool twice")
    second = buffer_pool.take(size)  # the same memory, to a new owner
    assert second.ctypes.data == first.ctypes.data
    with pytest.raises(VMError, match="given back to the buffer pool twice"):
        buffer_pool.give(first)
    assert buffer_pool.cached_bytes() == 0
    third = buffer_pool.take(size)
    assert not np.shares_memory(third, second)


@pytest.mark.parametrize(
    "foreign",
    [
        lambda lent: np.zeros(buffer_pool.MIN_POOLED, np.uint8),  # an array of the caller
        lambda lent: lent[:],  # a view of a lent buffer
        lambda lent: lent.copy(),
        lambda lent: lent.view(np.float32),
        lambda lent: buffer_pool.aligned_bytes(buffer_pool.MIN_POOLED),
    ],
)
def test_only_a_lent_buffer_is_taken_back(foreign):
    lent = buffer_pool.take(buffer_pool.MIN_POOLED)
    with pytest.raises(VMError) as info:
        buffer_pool.give(foreign(lent))
    assert str(info.value) == (
        "a buffer of 262144 bytes was given back to the buffer pool, which did not lend it"
    )
    assert buffer_pool.cached_bytes() == 0
    buffer_pool.give(lent)
    assert buffer_pool.cached_bytes() == buffer_pool.MIN_POOLED


def test_empty_views_a_pooled_buffer_and_records_it():
    taken: list[np.ndarray] = []
    large = buffer_pool.empty(512 * 256 * 4, (512, 256), np.float32, taken)
    assert large.shape == (512, 256) and large.dtype == np.float32
    assert len(taken) == 1 and np.shares_memory(large, taken[0])
    buffer_pool.give_all(taken)
    assert buffer_pool.cached_bytes() == 512 * 256 * 4


T = "!relax.tensor<[n, 512], f32>"
W = "!relax.tensor<[512, 512], f32>"
CHAIN = f"""
relax.func @main(%x: {T}, %w: {W}) -> {T} {{
  %a = relax.matmul %x, %w : ({T}, {W})
  %b = relax.matmul %a, %w : ({T}, {W})
  %c = relax.matmul %b, %w : ({T}, {W})
  %d = relax.matmul %c, %w : ({T}, {W})
  relax.return %d : {T}
}}
"""


def test_the_vm_gives_a_killed_storage_back_and_reuses_it():
    module = xrelax.parse(CHAIN)
    lowered = xrelax.print_module(xrelax.apply(module.clone(), "relax-to-vm"))
    assert lowered.count('"vm.builtin.free_storage"') == 1  # %a and %c share a storage
    run = xrelax.VirtualMachine(xrelax.compile(module))["main"]
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((512, 512)) / 16).astype(np.float32)
    for n in (256, 256, 8):
        x = rng.standard_normal((n, 512)).astype(np.float32)
        np.testing.assert_allclose(run(x, w), x @ w @ w @ w @ w, rtol=1e-4, atol=1e-5)
        # the [256, 512] storage (512 KiB) is back in the pool; [8, 512] is too small
        assert buffer_pool.cached_bytes() == 256 * 512 * 4
