"""List the Ascend C basic-API functions the adopt corpus's kernels call (not part of the suite;
needs the corpus's mirrors and a local copy of asc-devkit).

    .venv/bin/python bench/corpus_api_names.py ASC_DEVKIT_GIT_DIR [--commit REF]

The basic API is every function asc-devkit declares in include/basic_api/ (namespace AscendC, the
names of `__aicore__ inline` functions) plus printf/PRINTF (include/utils/debug/asc_printf.h,
brought by kernel_operator.h). For each project of tests/data/adopt_corpus/SOURCES.tsv whose mirror
/work/.mirror/<owner>+<repo>/repo is present (bench/adopt_corpus.py's convention), the script reads
the project's op_kernel sources at the recorded commit, strips comments and string literals, and
counts the calls `Name(` / `Name<...>(` of those functions that are not calls on an object and not
of a function the project defines itself (a kernel class's CopyIn/Compute/Process). It writes
tests/data/corpus_basic_api_names.tsv: each name, the projects calling it, the call sites, and a
header line with the commits read. tests/twin/test_api_coverage.py checks that the twin declares
every name listed. No project's code is written anywhere.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from adopt_corpus import mirror, sources  # noqa: E402

OUT = ROOT / "tests" / "data" / "corpus_basic_api_names.tsv"
# a free function: declared at column 0 (members of the API's classes are indented)
DECL = re.compile(r"^__aicore__\s+(?:static\s+)?inline\s+[\w:<>,\s*&]*?\b([A-Z]\w*)\s*\(", re.M)
# a call not on an object (`x.Name(`, `p->Name(` are member calls)
CALL = re.compile(r"(?<![.>\w])\s*\b([A-Za-z_]\w*)\s*(?:<[^;(){}]*>)?\s*\(")
# the project's own functions (a kernel class's CopyIn/Compute/Process share names with the API's)
DEFINED = re.compile(r"\b(?:void|bool|auto|float|half|int\w*|uint\w*)\s+([A-Za-z_]\w*)\s*\(")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')
DEBUG_NAMES = {"printf", "PRINTF"}


def git(git_dir: Path, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=True
    ).stdout


def basic_api_names(asc: Path, commit: str) -> set[str]:
    names = set(DEBUG_NAMES)
    for path in git(
        asc, "ls-tree", "-r", "--name-only", commit, "--", "include/basic_api/"
    ).split():
        if path.endswith(".h"):
            names |= set(DECL.findall(git(asc, "show", f"{commit}:{path}")))
    return names


def kernel_sources(repo: str, commit: str, path: str) -> list[str]:
    git_dir = mirror(repo)
    listing = git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", path + "/")
    files = [
        f
        for f in listing.splitlines()
        if "/op_kernel/" in f"/{f[len(path) :]}" and f.endswith((".cpp", ".h", ".hpp", ".cc"))
    ]
    return [git(git_dir, "show", f"{commit}:{f}") for f in files]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("asc_devkit", type=Path)
    parser.add_argument("--commit", default="HEAD")
    args = parser.parse_args()
    asc_commit = git(args.asc_devkit, "rev-parse", args.commit).strip()
    api = basic_api_names(args.asc_devkit, asc_commit)
    projects, sites = Counter(), Counter()
    read, skipped = [], []
    for row in sources():
        if not mirror(row["repo"]).is_dir():
            skipped.append(row["file"])
            continue
        called, own = Counter(), set()
        for text in kernel_sources(row["repo"], row["commit"], row["path"]):
            text = STRING.sub('""', COMMENT.sub(" ", text))
            called.update(n for n in CALL.findall(text) if n in api)
            own |= set(DEFINED.findall(text))
        called = Counter({n: c for n, c in called.items() if n not in own})
        projects.update(called.keys())
        sites.update(called)
        read.append(f"{row['repo']}@{row['commit'][:10]}:{row['path']}")
    lines = [
        "# basic-API functions the adopt corpus's kernels call (bench/corpus_api_names.py): "
        f"asc-devkit {asc_commit}; {len(read)} projects read, {len(skipped)} without a mirror "
        f"({', '.join(skipped) or 'none'})",
        "# name\tprojects\tcall sites",
    ]
    lines += [f"{n}\t{projects[n]}\t{sites[n]}" for n in sorted(projects)]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(projects)} names from {len(read)} projects -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
