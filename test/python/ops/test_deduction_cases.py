"""Exact deduction cases (the design seeds' examples among them), provable mismatches
with their messages, and the safety net: unknown dtype / rank / shape propagate."""

from __future__ import annotations

import pytest
from opcheck import CTX, bool_attr, int_attr, ints
from xdsl.dialects.builtin import FloatAttr, IndexType, f32
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from xrelax.dialects import dtypes
from xrelax.dialects.ir.diagnostics import LocatingParser
from xrelax.dialects.relax import RelaxError, show_type
from xrelax.ops.create import ArangeOp, FullOp, OnesOp, TrilOp, TriuOp, ZerosOp
from xrelax.ops.elementwise import (
    AddOp,
    AstypeOp,
    EqualOp,
    ExpOp,
    NegativeOp,
    ReluOp,
    SubtractOp,
    WhereOp,
)
from xrelax.ops.gather import TakeOp
from xrelax.ops.linalg import MatmulOp
from xrelax.ops.manipulate import (
    ConcatOp,
    ExpandDimsOp,
    FlattenOp,
    PermuteDimsOp,
    ReshapeOp,
    SplitOp,
    SqueezeOp,
    StridedSliceOp,
)
from xrelax.ops.nn import (
    AvgPool2dOp,
    Conv1dOp,
    Conv2dOp,
    LayerNormOp,
    MaxPool2dOp,
    SoftmaxOp,
)
from xrelax.ops.reduce import MaxOp, MeanOp, SumOp
from xrelax.ops.set import UniqueOp


def deduce(op, *types: str, **props) -> str:
    """The printed result type of ``op`` applied to operands of the written types."""
    attrs = [Parser(CTX, t).parse_type() for t in types]
    return show_type(op.deduction(attrs, props).type)


def tensor(shape: str, dtype: str = "f32") -> str:
    return f"!relax.tensor<{shape}, {dtype}>"


def shape(dims: str) -> str:
    return f"!relax.shape<{dims}>"


def expect_error(op, types: list[str], props: dict, *fragments: str) -> None:
    with pytest.raises(RelaxError) as info:
        deduce(op, *types, **props)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


# ------------------------------------------------------------------------------ the seeds


def test_seed_reshape_and_flatten():
    x = tensor("[n, m, 2]")
    assert deduce(ReshapeOp, x, shape("[n, m * 2]")) == tensor("[n, m * 2]")
    assert deduce(FlattenOp, tensor("[n, m * 2]")) == tensor("[m * n * 2]")
    assert deduce(ReshapeOp, tensor("[n, 2, 2]"), shape("[n, 4]")) == tensor("[n, 4]")
    assert deduce(FlattenOp, tensor("[n, 4]")) == tensor("[n * 4]")


def test_seed_concat():
    a, b = tensor("[m, 224, 224, 3]"), tensor("[m * 2, 224, 224, 3]")
    assert deduce(ConcatOp, a, b, axis=int_attr(0)) == tensor("[m * 3, 224, 224, 3]")
    assert deduce(ConcatOp, a, b) == tensor("[m * 3, 224, 224, 3]")


def test_seed_broadcasting():
    assert deduce(AddOp, tensor("[n, m]"), tensor("[m]")) == tensor("[n, m]")
    assert deduce(AddOp, tensor("[n, 1, m]"), tensor("[2, m]")) == tensor("[n, 2, m]")
    assert deduce(EqualOp, tensor("[n, 1]"), tensor("[4]")) == tensor("[n, 4]", "i1")
    cond, a, b = tensor("[n, 1]", "i1"), tensor("[m]"), tensor("[1]")
    assert deduce(WhereOp, cond, a, b) == tensor("[n, m]")


