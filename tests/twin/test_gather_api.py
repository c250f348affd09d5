"""The twin's UB Gather (opgen_twin/detail/kernel_gather.h) against a numpy reference written from
asc-devkit Gather.md's pseudo-code (dst[i] = src[(srcBaseAddr + srcOffset[i]) // sizeof(T)]) for
the count form and both repeat forms; cpp/test_gather_api.cpp prints the words and checks the
per-SoC availability and dtypes and the misuse (HardwareErrors)."""

from __future__ import annotations

import numpy as np
import pytest
from twin_support import build_check, run_check_section

pytestmark = pytest.mark.slow

SIZES = {"half": 2, "bfloat16": 2, "int16": 2, "uint16": 2, "float": 4, "int32": 4, "uint32": 4}


@pytest.fixture(scope="module")
def gather_bin(tmp_path_factory):
    return build_check(tmp_path_factory, "test_gather_api")


def test_count_form(gather_bin):
    ins, outs, _, _ = run_check_section(gather_bin, "count")
    for tn, size in SIZES.items():
        src = np.array(ins[f"src_{tn}"])
        off = np.array(ins[f"off_{tn}"], dtype=np.int64)
        want = np.array(ins[f"dst0_{tn}"])
        want[: len(off)] = src[(2 * size + off) // size]
        assert np.array_equal(np.array(outs[f"count_{tn}"]), want), tn


def _repeat_ref(src, off, dst0, size, mask_bits, repeat, rep_stride):
    want = np.array(dst0)
    per = 256 // size
    for r in range(repeat):
        for k in range(per):
            if mask_bits[k]:
                want[r * rep_stride * 32 // size + k] = src[off[r * per + k] // size]
    return want


def test_repeat_forms(gather_bin):
    ins, outs, _, _ = run_check_section(gather_bin, "repeat")
    half_mask = [k < 100 for k in range(128)]
    off = np.array(ins["roff_half"], dtype=np.int64)
    want = _repeat_ref(ins["rsrc_half"], off, ins["rdst0_half"], 2, half_mask, 2, 10)
    assert np.array_equal(np.array(outs["repeat_half"]), want)
    bits = 0xF0F0F0F00F0F0F0F
    float_mask = [bool(bits >> k & 1) for k in range(64)]
    off = np.array(ins["roff_float"], dtype=np.int64)
    want = _repeat_ref(ins["rsrc_float"], off, ins["rdst0_float"], 4, float_mask, 2, 9)
    assert np.array_equal(np.array(outs["repeat_float"]), want)


@pytest.mark.parametrize("section", ["soc", "misuse"])
def test_soc_and_misuse(gather_bin, section):
    _, _, msgs, _ = run_check_section(gather_bin, section)
    assert msgs  # every ExpectHw printed its message
