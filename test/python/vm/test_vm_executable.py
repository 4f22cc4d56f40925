"""Executable: instruction encoding, text dumps, as_python round trip, file format."""

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from xrelax.backends.vm import (
    Arg,
    ArgKind,
    Call,
    ExecBuilder,
    Executable,
    Goto,
    If,
    Opcode,
    Ret,
    VirtualMachine,
    VMError,
    VMFunction,
    register_func,
)
from xrelax.backends.vm.executable import (
    FORMAT_VERSION,
    IMMEDIATE_MAX,
    IMMEDIATE_MIN,
    MAGIC,
    VOID_REGISTER,
)

register_func("test.exe.add", lambda a, b: a + b, override=True)
register_func("test.exe.pick", lambda *xs: xs, override=True)


@pytest.mark.parametrize("kind", list(ArgKind))
@pytest.mark.parametrize("value", [0, 1, 5, -1, -12345, IMMEDIATE_MIN, IMMEDIATE_MAX])
def test_arg_words_round_trip_sign_safely(kind: ArgKind, value: int) -> None:
    word = Arg(kind, value).encode()
    assert -(2**63) <= word < 2**63
    assert Arg.decode(word) == Arg(kind, value)


def test_arg_word_layout() -> None:
    assert Arg(ArgKind.REGISTER, 3).encode() == 3
    assert Arg(ArgKind.IMMEDIATE, 3).encode() == (1 << 56) | 3
    assert Arg(ArgKind.CONST_IDX, 3).encode() == (2 << 56) | 3
    assert Arg(ArgKind.FUNC_IDX, 3).encode() == (3 << 56) | 3
    assert Arg(ArgKind.IMMEDIATE, -1).encode() == (1 << 56) | ((1 << 56) - 1)
    with pytest.raises(VMError, match=r"^invalid argument kind 7 in word"):
        Arg.decode(7 << 56)


