"""Printed next steps name the opgen and the Python that ran, as the user's shell finds them."""

from __future__ import annotations

import sys
from pathlib import Path

from opgen import invocation


def fake_tool(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / name
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    return tool


def test_an_opgen_found_on_path_is_spelled_opgen(tmp_path, monkeypatch):
    tool = fake_tool(tmp_path / "venv" / "bin", "opgen")
    monkeypatch.setenv("PATH", str(tool.parent))
    monkeypatch.setattr(sys, "argv", [str(tool), "new"])
    assert invocation.opgen_command() == "opgen"


def test_an_opgen_run_by_its_path_is_spelled_by_its_absolute_path(tmp_path, monkeypatch):
    tool = fake_tool(tmp_path / "my venv" / "bin", "opgen")
    fake_tool(tmp_path / "elsewhere", "opgen")
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["my venv/bin/opgen", "new"])
    assert invocation.opgen_command() == f"'{tool}'"


def test_python_dash_m_opgen_is_spelled_so(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no python on PATH
    monkeypatch.setattr(sys, "argv", ["/x/site-packages/opgen/__main__.py", "new"])
    assert invocation.opgen_command() == f"{Path(sys.executable).absolute()} -m opgen"


def test_the_python_is_plain_only_when_path_finds_this_one(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    if Path(sys.executable).name == "python":
        assert invocation.python_command() == "python"
    monkeypatch.setenv("PATH", str(tmp_path))
    assert invocation.python_command() == str(Path(sys.executable).absolute())
