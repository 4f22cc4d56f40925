"""xrelax against onnxruntime on the same ONNX files, the CPU runtime a user would pick
instead (issue "Performance, round 3").

    python bench/against_onnxruntime.py [--threads 1] [--set real|zoo|all] [--repeat 5]
                                        [--kernels numpy|native] [MODEL ...] [--json]

Each model is exported once with ``torch.onnx.export`` (dynamo, dynamic batch or
sequence), then imported by xrelax (``from_onnx``, ``xrelax.compile``, the VM) and
loaded by onnxruntime (all graph optimizations, ``--threads`` intra-op threads, one
inter-op thread). xrelax compiles with the weights bound (``xrelax.compile(module,
params=...)``), as onnxruntime has its initializers; ``--no-bind-params`` passes them
at each call instead. Both are checked against each other, then timed in alternating
blocks (three rounds of a warm-up call and ``--repeat`` timed calls, each block after a
50 ms pause in which the other runtime's spinning threads go idle; medians). The
thread count is set for numpy's BLAS and torch before they are imported, so one
process measures one thread count; ``python -m bench`` runs it for 1 and 2.

Sets: ``real`` is the real-size models of the targets (ResNet-50, MobileNetV3-large
and EfficientNet-B0 at 224x224 batch 2, a BERT-base encoder at sequence 128, a decoding
step of GPT-2 small over a 128-token cache); ``zoo`` is the test zoo at its size 1
(``test/python/frontend/model_zoo.py``: 64x64 images, small transformer configs).
Targets: geometric mean of xrelax / onnxruntime <= 1.0x on ``real``, <= 1.5x on
``zoo``, no model above 2x. Needs the ``torch``, ``onnx`` and ``models`` extras.
"""

from __future__ import annotations

import os
import sys


def _threads(argv: list[str]) -> int:
    """``--threads N`` from the command line, read before numpy and torch start."""
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return int(argv[i + 1])
        if arg.startswith("--threads="):
            return int(arg.partition("=")[2])
    return 1


THREADS = _threads(sys.argv) if __name__ == "__main__" else 1
if __name__ == "__main__":  # python -m bench imports this module only for summary()
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_variable] = str(THREADS)

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import asdict, dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

try:
    import onnxruntime
    import torch
except ModuleNotFoundError:
    sys.exit("bench/against_onnxruntime.py needs pip install -e '.[torch,onnx,models]'")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test" / "python" / "frontend"))

from model_zoo import ZOO, as_numpy, import_torchvision, informative  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402

if __name__ == "__main__":
    torch.set_num_threads(THREADS)

TARGETS = {"real": 1.0, "zoo": 1.5}
"""Geometric-mean targets of xrelax / onnxruntime per set."""
WORST = 2.0
"""No model above this ratio."""


@dataclass
class Case:
    """A model to export: the module, its example inputs and dynamic shapes."""

    name: str
    build: Callable[[], torch.nn.Module]
    inputs: Callable[[], tuple[Any, ...]]
    """The inputs it is timed on."""
    dynamic_shapes: Callable[[], Any]
    example: Callable[[], tuple[Any, ...]] | None = None
    """The inputs it is exported with (default: the timed ones)."""


@dataclass
class Result:
    """One model's row."""

    model: str
    set: str
    threads: int
    ok: str
    ort_ms: float = math.nan
    ours_ms: float = math.nan
    compile_s: float = math.nan

    @property
    def ratio(self) -> float:
        return self.ours_ms / self.ort_ms


def _vision(name: str) -> Case:
    def build() -> torch.nn.Module:
        torch.manual_seed(0)
        return informative(getattr(import_torchvision().models, name)(weights=None))

    batch = torch.export.Dim("batch", min=1, max=16)
    return Case(
        f"{name} 224x224 batch 2",
        build,
        lambda: (torch.randn(2, 3, 224, 224),),
        lambda: ({0: batch},),
    )


def _bert_base() -> Case:
    import transformers

    def build() -> torch.nn.Module:
        torch.manual_seed(0)
        model = transformers.BertModel(transformers.BertConfig(), add_pooling_layer=False)
        return _LastHidden(informative(model))

    sequence = torch.export.Dim("sequence", min=2, max=512)
    return Case(
        "BERT-base encoder, sequence 128",
        build,
        lambda: (torch.randint(0, 30000, (1, 128)),),
        lambda: ({1: sequence},),
    )


