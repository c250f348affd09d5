"""opgen's benchmarks on this machine (not timed tests: numbers to read, not to assert).

    .venv/bin/python bench/run.py [--quick]

Measures: `opgen --help` start-up; `opgen new --no-build` for the GELU example against
msopgen's `gen` (run when msopgen is on PATH, else the figure recorded below); a no-op
`opgen update`; the full `opgen new` (build and generated tests), then `opgen build` with nothing
changed (invoked three ways, each counting the units compiled: none expected) and after a one-line
edit of the compute step, and the CPU twin's throughput for GELU on
1M float32 and float16 elements against torch.nn.functional.gelu in one process, 5 rounds of 5
calls of each, median and fastest (and the twin's again with its pipe check off), the
row-broadcast add x + bias against torch's x + bias
(5 rounds of 20 calls after 20 untimed ones, in three processes), and the twin's RMSNorm
(bench/rms_norm_custom.json, the row kernel) on [4096, 4096] float32 against torch's
composition x * rsqrt(mean(x * x) + eps) * gamma, the same way (all skipped with --quick).
The opgen of this checkout is measured (PYTHONPATH), not an installed one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# msopgen gen for a one-op project on the 2-core machine of issue #15 (1.2 s / 5.9); used when
# msopgen is not installed here.
MSOPGEN_GEN_SECONDS = 0.20
ROOT = Path(__file__).resolve().parent.parent
GELU = ROOT / "examples" / "gelu_custom.json"
BROADCAST = ROOT / "tests" / "data" / "e2e" / "broadcast.json"
RMS_NORM = ROOT / "bench" / "rms_norm_custom.json"
OPGEN = [sys.executable, "-m", "opgen"]
# Subprocesses import this checkout's opgen even when another one is installed in the venv.
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
}


def wall(cmd: list[str], repeat: int, cwd: Path) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV
        )
        times.append(time.perf_counter() - start)
    return times


def opgen_script() -> list[str]:
    # with ENV's PYTHONPATH, the script runs this checkout's opgen
    exe = Path(sys.executable).with_name("opgen")
    return [str(exe)] if exe.exists() else OPGEN


def twin_throughput(
    project: Path, dtype: str = "float32", rounds: int = 5, calls: int = 5, env: dict | None = None
) -> list[float]:
    """Median and fastest seconds per call of the generated op (CPU twin) and of torch's GELU,
    in `rounds` rounds of `calls` calls of each, so that both see the same changes of load (not
    alternating call by call: torch's OpenMP threads spin a while after each call and would
    slow the next twin call). The fastest matters on a busy machine: torch's GELU runs on every
    core and one descheduled thread makes the whole call wait (medians of 8 ms instead of 1 ms
    seen on 2 shared cores)."""
    setup = f"x = torch.randn(1 << 20, generator=gen).to(torch.{dtype})"
    return twin_against_torch(
        project,
        setup,
        f"torch.ops.{project.name}.gelu_custom(x)",
        "torch.nn.functional.gelu(x, approximate='tanh')",
        rounds,
        calls,
        env=env,
    )


def twin_against_torch(
    project: Path,
    setup: str,
    ours: str,
    ref: str,
    rounds: int = 5,
    calls: int = 5,
    settle: int = 0,
    env: dict | None = None,
) -> list[float]:
    """Median and fastest seconds per call of `ours` (the generated op on the CPU twin) and of
    `ref` (torch), after `setup` (with a seeded generator `gen`), as twin_throughput measures.
    With `settle`, each round starts with that many untimed calls: for calls of a fraction of a
    millisecond, the threads the other side left spinning (torch's OpenMP threads for a few
    milliseconds, the twin's workers for 100 us) would otherwise slow most of a round."""
    code = f"""
import sys, time, statistics, torch
sys.path.insert(0, {str(project)!r})
import importlib; pkg = importlib.import_module({project.name!r})
gen = torch.Generator().manual_seed(0)
{setup}
op = lambda: {ours}
ref = lambda: {ref}
op(); ref()
ours, torchs = [], []
for _ in range({rounds}):
    for f, out in ((op, ours), (ref, torchs)):
        for _ in range({settle}):
            f()
        for _ in range({calls}):
            s = time.perf_counter(); f(); out.append(time.perf_counter() - s)
print(statistics.median(ours), min(ours), statistics.median(torchs), min(torchs))
"""
    env = {**os.environ, "TORCH_DEVICE_BACKEND_AUTOLOAD": "0", **(env or {})}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.split()
    return [float(v) for v in out]


def bias_add_rows(tmp: Path) -> list[tuple[str, float, str]]:
    """The row-broadcast add x + bias (x [1024, 1024], bias [1024]; BiasAddCustom of
    tests/data/e2e/broadcast.json) on the CPU twin against torch's x + bias, float32 and
    float16."""
    proto = tmp / "bias_add.json"
    proto.write_text(json.dumps(json.loads(BROADCAST.read_text())[:1]))
    dest = tmp / "full" / "bench_bias"  # a package name of its own, as for GELU
    proc = subprocess.run(
        opgen_script() + ["new", str(proto), "-o", str(dest), "--no-msopgen"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    rows = []
    if proc.returncode != 0:
        return [("opgen new (BiasAddCustom)", 0.0, f"exit {proc.returncode}")]
    for dtype in ("float32", "float16"):
        setup = (
            f"x = torch.randn(1024, 1024, generator=gen).to(torch.{dtype}); "
            f"bias = torch.randn(1024, generator=gen).to(torch.{dtype})"
        )
        # One process's medians can differ from the next one's by half (not explained by the
        # buffers' offsets within a page): three processes; the middle one by the twin's median
        # is reported.
        ours_call = f"torch.ops.{dest.name}.bias_add_custom(x, bias)"
        runs = sorted(
            twin_against_torch(dest, setup, ours_call, "x + bias", calls=20, settle=20)
            for _ in range(3)
        )
        ours, ours_min, torchs, torchs_min = runs[1]
        ratios = ", ".join(f"{r[0] / r[2]:.1f}x" for r in runs)
        n = 1 << 20
        rows.append(
            (
                f"CPU twin x + bias[1024], 1M {dtype}",
                ours,
                f"{n / ours / 1e6:.1f} M elem/s; fastest {ours_min:.4f} s",
            )
        )
        rows.append(
            (
                f"torch x + bias[1024], 1M {dtype}",
                torchs,
                f"{n / torchs / 1e6:.1f} M elem/s; fastest {torchs_min:.4f} s; twin is "
                f"{ours / torchs:.1f}x (fastest: {ours_min / torchs_min:.1f}x); "
                f"three processes: {ratios}",
            )
        )
    subprocess.run(
        [sys.executable, "-m", "pip", "uninstall", "-y", "-q", dest.name],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    shutil.rmtree(dest, ignore_errors=True)
    return rows


def msopgen_gen_seconds(tmp: Path) -> tuple[float, str]:
    """msopgen gen's time for the GELU prototype here, or the recorded figure."""
    exe = shutil.which("msopgen")
    if exe is None:
        return MSOPGEN_GEN_SECONDS, "recorded; msopgen not installed"
    times = wall(
        [
            exe,
            "gen",
            "-i",
            str(GELU),
            "-c",
            "ai_core-ascend910b1",
            "-lan",
            "cpp",
            "-out",
            str(tmp / "msopgen_out"),
        ],
        1,
        tmp,
    )
    return times[0], "measured"


def rms_norm_rows(dest: Path) -> list[tuple[str, float, str]]:
    """The row kernel: the twin's RMSNorm against torch's composition, [4096, 4096] float32."""
    proc = subprocess.run(
        opgen_script() + ["new", str(RMS_NORM), "-o", str(dest), "--no-msopgen"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    rows = []
    if proc.returncode == 0:
        setup = (
            "x = torch.randn(4096, 4096, generator=gen); gamma = torch.randn(4096, generator=gen)"
        )
        ours, ours_min, torchs, torchs_min = twin_against_torch(
            dest,
            setup,
            f"torch.ops.{dest.name}.rms_norm_custom(x, gamma, epsilon=1e-6)",
            "x * torch.rsqrt(torch.mean(x * x, -1, keepdim=True) + 1e-6) * gamma",
            calls=3,
        )
        rows.append(("CPU twin RMSNorm, [4096, 4096] float32", ours, f"fastest {ours_min:.4f} s"))
        rows.append(
            (
                "torch x * rsqrt(mean(x * x) + eps) * gamma",
                torchs,
                f"fastest {torchs_min:.4f} s; twin is {ours / torchs:.1f}x (fastest: "
                f"{ours_min / torchs_min:.1f}x)",
            )
        )
    else:
        rows.append(("opgen new (RMSNorm)", 0.0, f"exit {proc.returncode}"))
    subprocess.run(
        [sys.executable, "-m", "pip", "uninstall", "-y", "-q", dest.name],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    shutil.rmtree(dest, ignore_errors=True)
    return rows


def compiled_units(project: Path) -> int:
    """How many translation units the last `opgen build` of `project` compiled (ninja's
    [k/N] lines in its log)."""
    log = project / ".opgen" / "logs" / "build_extension.log"
    return sum(1 for line in log.read_text().splitlines() if re.match(r"\[\d+/\d+\] ", line))


def no_change_builds(project: Path) -> list[tuple[str, float, str]]:
    """`opgen build` with nothing changed, invoked three ways: the venv's script without the
    venv on PATH (so /usr/bin's ninja, if any, comes first), with the venv activated, and as
    `python -m opgen`. Each must compile nothing: one ninja, whichever way opgen runs."""
    bin_dir = str(Path(sys.executable).parent)
    bare = {**ENV, "PATH": "/usr/local/bin:/usr/bin:/bin"}
    ways = [
        ("venv script, venv not on PATH", opgen_script(), bare),
        ("venv activated", opgen_script(), {**ENV, "PATH": f"{bin_dir}:{ENV['PATH']}"}),
        ("python -m opgen", OPGEN, bare),
    ]
    rows = []
    for way, opgen, env in ways:
        start = time.perf_counter()
        subprocess.run(
            opgen + ["build", str(project)],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        units = compiled_units(project)
        rows.append(
            (
                f"opgen build, nothing changed ({way})",
                time.perf_counter() - start,
                f"{units} unit(s) compiled" + ("" if units == 0 else ": expected none"),
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the full build and run")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as tmp:
        tmp = Path(tmp)
        help_times = wall(opgen_script() + ["--help"], 20, tmp)
        rows.append(("opgen --help", statistics.median(help_times), "median of 20"))
        new_times = []
        for i in range(5):
            dest = tmp / f"r{i}" / "gelu_custom"
            start = time.perf_counter()
            subprocess.run(
                opgen_script() + ["new", str(GELU), "-o", str(dest), "--no-build", "--no-msopgen"],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            new_times.append(time.perf_counter() - start)
        msopgen, source = msopgen_gen_seconds(tmp)
        ratio = statistics.median(new_times) / msopgen
        rows.append(
            (
                "opgen new --no-build (GELU)",
                statistics.median(new_times),
                f"median of 5; {ratio:.1f}x msopgen gen ({msopgen:.2f} s, {source})",
            )
        )
        update_times = wall(opgen_script() + ["update", str(tmp / "r0" / "gelu_custom")], 5, tmp)
        rows.append(("opgen update, nothing to do", statistics.median(update_times), "median of 5"))
        if not args.quick:
            # a package name of its own: uninstalling it below must not remove the demo's
            dest = tmp / "full" / "bench_gelu"
            start = time.perf_counter()
            proc = subprocess.run(
                opgen_script() + ["new", str(GELU), "-o", str(dest), "--no-msopgen"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=ENV,
            )
            full = time.perf_counter() - start
            rows.append(
                (
                    "opgen new (build + tests, GELU)",
                    full,
                    "exit 0" if proc.returncode == 0 else f"exit {proc.returncode}",
                )
            )
            if proc.returncode == 0:
                build = opgen_script() + ["build", str(dest)]
                rows += no_change_builds(dest)
                compute = dest / "op_kernel" / "gelu_custom_compute.h"
                compute.write_text(compute.read_text() + "// an edit\n")
                rows.append(
                    (
                        "opgen build, compute step edited",
                        wall(build, 1, tmp)[0],
                        "the kernel's translation units only",
                    )
                )
            for dtype in ("float32", "float16") if proc.returncode == 0 else ():
                ours, ours_min, torchs, torchs_min = twin_throughput(dest, dtype)
                n = 1 << 20
                rows.append(
                    (
                        f"CPU twin GELU, 1M {dtype}",
                        ours,
                        f"{n / ours / 1e6:.1f} M elem/s; fastest {ours_min:.4f} s",
                    )
                )
                rows.append(
                    (
                        f"torch gelu(tanh), 1M {dtype}",
                        torchs,
                        f"{n / torchs / 1e6:.1f} M elem/s; fastest {torchs_min:.4f} s; "
                        "twin is "
                        f"{ours / torchs:.1f}x (fastest: {ours_min / torchs_min:.1f}x)",
                    )
                )
                # the pipe check's cost (opgen/twin/README.md, "Pipes"): the same without it
                off, off_min, _, _ = twin_throughput(
                    dest, dtype, env={"OPGEN_TWIN_PIPE_CHECK": "0"}
                )
                rows.append(
                    (
                        f"CPU twin GELU, 1M {dtype}, pipe check off",
                        off,
                        f"fastest {off_min:.4f} s; the check costs {(ours - off) / off:+.0%} "
                        f"(fastest: {(ours_min - off_min) / off_min:+.0%})",
                    )
                )
            # opgen new installed the generated package into this environment: take it out
            subprocess.run(
                [sys.executable, "-m", "pip", "uninstall", "-y", "-q", dest.name],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            shutil.rmtree(dest, ignore_errors=True)
            rows += bias_add_rows(tmp)
            rows += rms_norm_rows(tmp / "full" / "bench_rms_norm")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {platform.platform()}"
    )
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'seconds':>9}  note")
    for name, seconds, note in rows:
        print(f"{name:<{width}}  {seconds:>9.4f}  {note}")


if __name__ == "__main__":
    main()
