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
