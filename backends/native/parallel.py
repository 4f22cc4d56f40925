"""Native kernels on several threads: a fork-join pool in machine code.

A prim_func whose top-level loops are marked ``parallel`` (:mod:`.parallelize`) is
lowered as a *task* that runs the whole body over a slice ``[lo, hi)`` of those loops,
and an entry that calls :data:`PARALLEL_FOR` with the task, its packed arguments, the
loops' extent, a grain (the slices are whole multiples of it, so that register tiles
stay whole) and an estimate of the work. The runtime below (LLVM IR, compiled once per
host like the kernels) cuts the extent into one chunk per thread, publishes the task
and runs chunks on the calling thread until none is left unclaimed; workers claim the
others (an atomic counter tagged with the task's generation), and the caller waits only
for chunks a worker has started. No Python and no GIL on the way, so that a kernel of a
few tens of microseconds still pays to split, and a worker that is asleep or
descheduled costs the caller nothing: it finds its chunk taken.

Workers spin on a generation counter for a while after each task (as onnxruntime's
threads do) and while a caller is inside a kernel, then sleep on a futex; a task wakes
sleepers (a light one runs alone and wakes them for the next). A kernel that calls BLAS
sends them to sleep first (:meth:`Pool.rest`): OpenBLAS's threads would otherwise wait
for the core a worker spins on. One kernel at a time uses
the pool: a second caller (another Python thread) runs its kernel alone. Work below
:data:`PARALLEL_WORK` runs alone too. The workers are Python threads that call into the
runtime and never come back (the call releases the GIL); a forked child has none, and
starts its own when it next needs them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from cffi import FFI

__all__ = ["PARALLEL_FOR", "PARALLEL_WORK", "Pool", "runtime_ir", "threads"]

THREADS_ENV = "XRELAX_NUM_THREADS"
"""The threads native kernels run on (the caller's and the workers)."""

PARALLEL_FOR = "xrelax_parallel_for"
"""``i32 xrelax_parallel_for(ptr task, ptr args, i64 extent, i64 grain, i64 work)``:
runs ``task(args, lo, hi)`` over slices of ``[0, extent)`` and returns the bitwise or
of the tasks' results (non-zero: a check failed)."""

PARALLEL_WORK = 131072
"""Less work than this (innermost iterations, the entry's estimate) runs on the caller
alone. A spinning worker joins within a microsecond, but the next kernel then reads
half its input from the other core's cache: SqueezeNet at 64x64 (kernels of 5-40 us)
measured 0.38-0.47 ms at two threads with this bound, 0.49 with a quarter of it (one
thread: 0.40)."""

WAKE_WORK = 64 * PARALLEL_WORK
"""Less work than this runs on the caller alone when every worker sleeps (after a BLAS
call), which wakes them for the next task: a worker woken for the task at hand joins
late and cold (a 640 us element-wise kernel took 740 us with one woken for it; GPT-2's
attention kernels, 90 us, twice as long)."""

_SPIN = 4000
"""Polls a worker makes before it sleeps (each an x86 ``pause``: 25 ns on the AMD EPYC
of docs/performance.md, 100 us in all): long enough to span the Python between two
kernels of a model, short enough not to hold a core BLAS's threads want."""

_FUTEX = {"x86_64": 202, "aarch64": 98}
"""The futex system call's number on each Linux architecture the pool runs on."""


def threads() -> int:
    """The threads native kernels run on: ``$XRELAX_NUM_THREADS``, else
    ``OMP_NUM_THREADS`` or ``OPENBLAS_NUM_THREADS`` (what BLAS runs on), else the CPUs
    this process may use."""
    for name in (THREADS_ENV, "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _architecture(triple: str) -> str | None:
    """The architecture of ``triple`` where the pool has threads (Linux), else None."""
    arch = triple.split("-")[0]
    return arch if "linux" in triple and arch in _FUTEX else None


def runtime_ir(triple: str) -> str:
    """The pool's LLVM IR for the host ``triple`` (see the module docstring)."""
    arch = _architecture(triple)
    pause = "call void @llvm.x86.sse2.pause()" if arch == "x86_64" else ""
    futex = _FUTEX.get(arch or "", 0)
    return f'target triple = "{triple}"\n' + _RUNTIME.format(
        parallel_for=PARALLEL_FOR,
        work=PARALLEL_WORK,
        wake_work=WAKE_WORK,
        spin=_SPIN,
        futex=futex,
        pause=pause,
    )


class Pool:
    """The worker threads of the runtime whose entries are at ``address(symbol)``."""

    def __init__(self, address: Callable[[str], int], triple: str) -> None:
        ffi = FFI()
        self._set_workers = ffi.cast("void (*)(int64_t)", address("xrelax_set_workers"))
        self._worker = ffi.cast("void (*)(int64_t)", address("xrelax_worker"))
        self._shared = ffi.cast("int64_t (*)(void)", address("xrelax_shared_tasks"))
        self.rest = ffi.cast("void (*)(void)", address("xrelax_rest"))
        """Send spinning workers to sleep at once: a kernel calls it before BLAS, whose
        threads would otherwise wait for a core a worker spins on (BERT-base's layer
        norms took 5x as long)."""
        self._supported = _architecture(triple) is not None
        self._started = False
        self._lock = threading.Lock()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forget)

    def ensure(self) -> None:
        """Start the workers (``threads() - 1`` of them), once per process."""
        if self._started:
            return
        with self._lock:
            if self._started:
                return
            workers = threads() - 1 if self._supported else 0
            self._set_workers(max(workers, 0))
            for k in range(1, workers + 1):
                thread = threading.Thread(
                    target=self._worker, args=(k,), name=f"xrelax-worker-{k}", daemon=True
                )
                thread.start()
            self._started = True

    def shared(self) -> int:
        """How many kernel calls so far ran on several threads."""
        return int(self._shared())

    def _forget(self) -> None:
        """In a forked child: the workers did not come along; start anew when needed."""
        self._set_workers(0)
        self._started = False
        self._lock = threading.Lock()


_RUNTIME = """
@task = internal global ptr null
@packed = internal global ptr null
@extent = internal global i64 0
@grain = internal global i64 1
@chunks = internal global i64 1
@generation = internal global i32 0
@next = internal global i64 0
@done = internal global i64 0
@status = internal global i32 0
@sleepers = internal global i32 0
@busy = internal global i32 0
@workers = internal global i64 0
@shared = internal global i64 0
@resting = internal global i32 0
@inside = internal global i32 0

declare i64 @syscall(i64, ...)
declare void @llvm.x86.sse2.pause()

; Spinning workers go to sleep now (before BLAS, whose own threads want the cores).
define void @xrelax_rest() {{
  store atomic i32 1, ptr @resting monotonic, align 4
  ret void
}}

; The number of tasks run on several threads so far.
define i64 @xrelax_shared_tasks() {{
  %n = load atomic i64, ptr @shared monotonic, align 8
  ret i64 %n
}}

; Before any task: the number of workers (0: every task runs on its caller).
define void @xrelax_set_workers(i64 %n) {{
  store atomic i64 %n, ptr @workers seq_cst, align 8
  store atomic i32 0, ptr @generation seq_cst, align 4
  store atomic i64 0, ptr @next seq_cst, align 8
  store atomic i32 0, ptr @sleepers seq_cst, align 4
  store atomic i32 0, ptr @busy seq_cst, align 4
  ret void
}}

; Chunk k's slice [lo, hi) of @extent among @chunks, in whole grains if there are
; as many grains as chunks.
define internal void @slice(i64 %k, ptr %lo, ptr %hi) {{
  %extent = load i64, ptr @extent
  %grain = load i64, ptr @grain
  %chunks = load i64, ptr @chunks
  %round = add i64 %extent, %grain
  %up = sub i64 %round, 1
  %whole = udiv i64 %up, %grain
  %short = icmp ult i64 %whole, %chunks
  %g = select i1 %short, i64 1, i64 %grain
  %grains = select i1 %short, i64 %extent, i64 %whole
  %a = mul i64 %grains, %k
  %ga = udiv i64 %a, %chunks
  %k1 = add i64 %k, 1
  %b = mul i64 %grains, %k1
  %gb = udiv i64 %b, %chunks
  %la = mul i64 %ga, %g
  %lb = mul i64 %gb, %g
  %ca = icmp ult i64 %la, %extent
  %va = select i1 %ca, i64 %la, i64 %extent
  %cb = icmp ult i64 %lb, %extent
  %vb = select i1 %cb, i64 %lb, i64 %extent
  store i64 %va, ptr %lo
  store i64 %vb, ptr %hi
  ret void
}}

; Claim and run the chunks of task %gen left, until none is: @next holds the task's
; generation (high 32 bits) and its next chunk, so that a thread late for one task
; claims nothing of the next.
define internal void @drain(i32 %gen) {{
entry:
  %lo = alloca i64
  %hi = alloca i64
  %want = zext i32 %gen to i64
  br label %claim
claim:
  %v = load atomic i64, ptr @next acquire, align 8
  %owner = lshr i64 %v, 32
  %current = icmp eq i64 %owner, %want
  %k = and i64 %v, 4294967295
  %chunks = load i64, ptr @chunks
  %left = icmp ult i64 %k, %chunks
  %open = and i1 %current, %left
  br i1 %open, label %take, label %out
take:
  %v1 = add i64 %v, 1
  %pair = cmpxchg ptr @next, i64 %v, i64 %v1 acq_rel acquire
  %won = extractvalue {{ i64, i1 }} %pair, 1
  br i1 %won, label %run, label %claim
run:
  call void @slice(i64 %k, ptr %lo, ptr %hi)
  %l = load i64, ptr %lo
  %h = load i64, ptr %hi
  %some = icmp slt i64 %l, %h
  br i1 %some, label %work, label %finished
work:
  %fn = load ptr, ptr @task
  %args = load ptr, ptr @packed
  %r = call i32 %fn(ptr %args, i64 %l, i64 %h)
  %o = atomicrmw or ptr @status, i32 %r seq_cst
  br label %finished
finished:
  %d = atomicrmw add ptr @done, i64 1 release
  br label %claim
out:
  ret void
}}

define i32 @{parallel_for}(ptr %fn, ptr %args, i64 %extent, i64 %grain, i64 %work) {{
entry:
  %in = atomicrmw add ptr @inside, i32 1 monotonic
  %n = load atomic i64, ptr @workers monotonic, align 8
  %none = icmp eq i64 %n, 0
  %small = icmp slt i64 %work, {work}
  %few = icmp slt i64 %extent, 2
  %either = or i1 %none, %small
  %cheap = or i1 %either, %few
  ; every worker asleep (after BLAS): waking one costs more than light work gains
  %sleeping0 = load atomic i32, ptr @sleepers monotonic, align 4
  %asleep = zext i32 %sleeping0 to i64
  %all = icmp eq i64 %asleep, %n
  %light = icmp slt i64 %work, {wake_work}
  %idle = and i1 %all, %light
  br i1 %cheap, label %single, label %rouse
rouse:
  br i1 %idle, label %ahead, label %lock
ahead:
  ; wake the workers for the tasks after this one, which runs here alone
  store atomic i32 0, ptr @resting monotonic, align 4
  %roused = call i64 (i64, ...) @syscall(i64 {futex}, ptr @generation, i64 129, i64 2147483647)
  br label %single
lock:
  %pair = cmpxchg ptr @busy, i32 0, i32 1 acquire monotonic
  %won = extractvalue {{ i32, i1 }} %pair, 1
  br i1 %won, label %share, label %single
single:
  %r = call i32 %fn(ptr %args, i64 0, i64 %extent)
  %out1 = atomicrmw sub ptr @inside, i32 1 monotonic
  ret i32 %r
share:
  %count = atomicrmw add ptr @shared, i64 1 monotonic
  store atomic i32 0, ptr @resting monotonic, align 4
  store ptr %fn, ptr @task
  store ptr %args, ptr @packed
  store i64 %extent, ptr @extent
  store i64 %grain, ptr @grain
  %threads = add i64 %n, 1
  store i64 %threads, ptr @chunks
  store i32 0, ptr @status
  store atomic i64 0, ptr @done seq_cst, align 8
  %old = load atomic i32, ptr @generation monotonic, align 4
  %gen = add i32 %old, 1
  %wide = zext i32 %gen to i64
  %first = shl i64 %wide, 32
  store atomic i64 %first, ptr @next seq_cst, align 8
  store atomic i32 %gen, ptr @generation seq_cst, align 4
  %sleeping = load atomic i32, ptr @sleepers seq_cst, align 4
  %wake = icmp ne i32 %sleeping, 0
  br i1 %wake, label %wakeup, label %mine
wakeup:
  %woken = call i64 (i64, ...) @syscall(i64 {futex}, ptr @generation, i64 129, i64 2147483647)
  br label %mine
mine:
  call void @drain(i32 %gen)
  br label %wait
wait:
  %finished = load atomic i64, ptr @done acquire, align 8
  %complete = icmp eq i64 %finished, %threads
  br i1 %complete, label %finish, label %poll
poll:
  {pause}
  br label %wait
finish:
  %s = load i32, ptr @status
  store atomic i32 0, ptr @busy release, align 4
  %out2 = atomicrmw sub ptr @inside, i32 1 monotonic
  ret i32 %s
}}

; Worker k (1, 2, ...): joins each task, for ever.
define void @xrelax_worker(i64 %k) {{
entry:
  br label %idle
idle:
  %seen = phi i32 [0, %entry], [%seen, %awake], [%g, %run]
  br label %check
check:
  %i = phi i32 [0, %idle], [%i1, %again]
  %g = load atomic i32, ptr @generation acquire, align 4
  %new = icmp ne i32 %g, %seen
  br i1 %new, label %run, label %again
again:
  {pause}
  ; the spin starts again while a caller is in a kernel (running it alone, say)
  %callers = load atomic i32, ptr @inside monotonic, align 4
  %held = icmp ne i32 %callers, 0
  %next_i = add i32 %i, 1
  %i1 = select i1 %held, i32 0, i32 %next_i
  %more = icmp slt i32 %i1, {spin}
  %rest = load atomic i32, ptr @resting monotonic, align 4
  %awaited = icmp eq i32 %rest, 0
  %spin = and i1 %more, %awaited
  br i1 %spin, label %check, label %sleep
sleep:
  %s0 = atomicrmw add ptr @sleepers, i32 1 seq_cst
  %g2 = load atomic i32, ptr @generation seq_cst, align 4
  %same = icmp eq i32 %g2, %seen
  br i1 %same, label %futex, label %awake
futex:
  %w = call i64 (i64, ...) @syscall(i64 {futex}, ptr @generation, i64 128, i32 %seen, ptr null)
  br label %awake
awake:
  %s1 = atomicrmw sub ptr @sleepers, i32 1 seq_cst
  br label %idle
run:
  call void @drain(i32 %g)
  br label %idle
}}
"""
