"""The level-0 reductions (WholeReduceSum/Max/Min, BlockReduceSum/Max/Min, PairReduceSum) and the
mask register (SetMaskCount/SetMaskNorm/SetVectorMask/ResetMask, isSetMask = false) against numpy
references written from asc-devkit's docs, not from the twin's code.

tests/twin/cpp/test_reduce_api.cpp prints the raw bits of its inputs and results; this module
compiles that one program (a few seconds; compiling, it is in the slow tier) and recomputes every
result here. The inputs are multiples of 1/4 small enough that every sum is exact in float and half,
so the order of the NPU's binary tree does not matter for these bits.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from twin_support import CPP, CXX, CXXFLAGS

SENTINEL = -999.0

pytestmark = pytest.mark.slow  # compiles test_reduce_api.cpp


@pytest.fixture(scope="module")
def reduce_api(tmp_path_factory):
    if shutil.which(CXX) is None:
        pytest.fail(f"C++ compiler {CXX!r} not found")
    exe = tmp_path_factory.mktemp("reduce_api") / "test_reduce_api"
    cmd = [CXX, *CXXFLAGS, str(CPP / "test_reduce_api.cpp"), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"compile failed: {' '.join(cmd)}\n{proc.stderr}", pytrace=False)

    def run(section: str) -> tuple[dict[str, np.ndarray], dict[str, str]]:
        p = subprocess.run([str(exe), section], capture_output=True, text=True, timeout=60)
        lines = p.stdout.splitlines()
        fails = [ln for ln in lines if ln.startswith("FAIL")]
        assert not fails, "\n".join(fails)
        assert p.returncode == 0 and any(ln.startswith("SUMMARY") for ln in lines), (
            p.stdout + p.stderr
        )
        arrays, msgs = {}, {}
        for ln in lines:
            if ln.startswith("BITS "):
                _, name, dtype, *vals = ln.split()
                raw = np.array(
                    [int(v) for v in vals], dtype=np.uint16 if dtype == "half" else np.uint32
                )
                arrays[name] = raw
            elif ln.startswith("MSG "):
                name, _, text = ln[4:].partition(": ")
                msgs[name] = text
        return arrays, msgs

    return run


def _vals(bits: np.ndarray) -> np.ndarray:
    return bits.view(np.float16 if bits.dtype == np.uint16 else np.float32)


def _iterations(src, per_repeat, repeats, mask_bits, blk_stride, rep_stride):
    """Per iteration: (selected positions k, their values), element k of iteration r at block
    blk_stride * (k // per_block) + rep_stride * r (asc-devkit 高维切分.md)."""
    per_block = per_repeat // 8
    out = []
    for r in range(repeats):
        ks = [k for k in range(per_repeat) if mask_bits(r, k)]
        idx = [
            (rep_stride * r + blk_stride * (k // per_block)) * per_block + k % per_block for k in ks
        ]
        out.append((np.array(ks), src[idx]))
    return out


def _first(n):
    return lambda r, k: k < n


def _bits(words):
    return lambda r, k: (words[k // 64] >> (k % 64)) & 1 == 1


def _counter(n, per_repeat):
    return lambda r, k: r * per_repeat + k < n


def _expect(n, dtype):
    return np.full(n, SENTINEL, dtype=dtype)


def test_whole_reduce_sum_max_min(reduce_api):
    a, _ = reduce_api("whole")
    f, h = _vals(a["src_f"]), _vals(a["src_h"])

    exp = _expect(8, np.float32)
    for r, (_, v) in enumerate(_iterations(f, 64, 4, _first(64), 1, 8)):
        exp[r] = v.sum()
    np.testing.assert_array_equal(_vals(a["sum_f_m64_r4"]), exp)

    exp = _expect(8, np.float16)  # mask 100, dst every 2nd element, iterations 10 blocks apart
    for r, (_, v) in enumerate(_iterations(h, 128, 3, _first(100), 1, 10)):
        exp[2 * r] = v.astype(np.float64).sum()
    np.testing.assert_array_equal(_vals(a["sum_h_m100_r3_d2_s10"]), exp)

    # [value, index]: the index is the position in the iteration, stored as the value type's bits.
    got = a["max_f_bits_vi_b2_s16"]
    its = _iterations(f, 64, 2, _bits([0xF0F0F0F0F0F0F0F0, 0]), 2, 16)
    for r, (ks, v) in enumerate(its):
        assert _vals(got[2 * r : 2 * r + 1])[0] == v.max()
        assert got[2 * r + 1] == ks[int(np.argmax(v))]
    assert (_vals(got[4:]) == SENTINEL).all()

    got = a["min_h_m128_iv"]  # [index, value]
    for r, (ks, v) in enumerate(_iterations(h, 128, 2, _first(128), 1, 8)):
        assert got[2 * r] == ks[int(np.argmin(v))]
        assert _vals(got[2 * r + 1 : 2 * r + 2])[0] == v.min()

    exp = _expect(12, np.float32)  # ORDER_ONLY_VALUE, dstRepStride 3
    for r, (_, v) in enumerate(_iterations(f, 64, 3, _first(50), 1, 8)):
        exp[3 * r] = v.max()
    np.testing.assert_array_equal(_vals(a["max_f_m50_ov_d3"]), exp)

    got = a["min_f_m64_oi"]  # ORDER_ONLY_INDEX: uint32 indices
    for r, (ks, v) in enumerate(_iterations(f, 64, 3, _first(64), 1, 8)):
        assert got[r] == ks[int(np.argmin(v))]
    assert _vals(got[3:4])[0] == SENTINEL


def test_block_and_pair_reduce(reduce_api):
    a, _ = reduce_api("block")
    f, h = _vals(a["src_f"]), _vals(a["src_h"])

    def per_group(src, per_repeat, repeats, mask, blk, rep, group, fn, dst_rep, n_out, dtype):
        exp = _expect(n_out, dtype)
        per_iter = per_repeat // group
        for r, (ks, v) in enumerate(_iterations(src, per_repeat, repeats, mask, blk, rep)):
            for g in range(per_iter):
                sel = v[(ks // group) == g]
                if sel.size:  # a group with no selected element is not written
                    exp[per_iter * r * dst_rep + g] = fn(sel.astype(np.float64))
        return exp

    np.testing.assert_array_equal(
        _vals(a["bsum_f_r2"]), per_group(f, 64, 2, _first(64), 1, 8, 8, np.sum, 1, 16, np.float32)
    )
    np.testing.assert_array_equal(
        _vals(a["bmax_f_m20_d2"]),
        per_group(f, 64, 2, _first(20), 1, 8, 8, np.max, 2, 32, np.float32),
    )
    words = [0x00000000FFFF0001, 0x8000000000000000]
    np.testing.assert_array_equal(
        _vals(a["bmin_h_bits_b2_s16"]),
        per_group(h, 128, 2, _bits(words), 2, 16, 16, np.min, 1, 16, np.float16),
    )
    np.testing.assert_array_equal(
        _vals(a["psum_h_r2"]),
        per_group(h, 128, 2, _first(128), 1, 8, 2, np.sum, 1, 128, np.float16),
    )


def test_mask_register_counter_and_normal(reduce_api):
    a, _ = reduce_api("mask")
    f = _vals(a["src_f"])

    # Counter mode, 1000 floats: 16 iterations, the last of 40 elements; repeatTime ignored.
    exp = _expect(20, np.float32)
    for r, (_, v) in enumerate(_iterations(f, 64, 16, _counter(1000, 64), 1, 8)):
        exp[r] = v.sum()
    np.testing.assert_array_equal(_vals(a["cnt_sum_f_1000"]), exp)

    # Counter mode BlockReduceSum, 300 floats: 38 blocks (the last of 4), then untouched.
    exp = _expect(48, np.float32)
    for b in range(38):
        exp[b] = f[8 * b : min(8 * b + 8, 300)].sum()
    np.testing.assert_array_equal(_vals(a["cnt_bsum_f_300"]), exp)

    exp = _expect(256, np.float32)  # Counter mode Add, 200 elements
    exp[:200] = f[:200] + f[:200]
    np.testing.assert_array_equal(_vals(a["cnt_add_f_200"]), exp)

    exp = _expect(128, np.float32)  # Normal mode register (0, 0x400000000000000F), 2 iterations
    for r in range(2):
        for k in (0, 1, 2, 3, 62):
            exp[64 * r + k] = 2 * f[64 * r + k]
    np.testing.assert_array_equal(_vals(a["norm_add_f_bits"]), exp)

    exp = _expect(
        4, np.float32
    )  # SetVectorMask<float>(10): the first 10 elements of each iteration
    exp[0], exp[1] = f[:10].max(), f[64:74].max()
    np.testing.assert_array_equal(_vals(a["norm_max_f_len10"]), exp)


def test_reduce_and_mask_errors_name_the_call(reduce_api):
    _, msgs = reduce_api("errors")
    assert (
        "WholeReduceSum(mask, " in msgs["whole_mask_zero"] and "[1, 64]" in msgs["whole_mask_zero"]
    )
    assert "no element" in msgs["whole_bits_none"]
    assert "repeatTime 256" in msgs["whole_repeat_256"]
    assert "UB buffer overrun" in msgs["whole_src_overrun"]
    assert "dst write at bytes" in msgs["whole_dst_overrun"]
    assert "Counter-mode count 300" in msgs["counter_overrun"]
    assert "Counter mode with a count of 18446744073709551615" in msgs["counter_after_resetmask"]
    assert (
        "MaskMode::NORMAL while Counter mode is on" in msgs["setvectormask_len_normal_in_counter"]
    )
    assert "maskHigh must be 0" in msgs["setvectormask_high_32bit"]


def test_compare_register_form_and_cmpmask(reduce_api):
    """Compare(src0, src1, cmpMode, mask, repeatParams) into the CmpMask register, GetCmpMask and
    SetCmpMask, and Compare(dst, ..., mask, repeatTime, repeatParams) into a tensor (hand values
    in the C++ section); GetCmpMask into a never-allocated LocalTensor, as AscendC-S3
    ArgMaxWithValue's half path does, is an error."""
    _, msgs = reduce_api("cmpmask")
    assert "UB buffer overrun" in msgs["compare_level0_dst_overrun"]
    assert "default-constructed LocalTensor" in msgs["getcmpmask_default_tensor"]


def test_select_level0_forms(reduce_api):
    """Select(dst, selMask, src0, src1 | scalar, selMode, mask, repeatTime, params) in modes 2
    and 1, and mode 0 through the CmpMask register (Compare's register form, then Select(dst,
    src0, src1, repeatTime, params)); hand values in the C++ section; a selMask too short for
    the iterations."""
    _, msgs = reduce_api("select")
    assert "selMask" in msgs["select_level0_selmask_short"]
