"""A hand-written kernel that calls CompareScalar, Select and the on-board debug calls (printf,
DumpTensor, DumpAccChkPoint): kernels/heaviside, run through the runner by cpp/heaviside_driver.cpp
against numpy's heaviside; its debug output is printed after the launch, block by block in block
order, each block's part after its DumpHead line, in CANN's formats (DumpTensor.md, printf.md)."""

from __future__ import annotations

import concurrent.futures
import subprocess

import numpy as np
import pytest
from twin_support import CPP, CXX, CXXFLAGS, KERNELS, compile_cmd

pytestmark = pytest.mark.slow

HEAVISIDE = KERNELS / "heaviside"
NP = {"fp16": np.float16, "fp32": np.float32}


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    out = tmp_path_factory.mktemp("twin_heaviside")
    inc = ["-I", str(HEAVISIDE / "op_kernel")]
    objs = {
        "variants": KERNELS / "variants" / "heaviside_custom_variants.cpp",
        "host": HEAVISIDE / "op_host" / "heaviside_custom.cpp",
        "driver": CPP / "heaviside_driver.cpp",
    }
    jobs = [
        [CXX, *CXXFLAGS, *inc, "-c", str(s), "-o", str(out / f"{n}.o")] for n, s in objs.items()
    ]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(compile_cmd, jobs))
    errors = [p.stderr for _, p in results if p.returncode != 0]
    assert not errors, "\n".join(errors)
    exe = out / "heaviside_driver"
    proc = subprocess.run(
        [CXX, *(str(out / f"{n}.o") for n in objs), "-o", str(exe), "-lpthread"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return exe


def run(exe, dtype: str, n: int, cores: int):
    proc = subprocess.run(
        [str(exe), dtype, str(n), str(cores)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    head, _, rest = proc.stdout.partition("BEGIN launch\n")
    launch, _, tail = rest.partition("END launch\n")
    vals = {}
    for ln in (head + tail).splitlines():
        tag, _, body = ln.partition(" ")
        if tag in ("IN", "OUT"):
            name, *v = body.split()
            vals[name] = np.array([float(t) for t in v])
        elif tag == "BLOCKDIM":
            vals["blockDim"] = int(body)
        elif tag == "ERR":
            pytest.fail(ln)
    return vals, launch.splitlines()


@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
@pytest.mark.parametrize("n,cores", [(1, 8), (300, 3), (5000, 2), (40000, 40)])
def test_heaviside_values(driver, dtype, n, cores):
    vals, _ = run(driver, dtype, n, cores)
    x, v = vals["x"].astype(NP[dtype]), vals["values"].astype(NP[dtype])
    np.testing.assert_array_equal(vals["y"], np.heaviside(x, v).astype(np.float64))


@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
def test_heaviside_debug_output(driver, dtype):
    """Per block, in block order: the DumpHead line, the printf line, DumpTensor of the first 8
    outputs (desc 7) and DumpAccChkPoint of x from the second 256 bytes on (desc 8, 4 elements)."""
    n, cores = 5000, 2
    vals, lines = run(driver, dtype, n, cores)
    size = 2 if dtype == "fp16" else 4
    per_block = -(-n // (32 // size) // cores) * (32 // size)
    assert vals["blockDim"] == 2
    name = "float16" if dtype == "fp16" else "float32"
    expected = []
    for b in range(2):
        off = b * per_block
        count = min(per_block, n - off)
        y8 = ", ".join(f"{v:f}" for v in vals["y"][off : off + 8])
        x4 = ", ".join(f"{v:f}" for v in vals["x"][off + 256 // size : off + 256 // size + 4])
        expected += [
            f"opType=HeavisideCustom, DumpHead: AIV-{b}, CoreType=AIV, block dim=2, "
            "total_block_num=2",
            f"[AIV Block {b}/2] heaviside block {b}: {count} elements from {off}",
            f"DumpTensor: desc=7, addr=0x{4 * 4096:x}, data_type={name}, position=UB, dump_size=8",
            f"[{y8}]",
            f"DumpTensor: desc=8, addr=0x{256:x}, data_type={name}, position=UB, dump_size=4",
            f"[{x4}]",
        ]
    assert lines == expected
