"""Tiny Hugging Face ``transformers`` models with random weights, for the text-model
tests: GPT-2, BERT, DistilBERT, Llama, T5 (encoder), BART, ViT and Whisper, each
wrapped to return its last hidden states.

The text models take ``input_ids`` and an ``attention_mask`` with a dynamic batch and a
dynamic sequence length; the mask left-pads the first row at the compared sizes, so
the mask-building code (arange, comparisons, advanced indexing, ``&``) matters. ViT
and Whisper's encoder-decoder take a dynamic batch. Size 0 is the example a model is
exported with; sizes 1 and 2 are compared against eager.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from model_zoo import import_torchvision
from torch import nn
from torch.export import Dim

# transformers imports torchvision when it is installed: load it the robust way first.
import_torchvision()
import transformers  # noqa: E402

SIZES = {0: (2, 7), 1: (1, 5), 2: (3, 11)}
"""(batch, sequence length) at each size."""


@dataclass(frozen=True)
class TextModel:
    """A stock model: how to build it, its inputs at each size, its dynamic dimensions."""

    name: str
    build: Callable[[], nn.Module]
    inputs: Callable[[int], tuple[torch.Tensor, ...]]
    dynamic_shapes: Callable[[], Any]
    source: str = "transformers"

    def model(self) -> nn.Module:
        """The model in eval mode with its random weights made informative."""
        torch.manual_seed(0)
        return informative(self.build())

    def export(self, model: nn.Module) -> torch.export.ExportedProgram:
        """``torch.export.export`` with the dynamic dimensions, as a user calls it."""
        return torch.export.export(model, self.inputs(0), dynamic_shapes=self.dynamic_shapes())


def informative(model: nn.Module, seed: int = 0) -> nn.Module:
    """``model`` in eval mode with each constant-initialised floating-point parameter
    (normalisation weights, zero biases) perturbed, so that no identity or zero hides
    a mistake."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            flat = parameter.detach().reshape(-1)
            if parameter.is_floating_point() and flat.numel() and bool((flat == flat[0]).all()):
                parameter.add_(0.2 * torch.randn(parameter.shape, generator=generator))
    return model.eval()


class LastHiddenState(nn.Module):
    """``model(**inputs).last_hidden_state`` for a text model (an encoder-decoder gets
    the input ids as decoder ids too)."""

    def __init__(self, model: nn.Module, decoder_ids: bool = False) -> None:
        super().__init__()
        self.model = model
        self.decoder_ids = decoder_ids

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        extra = {"decoder_input_ids": input_ids} if self.decoder_ids else {}
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, **extra)
        return out.last_hidden_state


class ImageHiddenState(nn.Module):
    """ViT's last hidden state of a batch of images."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=pixel_values).last_hidden_state


class SpeechHiddenState(nn.Module):
    """Whisper's decoder hidden state for three start tokens over a batch of log-mel
    spectrograms."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_features: torch.Tensor) -> torch.Tensor:
        start = torch.ones(input_features.shape[0], 3, dtype=torch.long)
        out = self.model(input_features=input_features, decoder_input_ids=start)
        return out.last_hidden_state


VOCAB = 100
_TOKENS = {"vocab_size": VOCAB, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}


