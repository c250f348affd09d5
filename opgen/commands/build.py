"""Build a generated project and run its tests: the stage after rendering.

Steps run in order, each with progress on stderr, its full log under `.opgen/logs/`, and a row in
the summary (status and time). A step that cannot run here is reported as skipped with the
reason; nothing passes silently. Any failure makes the command exit 1.

Without CANN: build the PyTorch extension (CPU twin as the CPU implementation; the NPU adapter too
when torch_npu is installed), check the NPU adapter's undefined symbols, run the tests.
With CANN (ASCEND_HOME_PATH set): also build the op package with build.sh, install the .run
inside the project, and run the tests marked `npu` with the package's set_env sourced.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path

from opgen import version_note
from opgen.commands import report
from opgen.project import manifest as project_state

LOG_DIR = Path(project_state.LOG_DIR)
TAIL_LINES = 40
COMPILER_ERROR = re.compile(r":\d+(:\d+)?: (fatal )?error: ")  # gcc/clang: file:line:col: error:
# the progress a step's output shows: ninja's "[12/21] c++ ...", pytest's "....  [ 45%]"
NINJA_PROGRESS = re.compile(r"^\[(\d+)/(\d+)\] ", re.MULTILINE)
PYTEST_PROGRESS = re.compile(r"\[\s*(\d+)%\]\s*$", re.MULTILINE)
POLL_SECONDS = 0.5
TEST_TIMEOUT_DEFAULT = 600  # seconds per generated test (the project's conftest.py)


@dataclass
class Step:
    name: str
    status: str = "pending"  # passed | failed | skipped
    seconds: float = 0.0
    detail: str = ""
    log: str | None = None
    # called while a command of the step runs, with the progress its output shows, if any
    on_progress: Callable[[str | None], None] | None = field(default=None, repr=False)

    def as_json(self) -> dict:
        return {
            "step": self.name,
            "status": self.status,
            "seconds": round(self.seconds, 1),
            "detail": self.detail,
            "log": self.log,
        }


@dataclass
class Report:
    project: Path
    steps: list[Step] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(s.status != "failed" for s in self.steps)

    def as_json(self) -> dict:
        return {
            "project": str(self.project),
            "ok": self.ok,
            "steps": [s.as_json() for s in self.steps],
        }


def run_logged(
    step: Step,
    cmd: list[str],
    project: Path,
    log_name: str,
    env: dict[str, str] | None = None,
    shell: bool = False,
) -> bool:
    """Run `cmd` in `project`, write its output to the step's log; True on exit code 0. While
    it runs, the step's on_progress hears the progress its output shows."""
    log_path = project / LOG_DIR / log_name
    log_path.parent.mkdir(parents=True, exist_ok=True)
    step.log = str(log_path.relative_to(project))
    full_env = {**os.environ, **(env or {})}
    shown = cmd if isinstance(cmd, str) else shlex.join(cmd)
    with log_path.open("w") as log, log_path.open() as output:
        log.write(f"$ {shown}\n")
        log.flush()
        proc = subprocess.Popen(
            cmd,
            cwd=project,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=full_env,
            shell=shell,
        )
        try:
            returncode = None
            while returncode is None:
                try:
                    returncode = proc.wait(timeout=POLL_SECONDS)
                except subprocess.TimeoutExpired:
                    pass
                if step.on_progress is not None:
                    step.on_progress(progress_mark(output.read()))
        except BaseException:  # Ctrl-C, SIGTERM: the command must not outlive opgen
            proc.kill()
            proc.wait()
            raise
    if returncode != 0:
        step.detail = f"exit code {returncode}"
        return False
    return True


def progress_mark(output: str) -> str | None:
    """The last progress shown in a piece of a command's output: '12/21 compiled' (ninja),
    '45% of the tests' (pytest), or None."""
    ninja = list(NINJA_PROGRESS.finditer(output))
    if ninja:
        done, total = ninja[-1].groups()
        return f"{done}/{total} compiled"
    tests = list(PYTEST_PROGRESS.finditer(output))
    if tests:
        return f"{tests[-1].group(1)}% of the tests"
    return None


