"""GPT-2 decoding with its key/value cache: the step (``text_models.DecodeStep``) is
exported once with a symbolic batch and past length (``torch.export``, or ONNX through
``torch.onnx.export``), compiled once, and a greedy loop driven from Python feeds it the
growing cache; the tokens (and each step's logits) are eager ``generate``'s."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
try:
    import transformers  # noqa: F401
except ModuleNotFoundError:
    pytest.fail("decoding needs transformers: pip install -e '.[models]'")

from text_models import DecodeStep, tiny_gpt2_lm  # noqa: E402
from torch_models import compiled_main  # noqa: E402

from xrelax import frontend  # noqa: E402

PROMPT, NEW = 5, 24


def _imported(step: DecodeStep, path: str) -> frontend.ImportedModel:
    if path == "torch":
        return frontend.from_exported_program(step.export())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onnx_program = torch.onnx.export(
            step, step.example(), dynamo=True, dynamic_shapes=step.dynamic_shapes(),
            verbose=False,
        )  # fmt: skip
    return frontend.from_onnx(onnx_program.model_proto)


@pytest.mark.parametrize("path", ["torch", "onnx"])
def test_greedy_decoding_with_a_growing_cache_gives_eager_tokens(path: str) -> None:
    lm = tiny_gpt2_lm()
    prompt = torch.randint(3, lm.config.vocab_size, (2, PROMPT), generator=torch.manual_seed(1))
    with torch.no_grad():
        eager = lm.generate(
            prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
            max_new_tokens=NEW, min_new_tokens=NEW, output_scores=True,
            return_dict_in_generate=True,
        )  # fmt: skip
    imported = _imported(DecodeStep(lm), path)
    # The cache grows by one position: the past length is a symbolic variable.
    text = imported.text()
    assert "%cache0: !relax.tensor<[batch, 2, past, 16], f32>" in text
    assert "!relax.tensor<[batch, 2, past + 1, 16], f32>>" in text
    step = compiled_main(imported.module)

    config = lm.config
    heads, size = config.n_head, config.n_embd // config.n_head
    cache = [np.zeros((2, heads, 0, size), np.float32) for _ in range(2 * config.n_layer)]
    tokens, logits_seen = prompt.numpy(), []
    for position in range(PROMPT + NEW - 1):
        # The prompt goes in one token at a time, then each greedy choice.
        mask = np.ones((2, position + 1), np.int64)
        logits, *cache = step(tokens[:, position : position + 1], mask, *cache, **imported.params)
        if position >= PROMPT - 1:
            logits_seen.append(logits[:, -1])
            tokens = np.concatenate([tokens, logits[:, -1].argmax(-1)[:, None]], axis=1)
    assert cache[0].shape == (2, heads, PROMPT + NEW - 1, size)
    np.testing.assert_array_equal(tokens[:, PROMPT:], eager.sequences[:, PROMPT:].numpy())
    assert len(set(tokens[:, PROMPT:].ravel().tolist())) > 3, "degenerate greedy tokens"
    for got, scores in zip(logits_seen, eager.scores, strict=True):
        # generate's scores are the logits, but -inf for the end token min_new_tokens bans.
        kept = np.isfinite(scores.numpy())
        np.testing.assert_allclose(got[kept], scores.numpy()[kept], rtol=1e-3, atol=1e-4)
