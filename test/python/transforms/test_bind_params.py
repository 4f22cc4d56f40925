"""Weights bound at compile time: ``xrelax.compile(module, params=...)``, ``relax-run
--bind-params`` and ``relax-import --bind-params`` give the unbound program's numbers,
with what depends only on the weights folded (batch norm into the convolution)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xrelax
from xrelax.dialects.relax import FuncOp
from xrelax.tools.relax_import import main as relax_import
from xrelax.tools.relax_run import main as relax_run

T = "!relax.tensor"
CONV_BN = f"""
relax.func @main(%x: {T}<[n, 3, 6, 6], f32>, %w: {T}<[4, 3, 3, 3], f32>, %gamma: {T}<[4], f32>, %beta: {T}<[4], f32>, %mean: {T}<[4], f32>, %var: {T}<[4], f32>) -> {T}<[n, 4, 4, 4], f32> {{
  %y = relax.dataflow -> {T}<[n, 4, 4, 4], f32> {{
    %c = relax.conv2d %x, %w : ({T}<[n, 3, 6, 6], f32>, {T}<[4, 3, 3, 3], f32>)
    %eps = relax.const dense<1.0e-05> : {T}<[], f32>
    %v = relax.add %var, %eps : ({T}<[4], f32>, {T}<[], f32>)
    %r = relax.rsqrt %v : ({T}<[4], f32>)
    %scale = relax.multiply %r, %gamma : ({T}<[4], f32>, {T}<[4], f32>)
    %ms = relax.multiply %mean, %scale : ({T}<[4], f32>, {T}<[4], f32>)
    %shift = relax.subtract %beta, %ms : ({T}<[4], f32>, {T}<[4], f32>)
    %s4 = relax.expand_dims %scale {{axis = array<i64: 1, 2>}} : ({T}<[4], f32>)
    %b4 = relax.expand_dims %shift {{axis = array<i64: 1, 2>}} : ({T}<[4], f32>)
    %cs = relax.multiply %c, %s4 : ({T}<[n, 4, 4, 4], f32>, {T}<[4, 1, 1], f32>)
    %cb = relax.add %cs, %b4 : ({T}<[n, 4, 4, 4], f32>, {T}<[4, 1, 1], f32>)
    %o = relax.relu %cb : ({T}<[n, 4, 4, 4], f32>)
    relax.output %o : {T}<[n, 4, 4, 4], f32>
  }}
  relax.return %y : {T}<[n, 4, 4, 4], f32>
}}
"""


def _weights() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "w": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
        "gamma": rng.uniform(0.5, 2, 4).astype(np.float32),
        "beta": rng.uniform(-1, 1, 4).astype(np.float32),
        "mean": rng.uniform(-1, 1, 4).astype(np.float32),
        "var": rng.uniform(0.5, 2, 4).astype(np.float32),
    }


def test_bound_weights_give_the_unbound_numbers_with_batch_norm_folded() -> None:
    module = xrelax.parse(CONV_BN)
    weights = _weights()
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 6)).astype(np.float32)
    unbound = xrelax.VirtualMachine(xrelax.compile(module))["main"](x, **weights)
    bound_exe = xrelax.compile(module, params=weights)
    vm = xrelax.VirtualMachine(bound_exe)
    np.testing.assert_allclose(vm["main"](x), unbound, rtol=1e-5, atol=1e-5)
    assert bound_exe.global_funcs[0].param_names == ("x",)
    # one kernel: the convolution with the scale folded into its weights, plus bias + relu
    kernels = [r for r in vm.profile("main", x).rows() if r.kind == "kernel"]
    assert [r.operators for r in kernels] == [("conv2d", "add", "relu")]
    assert module.ops.first is not None and len(module.ops.first.body.block.args) == 6


def test_binding_refuses_what_does_not_fit_the_parameter() -> None:
    module = xrelax.parse(CONV_BN)
    weights = _weights()
    cases = [
        ({**weights, "nope": weights["w"]}, "'nope' is not a parameter of 'main' (parameters: x, w"),
        ({"w": weights["w"].astype(np.float64)}, "parameter 'w' is !relax.tensor<[4, 3, 3, 3], f32>, the value given is float64[4, 3, 3, 3]"),
        ({"x": np.zeros((2, 3, 6, 6), np.float32)}, "parameter 'x' has type !relax.tensor<[n, 3, 6, 6], f32>: only parameters of static shape can be bound"),
    ]  # fmt: skip
    for params, message in cases:
        with pytest.raises(xrelax.CompileError) as err:
            xrelax.compile(module, params=params)
        assert message in str(err.value) and "\n" not in str(err.value)


def test_relax_run_bind_params(tmp_path: Path, capsys) -> None:
    source = tmp_path / "conv_bn.mlir"
    source.write_text(CONV_BN)
    weights = _weights()
    np.savez(tmp_path / "w.npz", **weights)
    x = np.random.default_rng(2).standard_normal((3, 3, 6, 6)).astype(np.float32)
    np.savez(tmp_path / "x.npz", x=x)
    common = [str(source), "--inputs", str(tmp_path / "x.npz"), "--params", str(tmp_path / "w.npz")]
    assert relax_run([*common, "--outputs", str(tmp_path / "a.npz")]) == 0
    assert relax_run([*common, "--bind-params", "--outputs", str(tmp_path / "b.npz")]) == 0
    np.testing.assert_allclose(
        np.load(tmp_path / "b.npz")["out0"],
        np.load(tmp_path / "a.npz")["out0"],
        rtol=1e-5,
        atol=1e-5,
    )
    assert relax_run([str(source), "--inputs", str(tmp_path / "x.npz"), "--bind-params"]) == 1
    assert capsys.readouterr().err == (
        "relax-run: error: --bind-params binds the weights of --params: give --params\n"
    )


def test_relax_import_bind_params(tmp_path: Path, capsys) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(3)
    w = rng.standard_normal((4, 5)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, tmp_path / "m.onnx")
    out = tmp_path / "m.mlir"
    assert relax_import([str(tmp_path / "m.onnx"), "-o", str(out), "--bind-params"]) == 0
    assert not (tmp_path / "m.npz").exists()
    module = xrelax.parse(out.read_text())
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    assert func.param_names == ["x"]
    x = rng.standard_normal((2, 4)).astype(np.float32)
    got = xrelax.VirtualMachine(xrelax.compile(module))["main"](x)
    np.testing.assert_allclose(got, x @ w, rtol=1e-5, atol=1e-6)
    args = [str(tmp_path / "m.onnx"), "-o", str(out), "--bind-params", "--params-out", "w.npz"]
    assert relax_import(args) == 1
    assert capsys.readouterr().err == (
        "relax-import: error: --bind-params writes the weights into the module: no --params-out\n"
    )