def tail(project: Path, step: Step) -> str:
    """What to show of a failed step's log: from the first compiler error when there is one
    (a build's last lines are setuptools' traceback), else the last lines."""
    if not step.log:
        return ""
    lines = (project / step.log).read_text(errors="replace").splitlines()
    first = next((i for i, line in enumerate(lines) if COMPILER_ERROR.search(line)), None)
    if first is not None:
        return "\n".join(lines[max(first - 2, 0) : first + TAIL_LINES - 2])
    return "\n".join(lines[-TAIL_LINES:])


# ---------------------------------------------------------------------------------------------
# the steps
# ---------------------------------------------------------------------------------------------


def cann_home() -> Path | None:
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = os.environ.get(var)
        if value and Path(value).is_dir():
            return Path(value)
    return None


def step_environment(step: Step, build: bool, test: bool, project_opgen: str | None = None) -> None:
    """What the steps need from this Python, found before minutes are spent building; with
    `project_opgen` (the opgen that generated the project), a build says when this opgen, whose
    CPU twin the project compiles against, is another (a warning: the build goes on)."""
    from importlib import metadata

    needed = (["torch", "ninja"] if build else ["torch"]) + (["pytest"] if test else [])
    found, missing = [], []
    for name in needed:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            missing.append(name)
    if build and "ninja" not in missing:
        tool = ninja_executable()
        if tool is None:
            missing.append("ninja")
        else:
            found[needed.index("ninja")] = f"ninja {tool}"
    if missing:
        step.status = "failed"
        step.detail = (
            f"{', '.join(missing)} not installed in {sys.executable}: "
            f"pip install {' '.join(missing)}"
            + (
                " (torch: the CPU build, pip install torch --index-url "
                "https://download.pytorch.org/whl/cpu)"
                if "torch" in missing
                else ""
            )
        )
    else:
        step.status, step.detail = "passed", ", ".join(found)
        note = version_note(project_opgen) if build and project_opgen is not None else None
        if note is not None:
            step.detail += f"; warning: {note}"


def ninja_executable() -> Path | None:
    """The ninja of this Python's `ninja` package, which every build uses: torch runs `ninja`
    from PATH, and two ninjas taking turns (the venv's, /usr/bin's) each see "command line
    changed" and rebuild every object."""
    import shutil
    import sysconfig

    try:
        import ninja

        candidates = [Path(ninja.BIN_DIR)]
    except (ImportError, AttributeError):
        candidates = []
    candidates.append(Path(sysconfig.get_path("scripts")))
    for directory in candidates:
        found = shutil.which("ninja", path=str(directory))
        if found:
            return Path(found)
    return None


def build_environment() -> dict[str, str]:
    """The build's environment: all cores, no torch_npu autoload (it needs CANN), and PATH
    leading with the directory of the ninja that step_environment reported."""
    env = {"MAX_JOBS": str(os.cpu_count() or 2), "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    tool = ninja_executable()
    if tool is not None:
        env["PATH"] = os.pathsep.join([str(tool.parent), os.environ.get("PATH", "")])
    return env


def step_extension(project: Path, package: str, step: Step) -> None:
    """Build _C (and _C_npu with torch_npu) in place with ninja, keeping build/ so that the next
    build compiles only what changed; install the package (editable, without building) the first
    time only. A `pip install -e .` would rebuild everything in a fresh directory each time."""
    env = build_environment()
    build = [sys.executable, "setup.py", "build_ext", "--inplace"]
    if not run_logged(step, build, project, "build_extension.log", env):
        step.status = "failed"
        return
    npu = "with" if find_spec("torch_npu") else "without"
    step.status, step.detail = "passed", f"CPU extension built ({npu} the NPU adapter)"
    if installed_from(project, package):
        return
    # compat mode puts the project folder on sys.path (a .pth file) rather than an import hook,
    # which a folder named like the package in the current directory would shadow
    register = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-build-isolation",
        "--no-deps",
        "--disable-pip-version-check",
        "--config-settings",
        "editable_mode=compat",
        "-e",
        ".",
    ]
    if run_logged(
        step, register, project, "install_package.log", {**env, "OPGEN_NO_EXTENSIONS": "1"}
    ):  # setup.py: metadata only
        step.detail += f"; {package} installed (editable)"
    else:
        step.status = "failed"


