"""Optional comparison rows: the same MLP compiled by Apache TVM (Relax, llvm target,
default pipeline) and by IREE (llvm-cpu for the host CPU), when installed
(``pip install -e '.[peers]'``).

Both compile the MLP with the batch size fixed to the benchmark's n. Each runs in a
child process (TVM's runtime keeps worker threads spinning after a call, which slowed
whatever ran next on 2 cores) whose numpy BLAS has one thread, alternating there with
the VM and numpy; IREE on its ``local-sync`` driver (one thread). Issue 17's
dense-layer target (the VM at or under IREE's time at n=256) so compares one thread
with one thread, which the parent's BLAS, free to take both cores, would not.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from bench.models import Model

IREE = "IREE llvm-cpu"
IREE_MLP_256_RATIO = 0.232 / 0.269
"""IREE llvm-cpu / numpy on mlp n=256 as issue 17 measured it (0.232 ms vs 0.269 ms)."""
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def mlp_rows(model: Model, repeat: int) -> list:
    """TVM and IREE rows for an MLP model (or a 'not installed' note), each measured in
    a child process with one thread, alternating with the VM and numpy there; at n=256,
    the VM against IREE (issue 17's dense-layer target)."""
    from bench.run import Row

    n = model.inputs[0].shape[0]
    rows = []
    for name in PEERS:
        times = _in_child(name, n, repeat)
        label = f"{model.name}: {name} / numpy, one thread each"
        if not isinstance(times, dict):
            rows.append(Row("end to end", label, times or "not installed"))
            if name == IREE and n == 256:
                rows.append(
                    Row("end to end", f"{model.name}: VM / {IREE}", "IREE not installed",
                        f"<= 1.00x (issue 17: IREE at {IREE_MLP_256_RATIO:.2f}x numpy)")
                )  # fmt: skip
            continue
        peer, vm, numpy_seconds = times[name], times["vm"], times["numpy"]
        rows.append(Row("end to end", label, f"{peer / numpy_seconds:.2f}x  ({peer * 1e3:.3f} ms)"))
        if name == IREE and n == 256:
            ratio = vm / peer
            rows.append(
                Row("end to end", f"{model.name}: VM / {IREE}, one thread each",
                    f"{ratio:.2f}x  ({vm * 1e3:.3f} vs {peer * 1e3:.3f} ms)", "<= 1.00x",
                    ratio <= 1.0)
            )  # fmt: skip
    return rows


def _in_child(name: str, n: int, repeat: int) -> dict[str, float] | str | None:
    """:func:`_time_one_thread` in a child process whose BLAS has one thread (None: the
    peer is not installed; a string: how it failed)."""
    context = multiprocessing.get_context("spawn")
    saved = {k: os.environ.get(k) for k in ONE_THREAD}
    os.environ.update(dict.fromkeys(ONE_THREAD, "1"))  # the child's numpy reads them
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            return pool.submit(_time_one_thread, name, n, repeat).result()
    except ImportError:
        return None
    except Exception as err:  # noqa: BLE001 - a peer failing must not stop the suite
        return f"failed: {err}"[:60]
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _time_one_thread(name: str, n: int, repeat: int) -> dict[str, float]:
    """Seconds per call of peer ``name``, the VM and numpy on the MLP at batch ``n``,
    alternating in this (one-thread) process."""
    import xrelax
    from bench.models import mlp
    from bench.run import timeit

    model = mlp(n)
    run = PEERS[name](model)
    np.testing.assert_allclose(run(), model.numpy(*model.inputs), rtol=1e-4, atol=1e-5)
    vm = xrelax.VirtualMachine(xrelax.compile(xrelax.parse(model.path.read_text())))["main"]
    return timeit(
        {
            name: run,
            "vm": lambda: vm(*model.inputs),
            "numpy": lambda: model.numpy(*model.inputs),
        },
        repeat,
    )


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
