"""`opgen update`: re-render a project and bring in the changes without losing the user's work.

Per file, by its owner in the manifest written by the last `opgen new`/`opgen update`:
- a generated file the user left alone is replaced by the new rendering;
- a generated file the user edited is merged three-way with `git merge-file`: base = the pristine
  copy of the last rendering (`.opgen/pristine/`), ours = the file now, theirs = the new
  rendering. Conflicts get standard markers and make the command exit 1;
- user-owned files stand as they are, except those lowered from a compute expression (the
  compute step and tiling policy, marked render.FOLLOWS_COMPUTE_MARK): when their rendering
  changed (a new expression), they are merged the same way, keeping the user's edits;
- msopgen's files are never written;
- a file the user deleted stays deleted unless `--restore` names it; files new in the templates
  are added; generated files no longer produced are removed only when unmodified (so is the copy
  of the CPU twin, third_party/opgen_twin/, that projects of older opgens carry: the build takes
  the twin from the installed opgen now), and directories they leave empty with them.
The report says when the project was written by another opgen than the one updating it.
In a git repository the update refuses to write over uncommitted changes of the files it would
write (never over the prototype, which it only reads); `--dry-run` never refuses.
Everything is computed in memory first; writing backs up every file it replaces, so a failure
part-way restores the project as it was. An update with nothing to change writes nothing.
"""

from __future__ import annotations

import difflib
import hashlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from opgen import __version__, version_note
from opgen.commands.adopt import check_ops
from opgen.commands.new import load_prototype, template_data
from opgen.errors import BadInput
from opgen.frontend.options import Options, TemplateSource, check_template_source
from opgen.project import manifest as project_state
from opgen.project import merge
from opgen.rendering import render
from opgen.resources import templates_dir

# What happened to a file; the order is the order of the report.
ACTIONS = (
    "conflict",
    "unresolved conflict",
    "merged",
    "updated",
    "restored",
    "added",
    "removed",
    "deleted by user",
    "kept (modified, no longer produced)",
    "kept (rendering changed)",
    "kept (already there)",
    "orphaned",
    "unchanged",
)
# Actions that leave a file as it is but need the user's eye: the warning printed for each.
NOTED = {
    "unresolved conflict": "still holds the conflict markers of an earlier update; resolve them "
    "(the update leaves the file alone until then)",
    "kept (rendering changed)": "opgen's rendering of this file of yours changed (a new input, "
    "attr or signature?); yours is kept: `opgen update --diff` shows "
    "the new rendering, `--restore` takes it",
    "kept (already there)": "opgen now renders a file of this name, and yours is in the way; "
    "yours is kept (`--restore` takes opgen's)",
    "orphaned": "opgen no longer renders this file of yours (a renamed or removed op?); it is "
    "kept: delete it if it is no longer needed",
}
# Where projects of older opgens kept their copy of the CPU twin, which the build no longer reads.
OLD_TWIN_COPY = "third_party/opgen_twin/"


class UpdateError(BadInput):
    """The update cannot start (a dirty git tree): exit 2, nothing written."""


@dataclass
class FileChange:
    path: str
    action: str
    owner: str
    new_content: bytes | None = None  # what the file will hold; None: leave it / remove it
    old_content: bytes | None = None  # what it holds now (None: absent)
    executable: bool = False  # for files the update creates

    @property
    def writes(self) -> bool:
        return self.action in ("conflict", "merged", "updated", "restored", "added", "removed")

    def diff(self) -> str:
        old = (self.old_content or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.new_content or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, f"a/{self.path}", f"b/{self.path}"))


@dataclass
class Plan:
    project: Path
    options: Options
    changes: list[FileChange] = field(default_factory=list)
    manifest: dict = field(default_factory=dict)
    pristine: dict[str, bytes] = field(default_factory=dict)  # path -> new pristine content
    warnings: list[str] = field(default_factory=list)

    @property
    def conflicts(self) -> list[str]:
        return [c.path for c in self.changes if c.action in ("conflict", "unresolved conflict")]

    def as_json(self) -> dict:
        return {
            "project": str(self.project),
            "conflicts": self.conflicts,
            "files": [{"path": c.path, "action": c.action, "owner": c.owner} for c in self.changes],
            "warnings": self.warnings,
        }


