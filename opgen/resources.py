"""Where the data files that ship with opgen live.

In the wheel they sit inside the package (`opgen/schema`, `opgen/templates`, `opgen/twin`); in a
source checkout or an editable install they sit at the top of the repository. Look in the package
first, then next to it.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"opgen's {name}/ directory is missing from the installation "
        f"(looked in {_PACKAGE} and {_PACKAGE.parent})"
    )


def schema_path() -> Path:
    return _data_dir("schema") / "op.schema.json"


def templates_dir() -> Path:
    return _data_dir("templates")


def twin_include_dir() -> Path:
    """The CPU twin's headers, which a generated project's build finds here (through
    opgen.twin_include())."""
    return _PACKAGE / "twin" / "include"
