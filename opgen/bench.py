"""`opgen bench`: time a generated project's ops against their references.

Runs the project's generated `bench/run.py --json` (the op and the golden expression computed by
torch in the op's dtypes, on the same device, at a few sizes) in a child Python, and prints its
table, or its JSON with --json: {"device", "soc", "note", "reference", "results": [{"op",
"dtype", "shape", "op_ms", "reference_ms", "ratio"}, ...]}. On the CPU the op runs on the twin,
an emulation: the output says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from opgen.errors import ActionFailed, BadInput

SCRIPT = Path("bench") / "run.py"


def run(project: Path, quick: bool = False) -> dict:
    """The benchmark report of a generated project (BadInput: no bench script; ActionFailed: it
    did not run, e.g. the package is not built)."""
    script = project / SCRIPT
    if not script.is_file():
        raise BadInput(f"{script} does not exist: the project predates opgen bench; "
                       f"run opgen update {project} to add it")
    env = dict(os.environ)
    if not os.environ.get("ASCEND_HOME_PATH"):  # no CANN: torch_npu's autoload would fail
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(project.resolve()),
                                                      env.get("PYTHONPATH")]))
    cmd = [sys.executable, str(SCRIPT), "--json"] + (["--quick"] if quick else [])
    result = subprocess.run(cmd, cwd=project, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise ActionFailed(f"bench/run.py failed: {last}\n(build the project first: opgen build "
                         f"{project})")
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError as exc:
        raise ActionFailed(f"bench/run.py printed no JSON: {exc}") from None


def table(report: dict) -> str:
    lines = [f"device: {report['device']}" + (f" ({report['soc']})" if report.get("soc") else "")]
    if report.get("note"):
        lines.append(f"note: {report['note']}")
    lines.append(f"reference: {report['reference']}")
    lines.append(f"{'op':<24} {'dtype':<20} {'shape':<12} {'op ms':>10} {'reference ms':>13} "
                 f"{'ratio':>8}")
    for r in report["results"]:
        head = f"{r['op']:<24} {r['dtype']:<20} {str(r['shape']):<12}"
        if r.get("op_ms") is None:
            lines.append(f"{head} failed: {r.get('error', '')}")
            continue
        line = f"{head} {r['op_ms']:>10.3f} {r['reference_ms']:>13.3f} {r['ratio']:>8.2f}"
        if "bandwidth_gbps" in r:
            peak = r.get("peak_fraction")
            line += f"  {r['bandwidth_gbps']:.1f} GB/s" + (
                f" ({peak:.0%} of peak)" if peak is not None else " (peak unknown)")
        lines.append(line)
    return "\n".join(lines)