# ---------------------------------------------------------------------------------------------
# planning
# ---------------------------------------------------------------------------------------------


def check_git_clean(project: Path, paths: list[str]) -> None:
    """Refuse to write over uncommitted changes to `paths` in a git repository: the update could
    not be undone with git."""
    if not paths or shutil.which("git") is None:
        return
    inside = subprocess.run(
        ["git", "-C", str(project), "rev-parse", "--is-inside-work-tree"],
        capture_output=True,
        text=True,
        check=False,
    )
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return
    status = subprocess.run(
        ["git", "-C", str(project), "status", "--porcelain", "--", *paths],
        capture_output=True,
        text=True,
        check=False,
    )
    dirty = [line[3:] for line in status.stdout.splitlines() if line.strip()]
    if dirty:
        shown = ", ".join(dirty[:8]) + (f" and {len(dirty) - 8} more" if len(dirty) > 8 else "")
        raise UpdateError(
            f"the update would write {len(dirty)} file(s) with uncommitted changes: {shown}. "
            "Commit them first (then `git checkout -- .` undoes the update), or pass "
            "--allow-dirty; --dry-run shows what would change."
        )


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def plan_update(
    project: Path,
    templates: str | None = None,
    socs: tuple[str, ...] | None = None,
    allow_dirty: bool = False,
    dry_run: bool = False,
    restore: tuple[str, ...] = (),
) -> Plan:
    """Work out every file's fate; writes nothing. `restore` names files to write anew from the
    new rendering whatever their state. Raises BadInput (ProjectError, UpdateError,
    UsageError, PrototypeError) or RenderError."""
    state = project_state.load(project)
    options, source = _options_and_source(state.options, templates, socs)

    proto_path = project / options.prototype_file
    proto = load_prototype(proto_path, options.socs)
    if options.adopted:  # its ops stay the project's own: no compute, their sources there
        check_ops(proto, project)
    data = template_data(proto, options)
    files = {f.path: f for f in render.render(proto, options, source, data)}
    old_files = state.files
    unknown = [path for path in restore if path not in files]
    if unknown:
        raise UpdateError(
            f"--restore {unknown[0]}: opgen does not render that file (give its "
            "path relative to the project, as `opgen update --dry-run` lists it)"
        )

    the_plan = Plan(project, options, warnings=list(proto.warnings) + data.warnings)
    for path in sorted(set(files) | set(old_files)):
        new = files.get(path)
        old_entry = old_files.get(path)
        owner = old_entry["owner"] if old_entry else files[path].owner  # a new file
        current = _read(project / path)
        base = state.pristine(path)
        change = FileChange(
            path, "unchanged", owner, old_content=current, executable=bool(new and new.executable)
        )
        _decide(change, new, old_entry, current, base, path in restore)
        if change.action in NOTED:
            the_plan.warnings.append(f"{path}: {NOTED[change.action]}")
        the_plan.changes.append(change)
        if new is not None and new.owner != "msopgen":
            the_plan.pristine[path] = new.content

    the_plan.warnings += _opgen_notes(state.opgen_version, the_plan.changes)
    manifest_files = _manifest_files(files, old_files, the_plan.changes)
    if not allow_dirty and not dry_run:
        check_git_clean(project, [c.path for c in the_plan.changes if c.writes])
    proto_sha = hashlib.sha256(proto_path.read_bytes()).hexdigest()
    the_plan.manifest = project_state.manifest(manifest_files, options, proto_sha)
    order = {a: i for i, a in enumerate(ACTIONS)}
    the_plan.changes.sort(key=lambda c: (order[c.action], c.path))
    return the_plan


