"""The model zoo: stock models from torchvision, timm and torch.nn, built from tiny
configurations with random weights, for the zoo test and ``bench/frontends.py``.

Each :class:`ZooModel` builds its model, makes inputs for a size (0 is the example it
is exported with; 1 and 2 are the sizes checked against eager) and names its dynamic
dimensions. To add a model, add an entry to :data:`ZOO`. torch, torchvision, timm and
transformers are the ``models`` extra; :func:`import_torchvision` loads torchvision's
model definitions even where its C extension does not load.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.export import Dim


def import_torchvision() -> Any:
    """``torchvision``, also where its compiled operators (``nms``, ``roi_align``) do
    not load: a torchvision wheel built against another torch build than the installed
    one (PyPI's CUDA build beside the CPU torch) fails at import with
    ``operator torchvision::nms does not exist``. Then the two operators its import
    registers fake kernels for are declared here first; the models need none of them."""
    try:
        import torchvision
    except RuntimeError as err:
        if "torchvision::nms" not in str(err):
            raise
        for name in [m for m in sys.modules if m.split(".")[0] == "torchvision"]:
            del sys.modules[name]
        library = torch.library.Library("torchvision", "DEF")
        for op in ("nms", "qnms"):
            library.define(f"{op}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _KEEP_ALIVE.append(library)
        import torchvision
    return torchvision


_KEEP_ALIVE: list[Any] = []
"""The operator library declared for torchvision (it lives as long as the process)."""


@dataclass(frozen=True)
class ZooModel:
    """A stock model: how to build it, its inputs at each size, its dynamic dimensions."""

    name: str
    source: str
    """Where the model definition comes from: torchvision, timm, torch.nn, transformers."""
    build: Callable[[], nn.Module]
    inputs: Callable[[int], tuple[torch.Tensor, ...]]
    """The inputs at size 0 (the export example), 1 and 2 (the sizes compared)."""
    dynamic_shapes: Callable[[], Any]
    describe: Callable[[int], str]
    """The size, for tables: ``batch=3``."""

    def model(self) -> nn.Module:
        """The model in eval mode with its random weights made informative."""
        torch.manual_seed(0)
        return informative(self.build())

    def export(self, model: nn.Module) -> torch.export.ExportedProgram:
        """``torch.export.export`` of ``model`` with the dynamic dimensions, as a user
        would call it (no decompositions)."""
        return torch.export.export(model, self.inputs(0), dynamic_shapes=self.dynamic_shapes())


@functools.cache
def exported(case: ZooModel) -> tuple[nn.Module, torch.export.ExportedProgram]:
    """The model of ``case`` and its ExportedProgram (shared by the torch and ONNX paths)."""
    model = case.model()
    return model, case.export(model)


def onnx_model(case: ZooModel) -> Any:
    """The ONNX model ``torch.onnx.export`` (dynamo) makes of ``case``'s exported program."""
    _, program = exported(case)
    return to_onnx(program, case.inputs(0), case.dynamic_shapes())


def to_onnx(model: Any, inputs: tuple, dynamic_shapes: Any) -> Any:
    """``torch.onnx.export`` (dynamo) of a module or an exported program, quietly: its
    ONNX model."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported_onnx = torch.onnx.export(
            model, inputs, dynamo=True, dynamic_shapes=dynamic_shapes, verbose=False
        )
    return exported_onnx.model_proto


def informative(model: nn.Module, seed: int = 0) -> nn.Module:
    """``model`` in eval mode, with each constant-initialised floating-point parameter
    or buffer (normalisation weights and biases, zero biases, layer scales) perturbed
    and batch-norm statistics set, so that random weights still give outputs that
    depend on every operator (and no identity or zero hides a mistake)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            if not tensor.is_floating_point() or tensor.numel() == 0:
                continue
            noise = torch.rand(tensor.shape, generator=generator) - 0.5
            if name.endswith("running_var"):
                tensor.copy_(1.0 + noise)
            elif name.endswith("running_mean"):
                tensor.copy_(noise * 0.2)
            elif tensor.numel() > 1 and bool((tensor == tensor.flatten()[0]).all()):
                value = float(tensor.flatten()[0])
                scale = abs(value) if abs(value) >= 0.1 else 1.0
                tensor.copy_(value * (abs(value) >= 0.1) + noise * 0.4 * scale)
    return model.eval()


BATCHES = (2, 1, 3)
"""The batch of the export example, then the two batches compared against eager."""


def _images(channels: int, size: int) -> Callable[[int], tuple[torch.Tensor, ...]]:
    def inputs(index: int) -> tuple[torch.Tensor, ...]:
        generator = torch.Generator().manual_seed(index)
        return (torch.randn(BATCHES[index], channels, size, size, generator=generator),)

    return inputs


def _batch_only() -> Any:
    return ({0: Dim("batch", min=1, max=64)},)


def _batch(index: int) -> str:
    return f"batch={BATCHES[index]}"


def vision(name: str, source: str, build: Callable[[], nn.Module], size: int = 32) -> ZooModel:
    """An image classifier taking ``[batch, 3, size, size]``, batch dynamic."""
    return ZooModel(name, source, build, _images(3, size), _batch_only, _batch)


# ----------------------------------------------------------------------------- vision


def _torchvision(factory: str, **kwargs: Any) -> Callable[[], nn.Module]:
    return lambda: getattr(import_torchvision().models, factory)(num_classes=10, **kwargs)


def _mobilenet_v2() -> nn.Module:
    # The stock stem, three inverted-residual stages (one with a residual) and head.
    stages = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 1, 2]]
    models = import_torchvision().models
    return models.MobileNetV2(num_classes=10, width_mult=0.5, inverted_residual_setting=stages)


