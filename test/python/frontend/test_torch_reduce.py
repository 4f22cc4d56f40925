"""torch reductions and padding modes against eager torch, exported with a dynamic batch
and run at two batch sizes: argmax/argmin (a NaN is the extreme), max/min along a
dimension with their indices, prod (integers in i64, float16 in float32), var/std with
a correction over a symbolic count, cumprod, and reflect/replicate/circular padding
(with negative counts)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.export import Dim  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402

F = torch.nn.functional
CASES: dict[str, tuple[Callable, torch.dtype]] = {
    "argmax": (lambda x: torch.argmax(x, dim=1), torch.float32),
    "argmax-flat": (lambda x: torch.argmax(x), torch.float32),
    "argmin-keepdim": (lambda x: torch.argmin(x, dim=0, keepdim=True), torch.int32),
    "max-dim": (lambda x: torch.max(x, dim=1), torch.float32),
    "min-dim-keepdim": (lambda x: torch.min(x, dim=-1, keepdim=True), torch.int64),
    "prod-int": (lambda x: torch.prod(x, dim=1), torch.int32),
    "prod-half": (lambda x: torch.prod(x), torch.float16),
    "var-correction": (lambda x: torch.var(x, dim=0, correction=2), torch.float32),
    "std-all": (lambda x: torch.std(x), torch.float32),
    "var-mean": (lambda x: torch.var_mean(x, dim=1, keepdim=True), torch.float64),
    "cumprod": (lambda x: torch.cumprod(x, dim=0), torch.float32),
    "reflect": (lambda x: F.pad(x[None], (2, 1), mode="reflect"), torch.float32),
    "replicate-negative": (lambda x: F.pad(x[None], (-1, 3), mode="replicate"), torch.float32),
    "circular": (lambda x: F.pad(x[None], (3, 2), mode="circular"), torch.float32),
}


class _Module(torch.nn.Module):
    def __init__(self, fn: Callable) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: torch.Tensor):
        return self.fn(x)


def _sample(shape: tuple[int, ...], dtype: torch.dtype, rng: np.random.Generator, nan: bool):
    if dtype.is_floating_point:
        x = torch.from_numpy(rng.standard_normal(shape)).to(dtype)
        if nan:
            x.view(-1)[::7] = float("nan")
        return x
    return torch.from_numpy(rng.integers(-3, 4, shape)).to(dtype)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_eager(name: str) -> None:
    fn, dtype = CASES[name]
    rng = np.random.default_rng(3)
    nan = name.startswith(("argmax", "max"))
    example = _sample((3, 5), dtype, rng, nan)
    program = torch.export.export(_Module(fn), (example,), dynamic_shapes=({0: Dim("b")},))
    imported = frontend.from_exported_program(program)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    for batch in (4, 6):
        x = _sample((batch, 5), dtype, rng, nan)
        want = fn(x)
        wants = tuple(want) if isinstance(want, tuple) else (want,)
        got = main(x.numpy(), **imported.params)
        gots = got if isinstance(got, tuple) else (got,)
        for g, w in zip(gots, wants, strict=True):
            w = w.numpy()
            assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=2e-3 if dtype == torch.float16 else 1e-5)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_padding_after_run_decompositions(mode: str) -> None:
    """torch.export writes ``aten.pad``; ``run_decompositions`` makes each mode index
    arithmetic (``index`` of an ``arange`` clamped or mirrored) or slice copies."""

    def fn(x):
        return F.pad(x, (2, 1, 1, 2), mode=mode)

    rng = np.random.default_rng(5)
    example = torch.from_numpy(rng.standard_normal((2, 3, 4, 5)).astype(np.float32))
    program = torch.export.export(_Module(fn), (example,), dynamic_shapes=({0: Dim("b")},))
    program = program.run_decompositions()
    targets = {str(n.target) for n in program.graph.nodes if n.op == "call_function"}
    assert not any("aten.pad" in t for t in targets), targets
    imported = frontend.from_exported_program(program)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    for batch in (1, 3):
        x = torch.from_numpy(rng.standard_normal((batch, 3, 4, 5)).astype(np.float32))
        np.testing.assert_array_equal(main(x.numpy(), **imported.params), fn(x).numpy())
