"""The second model zoo: stock models of the families the first zoo (``model_zoo.py``)
lacks — segmentation heads and upsampling decoders, group-norm and normalizer-free
networks, speech encoders, multimodal encoders, newer vision transformers and hybrids,
more decoder-only language models — from torchvision, timm and transformers, built from
tiny configurations with random weights (no downloads).

Each entry is a :class:`~model_zoo.ZooModel`: size 0 is the export example, sizes 1 and
2 are compared. Images and audio have a dynamic batch; text a dynamic batch and
sequence length with a left-padded mask (``text_models.text_inputs``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import torch
from model_zoo import ZooModel, _batch, _batch_only, _images, import_torchvision
from text_models import SIZES, VOCAB, text_dynamic_shapes, text_inputs
from torch import nn

import_torchvision()
import timm  # noqa: E402
import transformers  # noqa: E402

_TOKENS = {"vocab_size": VOCAB, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}


# ----------------------------------------------------------------------------- wrappers


class Output(nn.Module):
    """One tensor of a model's output: ``model(x)[key]`` (a ``ModelOutput`` field or an
    ``OrderedDict`` key)."""

    def __init__(self, model: nn.Module, key: str) -> None:
        super().__init__()
        self.model = model
        self.key = key

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)[self.key]


class TextOutput(nn.Module):
    """``model(input_ids=..., attention_mask=...)[key]``."""

    def __init__(self, model: nn.Module, key: str = "last_hidden_state") -> None:
        super().__init__()
        self.model = model
        self.key = key

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask)[self.key]


class ImageText(nn.Module):
    """A contrastive image-text model's image-to-text logits."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, pixel_values: torch.Tensor
    ) -> torch.Tensor:
        out = self.model(
            input_ids=input_ids, attention_mask=attention_mask, pixel_values=pixel_values
        )
        return out.logits_per_image


# ----------------------------------------------------------------------------- inputs


def _audio(samples: int) -> Callable[[int], tuple[torch.Tensor, ...]]:
    def inputs(index: int) -> tuple[torch.Tensor, ...]:
        generator = torch.Generator().manual_seed(index)
        return (torch.randn(SIZES[index][0], samples, generator=generator),)

    return inputs


def _spectrogram(index: int) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(index)
    return (torch.randn(SIZES[index][0], 32, 16, generator=generator),)


def _text_sizes(index: int) -> str:
    return "batch={}, seq={}".format(*SIZES[index])


def _image_text(index: int) -> tuple[torch.Tensor, ...]:
    ids, mask = text_inputs(index)
    generator = torch.Generator().manual_seed(index + 10)
    return ids, mask, torch.randn(SIZES[index][0], 3, 32, 32, generator=generator)


def _image_text_shapes() -> Any:
    text = text_dynamic_shapes()
    return (*text, {0: text[0][0]})


# ----------------------------------------------------------------------------- builders


def _segmentation(head: str) -> Callable[[], nn.Module]:
    """A torchvision segmentation model (``FCN`` or ``DeepLabV3``) on the first two
    stages of a ResNet-18 (stride 8), upsampled to the input size; its ``out`` map."""

    def build() -> nn.Module:
        tv = import_torchvision()
        segmentation = tv.models.segmentation
        backbone = tv.models._utils.IntermediateLayerGetter(
            tv.models.resnet18(), return_layers={"layer2": "out"}
        )
        if head == "fcn":
            model = segmentation.fcn.FCN(backbone, segmentation.fcn.FCNHead(128, 3))
        else:
            model = segmentation.deeplabv3.DeepLabV3(
                backbone, segmentation.deeplabv3.DeepLabHead(128, 3)
            )
        return Output(model, "out")

    return build


def _timm(name: str, **kwargs: Any) -> Callable[[], nn.Module]:
    return lambda: timm.create_model(name, pretrained=False, num_classes=10, **kwargs)


def _bit() -> nn.Module:
    """BiT's ResNetV2 (weight-standardized convolutions, group norm), one block a stage."""
    return timm.models.resnetv2.ResNetV2(
        layers=[1, 1, 1, 1], channels=(32, 64, 128, 256), stem_chs=32, num_classes=10,
        stem_type="fixed",
        conv_layer=partial(timm.layers.StdConv2d, eps=1e-8),
        norm_layer=partial(timm.layers.GroupNormAct, num_groups=8),
    )  # fmt: skip


def _hf(model: str, config: str, key: str | int, **settings: Any) -> Callable[[], nn.Module]:
    """``Output(transformers.<model>(transformers.<config>(**settings)), key)``."""

    def build() -> nn.Module:
        built = getattr(transformers, model)(getattr(transformers, config)(**settings))
        return Output(built, key)

    return build


def _hf_text(model: str, config: str, **settings: Any) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        built = getattr(transformers, model)(getattr(transformers, config)(**settings))
        return TextOutput(built)

    return build


def _hf_image_text(model: str, config: str, text: dict, vision: dict) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        configs = getattr(transformers, config)(text_config=text, vision_config=vision)
        return ImageText(getattr(transformers, model)(configs))

    return build


_ENCODER = {
    "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
    "intermediate_size": 64,
}  # fmt: skip
_DECODER = {**_ENCODER, "max_position_embeddings": 64, **_TOKENS}
_SPEECH = {
    **_ENCODER, "conv_dim": (16, 16), "conv_kernel": (10, 3), "conv_stride": (5, 2),
    "num_conv_pos_embeddings": 16, "num_conv_pos_embedding_groups": 2,
}  # fmt: skip
_VISION = {**_ENCODER, "image_size": 32, "patch_size": 8}


