"""End to end: the hand-written add_custom / gelu_custom ops (op_host + op_kernel in the
generator's style) run through opgen_twin::RunOp, compared with a double-precision
reference under the OPBASE experimental precision standard (MERE < T, MARE < 10 T)."""

from __future__ import annotations

import array
import json
import math
import random
import resource
import struct
import subprocess

import pytest
from twin_support import CXX, CXXFLAGS, KERNEL_INCLUDES, KERNELS

# Every test runs a program the twin_build fixture compiles (conftest.py), or runs g++ itself.
pytestmark = pytest.mark.slow

# Precision thresholds T per dtype (OPBASE experimental_standard.md).
THRESHOLD = {"DT_FLOAT16": 2**-10, "DT_BF16": 2**-7, "DT_FLOAT": 2**-13}
SMALL_PLATFORM = {"cores": 4, "ub": 16384}  # forces several tiles per core at small sizes


# ---------------------------------------------------------------- encoding helpers
def encode(dtype: str, values: list[float]) -> bytes:
    if dtype == "DT_FLOAT16":
        return struct.pack(f"<{len(values)}e", *values)
    if dtype == "DT_FLOAT":
        return struct.pack(f"<{len(values)}f", *values)
    if dtype == "DT_BF16":
        words = array.array("I", struct.pack(f"<{len(values)}f", *values))
        return array.array(
            "H", [((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF for u in words]
        ).tobytes()
    raise ValueError(dtype)


def decode(dtype: str, data: bytes) -> list[float]:
    if dtype == "DT_FLOAT16":
        return list(struct.unpack(f"<{len(data) // 2}e", data))
    if dtype == "DT_FLOAT":
        return list(struct.unpack(f"<{len(data) // 4}f", data))
    if dtype == "DT_BF16":
        halves = array.array("H", data)
        return list(
            struct.unpack(f"<{len(halves)}f", array.array("I", [h << 16 for h in halves]).tobytes())
        )
    raise ValueError(dtype)


def numel(shape: list[int]) -> int:
    return math.prod(shape)


def precision(actual: list[float], golden: list[float]) -> tuple[float, float]:
    if not golden:
        return 0.0, 0.0
    errs = [abs(a - g) / (abs(g) + 1e-7) for a, g in zip(actual, golden, strict=True)]
    return sum(errs) / len(errs), max(errs)


def gelu_ref(x: float) -> float:
    return 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def run_op(build, tmp_path, op, inputs, attr_str=None, platform=None, no_launch=False):
    """inputs: list of (dtype, shape, values). Returns (json result, list of decoded outputs)."""
    args = ["run", op, str(tmp_path)]
    for i, (dtype, shape, values) in enumerate(inputs):
        f = tmp_path / f"in{i}.bin"
        f.write_bytes(encode(dtype, values))
        args += ["--in", dtype, ",".join(str(d) for d in shape), str(f)]
    if attr_str is not None:
        args += ["--attr-str", attr_str]
    if platform:
        args += ["--cores", str(platform["cores"]), "--ub", str(platform["ub"])]
    if no_launch:
        args.append("--no-launch")
    proc = build.run("runner_driver", *args)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    outs = []
    if res["ok"]:
        for o in res["outputs"]:
            outs.append(decode(o["dtype"], (tmp_path / o["file"].split("/")[-1]).read_bytes()))
    return res, outs


def tiling_words(res) -> list[int]:
    raw = bytes.fromhex(res["tiling_hex"])
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


# ---------------------------------------------------------------- cases
SHAPES = [
    pytest.param([0], None, id="empty"),
    pytest.param([2, 0, 3], None, id="empty-3d"),
    pytest.param([1], None, id="one-element"),
    pytest.param([7, 3], None, id="21-elements-unaligned"),
    pytest.param([5000], SMALL_PLATFORM, id="multi-tile-per-core"),
    pytest.param([33, 1001], None, id="33033-40-cores"),
]


@pytest.mark.parametrize("dtype", ["DT_FLOAT16", "DT_FLOAT"])
@pytest.mark.parametrize("shape,platform", SHAPES)
def test_add_custom(twin_build, tmp_path, dtype, shape, platform):
    rng = random.Random(7)
    n = numel(shape)
    x = decode(dtype, encode(dtype, [rng.uniform(-100, 100) for _ in range(n)]))
    y = decode(dtype, encode(dtype, [rng.uniform(-100, 100) for _ in range(n)]))
    res, outs = run_op(
        twin_build, tmp_path, "AddCustom", [(dtype, shape, x), (dtype, shape, y)], platform=platform
    )
    assert res["ok"], res["error"]
    assert res["outputs"][0]["shape"] == shape and res["outputs"][0]["dtype"] == dtype
    golden = [a + b for a, b in zip(x, y, strict=True)]
    # The sum of two representable values rounded once: bit-exact against Python's rounding.
    assert outs[0] == decode(dtype, encode(dtype, golden))
    mere, mare = precision(outs[0], golden)
    assert mere < THRESHOLD[dtype] and mare < 10 * THRESHOLD[dtype]
    if n == 0:
        assert res["block_dim"] == 0 and not res["launched"]
    else:
        assert 1 <= res["block_dim"] <= (platform or {"cores": 40})["cores"]


def test_add_custom_multi_tile_split_is_exercised(twin_build, tmp_path):
    res, _ = run_op(
        twin_build,
        tmp_path,
        "AddCustom",
        [("DT_FLOAT", [5000], [1.0] * 5000)] * 2,
        platform=SMALL_PLATFORM,
        no_launch=True,
    )
    total, former_num, former_len, tail_len, tile_len = tiling_words(res)
    assert (total, res["block_dim"]) == (5000, 4)
    assert tile_len * 4 % 32 == 0
    assert tail_len > tile_len and res["block_dim"] * tile_len < total  # several tiles per core
    assert former_num * former_len + (4 - former_num) * tail_len >= total


def test_add_custom_large_default_platform(twin_build, tmp_path):
    # More elements than 40 cores x one fp16 tile (16352 elements) on the default platform.
    n = 700_001
    rng = random.Random(11)
    x = decode("DT_FLOAT16", encode("DT_FLOAT16", [rng.uniform(-8, 8) for _ in range(n)]))
    res, outs = run_op(
        twin_build, tmp_path, "AddCustom", [("DT_FLOAT16", [n], x), ("DT_FLOAT16", [n], x)]
    )
    assert res["ok"], res["error"]
    assert res["block_dim"] == 40
    tile_len = tiling_words(res)[4]
    assert n > 40 * tile_len
    assert outs[0] == [2 * v for v in x]


@pytest.mark.parametrize("dtype", ["DT_FLOAT", "DT_FLOAT16", "DT_BF16"])
@pytest.mark.parametrize("shape,platform", SHAPES)
def test_gelu_custom(twin_build, tmp_path, dtype, shape, platform):
    rng = random.Random(3)
    n = numel(shape)
    # [-4, 4]: beyond that 1 + tanh(z) cancels in float32 (true on the NPU as well).
    x = decode(dtype, encode(dtype, [rng.uniform(-4, 4) for _ in range(n)]))
    res, outs = run_op(twin_build, tmp_path, "GeluCustom", [(dtype, shape, x)], platform=platform)
    assert res["ok"], res["error"]
    assert res["outputs"][0]["shape"] == shape and res["outputs"][0]["dtype"] == dtype
    if n:
        assert res["workspace"] == [16 * 1024 * 1024]  # GetLibApiWorkSpaceSize()
    golden = [gelu_ref(v) for v in x]
    mere, mare = precision(outs[0], golden)
    assert mere < THRESHOLD[dtype], f"MERE {mere}"
    assert mare < 10 * THRESHOLD[dtype], f"MARE {mare}"


def test_gelu_custom_large_bf16(twin_build, tmp_path):
    n = 400_000  # > 40 cores x 8128-element bf16 tiles
    rng = random.Random(5)
    x = decode("DT_BF16", encode("DT_BF16", [rng.uniform(-4, 4) for _ in range(n)]))
    res, outs = run_op(twin_build, tmp_path, "GeluCustom", [("DT_BF16", [n], x)])
    assert res["ok"], res["error"]
    assert n > res["block_dim"] * tiling_words(res)[4]
    mere, mare = precision(outs[0], [gelu_ref(v) for v in x])
    assert mere < 2**-7 and mare < 10 * 2**-7


def test_gelu_attr_reaches_tiling(twin_build, tmp_path):
    res, _ = run_op(
        twin_build, tmp_path, "GeluCustom", [("DT_FLOAT", [8], [0.0] * 8)], attr_str="none"
    )
    assert not res["ok"] and res["stage"] == "tiling"
    assert "TilingFunc of GeluCustom returned GRAPH_FAILED" in res["error"]


def test_broken_tiling_is_reported(twin_build, tmp_path):
    n = 5000
    res, _ = run_op(twin_build, tmp_path, "AddCustomBroken", [("DT_FLOAT16", [n], [1.0] * n)] * 2)
    assert not res["ok"] and res["stage"] == "launch"
    err = res["error"]
    assert err.startswith(
        "kernel block 0 of 1: DataCopy(GM->UB): count 1000 x sizeof(half)=2000 bytes"
    )
    assert "not a multiple of 32 bytes" in err


def test_a_division_by_zero_in_the_tiling_func_is_its_error(twin_build, tmp_path):
    """SIGFPE in the host code fails the call, naming the function; the process lives on."""
    n = 4096
    res, _ = run_op(twin_build, tmp_path, "AddCustomBroken", [("DT_FLOAT16", [n], [1.0] * n)] * 2)
    assert not res["ok"] and res["stage"] == "tiling"
    assert res["error"].startswith(
        "TilingFunc of AddCustomBroken: integer division by zero (SIGFPE)"
    ), res["error"]
    assert "4096" in res["error"]  # the input shapes


def test_a_division_by_zero_in_a_kernel_block_is_its_error(twin_build, tmp_path):
    """SIGFPE in the kernel fails the launch naming the block, and the process lives on."""
    n = 4000
    res, _ = run_op(twin_build, tmp_path, "AddCustomBroken", [("DT_FLOAT16", [n], [1.0] * n)] * 2)
    assert not res["ok"] and res["stage"] == "launch"
    assert res["error"] == (
        "kernel block 0 of 1: integer division by zero (SIGFPE) in the kernel's scalar code"
    ), res["error"]


def test_dtype_without_variant_or_column(twin_build, tmp_path):
    res, _ = run_op(twin_build, tmp_path, "AddCustom", [("DT_BF16", [4], [1.0] * 4)] * 2)
    assert not res["ok"] and res["stage"] == "validate" and "DT_BF16" in res["error"]
    res, _ = run_op(
        twin_build,
        tmp_path,
        "AddCustom",
        [("DT_FLOAT16", [4], [1.0] * 4), ("DT_FLOAT", [4], [1.0] * 4)],
    )
    assert not res["ok"] and "no dtype combination" in res["error"]


@pytest.mark.parametrize("cores", [1, 5, 40])
def test_sync_all_orders_the_cores(twin_build, tmp_path, cores):
    """SyncRollCustom: each core writes its part of x to the workspace, SyncAll, copies the part
    its neighbour (b + 1) % n wrote to y, SyncAll, then overwrites that neighbour's part: the
    runner reruns the launch with the cores as coroutines, so y is x rolled by one part (not
    the 0xFF workspace a core that ran first would read), and the last phase's writes over
    another core's bytes are no race."""
    n = cores * 8
    x = [float(i) for i in range(n)]
    res, outs = run_op(twin_build, tmp_path, "SyncRollCustom", [("DT_FLOAT", [n], x)])
    assert res["ok"], res["error"]
    assert outs[0] == x[8:] + x[:8]


def test_sync_all_count_mismatch_is_an_error(twin_build, tmp_path):
    """The last core returns without its second SyncAll: on the NPU the others hang."""
    x = [float(i) for i in range(40)]
    res, _ = run_op(
        twin_build, tmp_path, "SyncRollCustom", [("DT_FLOAT", [40], x)], attr_str="skip"
    )
    assert not res["ok"]
    assert res["error"].startswith(
        "SyncAll(): kernel block 0 waits in its SyncAll call number 2, but kernel block 4 returned "
        "after 1 SyncAll call(s)"
    ), res["error"]
    res, _ = run_op(
        twin_build, tmp_path, "SyncRollCustom", [("DT_FLOAT", [40], x)], attr_str="aiv_only"
    )
    assert not res["ok"] and "KERNEL_TYPE_AIV_ONLY" in res["error"], res["error"]


def test_infer_only(twin_build, tmp_path):
    f = tmp_path / "x.bin"
    f.write_bytes(encode("DT_BF16", [0.0] * 15))
    out = json.loads(
        twin_build.run(
            "runner_driver", "infer", "GeluCustom", "--in", "DT_BF16", "3,5", str(f), check=True
        ).stdout
    )
    assert out == {
        "ok": True,
        "error": "",
        "outputs": [{"dtype": "DT_BF16", "shape": [3, 5]}],
        "instances": [[0, 1]],
    }


def test_variants_have_distinct_symbols(twin_build):
    """Both dtype variants of add_custom live in one object without ODR clashes: the entry
    points are renamed and the kernel classes are mangled into per-variant namespaces."""
    nm = subprocess.run(
        ["nm", "-C", str(twin_build.objects["add_custom_variants"])], capture_output=True, text=True
    )
    assert nm.returncode == 0, nm.stderr
    syms = nm.stdout
    assert " T opgen_kernel_add_custom_fp16" in syms and " T opgen_kernel_add_custom_fp32" in syms
    assert "opgen_variant_add_custom_fp16::KernelAdd" in syms
    assert "opgen_variant_add_custom_fp32::KernelAdd" in syms
    assert " add_custom" not in syms  # the unrenamed entry must not exist


def test_kernel_variant_compile_time(tmp_path):
    """One kernel dtype variant against the twin must compile in well under 10 s of CPU time
    (the compiler's own, so that other work on the machine does not decide the outcome)."""
    src = KERNELS / "variants" / "gelu_custom_fp16.cpp"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [CXX, *CXXFLAGS, *KERNEL_INCLUDES, "-c", str(src), "-o", str(tmp_path / "v.o")],
        capture_output=True,
        text=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert proc.returncode == 0, proc.stderr
    print(f"gelu_custom fp16 variant compile: {seconds:.2f} s of CPU")
    assert seconds < 10.0
