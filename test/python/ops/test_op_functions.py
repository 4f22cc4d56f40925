"""The Python functions of the operators (``xrelax.op``): every operator built through
its function gives the IR its textual form parses to; attributes given as Python
values are converted to the declared kinds; misuse is a one-line error."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from test_textual_form import EXAMPLES, module_text, parse, printed
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Block

from xrelax import op
from xrelax.dialects import dtypes
from xrelax.dialects.relax import FuncOp, PrimType, RelaxError, ShapeType, TensorType
from xrelax.dialects.shapes import symbolic
from xrelax.frontend.block_builder import BlockBuilder, BuilderError
from xrelax.ops.library import OPERATORS

# The attributes of each EXAMPLES entry, as Python values (absent: none).
PYTHON_ATTRIBUTES: dict[str, dict] = {
    "astype": {"dtype": "f16"},
    "permute_dims": {"axes": [1, 0, 2]},
    "expand_dims": {"axis": [0, -1]},
    "squeeze": {"axis": [1]},
    "concat": {"axis": 0},
    "split": {"indices_or_sections": 2, "axis": 1},
    "take": {"axis": 1},
    "strided_slice": {"axes": [0, 1], "begin": [1, -3], "end": [100, 4], "strides": [2, 1]},
    **{name: {"axis": [1], "keepdims": True} for name in ("sum", "mean", "max", "min", "prod")},
    "softmax": {"axis": -1},
    "layer_norm": {"axes": [-1], "epsilon": 1e-5},
    "conv1d": {"strides": [2], "padding": [1, 0], "dilation": [1], "groups": 2},
    "conv2d": {"padding": [1]},
    "max_pool2d": {"pool_size": [2, 2], "strides": [2, 2]},
    "avg_pool2d": {"pool_size": [3], "padding": [1]},
    "grid_sample": {
        "mode": StringAttr("cubic"),
        "padding_mode": StringAttr("reflection"),
        "align_corners": True,
    },
    "resize": {
        "mode": StringAttr("cubic"),
        "axes": [2, 3],
        "coordinate_transformation_mode": StringAttr("align_corners"),
        "exclude_outside": True,
    },
    "conv3d": {"padding": [0, 1, 1]},
    **{
        f"conv_transpose{k}d": {"strides": [2], "padding": [1], "output_padding": [1], "groups": 2}
        for k in (1, 2, 3)
    },
    **{
        f"{kind}_pool{k}d": {"pool_size": [3], "padding": [1], "dilation": [2]}
        for kind in ("max", "avg")
        for k in (1, 3)
    },
    "zeros": {"dtype": "f32"},
    "ones": {"dtype": np.int32},
    "arange": {"dtype": dtypes.F32},
    "tril": {"k": -1},
    "pad": {"pad_width": [1, 0, 2, 3]},
    "slice_scatter": {"axis": 1, "begin": 1, "end": 4, "step": 2},
}

PYTHON_ATTRIBUTES.update(
    {
        "cumsum": {"axis": 1, "exclusive": True, "dtype": "i32"},
        "cumprod": {"axis": 0, "exclusive": True},
        "argmax": {"axis": 1, "keepdims": True},
        "argmin": {"axis": 0, "select_last_index": True},
        "gather_elements": {"axis": 1},
        "gather_nd": {"batch_dims": 1},
        "runtime_attrs": {
            "op": StringAttr("relax.sum"),
            "names": ArrayAttr([StringAttr("axis")]),
            "attrs": DictionaryAttr({"keepdims": IntegerAttr.from_bool(True)}),
        },
    }
)
PYTHON_ATTRIBUTES.update(
    {
        "argsort": {"axis": 0, "descending": True},
        "unique_all": {"axis": 1, "sorted": False},
        "non_max_suppression": {"center_point_box": True},
        "scatter_elements": {"axis": 1, "reduction": StringAttr("add")},
    }
)

NAMES = sorted(o.name.removeprefix("relax.") for o in OPERATORS)


def built_with_function(name: str) -> str:
    """The EXAMPLES function of ``relax.<name>`` built with ``op.<name>``, printed."""
    func = next(o for o in parse(module_text(name)).ops if isinstance(o, FuncOp))
    types = list(func.function_type.inputs.data)
    bb = BlockBuilder()
    with bb.function("f", [(f"a{i}", t) for i, t in enumerate(types)], types[0]) as params:
        operands = [params] if name == "concat" else params
        bb.emit(getattr(op, name)(*operands, **PYTHON_ATTRIBUTES.get(name, {})), "r")
        bb.emit_func_output(params[0])
    return printed(bb.get())


def test_every_operator_has_a_function_and_a_case():
    assert sorted(op.FUNCTIONS) == sorted([*NAMES, "shape_of", "tuple"])
    for name, (_, attrs) in EXAMPLES.items():
        assert bool(attrs) == (name in PYTHON_ATTRIBUTES), name


@pytest.mark.parametrize("name", NAMES)
def test_function_builds_the_parsed_form(name):
    assert built_with_function(name) == printed(parse(module_text(name)))


def test_function_metadata():
    from xrelax.ops.reduce import SumOp

    assert (op.sum.__name__, op.sum.__doc__) == ("sum", SumOp.__doc__)
    assert str(inspect.signature(op.sum)) == "(x, *, axis=None, keepdims=None)"


def _types(*types):
    return BlockBuilder(), [(f"a{i}", t) for i, t in enumerate(types)]


T = TensorType.of(["n", 4], dtypes.F32)


def test_returns_an_operation_not_inserted_with_its_type_deduced():
    bb, params = _types(T)
    with bb.function("f", params) as (x,):
        exp = op.exp(x)
        assert exp.parent is None
        assert exp.results[0].type == T
        y = bb.emit(op.add(exp, op.negative(exp)), "y")
        assert [o.name for o in bb._func.body.block.ops] == [
            "relax.exp",
            "relax.negative",
            "relax.add",
        ]
        bb.emit_func_output(y)


def test_dims_become_a_shape_and_arrays_constants():
    bb, params = _types(TensorType.of(["n", 2, 2], dtypes.F32))
    with bb.function("f", params) as (x,):
        r = bb.emit(op.reshape(x, ["n", np.int64(4)]))
        assert r.type == TensorType.of(["n", 4], dtypes.F32)
        c = bb.emit(op.add(r, np.ones(4, np.float32)))
        bb.emit_func_output(c)
    text = printed(bb.get())
    assert "relax.shape [n, 4] : !relax.shape<[n, 4]>" in text
    assert "relax.const dense<1.000000e+00> : !relax.tensor<[4], f32>" in text


def test_integers_and_expressions_become_prim_values():
    bb = BlockBuilder()
    with bb.function("f", {"n": PrimType.of(value="n")}) as (n,):
        r = bb.emit(op.arange(0, n, 2))
        assert r.type == TensorType.of([symbolic.parse_expr("floordiv(n + 1, 2)")], dtypes.I64)
        f = bb.emit(op.full(["n", 3], 7))
        bb.emit_func_output(bb.emit(op.astype(f, dtype="f32")))
    text = printed(bb.get())
    assert "relax.prim_value 0 : !relax.prim<i64, 0>" in text
    assert "relax.prim_value 2 : !relax.prim<i64, 2>" in text
    assert "relax.prim_value 7 : !relax.prim<i64, 7>" in text
    with pytest.raises(RelaxError, match="^relax.exp: "):
        op.exp("n")


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"axis": 1}, {"axis": [1]}),
        (
            {"axis": (0, np.int64(1)), "keepdims": np.bool_(False)},
            {"axis": [0, 1], "keepdims": False},
        ),
        ({"keepdims": True, "axis": None}, {"keepdims": True}),
    ],
)
def test_attribute_conversion(kwargs, expected):
    built = op.sum(Block(arg_types=[T]).args[0], **kwargs)
    converted = {
        "axis": lambda v: DenseArrayBase.from_list(i64, v),
        "keepdims": IntegerAttr.from_bool,
    }
    assert dict(built.properties) == {k: converted[k](v) for k, v in expected.items()}


def test_operands_by_name_and_variadic_forms():
    block = Block(arg_types=[T, T])
    a, b = block.args
    assert op.subtract(rhs=b, lhs=a).operands[0] is a
    for concat in (op.concat(a, b, axis=0), op.concat([a, b], axis=0), op.concat(tensors=(a, b))):
        assert list(concat.operands) == [a, b]
    assert op.tuple(a, b).results[0].type.types == (T, T)
    assert op.shape_of(a).results[0].type == ShapeType.of(["n", 4])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda x: op.add(x), "add() is missing operand 'rhs' (operands: lhs, rhs)"),
        (
            lambda x: op.exp(x, x),
            "exp() takes 1 operand(s) (x); give attributes by keyword (none)",
        ),
        (
            lambda x: op.sum(x, axes=[1]),
            "sum() got an unexpected keyword 'axes' (attributes: axis, keepdims)",
        ),
        (
            lambda x: op.sum(x, axis="one"),
            "sum(): attribute 'axis' expects a list of integers, got 'one'",
        ),
        (
            lambda x: op.astype(x, dtype="float128"),
            "astype(): attribute 'dtype' expects an element type (f16, f32, f64, bf16, i1, "
            "i8, i16, i32, i64, ui8, ui16, ui32, ui64), got 'float128'",
        ),
        (lambda x: op.softmax(x, axis=1.5), "softmax(): attribute 'axis' expects an integer"),
        (
            lambda x: op.exp(3.0),
            "exp(): operand 'x' must be a relax value, an operation, a list of dims, an "
            "integer or symbolic expression (a relax.prim_value) or a numpy array, got float",
        ),
        (lambda x: op.add(x, x, lhs=x), "add() got operand 'lhs' twice"),
    ],
)
def test_misuse_is_a_type_error(call, message):
    with pytest.raises(TypeError) as info:
        call(Block(arg_types=[T]).args[0])
    assert str(info.value).startswith(message)


def test_deduction_error_names_the_operator():
    x, y = Block(arg_types=[T, TensorType.of(["n", 3], dtypes.F32)]).args
    with pytest.raises(RelaxError, match=r"^relax.add: dimension 1 of the broadcast shapes"):
        op.add(x, y)


def test_emit_op_uses_the_functions():
    bb, params = _types(T)
    with bb.function("f", params) as (x,):
        s = bb.emit_op("sum", x, axis=1, keepdims=True, name="s")
        assert s.type == TensorType.of(["n", 1], dtypes.F32)
        with pytest.raises(BuilderError, match="'relax.nope' is not a relax operator"):
            bb.emit_op("relax.nope", x)
        bb.emit_func_output(s)
