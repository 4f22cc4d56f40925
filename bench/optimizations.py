"""What fusion and the cleanup passes buy, measured in one run.

    python bench/optimizations.py [--repeat 9]

For mlp.mlir and the transformer block, compiles the program twice — with the
default ``relax-to-vm`` pipeline, and without its optimizations (no canonicalize /
fold-constant / cse / dce, no fusion) — and reports the VM call instructions a call
executes (these programs have no control flow, so every instruction runs once), the
kernel launches among them, and the time per call, with the results checked against
the reference interpreter.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys

import numpy as np

import xrelax

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench import models  # noqa: E402
from bench.run import timeit  # noqa: E402

UNOPTIMIZED = (
    "relax-normalize,relax-legalize-ops,relax-to-non-dataflow,relax-call-tir-rewrite,"
    "relax-plan-memory,relax-vm-memory-lower,relax-vm-shape-lower,relax-codegen-vm"
)


def instruction_counts(exe) -> tuple[int, int]:
    """(call instructions, kernel launches) of the executable's ``main``."""
    from xrelax.backends.vm.executable import Call

    kernels = {
        line.split("@")[1].split("(")[0]
        for line in exe.library.splitlines()
        if line.lstrip().startswith("tir.prim_func @")
    }
    main = next(f for f in exe.global_funcs if f.name == "main")
    calls = launches = 0
    for pc in exe.function_ranges()[main.name]:
        instruction = exe.get_instruction(pc)
        if isinstance(instruction, Call):
            calls += 1
            name = exe.func_names[instruction.func_idx]
            launches += name in kernels or name in _KERNEL_CALLS
    return calls, launches


_KERNEL_CALLS = ("vm.builtin.call_tir_dyn", "vm.builtin.call_tir_unchecked")
"""Builtins that launch the kernel given as their first argument."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)
    cases = [models.mlp(1), models.mlp(256), models.transformer(16), models.transformer(128)]
    print(f"{'model':<18} {'pipeline':<12} {'calls':>6} {'kernels':>8} {'time':>10}")
    for model in cases:
        module = xrelax.parse(model.path.read_text())
        expected = xrelax.interpret(module, "main", *model.inputs)
        runs = {}
        for label, pipeline in (("unoptimized", UNOPTIMIZED), ("relax-to-vm", "relax-to-vm")):
            exe = xrelax.compile(module, pipeline)
            vm = xrelax.VirtualMachine(exe)["main"]
            np.testing.assert_allclose(vm(*model.inputs), expected, rtol=1e-5, atol=1e-6)
            runs[label] = (exe, vm)
        times = timeit(
            {label: functools.partial(vm, *model.inputs) for label, (_, vm) in runs.items()},
            max(args.repeat, 7),
        )
        for label, (exe, _) in runs.items():
            calls, launches = instruction_counts(exe)
            ms = times[label] * 1e3
            print(f"{model.name:<18} {label:<12} {calls:>6} {launches:>8} {ms:>8.3f} ms")


if __name__ == "__main__":
    main()
