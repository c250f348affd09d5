"""`opgen adopt`: an existing, hand-written msopgen project gains what opgen generates for an op
it does not compute (the PyTorch package with its CPU twin adapter, the tests, the bench, the
`.opgen` state), around the project's own op_host/ and op_kernel/ files, which stay as they are
and are never written: `opgen update` re-renders only opgen's files."""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from opgen.compiler import checks
from opgen.errors import ActionError, UsageError
from opgen.frontend import prototype
from opgen.frontend.opdef_source import OpDefSourceError, prototype_from_opdef, target_socs
from opgen.frontend.options import (
    Options,
    check_namespace,
    check_package,
    package_name,
    resolve_socs,
    safe_file_name,
)
from opgen.frontend.problems import Problem, PrototypeError, key_path
from opgen.planning import ProjectData
from opgen.project import manifest as project_state
from opgen.rendering import render
from opgen.resources import templates_dir

from .new import Result, move_into_place, template_data

SOURCE_DIRS = ("op_host", "op_kernel")
OWN = "the project's own"  # who wrote the CANN skeleton, as the summary says


@dataclass
class AdoptPlan:
    directory: Path
    prototype_text: bytes
    options: Options
    data: ProjectData
    warnings: list[str] = field(default_factory=list)


def plan(
    directory: Path,
    proto_path: Path | None,
    socs: list[str],
    package: str | None,
    namespace: str | None,
) -> tuple[AdoptPlan, prototype.Prototype]:
    """Check the project and the prototype before anything is written; raise UsageError or
    PrototypeError (exit 2)."""
    _check_project(directory)
    soc_names, warnings = resolve_socs(socs or _registered_socs(directory))
    if proto_path is not None:
        text = _read(proto_path)
        file_name = safe_file_name(proto_path.name)
    else:
        text = json.dumps(_opdef_prototype(directory), indent=2) + "\n"
        file_name = "opgen_prototype.json"
        warnings.append(
            f"no --prototype: the ops come from the OpDef in {directory / 'op_host'}, without a "
            "golden, so the tests cannot check values; give a prototype with "
            '"opgen": {"golden": ..., "test_shapes": ...} for them'
        )
    proto = prototype.loads(text, source=str(proto_path or directory / "op_host"))
    check_ops(proto, directory)
    existing = directory / file_name
    if existing.exists() and existing.read_text(encoding="utf-8", errors="replace") != text:
        raise UsageError(f"{existing} exists and is not the prototype; move it away first")
    chosen = package is not None
    if package is not None:
        check_namespace(package, "package")
    package = package or package_name(directory.resolve())
    check_package(package, directory, chosen)
    namespace = namespace or package
    check_namespace(namespace)
    options = Options(package, namespace, package, soc_names, file_name, adopted=True)
    checks.check(proto, options)
    data = template_data(proto, options)
    warnings += list(proto.warnings) + data.warnings
    return AdoptPlan(directory, text.encode(), options, data, warnings), proto


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"--prototype {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--prototype {path}: cannot read it ({exc})") from None


def _check_project(directory: Path) -> None:
    """An msopgen project: op_host/*.cpp and op_kernel/*.cpp, not yet an opgen project."""
    if not directory.is_dir():
        raise UsageError(f"{directory}: no such directory")
    if (directory / project_state.MANIFEST).exists():
        raise UsageError(f"{directory} is an opgen project already: opgen update re-renders it")
    for sub in SOURCE_DIRS:
        if not list((directory / sub).glob("*.cpp")):
            raise UsageError(
                f"{directory} is not an msopgen project: {sub}/ holds no .cpp file "
                "(adopt takes a project with op_host/<op>.cpp and op_kernel/<op>.cpp)"
            )


def _registered_socs(directory: Path) -> list[str]:
    """The SoCs the project's OpDefs register (AddConfig), when --soc gives none."""
    texts = (p.read_text(encoding="utf-8", errors="replace") for p in _host_sources(directory))
    return target_socs("\n".join(texts))


def _host_sources(directory: Path) -> list[Path]:
    return sorted((directory / "op_host").glob("*.cpp"))


def _opdef_prototype(directory: Path) -> list[dict]:
    """The prototype the OpDefs of op_host/*.cpp declare."""
    ops: list[dict] = []
    for source in _host_sources(directory):
        text = source.read_text(encoding="utf-8", errors="replace")
        if "OpDef" not in text:
            continue
        try:
            ops += prototype_from_opdef(text, str(source))
        except OpDefSourceError as exc:
            raise UsageError(str(exc)) from None
    if not ops:
        raise UsageError(f"{directory / 'op_host'}: no OpDef class in any .cpp file")
    return ops


def check_ops(proto: prototype.Prototype, directory: Path) -> None:
    """Each op is one the project computes: no compute expression, its kernel and host files
    where the CANN build and opgen's adapters look for them (`opgen adopt`, and `opgen update`
    of an adopted project, whose prototype may have changed since)."""
    problems = []
    for op in proto.ops:
        if op.compute:
            problems.append(
                Problem(
                    key_path(key_path(op.json_path, "opgen"), "compute"),
                    f"{op.op_type}: an adopted project keeps its own kernel; drop the compute "
                    "expression (opgen new writes a project from one, in another directory)",
                )
            )
        for sub in SOURCE_DIRS:
            if not (directory / sub / f"{op.snake_name}.cpp").is_file():
                problems.append(
                    Problem(
                        op.json_path,
                        f"{op.op_type}: {sub}/{op.snake_name}.cpp does not exist (CANN's build "
                        f"and opgen's adapters name the op's files {op.snake_name}.*; an adopted "
                        "project's ops are its own: write them first)",
                    )
                )
    if problems:
        raise PrototypeError(problems, proto.source)


def create(the_plan: AdoptPlan, proto: prototype.Prototype, dry_run: bool) -> Result:
    """Render the project and write opgen's files beside the project's own: none of theirs is
    written over (a rendered file whose path exists is left out, and said so)."""
    try:
        files = render.render(proto, the_plan.options, templates_dir(), the_plan.data)
    except render.RenderError as exc:
        raise ActionError(str(exc)) from None
    dest = the_plan.directory
    theirs = [f.path for f in files if (dest / f.path).exists()]
    files = [f for f in files if f.path not in theirs]
    if dry_run:
        return Result(dest, files, OWN, the_plan.warnings, True, theirs, the_plan.options.package)
    with project_state.locked(dest.resolve()):
        parent = dest.resolve().parent
        staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.opgen-adopt-", dir=parent))
        try:
            project = staging / "project"
            project.mkdir()
            project_state.write_new(project, files, the_plan.prototype_text, the_plan.options)
            move_into_place(project, dest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return Result(dest, files, OWN, the_plan.warnings, False, theirs, the_plan.options.package)
