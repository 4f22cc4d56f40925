"""The Python API: parse / apply / print_module, errors, and the BlockBuilder."""

from __future__ import annotations

import numpy as np
import pytest

import xrelax
from xrelax import CompileError
from xrelax.backends.interpreter import InterpreterError
from xrelax.dialects.dtypes import F32
from xrelax.dialects.relax import ObjectType, ShapeType, TensorType
from xrelax.frontend.block_builder import BlockBuilder, BuilderError

PROGRAM = """\
relax.func @main(%x: !relax.tensor<[n, 4], f32>, %w: !relax.tensor<ndim=2, f32>) -> !relax.tensor<ndim=2, f32> {
  %gv0, %s = relax.dataflow -> (!relax.tensor<[n, 4], f32>, !relax.shape<[k, m]>) {
    %lv0 = relax.exp %x : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
    %lv1 = relax.match_shape %w [k, m] : (!relax.tensor<ndim=2, f32>) -> !relax.tensor<[k, m], f32>
    %lv2 = relax.add %lv0, %lv0 : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
    %lv3 = relax.shape [k, m] : !relax.shape<[k, m]>
    relax.output %lv2, %lv3 : !relax.tensor<[n, 4], f32>, !relax.shape<[k, m]>
  }
  %p = relax.call_packed "my.log"(%gv0, %s) : (!relax.tensor<[n, 4], f32>, !relax.shape<[k, m]>) -> !relax.object
  relax.return %gv0 : !relax.tensor<[n, 4], f32>
}
"""


def test_parse_apply_print() -> None:
    module = xrelax.parse(PROGRAM)
    text = xrelax.print_module(module)
    assert "relax.func @main" in text
    assert xrelax.print_module(xrelax.apply(xrelax.parse(text), "relax-normalize")) == text


def test_builder_gives_the_parsed_ir() -> None:
    bb = BlockBuilder()
    params = {"x": TensorType.of(["n", 4], F32), "w": TensorType.of(2, F32)}
    with bb.function("main", params, TensorType.of(2, F32)) as (x, w):
        with bb.dataflow():
            lv0 = bb.emit_op("relax.exp", x, name="lv0")
            lv1 = bb.match_shape(w, ["k", "m"], name="lv1")
            assert lv1.type == TensorType.of(["k", "m"], F32)
            lv2 = bb.emit_op("add", lv0, lv0, name="lv2")
            lv3 = bb.shape(["k", "m"], name="lv3")
            gv0, s = bb.emit_output(lv2, lv3, names=("gv0", "s"))
        bb.call_packed("my.log", [gv0, s], ObjectType(), name="p")
        bb.emit_func_output(gv0)
    module = bb.get()
    module.verify()
    assert xrelax.print_module(module) == xrelax.print_module(xrelax.parse(PROGRAM))


def test_builder_result_type_erases_body_variables() -> None:
    bb = BlockBuilder()
    with bb.function("f", {"x": TensorType.of(1, F32)}) as (x,):
        y = bb.match_shape(x, ["m"])
        bb.emit_func_output(y)
    (func,) = bb.get().ops
    assert func.result_type == TensorType.of(1, F32)
    assert "relax.return %0 : !relax.tensor<[m], f32>" in xrelax.print_module(bb.get())


def test_builder_misuse() -> None:
    bb = BlockBuilder()
    with pytest.raises(BuilderError, match="only valid inside a dataflow region"):
        bb.emit_output()
    with (
        pytest.raises(BuilderError, match="not a relax operator"),
        bb.function("f", {"x": ShapeType.of(["n"])}) as (x,),
    ):
        bb.emit_op("relax.nope", x)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("relax.func @f(", "<string>:1:15: error: Expected argument or type"),
        (
            "relax.func @f(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[m], f32> {\n"
            "  relax.return %x : !relax.tensor<[n], f32>\n}",
            "<string>:1:1: error: 'relax.func' op result type !relax.tensor<[m], f32> uses "
            "symbolic variable(s) m that the parameters do not define",
        ),
        (
            "relax.func @f(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {\n"
            "  relax.return %x : !relax.tensor<[n], bad>\n}",
            "<string>:2:39: error: unsupported element type 'bad'",
        ),
    ],
)
def test_errors_are_located_one_liners(text: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        xrelax.parse(text)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_bad_pipeline() -> None:
    module = xrelax.parse(PROGRAM)
    with pytest.raises(CompileError, match="unknown pass 'nope'"):
        xrelax.apply(module, "nope")


def test_blank_input_is_an_empty_module():
    # As relax-opt and mlir-opt read it (xDSL's parser wants at least one op).
    for text in ("", "  \n", "// only a comment\n"):
        assert xrelax.print_module(xrelax.parse(text)) == "builtin.module {\n}\n"


def test_a_call_missing_arguments_names_them() -> None:
    module = xrelax.parse(
        "relax.func @main(%x: !relax.tensor<[n], f32>, %w: !relax.tensor<[n], f32>, "
        "%b: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {\n"
        "  relax.return %x : !relax.tensor<[n], f32>\n}"
    )
    x = np.zeros(2, np.float32)
    message = "main: missing arguments 'w', 'b' (parameters: x, w, b)"
    with pytest.raises(xrelax.VMError) as vm_error:
        xrelax.VirtualMachine(xrelax.compile(module))["main"](x)
    with pytest.raises(InterpreterError) as interpreter_error:
        xrelax.interpret(module, "main", x)
    assert str(vm_error.value) == str(interpreter_error.value) == message


def test_outputs_built_but_not_emitted_are_emitted() -> None:
    from xrelax import op, te

    n = te.var("n")
    bb = BlockBuilder()
    with bb.function("main", {"x": TensorType.of([n, 4], F32)}) as (x,):
        with bb.dataflow():
            y = bb.emit_output(op.reshape(op.exp(x), [4, n]))
            with pytest.raises(
                BuilderError, match="emit_output: expected a relax value or operation, got int"
            ):
                bb.emit_output(3)
        bb.emit_func_output(op.negative(y))
    x_value = np.arange(8, dtype=np.float32).reshape(2, 4)
    got = xrelax.VirtualMachine(xrelax.compile(bb.get()))["main"](x_value)
    np.testing.assert_allclose(got, -np.exp(x_value).reshape(4, 2), rtol=1e-6)
