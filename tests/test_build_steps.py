"""opgen build/test steps, including the CANN path, checked with stand-ins for the CANN tools."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from conftest import render_files
from typer.testing import CliRunner

from opgen.cli import app
from opgen.commands import build

RUN_STAND_IN = """#!/bin/bash
# stand-in for custom_opp_<os>_<arch>.run: record the call, install a set_env.bash
printf '%s\\n' "$@" > "$RECORD_DIR/run_args"
printf '%s' "${ASCEND_CUSTOM_OPP_PATH-unset}" > "$RECORD_DIR/run_custom_opp_path"
for arg in "$@"; do case "$arg" in --install-path=*) target="${arg#--install-path=}";; esac; done
mkdir -p "$target/vendors/acme/bin"
echo 'export OPGEN_TEST_SET_ENV=sourced' > "$target/vendors/acme/bin/set_env.bash"
"""

BUILD_SH_STAND_IN = """#!/bin/bash
# stand-in for the generated build.sh: record the CANN home, produce the run package
printf '%s' "$ASCEND_HOME_PATH" > "$RECORD_DIR/build_home"
mkdir -p build_out
cp "$RECORD_DIR/run_stand_in" build_out/custom_opp_linux_x86_64.run
chmod +x build_out/custom_opp_linux_x86_64.run
"""

NPU_TESTS = """import os
import pytest

@pytest.mark.npu
def test_on_npu():
    assert os.environ["OPGEN_TEST_SET_ENV"] == "sourced"

def test_cpu_only():
    raise AssertionError("the NPU run must select -m npu")
