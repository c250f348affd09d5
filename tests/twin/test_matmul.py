"""The twin's Matmul high-level API (lib/matmul_intf.h) and matmul_tiling host API, run through
the runner on a mixed cube/vector op written like asc-devkit's matmul_leakyrelu sample
(kernels/matmul_leaky: MultiCoreMatmulTiling on the host, Matmul + Iterate/GetTensorC into UB +
a LeakyReLU epilogue, or IterateAll into GM, in the kernel), checked against torch in float64;
and the API's misuse errors (cpp/test_matmul_api.cpp). One build of four translation units for
the module."""

from __future__ import annotations

import concurrent.futures
import subprocess

import pytest
import torch
from twin_support import CPP, CXX, CXXFLAGS, KERNELS, compile_cmd

pytestmark = pytest.mark.slow

MM_KERNEL = KERNELS / "matmul_leaky" / "op_kernel"
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
# (a/b, bias, c): the op's dtype columns.
COLUMNS = {
    "fp16->fp32": ("fp16", "fp32", "fp32"),
    "fp16->fp16": ("fp16", "fp16", "fp16"),
    "bf16->bf16": ("bf16", "fp32", "bf16"),
    "bf16->fp32": ("bf16", "fp16", "fp32"),
    "fp32->fp32": ("fp32", "fp32", "fp32"),
}


@pytest.fixture(scope="module")
def mm_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("twin_matmul")
    objs = {
        "variants": KERNELS / "variants" / "matmul_leaky_custom_variants.cpp",
        "host": KERNELS / "matmul_leaky" / "op_host" / "matmul_leaky_custom.cpp",
        "driver": CPP / "matmul_driver.cpp",
    }
    jobs = {
        n: [CXX, *CXXFLAGS, "-I", str(MM_KERNEL), "-c", str(s), "-o", str(out / f"{n}.o")]
        for n, s in objs.items()
    }
    jobs["checks"] = [
        CXX,
        *CXXFLAGS,
        str(CPP / "test_matmul_api.cpp"),
        "-o",
        str(out / "test_matmul_api"),
    ]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip(jobs, pool.map(compile_cmd, jobs.values()), strict=True))
    errors = [f"--- {n}\n{p.stderr}" for n, (_, p) in results.items() if p.returncode != 0]
    if errors:
        pytest.fail("C++ compilation failed:\n" + "\n".join(errors), pytrace=False)
    link = [CXX, "-o", str(out / "matmul_driver"), *(str(out / f"{n}.o") for n in objs)]
    proc = subprocess.run(link, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"link failed:\n{proc.stderr}", pytrace=False)
    return out


def _case(**kw) -> dict:
    c = dict(
        column="fp16->fp32",
        m=64,
        n=64,
        k=64,
        ta=0,
        tb=0,
        bias=1,
        mode=0,
        alpha=0.1,
        order=0,
        base_m=0,
        base_n=0,
        aiv=40,
        aic=20,
        block_dim=0,
    )
    c.update(kw)
    return c


