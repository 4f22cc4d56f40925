"""Optional comparison rows: the same MLP compiled by Apache TVM (Relax, llvm target,
default pipeline) and by IREE (llvm-cpu for the host CPU), when installed
(``pip install -e '.[peers]'``).

Both compile the MLP with the batch size fixed to the benchmark's n; each row reports
the peer's time over hand-written numpy, measured in the same run. IREE runs on its
``local-sync`` driver (one thread, as numpy's BLAS and the VM here), in the
benchmark's own process, alternating with the VM and numpy; TVM in a child process
(its runtime keeps worker threads spinning after a call, which slowed whatever ran
next on 2 cores).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from bench.models import Model

IREE = "IREE llvm-cpu"
IREE_MLP_256_RATIO = 0.232 / 0.269
"""IREE llvm-cpu / numpy on mlp n=256 as issue 17 measured it (0.232 ms vs 0.269 ms)."""


def in_process(model: Model) -> dict[str, Callable[[], object]]:
    """The peers timed beside the VM, alternating with it: IREE when installed."""
    try:
        run = _iree_mlp(model)
    except ImportError:
        return {}
    np.testing.assert_allclose(run(), model.numpy(*model.inputs), rtol=1e-4, atol=1e-5)
    return {IREE: run}


def mlp_rows(model: Model, times: dict[str, float], repeat: int) -> list:
    """TVM and IREE rows for an MLP model (or a 'not installed' note) from ``times`` (the
    VM's, numpy's and the in-process peers'); at n=256, the VM against IREE (issue 17's
    dense-layer target: at or under IREE's time)."""
    from bench.run import Row

    n = model.inputs[0].shape[0]
    vm_seconds, numpy_seconds = times["vm"], times["numpy"]
    rows = []
    for name in PEERS:
        label = f"{model.name}: {name} / numpy"
        seconds = times.get(name)
        if seconds is None and name != IREE:
            seconds = _in_child(name, n, repeat)
        if seconds is None or isinstance(seconds, str):
            rows.append(Row("end to end", label, seconds or "not installed"))
            if name == IREE and n == 256:
                # Without IREE, its ratio to numpy measured for issue 17 stands in.
                ratio = vm_seconds / numpy_seconds
                rows.append(
                    Row("end to end", f"{model.name}: VM / numpy vs IREE's (not installed)",
                        f"{ratio:.2f}x vs {IREE_MLP_256_RATIO:.2f}x",
                        f"<= {IREE_MLP_256_RATIO:.2f}x", ratio <= IREE_MLP_256_RATIO)
                )  # fmt: skip
            continue
        rows.append(
            Row("end to end", label, f"{seconds / numpy_seconds:.2f}x  ({seconds * 1e3:.3f} ms)")
        )
        if name == IREE and n == 256:
            ratio = vm_seconds / seconds
            rows.append(
                Row("end to end", f"{model.name}: VM / {IREE}", f"{ratio:.2f}x",
                    "<= 1.00x", ratio <= 1.0)
            )  # fmt: skip
    return rows


def _in_child(name: str, n: int, repeat: int) -> float | str | None:
    """Seconds per call of peer ``name`` measured in a child process (None: not
    installed; a string: how it failed)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        try:
            return pool.submit(_time_peer, name, n, repeat).result()
        except ImportError:
            return None
        except Exception as err:  # noqa: BLE001 - a peer failing must not stop the suite
            return f"failed: {err}"[:60]


def _time_peer(name: str, n: int, repeat: int) -> float:
    """Seconds per call of peer ``name`` on the MLP at batch ``n`` (checked against numpy)."""
    from bench.models import mlp
    from bench.run import timeit

    model = mlp(n)
    run = PEERS[name](model)
    np.testing.assert_allclose(run(), model.numpy(*model.inputs), rtol=1e-4, atol=1e-5)
    return timeit({name: run}, repeat)[name]


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
    binary = compiler.compile_str(
        text, target_backends=["llvm-cpu"], extra_args=["--iree-llvmcpu-target-cpu=host"]
    )
    config = runtime.Config("local-sync")
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


PEERS: dict[str, Callable[[Model], Callable[[], np.ndarray]]] = {
    "TVM Relax": _tvm_mlp,
    IREE: _iree_mlp,
}
