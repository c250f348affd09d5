"""Record where asc-devkit declares the Ascend C names opgen's matmul_op templates use, in every
CANN release opgen supports, and which API names asc-devkit has renamed (not part of the suite;
needs a local copy of the asc-devkit repository).

    .venv/bin/python bench/asc_devkit_names.py GIT_DIR [--commit REF ...]

GIT_DIR is a clone (or the `fetch` tool's mirror) of github.com/mirror-cann/asc-devkit. Each
`--commit` is a release to search (default: the tags of the CANN releases opgen supports, 9.0.0
and 9.0.1, and HEAD, the newest; the last one given is the newest). The script renders the
matmul ops of tests/data/e2e/matmul.json, collects the names their kernel, tiling and host files
use from the Ascend C / Matmul / matmul_tiling / platform APIs (qualified names, member calls,
the kernel macros) and writes tests/data/asc_devkit_names.tsv: each name found in every release,
one header of the newest's include/ or impl/ where it occurs as a word, and the commits searched.
tests/test_matmul_ops.py checks that every such name the templates use is listed there, so a name
the headers do not have (a misspelling from a blog post), or one a supported release lacks, fails
the suite.

It also writes tests/data/asc_devkit_renamed.tsv from the newest release's API change table
(docs/zh/api/附录/接口变更说明.md): each old name whose new name every release searched declares
in include/.
tests/test_asc_devkit_names.py checks that opgen's templates and compiler use none of them (the
old name may log a deprecation, or go).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from api_names import RENAMED, TABLE, used_names  # noqa: E402

RELEASES = ["v9.0.0", "v9.0.1", "HEAD"]
SCRIPT = "bench/asc_devkit_names.py"
CHANGES = "docs/zh/api/附录/接口变更说明.md"
# a table row: | Old / Old2 | [New](link)/[New2](link) | note |
CHANGE_ROW = re.compile(r"^\|([^|\[]+)\|\s*\[([A-Za-z_]\w*)")


def git(git_dir: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True
    ).stdout


def headers_with(git_dir: Path, name: str, commit: str) -> list[str]:
    """The headers of include/ and impl/ at `commit` holding `name` as a word, include/ first."""
    found = git(git_dir, "grep", "-l", "-w", "-F", name, commit, "--", "include", "impl").split()
    paths = (f.split(":", 1)[1] for f in found if f.endswith(".h"))
    return sorted(paths, key=lambda path: (not path.startswith("include/"), path))


def has_public(git_dir: Path, name: str, commit: str) -> bool:
    """Whether `commit` declares `name` in a public header (include/), not counting the register
    API's (include/basic_api/reg_compute/: 9.0.0 has a ReduceDataBlock there, not the one 9.1.0
    gave BlockReduceSum's name)."""
    paths = headers_with(git_dir, name, commit)
    return any(p.startswith("include/") and "/reg_compute/" not in p for p in paths)


def renamed(git_dir: Path, commits: list[str]) -> list[tuple[str, str]]:
    """(old, new) from the newest release's change table, where every release has the new."""
    rows = []
    for line in git(git_dir, "show", f"{commits[-1]}:{CHANGES}").splitlines():
        if not (match := CHANGE_ROW.match(line)):
            continue
        new = match.group(2)
        if not all(has_public(git_dir, new, c) for c in commits):
            continue  # an old name kept: some release lacks the new one
        olds = (old.strip() for old in match.group(1).split("/"))
        rows += [(old, new) for old in olds if old and old != new]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("git_dir", type=Path)
    parser.add_argument("--commit", action="append", help="a release to search (repeatable)")
    args = parser.parse_args()
    refs = args.commit or RELEASES
    commits = [git(args.git_dir, "rev-parse", ref).strip() for ref in refs]
    rows, missing = [], []
    for name in sorted(used_names()):
        found = [headers_with(args.git_dir, name, c) for c in commits]
        if all(found):
            rows.append(f"{name}\t{found[-1][0]}")
        else:
            lacking = [r for r, f in zip(refs, found, strict=True) if not f]
            missing.append(f"{name} ({', '.join(lacking)})")
    searched = ", ".join(f"{r} {c}" for r, c in zip(refs, commits, strict=True))
    lines = [f"# asc-devkit {searched}: name, a header with it as a word ({SCRIPT})"]
    TABLE.write_text("\n".join(lines + rows) + "\n", encoding="utf-8")
    pairs = renamed(args.git_dir, commits)
    head = f"# asc-devkit {searched}, {CHANGES}: old name, new name ({SCRIPT})"
    RENAMED.write_text("\n".join([head] + [f"{o}\t{n}" for o, n in pairs]) + "\n", "utf-8")
    print(f"wrote {TABLE.relative_to(ROOT)}: {len(rows)} names")
    print(f"wrote {RENAMED.relative_to(ROOT)}: {len(pairs)} renamed names")
    if missing:
        print("not in asc-devkit's headers: " + ", ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
