"""opgen's own code, and the Python templates/ copies as it is, stay ruff-clean and
ruff-formatted, and opgen's own code passes mypy with every function annotated (the rules and
settings are in pyproject.toml)."""

import importlib.util
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


def test_mypy_passes():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install '.[test]')")
    # pyproject.toml's [tool.mypy] names the files (opgen/) and the settings; the cache in
    # .mypy_cache/ takes a rerun from about 15 s to 2
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
