"""Record where asc-devkit declares the Ascend C names opgen's matmul_op templates use (not part
of the suite; needs a local copy of the asc-devkit repository).

    .venv/bin/python bench/asc_devkit_names.py GIT_DIR [--commit REF]

GIT_DIR is a clone (or the `fetch` tool's mirror) of github.com/mirror-cann/asc-devkit. The
script renders the matmul ops of tests/data/e2e/matmul.json, collects the names their kernel,
tiling and host files use from the Ascend C / Matmul / matmul_tiling / platform APIs (qualified
names, member calls, the kernel macros) and writes tests/data/asc_devkit_names.tsv: each name,
one header of asc-devkit's include/ or impl/ where it occurs as a word, and the commit searched.
tests/test_matmul_ops.py checks that every such name the templates use is listed there, so a name
the headers do not have (a misspelling from a blog post) fails the suite.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from api_names import TABLE, used_names  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("git_dir", type=Path)
    parser.add_argument("--commit", default="HEAD")
    args = parser.parse_args()
    git = ["git", "--git-dir", str(args.git_dir)]
    commit = subprocess.run(
        [*git, "rev-parse", args.commit], capture_output=True, text=True, check=True
    ).stdout.strip()
    rows, missing = [], []
    for name in sorted(used_names()):
        found = subprocess.run(
            [*git, "grep", "-l", "-w", "-F", name, commit, "--", "include", "impl"],
            capture_output=True,
            text=True,
        ).stdout.split()
        # the public headers (include/) first
        paths = (f.split(":", 1)[1] for f in found if f.endswith(".h"))
        headers = sorted(paths, key=lambda path: (not path.startswith("include/"), path))
        if headers:
            rows.append(f"{name}\t{headers[0]}")
        else:
            missing.append(name)
    lines = [f"# asc-devkit {commit}: name, a header with it as a word (bench/asc_devkit_names.py)"]
    TABLE.write_text("\n".join(lines + rows) + "\n", encoding="utf-8")
    print(f"wrote {TABLE.relative_to(ROOT)}: {len(rows)} names")
    if missing:
        print("not in asc-devkit's headers: " + ", ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
