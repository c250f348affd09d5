"""Macro-style tiling on the twin (register/tilingdata_base.h, opgen/twin/README.md "Macro-style
tiling"): a hand-written msopgen-style op, kernels/macro_add (BEGIN_TILING_DATA_DEF with scalar,
ARR and STRUCT fields, SaveToBuffer + SetDataSize, SetTilingKey; the kernel includes only
kernel_operator.h and reads GET_TILING_DATA / GET_TILING_DATA_MEMBER, branching on TILING_KEY_IS),
run through the runner against torch; the host class's layout against the kernel struct's
(cpp/test_macro_tiling.cpp); a kernel built from a different tiling header. One build for the
module."""

from __future__ import annotations

import concurrent.futures
import struct
import subprocess

import pytest
import torch
from twin_support import CPP, CXX, CXXFLAGS, KERNELS, compile_cmd

pytestmark = pytest.mark.slow

MACRO = KERNELS / "macro_add"
INCLUDES = ["-I", str(MACRO / "op_kernel"), "-I", str(MACRO / "op_host")]
DTYPES = {"fp16": torch.float16, "fp32": torch.float32}
# MacroAddTilingData's bytes: totalLength, tileNum, formerNum, [PH 2], coreLength[2], [PH 4],
# tile {bufferNum, [PH 3], tileLength}, alpha, reserved, [PH 3] = 40 bytes.
LAYOUT = "<IIH2s2I4sB3sIfB3s"


@pytest.fixture(scope="module")
def macro_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("twin_macro")
    objs = {
        "variants": KERNELS / "variants" / "macro_add_custom_variants.cpp",
        "mismatch": KERNELS / "variants" / "macro_add_custom_mismatch.cpp",
        "host": MACRO / "op_host" / "macro_add_custom.cpp",
        "driver": CPP / "macro_driver.cpp",
        "kernel_side": CPP / "macro_tiling_kernel_side.cpp",
    }
    jobs = {
        n: [CXX, *CXXFLAGS, *INCLUDES, "-c", str(s), "-o", str(out / f"{n}.o")]
        for n, s in objs.items()
    }
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip(jobs, pool.map(compile_cmd, jobs.values()), strict=True))
    errors = [f"--- {n}\n{p.stderr}" for n, (_, p) in results.items() if p.returncode != 0]
    if errors:
        pytest.fail("C++ compilation failed:\n" + "\n".join(errors), pytrace=False)
    links = {
        "macro_driver": ["variants", "mismatch", "host", "driver"],
        "test_macro_tiling": ["kernel_side"],
    }
    for exe, parts in links.items():
        extra = [str(CPP / "test_macro_tiling.cpp")] if exe == "test_macro_tiling" else []
        cmd = [CXX, *CXXFLAGS, *extra, *(str(out / f"{p}.o") for p in parts), "-o", str(out / exe)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.fail(f"link of {exe} failed:\n{proc.stderr}", pytrace=False)
    return out


def run_cases(build, cases: list[dict], tag: str) -> dict[str, tuple]:
    """Runs the cases in one driver process; per case id ("ok", z, blockDim, key, tiling bytes,
    reference) or ("err", message)."""
    d = build / tag
    d.mkdir(exist_ok=True)
    gen = torch.Generator().manual_seed(7)
    lines, refs = [], {}
    for c in cases:
        dt = DTYPES[c["dtype"]]
        x = (torch.rand(c["n"], generator=gen) * 20 - 10).to(dt)
        y = (torch.rand(c["n"], generator=gen) * 20 - 10).to(dt)
        (d / f"{c['id']}_x.bin").write_bytes(x.view(torch.uint8).numpy().tobytes())
        (d / f"{c['id']}_y.bin").write_bytes(y.view(torch.uint8).numpy().tobytes())
        # What the kernel computes: Muls in the element type (alpha cast to it), then Add.
        alpha = torch.tensor(c["alpha"], dtype=torch.float32).to(dt)
        ref = x + (y * alpha if c["alpha"] != 1.0 else y)
        refs[c["id"]] = ref
        lines.append(
            f"{c['id']} {c['dtype']} {c['n']} {c['alpha']!r} {c.get('tile_cap', 0)} "
            f"{c.get('cores', 40)} {c.get('kernel', 'main')}"
        )
    (d / "cases").write_text("\n".join(lines) + "\n")
    proc = subprocess.run(
        [str(build / "macro_driver"), str(d / "cases"), str(d)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = {}
    for ln in proc.stdout.splitlines():
        kind, cid, rest = ln.split(" ", 2)
        if kind == "ERR":
            res[cid] = ("err", rest)
            continue
        block_dim, key, hexbytes = rest.split(" ")
        c = next(c for c in cases if c["id"] == cid)
        z = torch.frombuffer(bytearray((d / f"{cid}_z.bin").read_bytes()), dtype=DTYPES[c["dtype"]])
        res[cid] = ("ok", z, int(block_dim), int(key), bytes.fromhex(hexbytes), refs[cid])
    return res


CASES = [
    dict(id=f"{dt}_{n}_{alpha}_{cap}", dtype=dt, n=n, alpha=alpha, tile_cap=cap, cores=cores)
    for dt in ("fp16", "fp32")
    for (n, cap, cores) in (
        (1, 0, 40),
        (17, 0, 40),
        (1000, 0, 40),
        (4096, 64, 8),
        (100003, 0, 40),
        (5000, 40, 3),
    )
    for alpha in (1.0, -2.5)
]


def test_macro_add_runs_and_matches_torch(macro_build):
    res = run_cases(macro_build, CASES, "main")
    for c in CASES:
        r = res[c["id"]]
        assert r[0] == "ok", (c, r)
        _, z, block_dim, key, tiling, ref = r
        assert key == (1 if c["alpha"] == 1.0 else 2), c
        assert torch.equal(z, ref), (c, (z - ref).abs().max())
        assert len(tiling) == 40
        f = struct.unpack(LAYOUT, tiling)
        (
            total,
            tile_num,
            former,
            ph1,
            len0,
            len1,
            ph2,
            buf_num,
            ph3,
            tile_len,
            alpha,
            reserved,
            ph4,
        ) = f
        assert total == c["n"] and buf_num == 2 and alpha == pytest.approx(c["alpha"])
        assert reserved == 0 and ph1 == ph2[:2] == ph3[:2] == ph4[:2] == b"\0\0"
        assert 1 <= block_dim <= c["cores"]
        assert former * len0 + (block_dim - former) * len1 >= c["n"]
        if c["tile_cap"]:
            assert tile_len <= c["tile_cap"] + 16 and tile_num >= 2


def test_struct_mismatch_is_reported(macro_build):
    res = run_cases(
        macro_build,
        [dict(id="mm", dtype="fp32", n=256, alpha=1.0, kernel="mismatch")],
        "mismatch",
    )
    kind, msg = res["mm"]
    assert kind == "err"
    assert "launch: kernel block 0" in msg
    assert "GET_TILING_DATA(tilingData): sizeof(tiling struct)=48 bytes" in msg
    assert "the host wrote only 40 bytes" in msg


def test_host_class_layout_and_errors(macro_build):
    proc = subprocess.run(
        [str(macro_build / "test_macro_tiling")], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and "fail=0" in proc.stdout, proc.stdout + proc.stderr
    assert "SaveToBuffer(LayoutTop): the tiling data is 96 bytes" in proc.stdout
