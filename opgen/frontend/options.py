"""What `opgen new` was asked for, checked: SoCs, names, the template root. Recorded in the
project (`.opgen/manifest.json`) so `opgen update` renders with the same options."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opgen.errors import UsageError
from opgen.frontend.catalog import SOC_SHORT_NAMES
from opgen.frontend.problems import did_you_mean

TEMPLATE_ROOTS = ("kernel", "host", "torch_ext", "tests")  # the parts of templates/
DEFAULT_SOC = "ascend910b1"
STRICT_UNDEFINED = "jinja2.StrictUndefined"  # copier.yml's _envops.undefined
# in copier.yml's _jinja_extensions
CONTEXT_EXTENSION = "opgen.rendering.template_context.ProjectContext"


@dataclass(frozen=True)
class TemplateSource:
    """Where copier takes the templates from: a directory, or a git repository at a ref."""

    path: str  # a directory, or anything copier clones (gh:team/repo, https://..., a local repo)
    ref: str | None = None  # the tag or commit after `@`

    @classmethod
    def parse(cls, text: str | os.PathLike) -> TemplateSource:
        """`DIR`, `REPO@REF` or a git URL; a local path is made absolute."""
        text = os.fspath(text)
        path, at, ref = text.rpartition("@")
        if not (at and path and ref) or "/" in ref or ":" in ref or Path(text).is_dir():
            path, ref = text, None
        local = Path(path).expanduser()
        looks_local = ":" not in path or local.exists()
        return cls(str(local.resolve()) if looks_local else path, ref)

    @property
    def cloned(self) -> bool:
        """copier clones it: a ref was given, or it is a URL rather than a local path."""
        return self.ref is not None or (":" in self.path and not Path(self.path).exists())

    def __str__(self) -> str:
        return f"{self.path}@{self.ref}" if self.ref else self.path


@dataclass(frozen=True)
class Options:
    package: str  # Python package and default torch namespace
    namespace: str  # torch.ops.<namespace>
    vendor: str  # CANN vendor_name: one package per project
    socs: tuple[str, ...] = (DEFAULT_SOC,)  # full SoC names, lower case
    prototype_file: str = "op.json"  # the prototype's file name inside the project
    templates: str | None = None  # a custom template source (TemplateSource's text), if any
    # an existing msopgen project (`opgen adopt`): its op_host/ and op_kernel/ are the user's, and
    # opgen renders the PyTorch package, the tests and the bench around them
    adopted: bool = False

    @property
    def soc_short_names(self) -> list[str]:
        """msopgen's short names of the SoCs (AddConfig, ASCEND_COMPUTE_UNIT), in order,
        without repeats."""
        return list(dict.fromkeys(SOC_SHORT_NAMES[s] for s in self.socs))

    def as_json(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "namespace": self.namespace,
            "vendor": self.vendor,
            "socs": list(self.socs),
            "prototype_file": self.prototype_file,
            "templates": self.templates,
            "adopted": self.adopted,
        }

    @classmethod
    def from_json(cls, data: Any) -> Options:
        """The options a manifest recorded; ValueError when they are not of this form."""
        if not isinstance(data, dict):
            raise ValueError("'options' is not an object")
        try:
            options = cls(**{**data, "socs": tuple(data["socs"])})
        except (KeyError, TypeError) as exc:
            raise ValueError(f"'options' is incomplete or has unknown keys ({exc})") from None
        texts = [
            options.package,
            options.namespace,
            options.vendor,
            options.prototype_file,
            *options.socs,
        ]
        if not all(isinstance(t, str) for t in texts) or not (
            options.templates is None or isinstance(options.templates, str)
        ):
            raise ValueError("'options' holds a value of the wrong type")
        return options


def resolve_socs(socs: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """Validate full SoC names; warn on the bare names msopgen maps to an older generation."""
    resolved, warnings = [], []
    for soc in socs or [DEFAULT_SOC]:
        key = soc.lower()
        if key not in SOC_SHORT_NAMES:
            # Suggest a full name: the bare "ascend910b" is itself a trap (warned about below).
            hint = did_you_mean(key, [n for n in SOC_SHORT_NAMES if n != "ascend910b"])
            raise UsageError(
                f"unknown SoC '{soc}'"
                + (f"; did you mean '{hint}'?" if hint else "")
                + " (npu-smi info shows it as 'Ascend' + Chip Name)"
            )
        if key == "ascend910b":
            warnings.append(
                "SoC 'ascend910b' without a digit is the 910A generation to msopgen "
                "(short name 'ascend910', no Tanh); for Atlas A2 use e.g. "
                "'ascend910b1'"
            )
        resolved.append(key)
    return tuple(dict.fromkeys(resolved)), warnings


def package_name(directory: Path) -> str:
    """A Python identifier from the project directory's name: my-ops -> my_ops."""
    name = re.sub(r"[^0-9a-zA-Z_]", "_", directory.resolve().name).lower().strip("_") or "ops"
    return f"ops_{name}" if name[0].isdigit() else name