def test_reshape_infers_minus_one():
    x = tensor("[n, m, 2]")
    assert deduce(ReshapeOp, x, shape("[n, -1]")) == tensor("[n, m * 2]")
    assert deduce(ReshapeOp, x, shape("[-1]")) == tensor("[m * n * 2]")
    assert deduce(ReshapeOp, x, shape("[-1, 2]")) == tensor("[m * n, 2]")
    assert deduce(ReshapeOp, tensor("[6, 4]"), shape("[-1, 8]")) == tensor("[3, 8]")
    # Divisibility that cannot be proven: the quotient, checked at run time.
    assert deduce(ReshapeOp, tensor("[n, 3]"), shape("[2, -1]")) == tensor(
        "[2, floordiv(n * 3, 2)]"
    )


@pytest.mark.parametrize(
    ("a", "b", "result"),
    [
        ("[b, n, k]", "[k, m]", "[b, n, m]"),
        ("[1, n, k]", "[b, k, m]", "[b, n, m]"),
        ("[a, 1, n, k]", "[b, k, m]", "[a, b, n, m]"),
        ("[k]", "[b, k, m]", "[b, m]"),
        ("[n, k]", "[k]", "[n]"),
        ("[k]", "[k]", "[]"),
        ("[n, k]", "[j, m]", "[n, m]"),  # inner sizes undecidable: checked at run time
        ("[a, n, k]", "[b, k, m]", "ndim=3"),  # batch sizes undecidable
    ],
)
def test_matmul(a, b, result):
    assert deduce(MatmulOp, tensor(a), tensor(b)) == tensor(result)


def test_reductions():
    x = tensor("[n, m, 4]")
    assert deduce(SumOp, x, axis=ints(1), keepdims=bool_attr(True)) == tensor("[n, 1, 4]")
    assert deduce(SumOp, x, axis=ints(1)) == tensor("[n, 4]")
    assert deduce(MeanOp, x, axis=ints(-1, 0)) == tensor("[m]")
    assert deduce(MaxOp, x) == tensor("[]")
    assert deduce(MaxOp, x, keepdims=bool_attr(True)) == tensor("[1, 1, 1]")
    assert deduce(SumOp, x, axis=ints()) == x


def test_conv_and_pool_output_sizes():
    image, kernel = tensor("[n, 3, h, w]"), tensor("[8, 3, 3, 3]")
    assert deduce(Conv2dOp, image, kernel, padding=ints(1)) == tensor("[n, 8, h, w]")
    assert deduce(Conv2dOp, image, kernel, padding=ints(1), strides=ints(2)) == tensor(
        "[n, 8, floordiv(h - 1, 2) + 1, floordiv(w - 1, 2) + 1]"
    )
    assert deduce(Conv2dOp, image, kernel, dilation=ints(2, 1)) == tensor("[n, 8, h - 4, w - 2]")
    assert deduce(Conv2dOp, image, kernel, padding=ints(0, 1, 2, 3)) == tensor("[n, 8, h, w + 2]")
    grouped = deduce(Conv1dOp, tensor("[n, 4, w]"), tensor("[6, 2, 3]"), groups=int_attr(2))
    assert grouped == tensor("[n, 6, w - 2]")
    pool = {"pool_size": ints(2, 2), "strides": ints(2, 2)}
    assert deduce(MaxPool2dOp, image, **pool) == tensor("[n, 3, floordiv(h, 2), floordiv(w, 2)]")
    assert deduce(AvgPool2dOp, image, pool_size=ints(3), padding=ints(1)) == image
    assert deduce(AvgPool2dOp, tensor("[1, 3, 7, 7]"), pool_size=ints(3), strides=ints(2)) == (
        tensor("[1, 3, 3, 3]")
    )


def test_strided_slice_is_exact_for_static_sizes():
    x = tensor("[10, n]")

    def sliced(begin: int, end: int, stride: int, axis: int = 0) -> str:
        return deduce(
            StridedSliceOp, x, axes=ints(axis), begin=ints(begin), end=ints(end),
            strides=ints(stride),
        )  # fmt: skip

    assert sliced(-3, 100, 1) == tensor("[3, n]")
    assert sliced(8, 1, -3) == tensor("[3, n]")
    assert sliced(-100, 100, 1) == tensor("[10, n]")
    assert sliced(100, -100, -1) == tensor("[10, n]")
    assert sliced(5, 2, 1) == tensor("[0, n]")
    assert sliced(1, 3, 1, axis=1) == tensor("[10, min(3, n) - min(1, n)]")
    assert sliced(0, 2, 1, axis=-1) == tensor("[10, min(2, n)]")


