"""CompareScalar / Compares (count and level-0 forms, per-SoC element types), Subs and the debug
output (printf, DumpTensor, DumpAccChkPoint) on the twin, against references written from the
asc-devkit docs (Compares.md, Subs（灵活标量位置）.md, DumpTensor.md, DumpAccChkPoint.md,
printf.md); cpp/test_debug_cmp_api.cpp prints the inputs and the twin's outputs. The same APIs in a
kernel run by the runner: test_heaviside.py."""

from __future__ import annotations

import re

import numpy as np
import pytest
from twin_support import build_check, run_check_section

# One g++ build of cpp/test_debug_cmp_api.cpp for the module (a few seconds).
pytestmark = pytest.mark.slow

MODES = {
    "LT": np.less,
    "GT": np.greater,
    "EQ": np.equal,
    "LE": np.less_equal,
    "GE": np.greater_equal,
    "NE": np.not_equal,
}
SIZES = {"half": 2, "float": 4, "int32": 4, "int16": 2, "bfloat16": 2}


@pytest.fixture(scope="module")
def dbg_bin(tmp_path_factory):
    return build_check(tmp_path_factory, "test_debug_cmp_api")


def _run(exe, section: str):
    return run_check_section(exe, section)


def _pack(bits: list[bool]) -> list[int]:
    """Compares.md: one bit per element, little-endian within each uint8_t."""
    return [sum(int(b) << j for j, b in enumerate(bits[i : i + 8])) for i in range(0, len(bits), 8)]


@pytest.mark.parametrize("tn", ["half", "float", "int32"])
def test_compare_scalar_forms(dbg_bin, tn):
    ins, outs, _, _ = _run(dbg_bin, "compare")
    x, s = np.array(ins[f"cs_x_{tn}"]), ins[f"cs_scalar_{tn}"][0]
    per = 256 // SIZES[tn]
    untouched = [0xA5] * 4
    modes = ["EQ"] if tn == "int32" else list(MODES)
    for m in modes:
        holds = MODES[m](x, s)
        count = _pack(list(holds[: 2 * per])) + untouched
        assert outs[f"cs_count_{tn}_{m}"] == count, m
        assert outs[f"compares_count_{tn}_{m}"] == count, m
        # level 0: 3 iterations, src repeat stride 16 blocks (every other iteration's data),
        # dst contiguous
        l0 = [bool(holds[2 * per * r + k]) for r in range(3) for k in range(per)]
        assert outs[f"cs_l0_{tn}_{m}"] == _pack(l0) + untouched, m
        # the mask is reserved on Atlas A2/A3: mask {1, 0} still compares the whole iteration
        assert outs[f"compares_l0bits_{tn}_{m}"] == _pack(list(holds[:per])) + untouched, m


def test_compare_scalar_errors(dbg_bin):
    _, _, msgs, _ = _run(dbg_bin, "compare")
    assert "not whole 256-byte blocks" in msgs["cs_partial"]
    assert "EQ only on ascend910b" in msgs["cs_int32_lt"]
    assert "ascend310p" in msgs["cs_int32_310p"] and "half and float)" in msgs["cs_int32_310p"]
    assert "no int16_t Compares" in msgs["cs_int16_910b"]
    assert "has no Compares" in msgs["cs_910"]
    assert "src0 reaches element 319" in msgs["cs_l0_overrun"]
    assert "dst needs 104 bytes" in msgs["cs_l0_dst_overrun"]
    assert "not emulated" in msgs["cs_l0_310b"] and "ascend310b" in msgs["cs_l0_310b"]
    assert "not emulated" in msgs["compare_l0_950"] and "ascend950" in msgs["compare_l0_950"]


def _sub(a, b, tn):
    if tn in ("int16", "int32"):
        w = 8 * SIZES[tn]
        v = (int(a) - int(b)) & ((1 << w) - 1)
        return v - (1 << w) if v >> (w - 1) else v
    return float(np.float32(a) - np.float32(b))  # the inputs are small multiples of 0.25: exact


