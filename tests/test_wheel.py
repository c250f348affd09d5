"""The wheel carries the schema, templates and twin: opgen works from a fresh venv, and gives a
generated project's build the twin's headers from site-packages (opgen.twin_include())."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """Build opgen's wheel and install it into a new virtual environment; return its bin/."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work), str(ROOT)],
        check=True,
    )
    (wheel,) = work.glob("opgen-*.whl")
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], check=True)
    return bin_dir


# the venv's own opgen, never a source tree's that PYTHONPATH names
WHEEL_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def run(bin_dir: Path, *args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(bin_dir / "opgen"), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=WHEEL_ENV,
    )


def test_validate_and_schema_from_the_wheel(installed, tmp_path):
    proto = tmp_path / "gelu.json"
    proto.write_text((EXAMPLES / "gelu_custom.json").read_text())
    result = run(installed, "validate", proto, "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ops"][0]["snake_name"] == "gelu_custom"
    schema = run(installed, "schema", cwd=tmp_path)
    assert schema.returncode == 0 and json.loads(schema.stdout)["$defs"]["op"]
    # the package found its data inside site-packages, not in this source tree
    where = subprocess.run(
        [
            str(installed / "python"),
            "-c",
            "import opgen; from opgen.resources import schema_path, templates_dir;"
            "print(schema_path()); print(templates_dir()); print(opgen.twin_include())",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=WHEEL_ENV,
        check=True,
    )
    lines = where.stdout.split()
    assert len(lines) == 3 and all("site-packages" in line for line in lines)
    assert (Path(lines[2]) / "kernel_operator.h").is_file()
    assert (Path(lines[2]) / "opgen_twin" / "runner.h").is_file()


def test_new_dry_run_from_the_wheel(installed, tmp_path):
    result = run(
        installed,
        "new",
        EXAMPLES / "gelu_custom.json",
        "--dry-run",
        "--json",
        "--no-msopgen",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    paths = {f["path"] for f in json.loads(result.stdout)["files"]}
    assert "CMakeLists.txt" in paths and "op_host/CMakeLists.txt" in paths
    assert not any(p.startswith("third_party/") for p in paths)  # the twin stays in opgen
    assert not (tmp_path / "gelu_custom").exists()