def test_split():
    x = tensor("[n, 4]")
    half = tensor("[n, 2]")
    both = f"!relax.tuple<{half}, {half}>"
    assert deduce(SplitOp, x, indices_or_sections=int_attr(2), axis=int_attr(1)) == both
    y = tensor("[m * 2, 3]")
    parts = deduce(SplitOp, y, indices_or_sections=int_attr(2))
    assert parts == f"!relax.tuple<{tensor('[m, 3]')}, {tensor('[m, 3]')}>"
    pieces = deduce(SplitOp, x, indices_or_sections=ints(1, 3), axis=int_attr(-1))
    expected = ", ".join(tensor(f"[n, {d}]") for d in (1, 2, 1))
    assert pieces == f"!relax.tuple<{expected}>"


def test_axes_operators():
    x = tensor("[n, m, 2]")
    assert deduce(PermuteDimsOp, x) == tensor("[2, m, n]")
    assert deduce(PermuteDimsOp, x, axes=ints(1, -1, 0)) == tensor("[m, 2, n]")
    assert deduce(ExpandDimsOp, tensor("[n, 4]"), axis=ints(0, -1)) == tensor("[1, n, 4, 1]")
    assert deduce(SqueezeOp, tensor("[1, 4, 1]")) == tensor("[4]")
    assert deduce(SqueezeOp, tensor("[1, n]"), axis=ints(0)) == tensor("[n]")
    assert deduce(TakeOp, tensor("[n, 4]"), tensor("[k]", "i64"), axis=int_attr(0)) == (
        tensor("[k, 4]")
    )
    assert deduce(TakeOp, tensor("[n, 4]"), tensor("[k, 2]", "i32")) == tensor("[k, 2]")


def test_creation_and_dtypes():
    assert deduce(ZerosOp, shape("[n, 4]"), dtype=dtypes.F32) == tensor("[n, 4]")
    assert deduce(OnesOp, shape("ndim=2"), dtype=dtypes.I32) == tensor("ndim=2", "i32")
    assert deduce(FullOp, shape("[n]"), tensor("[]", "i32")) == tensor("[n]", "i32")
    assert deduce(FullOp, shape("[n]"), tensor("[]"), dtype=dtypes.F16) == tensor("[n]", "f16")
    scalar = tensor("[]", "i64")
    assert deduce(ArangeOp, scalar, scalar, scalar) == tensor("ndim=1", "i64")
    assert deduce(ArangeOp, scalar, scalar, scalar, dtype=dtypes.F32) == tensor("ndim=1")
    assert deduce(UniqueOp, tensor("[n, 4]", "i32")) == tensor("ndim=1", "i32")
    assert deduce(TrilOp, tensor("[b, n, m]", "i1")) == tensor("[b, n, m]", "i1")
    assert deduce(TriuOp, tensor("[n, 4]"), k=int_attr(-2)) == tensor("[n, 4]")
    assert deduce(AstypeOp, tensor("[n, 4]"), dtype=dtypes.F16) == tensor("[n, 4]", "f16")
    assert deduce(NegativeOp, tensor("[n]", "i64")) == tensor("[n]", "i64")


def prim(value: str = "") -> str:
    return f"!relax.prim<i64{', ' + value if value else ''}>"


def facts(op, *types: str, **props) -> list[str]:
    """The obligations (printed) of ``op`` applied to operands of the written types."""
    attrs = [Parser(CTX, t).parse_type() for t in types]
    return [str(f) for f in op.deduction(attrs, props).facts]