def _opgen_notes(recorded: str, changes: list[FileChange]) -> list[str]:
    """What the update says when another opgen (`recorded`) wrote the project, and when it keeps
    edited files of the copy of the CPU twin older opgens wrote, which no build reads now."""
    notes = []
    if version_note(recorded) is not None:
        made_by = f"opgen {recorded}" if recorded else "an older opgen"
        notes.append(
            f"this project was written by {made_by}; the update regenerates it with the "
            f"installed opgen {__version__}, whose CPU twin its build uses"
        )
    kept_twin = [
        c.path
        for c in changes
        if c.path.startswith(OLD_TWIN_COPY) and c.action == "kept (modified, no longer produced)"
    ]
    if kept_twin:
        notes.append(
            f"{OLD_TWIN_COPY}: {len(kept_twin)} file(s) of the old copy of the CPU twin are "
            "edited, so they are kept, but the build no longer reads them (it takes the twin "
            "from the installed opgen): carry your changes over to opgen's twin, then delete "
            f"{OLD_TWIN_COPY}"
        )
    return notes


def _options_and_source(
    recorded: Options, templates: str | None, socs: tuple[str, ...] | None
) -> tuple[Options, TemplateSource]:
    """The recorded options with --templates and --soc applied, and the template source."""
    options = recorded
    if templates is not None:
        options = replace(options, templates=str(TemplateSource.parse(templates)))
    if socs:
        options = replace(options, socs=socs)
    source = (
        TemplateSource.parse(options.templates)
        if options.templates
        else TemplateSource(str(templates_dir()))
    )
    check_template_source(source, "--templates" if templates is not None else "template source")
    return options, source


def _manifest_files(
    files: dict[str, render.RenderedFile],
    old_files: dict[str, dict[str, str]],
    changes: list[FileChange],
) -> dict[str, dict[str, str]]:
    """The manifest's files after the update: each rendered file (a user or msopgen file stays
    theirs), and what msopgen wrote and the user files kept though no longer rendered."""
    manifest_files = {}
    for path, new in files.items():
        entry = old_files.get(path)
        owner = entry["owner"] if entry and entry["owner"] in ("user", "msopgen") else new.owner
        manifest_files[path] = {"owner": owner, "sha256": new.sha256}
    for path, entry in old_files.items():
        if path not in files and (
            entry["owner"] != "generated"
            or any(c.path == path and c.action.startswith("kept") for c in changes)
        ):
            manifest_files[path] = entry
    return manifest_files


def _decide(
    change: FileChange,
    new: render.RenderedFile | None,
    old_entry: dict | None,
    current: bytes | None,
    base: bytes | None,
    restore: bool,
) -> None:
    """One file's fate: set change.action (and new_content when the file is to be written)."""
    if current is not None and merge.has_conflict_markers(current, change.path):
        change.action = "unresolved conflict"  # markers of an earlier update are still there
    elif new is None:
        _decide_not_produced(change, current, base)
    elif restore:
        if current != new.content:
            change.action, change.new_content = "restored", new.content
    elif current is None:
        if old_entry is None:
            change.action, change.new_content = "added", new.content
        else:
            change.action = "deleted by user"  # a deleted one stays deleted
    elif old_entry is None:  # new in the templates, and a file is in the way
        if current == new.content:
            pass
        elif new.owner == "user":  # a file of the user's where opgen now puts one of its own
            change.action, change.new_content = "kept (already there)", new.content
        else:
            _merge(change, current, b"", new.content)
    elif change.owner != "msopgen":
        _decide_tracked(change, new.content, current, base)


def _decide_not_produced(change: FileChange, current: bytes | None, base: bytes | None) -> None:
    """A file the templates no longer produce."""
    if current is None:
        return
    if change.owner == "generated":
        change.action = "removed" if current == base else "kept (modified, no longer produced)"
    elif change.owner == "user":
        change.action = "orphaned"


def _decide_tracked(change: FileChange, theirs: bytes, current: bytes, base: bytes | None) -> None:
    """A file the last rendering wrote, there now, rendered as `theirs`."""
    owner = change.owner
    if current == theirs:
        pass
    elif (
        owner == "user"
        and base is not None
        and theirs != base
        and not render.follows_compute(theirs)
    ):
        # opgen's rendering changed (a new input, a renamed op): the user's version stands, and
        # the new one is shown with --diff
        change.action, change.new_content = "kept (rendering changed)", theirs
    elif owner == "user" and (base is None or theirs == base):
        pass  # the user's version stands as it is
    elif base is None:  # no record of the last rendering: whose lines are whose is unknown
        _merge(change, current, b"", theirs)
    elif current == base:
        change.action, change.new_content = "updated", theirs
    elif theirs == base:
        pass  # only the user changed it: keep their version
    else:
        _merge(change, current, base, theirs)


