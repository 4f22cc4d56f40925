"""Non-asserting timing helper for the VM's dispatch overhead.

Run ``python test/python/vm/measure_vm_overhead.py``. Prints
1. microseconds per instruction for a VM function of 1,000 calls to a no-op packed
   function, against a plain Python loop making the same 1,000 calls;
2. the cost of one ``vm["main"](a, b)`` call of alloc + add + ret on (4,) arrays,
   against the same numpy work done directly.
"""

import timeit

import numpy as np

from xrelax.backends.vm import ExecBuilder, VirtualMachine, register_func


def noop(a: object, b: object) -> None:
    """Does nothing."""


def add_out(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out = a + b``."""
    np.add(a, b, out=out)


def best(fn: object, number: int) -> float:
    """Best-of-7 seconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=7)) / number


def main() -> None:
    register_func("bench.noop", noop, override=True)
    register_func("bench.add_out", add_out, override=True)
    a = np.arange(4, dtype="float32")
    b = np.ones(4, dtype="float32")

    ib = ExecBuilder()
    with ib.function("main", num_inputs=2):
        for _ in range(1000):
            ib.emit_call("bench.noop", args=[ib.r(0), ib.r(1)])
        ib.emit_ret(ib.r(0))
    vm = VirtualMachine(ib.get())
    run = vm["main"]

    def plain_loop() -> None:
        for _ in range(1000):
            noop(a, b)

    vm_s = best(lambda: run(a, b), 200)
    loop_s = best(plain_loop, 200)
    print(
        f"1,000 no-op calls: VM {vm_s * 1e3:.4f} us/instr, plain loop {loop_s * 1e3:.4f} us/call,"
        f" ratio {vm_s / loop_s:.2f}"
    )

    ib = ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_call("vm.builtin.alloc_storage", args=[ib.imm(16), "float32"], dst=ib.r(2))
        ib.emit_call(
            "vm.builtin.alloc_tensor", args=[ib.r(2), ib.imm(0), (4,), "float32"], dst=ib.r(3)
        )
        ib.emit_call("bench.add_out", args=[ib.r(0), ib.r(1), ib.r(3)])
        ib.emit_ret(ib.r(3))
    run = VirtualMachine(ib.get())["main"]
    ib = ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_call("vm.builtin.alloc_tensor_direct", args=[(4,), "float32"], dst=ib.r(2))
        ib.emit_call("bench.add_out", args=[ib.r(0), ib.r(1), ib.r(2)])
        ib.emit_ret(ib.r(2))
    run_direct = VirtualMachine(ib.get())["main"]

    def numpy_only() -> np.ndarray:
        out = np.empty((4,), "float32")
        np.add(a, b, out=out)
        return out

    storage_s = best(lambda: run(a, b), 100_000)
    direct_s = best(lambda: run_direct(a, b), 100_000)
    numpy_s = best(numpy_only, 100_000)
    print(f"tiny add, alloc_storage + alloc_tensor: {storage_s * 1e6:.2f} us per call")
    print(f"tiny add, alloc_tensor_direct:          {direct_s * 1e6:.2f} us per call")
    print(f"the same numpy work without the VM:     {numpy_s * 1e6:.2f} us")


if __name__ == "__main__":
    main()
