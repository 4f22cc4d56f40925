"""The torch importer against PyTorch's own operator samples (OpInfo).

For every OpInfo of ``torch.testing._internal.common_methods_invocations.op_db`` that
exercises an ATen operator the importer converts, the first few samples in each tested
element type become a tiny module calling the operator. It is exported with every input
dimension ``Dim.AUTO`` (static when torch refuses), imported, compiled, run on the VM and
compared with eager torch. A case ends as:

* ``pass``: same element type, shape and values (``torch.testing.assert_close``'s
  tolerances of the element type, exact for integers and booleans);
* ``refused``: xrelax refused it cleanly, naming an unsupported operator, attribute or
  element type; each OpInfo and element type that is refused is listed with its
  refusals in ``torch_opinfo_expected_failures.txt``, and the list must stay exact;
* ``wrong``: a result different from eager's, ``internal``: any other error. Neither
  may happen.

Samples torch itself cannot run or export, and results that are not tensors, are not
cases. ``python test/python/conformance/test_torch_opinfo.py`` prints the counts.
"""

from __future__ import annotations

import functools
import logging
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.utils._pytree as pytree  # noqa: E402
from torch.export import Dim  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402
from xrelax.frontend import torch as torch_frontend  # noqa: E402

SAMPLES = {
    torch.float32: 3,
    torch.float16: 2,
    torch.int64: 2,
    torch.bool: 2,
    torch.int32: 1,
    torch.float64: 1,
}
"""The element types tested, where the OpInfo supports them, and how many of the first
samples of each (the run takes about a minute and a half of one core)."""

EXTRA_OPINFOS = (
    "__getitem__",
    "take_along_dim",
    "T",
    "mT",
    "nn.functional.embedding",
    "byte",
    "bool",
    "float",
    "double",
    "half",
    "int",
    "long",
    "__radd__",
    "__rmul__",
    "__rsub__",
    "__rmod__",
    "__rpow__",
    "__rand__",
    "__ror__",
    "__rxor__",
    "__rmatmul__",
    "nn.functional.softmin",
    "nn.functional.softsign",
    "nn.functional.tanhshrink",
    "nn.functional.local_response_norm",
    "masked.sum",
    "masked.mean",
    "masked.amax",
    "masked.amin",
    "masked.softmax",
    "masked.log_softmax",
    "signal.windows.hann",
    "signal.windows.gaussian",
    "torch.ops.aten._safe_softmax.default",
    "nn.functional.dropout2d",
    "nn.functional.feature_alpha_dropout",
)
"""OpInfos not named after a converted operator whose samples export to converted ones."""

HALF_TOLERANCE = {"rtol": 4e-3, "atol": 1e-3}
"""float16 results agree within a few units in the last place: torch's CPU kernels round
some intermediate float16 steps (``log_softmax``'s ``x - max``), xrelax others."""

HALF_IN_HALF_STEPS = {"nn.functional.conv_transpose2d", "nn.functional.conv_transpose3d"}
"""OpInfos whose float16 result torch's CPU kernel rounds at every step (each column of
the transposed convolution, then each add into the output): the reference is torch's
float32 result rounded once, what xrelax computes (docs/semantics.md)."""

UNDEFINED_VALUES = {"empty", "new_empty"}
"""OpInfos whose results have undefined values: only their type and shape compare."""

OPEN_TIE_ORDER = {"sort", "argsort", "topk"}
"""OpInfos whose order of equal elements torch leaves open (its unstable sort, topk):
eager's results are taken in torch's stable order (equal elements by position), the
order xrelax gives."""

EXPECTED_FAILURES = Path(__file__).with_name("torch_opinfo_expected_failures.txt")

INTERPOLATED = "no OpInfo of its name (interpolate's are not run): frontend test_interpolate"
NOT_IN_TORCH = "no ATen operator of that name in this torch (converted for older or newer ones)"

