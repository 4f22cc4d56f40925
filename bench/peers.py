"""Optional comparison rows: the same MLP compiled by Apache TVM (Relax, llvm target,
default pipeline) and by IREE (llvm-cpu), when installed (``pip install -e '.[peers]'``).

Both compile the MLP with the batch size fixed to the benchmark's n; each row reports
the peer's time over hand-written numpy, measured in the same run.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bench.models import Model


def mlp_rows(model: Model, numpy_seconds: float, repeat: int, timeit: Callable) -> list:
    """TVM and IREE rows for an MLP model (or a 'not installed' note)."""
    from bench.run import Row

    rows = []
    for name, build in (("TVM Relax", _tvm_mlp), ("IREE llvm-cpu", _iree_mlp)):
        try:
            run = build(model)
        except ImportError:
            rows.append(Row("end to end", f"{model.name}: {name} / numpy", "not installed"))
            continue
        except Exception as err:  # noqa: BLE001 - a peer failing must not stop the suite
            rows.append(Row("end to end", f"{model.name}: {name} / numpy", f"failed: {err}"[:60]))
            continue
        np.testing.assert_allclose(run(), model.numpy(*model.inputs), rtol=1e-4, atol=1e-5)
        seconds = timeit({name: run}, repeat)[name]
        rows.append(
            Row(
                "end to end",
                f"{model.name}: {name} / numpy",
                f"{seconds / numpy_seconds:.2f}x  ({seconds * 1e3:.3f} ms)",
            )
        )
    return rows


def _tvm_mlp(model: Model) -> Callable[[], np.ndarray]:
    import tvm
    from tvm import relax

    x, w1, b1, w2, b2 = model.inputs
    bb = relax.BlockBuilder()
    tensor_type = getattr(relax, "TensorStructInfo", None) or relax.TensorType  # TVM >= 0.27
    params = [
        relax.Var(name, tensor_type(a.shape, "float32"))
        for name, a in zip(("x", "w1", "b1", "w2", "b2"), model.inputs, strict=True)
    ]
    with bb.function("main", params):
        with bb.dataflow():
            h = bb.emit(
                relax.op.nn.relu(relax.op.add(relax.op.matmul(params[0], params[1]), params[2]))
            )
            o = bb.emit(relax.op.add(relax.op.matmul(h, params[3]), params[4]))
            gv = bb.emit_output(relax.op.nn.softmax(o, axis=-1))
        bb.emit_func_output(gv)
    compile_fn = getattr(tvm, "compile", None) or relax.build
    executable = compile_fn(bb.get(), target="llvm")
    device = tvm.cpu()
    vm = relax.VirtualMachine(executable, device)
    to_device = getattr(tvm.runtime, "tensor", None) or tvm.nd.array
    args = [to_device(a, device) for a in model.inputs]
    main = vm["main"]
    return lambda: main(*args).numpy()


def _iree_mlp(model: Model) -> Callable[[], np.ndarray]:
    import iree.compiler as compiler
    import iree.runtime as runtime

    n = model.inputs[0].shape[0]
    hidden = f"tensor<{n}x128xf32>"
    logits = f"tensor<{n}x10xf32>"
    text = f"""
func.func @main(%x: tensor<{n}x784xf32>, %w1: tensor<784x128xf32>, %b1: tensor<128xf32>,
                %w2: tensor<128x10xf32>, %b2: tensor<10xf32>) -> {logits} {{
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : {hidden}
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : {hidden}) -> {hidden}
  %m1 = linalg.matmul ins(%x, %w1 : tensor<{n}x784xf32>, tensor<784x128xf32>)
                     outs(%z1 : {hidden}) -> {hidden}
  %h = {_bias(hidden, "128", relu=True)}
  %e2 = tensor.empty() : {logits}
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : {logits}) -> {logits}
  %m2 = linalg.matmul ins(%h, %w2 : {hidden}, tensor<128x10xf32>)
                     outs(%z2 : {logits}) -> {logits}
  %a2 = {_bias(logits, "10", relu=False)}
  %s = linalg.softmax dimension(1) ins(%a2 : {logits}) outs(%e2 : {logits}) -> {logits}
  return %s : {logits}
}}
"""
    binary = compiler.compile_str(text, target_backends=["llvm-cpu"])
    config = runtime.Config("local-task")
    context = runtime.SystemContext(config=config)
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, binary))
    main = context.modules.module["main"]
    args = [runtime.asdevicearray(config.device, a) for a in model.inputs]
    return lambda: main(*args).to_host()


def _bias(tensor: str, size: str, relu: bool) -> str:
    """A linalg.generic adding the bias row (and applying ReLU) to a matmul result."""
    index = "1" if relu else "2"
    result, bias, empty = (f"%m{index}", f"%b{index}", f"%e{index}")
    body = "%v = arith.addf %a, %b : f32\n"
    if relu:
        body += "    %r = arith.maximumf %v, %zero : f32\n    linalg.yield %r : f32"
    else:
        body += "    linalg.yield %v : f32"
    maps = "[affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>]"
    return (
        f'linalg.generic {{indexing_maps = {maps}, iterator_types = ["parallel", "parallel"]}}\n'
        f"      ins({result}, {bias} : {tensor}, tensor<{size}xf32>) outs({empty} : {tensor}) {{\n"
        f"  ^bb0(%a: f32, %b: f32, %o: f32):\n    {body}\n  }} -> {tensor}"
    )
