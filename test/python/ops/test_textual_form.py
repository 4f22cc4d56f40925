"""Every operator in its textual form: it parses (with the result type written or
deduced), verifies, prints, and re-parses to the same text, in the custom and the
generic form; a written result type contradicting the deduced one is a located error."""

from __future__ import annotations

import io

import pytest
from opcheck import CTX, parse
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Region
from xdsl.printer import Printer

from xrelax.dialects.ir.diagnostics import IRError, LocatingParser, op_diagnostic, verify_module
from xrelax.dialects.relax import FuncOp, ReturnOp, TensorType
from xrelax.ops.library import OPERATORS
from xrelax.ops.manipulate import ConcatOp

T = "!relax.tensor<[n, 4], f32>"
I1 = "!relax.tensor<[n, 4], i1>"
IMAGE = "!relax.tensor<[n, 3, h, w], f32>"
SCALAR_I64 = "!relax.tensor<[], i64>"

# name -> (operand types, attribute dictionary)
EXAMPLES: dict[str, tuple[list[str], str]] = {
    **{
        name: ([T], "")
        for name in (
            "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "silu",
            "negative", "abs",
        )
    },
    **{
        name: ([T, "!relax.tensor<[4], f32>"], "")
        for name in ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum")
    },
    **{
        name: ([T, "!relax.tensor<[n, 1], f32>"], "")
        for name in (
            "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
        )
    },
    "where": ([I1, T, "!relax.tensor<[], f32>"], ""),
    "astype": ([T], "{dtype = f16}"),
    "matmul": (["!relax.tensor<[b, n, k], f32>", "!relax.tensor<[k, m], f32>"], ""),
    "reshape": (["!relax.tensor<[n, m, 2], f32>", "!relax.shape<[n, -1]>"], ""),
    "flatten": (["!relax.tensor<[n, m, 2], f32>"], ""),
    "permute_dims": (["!relax.tensor<[n, m, 2], f32>"], "{axes = array<i64: 1, 0, 2>}"),
    "expand_dims": ([T], "{axis = array<i64: 0, -1>}"),
    "squeeze": (["!relax.tensor<[n, 1, 4], f32>"], "{axis = array<i64: 1>}"),
    "concat": ([T, "!relax.tensor<[n * 2, 4], f32>"], "{axis = 0 : i64}"),
    "split": ([T], "{indices_or_sections = 2 : i64, axis = 1 : i64}"),
    "take": ([T, "!relax.tensor<[k], i64>"], "{axis = 1 : i64}"),
    "strided_slice": (
        [T],
        "{axes = array<i64: 0, 1>, begin = array<i64: 1, -3>, end = array<i64: 100, 4>, "
        "strides = array<i64: 2, 1>}",
    ),
    **{
        name: ([T], "{axis = array<i64: 1>, keepdims = true}")
        for name in ("sum", "mean", "max", "min", "prod")
    },
    "softmax": ([T], "{axis = -1 : i64}"),
    "log_softmax": ([T], ""),
    "layer_norm": (
        [T, "!relax.tensor<[4], f32>", "!relax.tensor<[4], f32>"],
        "{axes = array<i64: -1>, epsilon = 1.000000e-05 : f32}",
    ),
    "conv1d": (
        ["!relax.tensor<[n, 4, w], f32>", "!relax.tensor<[8, 2, 3], f32>"],
        "{strides = array<i64: 2>, padding = array<i64: 1, 0>, dilation = array<i64: 1>, "
        "groups = 2 : i64}",
    ),
    "conv2d": ([IMAGE, "!relax.tensor<[8, 3, 3, 3], f32>"], "{padding = array<i64: 1>}"),
    "max_pool2d": ([IMAGE], "{pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}"),
    "avg_pool2d": ([IMAGE], "{pool_size = array<i64: 3>, padding = array<i64: 1>}"),
    "grid_sample": (
        [IMAGE, "!relax.tensor<[n, 5, 6, 2], f32>"],
        '{mode = "cubic", padding_mode = "reflection", align_corners = true}',
    ),
    "resize": (
        [IMAGE, "!relax.shape<[n, 3, 2 * h, 7]>", "!relax.tensor<[2], f64>"],
        '{mode = "cubic", axes = array<i64: 2, 3>, coordinate_transformation_mode = '
        '"align_corners", exclude_outside = true}',
    ),
    "conv3d": (
        ["!relax.tensor<[n, 2, d, 5, 5], f32>", "!relax.tensor<[4, 2, 1, 3, 3], f32>"],
        "{padding = array<i64: 0, 1, 1>}",
    ),
    **{
        f"conv_transpose{k}d": (
            [f"!relax.tensor<[n, 4, {', '.join(['w'] * k)}], f32>",
             f"!relax.tensor<[4, 3, {', '.join(['3'] * k)}], f32>"],
            "{strides = array<i64: 2>, padding = array<i64: 1>, output_padding = array<i64: 1>, "
            "groups = 2 : i64}",
        )
        for k in (1, 2, 3)
    },
    **{
        f"{kind}_pool{k}d": (
            [f"!relax.tensor<[n, 3, {', '.join(['w'] * k)}], f32>"],
            "{pool_size = array<i64: 3>, padding = array<i64: 1>, dilation = array<i64: 2>}",
        )
        for kind in ("max", "avg")
        for k in (1, 3)
    },
    "zeros": (["!relax.shape<[n, 4]>"], "{dtype = f32}"),
    "ones": (["!relax.shape<[n, 4]>"], "{dtype = i32}"),
    "full": (["!relax.shape<[n, 4]>", "!relax.tensor<[], f32>"], ""),
    "arange": ([SCALAR_I64] * 3, "{dtype = f32}"),
    "tril": ([IMAGE], "{k = -1 : i64}"),
    "triu": ([T], ""),
    "unique": ([T], ""),
    "broadcast_to": (["!relax.tensor<[1, 4], i1>", "!relax.shape<[n, 4]>"], ""),
    "pad": ([T, "!relax.tensor<[], f32>"], "{pad_width = array<i64: 1, 0, 2, 3>}"),
    "slice_scatter": (
        [T, "!relax.tensor<[n, 2], f32>"],
        "{axis = 1 : i64, begin = 1 : i64, end = 4 : i64, step = 2 : i64}",
    ),
}  # fmt: skip
EXAMPLES.update(
    {
        **{name: ([T], "") for name in ("sin", "cos", "erf", "isnan")},
        "fmod": ([T, "!relax.tensor<[4], f32>"], ""),
        **{
            name: ([I1, "!relax.tensor<[4], i1>"], "")
            for name in ("bitwise_and", "bitwise_or", "bitwise_xor")
        },
        "cumsum": ([I1], "{axis = 1 : i64, dtype = i32, exclusive = true}"),
        "cumprod": ([T], "{axis = 0 : i64, exclusive = true}"),
        "argmax": ([T], "{axis = 1 : i64, keepdims = true}"),
        "argmin": ([T], "{axis = 0 : i64, select_last_index = true}"),
        "gather_elements": ([T, "!relax.tensor<[n, k], i64>"], "{axis = 1 : i64}"),
        "gather_nd": ([T, "!relax.tensor<[n, k, 1], i32>"], "{batch_dims = 1 : i64}"),
    }
)
EXAMPLES.update(
    {
        "runtime_attrs": (
            [T, "!relax.tensor<[1], i64>"],
            '{op = "relax.sum", names = ["axis"], attrs = {keepdims = true}}',
        ),
        "tensor_to_shape": (["!relax.tensor<[2], i64>"], ""),
    }
)

