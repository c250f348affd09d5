"""Hardware rules enforced by the kernel-side twin (each violation is a HardwareError
whose message names the rule and the call)."""

from __future__ import annotations

import pytest

# Every test runs test_kernel_api, which the twin_build fixture compiles (conftest.py).
pytestmark = pytest.mark.slow


def test_datacopy_alignment_and_bounds(run_section):
    msgs = run_section("test_kernel_api", "copy")["messages"]
    m = msgs["datacopy_gm_ub"]
    assert m.startswith(
        "DataCopy(GM->UB): count 7 x sizeof(half)=14 bytes is not a multiple of 32 bytes"
    )
    assert "DataCopyPad" in m
    assert msgs["datacopy_ub_gm"].startswith("DataCopy(UB->GM)")
    assert "no UB-to-UB DataCopy" in msgs["datacopy_ub_ub_310b"]
    assert msgs["datacopy_ub_ub"].startswith("DataCopy(UB->UB)")
    assert "out-of-bounds" in msgs["datacopy_gm_overrun"]
    assert "ascend310p (__NPU_ARCH__ 2002) has no working DataCopyPad" in msgs["datacopypad_310p"]
    assert "ascend910 (__NPU_ARCH__ 1001) has no DataCopyPad" in msgs["datacopypad_910a"]


def test_scalar_writes_keep_to_cache_lines_of_their_own(run_section):
    """A 64-byte GM line that one block writes with SetValue and another block writes at all
    fails the launch, naming both blocks, the line and the buffer (the data cache writes back
    whole lines); blocks on lines of their own, and DataCopy alone, pass."""
    msgs = run_section("test_kernel_api", "cacheline")["messages"]
    assert (
        "kernel blocks 0 and 1 both write the 64-byte cache line at bytes [0, 64) of output "
        "'y', block 0 with the scalar unit" in msgs["cacheline_scalar_scalar"]
    )
    assert "blocks 1 and 2" in msgs["cacheline_scalar_dma"]
    assert "different values" in msgs["dma_race"]
    assert "global_past_part" not in msgs  # the SetGlobalBuffer size bounds nothing on the NPU


def test_queue_protocol(run_section):
    msgs = run_section("test_kernel_api", "queue")["messages"]
    assert "AllocTensor" in msgs["queue_alloc_beyond"]
    assert "empty" in msgs["queue_deque_empty"]
    assert "already released" in msgs["queue_double_free"]
    assert "not allocated from this queue" in msgs["queue_free_foreign"]
    assert "depth" in msgs["queue_depth"]


def test_ub_capacity(run_section):
    """Section "ub" also checks that fresh UB reads 0xFF where nothing wrote it: filled when
    first touched, around what a copy or an elementwise op writes, and after TPipe::Reset()."""
    msgs = run_section("test_kernel_api", "ub")["messages"]
    assert "196608" in msgs["ub_exceeded"] and "InitBuffer" in msgs["ub_exceeded"]
    assert "65536" in msgs["ub_configured"]


def test_local_tensor_alignment(run_section):
    msgs = run_section("test_kernel_api", "local")["messages"]
    assert "not 32-byte aligned" in msgs["local_misaligned"]


def test_global_tensor_bounds(run_section):
    msgs = run_section("test_kernel_api", "global")["messages"]
    assert "SetGlobalBuffer size is 16" in msgs["global_getvalue_oob"]
    assert "input 'x'" in msgs["global_outside_alloc"]
    assert "input 'x'" in msgs["global_read_outside_alloc"]


def test_tiling_size_flags_and_sysvars(run_section):
    msgs = run_section("test_kernel_api", "tiling")["messages"]
    assert "only 8 bytes" in msgs["tiling_too_small"]
    assert "SetFlag" in msgs["waitflag_unpaired"]


def test_list_tensor_desc(run_section):
    """ListTensorDesc decodes the documented descriptor layout (the docs' example: ptr_offset 72)
    and reports what the NPU's decoder would misread."""
    msgs = run_section("test_kernel_api", "list")["messages"]
    assert "holds 2 tensors" in msgs["list_index_oob"]
    assert "SetShapeAddr" in msgs["list_no_shape_addr"]
    assert "first tensor's rank" in msgs["list_mixed_size"]
    assert "rank 0" in msgs["list_rank0_size"]
    assert "tensor list descriptor" in msgs["list_outside_gm"]
    assert "not hold a tensor-list descriptor" in msgs["list_not_a_descriptor"]