def _merge(change: FileChange, current: bytes, base: bytes, theirs: bytes) -> None:
    merged, conflict = merge.three_way(current, base, theirs, change.path)
    change.action = "conflict" if conflict else "merged"
    change.new_content = merged


# ---------------------------------------------------------------------------------------------
# applying
# ---------------------------------------------------------------------------------------------


def _pending_writes(the_plan: Plan) -> tuple[dict[Path, bytes | None], set[Path]]:
    """Every file write the update needs (None: delete), skipping identical content, and the
    files to make executable."""
    project = the_plan.project
    writes: dict[Path, bytes | None] = {}
    executable = set()
    for change in the_plan.changes:
        if change.writes:
            writes[project / change.path] = change.new_content
            if change.executable:
                executable.add(project / change.path)
    for path, content in the_plan.pristine.items():
        target = project / project_state.PRISTINE / path
        if _read(target) != content:
            writes[target] = content
    for change in the_plan.changes:  # the records of files the manifest no longer lists
        pristine = project / project_state.PRISTINE / change.path
        if change.path not in the_plan.manifest["files"] and pristine.is_file():
            writes[pristine] = None
    manifest_text = project_state.manifest_text(the_plan.manifest).encode()
    if _read(project / project_state.MANIFEST) != manifest_text:
        writes[project / project_state.MANIFEST] = manifest_text
    return writes, executable


def clean_leftovers(project: Path) -> None:
    """Remove what an update killed outright (SIGKILL) left: its backup directory and staged
    files. Its project files and state are consistent already (state is written last)."""
    for stale in project.glob(".opgen-update-*"):
        shutil.rmtree(stale, ignore_errors=True)
    for stale in project.rglob(".*.opgen-new"):
        stale.unlink(missing_ok=True)


def apply(the_plan: Plan) -> int:
    """Write the plan; return the number of files written. Restores everything on failure."""
    clean_leftovers(the_plan.project)
    writes, executable = _pending_writes(the_plan)
    if not writes:
        return 0
    backup = Path(tempfile.mkdtemp(prefix=".opgen-update-", dir=the_plan.project))
    saved: list[tuple[Path, Path | None]] = []
    staged: Path | None = None
    try:
        # The project's files first, opgen's state (pristine copies, then the manifest) last:
        # an update killed part-way leaves the old state, and the next update completes it.
        def order(item: tuple[Path, bytes | None]) -> tuple[int, Path]:
            target = item[0]
            rank = (
                2
                if target == the_plan.project / project_state.MANIFEST
                else int(project_state.STATE_DIR in target.relative_to(the_plan.project).parts[:1])
            )
            return rank, target

        for i, (target, content) in enumerate(sorted(writes.items(), key=order)):
            previous = None
            if target.exists():
                previous = backup / str(i)
                shutil.copy2(target, previous)
            saved.append((target, previous))
            if content is None:
                target.unlink(missing_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            staged = target.with_name(f".{target.name}.opgen-new")
            staged.write_bytes(content)
            if previous is not None:
                shutil.copymode(previous, staged)
            elif target in executable:
                staged.chmod(0o755)
            staged.replace(target)
            staged = None
    except BaseException:
        if staged is not None:
            staged.unlink(missing_ok=True)
        for target, previous in reversed(saved):
            if previous is None:
                target.unlink(missing_ok=True)
            else:
                shutil.copy2(previous, target)
        raise
    finally:
        shutil.rmtree(backup, ignore_errors=True)
    _remove_empty_directories(the_plan.project, [t for t, c in writes.items() if c is None])
    return len(writes)


def _remove_empty_directories(project: Path, removed: list[Path]) -> None:
    """The directories the removed files leave empty (the project's and the pristine copy's),
    up to the project's root: a removed op or the old copy of the twin leaves no empty tree."""
    for target in sorted(removed, key=lambda p: len(p.parts), reverse=True):
        directory = target.parent
        while directory != project and project in directory.parents:
            try:
                directory.rmdir()  # only when empty
            except OSError:
                break
            directory = directory.parent
