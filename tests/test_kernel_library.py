"""opgen's kernel library (op_kernel/opgen_kernel.h, opgen_broadcast.h, opgen_soc.h) and host
library (op_host/opgen_tiling.h) are plain C++ headers, the same in every project: they compile on
their own against the twin for every SoC, and the SoCs the kernel copies tails for in whole blocks
are those opgen_soc.h (the catalog, tests/test_soc_table.py) lists without DataCopyPad."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT

from opgen.frontend.catalog import SOC_FAMILIES
from opgen.resources import twin_include_dir

LIBRARY = ROOT / "templates" / "kernel" / "project" / "op_kernel"
HOST_LIBRARY = ROOT / "templates" / "host" / "project" / "op_host"
HEADERS = (
    LIBRARY / "opgen_kernel.h",
    LIBRARY / "opgen_broadcast.h",
    LIBRARY / "opgen_soc.h",
    HOST_LIBRARY / "opgen_tiling.h",
)

# Every class template of the library instantiated (all its members compiled) with the dtypes
# kernels use, and the two kernel skeletons with a minimal kernel class.
UNIT = r"""
#include "op_kernel/opgen_kernel.h"
#include "op_host/opgen_tiling.h"

namespace check {
struct Tiling {
    uint64_t totalLength;
    uint64_t blockLength;
    uint32_t tileLength;
    uint32_t tmpCount;
    uint32_t tmpBytes;
    uint32_t sharedTmpBytes;
    uint64_t rowsPerCore;
    uint64_t rowCount;
    uint32_t rowLength;
    uint32_t reduceLength;
    uint32_t columnBlocks;
};
struct Elementwise : opgen_kernel::ElementwiseKernel<Elementwise, Tiling> {
    bool Init(const Tiling& tiling) { return InitCore(tiling); }
    void CopyIn(uint64_t, uint32_t) {}
    void Compute(uint32_t) {}
    void CopyOut(uint64_t, uint32_t) {}
};
struct Rows : opgen_kernel::RowKernel<Rows, Tiling> {
    static constexpr uint32_t PASSES = 2;
    static constexpr uint32_t REDUCTIONS = 3;
    static constexpr bool ROW_VALUED = false;
    bool Init(const Tiling& tiling)
    {
        return InitRows(tiling) && RowsShare(1).length > ReducedShare().length;
    }
    void CopyIn(uint64_t, uint32_t, uint32_t) {}
    void Compute(uint32_t) {}
    void CopyOut(uint64_t, uint32_t, uint32_t) {}
};
}  // namespace check

template class opgen_kernel::InStream<half, 2>;
template class opgen_kernel::InStream<bfloat16_t, 1>;
template class opgen_kernel::InStream<float, 2>;
template class opgen_kernel::InStream<int32_t, 2>;
template class opgen_kernel::InStream<int8_t, 2, float>;
template class opgen_kernel::InStream<bool, 2, float>;
template class opgen_kernel::OutStream<half, 2>;
template class opgen_kernel::OutStream<float, 1>;
template class opgen_kernel::OutStream<int16_t, 2>;
template class opgen_kernel::OutStream<uint8_t, 2, float>;
template class opgen_kernel::OutStream<int8_t, 2, opgen_kernel::ThroughHalf<int8_t>>;
template class opgen_kernel::OutStream<int32_t, 2, opgen_kernel::ThroughHalf<int32_t>>;
template class opgen_kernel::BroadcastInStream<half, 2>;
template class opgen_kernel::BroadcastInStream<float, 2, true>;
template class opgen_kernel::BroadcastInStream<int8_t, 2, false, float>;
template class opgen_kernel::ElementwiseKernel<check::Elementwise, check::Tiling>;
template class opgen_kernel::RowKernel<check::Rows, check::Tiling>;
"""


def test_the_library_is_plain_cpp():
    for path in HEADERS:
        text = path.read_text()
        assert "{{" not in text and "{%" not in text, path
        assert not path.with_name(f"{path.name}.jinja").exists()
    assert re.search(r"#define OPGEN_KERNEL_VERSION \d+", HEADERS[0].read_text())
    assert re.search(r"#define OPGEN_TILING_VERSION \d+", HEADERS[3].read_text())


def test_block_tails_on_the_socs_without_datacopypad():
    condition = re.search(
        r"#if (.*)\n#define OPGEN_BLOCK_TAILS 1", (LIBRARY / "opgen_kernel.h").read_text()
    )
    assert condition is not None
    assert condition.group(1) == "defined(__NPU_ARCH__) && !OPGEN_SOC_HAS_DATACOPYPAD(__NPU_ARCH__)"


def tails_branch(text: str, block: bool) -> str:
    """The header as the preprocessor sees it with OPGEN_BLOCK_TAILS 1 (`block`) or 0: the branches
    of every `#if OPGEN_BLOCK_TAILS` kept or dropped, any other #if left as it is."""
    kept, stack = [], []  # stack: per open #if, None (another macro) or whether it is taken
    for line in text.splitlines():
        directive = line.strip()
        if directive.startswith("#if"):
            stack.append(block if directive == "#if OPGEN_BLOCK_TAILS" else None)
            if stack[-1] is not None:
                continue
        elif directive.startswith("#else") and stack[-1] is not None:
            stack[-1] = not stack[-1]
            continue
        elif directive.startswith("#endif"):
            if stack.pop() is not None:
                continue
        if all(taken is not False for taken in stack):
            kept.append(line)
    return "\n".join(kept)


def test_the_block_branch_never_calls_datacopypad():
    """What the SoCs without DataCopyPad compile copies in whole blocks; the others pad."""
    text = (LIBRARY / "opgen_kernel.h").read_text()
    block, pad = tails_branch(text, True), tails_branch(text, False)
    assert "DataCopyPad(" not in block
    assert "CopyGmToUb(tile, this->gm_[offset], count, this->block_, this->packed_);" in block
    assert "DataCopyPad(" in pad and "block_" not in pad


ARCHES = sorted({f.npu_arch for f in SOC_FAMILIES.values()}, key=lambda a: a or 0)


@pytest.mark.slow
@pytest.mark.parametrize("arch", ARCHES, ids=lambda a: f"npu_arch_{a}")
def test_compiles_against_the_twin(tmp_path, arch):
    for path in HEADERS:  # as in a project: op_host/opgen_tiling.h includes ../op_kernel/
        (tmp_path / path.parent.name).mkdir(exist_ok=True)
        shutil.copy(path, tmp_path / path.parent.name / path.name)
    unit = tmp_path / "unit.cpp"
    unit.write_text(UNIT)
    arch_flags = [] if arch is None else [f"-D__NPU_ARCH__={arch}"]
    result = subprocess.run(
        [
            os.environ.get("CXX", "g++"),
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fsyntax-only",
            *arch_flags,
            "-I",
            str(twin_include_dir()),
            "-I",
            str(tmp_path),
            str(unit),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
