"""The models of the importer tests (torch is imported by the caller's importorskip)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.export import Dim


class MLP(nn.Module):
    """784-128-10 with ReLU and softmax."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=-1)


class CNN(nn.Module):
    """Two conv / batch norm / ReLU / max pool stages and a linear classifier."""

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


@dataclass
class Case:
    """A model in eval mode with random weights, example inputs, the dynamic shapes to
    export with, and input shapes for two values of each symbolic dimension."""

    name: str
    model: nn.Module
    example: tuple[torch.Tensor, ...]
    dynamic_shapes: dict[str, Any]
    sizes: list[list[tuple[int, ...]]]

    def export(self, decompose: bool = False) -> torch.export.ExportedProgram:
        program = torch.export.export(self.model, self.example, dynamic_shapes=self.dynamic_shapes)
        return program.run_decompositions() if decompose else program

    def inputs(self, index: int) -> list[np.ndarray]:
        rng = np.random.default_rng(index)
        return [rng.standard_normal(s).astype(np.float32) for s in self.sizes[index]]

    def eager(self, arrays: list[np.ndarray]) -> np.ndarray:
        with torch.no_grad():
            return self.model(*(torch.from_numpy(a) for a in arrays)).numpy()


def randomized(model: nn.Module, seed: int = 0) -> nn.Module:
    """``model`` in eval mode with every parameter and running statistic random, so that
    equal-looking weights (ones, zeros) hide no mistakes."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            if not tensor.is_floating_point():
                continue
            noise = torch.rand(tensor.shape, generator=generator)
            tensor.copy_(noise + 0.5 if name.endswith("running_var") else (noise - 0.5) * 0.4)
    return model.eval()


BATCH = Dim("batch", min=1, max=1024)
SEQ = Dim("seq", min=2, max=512)

CASES: dict[str, Callable[[], Case]] = {
    "mlp": lambda: Case(
        "mlp",
        randomized(MLP()),
        (torch.randn(4, 784),),
        {"x": {0: BATCH}},
        [[(3, 784)], [(8, 784)]],
    ),
    "cnn": lambda: Case(
        "cnn",
        randomized(CNN()),
        (torch.randn(4, 1, 28, 28),),
        {"x": {0: BATCH}},
        [[(2, 1, 28, 28)], [(5, 1, 28, 28)]],
    ),
    "transformer": lambda: Case(
        "transformer",
        randomized(nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)),
        (torch.randn(2, 5, 64),),
        {"src": {0: BATCH, 1: SEQ}},
        [[(2, 5, 64)], [(3, 11, 64)]],
    ),
}


def compiled_main(module: Any) -> Callable[..., Any]:
    """``main`` of ``module`` compiled for the VM."""
    import xrelax

    return xrelax.VirtualMachine(xrelax.compile(module))["main"]