WITHOUT_OPINFO = {
    "aten.__and__": "torch.export writes Python's & of tensors as aten.bitwise_and",
    "aten.__or__": "torch.export writes Python's | of tensors as aten.bitwise_or",
    "aten.__xor__": "torch.export writes Python's ^ of tensors as aten.bitwise_xor",
    "aten._adaptive_avg_pool2d": "run_decompositions() programs only",
    "aten._convolution": "run_decompositions() programs only",
    "aten._log_softmax": "run_decompositions() programs only",
    "aten._native_batch_norm_legit_no_training": "run_decompositions() programs only",
    "aten._softmax": "run_decompositions() programs only",
    "aten._to_copy": "run_decompositions() programs only",
    "aten._unsafe_view": "run_decompositions() programs only",
    "aten.convolution": "run_decompositions() programs only",
    "aten.copy": "the functional form of copy_, which writes an input in an OpInfo",
    "aten.zero": "the functional form of zero_, which writes an input in an OpInfo",
    "aten.alias": "torch.export leaves it out of the programs of OpInfos",
    "aten.detach": "torch.export leaves it out of the programs of OpInfos",
    "aten.contiguous": "torch.export leaves it out of the programs of OpInfos",
    "aten.adjoint": "no OpInfo",
    "aten.swapaxes": "no OpInfo (an alias of transpose, which torch.export writes)",
    "aten.type_as": "no OpInfo",
    "aten.concat": "no OpInfo (an alias of cat, which torch.export writes)",
    "aten.concatenate": "no OpInfo (an alias of cat, which torch.export writes)",
    "aten.lstm": "no OpInfo: nn.LSTM models in test/python/frontend",
    "aten.gru": "no OpInfo: nn.GRU models in test/python/frontend",
    "aten.rnn_tanh": "no OpInfo: nn.RNN models in test/python/frontend",
    "aten.rnn_relu": "no OpInfo: nn.RNN models in test/python/frontend",
    "aten._upsample_nearest_exact1d": INTERPOLATED,
    "aten._upsample_nearest_exact2d": INTERPOLATED,
    "aten._upsample_nearest_exact3d": INTERPOLATED,
    "aten._weight_norm": "no OpInfo: test_torch_nn tests torch._weight_norm",
    "aten.grid_sampler": "no OpInfo (torch.export writes grid_sampler_2d and _3d)",
    "aten.upsample_bicubic1d": NOT_IN_TORCH,
    "aten.upsample_bicubic2d": INTERPOLATED,
    "aten.upsample_bicubic3d": NOT_IN_TORCH,
    "aten.upsample_bilinear1d": NOT_IN_TORCH,
    "aten.upsample_bilinear2d": INTERPOLATED,
    "aten.upsample_bilinear3d": NOT_IN_TORCH,
    "aten.upsample_linear1d": INTERPOLATED,
    "aten.upsample_linear2d": NOT_IN_TORCH,
    "aten.upsample_linear3d": NOT_IN_TORCH,
    "aten.upsample_nearest1d": INTERPOLATED,
    "aten.upsample_nearest2d": INTERPOLATED,
    "aten.upsample_nearest3d": INTERPOLATED,
    "aten.upsample_trilinear1d": NOT_IN_TORCH,
    "aten.upsample_trilinear2d": NOT_IN_TORCH,
    "aten.upsample_trilinear3d": INTERPOLATED,
}
"""Converted operators that no exported OpInfo sample reaches, and why."""


# ---------------------------------------------------------------------------- cases


def converted_operators() -> set[str]:
    """The ATen operators (overload packets, ``aten.add``) the importer converts."""
    return {name for name in torch_frontend.SUPPORTED if name.startswith("aten.")}


