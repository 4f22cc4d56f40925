"""EmitTE staging (the Relax design's EmitTE section, steps D0-D2, and call_tir_dyn):
``BlockBuilder.emit_te`` / ``te_tensor`` and the ``xrelax.topi`` library. The seed's
examples print, round-trip, compile and match numpy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import xrelax
from xrelax import op, te, topi
from xrelax.dialects.dtypes import F32
from xrelax.dialects.relax import RelaxError, ShapeType, TensorType
from xrelax.dialects.tir import PrimFuncOp
from xrelax.frontend.block_builder import BlockBuilder, BuilderError
from xrelax.transforms.kernel_table import structure_key

n, m = te.var("n"), te.var("m")
RNG = np.random.default_rng(0)


def kernels(module) -> dict[str, PrimFuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, PrimFuncOp)}


def round_trip_and_compile(module):
    """The printed module, checked to re-parse to itself, and its VM."""
    text = xrelax.print_module(module)
    reparsed = xrelax.parse(text)
    assert xrelax.print_module(reparsed) == text
    return text, xrelax.VirtualMachine(xrelax.compile(reparsed))


STATIC_KERNELS = """\
  tir.prim_func @B(%a: !tir.buffer<[128, 128], f32>, %B: !tir.buffer<[128, 128], f32>) {
    tir.for x in [0, 128) {
      tir.for y in [0, 128) {
        %0 = tir.load %a[x, y] : f32
        %1 = arith.constant 2.000000e+00 : f32
        %2 = arith.mulf %0, %1 : f32
        tir.store %B[x, y], %2 : f32
      }
    }
  }
  tir.prim_func @te_func(%x0: !tir.buffer<[128, 128], f32>, %x1: !tir.buffer<[128, 128], f32>, %C: !tir.buffer<[128, 128], f32>) {
"""

STATIC_MAIN = """\
      %a = relax.add %x, %1 : (!relax.tensor<[128, 128], f32>, !relax.tensor<[], f32>) -> !relax.tensor<[128, 128], f32>
      %b = relax.call_tir @B(%a) : (!relax.tensor<[128, 128], f32>) -> !relax.tensor<[128, 128], f32>
      %c = relax.call_tir @te_func(%x, %a) : (!relax.tensor<[128, 128], f32>, !relax.tensor<[128, 128], f32>) -> !relax.tensor<[128, 128], f32>
"""


def test_static_seed_example():
    """The design's key goals: ``A = te_tensor(a)``, ``bb.emit(te.compute(...))``, and
    ``bb.emit_te(te_func, x, a)``."""
    bb = BlockBuilder()
    with bb.function("main", {"x": TensorType.of([128, 128], F32)}) as (x,):
        with bb.dataflow():
            a = bb.emit(op.add(x, np.float32(1)), "a")
            A = bb.te_tensor(a)
            b = bb.emit(te.compute((128, 128), lambda x, y: A[x, y] * 2, name="B"), "b")

            def te_func(X, Y):
                return te.compute((128, 128), lambda x, y: X[x, y] + Y[x, y], name="C")

            c = bb.emit_te(te_func, x, a, name="c")
            out = bb.emit_output(bb.emit(op.tuple(b, c)))
        bb.emit_func_output(out)
    text, vm = round_trip_and_compile(bb.get())
    assert STATIC_KERNELS in text
    assert STATIC_MAIN in text
    x = RNG.random((128, 128), dtype=np.float32)
    b, c = vm["main"](x)
    np.testing.assert_allclose(b, (x + 1) * 2, rtol=1e-6)
    np.testing.assert_allclose(c, x + (x + 1), rtol=1e-6)


def ewise(A: te.Tensor) -> te.Tensor:
    return te.compute([n, 2 * te.floordiv(m, 2)], lambda i, j: A[i, j] + 1, name="B")


DYNAMIC_KERNEL = (
    "tir.prim_func @ewise(%x0: !tir.buffer<[n, floordiv(m, 2) * 2], f32>, "
    "%B: !tir.buffer<[n, floordiv(m, 2) * 2], f32>) sym [m] {"
)


def test_dynamic_seed_example_m_from_a_parameter():
    """``x: [n, 2 * floordiv(m, 2)]``: no buffer binds ``m``, so the kernel takes it as
    a symbolic argument and the call passes it (call_tir_dyn)."""
    bb = BlockBuilder()
    params = {"s": ShapeType.of([m]), "x": TensorType.of([n, 2 * te.floordiv(m, 2)], F32)}
    with bb.function("main", params) as (_, x):
        bb.emit_func_output(bb.emit_te(ewise, x, name="y"))
    text, vm = round_trip_and_compile(bb.get())
    assert DYNAMIC_KERNEL in text
    assert "%y = relax.call_tir @ewise(%x) sym [m] : " in text
    for width, m_value in ((4, 5), (6, 6), (0, 1)):
        x = RNG.random((3, width), dtype=np.float32)
        np.testing.assert_allclose(vm["main"]((m_value,), x), x + 1, rtol=1e-6)
    with pytest.raises(xrelax.VMError, match="expected 6, got 4"):
        vm["main"]((7,), np.zeros((3, 4), np.float32))


def test_dynamic_seed_example_m_from_match_shape():
    bb = BlockBuilder()
    with bb.function("main", {"x": TensorType.of(2, F32), "s": ShapeType.of(1)}) as (x, s):
        with bb.dataflow():
            bb.match_shape(s, [m])
            lv = bb.match_shape(x, [n, 2 * te.floordiv(m, 2)])
            gv = bb.emit_output(bb.emit_te(ewise, lv))
        bb.emit_func_output(gv)
    text, vm = round_trip_and_compile(bb.get())
    assert DYNAMIC_KERNEL in text
    x = RNG.random((2, 8), dtype=np.float32)
    np.testing.assert_allclose(vm["main"](x, (9,)), x + 1, rtol=1e-6)


def test_topi_composes_into_one_kernel():
    def dense_relu(x, w, b):
        return topi.relu(topi.add(topi.matmul(x, w), b))

    bb = BlockBuilder()
    params = {
        "x": TensorType.of([n, 8], F32),
        "w": TensorType.of([8, 5], F32),
        "b": TensorType.of([5], F32),
    }
    with bb.function("main", params) as (x, w, b):
        bb.emit_func_output(bb.emit_te(dense_relu, x, w, b))
    text, vm = round_trip_and_compile(bb.get())
    assert list(kernels(bb.get())) == ["dense_relu"]
    x, w, b = (RNG.standard_normal(s, dtype=np.float32) for s in ((3, 8), (8, 5), (5,)))
    np.testing.assert_allclose(vm["main"](x, w, b), np.maximum(x @ w + b, 0), rtol=1e-5)


# (operator, operand types, attributes): topi.NAME builds the kernel relax-legalize-ops does.
LEGALIZED = [
    ("matmul", [TensorType.of(["b", n, 4], F32), TensorType.of([4, m], F32)], {}),
    ("sum", [TensorType.of([n, 4], F32)], {"axis": [1], "keepdims": True}),
    ("softmax", [TensorType.of([n, m], F32)], {"axis": 0}),
    ("concat", [TensorType.of([n, 4], F32), TensorType.of([2, 4], F32)], {"axis": 0}),
    ("split", [TensorType.of([n, 6], F32)], {"indices_or_sections": [2, 5], "axis": 1}),
    ("reshape", [TensorType.of([n, 2, 2], F32), ShapeType.of([n, 4])], {}),
    ("conv2d", [TensorType.of([n, 3, 8, 8], F32), TensorType.of([4, 3, 3, 3], F32)],
     {"padding": [1], "strides": [2]}),
    ("astype", [TensorType.of([n], F32)], {"dtype": "i32"}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "types", "attrs"), LEGALIZED, ids=[c[0] for c in LEGALIZED])
def test_topi_is_the_legalization(name, types, attrs):
    def build(staged: bool):
        bb = BlockBuilder()
        with bb.function("main", [(f"a{i}", t) for i, t in enumerate(types)]) as params:
            args = [params] if name == "concat" else params
            if staged:
                y = bb.emit_te(getattr(topi, name), *args, **attrs)
            else:
                y = bb.emit(getattr(op, name)(*args, **attrs))
            bb.emit_func_output(y)
        return bb.get() if staged else xrelax.apply(bb.get(), "relax-legalize-ops")

    (staged,), (legalized,) = kernels(build(True)).values(), kernels(build(False)).values()
    assert structure_key(staged) == structure_key(legalized)


def test_identical_kernels_are_shared_with_legalize_ops():
    bb = BlockBuilder()
    t = TensorType.of([n, 4], F32)
    with bb.function("main", {"x": t, "y": t}) as (x, y):
        a = bb.emit_te(topi.add, x, y)
        b = bb.emit_te(topi.add, a, x)
        c = bb.emit_te(topi.add, b, y, primfunc_name="add_again")
        d = bb.emit(op.add(c, x))
        bb.emit_func_output(d)
    module = bb.get()
    assert list(kernels(module)) == ["add"]
    xrelax.apply(module, "relax-legalize-ops")
    assert list(kernels(module)) == ["add"]
    assert xrelax.print_module(module).count("relax.call_tir @add(") == 4


def test_errors():
    bb = BlockBuilder()
    params = {"x": TensorType.of(2, F32), "y": TensorType.of([n, m], F32)}
    with pytest.raises(BuilderError, match="emit_te outside a function"):
        bb.emit_te(topi.exp, None)
    with bb.function("main", params) as (x, y):
        with pytest.raises(BuilderError) as info:
            bb.emit_te(topi.exp, x)
        assert str(info.value) == (
            "te_tensor: %x has type !relax.tensor<ndim=2, f32>; a TE tensor needs a known "
            "shape and element type (match_shape it first)"
        )
        foreign = te.placeholder([n, m], F32, "foreign")
        with pytest.raises(BuilderError, match="placeholder 'foreign' stands for no relax value"):
            bb.emit_te(lambda Y: te.compute(Y.shape, lambda i, j: Y[i, j] + foreign[i, j]), y)
        with pytest.raises(BuilderError, match="must return a computed te.Tensor"):
            bb.emit_te(lambda Y: Y, y)
        k = te.var("k")
        r = te.reduce_axis(0, k, "r")
        for undefined in (
            lambda Y: te.compute([n, k], lambda i, j: Y[i, 0]),
            lambda Y: te.compute([n], lambda i: te.sum(Y[i, r], r)),
        ):
            with pytest.raises(BuilderError) as info:
                bb.emit_te(undefined, y, primfunc_name="f")
            assert str(info.value) == (
                "emit_te: kernel 'f' needs symbolic variable(s) k, which the function does "
                "not define (bind them with a parameter or match_shape)"
            )
        bb.emit_func_output(y)


def test_topi_refuses_what_it_provably_cannot_compute():
    a = te.placeholder([n, 4], F32, "a")
    b = te.placeholder([m, 4], F32, "b")
    with pytest.raises(RelaxError, match=r"^relax.add: dimension 1 of the broadcast shapes"):
        topi.add(a, te.placeholder([n, 3], F32, "c"))
    with pytest.raises(RelaxError) as info:
        topi.add(a, b)
    assert str(info.value) == (
        "topi.add: the result shape is not known (!relax.tensor<ndim=2, f32>); make the "
        "operands' shapes provably compatible (match_shape) first"
    )
    assert not hasattr(topi, "unique")


def test_what_topi_cannot_prove_travels_with_its_tensor():
    a = te.placeholder([n, 4], F32, "a")
    w = te.placeholder([m, 2], F32, "w")
    product = topi.matmul(a, w)
    assert [str(f) for f in product.facts] == ["4 == m"]
    # The kernel of a compute reading the product asserts the product's facts first.
    func, sym_params = te.create_prim_func("f", [a, w, topi.relu(product)])
    assert sym_params == []
    asserts = [line.strip() for line in str(func).splitlines() if "tir.assert" in line]
    assert asserts == ['tir.assert [4] == [m], "relax.matmul: the lhs columns equal the rhs rows"']


def test_what_topi_cannot_prove_the_kernel_checks():
    k = te.var("k")
    bb = BlockBuilder()
    params = {"a": TensorType.of([n, k], F32), "w": TensorType.of([m, 2], F32)}
    with bb.function("main", params) as (a, w):
        bb.emit_func_output(bb.emit_te(topi.matmul, a, w))
    text, vm = round_trip_and_compile(bb.get())
    assert (
        "%out: !tir.buffer<[n, 2], f32>) {\n"
        '    tir.assert [k] == [m], "relax.matmul: the lhs columns equal the rhs rows"\n'
    ) in text
    a, w = RNG.random((3, 4), dtype=np.float32), RNG.random((4, 2), dtype=np.float32)
    np.testing.assert_allclose(vm["main"](a, w), a @ w, rtol=1e-6)
    with pytest.raises(xrelax.VMError) as info:
        vm["main"](a, np.zeros((5, 2), np.float32))
    assert str(info.value) == (
        "main: kernel @matmul: relax.matmul: the lhs columns equal the rhs rows: "
        "expected k == m, got k = 4, m = 5"
    )


def test_a_failed_function_is_not_left_in_the_module():
    bb = BlockBuilder()
    with pytest.raises(RelaxError), bb.function("f", {"x": TensorType.of([n], F32)}) as (x,):
        bb.emit(op.add(x, np.zeros(3, np.float64)))
    assert list(bb.get().ops) == []


def test_the_readme_examples_run():
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "bb.function" in b]
    assert len(blocks) == 2
    namespace: dict = {"xrelax": xrelax}
    exec(compile("\n".join(blocks), "README.md", "exec"), namespace)
    module = namespace["bb"].get()
    assert "relax.call_tir @B(%x) sym [m]" in xrelax.print_module(module)
    vm = xrelax.VirtualMachine(xrelax.compile(module))
    x, w = RNG.random((3, 4), dtype=np.float32), RNG.random((4, 5), dtype=np.float32)
    np.testing.assert_allclose(vm["main"](x, w), np.exp(x @ w).sum(1), rtol=1e-5)
    e = np.exp(np.maximum(x + 1, 0))
    np.testing.assert_allclose(vm["f"]((5,), x), e / e.sum(1, keepdims=True), rtol=1e-5)