GENERATED_SUMMARY = "Ascend custom operators for PyTorch, generated by opgen"  # pyproject's


def check_package(package: str, directory: Path, chosen: bool = False) -> None:
    """The package name must not be a keyword nor take the place of a module Python already
    has: installing a package named `torch` would replace PyTorch, and a local one shadows it.
    `chosen`: it came from --package, not from the directory's name."""
    import importlib.util
    import keyword
    import sys
    from importlib import metadata

    where = (
        f"--package {package}"
        if chosen
        else f"the Python package is named after the directory {directory}"
    )
    fix = "choose another name" if chosen else "choose another directory or pass --package NAME"
    if keyword.iskeyword(package):
        raise UsageError(f"{where}: '{package}' is a Python keyword; {fix}")
    if package in sys.stdlib_module_names:
        raise UsageError(
            f"{where}: '{package}' would shadow Python's standard module of that name; {fix}"
        )
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):  # a module of that name loaded without a spec
        spec = None
    if spec is None:
        return  # nothing importable by that name: nothing to shadow
    if _generated_distribution(package):
        return  # an opgen project of that name, installed (make demo's): generated again
    # Which distributions provide it: a scan of every installed one (~0.1 s), so only now.
    owners = metadata.packages_distributions().get(package, [])
    others = sorted({d for d in owners if metadata.metadata(d)["Summary"] != GENERATED_SUMMARY})
    if others:
        raise UsageError(
            f"{where}: '{package}' would shadow the installed module of that name "
            f"(from {', '.join(others)}); {fix}"
        )


def _generated_distribution(name: str) -> bool:
    """Whether the installed distribution of that name, if any, is an opgen project."""
    from importlib import metadata

    try:
        return metadata.metadata(name)["Summary"] == GENERATED_SUMMARY
    except metadata.PackageNotFoundError:
        return False


def safe_file_name(name: str) -> str:
    """The prototype's name inside the project; it also appears in generated headers."""
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name)


def check_namespace(namespace: str, what: str = "namespace") -> None:
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", namespace):
        raise UsageError(f"{what} '{namespace}' must be a lower-case Python identifier")


def check_vendor(vendor: str) -> None:
    if not re.fullmatch(r"[A-Za-z0-9_]+", vendor):
        raise UsageError(
            f"vendor '{vendor}' may hold only letters, digits and underscores "
            "(it names the CANN vendors/ directory)"
        )


def check_template_source(source: TemplateSource, flag: str = "--templates") -> None:
    """A template directory is one copier template whose context comes from opgen's extension
    and which renders with jinja2.StrictUndefined (a misspelt name must fail, not render as
    empty text). A git source is checked when copier has cloned it."""
    if source.cloned:
        return
    root = Path(source.path)
    if not root.is_dir():
        raise UsageError(
            f"{flag} {source}: no such directory (give a template directory, or a "
            "git repository as REPO@TAG)"
        )
    path = root / "copier.yml"
    if not path.is_file():
        if all((root / name / "copier.yml").is_file() for name in TEMPLATE_ROOTS):
            raise UsageError(
                f"{flag} {source}: templates in the format of opgen before copier rendered "
                "them (a copier.yml per root); copy opgen's templates/ anew, carry your "
                "changes over and pass --templates with the copy"
            )
        raise UsageError(
            f"{flag} {source}: {path.name} is missing (a template directory holds "
            "copier.yml, as opgen's templates/ does)"
        )
    import yaml

    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UsageError(f"{flag} {source}: {path} cannot be read ({exc})") from None
    if not isinstance(config, dict):
        raise UsageError(f"{flag} {source}: {path} is not a mapping of copier settings")
    extensions = config.get("_jinja_extensions") or []
    if not isinstance(extensions, list) or CONTEXT_EXTENSION not in extensions:
        raise UsageError(
            f"{flag} {source}: {path} must list {CONTEXT_EXTENSION} in "
            "`_jinja_extensions` (it gives the templates `project`)"
        )
    envops = config.get("_envops")
    if not isinstance(envops, dict) or envops.get("undefined") != STRICT_UNDEFINED:
        raise UsageError(
            f"{flag} {source}: {path} must set `_envops: undefined: "
            f"{STRICT_UNDEFINED}` (as opgen's own templates do), so a "
            "misspelt name fails instead of rendering as empty text"
        )
