"""opgen's own code stays ruff-clean and ruff-formatted (the rules are in pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT


def test_ruff_passes():
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists() and shutil.which("ruff") is None:
        pytest.skip("ruff is not installed (pip install '.[test]')")
    exe = str(ruff) if ruff.exists() else "ruff"
    proc = subprocess.run(
        [exe, "check", "--no-cache", "opgen", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