def test_arange_of_prim_values():
    assert deduce(ArangeOp, prim("0"), prim("n"), prim("1")) == tensor("[n]", "i64")
    assert deduce(ArangeOp, prim("p"), prim("p + n"), prim("1"), dtype=dtypes.F32) == tensor("[n]")
    assert facts(ArangeOp, prim("0"), prim("n"), prim("1")) == []
    # A non-unit step: the length rounds up; a symbolic step must be positive.
    assert deduce(ArangeOp, prim("0"), prim("n"), prim("2")) == tensor(
        "[floordiv(n + 1, 2)]", "i64"
    )
    assert deduce(ArangeOp, prim("a"), prim("b"), prim("s")) == tensor(
        "[floordiv(b + s - a - 1, s)]", "i64"
    )
    assert facts(ArangeOp, prim("a"), prim("b"), prim("s")) == [
        "1 <= s",
        "0 <= floordiv(b + s - a - 1, s)",
    ]
    # A negative constant step counts down.
    assert deduce(ArangeOp, prim("n"), prim("0"), prim("-1")) == tensor("[n]", "i64")
    assert deduce(ArangeOp, prim("n + 4"), prim("1"), prim("-2")) == tensor(
        "[floordiv(n, 2) + 2]", "i64"
    )
    # An unknown prim value or a 0-d tensor operand: only the rank is known.
    assert deduce(ArangeOp, prim("0"), prim(), prim("1")) == tensor("ndim=1", "i64")
    assert deduce(ArangeOp, prim("0"), tensor("[]", "i64"), prim("1")) == tensor("ndim=1", "i64")
    expect_error(ArangeOp, [prim("0"), prim("n"), prim("0")], {}, "relax.arange: the step is 0")
    expect_error(
        ArangeOp,
        [prim("n + 1"), prim("n"), prim("1")],
        {},
        "relax.arange: the range is not reversed (its length is not negative): 0 <= -1 is false",
    )


def test_data_dependent_operators():
    # arange of 0-d tensors has an unknown length (the safety net), of prim values a
    # symbolic one (a kernel).
    assert UniqueOp.DATA_DEPENDENT
    assert not AddOp.DATA_DEPENDENT and not ArangeOp.DATA_DEPENDENT


# ------------------------------------------------------------------------------ the safety net


@pytest.mark.parametrize(
    ("op", "types", "props", "result"),
    [
        (AddOp, [tensor("ndim=2"), tensor("[4]")], {}, tensor("ndim=2")),
        (AddOp, [tensor("[n]", "?"), tensor("[n]")], {}, tensor("[n]", "?")),
        (AddOp, [tensor("[n]"), tensor("[m]")], {}, tensor("ndim=1")),
        (AddOp, [tensor("*"), tensor("[m]")], {}, tensor("*")),
        (ExpOp, [tensor("*")], {}, tensor("*")),
        (ExpOp, [tensor("*", "?")], {}, tensor("*", "?")),
        (ReluOp, [tensor("ndim=3", "i32")], {}, tensor("ndim=3", "i32")),
        (EqualOp, [tensor("*", "?"), tensor("[n]", "?")], {}, tensor("*", "i1")),
        (MatmulOp, [tensor("*"), tensor("[k, m]")], {}, tensor("*")),
        (MatmulOp, [tensor("ndim=3"), tensor("[k, m]")], {}, tensor("ndim=3")),
        (ReshapeOp, [tensor("*"), shape("[n, 4]")], {}, tensor("[n, 4]")),
        (ReshapeOp, [tensor("*"), shape("[n, -1]")], {}, tensor("ndim=2")),
        (ReshapeOp, [tensor("[n, 4]"), shape("ndim=3")], {}, tensor("ndim=3")),
        (FlattenOp, [tensor("*")], {}, tensor("ndim=1")),
        (ConcatOp, [tensor("*"), tensor("[n, 4]")], {}, tensor("ndim=2")),
        (ConcatOp, [tensor("[n, 4]"), tensor("[m, k]")], {"axis": int_attr(0)}, tensor("ndim=2")),
        (SqueezeOp, [tensor("[1, n, 1, 4]")], {}, tensor("*")),
        (SqueezeOp, [tensor("ndim=3")], {"axis": ints(0)}, tensor("ndim=2")),
        (PermuteDimsOp, [tensor("*")], {"axes": ints(1, 0)}, tensor("ndim=2")),
        (SumOp, [tensor("*")], {}, tensor("[]")),
        (SumOp, [tensor("ndim=3")], {"keepdims": bool_attr(True)}, tensor("[1, 1, 1]")),
        (SumOp, [tensor("*")], {"axis": ints(0)}, tensor("*")),
        (Conv2dOp, [tensor("*"), tensor("[8, 3, 3, 3]")], {}, tensor("ndim=4")),
        (
            SplitOp,
            [tensor("*")],
            {"indices_or_sections": int_attr(2)},
            f"!relax.tuple<{tensor('*')}, {tensor('*')}>",
        ),
        (TakeOp, [tensor("[n, 4]"), tensor("*", "i64")], {"axis": int_attr(1)}, tensor("*")),
        (ZerosOp, [shape("*")], {"dtype": dtypes.F32}, tensor("*")),
        (UniqueOp, [tensor("*", "?")], {}, tensor("ndim=1", "?")),
        (TrilOp, [tensor("*", "?")], {"k": int_attr(1)}, tensor("*", "?")),
        (TriuOp, [tensor("ndim=2", "i32")], {}, tensor("ndim=2", "i32")),
    ],
)
def test_safety_net(op, types, props, result):
    assert deduce(op, *types, **props) == result


