"""opgen_twin/launch_direct.h: a kernel launched directly on the caller's GM buffers, as an
asc-devkit example's `kernel<<<n, 0, stream>>>(...)` (bench/asc_devkit_matmul.py uses it).
cpp/test_launch_direct.cpp checks the results in place, an access outside the buffers, SyncAll's
second run from the buffers' first bytes, and a mixed Matmul kernel registered in its entry
(c = a . b) or in a helper (an error naming REGIST_MATMUL_OBJ)."""

from __future__ import annotations

import subprocess

import pytest
from twin_support import CPP, CXX, CXXFLAGS

pytestmark = pytest.mark.slow


def test_launch_direct(tmp_path):
    exe = tmp_path / "test_launch_direct"
    build = [CXX, *CXXFLAGS, str(CPP / "test_launch_direct.cpp"), "-o", str(exe)]
    proc = subprocess.run(build, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    fails = [line for line in run.stdout.splitlines() if line.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    assert run.returncode == 0 and "SUMMARY" in run.stdout, run.stdout + run.stderr
