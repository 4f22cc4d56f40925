"""ONNX control flow (``If``, ``Loop``, ``Scan``) against onnxruntime: subgraphs that use
enclosing values, branches of different shapes, loops by trip count, by condition and
by both, loop-carried values whose shape grows, gathered outputs, a loop nested in a
loop, scans in both directions along other axes; a symbolic batch throughout."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402

import xrelax  # noqa: E402
from xrelax import frontend  # noqa: E402

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
RNG = np.random.default_rng(23)


def _info(name: str, elem: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def _model(nodes, inputs, outputs, opset: int = 18) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _check(model: onnx.ModelProto, cases: list[list[np.ndarray]]) -> None:
    """The imported model prints and parses back to itself, and gives onnxruntime's
    outputs on each list of inputs."""
    session = ort.InferenceSession(model.SerializeToString())
    names = [i.name for i in session.get_inputs()]
    imported = frontend.from_onnx(model)
    text = imported.text()
    assert xrelax.print_module(xrelax.parse(text)) == text
    main = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"]
    for arrays in cases:
        expected = session.run(None, dict(zip(names, arrays, strict=True)))
        got = main(*arrays, **imported.params)
        got = [got] if isinstance(got, np.ndarray) else list(got)
        assert len(got) == len(expected)
        for value, want in zip(got, expected, strict=True):
            assert value.dtype == want.dtype and value.ndim == want.ndim
            if want.size == 0:
                # No iteration ran: onnxruntime gives 0 for the gathered outputs'
                # dimensions it does not know, relax the per-iteration shape.
                assert value.size == 0 and value.shape[0] == want.shape[0]
                continue
            assert value.shape == want.shape
            np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-6)


def _x(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def test_if_branches_of_different_shapes_see_outer_values() -> None:
    """The then branch gives [n, 3] (a slice), the else branch [n, 4]: the result is
    [n, ?]; a nested If in the else branch uses a value of the outer graph."""
    inner = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["neg"])],
        "inner_then",
        [],
        [_info("neg", F, None)],
    )
    inner_else = helper.make_graph(
        [helper.make_node("Mul", ["x", "x"], ["sq"])], "inner_else", [], [_info("sq", F, None)]
    )
    then_branch = helper.make_graph(
        [
            helper.make_node("Constant", [], ["s"], value_ints=[0]),
            helper.make_node("Constant", [], ["e"], value_ints=[3]),
            helper.make_node("Constant", [], ["a"], value_ints=[1]),
            helper.make_node("Slice", ["x", "s", "e", "a"], ["part"]),
        ],
        "then",
        [],
        [_info("part", F, None)],
    )
    else_branch = helper.make_graph(
        [
            helper.make_node("Not", ["c"], ["nc"]),
            helper.make_node("If", ["nc"], ["y"], then_branch=inner, else_branch=inner_else),
        ],
        "else",
        [],
        [_info("y", F, None)],
    )
    model = _model(
        [
            helper.make_node("If", ["c"], ["r"], then_branch=then_branch, else_branch=else_branch),
            helper.make_node("Shape", ["r"], ["shape"]),
        ],
        [_info("c", B, []), _info("x", F, ["n", 4])],
        [_info("r", F, ["n", None]), _info("shape", I64, [2])],
    )
    _check(model, [[np.array(c), _x(n, 4)] for c in (True, False) for n in (1, 5)])


def test_if_on_a_known_condition_converts_the_branch_taken() -> None:
    then_branch = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t"])], "then", [], [_info("t", F, None)]
    )
    else_branch = helper.make_graph(
        [helper.make_node("Unknown", ["x"], ["u"], domain="custom")],
        "else",
        [],
        [_info("u", F, None)],
    )
    model = _model(
        [
            helper.make_node("Constant", [], ["c"], value=helper.make_tensor("c", B, [1], [1])),
            helper.make_node("If", ["c"], ["r"], then_branch=then_branch, else_branch=else_branch),
        ],
        [_info("x", F, ["n"])],
        [_info("r", F, ["n"])],
    )
    model.opset_import.append(helper.make_opsetid("custom", 1))
    imported = frontend.from_onnx(model)
    assert "relax.if" not in imported.text()
    x = _x(6)
    out = xrelax.VirtualMachine(xrelax.compile(imported.module))["main"](x)
    np.testing.assert_array_equal(out, np.maximum(x, 0))


def _loop_body(nodes, carried, gathered) -> onnx.GraphProto:
    return helper.make_graph(
        nodes,
        "body",
        [_info("i", I64, []), _info("cond_in", B, []), *carried[0]],
        [_info("cond_out", B, []), *carried[1], *gathered],
    )


def test_loop_with_trip_count_condition_and_gathered_outputs() -> None:
    """for i < M while cond: acc += x * i (x from the enclosing graph); stops once
    sum(acc) > limit; gathers acc and i at each iteration."""
    body = _loop_body(
        [
            helper.make_node("Cast", ["i"], ["fi"], to=F),
            helper.make_node("Mul", ["x", "fi"], ["step"]),
            helper.make_node("Add", ["acc_in", "step"], ["acc_out"]),
            helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
            helper.make_node("Less", ["total", "limit"], ["cond_out"]),
            helper.make_node("Identity", ["acc_out"], ["acc_seen"]),
            helper.make_node("Identity", ["i"], ["i_seen"]),
        ],
        ([_info("acc_in", F, ["n", 3])], [_info("acc_out", F, ["n", 3])]),
        [_info("acc_seen", F, ["n", 3]), _info("i_seen", I64, [])],
    )
    model = _model(
        [helper.make_node("Loop", ["M", "cond", "acc0"], ["acc", "accs", "steps"], body=body)],
        [
            _info("M", I64, []),
            _info("cond", B, []),
            _info("acc0", F, ["n", 3]),
            _info("x", F, ["n", 3]),
            _info("limit", F, []),
        ],
        [_info("acc", F, ["n", 3]), _info("accs", F, None), _info("steps", I64, None)],
    )
    x = np.abs(_x(2, 3)) + 0.5
    cases = [
        [
            np.array(m, np.int64),
            np.array(c),
            np.zeros((n, 3), np.float32),
            x[:1].repeat(n, 0),
            np.array(lim, np.float32),
        ]
        for m, c, n, lim in [
            (0, True, 2, 100),
            (4, True, 2, 100),
            (9, True, 3, 12),
            (5, False, 1, 100),
        ]
    ]
    _check(model, cases)


def test_loop_by_condition_alone_grows_a_carried_value() -> None:
    """while cond: y = concat(y, x); the carried value's first dimension grows, so the
    loop function takes it with a dimension of its own."""
    body = _loop_body(
        [
            helper.make_node("Concat", ["y_in", "x"], ["y_out"], axis=0),
            helper.make_node("Shape", ["y_out"], ["shape"]),
            helper.make_node("Gather", ["shape", "zero"], ["rows"], axis=0),
            helper.make_node("Less", ["rows", "max_rows"], ["cond_out"]),
        ],
        ([_info("y_in", F, [None, 2])], [_info("y_out", F, [None, 2])]),
        [],
    )
    body.initializer.append(helper.make_tensor("zero", I64, [], [0]))
    model = _model(
        [helper.make_node("Loop", ["", "go", "x"], ["y"], body=body)],
        [_info("go", B, []), _info("x", F, ["n", 2]), _info("max_rows", I64, [])],
        [_info("y", F, [None, 2])],
    )
    _check(
        model,
        [
            [np.array(True), _x(2, 2), np.array(7, np.int64)],
            [np.array(False), _x(3, 2), np.array(7, np.int64)],
            [np.array(True), _x(1, 2), np.array(1, np.int64)],
        ],
    )


def test_loop_nested_in_a_loop_with_an_if() -> None:
    """An outer Loop by trip count whose body runs an inner Loop and an If on the
    outer iteration number."""
    inner = _loop_body(
        [
            helper.make_node("Add", ["v_in", "x"], ["v_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        ([_info("v_in", F, ["n"])], [_info("v_out", F, ["n"])]),
        [],
    )
    odd = helper.make_graph(
        [helper.make_node("Neg", ["w"], ["flipped"])], "odd", [], [_info("flipped", F, None)]
    )
    even = helper.make_graph(
        [helper.make_node("Identity", ["w"], ["kept"])], "even", [], [_info("kept", F, None)]
    )
    outer = _loop_body(
        [
            helper.make_node("Loop", ["i", "", "v_in"], ["w"], body=inner),
            helper.make_node("Mod", ["i", "two"], ["parity"]),
            helper.make_node("Cast", ["parity"], ["is_odd"], to=B),
            helper.make_node("If", ["is_odd"], ["v_out"], then_branch=odd, else_branch=even),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("ReduceSum", ["v_out"], ["total"], keepdims=0),
        ],
        ([_info("v_in", F, ["n"])], [_info("v_out", F, ["n"])]),
        [_info("total", F, [])],
    )
    outer.initializer.append(helper.make_tensor("two", I64, [], [2]))
    model = _model(
        [helper.make_node("Loop", ["M", "", "v0"], ["v", "totals"], body=outer)],
        [_info("M", I64, []), _info("v0", F, ["n"]), _info("x", F, ["n"])],
        [_info("v", F, ["n"]), _info("totals", F, None)],
    )
    _check(model, [[np.array(m, np.int64), _x(n), _x(n)] for m, n in [(0, 3), (1, 1), (5, 4)]])


def test_scan_both_directions_along_other_axes() -> None:
    """A running sum (state) over x along axis 1 forwards, and y along axis 0 backwards;
    outputs stacked along axis 1 and reversed."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "xt"], ["s_out"]),
            helper.make_node("Mul", ["s_out", "yt"], ["z"]),
            helper.make_node("Identity", ["s_out"], ["s_seen"]),
        ],
        "body",
        [_info("s_in", F, ["b"]), _info("xt", F, ["b"]), _info("yt", F, ["b"])],
        [_info("s_out", F, ["b"]), _info("z", F, ["b"]), _info("s_seen", F, ["b"])],
    )
    model = _model(
        [
            helper.make_node(
                "Scan",
                ["s0", "x", "y"],
                ["s", "zs", "seen"],
                body=body,
                num_scan_inputs=2,
                scan_input_axes=[1, 0],
                scan_input_directions=[0, 1],
                scan_output_axes=[1, -2],
                scan_output_directions=[0, 1],
            )
        ],
        [_info("s0", F, ["b"]), _info("x", F, ["b", "t"]), _info("y", F, ["t", "b"])],
        [_info("s", F, ["b"]), _info("zs", F, None), _info("seen", F, None)],
    )
    _check(model, [[_x(b), _x(b, t), _x(t, b)] for b, t in [(2, 1), (3, 5), (1, 2)]])


