"""After a clean update the project still builds and passes its own tests."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT
from typer.testing import CliRunner

from opgen.cli import app

pytestmark = pytest.mark.slow


def cli(*args):
    return CliRunner().invoke(app, [*map(str, args)])


@pytest.fixture
def uninstall():
    names = []
    yield names.append
    for name in names:
        subprocess.run(
            [sys.executable, "-m", "pip", "uninstall", "-y", "-q", name], capture_output=True
        )


def build_and_test(project) -> None:
    result = cli("build", project, "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    result = cli("test", project, "--json")
    assert result.exit_code == 0, result.stdout + result.stderr


def test_template_update_then_build_and_test(tmp_path, uninstall):
    v1, v2 = tmp_path / "v1", tmp_path / "v2"
    shutil.copytree(ROOT / "templates", v1, symlinks=True)
    shutil.copytree(ROOT / "templates", v2, symlinks=True)
    project = tmp_path / "upd_gelu"
    uninstall("upd_gelu")
    assert (
        cli(
            "new",
            EXAMPLES / "gelu_custom.json",
            "-o",
            project,
            "--no-build",
            "--no-msopgen",
            "--templates",
            v1,
        ).exit_code
        == 0
    )
    compute = project / "op_kernel" / "gelu_custom_compute.h"
    compute.write_text(
        compute.read_text().replace("#endif", "// user: reviewed this compute step\n#endif")
    )
    kernel_tpl = v2 / "kernel" / "op" / "op_kernel" / "{{ op.snake }}.cpp.jinja"
    entry = "{{ cpp.kernel_entry(k) }}"
    head, found, tail = kernel_tpl.read_text().rpartition(entry)  # the elementwise kernel's entry
    assert found, f"{kernel_tpl.name} no longer prints {entry}"
    kernel_tpl.write_text(head + "// v2: a note from the new templates\n" + entry + tail)
    result = cli("update", project, "--templates", v2, "--json")
    assert result.exit_code == 0, result.output
    assert "v2: a note" in (project / "op_kernel" / "gelu_custom.cpp").read_text()
    assert "user: reviewed" in compute.read_text()
    build_and_test(project)


def test_prototype_update_adding_a_dtype_then_build_and_test(tmp_path, uninstall):
    project = tmp_path / "upd_add"
    uninstall("upd_add")
    assert (
        cli(
            "new", EXAMPLES / "add_custom.json", "-o", project, "--no-build", "--no-msopgen"
        ).exit_code
        == 0
    )
    proto = project / "add_custom.json"
    data = json.loads(proto.read_text())
    for tensor in data[0]["input_desc"] + data[0]["output_desc"]:
        tensor["type"].append("int16")
    proto.write_text(json.dumps(data, indent=2))
    result = cli("update", project, "--json")
    assert result.exit_code == 0, result.output
    assert "ge::DT_INT16" in (project / "op_host" / "add_custom.cpp").read_text()
    assert list((project / "upd_add" / "csrc").glob("add_custom_int16*.cpp"))
    build_and_test(project)