EXAMPLES.update(
    {
        **{
            name: ([T], "")
            for name in (
                "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
                "floor", "ceil", "round", "log1p", "expm1", "log2", "log10", "exp2",
            )
        },
        "argsort": ([T], "{axis = 0 : i64, descending = true}"),
        "unique_all": ([T], "{axis = 1 : i64, sorted = false}"),
        "nonzero": ([T], ""),
        "non_max_suppression": (
            ["!relax.tensor<[b, n, 4], f32>", "!relax.tensor<[b, c, n], f32>",
             "!relax.tensor<[], i64>", "!relax.tensor<[1], f32>", "!relax.tensor<[], f32>"],
            "{center_point_box = true}",
        ),
        "scatter_elements": (
            [T, "!relax.tensor<[n, k], i64>", "!relax.tensor<[n, k], f32>"],
            '{axis = 1 : i64, reduction = "add"}',
        ),
    }
)  # fmt: skip


def module_text(name: str, result: str | None = None) -> str:
    """A function applying the operator ``relax.<name>`` to its parameters."""
    types, attrs = EXAMPLES[name]
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    operands = ", ".join(f"%a{i}" for i in range(len(types)))
    attr_text = f" {attrs}" if attrs else ""
    result_text = f" -> {result}" if result else ""
    return (
        f"relax.func @f({params}) -> {types[0]} {{\n"
        f"  %r = relax.{name} {operands}{attr_text} : ({', '.join(types)}){result_text}\n"
        f"  relax.return %a0 : {types[0]}\n"
        "}\n"
    )


