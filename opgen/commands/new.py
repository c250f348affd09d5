"""`opgen new`: prototype -> model -> template data -> rendered project in its directory (the
build is build.py's)."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from opgen.compiler import checks
from opgen.errors import ActionError, UsageError
from opgen.frontend import prototype
from opgen.frontend.model import Op
from opgen.frontend.options import (
    Options,
    TemplateSource,
    check_namespace,
    check_package,
    check_template_source,
    check_vendor,
    package_name,
    resolve_socs,
    safe_file_name,
)
from opgen.frontend.problems import PrototypeError
from opgen.planning import ProjectData, plan_project
from opgen.project import manifest as project_state
from opgen.project import msopgen
from opgen.rendering import render
from opgen.resources import templates_dir

__all__ = ["ActionError", "Plan", "Result", "UsageError", "create", "plan", "template_data"]


@dataclass
class Plan:
    """What `opgen new` resolved from its arguments, before anything is written."""

    proto_path: Path
    destination: Path
    options: Options
    template_source: TemplateSource
    msopgen: Path | None
    data: ProjectData  # what the templates render, built once
    warnings: list[str] = field(default_factory=list)
    force: bool = False  # write into a non-empty destination


@dataclass
class Result:
    destination: Path
    files: list[render.RenderedFile]
    skeleton: str  # who wrote the CANN skeleton: "msopgen <path>" or "opgen"
    warnings: list[str]
    dry_run: bool
    kept: list[str] = field(default_factory=list)  # user files already there (--force)
    package: str = ""  # the Python package's name

    def as_json(self) -> dict:
        return {
            "destination": str(self.destination),
            "dry_run": self.dry_run,
            "cann_skeleton": self.skeleton,
            "files": [{"path": f.path, "owner": f.owner} for f in self.files],
            "warnings": self.warnings,
            "kept": self.kept,
        }


def plan(
    proto_path: Path,
    output: Path | None,
    socs: list[str],
    namespace: str | None,
    vendor: str | None,
    templates: str | None,
    msopgen_path: Path | None,
    use_msopgen: bool,
    force: bool,
    package: str | None = None,
) -> tuple[Plan, prototype.Prototype]:
    """Check everything that can be checked before rendering; raise UsageError or
    prototype.PrototypeError."""
    soc_names, warnings = resolve_socs(socs)
    proto = load_prototype(proto_path, soc_names)
    destination = output if output is not None else Path(proto.ops[0].snake_name)
    if destination.is_symlink() and not destination.exists():
        raise UsageError(
            f"{destination} is a symbolic link to {os.readlink(destination)}, which "
            "does not exist; give a directory"
        )
    if destination.exists() and not destination.is_dir():
        raise UsageError(f"{destination} exists and is not a directory")
    if destination.is_dir() and any(destination.iterdir()) and not force:
        raise UsageError(
            f"{destination} is not empty; choose another -o or pass --force to write over it"
        )
    _refuse_adopted(destination)
    chosen = package is not None
    if package is not None:
        check_namespace(package, "package")
    package = package or package_name(destination)
    check_package(package, destination, chosen)
    namespace = namespace or package
    check_namespace(namespace)
    vendor = vendor or package
    check_vendor(vendor)
    source = TemplateSource(str(templates_dir()))
    if templates is not None:
        source = TemplateSource.parse(templates)
        check_template_source(source)
    found = None
    if use_msopgen:
        found = msopgen.find(msopgen_path)
        if msopgen_path is not None and found is None:
            raise UsageError(f"--msopgen {msopgen_path}: not an executable file")
    options = Options(
        package=package,
        namespace=namespace,
        vendor=vendor,
        socs=soc_names,
        prototype_file=safe_file_name(proto_path.name),
        templates=str(source) if templates is not None else None,
    )
    data = template_data(proto, options)
    warnings += list(proto.warnings) + data.warnings
    return Plan(proto_path, destination, options, source, found, data, warnings, force), proto


def _refuse_adopted(destination: Path) -> None:
    """An adopted msopgen project (`opgen adopt`) holds the user's own op_host/ and op_kernel/
    files, which `opgen new --force` would write opgen's skeletons over (no pristine copy keeps
    them): refused, saying what re-renders it instead."""
    if not (destination / project_state.MANIFEST).is_file():
        return
    try:
        adopted = project_state.load(destination).options.adopted
    except project_state.ProjectError:
        return  # a damaged manifest: not known to be adopted; --force writes over it as asked
    if adopted:
        raise UsageError(
            f"{destination} is an adopted msopgen project (opgen adopt): opgen new --force would "
            "write opgen's skeletons over its own op_host/ and op_kernel/ files; run "
            f"`opgen update {destination}` to re-render opgen's files around them, or choose "
            "another -o"
        )


def template_data(proto: prototype.Prototype, options: Options) -> ProjectData:
    """The template data, built once before anything is rendered (of a prototype
    load_prototype has checked for the SoCs of `options`)."""
    return plan_project(proto, options)


def load_prototype(proto_path: Path, socs: tuple[str, ...]) -> prototype.Prototype:
    """prototype.load, then the compute compiler's and the SoCs' checks (compiler.checks) of
    the ops that passed every rule of the front end, for `socs`: one run reports every problem
    (exit 2, each at its JSON path), before anything is planned."""
    options = Options("ops", "ops", "ops", socs)
    try:
        proto = prototype.load(proto_path)
    except PrototypeError as exc:
        found = checks.problems(exc.checked_ops, options)
        if not found:
            raise
        problems = sorted(exc.problems + found, key=checks.op_index)
        raise PrototypeError(problems, exc.source) from None
    checks.check(proto, options)
    return proto


def create(the_plan: Plan, proto: prototype.Prototype, dry_run: bool) -> Result:
    """Render, optionally run msopgen, and move the project into place."""
    try:
        files = render.render(proto, the_plan.options, the_plan.template_source, the_plan.data)
    except render.RenderError as exc:
        raise ActionError(str(exc)) from None
    skeleton = "opgen"
    dest = the_plan.destination
    if dry_run:
        if the_plan.msopgen is not None:
            skeleton = f"msopgen {the_plan.msopgen} (not run: dry run)"
            files = [f for f in files if f.path not in render.CANN_SKELETON]
        kept = kept_user_files(files, dest)
        return Result(
            dest, files, skeleton, the_plan.warnings, True, kept, the_plan.options.package
        )

    dest_parent = dest.resolve().parent
    dest_parent.mkdir(parents=True, exist_ok=True)
    with project_state.locked(dest.resolve()):
        if dest.is_dir() and any(dest.iterdir()) and not the_plan.force:
            raise UsageError(
                f"{dest} is not empty (written meanwhile?); choose another -o or pass --force"
            )
        return _create_in(the_plan, proto, files, skeleton, dest, dest_parent)


def _create_in(
    the_plan: Plan,
    proto: prototype.Prototype,
    files: list[render.RenderedFile],
    skeleton: str,
    dest: Path,
    dest_parent: Path,
) -> Result:
    prefix = f".{dest.name}.opgen-new-"
    for stale in dest_parent.glob(prefix + "*"):  # left by an opgen new killed outright
        shutil.rmtree(stale, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=prefix, dir=dest_parent))
    try:
        project = staging / "project"
        project.mkdir()
        if the_plan.msopgen is not None:
            skeleton_files = msopgen.generate(
                the_plan.msopgen, proto, the_plan.options, project, staging
            )
            skeleton = f"msopgen {the_plan.msopgen}"
            files = [f for f in files if f.path not in render.CANN_SKELETON]
            ours = {f.path for f in files}
            files = files + [f for f in skeleton_files if f.path not in ours]
            files.sort(key=lambda f: f.path)
        project_state.write_new(project, files, the_plan.proto_path.read_bytes(), the_plan.options)
        kept = kept_user_files(files, dest)
        for path in kept:  # --force writes over generated files only
            (project / path).unlink()
        move_into_place(project, dest)
    except msopgen.MsopgenError as exc:
        raise ActionError(str(exc)) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Result(dest, files, skeleton, the_plan.warnings, False, kept, the_plan.options.package)


def next_steps(
    result: Result, proto: prototype.Prototype, options: Options, built: bool
) -> list[str]:
    """What to do after `opgen new`, spelled for the shell it ran in: build (if not done), call
    the first op with the Python that has the package, where to edit, where the logs are."""
    import shlex

    from opgen.invocation import opgen_command, python_command

    dest = shlex.quote(str(result.destination))
    opgen = opgen_command()
    op = proto.ops[0]
    steps = [] if built else [f"{opgen} build {dest} && {opgen} test {dest}"]
    steps.append(
        f"{python_command()} -c "
        + shlex.quote(
            f"import torch, {options.package}; print({call_example(op, options.namespace)})"
        )
    )
    edit = (
        [f"op_kernel/{op.snake_name}_compute.h"]
        if not op.user_computed
        else [f"op_host/{op.snake_name}_infer.h", f"op_kernel/{op.snake_name}_kernel.h"]
    )
    if op.is_matmul or op.is_index:  # every file generated: its expression is what to change
        edit, rerender = [options.prototype_file], f"{opgen} update {dest}"
    elif options.adopted:  # the project's own files
        edit = [f"op_kernel/{op.snake_name}.cpp", f"op_host/{op.snake_name}.cpp"]
        rerender = f"{opgen} build {dest} && {opgen} test {dest}"
    else:
        rerender = f"{opgen} build {dest} && {opgen} test {dest}"
    steps.append(f"edit {', '.join(str(result.destination / e) for e in edit)}, then: {rerender}")
    steps.append(f"logs: {result.destination / '.opgen' / 'logs'}")
    return steps


def call_example(op: Op, namespace: str) -> str:
    """torch.ops.<namespace>.<op>(...) with small inputs of the first dtype combination (the
    shapes of its first test_shapes case when it has them: a matmul's inputs share no shape) and
    every attr by name (its default, or a sample value when it has none)."""
    from opgen.frontend.catalog import DTYPES
    from opgen.literals import py_literal
    from opgen.planning.tests import attr_value, fit_rows, row_layout

    layout = row_layout(op)  # an op reducing named axes: 8 elements on the last of them
    shape = ", ".join(map(str, fit_rows((8,), layout) if layout else (8,)))
    case = op.test_shapes[0] if op.test_shapes else {}
    args = []
    for t in op.inputs:
        random = DTYPES[t.dtypes[0]].is_float or DTYPES[t.dtypes[0]].is_complex
        if case and t.name not in case and t.param_type == "optional":
            args.append("None")  # the case leaves it out
            continue
        dims = ", ".join(map(str, case[t.name])) if t.name in case else shape
        tensor = f"torch.{'randn' if random else 'ones'}({dims}, dtype=torch.{t.dtypes[0]})"
        args.append(f"[{tensor}]" if t.param_type == "dynamic" else tensor)
    for a in op.attrs:
        args.append(f"{a.name}={py_literal(a.type, attr_value(a, op))}")
    return f"torch.ops.{namespace}.{op.snake_name}({', '.join(args)})"


def kept_user_files(files: list[render.RenderedFile], destination: Path) -> list[str]:
    """The user-owned files `destination` already has: `--force` keeps them as they are."""
    return [f.path for f in files if f.owner == "user" and (destination / f.path).exists()]


def same_file_content(a: Path, b: Path) -> bool:
    import filecmp

    return b.is_file() and not b.is_symlink() and filecmp.cmp(a, b, shallow=False)


def move_into_place(staged: Path, destination: Path) -> None:
    """Move a staged project to `destination` (absent or empty: a rename; else file by file)."""
    if not destination.exists():
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, destination)
        return
    for path in sorted(staged.rglob("*")):
        target = destination / path.relative_to(staged)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif not same_file_content(path, target):  # an unchanged file keeps its time: no rebuild
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
    shutil.rmtree(staged, ignore_errors=True)