def opinfo_key(op: Any) -> str:
    """``name`` or ``name.variant``."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


@functools.cache
def selected_opinfos() -> list[Any]:
    """The OpInfos named after a converted operator, and :data:`EXTRA_OPINFOS`."""
    names = {name.removeprefix("aten.") for name in converted_operators()}
    return [
        op
        for op in op_db
        if op.name.removeprefix("nn.functional.") in names
        or op.aten_name in names
        or op.name in EXTRA_OPINFOS
    ]


@dataclass
class Outcome:
    """What became of one sample."""

    kind: str
    """``pass``, ``refused``, ``wrong``, ``internal``; or ``not a case`` (torch fails)."""
    detail: str = ""
    dynamic: bool = False
    """Whether the program that ran had a symbolic dimension."""
    static_fallback: str = ""
    """Why the static program ran: ``torch`` (it refused the dynamic export), or
    ``xrelax: <refusal>``; empty when the dynamic one ran or torch made it static."""
    operators: set[str] = field(default_factory=set)
    """The ATen operators of the exported program."""


class _Call(torch.nn.Module):
    """Calls ``fn`` on the arguments ``spec`` describes, its tensors the inputs."""

    def __init__(self, fn: Any, leaves: list[Any], spec: Any) -> None:
        super().__init__()
        self.fn, self.leaves, self.spec = fn, leaves, spec

    def forward(self, *tensors: Any) -> Any:
        given = iter(tensors)
        leaves = [next(given) if isinstance(v, torch.Tensor) else v for v in self.leaves]
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.fn(*args, **kwargs)


def run_case(op: Any, sample: Any) -> Outcome:
    """Export, import, compile and run ``op`` on ``sample``; compare with eager. The
    dynamic export is tried first; the static one when torch refuses it, or when xrelax
    refuses it for a symbolic size (the reason is kept in ``static_fallback``)."""
    leaves, spec = pytree.tree_flatten(((sample.input, *sample.args), sample.kwargs))
    tensors = [v for v in leaves if isinstance(v, torch.Tensor)]
    if any(t.dtype.is_complex or t.is_sparse for t in tensors):
        return Outcome("not a case", "complex or sparse input")
    module = _Call(op.op, leaves, spec)
    try:
        with torch.no_grad():
            expected = module(*[t.clone() for t in tensors])
    except Exception as err:  # noqa: BLE001 - a sample torch itself refuses is no case
        return Outcome("not a case", f"eager: {type(err).__name__}")
    if op.name in OPEN_TIE_ORDER:
        expected = _stable_order(op.name, sample)
    if op.name in HALF_IN_HALF_STEPS and any(t.dtype == torch.float16 for t in tensors):
        with torch.no_grad():
            wide = module(*[t.float() if t.dtype == torch.float16 else t for t in tensors])
        expected = pytree.tree_map(lambda r: r.half() if r.is_floating_point() else r, wide)
    results = pytree.tree_leaves(expected)
    if not results or not all(isinstance(r, torch.Tensor) for r in results):
        return Outcome("not a case", "a result that is not a tensor")
    dynamic = _export(module, tensors, dynamic=True)
    if dynamic is not None and _symbolic(dynamic):
        outcome = _run_program(op, dynamic, tensors, results)
        if outcome.kind != "refused" or "symbolic" not in outcome.detail:
            outcome.dynamic = True
            return outcome
        fallback = f"xrelax: {outcome.detail}"
    else:
        fallback = "torch" if dynamic is None else ""
    static = dynamic if dynamic is not None and not _symbolic(dynamic) else None
    static = static or _export(module, tensors, dynamic=False)
    if static is None:
        return Outcome("not a case", "torch.export fails")
    outcome = _run_program(op, static, tensors, results)
    outcome.static_fallback = fallback
    return outcome


def _stable_order(name: str, sample: Any) -> Any:
    """The results of ``sort``, ``argsort`` or ``topk`` on ``sample`` with equal elements
    in the order of their positions."""
    x = sample.input
    with torch.no_grad():
        names = ("k", "dim", "largest") if name == "topk" else ("dim", "descending")
        bound = dict(zip(names, sample.args, strict=False))
        bound.update(sample.kwargs)
        if name != "topk":
            return getattr(torch, name)(x, **{**bound, "stable": True})
        dim = bound.get("dim", -1) if x.ndim else 0
        order = torch.sort(x, dim=dim, descending=bound.get("largest", True), stable=True)[1]
        order = order.narrow(dim, 0, bound["k"]) if x.ndim else order
        return x.gather(dim, order) if x.ndim else x.clone(), order


def _symbolic(program: Any) -> bool:
    """Whether an input of ``program`` has a symbolic dimension."""
    return any(
        isinstance(d, torch.SymInt)
        for n in program.graph.nodes
        if n.op == "placeholder"
        for d in getattr(n.meta.get("val"), "shape", ())
    )


def _run_program(op: Any, program: Any, tensors: list[Any], results: list[Any]) -> Outcome:
    """Import, compile and run ``program`` on ``tensors``; compare with ``results``."""
    outcome = Outcome("pass")
    outcome.operators = {
        str(n.target._overloadpacket)
        for n in program.graph.nodes
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
    }
    try:
        imported = frontend.from_exported_program(program)
    except frontend.UnsupportedOperatorsError as err:
        outcome.kind, outcome.detail = "refused", "; ".join(err.counts)
        return outcome
    except Exception as err:  # noqa: BLE001 - anything else is the importer's fault
        outcome.kind, outcome.detail = "internal", f"import: {type(err).__name__}: {err}"
        return outcome
    try:
        vm = xrelax.VirtualMachine(xrelax.compile(imported.module))
        got = vm["main"](*[t.numpy() for t in tensors], **imported.params)
    except Exception as err:  # noqa: BLE001 - a valid sample must compile and run
        outcome.kind, outcome.detail = "internal", f"{type(err).__name__}: {err}"
        return outcome
    got = list(got) if isinstance(got, tuple) else [got]
    problem = _compare(op, results, got)
    if problem:
        outcome.kind, outcome.detail = "wrong", problem
    return outcome


def _export(module: torch.nn.Module, tensors: list[Any], dynamic: bool) -> Any:
    """The program of ``module``, every input dimension ``Dim.AUTO`` when ``dynamic``;
    None when torch cannot export it."""
    shapes = (tuple({d: Dim.AUTO for d in range(t.ndim)} for t in tensors),)
    copies = tuple(t.clone() for t in tensors)  # distinct, as the VM gets them
    try:
        return torch.export.export(module, copies, dynamic_shapes=shapes if dynamic else None)
    except Exception:  # noqa: BLE001 - torch refuses many programs, any way
        return None


def _compare(op: Any, expected: list[Any], got: list[Any]) -> str:
    """What differs between eager's results and the VM's ("" when nothing)."""
    if len(expected) != len(got):
        return f"{len(got)} results, eager has {len(expected)}"
    for index, (want, have) in enumerate(zip(expected, got, strict=True)):
        want_array = want.detach().numpy()
        have = np.asarray(have)
        if have.dtype != want_array.dtype or have.shape != want_array.shape:
            return (
                f"result {index}: {have.dtype}{list(have.shape)}, "
                f"eager {want_array.dtype}{list(want_array.shape)}"
            )
        if op.name in UNDEFINED_VALUES:
            continue
        try:
            torch.testing.assert_close(
                torch.from_numpy(have.copy()),
                want,
                equal_nan=True,
                check_stride=False,
                **HALF_TOLERANCE if want.dtype == torch.float16 else {},
            )
        except AssertionError as err:
            return f"result {index}: " + " ".join(str(err).split())
    return ""


def samples_of(op: Any, dtype: Any) -> list[Any]:
    """The first samples of ``op`` in ``dtype`` (:data:`SAMPLES`; seeded: the same each
    run)."""
    torch.manual_seed(0)
    generator = op.sample_inputs("cpu", dtype, requires_grad=False)
    # All of them: a generator left open is closed when collected, which enters a grad
    # mode, which lands in whatever torch.export is tracing then.
    return list(generator)[: SAMPLES[dtype]]


@functools.cache
def outcomes(key: str) -> dict[tuple[str, int], Outcome]:
    """The outcome of every case of the OpInfo ``key``, by (element type, sample index)."""
    op = next(op for op in selected_opinfos() if opinfo_key(op) == key)
    found = {}
    with warnings.catch_warnings(), _quiet():
        warnings.simplefilter("ignore")
        supported = op.supported_dtypes("cpu")
        for dtype in SAMPLES:
            if dtype not in supported:
                continue
            for index, sample in enumerate(samples_of(op, dtype)):
                found[(_dtype_name(dtype), index)] = run_case(op, sample)
    return found


def _dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


class _quiet:
    """torch.export logs its failures (the dynamic attempts that fall back)."""

    def __enter__(self) -> None:
        logging.disable(logging.WARNING)

    def __exit__(self, *exc: object) -> None:
        logging.disable(logging.NOTSET)


# ---------------------------------------------------------------------------- expected failures


def expected_failures() -> dict[tuple[str, str], set[str]]:
    """(OpInfo, element type or ``*``) -> the refusals listed for it."""
    listed: dict[tuple[str, str], set[str]] = {}
    for line in EXPECTED_FAILURES.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, _, reasons = line.partition(":")
        key, dtype = head.split()
        listed[(key, dtype)] = {r.strip() for r in reasons.split(";")}
    return listed


def refusals_of(key: str) -> dict[str, set[str]]:
    """Element type -> the refusals the OpInfo ``key``'s cases met."""
    found: dict[str, set[str]] = {}
    for (dtype, _), outcome in outcomes(key).items():
        if outcome.kind == "refused":
            found.setdefault(dtype, set()).update(outcome.detail.split("; "))
    return found