# ------------------------------------------------------------------------------ mismatches


@pytest.mark.parametrize(
    ("op", "types", "props", "fragments"),
    [
        (
            AddOp,
            [tensor("[n, 3]"), tensor("[n, 4]")],
            {},
            ["dimension 1 of the broadcast shapes differs: 3 vs 4"],
        ),
        (
            SubtractOp,
            [tensor("[n]"), tensor("[n]", "i32")],
            {},
            ["same element type", "f32", "i32"],
        ),
        (
            AddOp,
            [tensor("[n]", "i1"), tensor("[n]", "i1")],
            {},
            ["expected operand with a numeric (not i1) element type, got !relax.tensor<[n], i1>"],
        ),
        (
            ExpOp,
            [tensor("[n]", "i32")],
            {},
            ["expected operand with a floating-point element type, got !relax.tensor<[n], i32>"],
        ),
        (
            WhereOp,
            [tensor("[n]"), tensor("[n]"), tensor("[n]")],
            {},
            ["expected an i1 condition, got !relax.tensor<[n], f32>"],
        ),
        (
            AstypeOp,
            [tensor("[n]")],
            {"dtype": IndexType()},
            ["expected dtype to be one of", "got index"],
        ),
        (AstypeOp, [tensor("[n]")], {}, ["expected a 'dtype' property"]),
        (
            MatmulOp,
            [tensor("[n, 3]"), tensor("[4, m]")],
            {},
            ["expected the inner dimensions to agree", "3 columns", "4 rows"],
        ),
        (MatmulOp, [tensor("[n, k]"), tensor("[k + 1, m]")], {}, ["k columns", "k + 1 rows"]),
        (MatmulOp, [tensor("[2, n, k]"), tensor("[3, k, m]")], {}, ["2 vs 3"]),
        (MatmulOp, [tensor("[]"), tensor("[k, m]")], {}, ["expected a lhs of rank >= 1"]),
        (
            ReshapeOp,
            [tensor("[n, 3]"), shape("[n * 3 + 1]")],
            {},
            [
                "cannot reshape !relax.tensor<[n, 3], f32> (n * 3 elements) to [n * 3 + 1] (n * 3 + 1 elements)"
            ],
        ),
        (
            ReshapeOp,
            [tensor("[3, 5]"), shape("[2, -1]")],
            {},
            ["(15 elements) to [2, -1]", "not a multiple of 2"],
        ),
        (ReshapeOp, [tensor("[n * 2 + 1]"), shape("[2, -1]")], {}, ["not a multiple of 2"]),
        (ReshapeOp, [tensor("[n]"), shape("[-1, -1]")], {}, ["at most one -1"]),
        (ReshapeOp, [tensor("[n]"), shape("[-2, n]")], {}, ["non-negative entries"]),
        (ReshapeOp, [tensor("[n]"), tensor("[n]")], {}, ["expected a shape shape operand"]),
        (
            ConcatOp,
            [tensor("[n, 3]"), tensor("[n, 4]")],
            {"axis": int_attr(0)},
            ["expected tensors that agree except in axis 0", "(dimension 1)"],
        ),
        (ConcatOp, [tensor("[n, 3]"), tensor("[n]")], {}, ["expected tensors of one rank"]),
        (
            ConcatOp,
            [tensor("[n, 3]")],
            {"axis": int_attr(2)},
            ["axis 2 is out of range for rank 2"],
        ),
        (ConcatOp, [], {}, ["at least one tensor"]),
        (
            SoftmaxOp,
            [tensor("[n, 3]")],
            {"axis": int_attr(-3)},
            ["axis -3 is out of range for rank 2"],
        ),
        (SumOp, [tensor("[n, 3]")], {"axis": ints(0, -2)}, ["axis [0, -2] repeats an axis"]),
        (
            SumOp,
            [tensor("[n, 3]")],
            {"keepdims": int_attr(1)},
            ["property 'keepdims' must be a boolean"],
        ),
        (
            PermuteDimsOp,
            [tensor("[n, 3]")],
            {"axes": ints(0)},
            ["expected axes to permute all 2 axes"],
        ),
        (PermuteDimsOp, [tensor("[n, 3]")], {"axes": ints(1, 1)}, ["repeats an axis"]),
        (
            ExpandDimsOp,
            [tensor("[n, 3]")],
            {"axis": ints(3)},
            ["axis 3 is out of range for rank 3"],
        ),
        (
            SqueezeOp,
            [tensor("[n, 3]")],
            {"axis": ints(1)},
            ["cannot squeeze axis 1", "expected size 1, got 3"],
        ),
        (
            SplitOp,
            [tensor("[n, 3]")],
            {"indices_or_sections": int_attr(2), "axis": int_attr(1)},
            ["cannot split axis 1", "into 2 equal sections"],
        ),
        (
            SplitOp,
            [tensor("[n, 3]")],
            {"indices_or_sections": int_attr(0)},
            ["expected a positive number of sections, got 0"],
        ),
        (
            TakeOp,
            [tensor("[n, 3]"), tensor("[k]")],
            {},
            ["expected indices with a signed integer element type"],
        ),
        (
            StridedSliceOp,
            [tensor("[n]")],
            {"axes": ints(0), "begin": ints(0), "end": ints(1), "strides": ints(0)},
            ["expected non-zero strides"],
        ),
        (
            StridedSliceOp,
            [tensor("[n]")],
            {"axes": ints(0), "begin": ints(0, 1), "end": ints(1)},
            ["of one length, got 1, 2, 1 and 1"],
        ),
        (
            StridedSliceOp,
            [tensor("[n]")],
            {"axes": ints(0), "begin": ints(0)},
            ["expected a 'end' property"],
        ),
        (
            LayerNormOp,
            [tensor("[n, 4]"), tensor("[3]"), tensor("[4]")],
            {"axes": ints(-1)},
            ["expected gamma of shape [4]", "got !relax.tensor<[3], f32>"],
        ),
        (
            LayerNormOp,
            [tensor("[n, 4]"), tensor("[4]"), tensor("[n, 4]")],
            {"axes": ints(-1)},
            ["expected beta of rank 1"],
        ),
        (
            Conv2dOp,
            [tensor("[n, 4, h, w]"), tensor("[8, 3, 3, 3]")],
            {},
            ["expected data with 3 channels"],
        ),
        (
            Conv2dOp,
            [tensor("[n, 4, h, w]"), tensor("[3, 2, 3, 3]")],
            {"groups": int_attr(2)},
            ["expected output channels divisible by groups = 2"],
        ),
        (
            Conv2dOp,
            [tensor("[n, 3, h, w]"), tensor("[8, 3, 3, 3]")],
            {"padding": ints(1, 2, 3)},
            ["expected 'padding' to have 1, 2 or 4 values, got [1, 2, 3]"],
        ),
        (
            Conv2dOp,
            [tensor("[n, 3, 2, 2]"), tensor("[8, 3, 3, 3]")],
            {},
            ["expected spatial dimension 0 (padded size 2) to hold the window of extent 3"],
        ),
        (
            Conv1dOp,
            [tensor("[n, 3, h, w]"), tensor("[8, 3, 3]")],
            {},
            ["expected NCW data of rank 3, got !relax.tensor<[n, 3, h, w], f32>"],
        ),
        (
            Conv1dOp,
            [tensor("[n, 3, w]"), tensor("[8, 3, 3]")],
            {"strides": ints(0)},
            ["expected positive 'strides'"],
        ),
        (MaxPool2dOp, [tensor("[n, 3, h, w]")], {}, ["expected a 'pool_size' property"]),
        (
            AvgPool2dOp,
            [tensor("[n, 3, h, w]")],
            {"pool_size": ints(1, 2, 3)},
            ["expected 'pool_size' to have 1 or 2 values"],
        ),
        (FullOp, [shape("[n]"), tensor("[1]")], {}, ["expected a 0-d tensor as fill value"]),
        (
            ArangeOp,
            [tensor("[]", "i64"), tensor("[]", "i32"), tensor("[]", "i64")],
            {},
            ["expected an i64 tensor as end"],
        ),
        (ZerosOp, [tensor("[n]")], {"dtype": dtypes.F32}, ["expected a shape shape operand"]),
        (
            TrilOp,
            [tensor("[n]")],
            {},
            ["expected a tensor of rank >= 2, got !relax.tensor<[n], f32>"],
        ),
        (TriuOp, [tensor("ndim=0", "i1")], {}, ["expected a tensor of rank >= 2"]),
        (TriuOp, [shape("[n, 4]")], {}, ["expected a tensor operand, got !relax.shape<[n, 4]>"]),
    ],
)
def test_provable_mismatch(op, types, props, fragments):
    expect_error(op, types, props, *fragments)


