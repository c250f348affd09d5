"""`opgen bench`: time a generated project's ops against their references.

Runs the project's generated `bench/run.py --json` (the op and the golden expression computed by
torch in the op's dtypes, on the same device, at a few sizes) in a child Python, and prints its
table, or its JSON with --json: {"device", "soc", "note", "reference", "spread", "results":
[{"op", "dtype", "shape", "op_ms", "reference_ms", "ratio", "op_ms_min", "op_ms_max",
"reference_ms_min", "reference_ms_max", "ratio_min", "ratio_max", "noisy", "rounds"}, ...]}.
On the CPU the op runs on the twin, an emulation: the output says so.

The spread: after WARMUP (2) calls of each, bench/run.py times REPEATS (5) rounds of one call of
the op and then one of the reference, so that a change in the machine's load falls on both. op_ms
and reference_ms are the medians of the rounds, *_min and *_max their extremes, and ratio is op_ms
/ reference_ms (the keys of old, unchanged). The ratio's range is the conservative one, the
smallest and the largest quotient of any op time by any reference time measured: ratio_min =
op_ms_min / reference_ms_max, ratio_max = op_ms_max / reference_ms_min (rather than the extremes of
the rounds' own ratios, which one slow round of both would hide). A row is noisy when that range
spans more than NOISY_SPREAD (2x): ratio_max > 2 * ratio_min, that is when the op's max/min times
the reference's max/min exceeds 2. Its ratio then says more about the machine's load than about the
op, and the table says so under the row ("noisy: ratio between 0.4 and 3.1; rerun on an idle
machine"). The JSON's "spread" states the rule; bench/run.py applies it (its NOISY_SPREAD). A
project whose bench/run.py predates the spread gives medians only (opgen update adds it).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from opgen.errors import ActionFailed, BadInput

SCRIPT = Path("bench") / "run.py"
WIDTH = 100  # the wrapped lines above the table


def run(project: Path, quick: bool = False) -> dict:
    """The benchmark report of a generated project (BadInput: no bench script; ActionFailed: it
    did not run, e.g. the package is not built)."""
    script = project / SCRIPT
    if not script.is_file():
        raise BadInput(
            f"{script} does not exist: the project predates opgen bench; "
            f"run opgen update {project} to add it"
        )
    env = dict(os.environ)
    if not os.environ.get("ASCEND_HOME_PATH"):  # no CANN: torch_npu's autoload would fail
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(project.resolve()), env.get("PYTHONPATH")])
    )
    cmd = [sys.executable, str(SCRIPT), "--json"] + (["--quick"] if quick else [])
    result = subprocess.run(cmd, cwd=project, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise ActionFailed(
            f"bench/run.py failed: {last}\n(build the project first: opgen build {project})"
        )
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError as exc:
        raise ActionFailed(f"bench/run.py printed no JSON: {exc}") from None


def number(value: float | None) -> str:
    """At least three significant digits, no exponent: 0.0123, 0.712, 12.3, 1234."""
    if value is None:
        return "-"
    if value <= 0:
        return "0"
    return f"{value:.{max(0, 2 - math.floor(math.log10(value)))}f}"


def cells(row: dict, scale: float = 1) -> list[str]:
    """The table's cells of one timed row: op, dtype, shape, then median (min-max) of the op's
    and of the reference's times (ms times scale), and the ratio of the medians (its range)."""
    head = row_head(row)

    def ranged(key: str) -> str:
        factor = 1 if key == "ratio" else scale
        low, high = row.get(f"{key}_min"), row.get(f"{key}_max")
        if low is None:  # a bench/run.py from before the spread
            return number(row[key] * factor)
        return (
            f"{number(row[key] * factor)} ({number(low * factor)}-"
            f"{number(None if high is None else high * factor)})"
        )

    return head + [ranged("op_ms"), ranged("reference_ms"), ranged("ratio")]


def noise(row: dict) -> str | None:
    """The note under a noisy row."""
    if not row.get("noisy"):
        return None
    high = row.get("ratio_max")
    return (
        f"noisy: ratio between {number(row.get('ratio_min'))} and "
        f"{number(high) if high is not None else 'any value'}; rerun on an idle machine"
    )


def table(report: dict) -> str:
    lines = [f"device: {report['device']}" + (f" ({report['soc']})" if report.get("soc") else "")]
    if report.get("note"):
        lines.append(f"note: {report['note']}")
    lines.append(f"reference: {report['reference']}")
    timed = [r for r in report["results"] if r.get("op_ms") is not None]
    # in microseconds when every time is under a millisecond (an NPU's, the twin's smallest)
    unit, scale = (
        ("us", 1000)
        if timed
        and all(
            max(
                r["op_ms"],
                r["reference_ms"],
                r.get("op_ms_max") or 0,
                r.get("reference_ms_max") or 0,
            )
            < 1
            for r in timed
        )
        else ("ms", 1)
    )
    rule = report.get("spread")
    if rule:
        lines += textwrap.wrap(
            f"times: {unit}, median (min-max) of {rule['rounds']} rounds; ratio: op median / "
            f"reference median (min-max: op min / reference max, op max / reference min); "
            f"noisy: ratio max > {rule['noisy_spread']:g} x ratio min",
            WIDTH,
            subsequent_indent="  ",
        )
    else:
        lines.append(
            f"times: {unit}, median of the rounds (no min-max: the project's bench/run.py "
            "predates them; opgen update adds them)"
        )
    header = ["op", "dtype", "shape", f"op {unit}", f"reference {unit}", "ratio"]
    bandwidth = any("bandwidth_gbps" in r for r in report["results"])
    if bandwidth:
        header.append("GB/s (peak)")
    rows = [(header, "")]  # (cells, what follows them: a failure, the noisy note)
    for r in report["results"]:
        if r.get("op_ms") is None:
            rows.append((row_head(r), f" failed: {r.get('error', '')}"))
            continue
        row = cells(r, scale)
        if bandwidth:
            peak = r.get("peak_fraction")
            row.append(
                number(r.get("bandwidth_gbps")) + (f" ({peak:.0%})" if peak is not None else "")
            )
        rows.append((row, f"\n  {noise(r)}" if r.get("noisy") else ""))
    widths = [max(len(row[i]) for row, _ in rows if i < len(row)) for i in range(len(header))]
    for row, after in rows:  # one space after the op and the dtype, two before each time
        width = widths[: len(row)]
        line = " ".join(c.ljust(w) for c, w in zip(row[:3], width[:3], strict=True)) + "".join(
            "  " + c.ljust(w) for c, w in zip(row[3:], width[3:], strict=True)
        )
        lines.append(line.rstrip() + after)
    return "\n".join(lines)


def row_head(row: dict) -> list[str]:
    """A row's first cells: op, dtype, shape."""
    return [row["op"], row["dtype"], shape_text(row["shape"])]


def shape_text(shape: list[int] | dict[str, list[int]]) -> str:
    """[4096], or the shape of each input (a matmul's: a [37, 70], b [70, 45])."""
    if isinstance(shape, dict):
        return ", ".join(f"{name} {dims}" for name, dims in shape.items())
    return str(shape)
