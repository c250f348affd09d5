"""What `opgen new` was asked for, checked: SoCs, names, the template root. Recorded in the
project (`.opgen/manifest.json`) so `opgen update` renders with the same options."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opgen.catalog import SOC_SHORT_NAMES
from opgen.errors import UsageError
from opgen.problems import did_you_mean

TEMPLATE_ROOTS = ("kernel", "host", "torch_ext", "tests")  # each a copier template
DEFAULT_SOC = "ascend910b1"
STRICT_UNDEFINED = "jinja2.StrictUndefined"  # every copier.yml's _envops.undefined


@dataclass(frozen=True)
class Options:
    package: str  # Python package and default torch namespace
    namespace: str  # torch.ops.<namespace>
    vendor: str  # CANN vendor_name: one package per project
    socs: tuple[str, ...] = (DEFAULT_SOC,)  # full SoC names, lower case
    prototype_file: str = "op.json"  # the prototype's file name inside the project
    templates: str | None = None  # a custom template root, if any

    @property
    def soc_short_names(self) -> list[str]:
        """msopgen's short names of the SoCs (AddConfig, ASCEND_COMPUTE_UNIT), in order,
        without repeats."""
        return list(dict.fromkeys(SOC_SHORT_NAMES[s] for s in self.socs))

    def as_json(self) -> dict[str, Any]:
        return {"package": self.package, "namespace": self.namespace, "vendor": self.vendor,
                "socs": list(self.socs), "prototype_file": self.prototype_file,
                "templates": self.templates}

    @classmethod
    def from_json(cls, data: Any) -> Options:
        """The options a manifest recorded; ValueError when they are not of this form."""
        if not isinstance(data, dict):
            raise ValueError("'options' is not an object")
        try:
            options = cls(**{**data, "socs": tuple(data["socs"])})
        except (KeyError, TypeError) as exc:
            raise ValueError(f"'options' is incomplete or has unknown keys ({exc})") from None
        texts = [options.package, options.namespace, options.vendor, options.prototype_file,
                 *options.socs]
        if not all(isinstance(t, str) for t in texts) or not (
                options.templates is None or isinstance(options.templates, str)):
            raise ValueError("'options' holds a value of the wrong type")
        return options


def resolve_socs(socs: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """Validate full SoC names; warn on the bare names msopgen maps to an older generation."""
    resolved, warnings = [], []
    for soc in socs or [DEFAULT_SOC]:
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


def package_name(directory: Path) -> str:
    """A Python identifier from the project directory's name: my-ops -> my_ops."""
    name = re.sub(r"[^0-9a-zA-Z_]", "_", directory.resolve().name).lower().strip("_") or "ops"
    return f"ops_{name}" if name[0].isdigit() else name


def safe_file_name(name: str) -> str:
    """The prototype's name inside the project; it also appears in generated headers."""
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name)


def check_namespace(namespace: str) -> None:
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", namespace):
        raise UsageError(f"namespace '{namespace}' must be a lower-case Python identifier")


def check_vendor(vendor: str) -> None:
    if not re.fullmatch(r"[A-Za-z0-9_]+", vendor):
        raise UsageError(f"vendor '{vendor}' may hold only letters, digits and underscores "
                         "(it names the CANN vendors/ directory)")


def check_template_root(root: Path, flag: str = "--templates") -> None:
    """A template root holds the four copier templates, each rendering with
    jinja2.StrictUndefined (a misspelt name must fail, not render as empty text)."""
    missing = [r for r in TEMPLATE_ROOTS if not (root / r / "copier.yml").is_file()]
    if missing:
        raise UsageError(f"{flag} {root}: missing {', '.join(missing)} (each needs a copier.yml)")
    import yaml  # copier's own dependency; only for custom roots

    for r in TEMPLATE_ROOTS:
        path = root / r / "copier.yml"
        try:
            config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise UsageError(f"{flag} {root}: {path} cannot be read ({exc})") from None
        envops = config.get("_envops") if isinstance(config, dict) else None
        if not isinstance(envops, dict) or envops.get("undefined") != STRICT_UNDEFINED:
            raise UsageError(f"{flag} {root}: {path} must set `_envops: undefined: "
                             f"{STRICT_UNDEFINED}` (as opgen's own templates do), so a "
                             "misspelt name fails instead of rendering as empty text")