"""


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """A minimal opgen project whose build.sh and .run are stand-ins."""
    proj = tmp_path / "proj"
    (proj / ".opgen").mkdir(parents=True)
    (proj / ".opgen" / "manifest.json").write_text(
        json.dumps(
            {
                "options": {
                    "package": "acme",
                    "namespace": "acme",
                    "vendor": "acme",
                    "socs": ["ascend910b1"],
                    "prototype_file": "op.json",
                    "templates": None,
                },
                "files": {},
            }
        )
    )
    record = tmp_path / "record"
    record.mkdir()
    (record / "run_stand_in").write_text(RUN_STAND_IN)
    (proj / "build.sh").write_text(BUILD_SH_STAND_IN)
    (proj / "build.sh").chmod(0o755)
    (proj / "tests").mkdir()
    (proj / "tests" / "conftest.py").write_text(
        "def pytest_configure(config):\n"
        "    config.addinivalue_line('markers', 'npu: needs an NPU')\n"
    )
    (proj / "tests" / "test_npu.py").write_text(NPU_TESTS)
    monkeypatch.setenv("RECORD_DIR", str(record))
    return proj


def test_cann_steps_skip_without_cann(project, monkeypatch):
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    step = build.Step("cann")
    build.step_cann_package(project, step)
    assert step.status == "skipped" and "CANN not found" in step.detail


def test_cann_package_is_built_and_installed_inside_the_project(project, tmp_path, monkeypatch):
    cann = tmp_path / "cann"
    cann.mkdir()
    monkeypatch.setenv("ASCEND_HOME_PATH", str(cann))
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", "/shared/vendors/x:/other")
    step = build.Step("cann")
    build.step_cann_package(project, step)
    assert step.status == "passed", (step.detail, build.tail(project, step))
    record = tmp_path / "record"
    assert (record / "build_home").read_text() == str(cann)
    args = (record / "run_args").read_text().split()
    assert args == [f"--install-path={(project / 'opp').resolve()}", "--quiet"]
    # the installer gets a colon-free (empty) ASCEND_CUSTOM_OPP_PATH
    assert (record / "run_custom_opp_path").read_text() == ""
    assert (project / "opp" / "vendors" / "acme" / "bin" / "set_env.bash").is_file()

    npu = build.Step("npu tests")
    build.step_tests(project, npu, [], npu=True)
    assert npu.status == "passed", build.tail(project, npu)
    log = (project / npu.log).read_text()
    assert "source " in log and "-m npu" in log and "1 passed, 1 deselected" in log


def test_npu_tests_skip_without_an_installed_package(project):
    step = build.Step("npu tests")
    build.step_tests(project, step, [], npu=True)
    assert step.status == "skipped" and "no installed op package" in step.detail


@pytest.mark.skipif(
    sys.modules.get("torch_npu") is not None
    or __import__("importlib.util").util.find_spec("torch_npu") is not None,
    reason="torch_npu is installed here",
)
def test_symbol_check_says_why_it_skipped(project):
    step = build.Step("symbols")
    build.step_npu_symbols(project, "acme", step)
    assert step.status == "skipped" and step.detail == "skipped: torch_npu not installed"


def test_failing_step_exits_1_with_the_log_tail_and_json_summary(project, monkeypatch):
    (project / "tests" / "test_npu.py").write_text("def test_fails():\n    assert 1 == 2\n")
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    result = CliRunner().invoke(app, ["test", str(project), "--json"])
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    assert summary["ok"] is False
    environment, step = summary["steps"]
    assert environment["step"] == "check environment" and environment["status"] == "passed"
    assert "torch 2." in environment["detail"] and "pytest" in environment["detail"]
    assert step["step"] == "run tests" and step["status"] == "failed"
    assert step["log"] == ".opgen/logs/test.log"
    assert "assert 1 == 2" in result.stderr  # the tail of the log
    assert (project / ".opgen" / "logs" / "test.log").is_file()


def test_the_printed_log_paths_work_from_the_callers_folder(project, tmp_path, monkeypatch):
    """Run from another folder than the project, `opgen test` named its logs relative to the
    project (.opgen/logs/test.log), a path that did not exist where the caller stood."""
    (project / "tests" / "test_npu.py").write_text("def test_fails():\n    assert 1 == 2\n")
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.chdir(tmp_path)  # the project's parent: proj/.opgen/logs/test.log
    result = CliRunner().invoke(app, ["test", "proj"])
    assert result.exit_code == 1
    flat = " ".join(result.stdout.split())
    assert "log: proj/.opgen/logs/test.log" in flat, result.stdout
    assert "last lines of proj/.opgen/logs/test.log:" in result.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # outside the project's parent: the absolute path
    result = CliRunner().invoke(app, ["test", "../proj"])
    log = project.resolve() / ".opgen" / "logs" / "test.log"
    assert f"log: {log}" in " ".join(result.stdout.split()), result.stdout
    assert f"last lines of {log}:" in result.stderr


def test_pytest_args_are_passed_through(project, monkeypatch):
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    result = CliRunner().invoke(app, ["test", str(project), "--json", "--", "-k", "cpu_only"])
    assert result.exit_code == 1  # the selected test fails by design
    log = (project / ".opgen" / "logs" / "test.log").read_text()
    assert "-k cpu_only" in log and "1 deselected" in log


def test_not_a_project(tmp_path):
    result = CliRunner().invoke(app, ["build", str(tmp_path)])
    assert result.exit_code == 2 and "not an opgen project" in result.stderr


def test_doctor_json_lists_every_tool():
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0
    names = [c["what"] for c in json.loads(result.stdout)]
    assert names == [
        "Python",
        "opgen",
        "torch",
        "torch_npu",
        "C++ compiler (g++)",
        "ninja",
        "git",
        "CANN",
        "msopgen",
    ]
    assert all(c["meaning"] for c in json.loads(result.stdout))


def test_a_missing_torch_fails_before_building_and_says_what_to_install(monkeypatch):
    from importlib import metadata

    real = metadata.version

    def version(name):
        if name == "torch":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "version", version)
    step = build.Step("check environment")
    build.step_environment(step, build=True, test=True)
    assert step.status == "failed" and "pip install torch" in step.detail
    assert sys.executable in step.detail


def test_the_extension_builds_in_place_and_installs_only_once(project, monkeypatch):
    calls = []

    def run_logged(step, cmd, proj, log_name, env=None, shell=False):
        calls.append((cmd[1:4], (env or {}).get("OPGEN_NO_EXTENSIONS")))
        return True

    monkeypatch.setattr(build, "run_logged", run_logged)
    monkeypatch.setattr(build, "installed_from", lambda proj, package: False)
    step = build.Step("build PyTorch extension")
    build.step_extension(project, "acme", step)
    assert calls == [
        (["setup.py", "build_ext", "--inplace"], None),
        (["-m", "pip", "install"], "1"),
    ]  # metadata only: no second compile
    assert step.status == "passed" and step.detail.endswith("acme installed (editable)")
    calls.clear()
    monkeypatch.setattr(build, "installed_from", lambda proj, package: True)
    build.step_extension(project, "acme", build.Step("again"))
    assert calls == [(["setup.py", "build_ext", "--inplace"], None)]


def test_installed_from_reads_the_editable_install_record(tmp_path):
    assert not build.installed_from(tmp_path, "no_such_package_here")
    assert not build.installed_from(tmp_path, "pytest")  # installed, but not from tmp_path


def test_a_hung_test_is_stopped_and_named(project, monkeypatch):
    from opgen.frontend import prototype
    from opgen.frontend.options import Options
    from opgen.resources import templates_dir

    files = render_files(
        prototype.load(Path(__file__).parent.parent / "examples" / "gelu_custom.json"),
        Options("acme", "acme", "acme"),
        templates_dir(),
    )
    conftest = next(f for f in files if f.path == "tests/conftest.py")
    (project / "tests" / "conftest.py").write_bytes(conftest.content)
    (project / "acme").mkdir()
    (project / "acme" / "__init__.py").write_text("")
    (project / "acme" / "_C.so").write_text("")  # what the session check looks for
    (project / "tests" / "test_npu.py").unlink()
    (project / "tests" / "test_hang.py").write_text(
        "def test_quick():\n    pass\n\ndef test_hang():\n    while True:\n        pass\n"
    )
    monkeypatch.setenv("OPGEN_TEST_TIMEOUT", "2")
    monkeypatch.setenv("PYTHONPATH", str(project))
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    result = CliRunner().invoke(app, ["test", str(project), "--json"])
    assert result.exit_code == 1
    step = json.loads(result.stdout)["steps"][-1]
    assert step["status"] == "failed"
    assert step["detail"].startswith(
        "stopped in tests/test_hang.py::test_hang: no result within 2 s"
    ), step
    assert "Timeout" in (project / ".opgen" / "logs" / "test.log").read_text()


def test_a_build_failure_shows_the_compiler_error_not_the_traceback(tmp_path):
    log = tmp_path / ".opgen" / "logs" / "build_extension.log"
    log.parent.mkdir(parents=True)
    lines = [
        "$ python setup.py build_ext --inplace",
        "[1/3] c++ -c op_kernel/x.cpp",
        "op_kernel/x_compute.h:12:5: error: 'Foo' was not declared in this scope",
        "   12 |     Foo(y, x, count);",
    ] + [f"Traceback line {i}" for i in range(80)]
    log.write_text("\n".join(lines) + "\n")
    shown = build.tail(tmp_path, build.Step("build", log=".opgen/logs/build_extension.log"))
    assert shown.splitlines()[2].startswith("op_kernel/x_compute.h:12:5: error: 'Foo'")
    assert "Traceback line 79" not in shown


RELATIVE_TESTS = """import os
from pathlib import Path

