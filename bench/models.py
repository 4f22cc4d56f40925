"""The end-to-end benchmark models: inputs, and the same computation in plain numpy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@dataclass
class Model:
    """A relax program, its inputs for one size, and the hand-written numpy version."""

    name: str
    path: Path
    inputs: list[np.ndarray]
    numpy: Callable[..., np.ndarray]


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def mlp(n: int) -> Model:
    """``examples/mlp.mlir``: 784-128-10 with ReLU and softmax."""
    rng = _rng()
    shapes = [(n, 784), (784, 128), (128,), (128, 10), (10,)]
    inputs = [(rng.standard_normal(s) * 0.1).astype(np.float32) for s in shapes]

    def reference(x, w1, b1, w2, b2):
        h = np.maximum(x @ w1 + b1, 0) @ w2 + b2
        e = np.exp(h - h.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    return Model(f"mlp n={n}", EXAMPLES / "mlp.mlir", inputs, reference)


def _erf(x: np.ndarray) -> np.ndarray:
    # numpy has no erf: a numpy user writes a vectorized approximation; use the kernels'
    # (float32: the rational approximation of Eigen and XLA).
    from xrelax.backends.kernels.runtime import erf

    return erf(x)


def transformer(s: int) -> Model:
    """``examples/transformer.mlir``: pre-norm encoder block, 4 heads, d_model 256."""
    rng = _rng()
    shapes = [
        (s, 256),
        (256,),
        (256,),
        (256, 256),
        (256,),
        (256, 256),
        (256,),
        (256, 256),
        (256,),
        (256, 256),
        (256,),
        (256,),
        (256,),
        (256, 1024),
        (1024,),
        (1024, 256),
        (256,),
    ]
    inputs = [(rng.standard_normal(sh) * 0.1).astype(np.float32) for sh in shapes]

    def layer_norm(x, g, b):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + np.float32(1e-5)) * g + b

    def reference(x, g1, c1, wq, bq, wk, bk, wv, bv, wo, bo, g2, c2, w1, b1, w2, b2):
        n = x.shape[0]
        h = layer_norm(x, g1, c1)
        q = (h @ wq + bq).reshape(n, 4, 64).transpose(1, 0, 2)
        k = (h @ wk + bk).reshape(n, 4, 64).transpose(1, 2, 0)
        v = (h @ wv + bv).reshape(n, 4, 64).transpose(1, 0, 2)
        scores = (q @ k) * np.float32(0.125)
        e = np.exp(scores - scores.max(-1, keepdims=True))
        p = e / e.sum(-1, keepdims=True)
        ctx = (p @ v).transpose(1, 0, 2).reshape(n, 256)
        r1 = x + (ctx @ wo + bo)
        f = layer_norm(r1, g2, c2) @ w1 + b1
        f = np.float32(0.5) * f * (np.float32(1) + _erf(f / np.float32(np.sqrt(2))))
        return r1 + (f @ w2 + b2)

    return Model(f"transformer s={s}", EXAMPLES / "transformer.mlir", inputs, reference)


def cnn(n: int) -> Model:
    """``examples/cnn.mlir``: two conv3x3+relu+maxpool stages and a linear layer."""
    rng = _rng()
    shapes = [(n, 1, 28, 28), (8, 1, 3, 3), (8, 1, 1), (16, 8, 3, 3), (16, 1, 1), (784, 10), (10,)]
    inputs = [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in shapes]

    def conv3x3(x, k):
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        windows = sliding_window_view(padded, (3, 3), axis=(2, 3))
        # weights first: the faster operand order (see bench/kernels.py)
        return np.tensordot(k, windows, axes=([1, 2, 3], [1, 4, 5])).transpose(1, 0, 2, 3)

    def pool(x):
        # four strided views: several times faster than reshape(...).max(axis=(3, 5))
        top = np.maximum(x[:, :, 0::2, 0::2], x[:, :, 0::2, 1::2])
        return np.maximum(top, np.maximum(x[:, :, 1::2, 0::2], x[:, :, 1::2, 1::2]))

    def reference(x, k1, c1, k2, c2, w, b):
        y = pool(np.maximum(conv3x3(x, k1) + c1, 0))
        y = pool(np.maximum(conv3x3(y, k2) + c2, 0))
        return y.reshape(y.shape[0], -1) @ w + b

    return Model(f"cnn n={n}", EXAMPLES / "cnn.mlir", inputs, reference)