class _LastHidden(torch.nn.Module):
    """An encoder's last hidden state alone (a tensor, not a model output object)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids).last_hidden_state


def _gpt2_step() -> Case:
    import transformers
    from text_models import DecodeStep

    config = transformers.GPT2Config()

    def build() -> torch.nn.Module:
        torch.manual_seed(0)
        return DecodeStep(informative(transformers.GPT2LMHeadModel(config)))

    def inputs() -> tuple[Any, ...]:
        head = config.n_embd // config.n_head
        cache = tuple(torch.randn(1, config.n_head, 128, head) for _ in range(2 * config.n_layer))
        return (torch.ones(1, 1, dtype=torch.long), torch.ones(1, 129, dtype=torch.long), cache)

    def shapes() -> Any:
        past = torch.export.Dim("past", min=1, max=1000)
        layers = 2 * config.n_layer
        return ({}, {1: past + 1}, tuple({2: past} for _ in range(layers)))

    return Case("GPT-2 small decoding step, 128-token cache", build, inputs, shapes)


def real_cases() -> list[Case]:
    return [
        _vision("resnet50"),
        _vision("mobilenet_v3_large"),
        _vision("efficientnet_b0"),
        _bert_base(),
        _gpt2_step(),
    ]


def zoo_cases() -> list[Case]:
    return [
        Case(
            f"{m.name} {m.describe(1)}",
            m.model,
            lambda m=m: m.inputs(1),
            m.dynamic_shapes,
            lambda m=m: m.inputs(0),
        )
        for m in ZOO.values()
    ]


def _flat(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _flat(item)]
    return [value]


def _timed(calls: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(3):
        for name, call in calls.items():
            time.sleep(0.05)  # the other runtime's spinning worker threads go idle
            call()
            for _ in range(repeat):
                start = time.perf_counter()
                call()
                samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1e3 for name, values in samples.items()}


def measure(
    case: Case, set_name: str, repeat: int, bind: bool, kernels: str | None = None
) -> Result:
    """Export, import, check and time one model (``bind``: its weights bound at compile
    time, as onnxruntime has its initializers; ``kernels``: the VM's kernel backend,
    ``numpy`` or ``native``, by default the VM's)."""
    result = Result(case.name, set_name, THREADS, "yes")
    try:
        model = case.build().eval()
        example = (case.example or case.inputs)()
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            program = torch.export.export(model, example, dynamic_shapes=case.dynamic_shapes())
            proto = torch.onnx.export(program, example, dynamo=True, verbose=False).model_proto
    except Exception as err:  # noqa: BLE001 - a model torch cannot export is reported
        result.ok = f"export failed: {type(err).__name__}"
        return result
    inputs = as_numpy(_flat(case.inputs()))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(proto.SerializeToString(), options)
    feeds = {i.name: x for i, x in zip(session.get_inputs(), inputs, strict=True)}
    try:
        start = time.perf_counter()
        imported = frontend.from_onnx(proto)
        bound = imported.params if bind else None
        exe = xrelax.compile(imported.module, params=bound, kernels=kernels)
        main = xrelax.VirtualMachine(exe, kernels=kernels)["main"]
        result.compile_s = time.perf_counter() - start
    except Exception as err:  # noqa: BLE001 - refusals are rows of the table
        result.ok = f"refused: {str(err).splitlines()[0][:60]}"
        return result
    params = {} if bind else imported.params
    expected = session.run(None, feeds)
    got = _flat(main(*inputs, **params))
    for want, have in zip(expected, got, strict=True):
        if not np.allclose(np.asarray(have), want, rtol=1e-3, atol=1e-3):
            result.ok = "wrong result"
            return result
    times = _timed(
        {"ort": lambda: session.run(None, feeds), "ours": lambda: main(*inputs, **params)},
        repeat,
    )
    result.ort_ms, result.ours_ms = times["ort"], times["ours"]
    return result


def summary(results: list[Result]) -> list[tuple[str, str, str, bool]]:
    """Per set: (name, value, target, met) of the geometric mean and the worst model."""
    lines = []
    for set_name, target in TARGETS.items():
        rows = [r for r in results if r.set == set_name]
        if not rows:
            continue
        measured = [r for r in rows if r.ok == "yes"]
        threads = rows[0].threads
        if measured:
            geomean = math.exp(statistics.fmean(math.log(r.ratio) for r in measured))
            worst = max(measured, key=lambda r: r.ratio)
            lines.append((
                f"{set_name}, {threads} thread(s): geomean xrelax / onnxruntime",
                f"{geomean:.2f}x over {len(measured)} of {len(rows)} models",
                f"<= {target:.1f}x",
                geomean <= target and len(measured) == len(rows),
            ))  # fmt: skip
            lines.append((
                f"{set_name}, {threads} thread(s): worst model",
                f"{worst.ratio:.2f}x ({worst.model})",
                f"<= {WORST:.1f}x",
                worst.ratio <= WORST,
            ))  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="names (substrings) of the models to run")
    parser.add_argument("--threads", type=int, default=1, help="threads of both runtimes")
    parser.add_argument("--set", choices=("real", "zoo", "all"), default="all")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--no-bind-params",
        action="store_true",
        help="pass the weights at each call instead of binding them at compile time",
    )
    parser.add_argument(
        "--kernels",
        choices=("numpy", "native"),
        default=None,
        help="the VM's kernel backend (default: the VM's, XRELAX_KERNELS or numpy)",
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON last")
    args = parser.parse_args(argv)
    sets = {"real": real_cases, "zoo": zoo_cases}
    chosen = sets if args.set == "all" else {args.set: sets[args.set]}
    results = []
    for set_name, cases in chosen.items():
        for case in cases():
            if args.models and not any(m in case.name for m in args.models):
                continue
            result = measure(case, set_name, args.repeat, not args.no_bind_params, args.kernels)
            results.append(result)
            ratio = f"{result.ratio:.2f}x" if result.ok == "yes" else result.ok
            print(
                f"{result.model:<48} {result.ort_ms:9.3f} ms  {result.ours_ms:9.3f} ms  {ratio}"
                f"  (compile {result.compile_s:.1f} s)",
                file=sys.stderr,
                flush=True,
            )
    for name, value, target, met in summary(results):
        print(f"{name:<58} {value:<40} {target:<8} {'met' if met else 'NOT MET'}")
    if args.json:
        print(json.dumps([asdict(r) for r in results]))


if __name__ == "__main__":
    main()
