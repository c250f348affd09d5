"""How to spell a command for the shell opgen was run from, so that printed next steps work when
pasted there: the opgen and the Python that ran this command, whether the venv is activated or
not (`.venv/bin/opgen new ...` prints `/abs/.venv/bin/opgen build ...`, an activated venv just
`opgen build ...`)."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path


def _is_on_path(name: str, path: Path) -> bool:
    """Whether `name`, looked up on PATH, is `path` (the venv's own file, not the interpreter
    a venv's python links to: two venvs share that)."""
    found = shutil.which(name)
    return found is not None and Path(found).absolute() == path.absolute()


def python_command() -> str:
    """The Python that runs opgen (and has the generated package installed by opgen build)."""
    python = Path(sys.executable)
    return "python" if _is_on_path("python", python) else shlex.quote(str(python.absolute()))


def opgen_command() -> str:
    """`opgen` when that is this opgen, else the path it was run by (`python -m opgen` as such).
    Inside another program (a test runner), plain `opgen`."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is None:
        return "opgen"
    if script.name == "__main__.py" and script.parent.name == "opgen":
        return f"{python_command()} -m opgen"
    if script.name != "opgen" or _is_on_path("opgen", script):
        return "opgen"
    return shlex.quote(str(script.absolute()))
