"""opgen's own code, and the Python templates/ copies as it is, stay ruff-clean and
ruff-formatted (the rules are in pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PATHS = ["opgen", "tests", "bench", "templates"]  # in templates/, the .py files (no .jinja)


@pytest.mark.parametrize("command", [["check", "--no-cache"], ["format", "--check", "--no-cache"]])
def test_ruff_passes(command):
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists() and shutil.which("ruff") is None:
        pytest.skip("ruff is not installed (pip install '.[test]')")
    exe = str(ruff) if ruff.exists() else "ruff"
    proc = subprocess.run([exe, *command, *PATHS], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
