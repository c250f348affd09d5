"""`opgen adopt` on a corpus of public hand-written msopgen projects, each on the CPU twin with
our golden (not part of the suite).

    nice -n 10 .venv/bin/python bench/adopt_corpus.py [--out DIR] [--jobs N] [--timeout S]
        [--keep-installed] [ID ...]

tests/data/adopt_corpus/SOURCES.tsv lists the projects (repository, commit, the project's path,
licence, a note on the test shapes);
tests/data/adopt_corpus/<ID>.json is OUR prototype of each: the OpDef's tensors and attrs (read
with opgen's OpDef reader) and an `"opgen"` block with a golden we wrote and test_shapes the
project's own TilingFunc and kernel support. None of the projects' code is committed: each is
materialized at its recorded commit from the local bare mirror /work/.mirror/<owner>+<repo>/repo
(what the session's `fetch` tool brings; a script cannot fetch, so a missing mirror is reported
and the project skipped) into DIR/ac_<id>/, then

    python -m opgen adopt DIR/ac_<id> --prototype tests/data/adopt_corpus/<ID>.json --json

(the SoCs from the OpDef's AddConfig, Atlas A2 first, the twin emulating the first) builds the
PyTorch extension (their op_host and op_kernel compiled against the twin) and
runs the generated tests (PYTEST_ADDOPTS=-rA, so each test's verdict is in .opgen/logs/test.log).
One line per project goes to stdout and DIR/results.tsv: adopt's exit code, whether the
extension built, the tests passed/failed/errored, the precision tests passed/failed, the
seconds, the first error line (the compiler's first `error:`, else the first failing test's)
and the names the compiler said are missing (an Ascend C API, a header, a namespace).
`opgen adopt` installs each project's package editable into this Python; the script uninstalls
it after the tests (--keep-installed keeps it). --jobs runs that many projects at once (default
1); a project still running after --timeout seconds (default 900) is stopped and recorded as a
timeout.

Figures (from abc4562 to b95c653, all 41, --jobs 2, with the twin's pipe check on): all 41 build; 24
pass every precision case and 22 every test; LpNormV2Custom (which passed every precision case
before) and Hypot race, each traced to its line in VERDICTS.tsv. Earlier figures (at 5864933, all
40, --jobs 2, 33 to 73 s a project; the four Matmul projects again, and Heaviside added, at 00181e7,
when the twin ran mixed kernels' AIC and had CompareScalar: the same verdicts, Heaviside passing
every test, 172 s under a load of 12): all 40 build on the twin; 24 pass every precision case, 21
every generated test (LpNormV2Custom, MatMulSub and ArgMaxWithValue have an InferShape that
disagrees with torch or sets nothing, which their own test reports; the twin sizes an adopted op's
outputs by the fake kernel, as an aclnn call's caller does). The other 16 fail on the project's own
bug, each traced; none on the twin. Each project's figures and verdict are in
tests/data/adopt_corpus/VERDICTS.tsv. At 3b01c09, before the twin took CANN's MultiCoreMatmulTiling
split, SyncAll, ReduceMax with calIndex, a 32-bit bit mask as one word and SIGFPE in host code, and
before "defined" parts, 20 passed. At 952d804, before the twin took the NPU build's leniencies
(ASSERT, __CCE_KT_TEST__, reads and writes past SetGlobalBuffer's size, Int attrs read as uint32_t,
InferShape's AppendDim, the first SoC's cores and UB) and the missing APIs
(WholeReduce*/BlockReduce*, the mask register, ShiftLeft/ShiftRight, Sort32, GatherMask, Copy,
Broadcast, LocalTensor operators, the elementwise frame), 21 built and 11 passed."""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "adopt_corpus"
MIRRORS = Path("/work/.mirror")
COLUMNS = [
    "id",
    "adopt_exit",
    "built",
    "passed",
    "failed",
    "errors",
    "precision_passed",
    "precision_failed",
    "seconds",
    "first_error",
    "missing",
]
# compiler errors that name something the twin lacks (an Ascend C API, a header, a namespace)
MISSING = [
    (re.compile(r"error: ‘(\w+)’ is not a member of ‘(AscendC|ge|platform_ascendc)’"), "{1}::{0}"),
    (re.compile(r"error: ‘(\w+)’ (?:in namespace ‘AscendC’ )?does not name a type"), "{0}"),
    (re.compile(r"error: ‘(\w+)’ is not a namespace-name"), "namespace {0}"),
    (re.compile(r"fatal error: ([\w/.]+): No such file or directory"), "#include {0}"),
    (
        re.compile(
            r"error: no match for ‘(operator\S+)’ \(operand types are ‘AscendC::LocalTensor"
        ),
        "LocalTensor {0}",
    ),
    (re.compile(r"error: there are no arguments to ‘(\w+)’"), "{0} (unqualified)"),
    (re.compile(r"error: ‘(\w+)’ is not a member of ‘std’"), "std::{0} (header)"),
    (re.compile(r"error: ‘([A-Z]\w*)’ was not declared in this scope"), "{0} (undeclared)"),
]