def test_undecidable_cases_are_not_errors():
    assert deduce(AddOp, tensor("[n, 3]"), tensor("[m, 3]")) == tensor("ndim=2")
    assert deduce(ReshapeOp, tensor("[n, 3]"), shape("[m, 4]")) == tensor("[m, 4]")
    # n * 3 and n * 4 elements agree when n is 0.
    assert deduce(ReshapeOp, tensor("[n, 3]"), shape("[n, 4]")) == tensor("[n, 4]")
    assert deduce(SqueezeOp, tensor("[n, 3]"), axis=ints(0)) == tensor("[3]")
    assert deduce(Conv2dOp, tensor("[b, c, h, w]"), tensor("[8, 3, 3, 3]")) == tensor(
        "[b, 8, h - 2, w - 2]"
    )


def test_deduction_error_is_a_located_parse_error():
    text = (
        "relax.func @f(%a: !relax.tensor<[n, 3], f32>, %b: !relax.tensor<[n, 4], f32>)"
        " -> !relax.tensor<[n, 3], f32> {\n"
        "  %r = relax.add %a, %b : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 4], f32>)\n"
        "  relax.return %a : !relax.tensor<[n, 3], f32>\n"
        "}\n"
    )
    with pytest.raises(ParseError) as info:
        LocatingParser(CTX, text, "bad.mlir").parse_module()
    message = str(info.value)
    assert "bad.mlir:2:" in message
    assert "'relax.add' op dimension 1 of the broadcast shapes differs: 3 vs 4" in message


def test_float_property():
    x, gamma = tensor("[n, 4]"), tensor("[4]")
    epsilon = FloatAttr(1e-3, f32)
    assert deduce(LayerNormOp, x, gamma, gamma, axes=ints(1), epsilon=epsilon) == x