@pytest.mark.parametrize("tn", ["half", "float", "int16", "int32", "bfloat16"])
def test_subs(dbg_bin, tn):
    ins, outs, _, _ = _run(dbg_bin, "subs")
    x, p, v = ins[f"subs_x_{tn}"], ins[f"subs_p_{tn}"][0], ins[f"subs_v_{tn}"][0]
    per = 256 // SIZES[tn]
    n = 2 * per - 8
    assert outs[f"subs_after_{tn}"] == [_sub(a, v, tn) for a in x[:n]]
    assert outs[f"subs_before_{tn}"] == [_sub(v, a, tn) for a in x[:n]]
    assert outs[f"subs_point1_{tn}"] == [_sub(a, p, tn) for a in x[:n]]
    assert outs[f"subs_point0_{tn}"] == [_sub(p, a, tn) for a in x[:n]]
    # level 0: continuous mask 20, 2 iterations, src repeat stride 4 blocks (half an iteration)
    exp = [7.0] * (2 * per)
    for r in range(2):
        for k in range(20):
            exp[r * per + k] = _sub(x[r * per // 2 + k], v, tn)
    assert outs[f"subs_l0_{tn}"] == exp


def test_subs_errors(dbg_bin):
    _, _, msgs, _ = _run(dbg_bin, "subs")
    assert "ascend910b" in msgs["subs_910b"] and "does not compile there" in msgs["subs_910b"]
    assert "overlaps dst" in msgs["subs_overlap"]
    assert "count 65" in msgs["subs_overrun"]


def test_dump_and_printf_format(dbg_bin):
    """DumpTensor.md's and printf.md's formats: the head line, then the values with %f (floats) or
    as integers; printf prefixed with the block, `[AIV Block 0/1] `."""
    _, _, msgs, out = _run(dbg_bin, "debug")
    dump = out.split("BEGIN dump\n", 1)[1].split("END dump\n", 1)[0].splitlines()
    assert dump[:8] == [
        "DumpTensor: desc=5, addr=0x0, data_type=float16, position=UB, dump_size=8",
        "[0.000000, 0.500000, 1.000000, 1.500000, 2.000000, 2.500000, 3.000000, 3.500000]",
        "DumpTensor: desc=7, addr=0x80, data_type=float32, position=UB, dump_size=4",
        "[-7.250000, -6.250000, -5.250000, -4.250000]",
        "DumpTensor: desc=9, addr=0xc0, data_type=int32, position=UB, dump_size=5",
        "[0, -3, -6, -9, -12]",
        # DumpAccChkPoint(h, 56, 32, 3): h[32..34], 64 bytes in (DumpAccChkPoint.md's addr=0x40)
        "DumpTensor: desc=56, addr=0x40, data_type=float16, position=UB, dump_size=3",
        "[16.000000, 16.500000, 17.000000]",
    ]
    assert re.fullmatch(
        r"DumpTensor: desc=11, addr=0x[0-9a-f]+, data_type=float32, position=GM, "
        r"dump_size=4",
        dump[8],
    )
    assert dump[9:] == [
        "[1.500000, -2.000000, 3.250000, 0.000000]",
        "[AIV Block 0/1] fmt string int: 291, float: 3.140000, half: 1.500000, str: ok",
        "[AIV Block 0/1] PRINTF 7",
    ]
    big = out.split("BEGIN big\n", 1)[1].split("END big\n", 1)[0]
    assert "not printed" in big and "30 KB" in big and "DumpTensor:" not in big
    assert "17" in msgs["dump_overrun"] and "ascend910" in msgs["dump_910"]
    assert "countOff 17" in msgs["acc_offset"] and "32-byte aligned" in msgs["acc_align"]
    assert "no printf" in msgs["printf_310p"]


def test_tquesync(dbg_bin):
    """TQueSync<PIPE_MTE2, PIPE_V> sets and waits the MTE2_V flag; a wait without a set hangs the
    NPU (an error); another pair's flag is another flag."""
    _, _, msgs, _ = _run(dbg_bin, "sync")
    assert "no matching SetFlag" in msgs["tquesync_unset"]
    assert "no matching SetFlag" in msgs["tquesync_other_pair"]


def _rows(values, rows, cols, missing=0):
    lines = [",".join(f"{v:f}" for v in values[r * cols : (r + 1) * cols]) for r in range(rows)]
    lines += [",".join(["-"] * cols)] * missing
    return "[" + ",\n".join(f"[{ln}]" for ln in lines) + "]"


def test_dump_with_shape(dbg_bin):
    """DumpTensor.md's ShapeInfo examples: a row per line; a shape smaller than dumpSize prints only
    its elements after a note, a larger one "-" for the missing ones."""
    _, _, _, out = _run(dbg_bin, "debug")
    text = out.split("BEGIN shape\n", 1)[1].split("END shape\n", 1)[0]
    h = [k * 0.5 for k in range(64)]
    head = "DumpTensor: desc={}, addr=0x0, data_type=float16, position=UB, dump_size={}\n"
    cube = "[" + ",\n".join(_rows(h[12 * i :], 3, 4) for i in range(2)) + "]"
    assert text == (
        head.format(2, 64)
        + _rows(h, 8, 8)
        + "\n"
        + head.format(3, 64)
        + "shape is [7, 8], dumpSize is 64, dumpSize is greater than shapeSize.\n"
        + _rows(h, 7, 8)
        + "\n"
        + head.format(4, 64)
        + "shape is [9, 8], dumpSize is 64, data is not enough.\n"
        + _rows(h, 8, 8, missing=1)
        + "\n"
        + head.format(5, 24)
        + cube
        + "\n"
    )