def test_loop_that_never_ends_is_refused() -> None:
    body = _loop_body(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        ([_info("v_in", F, [2])], [_info("v_out", F, [2])]),
        [],
    )
    body.node.append(helper.make_node("Identity", ["v_in"], ["v_out"]))
    model = _model(
        [helper.make_node("Loop", ["", "", "v0"], ["v"], body=body)],
        [_info("v0", F, [2])],
        [_info("v", F, [2])],
    )
    with pytest.raises(frontend.UnsupportedOperatorsError, match="the loop never ends"):
        frontend.from_onnx(model)


def test_unsupported_node_in_a_body_is_reported_by_name() -> None:
    body = _loop_body(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Unknown", ["v_in"], ["v_out"], domain="custom"),
        ],
        ([_info("v_in", F, [2])], [_info("v_out", F, [2])]),
        [],
    )
    model = _model(
        [helper.make_node("Loop", ["M", "", "v0"], ["v"], body=body)],
        [_info("M", I64, []), _info("v0", F, [2])],
        [_info("v", F, [2])],
    )
    model.opset_import.append(helper.make_opsetid("custom", 1))
    with pytest.raises(frontend.UnsupportedOperatorsError, match=r"custom\.Unknown \(1\)"):
        frontend.from_onnx(model)


def test_loop_deeper_than_python_recursion_runs() -> None:
    """Each iteration is a call of the loop function by itself, which the VM runs as a
    jump: a loop far deeper than Python's recursion limit runs."""
    body = _loop_body(
        [
            helper.make_node("Add", ["v_in", "one"], ["v_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        ([_info("v_in", F, ["n"])], [_info("v_out", F, ["n"])]),
        [],
    )
    body.initializer.append(helper.make_tensor("one", F, [], [1.0]))
    model = _model(
        [helper.make_node("Loop", ["M", "", "v0"], ["v"], body=body)],
        [_info("M", I64, []), _info("v0", F, ["n"])],
        [_info("v", F, ["n"])],
    )
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    np.testing.assert_array_equal(main(np.array(5000), np.zeros(2, np.float32)), [5000, 5000])


def test_loop_gathers_outputs_whose_shape_only_the_run_knows() -> None:
    """A row of x sliced at the iteration number (a run-time slice: its length is a
    variable of the body) is gathered: the first iteration's output starts the stack."""
    body = _loop_body(
        [
            helper.make_node("Add", ["i", "one"], ["end"]),
            helper.make_node("Unsqueeze", ["i", "axes"], ["start1"]),
            helper.make_node("Unsqueeze", ["end", "axes"], ["end1"]),
            helper.make_node("Slice", ["x", "start1", "end1", "axes"], ["row"]),
            helper.make_node("Add", ["total_in", "row"], ["total_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        ([_info("total_in", F, [1, 3])], [_info("total_out", F, None)]),
        [_info("row", F, None)],
    )
    body.initializer.extend(
        [helper.make_tensor("one", I64, [], [1]), helper.make_tensor("axes", I64, [1], [0])]
    )
    model = _model(
        [helper.make_node("Loop", ["M", "", "t0"], ["total", "rows"], body=body)],
        [_info("M", I64, []), _info("t0", F, [1, 3]), _info("x", F, ["n", 3])],
        [_info("total", F, None), _info("rows", F, None)],
    )
    _check(
        model,
        [[np.array(m, np.int64), _x(1, 3), _x(n, 3)] for m, n in [(0, 2), (1, 4), (4, 4)]],
    )


def test_if_yields_enclosing_values_of_other_types() -> None:
    """A one-element condition; the then branch gives an enclosing int64 input (through
    an Identity, which onnxruntime requires), the else branch doubles it; bool outputs
    of a comparison in one branch, of a constant expanded in the other."""
    then_branch = helper.make_graph(
        [
            helper.make_node("Identity", ["k"], ["same"]),
            helper.make_node("Greater", ["k", "zero"], ["positive"]),
        ],
        "then",
        [],
        [_info("same", I64, None), _info("positive", B, None)],
    )
    else_branch = helper.make_graph(
        [
            helper.make_node("Add", ["k", "k"], ["doubled"]),
            helper.make_node("Constant", [], ["no"], value=helper.make_tensor("no", B, [], [0])),
            helper.make_node("Expand", ["no", "k_shape"], ["none"]),
            helper.make_node("Shape", ["k"], ["k_shape"]),
        ],
        "else",
        [],
        [_info("doubled", I64, None), _info("none", B, None)],
    )
    else_branch.node.insert(2, else_branch.node.pop(3))
    model = _model(
        [
            helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("z", I64, [], [0])),
            helper.make_node(
                "If", ["c"], ["r", "flags"], then_branch=then_branch, else_branch=else_branch
            ),
        ],
        [_info("c", B, [1]), _info("k", I64, ["n"])],
        [_info("r", I64, ["n"]), _info("flags", B, ["n"])],
    )
    k = np.array([3, -2, 0, 2**62], np.int64)
    _check(model, [[np.array([c]), k[:n]] for c in (True, False) for n in (0, 4)])


def test_loop_of_integers_that_runs_no_iteration_for_a_negative_trip_count() -> None:
    body = _loop_body(
        [
            helper.make_node("Mul", ["v_in", "v_in"], ["v_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        ([_info("v_in", I64, ["n"])], [_info("v_out", I64, ["n"])]),
        [],
    )
    model = _model(
        [helper.make_node("Loop", ["M", "", "v0"], ["v"], body=body)],
        [_info("M", I64, []), _info("v0", I64, ["n"])],
        [_info("v", I64, ["n"])],
    )
    v = np.array([3, -2, 7, 1 << 40], np.int64)  # squaring 2**40 twice wraps as i64 does
    _check(model, [[np.array(m, np.int64), v] for m in (-3, 0, 2, 3)])


def test_loop_carried_value_changing_rank_is_refused() -> None:
    body = _loop_body(
        [
            helper.make_node("Constant", [], ["axes"], value_ints=[0]),
            helper.make_node("Unsqueeze", ["v_in", "axes"], ["v_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        ([_info("v_in", F, None)], [_info("v_out", F, None)]),
        [],
    )
    model = _model(
        [helper.make_node("Loop", ["M", "", "v0"], ["v"], body=body)],
        [_info("M", I64, []), _info("v0", F, [2])],
        [_info("v", F, None)],
    )
    with pytest.raises(frontend.FrontendError, match=r"\(Loop\): a loop-carried value of type"):
        frontend.from_onnx(model)


def test_scan_inputs_of_different_lengths_fail_when_run() -> None:
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s", "xt"], ["s1"]),
            helper.make_node("Add", ["s1", "yt"], ["s2"]),
        ],
        "body",
        [_info("s", F, [2]), _info("xt", F, [2]), _info("yt", F, [2])],
        [_info("s2", F, [2])],
    )
    model = _model(
        [helper.make_node("Scan", ["s0", "x", "y"], ["s"], body=body, num_scan_inputs=2)],
        [_info("s0", F, [2]), _info("x", F, ["t1", 2]), _info("y", F, ["t2", 2])],
        [_info("s", F, [2])],
    )
    main = xrelax.VirtualMachine(xrelax.compile(frontend.from_onnx(model).module))["main"]
    s0, x = np.zeros(2, np.float32), np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(main(s0, x, x), [6, 6])
    with pytest.raises(xrelax.VMError, match="expected 3, got 4"):
        main(s0, x, np.ones((4, 2), np.float32))
