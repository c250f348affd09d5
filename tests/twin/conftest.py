"""Shared fixtures for the CPU-twin tests: one parallel g++ build per test session."""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import subprocess

import pytest
from twin_support import CPP, CXX, CXXFLAGS, KERNEL_INCLUDES, KERNELS, TwinBuild, compile_cmd


@pytest.fixture(scope="session")
def twin_build(tmp_path_factory) -> TwinBuild:
    if shutil.which(CXX) is None:
        pytest.fail(f"C++ compiler {CXX!r} not found")
    out = tmp_path_factory.mktemp("twin_build")
    build = TwinBuild(out)
    objects = {
        "add_custom_variants": KERNELS / "variants" / "add_custom_variants.cpp",
        "gelu_custom_fp32": KERNELS / "variants" / "gelu_custom_fp32.cpp",
        "gelu_custom_fp16": KERNELS / "variants" / "gelu_custom_fp16.cpp",
        "gelu_custom_bf16": KERNELS / "variants" / "gelu_custom_bf16.cpp",
        "list_sum_custom_fp32": KERNELS / "variants" / "list_sum_custom_fp32.cpp",
        "sync_roll_custom_fp32": KERNELS / "variants" / "sync_roll_custom_fp32.cpp",
        "add_custom_host": KERNELS / "add_custom" / "op_host" / "add_custom.cpp",
        "gelu_custom_host": KERNELS / "gelu_custom" / "op_host" / "gelu_custom.cpp",
        "add_custom_broken_host": KERNELS / "broken_tiling" / "op_host" / "add_custom_broken.cpp",
        "list_sum_custom_host": KERNELS / "list_sum" / "op_host" / "list_sum_custom.cpp",
        "sync_roll_custom_host": KERNELS / "sync_roll" / "op_host" / "sync_roll_custom.cpp",
        "runner_driver": CPP / "runner_driver.cpp",
    }
    programs = {
        "test_kernel_api": CPP / "test_kernel_api.cpp",
        "test_host_api": CPP / "test_host_api.cpp",
    }
    jobs: dict[str, list[str]] = {}
    for name, src in objects.items():
        obj = out / f"{name}.o"
        build.objects[name] = obj
        jobs[name] = [CXX, *CXXFLAGS, *KERNEL_INCLUDES, "-c", str(src), "-o", str(obj)]
    for name, src in programs.items():
        exe = out / name
        build.binaries[name] = exe
        jobs[name] = [CXX, *CXXFLAGS, str(src), "-o", str(exe)]
    errors = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {pool.submit(compile_cmd, cmd): name for name, cmd in jobs.items()}
        for fut in concurrent.futures.as_completed(futures):
            name = futures[fut]
            seconds, proc = fut.result()
            build.compile_seconds[name] = seconds
            if proc.returncode != 0:
                errors.append(f"--- {name}: {' '.join(jobs[name])}\n{proc.stderr}")
    if errors:
        pytest.fail("C++ compilation failed:\n" + "\n".join(errors), pytrace=False)
    driver = out / "runner_driver"
    link = [CXX, "-o", str(driver), *(str(p) for p in build.objects.values())]
    proc = subprocess.run(link, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"link failed:\n{proc.stderr}", pytrace=False)
    build.binaries["runner_driver"] = driver
    (out / "compile_seconds.json").write_text(json.dumps(build.compile_seconds, indent=1))
    return build


@pytest.fixture(scope="session")
def run_section(twin_build):
    """Runs one section of a C++ check program; fails on any failed check. Returns
    {"stdout": ..., "messages": {check_name: error_text}, "passed": n}."""

    def _run(binary: str, section: str) -> dict:
        proc = twin_build.run(binary, section)
        lines = proc.stdout.splitlines()
        fails = [ln for ln in lines if ln.startswith("FAIL")]
        summary = [ln for ln in lines if ln.startswith("SUMMARY")]
        assert not fails, "\n".join(fails)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert summary, f"no SUMMARY line (crash?):\n{proc.stdout}\n{proc.stderr}"
        passed = int(summary[-1].split("pass=")[1].split()[0])
        assert passed > 0
        messages = {}
        for ln in lines:
            if ln.startswith("MSG "):
                name, _, text = ln[4:].partition(": ")
                messages[name] = text
        return {"stdout": proc.stdout, "messages": messages, "passed": passed}

    return _run