def _func0() -> Executable:
    ib = ExecBuilder()
    with ib.function("func0", num_inputs=2):
        ib.emit_call("vm.op.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_call("vm.builtin.move", args=[ib.r(2)], dst=ib.r(3))
        ib.emit_call("vm.builtin.print", args=[ib.r(3)])
        ib.emit_ret(ib.r(3))
    return ib.get()


def test_bytecode_layout() -> None:
    exe = _func0()
    assert exe.instr_offset == [0, 6, 11, 16]
    assert exe.instr_data == [
        *(Opcode.CALL, 2, 0, 2, 0, 1),
        *(Opcode.CALL, 3, 1, 1, 2),
        *(Opcode.CALL, VOID_REGISTER, 2, 1, 3),
        *(Opcode.RET, 3),
    ]
    assert exe.global_funcs == [VMFunction("func0", 0, 2, 4, ("arg0", "arg1"))]
    assert exe.get_instruction(2) == Call(None, 2, (Arg(ArgKind.REGISTER, 3),))
    assert exe.get_instruction(3) == Ret(3)
    with pytest.raises(VMError, match=r"^instruction index 4 out of range \[0, 4\)$"):
        exe.get_instruction(4)


def test_stats_and_as_text_design_example() -> None:
    exe = _func0()
    assert exe.stats() == (
        "Relax VM executable statistics:\n"
        "  Constant pool (#0): []\n"
        "  Globals (#1): [func0]\n"
        "  Packed functions (#3): [vm.op.add, vm.builtin.move, vm.builtin.print]\n"
    )
    assert exe.as_text() == (
        "@func0:\n"
        "  call  vm.op.add         in: %0, %1  dst: %2\n"
        "  call  vm.builtin.move   in: %2      dst: %3\n"
        "  call  vm.builtin.print  in: %3      dst: void\n"
        "  ret   ret %3\n"
    )


def _everything() -> Executable:
    """Two functions using every instruction, argument kind and constant kind."""
    ib = ExecBuilder()
    ib.set_library('module {\n  func.func @k() { "ü" }\n}')
    ib.convert_constant(np.arange(6, dtype="float32").reshape(2, 3))
    ib.convert_constant(np.array([[True, False]]))
    ib.convert_constant(np.array(7, dtype=">i2"))
    ib.convert_constant(np.array([np.nan, -np.inf, -0.0]))
    ib.convert_constant(np.zeros((0, 3), dtype="int8"))
    ib.convert_constant(np.array([1 + 2j], dtype="complex64"))
    ib.convert_constant((32, (16, None), "float32", 2.5, -(2**70), True, ()))
    ib.convert_constant(float("inf"))
    ib.convert_constant(-3)
    ib.convert_constant((np.arange(2, dtype="uint64"),))
    with ib.function("helper", num_inputs=1, param_names=("v",)):
        ib.emit_call("test.exe.add", args=[ib.r(0), ib.imm(-4)], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    with ib.function("main", num_inputs=2):
        ib.emit_if(ib.r(0), 3)
        ib.emit_call("helper", args=[ib.r(1)], dst=ib.r(2))
        ib.emit_goto(2)
        ib.emit_call("test.exe.add", args=[ib.r(1), ib.c(8)], dst=ib.r(2))
        consts = [ib.c(i) for i in range(10)]
        ib.emit_call("test.exe.pick", args=[ib.r(2), ib.f("helper"), *consts], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    return ib.get()


def _assert_same_value(a: object, b: object) -> None:
    assert type(a) is type(b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()
    elif isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_same_value(x, y)
    elif callable(a):
        assert a.__name__ == b.__name__
    else:
        assert a == b or (a != a and b != b)


def _assert_same_results(exe: Executable, other: Executable) -> None:
    def no_kernels(library: str) -> dict:
        return {}  # the library text here is opaque, not tir

    for args in [(True, 10), (False, 10), (np.array(False), 1)]:
        results = [VirtualMachine(e, no_kernels)["main"](*args) for e in (exe, other)]
        _assert_same_value(*results)


def test_as_text_with_control_flow_and_constants() -> None:
    exe = _everything()
    assert [" ".join(line.split()) for line in exe.as_text().splitlines()] == [
        "@helper:",
        "call test.exe.add in: %0, i-4 dst: %1",
        "ret ret %1",
        "",
        "@main:",
        "if %0, 3",
        "call helper in: %1 dst: %2",
        "goto 2",
        "call test.exe.add in: %1, c[8] dst: %2",
        "call test.exe.pick in: %2, f[helper], c[0], c[1], c[2], c[3], c[4], c[5], c[6], "
        "c[7], c[8], c[9] dst: %3",
        "ret ret %3",
    ]
    assert exe.stats().splitlines()[1] == (
        "  Constant pool (#10): [float32[2, 3], bool[1, 2], int16[], float64[3], int8[0, 3], "
        "complex64[1], (32, (16, None), 'float32', 2.5, -1180591620717411303424, True, ()), "
        "inf, -3, (uint64[2],)]"
    )


def test_as_python_round_trip() -> None:
    exe = _everything()
    code = exe.as_python()
    ib = ExecBuilder()
    exec(code, {"ib": ib})
    rebuilt = ib.get()
    assert rebuilt.to_bytes() == exe.to_bytes()
    assert rebuilt == exe
    assert rebuilt.as_python() == code
    _assert_same_results(exe, rebuilt)


def test_as_python_design_example() -> None:
    assert _func0().as_python() == (
        "with ib.function('func0', num_inputs=2):\n"
        "    ib.emit_call('vm.op.add', args=[ib.r(0), ib.r(1)], dst=ib.r(2))\n"
        "    ib.emit_call('vm.builtin.move', args=[ib.r(2)], dst=ib.r(3))\n"
        "    ib.emit_call('vm.builtin.print', args=[ib.r(3)])\n"
        "    ib.emit_ret(ib.r(3))\n"
    )


def test_as_python_keeps_duplicate_constants_and_name_order() -> None:
    exe = Executable(
        global_funcs=[VMFunction("main", 0, 1, 2)],
        constants=[5, 5],
        func_names=["unused", "test.exe.add"],
        instr_data=[*Call(1, 1, (Arg(ArgKind.REGISTER, 0), Arg(ArgKind.CONST_IDX, 1))).encode(),
                    *Ret(1).encode()],
        instr_offset=[0, 6],
    )  # fmt: skip
    ib = ExecBuilder()
    exec(exe.as_python(), {"ib": ib})
    assert ib.get().to_bytes() == exe.to_bytes()


def test_save_load_round_trip(tmp_path: Path) -> None:
    exe = _everything()
    path = tmp_path / "prog.xvm"
    exe.save(path)
    loaded = Executable.load(path)
    assert loaded.to_bytes() == exe.to_bytes()
    assert loaded == exe
    assert loaded.library == exe.library
    assert loaded.func_names == exe.func_names
    assert loaded.global_funcs == exe.global_funcs
    assert loaded.instr_data == exe.instr_data and loaded.instr_offset == exe.instr_offset
    assert len(loaded.constants) == len(exe.constants)
    for a, b in zip(exe.constants, loaded.constants, strict=True):
        _assert_same_value(a, b)
    assert loaded.constants[2].dtype.str == ">i2"
    assert loaded.as_text() == exe.as_text()
    _assert_same_results(exe, loaded)
    assert Executable.from_bytes(exe.to_bytes()).to_bytes() == exe.to_bytes()


def test_equality_compares_constant_contents() -> None:
    a, b = _everything(), _everything()
    assert a == b and a != _func0()
    b.constants[0] = b.constants[0] + 1
    assert a != b
    b = _everything()
    b.constants[3] = np.array([np.nan, -np.inf, 0.0])
    assert a != b


def test_header_layout() -> None:
    data = _func0().to_bytes()
    assert data[:8] == MAGIC
    version, crc, length = struct.unpack_from("<IIQ", data, 8)
    assert version == 3 and length == len(data) - 24 and crc == zlib.crc32(data[24:])


def test_unserialisable_constant() -> None:
    exe = Executable(constants=[object()])
    with pytest.raises(VMError, match=r"^cannot serialise a constant of type object$"):
        exe.to_bytes()


@pytest.mark.parametrize("cut", [0, 5, 8, 20, 24, 40, 100, -1])
def test_truncated_files_are_refused(tmp_path: Path, cut: int) -> None:
    data = _everything().to_bytes()
    path = tmp_path / "t.xvm"
    path.write_bytes(data[:cut])
    with pytest.raises(VMError) as info:
        Executable.load(path)
    message = str(info.value)
    assert message.startswith(f"cannot load executable '{path}': truncated")
    assert "\n" not in message


def test_flipped_bytes_are_refused() -> None:
    data = _everything().to_bytes()
    for pos in range(0, len(data), max(1, len(data) // 97)):
        corrupted = bytearray(data)
        corrupted[pos] ^= 0x10
        with pytest.raises(VMError, match=r"^invalid executable: "):
            Executable.from_bytes(bytes(corrupted))
    corrupted = bytearray(data)
    corrupted[len(data) // 2] ^= 1
    with pytest.raises(
        VMError, match=r"^invalid executable: checksum mismatch \(the file is corrupted\)$"
    ):
        Executable.from_bytes(bytes(corrupted))


def test_bad_magic_future_version_and_trailing_bytes() -> None:
    data = _func0().to_bytes()
    with pytest.raises(
        VMError, match=r"^invalid executable: bad magic bytes \(not an xrelax VM executable\)$"
    ):
        Executable.from_bytes(b"PK\x03\x04" + data[4:])
    for version in (2, 4):
        other = data[:8] + struct.pack("<I", version) + data[12:]
        with pytest.raises(
            VMError,
            match=rf"^invalid executable: unsupported format version {version} \(this build "
            r"reads 3\)$",
        ):
            Executable.from_bytes(other)
    with pytest.raises(
        VMError, match=r"^invalid executable: 1 unexpected bytes after the payload$"
    ):
        Executable.from_bytes(data + b"\0")


def test_valid_checksum_over_malformed_payload_is_refused() -> None:
    payload = b"FUNC" + struct.pack("<Q", 100)
    data = MAGIC + struct.pack("<IIQ", FORMAT_VERSION, zlib.crc32(payload), len(payload)) + payload
    with pytest.raises(
        VMError, match=r"^invalid executable: payload section is malformed \(runs past its end\)$"
    ):
        Executable.from_bytes(data)


def test_branchy_instructions_decode() -> None:
    exe = _everything()
    start = exe.global_funcs[1].start_instr
    assert exe.get_instruction(start) == If(0, 3)
    assert exe.get_instruction(start + 2) == Goto(2)
