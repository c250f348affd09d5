"""Three-way merges of a file with `git merge-file`, and the conflict markers they leave."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

# The labels of a conflict's three sides, after the file's path.
OURS, BASE, THEIRS = "(yours)", "(last opgen rendering)", "(new opgen rendering)"


def three_way(ours: bytes, base: bytes, theirs: bytes, path: str) -> tuple[bytes, bool]:
    """Merge `theirs` into `ours` from `base`; returns (result, had_conflicts)."""
    with tempfile.TemporaryDirectory(prefix="opgen-merge-") as tmp:
        files = []
        for name, content in (("ours", ours), ("base", base), ("theirs", theirs)):
            p = Path(tmp) / name
            p.write_bytes(content)
            files.append(str(p))
        labels = [arg for label in (OURS, BASE, THEIRS) for arg in ("-L", f"{path} {label}")]
        proc = subprocess.run(
            ["git", "merge-file", "-p", *labels, *files], capture_output=True, check=False
        )
    if proc.returncode < 0 or proc.returncode > 127:
        raise RuntimeError(f"git merge-file failed on {path}: {proc.stderr.decode()}")
    return proc.stdout, proc.returncode > 0


def has_conflict_markers(content: bytes, path: str) -> bool:
    """Whether `content` still holds the conflict markers a merge of `path` wrote into it."""
    return (
        f"<<<<<<< {path} {OURS}".encode() in content
        and f">>>>>>> {path} {THEIRS}".encode() in content
    )
