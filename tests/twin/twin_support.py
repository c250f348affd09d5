"""Paths, compiler flags and the build helper shared by the CPU-twin tests."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TWIN_INCLUDE = ROOT / "opgen" / "twin" / "include"
HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"
CPP = HERE / "cpp"
CXX = os.environ.get("CXX", "g++")
CXXFLAGS = ["-std=c++17", "-O1", "-Wall", "-I", str(TWIN_INCLUDE)]
KERNEL_INCLUDES = [
    "-I",
    str(KERNELS / "add_custom" / "op_kernel"),
    "-I",
    str(KERNELS / "gelu_custom" / "op_kernel"),
    "-I",
    str(KERNELS / "list_sum" / "op_kernel"),
    "-I",
    str(KERNELS / "sync_roll" / "op_kernel"),
]


# The index library's headers and what they include from every project's kernel library
INDEX_LIB_INCLUDES = [
    "-I",
    str(ROOT / "templates" / "kernel" / "index_lib" / "op_kernel"),
    "-I",
    str(ROOT / "templates" / "host" / "index_lib" / "op_host"),
    "-I",
    str(ROOT / "templates" / "kernel" / "project" / "op_kernel"),
]


@dataclass
class TwinBuild:
    root: Path
    binaries: dict[str, Path] = field(default_factory=dict)
    objects: dict[str, Path] = field(default_factory=dict)
    compile_seconds: dict[str, float] = field(default_factory=dict)

    def run(
        self, binary: str, *args: str, check: bool = False, timeout: float = 120
    ) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [str(self.binaries[binary]), *args], capture_output=True, text=True, timeout=timeout
        )
        if check and proc.returncode != 0:
            pytest.fail(
                f"{binary} {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            )
        return proc


def compile_cmd(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return time.monotonic() - start, proc


def build_check(tmp_path_factory, name: str) -> Path:
    """Compiles cpp/<name>.cpp, a program of C++ checks, into a scratch folder."""
    exe = tmp_path_factory.mktemp(name) / name
    proc = subprocess.run(
        [CXX, *CXXFLAGS, str(CPP / f"{name}.cpp"), "-o", str(exe)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return exe


def run_check_section(exe: Path, section: str) -> tuple[dict, dict, dict, str]:
    """Runs one section of a check program: no FAIL line, a SUMMARY, exit 0. Returns its IN and
    OUT lines (name -> values), its MSG lines (name -> text) and the whole output."""
    proc = subprocess.run([str(exe), section], capture_output=True, text=True, timeout=120)
    lines = proc.stdout.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    assert proc.returncode == 0 and any(ln.startswith("SUMMARY") for ln in lines), proc.stdout
    ins: dict = {}
    outs: dict = {}
    msgs: dict = {}
    for ln in lines:
        tag, _, rest = ln.partition(" ")
        if tag in ("IN", "OUT"):
            name, *vals = rest.split()
            (ins if tag == "IN" else outs)[name] = [float(v) for v in vals]
        elif tag == "MSG":
            name, _, text = rest.partition(": ")
            msgs[name] = text
    return ins, outs, msgs, proc.stdout