def sources() -> list[dict]:
    with (CORPUS / "SOURCES.tsv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def mirror(repo: str) -> Path:
    return MIRRORS / repo.replace("/", "+") / "repo"


def materialize(repo: str, commit: str, path: str, dest: Path) -> str | None:
    """The project's files at `commit` under `dest`; None, or why it could not."""
    git_dir = mirror(repo)
    if not git_dir.is_dir():
        return f"no mirror {git_dir} (fetch github:{repo} in a session first)"
    git = ["git", f"--git-dir={git_dir}"]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "-z", commit, "--", path + "/"], capture_output=True
    )
    if listing.returncode:
        return f"git ls-tree: {listing.stderr.decode(errors='replace').strip()}"
    dest.mkdir(parents=True)
    for entry in filter(None, listing.stdout.decode().split("\0")):
        meta, name = entry.split("\t", 1)
        _mode, kind, sha = meta.split()
        if kind != "blob":
            continue
        blob = subprocess.run([*git, "cat-file", "blob", sha], capture_output=True)
        if blob.returncode:  # a file the snapshot lacks (4 MiB and more): not a source file
            continue
        target = dest / Path(name).relative_to(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.stdout)
    return None


def uninstall(project: Path) -> None:
    """Uninstall the package `opgen adopt` installed editable from `project`, if it got that far."""
    manifest = project / ".opgen" / "manifest.json"
    if not manifest.is_file():
        return
    package = json.loads(manifest.read_text(encoding="utf-8"))["options"]["package"]
    pip = [sys.executable, "-m", "pip", "uninstall", "-y", "--disable-pip-version-check", package]
    subprocess.run(pip, capture_output=True, check=False)


def first_error(project: Path, adopt_output: str) -> str:
    """The compiler's first error, else the first failing test's line, else adopt's own."""
    logs = project / ".opgen" / "logs"
    build = logs / "build_extension.log"
    if build.is_file():
        for line in build.read_text(errors="replace").splitlines():
            if re.search(r"\berror\b", line) and not line.lstrip().startswith("ninja"):
                return line.strip()
    test = logs / "test.log"
    if test.is_file():
        lines = test.read_text(errors="replace").splitlines()
        for line in lines:
            if line.startswith(("FAILED ", "ERROR ")):
                return line.strip()
        for line in lines:
            if line.startswith("E "):
                return line.strip()
    try:  # adopt refused the project or the prototype (exit 2): its JSON names why
        return "; ".join(e["message"] for e in json.loads(adopt_output)["errors"])
    except (json.JSONDecodeError, KeyError, TypeError):
        pass
    return adopt_output.strip().splitlines()[-1] if adopt_output.strip() else ""


