"""The VM profiler: ``vm.profile(name, *args)`` times every kernel and builtin call."""

import json
import time

import numpy as np
import pytest

import xrelax
from xrelax.backends.vm import ExecBuilder, VirtualMachine, VMError, register_func
from xrelax.backends.vm.profiler import DISPATCH, fused_operators

MLP = """
relax.func @main(%x: !relax.tensor<[n, 4], f32>, %w: !relax.tensor<[4, 3], f32>) -> !relax.tensor<[n, 3], f32> {
  %y = relax.dataflow -> !relax.tensor<[n, 3], f32> {
    %0 = relax.matmul %x, %w : (!relax.tensor<[n, 4], f32>, !relax.tensor<[4, 3], f32>) -> !relax.tensor<[n, 3], f32>
    %1 = relax.relu %0 : (!relax.tensor<[n, 3], f32>) -> !relax.tensor<[n, 3], f32>
    relax.output %1 : !relax.tensor<[n, 3], f32>
  }
  relax.return %y : !relax.tensor<[n, 3], f32>
}
"""


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


register_func("test.profile.sleep", _sleep, override=True)


def test_profile_returns_the_result_and_one_row_per_kernel_and_builtin() -> None:
    vm = VirtualMachine(xrelax.compile(xrelax.parse(MLP)))
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((5, 4), np.float32), rng.standard_normal((4, 3), np.float32)
    profile = vm.profile("main", x, w)
    np.testing.assert_array_equal(profile.result, vm["main"](x, w))
    rows = {row.name: row for row in profile.rows()}
    kernel = rows["fused_matmul_relu"]
    assert (kernel.kind, kernel.calls, kernel.operators) == ("kernel", 1, ("matmul", "relu"))
    assert rows["vm.builtin.check_tensor_info"].calls == 2
    assert rows["vm.builtin.check_tensor_info"].kind == "builtin"
    assert profile.rows()[-1].name == DISPATCH
    assert sum(row.seconds for row in profile.rows()) == pytest.approx(profile.seconds)
    table = profile.table()
    assert table.splitlines()[0].startswith("main: ")
    assert "fused_matmul_relu" in table and "matmul relu" in table


def test_profile_counts_every_call_and_sorts_by_time() -> None:
    ib = ExecBuilder()
    with ib.function("main", num_inputs=0):
        for seconds in (0.02, 0.001, 0.001):
            ib.emit_call("test.profile.sleep", [ib.c(ib.convert_constant(seconds))], dst=ib.r(0))
        ib.emit_call("vm.builtin.alloc_shape_heap", [ib.imm(1)], dst=ib.r(1))
        ib.emit_ret(ib.r(0))
    profile = VirtualMachine(ib.get()).profile("main")
    first = profile.rows()[0]
    assert (first.name, first.kind, first.calls) == ("test.profile.sleep", "packed", 3)
    assert first.seconds >= 0.022
    lines = profile.table(limit=1).splitlines()
    assert lines[2].startswith("test.profile.sleep") and lines[3].startswith(DISPATCH)
    assert lines[4:] == ["... 1 more rows"]


def test_calls_between_vm_functions_are_not_counted_twice() -> None:
    ib = ExecBuilder()
    with ib.function("inner", num_inputs=1):
        ib.emit_call("test.profile.sleep", [ib.r(0)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    with ib.function("main", num_inputs=1):
        ib.emit_call("inner", [ib.r(0)], dst=ib.r(1))
        ib.emit_call("inner", [ib.r(0)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    profile = VirtualMachine(ib.get()).profile("main", 0.005)
    names = [row.name for row in profile.rows()]
    assert names == ["test.profile.sleep", DISPATCH]
    assert profile.rows()[0].calls == 2
    trace = profile.chrome_trace()
    json.dumps(trace)
    calls = [e for e in trace["traceEvents"] if e["name"] == "test.profile.sleep"]
    assert [e["args"]["function"] for e in calls] == ["inner", "inner"]
    assert calls[0]["ts"] + calls[0]["dur"] <= calls[1]["ts"]
    assert trace["traceEvents"][0]["dur"] >= sum(e["dur"] for e in calls)


def test_a_failing_profiled_call_fails_as_the_plain_call_does() -> None:
    vm = VirtualMachine(xrelax.compile(xrelax.parse(MLP)))
    x, w = np.zeros((2, 5), np.float32), np.zeros((4, 3), np.float32)
    with pytest.raises(VMError) as plain:
        vm["main"](x, w)
    with pytest.raises(VMError) as profiled:
        vm.profile("main", x, w)
    assert str(profiled.value) == str(plain.value)
    with pytest.raises(VMError, match="no function named 'nope'"):
        vm.profile("nope")


def test_profile_writes_a_chrome_trace(tmp_path) -> None:
    vm = VirtualMachine(xrelax.compile(xrelax.parse(MLP)))
    profile = vm.profile("main", np.ones((1, 4), np.float32), np.ones((4, 3), np.float32))
    path = tmp_path / "trace.json"
    profile.save_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    assert {e["ph"] for e in events} == {"X"}
    assert {e["cat"] for e in events} == {"vm function", "kernel", "builtin"}


@pytest.mark.parametrize(
    ("kernel", "operators"),
    [
        ("fused_conv2d_add_relu", ("conv2d", "add", "relu")),
        ("fused_max_pool2d1_reshape_matmul_add2", ("max_pool2d", "reshape", "matmul", "add")),
        ("gather_elements3", ("gather_elements",)),
        ("fused_conv2d_add_relu_and3", ("conv2d", "add", "relu", "(+3)")),
        ("my_kernel", ()),
        ("vm.builtin.make_shape", ()),
    ],
)
def test_fused_operators_are_read_from_the_kernel_name(kernel: str, operators: tuple) -> None:
    import xrelax.backends.vm.safety_net  # noqa: F401 - registers relax.op.<name> for every operator

    assert fused_operators(kernel) == operators
