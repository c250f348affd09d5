"""A generated project on disk: its state under `.opgen/` (the manifest with the options and
every file's owner and hash, and the pristine copy of the last rendering), read and written in
one place, so every command reports a missing or damaged state the same way."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opgen import __version__
from opgen.errors import BadInput
from opgen.frontend.options import Options

if TYPE_CHECKING:
    from opgen.rendering.render import RenderedFile

STATE_DIR = ".opgen"  # manifest, options and the pristine copy of the last rendering
MANIFEST = f"{STATE_DIR}/manifest.json"
PRISTINE = f"{STATE_DIR}/pristine"
LOG_DIR = f"{STATE_DIR}/logs"
OWNERS = ("generated", "user", "msopgen")


class ProjectError(BadInput):
    """The directory is not an opgen project, or its `.opgen/` state is damaged: exit 2."""


@contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on `directory` (which need not exist yet) while opgen writes it:
    a second opgen writing the same project fails at once instead of mixing two projects."""
    import fcntl

    lock_path = directory.parent / f".{directory.name}.opgen-lock"
    directory.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ProjectError(
                f"another opgen is writing {directory}; wait for it to finish"
            ) from None
        try:
            yield
        finally:
            lock_path.unlink(missing_ok=True)
            fcntl.flock(lock, fcntl.LOCK_UN)


@dataclass(frozen=True)
class ProjectState:
    """What `.opgen/manifest.json` records."""

    root: Path
    options: Options
    files: dict[str, dict[str, str]]  # path -> {"owner": ..., "sha256": ...}
    prototype_sha256: str
    opgen_version: str = ""  # the opgen that last wrote it ("": one older than the record)

    @property
    def prototype_path(self) -> Path:
        return self.root / self.options.prototype_file

    def pristine(self, path: str) -> bytes | None:
        """The last rendering of a file, as opgen wrote it; None when there is none or it is not
        what the manifest recorded (damaged): then no merge can trust it as the base."""
        target = self.root / PRISTINE / path
        if not target.is_file():
            return None
        content = target.read_bytes()
        recorded = self.files.get(path, {}).get("sha256")
        return content if recorded == hashlib.sha256(content).hexdigest() else None


def load(root: Path) -> ProjectState:
    """Read a project's state; ProjectError (with what to do) when it is missing or damaged."""
    path = root / MANIFEST
    if not path.is_file():
        raise ProjectError(
            f"{root} is not an opgen project (no {MANIFEST}); create one with "
            "`opgen new PROTOTYPE -o DIR`"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f", line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise ProjectError(
            f"{path} is damaged (not JSON{where}); restore it from version "
            "control or re-create the project with `opgen new`"
        ) from None
    except OSError as exc:
        raise ProjectError(f"{path} cannot be read ({exc.strerror})") from None
    try:
        if not isinstance(data, dict):
            raise ValueError("not an object")
        options = Options.from_json(data.get("options"))
        files = data.get("files")
        if not isinstance(files, dict) or not all(
            isinstance(e, dict) and e.get("owner") in OWNERS for e in files.values()
        ):
            raise ValueError("'files' is not a map of paths to owners")
        sha = data.get("prototype_sha256", "")
        version = data.get("opgen_version", "")
    except ValueError as exc:
        raise ProjectError(
            f"{path} is damaged ({exc}); restore it from version control or "
            "re-create the project with `opgen new`"
        ) from None
    return ProjectState(
        root,
        options,
        files,
        sha if isinstance(sha, str) else "",
        version if isinstance(version, str) else "",
    )


def manifest(
    files: dict[str, dict[str, str]], options: Options, prototype_sha: str
) -> dict[str, Any]:
    return {
        "opgen_version": __version__,
        "options": options.as_json(),
        "prototype_sha256": prototype_sha,
        "files": files,
    }


def manifest_text(manifest_data: dict[str, Any]) -> str:
    return json.dumps(manifest_data, indent=2, sort_keys=True) + "\n"


def write_new(
    directory: Path, files: list[RenderedFile], prototype_text: bytes, options: Options
) -> None:
    """Write a new project into `directory`: the files, the prototype copy, the manifest and
    the pristine copies."""
    for f in files:
        target = directory / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(f.content)
        if f.executable:
            target.chmod(0o755)
        if f.owner != "msopgen":
            pristine = directory / PRISTINE / f.path
            pristine.parent.mkdir(parents=True, exist_ok=True)
            pristine.write_bytes(f.content)
    (directory / options.prototype_file).write_bytes(prototype_text)
    sha = hashlib.sha256(prototype_text).hexdigest()
    entries = {f.path: {"owner": f.owner, "sha256": f.sha256} for f in files}
    (directory / MANIFEST).write_text(manifest_text(manifest(entries, options, sha)))