def missing(project: Path) -> str:
    """The names the build's errors say are missing, by first appearance: ' | '-joined."""
    build = project / ".opgen" / "logs" / "build_extension.log"
    if not build.is_file():
        return ""
    names: list[str] = []
    for line in build.read_text(errors="replace").splitlines():
        for pattern, form in MISSING:
            m = pattern.search(line)
            if m:
                name = form.format(*m.groups())
                if name not in names:
                    names.append(name)
                break
    return " | ".join(names)


def verdicts(project: Path) -> dict[str, int]:
    """Counts of the test verdicts pytest -rA wrote to test.log."""
    counts = dict.fromkeys(
        ["passed", "failed", "errors", "precision_passed", "precision_failed"], 0
    )
    test = project / ".opgen" / "logs" / "test.log"
    if not test.is_file():
        return counts
    for line in test.read_text(errors="replace").splitlines():
        m = re.match(r"(PASSED|FAILED|ERROR|XPASS|XFAIL) \S+::(\w+)", line)
        if not m:
            continue
        verdict, name = m.groups()
        key = {"PASSED": "passed", "FAILED": "failed", "ERROR": "errors"}.get(verdict)
        if key is None:
            continue
        counts[key] += 1
        if name.startswith("test_precision") and key != "errors":
            counts[f"precision_{key}"] += 1
    return counts


def built(adopt_output: str) -> bool:
    """The step 'build PyTorch extension' passed, from adopt's --json report."""
    try:
        report = json.loads(adopt_output)
    except json.JSONDecodeError:
        return False
    steps = report.get("build", {}).get("steps", [])
    return any(s["step"] == "build PyTorch extension" and s["status"] == "passed" for s in steps)


def run_one(row: dict, out: Path, env: dict, timeout: float, keep: bool) -> dict:
    """Materialize, adopt (build and test) and uninstall one project; its results.tsv record."""
    pid = row["file"].removesuffix(".json")
    # the directory names the package: ac_<id> keeps it a fresh identifier per project
    project = out / ("ac_" + re.sub(r"[^0-9a-zA-Z]+", "_", pid).lower())
    if project.exists():
        uninstall(project)
        shutil.rmtree(project)
    record = dict.fromkeys(COLUMNS, "")
    record["id"] = pid
    start = time.monotonic()
    why = materialize(row["repo"], row["commit"], row["path"], project)
    if why is not None:
        record.update(adopt_exit="skipped", first_error=why)
        return record
    cmd = [
        sys.executable,
        "-m",
        "opgen",
        "adopt",
        str(project),
        "--prototype",
        str(CORPUS / row["file"]),
        "--json",
    ]
    try:
        run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        code, output = run.returncode, run.stdout + run.stderr
        stdout = run.stdout
    except subprocess.TimeoutExpired as exc:
        code = "timeout"
        stdout = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else ""
        output = stdout
    (out / f"{pid}.log").write_text(output, encoding="utf-8")
    # the tests ran only if the extension built (a timeout leaves no JSON report)
    tested = (project / ".opgen" / "logs" / "test.log").is_file()
    record.update(
        adopt_exit=code,
        built="yes" if built(stdout) or tested else "no",
        **verdicts(project),
        seconds=f"{time.monotonic() - start:.0f}",
        first_error="" if code == 0 else first_error(project, output)[:300],
        missing=missing(project),
    )
    if not keep:
        uninstall(project)
    return record


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--out", type=Path, default=Path("/tmp/adopt_corpus"))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--keep-installed", action="store_true")
    args = parser.parse_args()
    rows = [r for r in sources() if not args.ids or r["file"].removesuffix(".json") in args.ids]
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTEST_ADDOPTS="-rA")
    results = args.out / "results.tsv"
    if not results.exists():
        results.write_text("\t".join(COLUMNS) + "\n", encoding="utf-8")
    failed = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [
            pool.submit(run_one, row, args.out, env, args.timeout, args.keep_installed)
            for row in rows
        ]
        for future in as_completed(futures):
            record = future.result()
            line = "\t".join(str(record[c]).replace("\t", " ") for c in COLUMNS)
            print(line, flush=True)
            with results.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
            failed += record["adopt_exit"] != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