# ---------------------------------------------------------------------------- tests


@pytest.mark.parametrize("key", [opinfo_key(op) for op in selected_opinfos()])
def test_opinfo(key: str) -> None:
    """No wrong result, no internal error; the refusals are the listed ones."""
    bad = {
        f"{dtype} sample {index}: {o.kind}: {o.detail}"
        for (dtype, index), o in outcomes(key).items()
        if o.kind in ("wrong", "internal")
    }
    assert not bad, "\n".join(sorted(bad))
    listed = {dtype: reasons for (k, dtype), reasons in expected_failures().items() if k == key}
    found = refusals_of(key)
    for dtype in {d for d, _ in outcomes(key)}:
        expected = listed.get(dtype, listed.get("*", set()))
        assert found.get(dtype, set()) == expected, (
            f"{key} {dtype}: refused for {sorted(found.get(dtype, ()))}, "
            f"{EXPECTED_FAILURES.name} lists {sorted(expected)}"
        )


def test_every_converted_operator_is_exercised() -> None:
    """Each converted operator is in the program of some case, or listed as without
    OpInfo (a listed one that a case reaches must leave the list)."""
    reached = set()
    for op in selected_opinfos():
        for outcome in outcomes(opinfo_key(op)).values():
            reached |= outcome.operators
    assert sorted(converted_operators() - reached) == sorted(WITHOUT_OPINFO)