def test_compare_and_select(run_section):
    """Compare/Compares bits and their whole-256-byte-block count, Select's modes, and the SoC
    rules: ascend910 has no Compares and only mode 0; modes 1 and 2 keep 8 KB of UB free."""
    msgs = run_section("test_kernel_api", "cmpsel")["messages"]
    assert "uncomputed" in msgs["compare_partial_block"]
    assert "Atlas training" in msgs["select_910a_mode2"]
    ub = run_section("test_kernel_api", "cmpsel_ub")["messages"]
    assert "ascend910b" in ub["select_no_8k"]


def test_reductions(run_section):
    msgs = run_section("test_kernel_api", "reduce")["messages"]
    assert "count 0" in msgs["reduce_count"]
    assert "sharedTmpBuffer (the documented minimum)" in msgs["reduce_tmp"]
    assert "half only" in msgs["reduce_soc"] and "ascend910" in msgs["reduce_soc"]
    assert "ascend950" in msgs["reduce_950"]
    assert "reduce_310p" not in msgs and "reduce_310b" not in msgs  # documented there
    # calIndex = true: dst holds the value and its index; the documented sharedTmpBuffer and a
    # dst of two elements are checked
    assert "the size documented for calIndex = true" in msgs["reduce_index_tmp"]
    assert "dst (value and index)" in msgs["reduce_index_dst"]


def test_level0_mask_repeat_forms(run_section):
    """Add/Sub/Mul/Adds/Exp/Duplicate with mask + repeatTime + Binary/UnaryRepeatParams: masks,
    block and repeat strides, no-ops, and the errors naming the call."""
    msgs = run_section("test_kernel_api", "repeat")["messages"]
    assert "UB buffer overrun" in msgs["repeat_overrun"]
    assert "dstBlkStride 0" in msgs["repeat_dst_blk_zero"]


def test_atomic_copies(run_section):
    """SetAtomicAdd/Max + DataCopy/DataCopyPad combine with GM; a copy of another type while an
    atomic type is set is reported; DisableDmaAtomic restores plain copies; InitGlobalMemory."""
    msgs = run_section("test_kernel_api", "atomic")["messages"]
    assert "SetAtomicMax<float>" in msgs["atomic_type_mismatch"]


def test_axpy_gather_logic_intrinsics(run_section):
    """Axpy (half -> float), Gather (byte offsets, base address; unaligned, out-of-bounds and
    in-place refused), And/Or, and the raw pipe_barrier/set_flag/wait_flag intrinsics."""
    msgs = run_section("test_kernel_api", "misc_api")["messages"]
    assert "UB read out of bounds" in msgs["gather_oob"]


def test_sync_all(run_section):
    """SyncAll (asc-devkit SyncAll.md): the cores run as coroutines, so every core reaches the
    barrier before any goes on and reads what its neighbour wrote before it; writes a SyncAll
    apart are not a race; a core that calls SyncAll fewer times than the others (the NPU hangs),
    the kernel types the hardware form does not work in, and the software form's workspace rules
    are errors naming the call."""
    msgs = run_section("test_kernel_api", "syncall")["messages"]
    assert msgs["syncall_count"].startswith(
        "SyncAll(): kernel block 0 waits in its SyncAll call number 2, but kernel block 2 returned "
        "after 1 SyncAll call(s)"
    )
    assert "KERNEL_TYPE_MIX_AIV_1_0" in msgs["syncall_aiv_only"]
    assert msgs["syncall_not_aiv_only"].startswith("SyncAll<false>(): isAIVOnly = false")
    assert "gmWorkspace was not set to 0" in msgs["syncall_soft_unset"]
    assert "needs GetBlockNum() * 32 = 192 bytes" in msgs["syncall_soft_ub"]
    assert "needs GetBlockNum() * 32 = 192 bytes" in msgs["syncall_soft_gm"]
    assert "usedCores 7" in msgs["syncall_soft_used"]