def _vision(name: str, source: str, build: Callable[[], nn.Module], size: int = 32) -> ZooModel:
    return ZooModel(name, source, build, _images(3, size), _batch_only, _batch)


def _text(name: str, build: Callable[[], nn.Module]) -> ZooModel:
    return ZooModel(name, "transformers", build, text_inputs, text_dynamic_shapes, _text_sizes)


def _speech(name: str, build: Callable[[], nn.Module]) -> ZooModel:
    return ZooModel(name, "transformers", build, _audio(400), _batch_only, _batch)


ZOO2: dict[str, ZooModel] = {
    model.name: model
    for model in [
        # segmentation heads and upsampling decoders
        _vision("fcn_resnet18", "torchvision", _segmentation("fcn")),
        _vision("deeplabv3_resnet18", "torchvision", _segmentation("deeplabv3")),
        _vision(
            "segformer",
            "transformers",
            _hf(
                "SegformerForSemanticSegmentation",
                "SegformerConfig",
                "logits",
                num_encoder_blocks=2,
                depths=[1, 1],
                sr_ratios=[2, 1],
                hidden_sizes=[16, 32],
                patch_sizes=[7, 3],
                strides=[4, 2],
                num_attention_heads=[1, 2],
                mlp_ratios=[2, 2],
                decoder_hidden_size=32,
                num_labels=3,
            ),
        ),  # fmt: skip
        # group-norm and normalizer-free networks
        _vision("efficientnet_gn", "timm", _timm("test_efficientnet_gn")),
        _vision("resnetv2_bit", "timm", _bit),
        # speech encoders
        _speech(
            "wav2vec2", _hf("Wav2Vec2Model", "Wav2Vec2Config", "last_hidden_state", **_SPEECH)
        ),  # fmt: skip
        _speech(
            "hubert",
            _hf(
                "HubertModel",
                "HubertConfig",
                "last_hidden_state",
                feat_extract_norm="layer",
                **_SPEECH,
            ),
        ),  # fmt: skip
        ZooModel(
            "audio_spectrogram_transformer",
            "transformers",
            _hf(
                "ASTModel",
                "ASTConfig",
                "last_hidden_state",
                num_mel_bins=16,
                max_length=32,
                patch_size=8,
                frequency_stride=4,
                time_stride=4,
                **_ENCODER,
            ),
            _spectrogram,
            _batch_only,
            _batch,
        ),  # fmt: skip
        # multimodal encoders
        ZooModel(
            "clip",
            "transformers",
            _hf_image_text(
                "CLIPModel",
                "CLIPConfig",
                {**_ENCODER, "max_position_embeddings": 64, **_TOKENS},
                _VISION,
            ),
            _image_text,
            _image_text_shapes,
            _text_sizes,
        ),  # fmt: skip
        ZooModel(
            "siglip",
            "transformers",
            _hf_image_text(
                "SiglipModel",
                "SiglipConfig",
                {**_ENCODER, "max_position_embeddings": 64, **_TOKENS},
                _VISION,
            ),
            _image_text,
            _image_text_shapes,
            _text_sizes,
        ),  # fmt: skip
        # newer vision transformers and hybrids
        _vision("vit_relpos", "timm", _timm("test_vit_relpos", img_size=32, patch_size=8, depth=2)),
        _vision("coatnet", "timm", _timm("test_coatnet", img_size=32)),
        _vision("mambaout", "timm", _timm("test_mambaout")),
        _vision(
            "dinov2", "transformers", _hf("Dinov2Model", "Dinov2Config", "pooler_output", **_VISION)
        ),  # fmt: skip
        _vision(
            "deit_distilled",
            "transformers",
            _hf("DeiTForImageClassificationWithTeacher", "DeiTConfig", "logits", **_VISION),
        ),  # fmt: skip
        _vision(
            "convnextv2",
            "transformers",
            _hf(
                "ConvNextV2Model",
                "ConvNextV2Config",
                "pooler_output",
                num_stages=2,
                hidden_sizes=[16, 32],
                depths=[1, 1],
            ),
        ),  # fmt: skip
        _vision(
            "swinv2",
            "transformers",
            _hf(
                "Swinv2Model",
                "Swinv2Config",
                "pooler_output",
                image_size=32,
                patch_size=2,
                embed_dim=16,
                depths=[1, 1],
                num_heads=[2, 2],
                window_size=4,
            ),
        ),  # fmt: skip
        # decoder-only language models
        _text(
            "mistral",
            _hf_text(
                "MistralModel",
                "MistralConfig",
                num_key_value_heads=1,
                sliding_window=64,
                **_DECODER,
            ),
        ),  # fmt: skip
        _text("qwen2", _hf_text("Qwen2Model", "Qwen2Config", num_key_value_heads=1, **_DECODER)),
        _text(
            "gemma",
            _hf_text("GemmaModel", "GemmaConfig", num_key_value_heads=1, head_dim=16, **_DECODER),
        ),  # fmt: skip
        _text("phi", _hf_text("PhiModel", "PhiConfig", **_DECODER)),
        _text("gpt_neox", _hf_text("GPTNeoXModel", "GPTNeoXConfig", **_DECODER)),
        _text(
            "opt",
            _hf_text(
                "OPTModel",
                "OPTConfig",
                ffn_dim=64,
                word_embed_proj_dim=32,
                **{k: v for k, v in _DECODER.items() if k != "intermediate_size"},
            ),
        ),
        _text("bloom", _hf_text("BloomModel", "BloomConfig", n_layer=1, n_head=2, **_DECODER)),
        _text(
            "falcon",
            _hf_text(
                "FalconModel",
                "FalconConfig",
                new_decoder_architecture=False,
                multi_query=True,
                **_DECODER,
            ),
        ),  # fmt: skip
    ]
}