def test_expected_failures_name_tested_opinfos() -> None:
    keys = {opinfo_key(op) for op in selected_opinfos()}
    unknown = sorted(key for key, _ in expected_failures() if key not in keys)
    assert not unknown, f"{EXPECTED_FAILURES.name} lists OpInfos not tested: {unknown}"


def summary() -> Counter[str]:
    """Counts of the outcomes of every case."""
    counts: Counter[str] = Counter()
    for op in selected_opinfos():
        for outcome in outcomes(opinfo_key(op)).values():
            counts[outcome.kind] += 1
            if outcome.kind != "not a case":
                counts["dynamic" if outcome.dynamic else "static"] += 1
                if outcome.static_fallback:
                    counts[f"static fallback ({outcome.static_fallback.split(':')[0]})"] += 1
    return counts


if __name__ == "__main__":
    start = time.perf_counter()
    for op in selected_opinfos():
        key = opinfo_key(op)
        t0 = time.perf_counter()
        for (dtype, index), outcome in outcomes(key).items():
            if outcome.kind != "pass" or outcome.static_fallback.startswith("xrelax"):
                shown = f"{outcome.detail[:300]} {outcome.static_fallback}"
                print(f"{key} {dtype} {index}: {outcome.kind}: {shown}")
        print(f"# {key} {time.perf_counter() - t0:.2f}s", flush=True)
    print(dict(summary()), f"{time.perf_counter() - start:.1f}s")