def run_cases(build, cases: list[dict], tag: str) -> list[tuple[str, object]]:
    """Runs the cases in one driver process; returns per case ("ok", (output, reference)) or
    ("err", message)."""
    d = build / tag
    d.mkdir(exist_ok=True)
    gen = torch.Generator().manual_seed(1234)
    lines, refs = [], []
    for i, c in enumerate(cases):
        dta, dtbias, dtc = COLUMNS[c["column"]]
        m, n, k = c["m"], c["n"], c["k"]
        a = (torch.rand(m, k, generator=gen) * 2 - 1).to(DTYPES[dta])
        b = (torch.rand(k, n, generator=gen) * 2 - 1).to(DTYPES[dta])
        bias = (torch.rand(n, generator=gen) * 2 - 1).to(DTYPES[dtbias])
        for name, t in (
            ("a", a.t().contiguous() if c["ta"] else a),
            ("b", b.t().contiguous() if c["tb"] else b),
            ("bias", bias),
        ):
            (d / f"c{i}_{name}.bin").write_bytes(t.contiguous().view(torch.uint8).numpy().tobytes())
        ref = a.double() @ b.double()
        if c["bias"]:
            ref = ref + bias.double()
        if c["mode"] == 0:
            ref = torch.where(
                ref >= 0, ref, ref * float(torch.tensor(c["alpha"], dtype=torch.float32))
            )
        refs.append((ref, DTYPES[dtc]))
        lines.append(
            " ".join(
                str(x)
                for x in (
                    f"c{i}",
                    dta,
                    dtbias,
                    dtc,
                    m,
                    n,
                    k,
                    c["ta"],
                    c["tb"],
                    c["bias"],
                    c["mode"],
                    c["alpha"],
                    c["order"],
                    c["base_m"],
                    c["base_n"],
                    c["aiv"],
                    c["aic"],
                    c["block_dim"],
                )
            )
        )
    (d / "cases.txt").write_text("\n".join(lines) + "\n")
    proc = subprocess.run(
        [str(build / "matmul_driver"), str(d / "cases.txt"), str(d)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out_lines = proc.stdout.splitlines()
    assert len(out_lines) == len(cases), proc.stdout + proc.stderr
    results = []
    for i, ln in enumerate(out_lines):
        kind, cid, rest = ln.split(" ", 2)
        assert cid == f"c{i}"
        if kind == "ERR":
            results.append(("err", rest))
            continue
        ref, dt = refs[i]
        raw = (d / f"c{i}_c.bin").read_bytes()
        got = torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dt).reshape(ref.shape)
        results.append(("ok", (got, ref)))
    return results


def _tolerance(ref: torch.Tensor, c: dict, dt: torch.dtype) -> torch.Tensor:
    """float accumulation over k products (16-bit inputs: exact products, float inputs: each
    rounded), one rounding to C, and for the epilogue on a 16-bit C a second one (LeakyReLU's
    product)."""
    k = c["k"]
    out_eps = {torch.float32: 2.0**-24, torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}[dt]
    roundings = 2.05 if (c["mode"] == 0 and dt != torch.float32) else 1.01
    in_eps = 2.0**-24 if c["column"].startswith("fp32") else 0.0
    accum = (k + 2) * 2.0**-24 * 4 * max(1.0, k**0.5) + k * in_eps * 2
    tiny = {torch.float32: 0.0, torch.float16: 2.0**-24, torch.bfloat16: 0.0}[dt]
    return ref.abs() * out_eps * roundings + accum + tiny


def _check(results, cases):
    for c, (kind, payload) in zip(cases, results, strict=True):
        assert kind == "ok", f"{c}: {payload}"
        got, ref = payload
        err = (got.double() - ref).abs()
        tol = _tolerance(ref, c, got.dtype)
        bad = err > tol
        assert not bad.any(), (
            f"{c}: {int(bad.sum())} of {bad.numel()} wrong, max err {float(err.max()):.3g} "
            f"at {divmod(int(err.argmax()), ref.shape[1])}"
        )


# Shapes with tails in M, N and K (baseK 64 for half), 1 x 1, K not a multiple of baseK, more
# blocks than cores, fixed small base blocks (several Iterate rounds per core, both orders; on 2
# AIVs, where CANN's split leaves single-core blocks of 96 x 40 or 48 x 80: on 40 it cuts 96 x 80
# into 16 x 16 blocks, smaller than a fixed 32, and GetTiling returns -1 as CANN's does).
SHAPES = [
    dict(m=1, n=1, k=1),
    dict(m=16, n=16, k=16),
    dict(m=17, n=33, k=5),
    dict(m=100, n=70, k=129),
    dict(m=300, n=260, k=77),
    dict(m=64, n=1000, k=40),
    dict(m=513, n=31, k=200),
    dict(m=96, n=80, k=300, base_m=32, base_n=32, aiv=2, aic=1),
    dict(m=96, n=80, k=48, base_m=32, base_n=16, order=1, aiv=2, aic=1),
    dict(m=40, n=40, k=40, aiv=2, aic=1),
]


def test_matmul_epilogue_and_iterate_all_match_torch(mm_build):
    """Every dtype column, both kernel modes, transposes and bias on and off, over SHAPES."""
    cases = []
    for si, shape in enumerate(SHAPES):
        for ci, column in enumerate(COLUMNS):
            for mode in (0, 1):
                # Vary transposes and bias over the combinations deterministically.
                sel = si + ci + mode
                cases.append(
                    _case(
                        column=column,
                        mode=mode,
                        ta=sel % 2,
                        tb=(sel // 2) % 2,
                        bias=int((sel // 3) % 2 == 0),
                        **shape,
                    )
                )
    results = run_cases(mm_build, cases, "sweep")
    _check(results, cases)


def test_matmul_transposes_each_way(mm_build):
    cases = [
        _case(m=33, n=47, k=65, ta=ta, tb=tb, bias=1, mode=mode)
        for ta in (0, 1)
        for tb in (0, 1)
        for mode in (0, 1)
    ]
    _check(run_cases(mm_build, cases, "trans"), cases)


def test_matmul_leakyrelu_sample_shape(mm_build):
    """The asc-devkit sample's shape and base blocks (M 512, N 128, K 128; 128 x 64) on one AI Core:
    the tiling splits N over its two AIVs."""
    cases = [_case(m=512, n=128, k=128, base_m=128, base_n=64, aiv=2, aic=1, alpha=0.001)]
    _check(run_cases(mm_build, cases, "sample"), cases)


def test_matmul_block_dim_counts_ai_cores(mm_build):
    """A mixed kernel's block dim counts AI Cores (one AIC, two AIVs): more blocks than AIC cores
    is an error naming KERNEL_TASK_TYPE_DEFAULT; too few leave the AIVs' blocks of C unwritten
    (NaN)."""
    cases = [
        _case(m=512, n=512, k=32, block_dim=30),
        # CANN's split of N 64 over 4 AIVs: one 64 x 16 block each (baseN 16).
        _case(m=64, n=64, k=32, base_m=32, base_n=16, aiv=4, aic=2, block_dim=1),
    ]
    (kind, msg), (kind2, payload) = run_cases(mm_build, cases, "aic")
    assert kind == "err" and "SetBlockDim(30) exceeds the 20 AI Cube cores" in msg, msg
    assert "KERNEL_TASK_TYPE_DEFAULT" in msg, msg
    assert kind2 == "ok", payload
    got, ref = payload
    written = ~torch.isnan(got)
    assert written.sum() == ref.numel() // 2, int(written.sum())  # 2 of the 4 AIVs' blocks ran


# MultiCoreMatmulTiling's split against CANN's: (M, N, K, dim, fixBaseM, fixBaseN, transA,
# transB, fp32 A/B, C in UB, no SetShape) -> (GetTiling's return, usedCoreNum, singleCoreM,
# singleCoreN, singleCoreK, baseM, baseN). The values are what asc-devkit's
# MatmulTilingAlgorithm::Process gives (impl/adv_api/tiling/matmul/matmul_tiling_algorithm.cpp:
# GetDims picks mDim x nDim, UpdateMultiCore
# and GetSingleShape size the blocks, GetL0FactorsCand finds no L0 block for a fixed base larger
# than the single-core block so Process returns -1), read there and confirmed by compiling that
# code on the host (910B: L1 524032 bytes, L0A/L0B 64 KB, L0C 128 KB); base sizes only where
# SetFixSplit fixes them or, without SetShape, CANN's scenario picks them (elsewhere they are the
# twin's own).
CANN_SPLITS = [
    # ascend_op_learning MatmulCustomMultiCore at a [128, 256] x b [256, 128]: N under 256 columns
    # is split over both cores (64 columns each), smaller than the fixed baseN 128: -1.
    ((128, 128, 256, 2, 128, 128, 0, 0, 0, 0, 0), (-1, 0, 0, 0, 0, 0, 0)),
    # ... and at a [256, 128] x b [128, 256]: M is split.
    ((256, 256, 128, 2, 128, 128, 0, 0, 0, 0, 0), (0, 2, 128, 256, 128, 128, 128)),
    # ascend_op_learning MatmulLeakyReluCustom (M 1024, N 640, K 256, C in UB): M is split.
    ((1024, 640, 256, 2, 128, 128, 0, 0, 0, 1, 0), (0, 2, 512, 640, 256, 128, 128)),
    # asc-devkit's matmul_leakyrelu sample (M 512, N 128, K 128, 128 x 64 bases): N is split.
    ((512, 128, 128, 2, 128, 64, 0, 0, 0, 1, 0), (0, 2, 512, 64, 128, 128, 64)),
    # PreProcessMiniShape: fits one core's L0, one core.
    ((96, 80, 300, 40, 0, 0, 0, 0, 0, 0, 0), (0, 1, 96, 80, 300, None, None)),
    # float32 (K in blocks of 8): not a mini shape, cut into 16 x 16 blocks; a fixed 32 is -1.
    ((96, 80, 300, 40, 0, 0, 1, 1, 1, 1, 0), (0, 30, 16, 16, 300, None, None)),
    ((96, 80, 300, 40, 32, 32, 1, 1, 1, 1, 0), (-1, 0, 0, 0, 0, 0, 0)),
    # The blocks come from M and N rounded up to 16: larger than M and N here.
    ((100, 70, 129, 40, 0, 0, 0, 0, 0, 0, 0), (0, 1, 112, 80, 129, None, None)),
    ((300, 260, 77, 40, 0, 0, 0, 0, 0, 0, 0), (0, 19, 16, 272, 77, None, None)),
    ((64, 1000, 40, 40, 0, 0, 0, 0, 0, 0, 0), (0, 16, 16, 252, 40, None, None)),
    # CalcLoadSize's estimates (the second reads the sizes the first replaced).
    ((2244, 569, 512, 2, 16, 0, 1, 0, 0, 1, 0), (0, 2, 1128, 576, 512, 16, None)),
    ((4096, 4096, 4096, 20, 0, 0, 0, 0, 0, 0, 0), (0, 20, 820, 1024, 4096, None, None)),
    ((4096, 4096, 4096, 24, 128, 256, 0, 0, 0, 0, 0), (0, 24, 1366, 512, 4096, 128, 256)),
    # Without SetShape (the single shape -1), 910B's DoMultiCoreSplitMNTiling scenarios, base
    # blocks included. SPLIT_MN: mDim x nDim = dim by CalcComputeIntensity, 128 x 256 x 64 bases,
    # N rounded up to 256 bytes where every core still gets some.
    ((1024, 1024, 512, 8, 0, 0, 0, 0, 0, 0, 1), (0, 8, 256, 512, 512, 128, 256)),
    ((4096, 4096, 4096, 20, 0, 0, 0, 0, 0, 0, 1), (0, 20, 1024, 896, 4096, 128, 256)),
    # SPLIT_SMALL_MN (M x N under 26214 per core): CalcMultiCoreDimsSmallShape, bases from
    # UpdateBaseBlock, SetFixSplit's overridden.
    ((100, 70, 129, 40, 0, 0, 0, 0, 0, 0, 1), (0, 20, 23, 20, 129, 32, 32)),
    ((64, 1000, 40, 40, 0, 0, 0, 0, 0, 0, 1), (0, 38, 32, 54, 40, 32, 64)),
    ((128, 128, 256, 2, 128, 128, 0, 0, 0, 0, 1), (0, 2, 64, 128, 256, 64, 128)),
    ((2048, 96, 17, 48, 0, 0, 0, 0, 1, 1, 1), (0, 42, 49, 96, 17, 64, 96)),
]


def test_multicore_tiling_split_is_canns(mm_build):
    args = [str(x) for case, _ in CANN_SPLITS for x in case]
    proc = subprocess.run(
        [str(mm_build / "test_matmul_api"), "--split", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [ln.split()[1:] for ln in proc.stdout.splitlines() if ln.startswith("SPLIT ")]
    assert len(lines) == len(CANN_SPLITS), proc.stdout
    for (case, want), got in zip(CANN_SPLITS, lines, strict=True):
        got = tuple(int(x) for x in got)
        assert all(w is None or w == g for w, g in zip(want, got, strict=True)), (case, want, got)


def test_matmul_tiling_failure_says_why(mm_build):
    """A TilingFunc that returns GRAPH_FAILED after GetTiling's -1 is reported with the tiling's
    reason (CANN logs it): float32 96 x 80 on 40 AIVs is cut into 16 x 16 blocks, smaller than a
    fixed 32 x 32 base."""
    c = _case(column="fp32->fp32", m=96, n=80, k=300, ta=1, tb=1, base_m=32, base_n=32)
    ((kind, msg),) = run_cases(mm_build, [c], "why")
    assert kind == "err" and "TilingFunc of MatmulLeakyCustom returned GRAPH_FAILED" in msg, msg
    assert (
        "GetTiling returned -1: MatmulApi Tiling: SetFixSplit: baseM 32 exceeds the 16 rows" in msg
    )


def test_matmul_api_misuse(mm_build):
    proc = subprocess.run(
        [str(mm_build / "test_matmul_api")], capture_output=True, text=True, timeout=120
    )
    lines = proc.stdout.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert any(ln.startswith("SUMMARY") for ln in lines), proc.stdout


def test_matmul_registration_outside_the_calls_scope_hangs(mm_build):
    """REGIST_MATMUL_OBJ as asc-devkit's macro on A2/A3: on an AIV its client lives in the scope it
    is expanded in; on the AIC it serves and returns. Registered where the NPU would hang, the run
    fails naming the macro, the function and the call that waits."""
    results = run_cases(mm_build, [_case(mode=mode) for mode in (2, 3, 4)], "misregistered")
    (k2, helper), (k3, aiv_only), (k4, early_return) = results
    assert k2 == "err" and "(AIV 0, GetBlockIdx() 0)" in helper, helper
    assert "client, which REGIST_MATMUL_OBJ declared in RegistInHelper(), ended" in helper, helper
    assert "Matmul::SetTensorA" in helper and "SERVICE_QUIT" in helper, helper
    assert k3 == "err" and "kernel block 0 of" in aiv_only, aiv_only
    assert "waits for the block's cube core (AIC), which ended without reaching" in aiv_only
    assert k4 == "err" and "(AIC): REGIST_MATMUL_OBJ serves until each of the block's 2" in (
        early_return
    )
    assert "but 1 of them reached REGIST_MATMUL_OBJ" in early_return, early_return