def text_inputs(size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and an attention mask; at the compared sizes the first row is
    left-padded."""
    batch, length = SIZES[size]
    generator = torch.Generator().manual_seed(size)
    ids = torch.randint(3, VOCAB, (batch, length), generator=generator)
    mask = torch.ones(batch, length, dtype=torch.long)
    if size:
        mask[0, : length // 3] = 0
    return ids, mask


def text_dynamic_shapes() -> Any:
    batch, length = Dim("batch", min=1, max=8), Dim("seq", min=2, max=32)
    return ({0: batch, 1: length}, {0: batch, 1: length})


def _text(name: str, build: Callable[[], nn.Module]) -> TextModel:
    return TextModel(name, build, text_inputs, text_dynamic_shapes)


def _image_inputs(size: int) -> tuple[torch.Tensor]:
    return (torch.randn(SIZES[size][0], 3, 32, 32, generator=torch.Generator().manual_seed(size)),)


def _speech_inputs(size: int) -> tuple[torch.Tensor]:
    generator = torch.Generator().manual_seed(size)
    return (torch.randn(SIZES[size][0], 16, 64, generator=generator),)


def _batch_only() -> Any:
    return ({0: Dim("batch", min=1, max=8)},)


class DecodeStep(nn.Module):
    """One step of a causal LM with its key/value cache as plain tensors: the next
    tokens ``[batch, 1]``, the attention mask ``[batch, past + 1]`` and per layer the
    cached keys and values ``[batch, heads, past, head size]``, to the logits of the
    step and the grown cache (``transformers.DynamicCache`` inside)."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, cache: tuple[torch.Tensor, ...]
    ) -> tuple[torch.Tensor, ...]:
        pairs = list(zip(cache[0::2], cache[1::2], strict=True))
        out = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            past_key_values=transformers.DynamicCache(ddp_cache_data=pairs),
            use_cache=True,
        )
        grown = [t for layer in out.past_key_values.layers for t in (layer.keys, layer.values)]
        return (out.logits, *grown)

    def export(self, batch: int = 2, past: int = 4) -> torch.export.ExportedProgram:
        """The step exported with a symbolic batch and past length."""
        return torch.export.export(
            self, self.example(batch, past), dynamic_shapes=self.dynamic_shapes()
        )

    def example(self, batch: int = 2, past: int = 4) -> tuple[Any, ...]:
        """Inputs of the step: one token per row, a cache of ``past`` random positions."""
        config = self.model.config
        heads, size = config.n_head, config.n_embd // config.n_head
        cache = tuple(torch.randn(batch, heads, past, size) for _ in range(2 * config.n_layer))
        ids = torch.ones(batch, 1, dtype=torch.long)
        return ids, torch.ones(batch, past + 1, dtype=torch.long), cache

    def dynamic_shapes(self) -> Any:
        """A symbolic batch and past length (the mask is one longer than the cache)."""
        batch, past = Dim("batch", min=1, max=8), Dim("past", min=0, max=60)
        layers = 2 * self.model.config.n_layer
        return (
            {0: batch},
            {0: batch, 1: past + 1},
            tuple({0: batch, 2: past} for _ in range(layers)),
        )


def tiny_gpt2_lm() -> nn.Module:
    """A tiny GPT-2 language model with weights large enough for varied greedy tokens."""
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        n_embd=32, n_layer=2, n_head=2, n_positions=64, initializer_range=0.3, **_TOKENS
    )
    return informative(transformers.GPT2LMHeadModel(config))


def _hf(
    wrapper: Callable[..., nn.Module],
    model: str,
    config: str,
    decoder_ids: bool = False,
    **settings: Any,
) -> Callable[[], nn.Module]:
    """A builder of ``wrapper(transformers.<model>(transformers.<config>(**settings)))``."""

    def build() -> nn.Module:
        built = getattr(transformers, model)(getattr(transformers, config)(**settings))
        return wrapper(built, decoder_ids=True) if decoder_ids else wrapper(built)

    return build


_LAYERS = {"num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
_SEQ2SEQ = {
    "d_model": 32, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
    "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64,
}  # fmt: skip
TEXT_ZOO: dict[str, TextModel] = {
    case.name: case
    for case in (
        _text(
            "gpt2",
            _hf(LastHiddenState, "GPT2Model", "GPT2Config", n_embd=32, n_layer=2, n_head=2,
                n_positions=64, **_TOKENS),
        ),
        _text(
            "bert",
            _hf(LastHiddenState, "BertModel", "BertConfig", hidden_size=32,
                max_position_embeddings=64, **_LAYERS, **_TOKENS),
        ),
        _text(
            "distilbert",
            _hf(LastHiddenState, "DistilBertModel", "DistilBertConfig", dim=32, n_layers=2,
                n_heads=2, hidden_dim=64, max_position_embeddings=64, **_TOKENS),
        ),
        _text(
            "llama",
            _hf(LastHiddenState, "LlamaModel", "LlamaConfig", hidden_size=32,
                num_key_value_heads=1, max_position_embeddings=64, **_LAYERS, **_TOKENS),
        ),
        _text(
            "t5",
            _hf(LastHiddenState, "T5EncoderModel", "T5Config", d_model=32, d_ff=64,
                num_layers=2, num_heads=2, d_kv=16, decoder_start_token_id=0, **_TOKENS),
        ),
        _text(
            "bart",
            _hf(LastHiddenState, "BartModel", "BartConfig", max_position_embeddings=64,
                decoder_start_token_id=2, decoder_ids=True, **_SEQ2SEQ, **_TOKENS),
        ),
        TextModel(
            "vit",
            _hf(ImageHiddenState, "ViTModel", "ViTConfig", hidden_size=32, image_size=32,
                patch_size=8, **_LAYERS),
            _image_inputs,
            _batch_only,
        ),
        TextModel(
            "whisper",
            _hf(SpeechHiddenState, "WhisperModel", "WhisperConfig", num_mel_bins=16,
                max_source_positions=32, max_target_positions=32, decoder_start_token_id=1,
                **_SEQ2SEQ, **_TOKENS),
            _speech_inputs,
            _batch_only,
        ),
    )
}  # fmt: skip
"""The text models by name."""
