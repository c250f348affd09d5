"""fp16/bf16 encoding, Cast rounding modes, vector-op and Tanh/Sigmoid values."""

from __future__ import annotations

import math
import struct

import pytest

# Every test runs test_kernel_api, which the twin_build fixture compiles (conftest.py).
pytestmark = pytest.mark.slow


def test_fp16_encoding(run_section):
    run_section("test_kernel_api", "fp16")


def test_bf16_encoding(run_section):
    run_section("test_kernel_api", "bf16")


def _py_half_bits(f: float) -> int:
    """Round-to-nearest-even binary16 via Python's struct (independent of the twin)."""
    if math.isnan(f):
        return 0x7E00
    try:
        return struct.unpack("<H", struct.pack("<e", f))[0]
    except OverflowError:
        return 0xFC00 if f < 0 else 0x7C00


def _py_bf16_bits(u: int) -> int:
    """Round-to-nearest-even bfloat16 from float32 bits (integer arithmetic)."""
    lsb = (u >> 16) & 1
    return ((u + 0x7FFF + lsb) >> 16) & 0xFFFF


def test_fp16_bf16_conversion_matches_python_reference(twin_build):
    proc = twin_build.run("test_kernel_api", "dump", check=True)
    rows = [ln.split()[1:] for ln in proc.stdout.splitlines() if ln.startswith("DUMP")]
    assert len(rows) > 2000
    bad = []
    for u_hex, h_hex, b_hex in rows:
        u = int(u_hex, 16)
        f = struct.unpack("<f", struct.pack("<I", u))[0]
        if _py_half_bits(f) != int(h_hex, 16):
            bad.append(f"half {u_hex} ({f!r}): twin {h_hex} python {_py_half_bits(f):04x}")
        if _py_bf16_bits(u) != int(b_hex, 16):
            bad.append(f"bf16 {u_hex} ({f!r}): twin {b_hex} python {_py_bf16_bits(u):04x}")
    assert not bad, "\n".join(bad[:20])


def test_cast_round_modes(run_section):
    res = run_section("test_kernel_api", "cast")
    assert res["passed"] >= 100  # 10 values x 7 modes + the other conversions
    assert "CAST_NONE" in res["messages"]["cast_bf16_none"]
    # the SoC a kernel is built for: 310P has no float -> half CAST_RINT, 910A no bfloat16_t Cast
    assert "ascend310p (__NPU_ARCH__ 2002)" in res["messages"]["cast_310p_rint"]
    assert "no bfloat16_t Cast" in res["messages"]["cast_910a_bf16"]


def test_vector_ops(run_section):
    run_section("test_kernel_api", "vec")


def test_tanh_sigmoid_and_tmp_sizes(run_section):
    res = run_section("test_kernel_api", "adv")
    assert "1024" in res["messages"]["tanh_tmp_small"]
    run_section("test_kernel_api", "adv_notmp")


@pytest.mark.parametrize("level", ["0", "1", "2"])
def test_every_simd_level_gives_the_reference_bits(run_section, monkeypatch, level):
    """OPGEN_TWIN_SIMD caps the instruction set of the vectorized loops (simd.h, fast_math.h);
    at each level (up to what this CPU has) the vector ops, every half and bfloat16 and a sweep
    of floats through the Casts give the scalar reference's bits, and Tanh std::tanh's."""
    monkeypatch.setenv("OPGEN_TWIN_SIMD", level)
    res = run_section("test_kernel_api", "simd")
    assert int(res["messages"]["simd_level"]) <= int(level)
    assert res["passed"] >= 17
    run_section("test_kernel_api", "adv")


@pytest.mark.parametrize("section", ["fp16", "cast", "vec"])
def test_sections_really_check_something(run_section, section):
    # Guard against a section silently doing nothing.
    assert run_section("test_kernel_api", section)["passed"] >= 20
