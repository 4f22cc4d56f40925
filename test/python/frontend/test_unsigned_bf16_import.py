"""Unsigned integers and bf16 through both importers, with symbolic sizes: ONNX models
over UINT8 ... UINT64 (arithmetic, division, remainders, comparisons, BitShift, the
Bitwise operators, casts) against onnxruntime, torch programs over uint8 ... uint64 and
bf16 against eager torch, and the ONNX element types relax lacks refused by name."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
torch = pytest.importorskip("torch")

from onnx import TensorProto, helper  # noqa: E402
from torch.export import Dim  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402
from xrelax.dialects import dtypes  # noqa: E402
from xrelax.frontend import FrontendError  # noqa: E402

RNG = np.random.default_rng(23)
UNSIGNED = {
    np.uint8: TensorProto.UINT8,
    np.uint16: TensorProto.UINT16,
    np.uint32: TensorProto.UINT32,
    np.uint64: TensorProto.UINT64,
}


def _operands(t: type, batch: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x with the type's edge values, a divisor without zeros, shift amounts from 0 to
    beyond the width."""
    info = np.iinfo(t)
    x = RNG.integers(0, info.max, (batch, 6), dtype=t, endpoint=True)
    x[0, :4] = [0, 1, info.max, 1 << (info.bits - 1)]
    y = RNG.integers(1, info.max, (batch, 6), dtype=t, endpoint=True)
    y[0, :3] = [1, info.max, 2]
    shifts = RNG.integers(0, info.bits + 3, (batch, 6)).astype(t)
    shifts[0, :3] = [0, info.bits - 1, info.bits]
    return x, y, shifts


@pytest.mark.parametrize("t", list(UNSIGNED), ids=lambda t: np.dtype(t).name)
def test_onnx_unsigned_operators_are_onnxruntimes(t):
    elem = UNSIGNED[t]
    ops = [("Add", "x", "y"), ("Sub", "x", "y"), ("Mul", "x", "y"), ("Div", "x", "y")]
    ops += [("Mod", "x", "y"), ("BitwiseAnd", "x", "y"), ("BitwiseXor", "x", "y")]
    nodes = [helper.make_node(op, list(args), [op.lower()]) for op, *args in ops]
    outputs = [(op.lower(), elem) for op, *_ in ops]
    nodes += [
        helper.make_node("BitwiseNot", ["x"], ["not"]),
        helper.make_node("Less", ["x", "y"], ["less"]),
        helper.make_node("Equal", ["x", "y"], ["equal"]),
        helper.make_node("BitShift", ["x", "s"], ["left"], direction="LEFT"),
        helper.make_node("BitShift", ["x", "s"], ["right"], direction="RIGHT"),
        helper.make_node("Cast", ["x"], ["float"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["float"], ["back"], to=elem),
    ]
    outputs += [("not", elem), ("less", TensorProto.BOOL), ("equal", TensorProto.BOOL)]
    outputs += [("left", elem), ("right", elem), ("float", TensorProto.FLOAT), ("back", elem)]
    graph = helper.make_graph(
        nodes,
        "unsigned",
        [helper.make_tensor_value_info(n, elem, ["batch", 6]) for n in ("x", "y", "s")],
        [helper.make_tensor_value_info(n, e, None) for n, e in outputs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    imported = frontend.from_onnx(model)
    assert "!relax.tensor<[batch, 6]" in xrelax.print_module(imported.module)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    for batch in (1, 3):
        x, y, s = _operands(t, batch)
        expected = session.run(None, {"x": x, "y": y, "s": s})
        got = main(x, y, s)
        for (name, _), have, want in zip(outputs, got, expected, strict=True):
            assert have.dtype == want.dtype, name
            np.testing.assert_array_equal(have, want, err_msg=name)


def test_onnx_types_relax_lacks_are_refused_with_the_reason():
    def model(elem: int) -> onnx.ModelProto:
        graph = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])],
            "g",
            [helper.make_tensor_value_info("x", elem, [2])],
            [helper.make_tensor_value_info("y", elem, [2])],
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])

    for elem, reason in [
        (TensorProto.FLOAT8E4M3FN, "8-bit floats have no numpy arithmetic"),
        (TensorProto.INT4, "4-bit integers are packed below a byte"),
        (TensorProto.STRING, "relax tensors hold numbers"),
    ]:
        name = TensorProto.DataType.Name(elem)
        with pytest.raises(FrontendError, match=f"element type {name}, which relax lacks") as info:
            frontend.from_onnx(model(elem))
        assert reason in str(info.value) and "\n" not in str(info.value)


class Function(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *tensors):
        return self.fn(*tensors)


def _compiled(module: torch.nn.Module, *tensors: torch.Tensor):
    shapes = (tuple({0: Dim.AUTO} for _ in tensors),)
    program = torch.export.export(module, tensors, dynamic_shapes=shapes)
    imported = frontend.from_exported_program(program)
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    return lambda *arrays: main(*arrays, **imported.params)


def _uint8_ops(x, y):
    return (x + y, x - y, x * y, x % y, x & y, x ^ y, ~x, x > y, torch.maximum(x, y),
            x.float() / 255, (x.float() * 1.5).to(torch.uint8), x.sum(1), x.amax(1))  # fmt: skip


def _wide_unsigned_ops(x, y):
    """What eager torch computes on uint16 ... uint64 (its support is partial)."""
    return x * y, x & y, x | y, x.float(), x.to(torch.int64), x.sum(1)


@pytest.mark.parametrize(
    ("dtype", "fn"),
    [
        (torch.uint8, _uint8_ops),
        (torch.uint16, _wide_unsigned_ops),
        (torch.uint32, _wide_unsigned_ops),
        (torch.uint64, _wide_unsigned_ops),
    ],
    ids=["uint8", "uint16", "uint32", "uint64"],
)
def test_torch_unsigned_is_eagers(dtype, fn):
    t = {torch.uint8: np.uint8, torch.uint16: np.uint16}.get(dtype) or (
        np.uint32 if dtype == torch.uint32 else np.uint64
    )
    x, y, _ = _operands(t, 4)
    main = _compiled(Function(fn), torch.from_numpy(x), torch.from_numpy(y))
    for batch in (2, 5):
        x, y, _ = _operands(t, batch)
        expected = fn(torch.from_numpy(x), torch.from_numpy(y))
        for have, want in zip(main(x, y), expected, strict=True):
            assert have.dtype == want.numpy().dtype
            np.testing.assert_array_equal(have, want.numpy())


def test_torch_bf16_model_is_eagers_within_a_bf16_rounding():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32), torch.nn.Linear(32, 8)
    ).to(torch.bfloat16)
    model.eval()
    x = torch.randn(4, 16).to(torch.bfloat16)
    main = _compiled(Function(model), x)
    for batch in (1, 3):
        x = torch.randn(batch, 16).to(torch.bfloat16)
        have = main(x.view(torch.int16).numpy().view(dtypes.BFLOAT16))
        want = model(x).detach().float().numpy()
        assert have.dtype == dtypes.BFLOAT16 and have.shape == want.shape
        # both compute in f32 and round to bf16: a few bf16 units apart at most
        np.testing.assert_allclose(have.astype(np.float32), want, rtol=2e-2, atol=2e-2)