def test_paths_handed_to_pytest_are_absolute():
    for name in ("OPGEN_RUNNING_TEST", "OPGEN_PRECISION_RECORD"):
        path = Path(os.environ[name])
        assert path.is_absolute() and path.parent.is_dir(), (name, path)
"""


def test_a_relative_project_path_works_from_its_parent_folder(project, monkeypatch):
    """pytest runs inside the project: a path opgen hands it must not be relative to the shell's
    folder (the first `make demo` failed every test so)."""
    (project / "tests" / "test_npu.py").write_text(RELATIVE_TESTS)
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.chdir(project.parent)
    result = CliRunner().invoke(app, ["test", project.name, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["project"] == project.name  # shown as given


def test_progress_marks_of_ninja_and_pytest():
    assert build.progress_mark("[1/21] c++ a.o\n[12/21] c++ b.o\n") == "12/21 compiled"
    assert build.progress_mark("....F..  [ 45%]\n....") == "45% of the tests"
    assert build.progress_mark("running build_ext\n") is None


def test_a_running_command_reports_its_progress(project):
    marks = []
    step = build.Step("compile", on_progress=marks.append)
    script = "echo '[1/2] c++ a'; sleep 0.8; echo '[2/2] c++ b'; sleep 0.8"
    assert build.run_logged(step, ["bash", "-c", script], project, "progress.log")
    assert "1/2 compiled" in marks and marks[-1] in ("2/2 compiled", None)
    assert "[2/2] c++ b" in (project / step.log).read_text()


def test_the_build_runs_the_ninja_the_environment_step_reports(tmp_path, monkeypatch):
    """torch runs `ninja` from PATH; another ninja first on PATH (/usr/bin's beside the venv's)
    would see "command line changed" and rebuild every object."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "ninja").write_text("#!/bin/sh\necho 1.0\n")
    (other / "ninja").chmod(0o755)
    monkeypatch.setenv("PATH", f"{other}:{Path(sys.executable).parent}:/usr/bin:/bin")
    ours = build.ninja_executable()
    assert ours is not None and ours.parent != other
    assert build.build_environment()["PATH"].split(":")[0] == str(ours.parent)
    step = build.Step("environment")
    build.step_environment(step, build=True, test=False)
    assert step.status == "passed" and f"ninja {ours}" in step.detail


def test_a_long_step_without_a_terminal_prints_a_line_now_and_then(monkeypatch, capsys):
    """In a CI log or a pipe there is no spinner: a step of minutes still says it is alive,
    with the time so far and its newest progress mark."""
    from opgen.commands import console

    monkeypatch.setattr(console.StepProgress, "QUIET_SECONDS", 0.0)
    console.stderr.cache_clear()
    try:
        with console.StepProgress("build PyTorch extension") as progress:
            progress.update("3/21 compiled")
            progress.update(None)  # no new mark: the last one stays
    finally:
        console.stderr.cache_clear()
    lines = capsys.readouterr().err.splitlines()
    shown = re.compile(r"^  build PyTorch extension … \d+ s, 3/21 compiled$")
    assert len(lines) == 2 and all(shown.match(line) for line in lines), lines
