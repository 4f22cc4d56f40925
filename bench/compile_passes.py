"""Where compile time goes: seconds per pass of the default pipeline (``relax-to-vm``).

    python bench/compile_passes.py [--densenet] [--repeat 3] [--json]

For the chain and wide generated modules of 1,000 operators (``python -m bench``'s
compile-time rows) and, with ``--densenet``, torchvision's densenet121 imported from
torch.export (64x64 images, dynamic batch, as the bench's densenet121 row), the
pipeline runs on a fresh copy of the module with each pass timed (the instrumentation
of ``relax-opt --time-passes``), then the one verification ``xrelax.compile`` makes at
the end and the assembly of the executable. Each figure is the median of
``--repeat`` runs. ``--json`` prints the table as JSON, to compare two checkouts
(run it with each on ``PYTHONPATH`` in turn).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import xrelax
from bench.run import generated_module
from xrelax.dialects.ir.diagnostics import verify_module
from xrelax.dialects.ir.gc_pause import paused_gc
from xrelax.transforms.pass_manager import Instrumentation, parse_passes, run_passes


def densenet121() -> object:
    """The densenet121 module the bench compiles (needs torch and torchvision)."""
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test/python/frontend"))
    from model_zoo import import_torchvision

    from xrelax import frontend

    model = import_torchvision().models.densenet121(weights=None, num_classes=10).eval()
    batch = torch.export.Dim("batch", min=1, max=64)
    example = (torch.randn(2, 3, 64, 64),)
    program = torch.export.export(model, example, dynamic_shapes=({0: batch},))
    return frontend.from_exported_program(program).module


def profile(module: object, repeat: int) -> dict[str, float]:
    """Median seconds of each pass (a pass run twice is summed), of the final
    verification and of assembly, over ``repeat`` compilations of ``module``."""
    from xrelax.backends.vm.assembler import assemble

    samples: dict[str, list[float]] = {}
    for _ in range(repeat):
        copy = module.clone()  # type: ignore[attr-defined]
        gc.collect()
        instrumentation = Instrumentation(timings=[])
        passes = parse_passes("relax-to-vm")
        totals: dict[str, float] = {}
        with paused_gc():
            run_passes(xrelax.context(), copy, passes, instrumentation, verify=False)
            for name, seconds in instrumentation.timings or []:
                totals[name] = totals.get(name, 0.0) + seconds
            totals["(verify once)"] = _seconds(verify_module, copy)
            totals["(assemble)"] = _seconds(assemble, copy)
        for name, seconds in totals.items():
            samples.setdefault(name, []).append(seconds)
    table = {name: statistics.median(values) for name, values in samples.items()}
    table["total"] = sum(table.values())
    return table


def _seconds(call: Callable[[object], object], argument: object) -> float:
    start = time.perf_counter()
    call(argument)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--densenet", action="store_true", help="add densenet121")
    parser.add_argument("--repeat", type=int, default=3, help="compilations per module")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    cases = {
        "chain 1000": lambda: xrelax.parse(generated_module(1000, "chain")),
        "wide 1000": lambda: xrelax.parse(generated_module(1000, "wide")),
    }
    if args.densenet:
        cases["densenet121"] = densenet121
    xrelax.compile(xrelax.parse(generated_module(10, "chain")))  # imports, caches
    tables = {name: profile(build(), args.repeat) for name, build in cases.items()}
    if args.json:
        print(json.dumps(tables))
        return
    names = list(dict.fromkeys(name for table in tables.values() for name in table))
    print(f"{'seconds':<24}" + "".join(f"{case:>14}" for case in tables))
    for name in names:
        cells = "".join(f"{table.get(name, 0.0):>14.3f}" for table in tables.values())
        print(f"{name:<24}{cells}")


if __name__ == "__main__":
    main()
