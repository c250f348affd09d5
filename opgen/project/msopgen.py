"""Run CANN's msopgen, when it is installed, to write the CANN project skeleton.

msopgen's own op_host/op_kernel stubs are then replaced by opgen's files (its OpDef output has
known defects: Python-syntax list defaults, `.Int(None)`, the deprecated UnknownShapeFormat).
msopgen reads only msopgen's format, prompts when a file holds several ops and no `-op` is given,
and defaults to the Python (TBE) language, so opgen always passes `-lan cpp` and `-op`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from opgen.errors import ActionFailed
from opgen.frontend.catalog import DTYPES
from opgen.frontend.model import Op, Prototype, TensorParam
from opgen.frontend.options import Options
from opgen.rendering.render import RenderedFile, collect

TIMEOUT_SECONDS = 300


class MsopgenError(ActionFailed):
    """msopgen failed; the message carries its output."""


def find(explicit: Path | None) -> Path | None:
    """--msopgen PATH if executable, else msopgen on PATH, else None."""
    if explicit is not None:
        return explicit if explicit.is_file() and os.access(explicit, os.X_OK) else None
    found = shutil.which("msopgen")
    return Path(found) if found else None


def normalized(op: Op) -> dict:
    """One op in msopgen's own format, with explicit lists and param types."""

    def tensor(t: TensorParam) -> dict[str, Any]:
        return {
            "name": t.name,
            "param_type": t.param_type,
            "format": list(t.formats),
            "type": [DTYPES[d].msopgen for d in t.dtypes],
        }

    attrs = []
    for a in op.attrs:
        entry: dict[str, Any] = {
            "name": a.name,
            "param_type": "required" if a.required else "optional",
            "type": a.type,
        }
        if not a.required:
            entry["default_value"] = a.default
        attrs.append(entry)
    return {
        "op": op.op_type,
        "language": "cpp",
        "input_desc": [tensor(t) for t in op.inputs],
        "output_desc": [tensor(t) for t in op.outputs],
        "attr": attrs,
    }


def commands(
    msopgen: Path, proto: Prototype, options: Options, json_path: Path, out: Path
) -> list[list[str]]:
    """One `msopgen gen` per op: the first creates the project (-m 0), the others append."""
    units = ",".join(f"ai_core-{soc}" for soc in options.socs)
    cmds = []
    for i, op in enumerate(proto.ops):
        cmd = [
            str(msopgen),
            "gen",
            "-i",
            str(json_path),
            "-c",
            units,
            "-lan",
            "cpp",
            "-f",
            "pytorch",
            "-out",
            str(out),
        ]
        if len(proto.ops) > 1:
            cmd += ["-op", op.op_type]
            if i > 0:
                cmd += ["-m", "1"]
        cmds.append(cmd)
    return cmds


def _text(output: str | bytes | None) -> str:
    """A timed-out command's output so far: bytes even with text=True (subprocess.run)."""
    if isinstance(output, bytes):
        return output.decode("utf-8", errors="replace")
    return output or ""


def generate(
    msopgen: Path, proto: Prototype, options: Options, project: Path, scratch: Path
) -> list[RenderedFile]:
    """Run msopgen into `project`; return the files it wrote (owner "msopgen")."""
    json_path = scratch / "prototype.msopgen.json"
    json_path.write_text(json.dumps([normalized(op) for op in proto.ops], indent=2) + "\n")
    log_lines = []
    for cmd in commands(msopgen, proto, options, json_path, project):
        log_lines.append("$ " + " ".join(cmd))
        try:
            run = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_SECONDS,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise MsopgenError(
                f"msopgen did not finish within {TIMEOUT_SECONDS} s: "
                f"{' '.join(cmd)}\n{_text(exc.stdout)}{_text(exc.stderr)}"
            ) from None
        except OSError as exc:
            raise MsopgenError(f"cannot run {msopgen}: {exc.strerror}") from None
        log_lines += [run.stdout, run.stderr]
        if run.returncode != 0:
            raise MsopgenError(
                f"msopgen exited with code {run.returncode}: {' '.join(cmd)}\n"
                f"{run.stdout}{run.stderr}".rstrip()
            )
    files = [RenderedFile(f.path, f.content, f.executable, "msopgen") for f in collect(project)]
    for f in files:
        (project / f.path).unlink()  # materialize writes them back with the rest
    log = "\n".join(line for line in log_lines if line)
    files.append(RenderedFile(".opgen/logs/msopgen.log", log.encode() + b"\n", False, "msopgen"))
    return files
