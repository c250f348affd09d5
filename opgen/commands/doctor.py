"""`opgen doctor`: what this machine has for each step, and what that means for the user."""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

from opgen.commands.build import cann_home


@dataclass
class Check:
    what: str
    found: str | None  # version or path; None when absent
    meaning: str

    def as_json(self) -> dict:
        return {"what": self.what, "found": self.found, "meaning": self.meaning}


def _dist_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def tool_version(cmd: list[str]) -> str | None:
    """The first line a tool prints for its version, or None when it is not installed."""
    if shutil.which(cmd[0]) is None:
        return None
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    text = (proc.stdout or proc.stderr).strip().splitlines()
    return text[0] if text else ""


def cann_version(home: Path) -> str:
    for candidate in ("version.cfg", "compiler/version.info", "version.info"):
        path = home / candidate
        if path.is_file():
            for line in path.read_text(errors="replace").splitlines():
                if "version" in line.lower() and "=" in line:
                    return line.split("=", 1)[1].strip()
    return str(home)


def checks() -> list[Check]:
    torch_npu = _dist_version("torch-npu") if find_spec("torch_npu") else None
    ninja = tool_version(["ninja", "--version"]) or (_dist_version("ninja") and "python ninja")
    home = cann_home()
    python_ok = sys.version_info >= (3, 10)
    # what, what was found (None: absent), what that means when found / when not
    rows = [
        ("Python", platform.python_version(), "opgen runs", "opgen needs Python 3.10 or newer"),
        (
            "torch",
            _dist_version("torch"),
            "the PyTorch extension and its tests can be built and run",
            "install torch==2.13.0 to build and test the PyTorch package",
        ),
        (
            "torch_npu",
            torch_npu,
            "the NPU adapter is compiled and its symbols checked",
            "NPU adapter compile check skipped (pip install --no-deps torch-npu==<torch version> "
            "to enable it)",
        ),
        (
            "C++ compiler (g++)",
            tool_version(["g++", "--version"]),
            "the CPU twin and the extension compile",
            "no g++: nothing can be built",
        ),
        (
            "ninja",
            ninja,
            "parallel extension builds",
            "builds fall back to slow serial compiles (pip install ninja)",
        ),
        (
            "git",
            tool_version(["git", "--version"]),
            "projects can be git repositories; opgen update checks for uncommitted changes",
            "opgen update works without git",
        ),
        (
            "CANN",
            cann_version(home) if home else None,
            "build.sh, the op package and the NPU tests run",
            "no CANN (ASCEND_HOME_PATH unset): CPU twin only; NPU tests skip",
        ),
        (
            "msopgen",
            shutil.which("msopgen"),
            "opgen new wraps msopgen for the CANN skeleton",
            "opgen renders the CANN skeleton itself",
        ),
    ]
    return [
        Check(what, found, ok if found and (what != "Python" or python_ok) else missing)
        for what, found, ok, missing in rows
    ]
