"""The command line: exit codes, output streams and formats."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import EXAMPLES, op
from typer.testing import CliRunner

from opgen import __version__
from opgen.cli import app

GELU = EXAMPLES / "gelu_custom.json"

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def flat(text: str) -> str:
    """Panel text without its frame and line breaks, for substring checks."""
    return " ".join(text.translate(str.maketrans("", "", "│╭╮╰╯─")).split())


def test_validate_ok_exits_0_and_prints_the_summary():
    result = run("validate", EXAMPLES / "gelu_custom.json")
    assert result.exit_code == 0
    assert "GeluCustom" in result.stdout and "gelu_custom(Tensor x) -> Tensor" in result.stdout


def test_validate_json_for_a_valid_file():
    result = run("validate", EXAMPLES / "leaky_relu_custom.json", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    (entry,) = data["ops"]
    assert entry["op_type"] == "LeakyReluCustom" and entry["snake_name"] == "leaky_relu_custom"
    assert entry["aclnn"]["name"] == "aclnnLeakyReluCustom"
    assert [a["name"] for a in entry["aclnn"]["args"]] == ["x", "negativeSlope", "out"]
    assert (
        entry["torch_schema"] == "leaky_relu_custom(Tensor x, float negative_slope=0.01) -> Tensor"
    )
    assert entry["dtypes"] == [["float16", "float16"], ["float32", "float32"]]


def test_validate_invalid_exits_2_with_a_panel_on_stderr(write_proto):
    bad = op(op="add-custom")
    bad["ouput_desc"] = bad.pop("output_desc")
    result = run("validate", write_proto([bad]))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "2 problems in" in result.stderr  # output_desc may be left out: no missing key
    assert "did you mean 'output_desc'?" in flat(result.stderr)
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "types, compute, words",
    [
        (("int8", "float"), "x * y + x - y", "torch computes 'x * y' in int8"),
        (("bool", "float"), "x - y", "'x - y' applies `-` to a bool value"),
    ],
)
def test_validate_refuses_what_torch_computes_otherwise(write_proto, types, compute, words):
    """int8 inputs into a float output: torch wraps x * y in int8 (100 * 100 + 0 is 16.0), the
    kernel's float did not; bool - bool: torch refuses it. Exit 2, the JSON path, no traceback."""
    data = op(op="NarrowCustom")
    for t in data["input_desc"]:
        t["type"] = [types[0]]
    data["output_desc"][0]["type"] = [types[1]]
    data["opgen"] = {"compute": {data["output_desc"][0]["name"]: compute}}
    result = run("validate", write_proto([data]), "--json")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    (error,) = json.loads(result.stdout)["errors"]
    assert error["path"] == f"$[0].opgen.compute.{data['output_desc'][0]['name']}"
    assert words in error["message"]


def test_validate_invalid_json_output(write_proto):
    result = run("validate", write_proto('{"op": "A",'), "--json")
    assert result.exit_code == 2
    (error,) = json.loads(result.stdout)["errors"]
    assert error["path"] == "$" and "line 1, column 12" in error["message"]


def test_missing_file_exits_2(tmp_path):
    result = run("validate", tmp_path / "nope.json")
    assert result.exit_code == 2 and "no such file" in flat(result.stderr)


def test_directory_instead_of_file_exits_2(tmp_path):
    result = run("validate", tmp_path)
    assert result.exit_code == 2 and "is a directory" in flat(result.stderr)


def test_schema_prints_the_json_schema():
    result = run("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"] == "opgen operator prototype"


def test_version():
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"opgen {__version__}"


def test_help_lists_the_commands():
    result = run("--help")
    assert result.exit_code == 0
    for command in ("validate", "schema", "new"):
        assert command in result.stdout
    assert "--install-completion" in result.stdout


@pytest.mark.parametrize("command", ["new", "update", "adopt", "build", "test", "bench", "doctor"])
def test_help_shows_no_type_after_a_flag(command):
    """typer printed `--force <bool>`, `--help <bool>`, as if a flag took a value."""
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "<bool>" not in result.stdout
    assert "<path>" in result.stdout or command in ("doctor", "bench", "test", "build")


def test_usage_error_exits_2():
    assert run("validate").exit_code == 2
    assert run("frobnicate").exit_code == 2


def test_console_script_runs_without_traceback(write_proto):
    path = write_proto("[1, 2")
    proc = subprocess.run(
        [sys.executable, "-m", "opgen", "validate", str(path)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr


def _run_main(code: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )


def test_sigterm_during_new_leaves_nothing_behind(tmp_path):
    code = f"""
import os, signal, sys
from opgen.commands import new
new.move_into_place = lambda staged, dest: os.kill(os.getpid(), signal.SIGTERM)
sys.argv = ["opgen", "new", {str(GELU)!r}, "-o", {str(tmp_path / "p")!r}, "--no-build",
            "--no-msopgen"]
from opgen.cli import main
main()
"""
    proc = _run_main(code, tmp_path)
    assert proc.returncode == 128 + 15, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "p").exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("where", ["/proc/opgen-test/p", "/sys/opgen-test/p"])
def test_a_file_system_error_is_a_message(tmp_path, where):
    code = f"""
import sys
sys.argv = ["opgen", "new", {str(GELU)!r}, "-o", {where!r}, "--no-build", "--no-msopgen"]
from opgen.cli import main
main()
"""
    proc = _run_main(code, tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["build", "test"])
def test_build_and_test_with_an_unwritable_log_directory_say_so(tmp_path, command):
    project = tmp_path / "p"
    new = CliRunner().invoke(
        app, ["new", str(GELU), "-o", str(project), "--no-build", "--no-msopgen"]
    )
    assert new.exit_code == 0
    (project / ".opgen" / "logs").write_text("a file where the log directory goes")
    code = f"""
import sys
sys.argv = ["opgen", {command!r}, {str(project)!r}]
from opgen.cli import main
main()
"""
    proc = _run_main(code, tmp_path)
    assert proc.returncode == 1 and "error: " in proc.stderr and ".opgen/logs" in proc.stderr, (
        proc.stderr
    )
    assert "Traceback" not in proc.stderr
