"""Memory planning numbers: planned against one-allocation-per-tensor bytes."""

from __future__ import annotations

from pathlib import Path

import xrelax
from xrelax.dialects.relax import FuncOp
from xrelax.dialects.shapes import symbolic
from xrelax.transforms.plan_memory import plan_block

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
UNFUSED = "relax-normalize,relax-legalize-ops,relax-to-non-dataflow,relax-call-tir-rewrite"


def plan(text: str):
    module = xrelax.apply(xrelax.parse(text), UNFUSED)
    func = next(op for op in module.ops if isinstance(op, FuncOp))
    return plan_block(func.body.block)


def test_mlp_with_a_fixed_batch() -> None:
    text = (EXAMPLES / "mlp.mlir").read_text().replace("[n, ", "[4, ")
    result = plan(text)
    # matmul, add, relu -> [4, 128]; matmul, add, softmax -> [4, 10] (the output).
    assert int(result.naive_bytes) == 3 * 4 * 128 * 4 + 3 * 4 * 10 * 4
    # relu reuses the matmul's storage; the second add reuses the first add's.
    assert int(result.planned_bytes) == 2 * 4 * 128 * 4 + 4 * 10 * 4
    assert result.planned_bytes < result.naive_bytes


def test_symbolic_chain_of_elementwise_ops() -> None:
    ops = "\n".join(
        f"  %v{i} = relax.exp {'%x' if i == 0 else f'%v{i - 1}'} : (!relax.tensor<[n, 16], f32>)"
        for i in range(6)
    )
    text = (
        "relax.func @main(%x: !relax.tensor<[n, 16], f32>) -> !relax.tensor<[n, 16], f32> {\n"
        f"{ops}\n  relax.return %v5 : !relax.tensor<[n, 16], f32>\n}}\n"
    )
    result = plan(text)
    assert symbolic.format_expr(result.naive_bytes) == "n * 384"
    # Five intermediates alternate between two storages of provably equal size; the
    # result has its own.
    assert symbolic.format_expr(result.planned_bytes) == "n * 192"
    assert symbolic.evaluate(result.planned_bytes, {"n": 10}) == 1920