def _mobilenet_v3_small() -> nn.Module:
    # The first blocks of the stock configuration: squeeze-excitation, hardswish,
    # residuals and both kernel sizes.
    mobilenetv3 = import_torchvision().models.mobilenetv3
    settings, last = mobilenetv3._mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25)
    return mobilenetv3.MobileNetV3(settings[:5], last, num_classes=10)


def _efficientnet() -> nn.Module:
    efficientnet = import_torchvision().models.efficientnet
    settings, last = efficientnet._efficientnet_conf(
        "efficientnet_b0", width_mult=0.25, depth_mult=0.25
    )
    # One block of each of the first four stages (squeeze-excitation, SiLU, depthwise
    # 3x3 and 5x5, stochastic depth).
    return efficientnet.EfficientNet(settings[:4], 0.2, last_channel=last, num_classes=10)


def _densenet() -> nn.Module:
    densenet = import_torchvision().models.DenseNet
    return densenet(growth_rate=8, block_config=(2, 2), num_init_features=16, num_classes=10)


def _regnet() -> nn.Module:
    regnet = import_torchvision().models.regnet
    params = regnet.BlockParams.from_init_params(
        depth=4, w_0=8, w_a=8.0, w_m=2.0, group_width=8, se_ratio=0.25
    )
    return regnet.RegNet(params, num_classes=10, stem_width=8)


def _convnext() -> nn.Module:
    convnext = import_torchvision().models.convnext
    stages = [convnext.CNBlockConfig(16, 32, 1), convnext.CNBlockConfig(32, None, 1)]
    return convnext.ConvNeXt(stages, stochastic_depth_prob=0.0, num_classes=10)


def _swin() -> nn.Module:
    models = import_torchvision().models
    return models.SwinTransformer(
        patch_size=[2, 2],
        embed_dim=16,
        depths=[2, 2],
        num_heads=[2, 2],
        window_size=[4, 4],
        num_classes=10,
    )


def _vit() -> nn.Module:
    models = import_torchvision().models
    return models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
        num_classes=10,
    )  # fmt: skip


def _timm(name: str, **kwargs: Any) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        import_torchvision()
        import timm

        return timm.create_model(name, pretrained=False, num_classes=10, **kwargs)

    return build


# ----------------------------------------------------------------------------- recurrent


class SequenceClassifier(nn.Module):
    """An LSTM or GRU (two layers, bidirectional, batch first) and a linear head on the
    last step's output, as a sequence classifier is written."""

    def __init__(self, cell: str) -> None:
        super().__init__()
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn(8, 12, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(24, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.rnn(x)
        return self.head(y[:, -1])


class SequenceTagger(nn.Module):
    """A one-layer LSTM or GRU (time first) with a given initial state, returning every
    step's output and the final state."""

    def __init__(self, cell: str) -> None:
        super().__init__()
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn(6, 12)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if isinstance(self.rnn, nn.LSTM):
            y, (h_n, c_n) = self.rnn(x, (h, torch.tanh(h)))
            return y, h_n, c_n
        y, h_n = self.rnn(x, h)
        return y, h_n


_STEPS = 3
"""torch.export specializes the sequence length of ``aten.lstm``/``aten.gru``: static."""


def _sequences(index: int) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(index)
    return (torch.randn(BATCHES[index], _STEPS, 8, generator=generator),)


def _tagged(index: int) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(index)
    x = torch.randn(_STEPS, BATCHES[index], 6, generator=generator)
    return x, torch.randn(1, BATCHES[index], 12, generator=generator)


def _tagged_batch() -> Any:
    batch = Dim("batch", min=1, max=64)
    return ({1: batch}, {1: batch})


def recurrent(name: str, cell: str, tagger: bool = False) -> ZooModel:
    """An LSTM or GRU model with a dynamic batch and ``_STEPS`` time steps."""
    if tagger:
        return ZooModel(
            name, "torch.nn", lambda: SequenceTagger(cell), _tagged, _tagged_batch, _batch
        )
    return ZooModel(
        name, "torch.nn", lambda: SequenceClassifier(cell), _sequences, _batch_only, _batch
    )


ZOO: dict[str, ZooModel] = {
    model.name: model
    for model in [
        vision("resnet18", "torchvision", _torchvision("resnet18")),
        vision("mobilenet_v2", "torchvision", _mobilenet_v2),
        vision("mobilenet_v3_small", "torchvision", _mobilenet_v3_small),
        vision("efficientnet_b0", "torchvision", _efficientnet),
        vision("squeezenet1_1", "torchvision", _torchvision("squeezenet1_1"), size=48),
        vision("densenet", "torchvision", _densenet),
        vision("regnet", "torchvision", _regnet),
        vision("convnext", "torchvision", _convnext),
        vision("swin", "torchvision", _swin),
        vision("vit", "torchvision", _vit),
        vision("resnet18d", "timm", _timm("resnet18d")),
        vision("convnext_atto", "timm", _timm("convnext_atto", depths=(1, 1, 1, 1))),
        vision(
            "vit_tiny", "timm", _timm("vit_tiny_patch16_224", img_size=32, patch_size=8, depth=2)
        ),
        recurrent("lstm_classifier", "lstm"),
        recurrent("gru_classifier", "gru"),
        recurrent("lstm_tagger", "lstm", tagger=True),
        recurrent("gru_tagger", "gru", tagger=True),
    ]
}


def as_numpy(values: Any) -> list[np.ndarray]:
    """A model's output (a tensor or a tuple of them) as numpy arrays."""
    if isinstance(values, torch.Tensor):
        return [values.detach().numpy()]
    return [v.detach().numpy() for v in values]
