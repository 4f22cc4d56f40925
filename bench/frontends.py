"""Imported PyTorch models: our VM against torch eager on CPU, in one run.

    python bench/frontends.py [--repeat 9]

Each model (the MLP, the small CNN with batch norm, ``nn.TransformerEncoderLayer``) is
exported with ``torch.export`` and symbolic batch (and sequence) dimensions, imported
with ``xrelax.frontend``, compiled once, and timed at two sizes. The two runtimes
alternate in blocks (three rounds of a warm-up call and ``--repeat`` timed calls each),
and the table shows the median of each runtime's timed calls. Not call by call: after
each call torch's OpenMP workers keep spinning for a while, and a numpy BLAS call made
meanwhile fights them for the cores (an MLP at batch 256 measured 7.4 ms instead of
0.5 ms that way). Needs the ``torch`` extra.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import torch
    from torch import nn
    from torch.export import Dim
except ModuleNotFoundError:
    sys.exit("bench/frontends.py needs torch: pip install -e '.[torch]'")

import xrelax
from xrelax.frontend import from_exported_program


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=-1)


class CNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = self.pool(torch.relu(self.bn2(self.conv2(x))))
        return self.fc(torch.flatten(x, 1))


BATCH, SEQ = Dim("batch", min=1, max=4096), Dim("seq", min=2, max=1024)

MODELS: list[tuple[str, Callable[[], nn.Module], Any, list[tuple[str, tuple[int, ...]]]]] = [
    ("mlp", MLP, {"x": {0: BATCH}}, [("batch=1", (1, 784)), ("batch=256", (256, 784))]),
    ("cnn", CNN, {"x": {0: BATCH}}, [("batch=1", (1, 1, 28, 28)), ("batch=32", (32, 1, 28, 28))]),
    (
        "transformer",
        lambda: nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True),
        {"src": {0: BATCH, 1: SEQ}},
        [("batch=1 seq=16", (1, 16, 256)), ("batch=8 seq=128", (8, 128, 256))],
    ),
]


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def _timed_block(call: Callable[[], object], repeat: int) -> list[float]:
    """Seconds of each of ``repeat`` calls, after one untimed warm-up call."""
    call()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def main(argv: list[str] | None = None) -> int:
    """Print the table; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9, help="calls per runtime (default 9)")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads; median of 3 x {args.repeat}"
    )
    print(f"{'model':<12} {'size':<16} {'torch eager ms':>14} {'xrelax VM ms':>13} {'ratio':>7}")
    for name, make, dynamic_shapes, sizes in MODELS:
        model = make().eval()
        example = tuple(torch.randn(*sizes[-1][1]) for _ in dynamic_shapes)
        program = torch.export.export(model, example, dynamic_shapes=dynamic_shapes)
        imported = from_exported_program(program)
        main_fn = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
        for label, shape in sizes:
            x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
            tx = torch.from_numpy(x)
            with torch.no_grad():
                expected = model(tx).numpy()
                np.testing.assert_allclose(
                    main_fn(x, **imported.params), expected, rtol=1e-3, atol=1e-4
                )
                eager, vm = [], []
                for _ in range(3):
                    eager += _timed_block(functools.partial(model, tx), args.repeat)
                    vm += _timed_block(
                        functools.partial(main_fn, x, **imported.params), args.repeat
                    )
            ours, theirs = _median_ms(vm), _median_ms(eager)
            print(f"{name:<12} {label:<16} {theirs:>14.3f} {ours:>13.3f} {ours / theirs:>6.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