def printed(module, generic: bool = False) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue()


def deduced_result(name: str) -> str:
    """The printed result type of the operator's example, deduced at parse time."""
    line = printed(parse(module_text(name))).splitlines()[2]
    return line.rsplit(" -> ", 1)[1]


NAMES = sorted(op.name.removeprefix("relax.") for op in OPERATORS)
TUPLE_RESULTS = ("split", "unique_all")


def test_every_operator_has_an_example():
    assert sorted(EXAMPLES) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_round_trip(name):
    deduced = printed(parse(module_text(name)))
    assert printed(parse(deduced)) == deduced
    written = printed(parse(module_text(name, deduced_result(name))))
    assert written == deduced


@pytest.mark.parametrize("name", NAMES)
def test_generic_round_trip(name):
    module = parse(module_text(name))
    generic = printed(module, generic=True)
    assert f'"relax.{name}"' in generic
    reparsed = parse(generic)
    assert printed(reparsed, generic=True) == generic
    assert printed(reparsed) == printed(module)


@pytest.mark.parametrize("name", NAMES)
def test_contradicting_result_is_a_located_error(name):
    wrong = "!relax.tensor<ndim=7, f32>"
    text = module_text(name, f"!relax.tuple<{wrong}>" if name in TUPLE_RESULTS else wrong)
    module = LocatingParser(CTX, text, "ops.mlir").parse_module()
    with pytest.raises(IRError) as info:
        verify_module(module)
    diagnostic = str(op_diagnostic(info.value.op, info.value.message))
    assert diagnostic.startswith(f"ops.mlir:2:3: error: 'relax.{name}' op declared result type")
    assert "does not match the deduced type" in diagnostic


def test_properties_are_in_the_attribute_dictionary():
    module = parse(module_text("sum"))
    (op,) = [o for o in module.walk() if o.name == "relax.sum"]
    assert set(op.properties) == {"axis", "keepdims"}
    assert not op.attributes
    assert "<{axis = array<i64: 1>, keepdims = true}>" in printed(module, generic=True)


def test_python_builder_deduces_the_result():
    a, b = TensorType.of(["m", 224], None), TensorType.of(["m * 2", 224], None)
    block = Block(arg_types=[a, b])
    concat = ConcatOp.build_deduced(block.args, axis=IntegerAttr(0, i64))
    block.add_ops([concat, ReturnOp(concat.results[0])])
    func = FuncOp("f", [a, b], concat.results[0].type, Region(block))
    module = ModuleOp([func])
    verify_module(module)
    assert "-> !relax.tensor<[m * 3, 224], ?>" in printed(module)
