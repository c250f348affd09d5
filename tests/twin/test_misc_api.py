"""ShiftLeft/ShiftRight, MulAddDst, Copy (level 0), GatherMask, Sort32, Broadcast/BroadCast,
LocalTensor's expression operators and CCE's scalar max/min on the twin, against numpy / plain
Python references written from the asc-devkit docs (cpp/test_misc_api.cpp prints the inputs
and the twin's outputs)."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from twin_support import build_check, run_check_section

# One g++ build of cpp/test_misc_api.cpp for the module (about 10 s), as the other C++ checks.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def misc_bin(tmp_path_factory):
    return build_check(tmp_path_factory, "test_misc_api")


def _run(exe, section: str):
    return run_check_section(exe, section)[:3]


INT_TYPES = {"int16": (16, True), "uint16": (16, False), "int32": (32, True), "uint32": (32, False)}


def _wrap(v: int, w: int, signed: bool) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if signed and v >> (w - 1) else v


def _shl(x: int, s: int, w: int, signed: bool) -> int:
    """ShiftLeft.md: logical for unsigned; for signed the sign bit stays and the bit below it is
    dropped (int16 1010101010101010 << 1 = 1101010101010100)."""
    m = (1 << w) - 1
    u = x & m
    shifted = (u << s) & m if s < w else 0
    if not signed:
        return shifted
    sign = u & (1 << (w - 1))
    return _wrap(sign | (shifted & (m >> 1)), w, True)


def _shr(x: int, s: int, w: int, signed: bool, round_en: bool = False) -> int:
    """ShiftRight.md: logical for unsigned, arithmetic for signed; roundEn (signed only) adds
    bit s-1 of the source."""
    if not signed:
        return (x & ((1 << w) - 1)) >> s
    r = x >> s  # Python's >> is arithmetic, any s
    if round_en and s >= 1:
        r += (x >> (s - 1)) & 1
    return _wrap(r, w, True)


def test_shift_left_right(misc_bin):
    ins, outs, msgs = _run(misc_bin, "shift")
    for tn, (w, signed) in INT_TYPES.items():
        x = [int(v) for v in ins[f"shift_{tn}"]]
        for s in (0, 1, 3, 8, w - 1, w):
            assert [int(v) for v in outs[f"shl_{tn}_{s}"]] == [
                _shl(v, s, w, signed) for v in x[:200]
            ], (tn, s)
            assert [int(v) for v in outs[f"shr_{tn}_{s}"]] == [
                _shr(v, s, w, signed) for v in x[:200]
            ], (tn, s)
        per = 256 * 8 // w
        # level 0: continuous mask 20, 2 iterations, dst/src repeat 8/4 blocks, roundEn
        exp = [7] * 256
        for r in range(2):
            for k in range(20):
                exp[r * per + k] = _shr(x[r * per // 2 + k], 5, w, signed, round_en=True)
        assert [int(v) for v in outs[f"shr0_round_{tn}_{per}"]] == exp, tn
        # bit mode, one iteration
        exp = [7] * 256
        for k in range(per):
            if (0xF0F0F0F1 >> k) & 1:
                exp[k] = _shl(x[k], 2, w, signed)
        assert [int(v) for v in outs[f"shl0_bits_{tn}_{per}"]] == exp, tn
    # the docs' own examples
    assert _shl(0b1010101010101010 - (1 << 16), 1, 16, True) == 0b1101010101010100 - (1 << 16)
    assert _shl(0b1010101010101010 - (1 << 16), 3, 16, True) == 0b1101010101010000 - (1 << 16)
    assert _shr(0b1010101010101010 - (1 << 16), 3, 16, True) == 0b1111010101010101 - (1 << 16)
    assert _shr(17, 5, 16, True, round_en=True) == 1
    assert "[0, 16]" in msgs["shift_amount"] and "count 65" in msgs["shift_overrun"]


def _correctly_rounded(r: float, exact: Fraction, dtype) -> bool:
    """r is the dtype value nearest to exact (ties: either neighbour is accepted)."""
    rv = dtype(r)
    err = abs(Fraction(float(rv)) - exact)
    for nb in (np.nextafter(rv, dtype(np.inf)), np.nextafter(rv, dtype(-np.inf))):
        if abs(Fraction(float(nb)) - exact) < err:
            return False
    return True


@pytest.mark.parametrize(
    "name,dst",
    [
        ("muladddst_half", np.float16),
        ("muladddst_float", np.float32),
        ("muladddst_half_float", np.float32),
    ],
)
def test_muladddst(misc_bin, name, dst):
    ins, outs, _ = _run(misc_bin, "shift")
    a, b, d, y = ins[f"{name}_a"], ins[f"{name}_b"], ins[f"{name}_d"], outs[name]
    for i in range(64):
        if i < 50:
            exact = Fraction(a[i]) * Fraction(b[i]) + Fraction(d[i])
            assert _correctly_rounded(y[i], exact, dst), (i, a[i], b[i], d[i], y[i])
        else:
            assert y[i] == d[i]
    # level 0 (same types): mask 20, 2 iterations, src0 repeat stride 4 blocks
    if f"{name}_l0" in outs:
        per = 256 // np.dtype(dst).itemsize
        a, b, d, y = (
            ins[f"{name}_l0_a"],
            ins[f"{name}_l0_b"],
            ins[f"{name}_l0_d"],
            outs[f"{name}_l0"],
        )
        done = set()
        for r in range(2):
            for k in range(20):
                i, ia = r * per + k, r * per // 2 + k
                exact = Fraction(a[ia]) * Fraction(b[i]) + Fraction(d[i])
                assert _correctly_rounded(y[i], exact, dst), (r, k)
                done.add(i)
        assert all(y[i] == d[i] for i in range(2 * per) if i not in done)


def _repeat_elem(r: int, k: int, blk: int, rep: int, per_block: int) -> int:
    return (rep * r + blk * (k // per_block)) * per_block + k % per_block


BUILTIN = {
    1: lambda k: k % 2 == 0,
    2: lambda k: k % 2 == 1,
    3: lambda k: k % 4 == 0,
    4: lambda k: k % 4 == 1,
    5: lambda k: k % 4 == 2,
    6: lambda k: k % 4 == 3,
    7: lambda k: True,
}


@pytest.mark.parametrize("tn,size", [("float", 4), ("half", 2), ("uint16", 2)])
def test_copy_and_gathermask(misc_bin, tn, size):
    ins, outs, msgs = _run(misc_bin, "gather")
    x = ins[f"gm_x_{tn}"]
    pb, per = 32 // size, 256 // size
    # Copy, continuous mask 20, 3 iterations, CopyRepeatParams(1, 2, 4, 8)
    exp = [9.0] * 512
    for r in range(3):
        for k in range(20):
            exp[_repeat_elem(r, k, 1, 4, pb)] = x[_repeat_elem(r, k, 2, 8, pb)]
    assert outs[f"copy_cont_{tn}"] == exp
    # Copy, bit mask {bit 0, bit 63 (, bits 64..71 for 16-bit types)}, 2 iterations
    bits = (1 | 1 << 63) | ((0xFF << 64) if size == 2 else 0)
    exp = [9.0] * 512
    for r in range(2):
        for k in range(per):
            if bits >> k & 1:
                exp[r * per + k] = x[r * per + k]
    assert outs[f"copy_bits_{tn}"] == exp
    # GatherMask, built-in patterns, Normal mode, 2 iterations of 256 bytes
    for p, take in BUILTIN.items():
        got = [(n, v) for n, v in outs.items() if n.startswith(f"gm_builtin_{tn}_{p}_")]
        assert len(got) == 1
        name, y = got[0]
        sel = [x[r * per + k] for r in range(2) for k in range(per) if take(k)]
        assert int(name.rsplit("_", 1)[1]) == len(sel)
        assert y == sel + [9.0] * (512 - len(sel)), p
    # user pattern, Counter mode: 40 elements per iteration, 3 iterations, src0 repeat stride 4
    # blocks, pattern repeat stride 1 block (32 / size pattern words)
    pat = [int(v) for v in ins[f"gm_pat_{tn}"]]
    bits_per = 8 * size
    sel = []
    for r in range(3):
        for k in range(40):
            if pat[r * (32 // size) + k // bits_per] >> (k % bits_per) & 1:
                sel.append(x[_repeat_elem(r, k, 1, 4, pb)])
    got = [(n, v) for n, v in outs.items() if n.startswith(f"gm_user_{tn}_")]
    name, y = got[0]
    assert int(name.rsplit("_", 1)[1]) == len(sel)
    assert y == sel + [9.0] * (512 - len(sel))
    assert "1..7" in msgs[f"gm_pattern8_{tn}"]
    assert "dstStride" in msgs["copy_dst_stride0"]
    assert "UB buffer overrun" in msgs["gm_dst_small"]


@pytest.mark.parametrize("tn", ["float", "half"])
def test_sort32(misc_bin, tn):
    """Sort32.md: each 32-element group in descending order, equal scores by position; the
    (score, index) pairs as the index tensor gave them."""
    ins, outs, msgs = _run(misc_bin, "sort")
    x = ins[f"sort_x_{tn}"]
    y = outs[f"sort_{tn}"]
    exp = []
    for r in range(3):
        grp = sorted(range(32), key=lambda i: (-x[32 * r + i], i))
        for i in grp:
            exp += [x[32 * r + i], 1000 + 3 * (32 * r + i)]
    assert y == exp
    assert len(set(x[:32])) < 32  # the case has ties
    assert "dst" in msgs["sort_dst_too_small"]
    assert "no Sort32" in msgs["sort_910"]


def _records(values: list) -> list[tuple[float, int]]:
    return [(values[i], int(values[i + 1])) for i in range(0, len(values), 2)]


def _merge(lists: list[list[tuple[float, int]]]) -> list[tuple[float, int]]:
    """MrgSort.md: by score descending; equal scores: the lower-numbered list first, each list's
    own order kept."""
    keyed = [
        (-score, n, pos, (score, i))
        for n, lst in enumerate(lists)
        for pos, (score, i) in enumerate(lst)
    ]
    return [rec for *_, rec in sorted(keyed)]


@pytest.mark.parametrize("tn", ["float", "half"])
def test_mrgsort(misc_bin, tn):
    ins, outs, msgs = _run(misc_bin, "mrgsort")
    runs = _records(ins[f"mrg_{tn}_runs"])
    run = [runs[32 * r : 32 * r + 32] for r in range(8)]
    assert all(r == sorted(r, key=lambda rec: (-rec[0], rec[1])) for r in run)  # Sort32's runs
    assert _records(outs[f"mrg_{tn}_four"]) == _merge([run[0], run[1], run[2], run[3][:17]])
    assert _records(outs[f"mrg_{tn}_two"]) == _merge([run[4], run[5][:20]])
    assert _records(outs[f"mrg_{tn}_three"]) == _merge([run[0], run[1], run[2][:5]])
    repeat2 = _merge(run[0:4]) + _merge(run[4:8])
    assert _records(outs[f"mrg_{tn}_repeat2"]) == repeat2
    # ifExhaustedSuspension: the merge stops once list 1 (3 records) is used up
    written = [rec for rec in _records(outs[f"mrg_{tn}_suspend"]) if rec[1] != 0xFFFFFFFF]
    full = _merge([run[0], run[1][:3]])
    assert written == full[: len(written)] and written[-1] == run[1][2] and len(written) < 35
    assert len({score for score, _ in runs}) < 64  # ties across runs
    for name in (
        "valid_bit",
        "length",
        "overlap",
        "repeat",
        "dst_align",
        "src_align",
        "small",
        "310p",
    ):
        assert f"mrg_{name}" in msgs


@pytest.mark.parametrize("tn", ["float", "half", "int8"])
def test_broadcast(misc_bin, tn):
    ins, outs, msgs = _run(misc_bin, "broadcast")
    x = np.array(ins[f"bc_x_{tn}"])
    assert outs[f"bc_axis1_{tn}_5_40"] == list(
        np.broadcast_to(x[:5].reshape(5, 1), (5, 40)).ravel()
    )
    assert outs[f"bc_axis0_{tn}_6_32"] == list(
        np.broadcast_to(x[:32].reshape(1, 32), (6, 32)).ravel()
    )
    assert outs[f"bc_dim1_{tn}_37"] == [x[0]] * 37
    assert "256" in msgs["bc_tmp_small"] and "overlap" in msgs["bc_overlap"]
    assert re.search(r"srcShape\[0\] = 4 cannot broadcast", msgs["bc_shape"])


def test_expression_operators(misc_bin):
    """dst = a op b runs over dst.GetSize() elements (72 of 128 here)."""
    ins, outs, msgs = _run(misc_bin, "symbol")
    a = np.array(ins["sym_a"], dtype=np.float32)
    b = np.array(ins["sym_b"], dtype=np.float32)
    for name, op in [
        ("mul", np.multiply),
        ("add", np.add),
        ("sub", np.subtract),
        ("div", np.divide),
    ]:
        exp = np.full(128, 5.0, dtype=np.float32)
        exp[:72] = op(a[:72], b[:72])
        assert outs[f"sym_{name}_72"] == [float(v) for v in exp], name
    i = np.array(ins["sym_i"], dtype=np.int64).astype(np.int16)
    j = np.array(ins["sym_j"], dtype=np.int64).astype(np.int16)
    assert outs["sym_and_64"] == [float(v) for v in (i & j)]
    assert outs["sym_or_64"] == [float(v) for v in (i | j)]
    assert "operator*" in msgs["sym_src_small"]


def test_kernel_assert_and_type_utils(misc_bin):
    """CANN's kernel_operator.h brings a kernel-side assert (asc_assert.h): a failed one is a
    HardwareError on the twin; ge::TypeUtils::GetDataTypeLength as metadef's."""
    _, _, msgs = _run(misc_bin, "assert")
    assert "failed at" in msgs["assert_fails"]
    # TQue's EnQue<srcUserPos, dstUserPos, T> keeps the queue protocol of the plain EnQue
    assert "already in the queue" in msgs["enque_userpos_depth"]
