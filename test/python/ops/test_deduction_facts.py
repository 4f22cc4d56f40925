"""The facts a deduction relies on but cannot prove are part of its result: memoised
with the type (a cache hit gives them too) and never shared between deductions."""

from __future__ import annotations

import xrelax
from xrelax.dialects.dtypes import F32
from xrelax.dialects.relax import ShapeType, TensorType
from xrelax.dialects.shapes.obligations import Facts
from xrelax.ops.linalg import MatmulOp
from xrelax.ops.manipulate import ReshapeOp

MATMUL = """\
relax.func @main(%a: !relax.tensor<[n, cache_k], f32>, %b: !relax.tensor<[cache_m, 2], f32>) \
-> !relax.tensor<[n, 2], f32> {
  %x = relax.matmul %a, %b : (!relax.tensor<[n, cache_k], f32>, !relax.tensor<[cache_m, 2], f32>)
  %y = relax.matmul %a, %b : (!relax.tensor<[n, cache_k], f32>, !relax.tensor<[cache_m, 2], f32>)
  %z = relax.add %x, %y : (!relax.tensor<[n, 2], f32>, !relax.tensor<[n, 2], f32>)
  relax.return %z : !relax.tensor<[n, 2], f32>
}
"""


def test_a_cache_hit_gives_the_facts_of_the_first_deduction():
    # Variables no other test uses: the first deduction is not a cache hit.
    lhs, rhs = TensorType.of(["n", "first_k"], F32), TensorType.of(["first_m", 2], F32)
    first = MatmulOp.deduction([lhs, rhs], {})
    again = MatmulOp.deduction([lhs, rhs], {})
    assert again is first
    assert [str(f) for f in again.facts] == ["first_k == first_m"]
    assert again.type == TensorType.of(["n", 2], F32)


def test_each_op_has_its_facts_whoever_deduced_first():
    func = xrelax.parse(MATMUL).ops.first
    x, y, z = list(func.body.block.ops)[:3]
    # The parser and the verifier deduced both matmuls already: these are cache hits.
    expected = ["cache_k == cache_m"]
    assert [str(f) for f in x.obligations()] == expected
    assert [str(f) for f in y.obligations()] == expected
    assert z.obligations() == ()


def test_facts_are_kept_in_order_once_each():
    x = TensorType.of(["rows", "cols"], F32)
    facts = ReshapeOp.deduction([x, ShapeType.of([-1, "width"])], {}).facts
    assert [str(f) for f in facts] == ["1 <= width", "floormod(cols * rows, width) == 0"]
    collected = Facts()
    for fact in (*facts, facts[0]):
        collected.add(fact)
    assert collected.as_tuple() == facts
