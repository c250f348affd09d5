"""`opgen new`: prototype -> model -> rendered project in its directory (build is build.py's)."""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from opgen import msopgen, prototype, render
from opgen.catalog import SOC_SHORT_NAMES
from opgen.context import Options
from opgen.problems import did_you_mean
from opgen.resources import templates_dir


class UsageError(Exception):
    """Bad options or a bad destination: exit code 2, nothing written."""


class ActionError(Exception):
    """A step failed (msopgen, a template): exit code 1, nothing left behind."""


@dataclass
class Plan:
    """What `opgen new` resolved from its arguments, before anything is written."""

    proto_path: Path
    destination: Path
    options: Options
    template_root: Path
    msopgen: Path | None
    warnings: list[str] = field(default_factory=list)


@dataclass
class Result:
    destination: Path
    files: list[render.RenderedFile]
    skeleton: str  # who wrote the CANN skeleton: "msopgen <path>" or "opgen"
    warnings: list[str]
    dry_run: bool

    def as_json(self) -> dict:
        return {
            "destination": str(self.destination),
            "dry_run": self.dry_run,
            "cann_skeleton": self.skeleton,
            "files": [{"path": f.path, "owner": f.owner} for f in self.files],
            "warnings": self.warnings,
        }


def package_name(directory: Path) -> str:
    """A Python identifier from the project directory's name: my-ops -> my_ops."""
    name = re.sub(r"[^0-9a-zA-Z_]", "_", directory.resolve().name).lower().strip("_") or "ops"
    return f"ops_{name}" if name[0].isdigit() else name


def safe_file_name(name: str) -> str:
    """The prototype's name inside the project; it also appears in generated headers."""
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name)


def resolve_socs(socs: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """Validate full SoC names; warn on the bare names msopgen maps to an older generation."""
    resolved, warnings = [], []
    for soc in socs or ["ascend910b1"]:
        key = soc.lower()
        if key not in SOC_SHORT_NAMES:
            hint = did_you_mean(key, SOC_SHORT_NAMES)
            raise UsageError(f"unknown SoC '{soc}'" + (f"; did you mean '{hint}'?" if hint else "")
                             + " (npu-smi info shows it as 'Ascend' + Chip Name)")
        if key == "ascend910b":
            warnings.append("SoC 'ascend910b' without a digit is the 910A generation to msopgen "
                            "(short name 'ascend910', no Tanh); for Atlas A2 use e.g. "
                            "'ascend910b1'")
        resolved.append(key)
    return tuple(dict.fromkeys(resolved)), warnings


def plan(proto_path: Path, output: Path | None, socs: list[str], namespace: str | None,
         vendor: str | None, templates: Path | None, msopgen_path: Path | None,
         use_msopgen: bool, force: bool) -> tuple[Plan, prototype.Prototype]:
    """Check everything that can be checked before rendering; raise UsageError or
    prototype.PrototypeError."""
    proto = prototype.load(proto_path)
    destination = output if output is not None else Path(proto.ops[0].snake_name)
    if destination.exists() and not destination.is_dir():
        raise UsageError(f"{destination} exists and is not a directory")
    if destination.is_dir() and any(destination.iterdir()) and not force:
        raise UsageError(f"{destination} is not empty; choose another -o or pass --force to "
                         "write over it")
    package = package_name(destination)
    namespace = namespace or package
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", namespace):
        raise UsageError(f"namespace '{namespace}' must be a lower-case Python identifier")
    vendor = vendor or package
    if not re.fullmatch(r"[A-Za-z0-9_]+", vendor):
        raise UsageError(f"vendor '{vendor}' may hold only letters, digits and underscores "
                         "(it names the CANN vendors/ directory)")
    soc_names, warnings = resolve_socs(socs)
    root = templates if templates is not None else templates_dir()
    if templates is not None:
        missing = [r for r in render.TEMPLATE_ROOTS if not (templates / r / "copier.yml").is_file()]
        if missing:
            raise UsageError(f"--templates {templates}: missing {', '.join(missing)} "
                             "(each needs a copier.yml)")
    found = None
    if use_msopgen:
        found = msopgen.find(msopgen_path)
        if msopgen_path is not None and found is None:
            raise UsageError(f"--msopgen {msopgen_path}: not an executable file")
    options = Options(package=package, namespace=namespace, vendor=vendor, socs=soc_names,
                      prototype_file=safe_file_name(proto_path.name),
                      templates=str(templates.resolve()) if templates else None)
    warnings += list(proto.warnings) + stage_warnings(proto, options)
    return Plan(proto_path, destination, options, root, found, warnings), proto


def stage_warnings(proto: prototype.Prototype, options: Options) -> list[str]:
    """Lower every op's compute now, so an expression the SoCs cannot run is bad input (exit 2)
    found before anything is rendered; return what the lowering and the PyTorch side warn
    about."""
    from opgen import lower, torch_side

    warnings = []
    for op in proto.ops:
        try:
            warnings += lower.kernel_context(op, options).get("warnings", [])
        except lower.LoweringError as exc:
            raise UsageError(f"{op.op_type}: {exc}") from None
        py_name = torch_side.py_function_name(op.snake_name)
        if py_name in torch_side.PACKAGE_NAMES:
            warnings.append(f"{op.op_type}: the function {py_name}() would replace the "
                            f"package's own '{py_name}', so it is only in "
                            f"{options.package}.ops and torch.ops.{options.namespace}")
        elif py_name != op.snake_name:
            warnings.append(f"{op.op_type}: its Python function is {options.package}."
                            f"{py_name}() ('{op.snake_name}' would shadow a name ops.py uses)")
    return warnings


def create(the_plan: Plan, proto: prototype.Prototype, dry_run: bool) -> Result:
    """Render, optionally run msopgen, and move the project into place."""
    try:
        files = render.render(proto, the_plan.options, the_plan.template_root)
    except render.RenderError as exc:
        raise ActionError(str(exc)) from None
    skeleton = "opgen"
    dest = the_plan.destination
    if dry_run:
        if the_plan.msopgen is not None:
            skeleton = f"msopgen {the_plan.msopgen} (not run: dry run)"
            files = [f for f in files if f.path not in render.CANN_SKELETON]
        return Result(dest, files, skeleton, the_plan.warnings, True)

    dest_parent = dest.resolve().parent
    dest_parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".opgen-new-", dir=dest_parent))
    try:
        project = staging / "project"
        project.mkdir()
        if the_plan.msopgen is not None:
            skeleton_files = msopgen.generate(the_plan.msopgen, proto, the_plan.options,
                                              project, staging)
            skeleton = f"msopgen {the_plan.msopgen}"
            files = [f for f in files if f.path not in render.CANN_SKELETON]
            ours = {f.path for f in files}
            files = files + [f for f in skeleton_files if f.path not in ours]
            files.sort(key=lambda f: f.path)
        render.materialize(project, files, the_plan.proto_path.read_bytes(), the_plan.options)
        render.move_into_place(project, dest)
    except msopgen.MsopgenError as exc:
        raise ActionError(str(exc)) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Result(dest, files, skeleton, the_plan.warnings, False)
