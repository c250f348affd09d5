"""A generated project: rendered by `opgen new`, its CPU extension built in place, its own test
suite (tests/) run in a child pytest whose outcomes come back per test.

The extension is built with `setup.py build_ext --inplace` by this interpreter (the torch the
suite runs against); the child pytest finds the package through PYTHONPATH. Nothing is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass
class Project:
    directory: Path
    package: str
    namespace: str


@dataclass
class Suite:
    """One run of a generated suite."""

    outcomes: dict[str, dict]  # node id -> {"outcome", "message", "seconds"}
    returncode: int
    seconds: float
    output: str

    def counts(self) -> Counter:
        return Counter(o["outcome"] for o in self.outcomes.values())

    def select(self, outcome: str | None = None, name: str = "") -> dict[str, dict]:
        """Tests with this outcome (any, when None) whose node id contains `name`."""
        return {
            k: v
            for k, v in self.outcomes.items()
            if name in k and (outcome is None or v["outcome"] == outcome)
        }

    def describe(self) -> str:
        bad = {
            k: v for k, v in self.outcomes.items() if v["outcome"] in ("failed", "error", "xpassed")
        }
        lines = [f"{dict(self.counts())} in {self.seconds:.1f} s"]
        lines += [f"{k}: {v['outcome']}\n{v['message'][-1500:]}" for k, v in bad.items()]
        if not self.outcomes:
            lines.append(self.output[-5000:])
        return "\n".join(lines)


def env() -> dict[str, str]:
    return {**os.environ, "TORCH_DEVICE_BACKEND_AUTOLOAD": "0", "OPGEN_NO_NPU": "1"}


def render(proto_path: Path, destination: Path, socs: tuple[str, ...] = ()) -> Project:
    from opgen.commands import new

    the_plan, proto = new.plan(
        proto_path, destination, list(socs), None, None, None, None, False, False
    )
    new.create(the_plan, proto, dry_run=False)
    return Project(destination, the_plan.options.package, the_plan.options.namespace)


def build(project: Project) -> float:
    """Build (or rebuild: ninja recompiles what changed) the CPU extension in place."""
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=project.directory,
        capture_output=True,
        text=True,
        env=env(),
    )
    if result.returncode != 0:
        raise AssertionError(
            "building the extension failed:\n" + result.stdout[-3000:] + result.stderr[-5000:]
        )
    return time.monotonic() - start


def run_suite(
    project: Project, *pytest_args: str, python: str | None = None, timeout: float = 900
) -> Suite:
    """The project's tests/ in a child pytest (its conftest, its rootdir)."""
    outcomes_file = project.directory / ".opgen" / "test-outcomes.json"
    outcomes_file.unlink(missing_ok=True)
    child_env = env()
    child_env["OPGEN_OUTCOMES"] = str(outcomes_file)
    child_env["PYTHONPATH"] = os.pathsep.join([str(project.directory), str(HERE)])
    start = time.monotonic()
    result = subprocess.run(
        [
            python or sys.executable,
            "-m",
            "pytest",
            "tests",
            "-p",
            "outcomes_plugin",
            "-p",
            "no:cacheprovider",
            "-q",
            *pytest_args,
        ],
        cwd=project.directory,
        capture_output=True,
        text=True,
        env=child_env,
        timeout=timeout,
    )
    seconds = time.monotonic() - start
    outcomes = json.loads(outcomes_file.read_text()) if outcomes_file.is_file() else {}
    return Suite(outcomes, result.returncode, seconds, result.stdout + result.stderr)


@contextmanager
def planted(project: Project, relative: str, old: str, new: str):
    """The project with `old` replaced by `new` in one file and the extension rebuilt; restored
    (and rebuilt) afterwards."""
    path = project.directory / relative
    original = path.read_text()
    assert original.count(old) == 1, f"{relative} does not hold {old!r} exactly once"
    backup = path.with_name(path.name + ".orig")
    shutil.copy2(path, backup)
    try:
        path.write_text(original.replace(old, new))
        build(project)
        yield
    finally:
        shutil.copy2(backup, path)
        backup.unlink()
        path.touch()  # newer than the objects built from the planted version
        build(project)