def installed_from(project: Path, package: str) -> bool:
    """Whether this Python has `package` installed editable from `project`, in compat mode (a
    .pth file naming the project folder; an import-hook install, as older opgens made, is done
    again)."""
    import json
    from importlib import metadata

    try:
        dist = metadata.distribution(package)
        direct_url = json.loads(dist.read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return False
    if not (
        direct_url.get("dir_info", {}).get("editable") is True
        and direct_url.get("url") == project.resolve().as_uri()
    ):
        return False
    pth_files = [f for f in dist.files or [] if f.name.endswith(".pth")]
    return any(
        (
            Path(str(dist.locate_file(f))).read_text(errors="replace").strip()
            == str(project.resolve())
        )
        for f in pth_files
    )


def step_npu_symbols(project: Path, package: str, step: Step) -> None:
    """The NPU adapter may only use symbols libtorch_npu, torch and the C/C++ runtime (libc,
    libstdc++, libgcc, the dynamic loader) export: what every NPU machine resolves."""
    spec = find_spec("torch_npu")
    if spec is None or spec.origin is None:  # None: a namespace package, no torch_npu module
        step.status, step.detail = "skipped", "skipped: torch_npu not installed"
        return
    libs = sorted((project / package).glob("_C_npu*.so"))
    if not libs:
        step.status, step.detail = "failed", f"no {package}/_C_npu*.so was built"
        return
    from opgen.commands.symbols import unresolved

    torch_npu_dir = Path(spec.origin).parent
    missing = unresolved(libs[0], torch_npu_dir)
    log = project / LOG_DIR / "npu_symbols.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("\n".join(missing) + "\n")
    step.log = str(log.relative_to(project))
    if missing:
        step.status = "failed"
        step.detail = f"{len(missing)} undefined symbol(s), e.g. {missing[0]}"
    else:
        step.status = "passed"
        step.detail = "no undefined symbol outside torch_npu, torch and the C/C++ runtime"


def step_cann_package(project: Path, step: Step) -> None:
    """build.sh, then install the .run inside the project (never into the shared CANN tree)."""
    from opgen.commands import console

    home = cann_home()
    if home is None:
        step.status, step.detail = "skipped", "skipped: CANN not found (ASCEND_HOME_PATH unset)"
        return
    if not run_logged(step, ["bash", "build.sh"], project, "build_sh.log"):
        step.status = "failed"
        return
    runs = sorted((project / "build_out").glob("custom_opp_*.run"))
    if not runs:
        step.status, step.detail = "failed", "build.sh produced no build_out/custom_opp_*.run"
        return
    target = project / "opp"  # inside the project; build.sh wipes build_out/
    env = {"ASCEND_CUSTOM_OPP_PATH": ""}  # a ':' in it is a hard error for the installer
    install = [str(runs[0]), f"--install-path={target.resolve()}", "--quiet"]
    if run_logged(step, install, project, "install_run.log", env):
        step.status, step.detail = "passed", f"installed into {console.shown_path(target)}"
    else:
        step.status = "failed"


def set_env_script(project: Path) -> Path | None:
    found = sorted((project / "opp").glob("vendors/*/bin/set_env.bash"))
    return found[0] if found else None


def step_tests(project: Path, step: Step, pytest_args: list[str], npu: bool) -> None:
    from opgen.commands import console

    args = [sys.executable, "-m", "pytest", "tests", "-q", *pytest_args]
    running = project / LOG_DIR / "running_test"
    running.parent.mkdir(parents=True, exist_ok=True)
    running.unlink(missing_ok=True)
    env = {"TORCH_DEVICE_BACKEND_AUTOLOAD": "0", "OPGEN_RUNNING_TEST": str(running)}
    record = project / report.RECORD  # every precision case, for the report
    record.parent.mkdir(parents=True, exist_ok=True)
    if not npu:
        record.unlink(missing_ok=True)
    env["OPGEN_PRECISION_RECORD"] = str(record)
    script = set_env_script(project) if npu else None
    if npu:
        if script is None:
            step.status, step.detail = "skipped", "skipped: no installed op package to test"
            return
        env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD")
        cmd = f"source {shlex.quote(str(script))} && {shlex.join(args + ['-m', 'npu'])}"
        ok = run_logged(step, ["bash", "-c", cmd], project, "test_npu.log", env)
    else:
        ok = run_logged(step, args, project, "test.log", env)
    assert step.log is not None  # run_logged names the log
    step.status = "passed" if ok else "failed"
    written = report.write(project)
    if ok:
        step.detail = summary_line(project, step)
        if written is not None:
            step.detail += f"; precision report: {console.shown_path(written)}"
    elif running.is_file():  # the run ended inside this test: it hung (timed out) or crashed
        limit = os.environ.get("OPGEN_TEST_TIMEOUT") or TEST_TIMEOUT_DEFAULT
        step.detail = (
            f"stopped in {running.read_text().strip()}: no result within {limit} s "
            "(OPGEN_TEST_TIMEOUT), or the process crashed; its stacks are in the log"
        )
        stacks = running.with_name(running.name + ".stacks")
        if stacks.is_file():
            with (project / step.log).open("a") as log:
                log.write(f"\nthe stacks when it was stopped:\n{stacks.read_text()}")
            stacks.unlink()
        running.unlink()


def summary_line(project: Path, step: Step) -> str:
    """pytest's closing line, e.g. '12 passed, 3 skipped in 4.2s'."""
    if not step.log:
        return ""
    for line in reversed((project / step.log).read_text(errors="replace").splitlines()):
        if " passed" in line or " failed" in line or " skipped" in line:
            return line.strip("= ")
    return ""


# ---------------------------------------------------------------------------------------------
# driving
# ---------------------------------------------------------------------------------------------


def run_steps(project: Path, build: bool, test: bool, pytest_args: list[str]) -> Report:
    from opgen.commands import console

    state = project_state.load(project)
    package = state.options.package
    report = Report(project)  # the path as given, for the summary
    # The steps run with the project's absolute path: pytest runs inside the project, so a path
    # handed to it in the environment (OPGEN_RUNNING_TEST) must not be relative to here.
    project = project.resolve()
    plan: list[tuple[str, Callable[[Step], None]]] = [
        ("check environment", lambda s: step_environment(s, build, test, state.opgen_version))
    ]
    if build:
        plan += [
            ("build PyTorch extension", lambda s: step_extension(project, package, s)),
            ("check NPU adapter symbols", lambda s: step_npu_symbols(project, package, s)),
            ("build and install CANN package", lambda s: step_cann_package(project, s)),
        ]
    if test:
        plan.append(("run tests", lambda s: step_tests(project, s, pytest_args, npu=False)))
        if cann_home() is not None:
            plan.append(("run NPU tests", lambda s: step_tests(project, s, pytest_args, npu=True)))
    for name, action in plan:
        step = Step(name)
        report.steps.append(step)
        started = time.monotonic()
        with console.StepProgress(name) as progress:
            step.on_progress = progress.update
            action(step)
        step.seconds = time.monotonic() - started
        console.print_step(step)
        if step.status == "failed":
            console.print_log_tail(step, tail(project, step), project)
            break
    return report


def build_and_test(
    project: Path,
    as_json: bool = False,
    build: bool = True,
    test: bool = True,
    pytest_args: list[str] | None = None,
) -> int:
    """Run the steps and print the summary; return the exit code (0 ok, 1 failed)."""
    from opgen.commands import console

    report = run_steps(project, build, test, pytest_args or [])
    if as_json:
        console.print_json(report.as_json())
    else:
        console.print_report(report)
    return 0 if report.ok else 1
