"""The precision report `opgen test` writes: `.opgen/reports/precision.html`.

The generated tests/precision.py appends every case it judges to the file named by
OPGEN_PRECISION_RECORD (a JSON line: the test, the case, the metrics, the verdict and the rule
that decided, the benchmark's metrics and ratios, a sample of |golden| and errors). This module
turns those lines into one self-contained HTML page: per op and dtype a table of the cases and two
plots, the absolute error against |golden| and a histogram of the relative errors, embedded as
PNG images. The plots need matplotlib (`pip install 'opgen[report]'`); without it the page says
so and holds the tables.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

RECORD = Path(".opgen") / "reports" / "precision.jsonl"
REPORT = Path(".opgen") / "reports" / "precision.html"


def load(path: Path) -> list[dict]:
    entries: list[dict] = []
    if not path.is_file():
        return entries
    for line in path.read_text(errors="replace").splitlines():
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by a crashed test
    return entries


def op_of(entry: dict) -> str:
    """The op's snake name, from the test file test_<op>.py."""
    test_file = entry.get("test", "").split("::")[0].rsplit("/", 1)[-1]
    return test_file.removeprefix("test_").removesuffix(".py") or "?"


def _fmt(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3g}" if math.isfinite(value) else str(value)
    return html.escape(str(value))


def plots(entries: list[dict]) -> tuple[str, str] | None:
    """Two PNG data URIs (error against |golden|, relative error histogram); None without
    matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    golden, errors, rel = [], [], []
    for e in entries:
        sample = e.get("sample") or {}
        golden += sample.get("golden_abs", [])
        errors += sample.get("abs_error", [])
        rel += sample.get("rel_error", [])
    images = []
    shown = [(g, x) for g, x in zip(golden, errors, strict=False) if g > 0 and x > 0]
    fig, ax = plt.subplots(figsize=(5, 3.4), dpi=80)
    if shown:
        ax.scatter([g for g, _ in shown], [x for _, x in shown], s=3, alpha=0.5)
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("|golden|")
    ax.set_ylabel("|actual - golden|")
    ax.set_title(
        f"absolute error against |golden| ({len(golden) - len(shown)} exact or at 0 not shown)",
        fontsize=9,
    )
    images.append(_png(fig, plt))
    fig, ax = plt.subplots(figsize=(5, 3.4), dpi=80)
    ax.hist([math.log10(max(r, 1e-20)) for r in rel], bins=40)
    ax.set_xlabel("log10 relative error (1e-20 for exact)")
    ax.set_ylabel("elements")
    ax.set_title("relative error histogram")
    images.append(_png(fig, plt))
    return images[0], images[1]


def _png(fig: Figure, plt: ModuleType) -> str:
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", metadata={"Software": None})  # no version: deterministic
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def render(entries: list[dict], title: str) -> str:
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for e in entries:
        groups[(op_of(e), e.get("dtype", "?"))].append(e)
    out = _page_head(entries, title)
    have_plots = True
    for (op, dtype), rows in sorted(groups.items()):
        out.append(f"<h2>{html.escape(op)}, {html.escape(dtype)}</h2>")
        images = plots(rows) if have_plots else None
        if images is None:
            have_plots = False
            out.append(
                "<p><em>Plots unavailable: matplotlib is not installed "
                "(pip install 'opgen[report]').</em></p>"
            )
        else:
            out += [
                f"<img alt='absolute error against |golden|' src='{images[0]}'>",
                f"<img alt='relative error histogram' src='{images[1]}'>",
            ]
        out.append(
            "<table><tr><th class='l'>test</th><th class='l'>case</th><th>verdict</th>"
            "<th class='l'>rule</th><th>MERE</th><th>MARE</th><th>RMSE</th>"
            "<th>small-value errors</th><th>special mismatches</th>"
            "<th class='l'>ratios to torch</th><th class='l'>reason</th></tr>"
        )
        out += [
            _case_row(e) for e in sorted(rows, key=lambda r: (r.get("test", ""), r.get("what", "")))
        ]
        out.append("</table>")
    if not entries:
        out.append("<p>No precision case was recorded (no precision test ran).</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _page_head(entries: list[dict], title: str) -> list[str]:
    failed = sum(not e.get("passed") for e in entries)
    return [
        "<!DOCTYPE html>",
        "<html><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;"
        "font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
        "td.l,th.l{text-align:left}.fail{background:#fdd}.pass{background:#efe}"
        "img{margin:4px}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{len(entries)} judged outputs, {failed} failed. Rules: the CANN precision "
        "standard as tests/precision.py implements it (special values; the threshold "
        "standard; else the ratio standard against torch in the op's dtype).</p>",
    ]


def _case_row(e: dict) -> str:
    """One judged output as a table row."""
    m = e.get("metrics", {})
    special = str(m.get("special_mismatches", 0))
    if e.get("benchmark"):  # the benchmark's count, which the op's is judged against
        special += f" (torch {e['benchmark'].get('special_mismatches', 0)})"
    ratios = ", ".join(f"{k} {_fmt(v)}" for k, v in (e.get("ratios") or {}).items())
    verdict = "pass" if e.get("passed") else "fail"
    test = e.get("test", "").split("::", 1)[-1]
    return (
        f"<tr class='{verdict}'><td class='l'>{html.escape(test)}</td>"
        f"<td class='l'>{html.escape(e.get('what', ''))}</td><td>{verdict}</td>"
        f"<td class='l'>{html.escape(e.get('rule', ''))}</td>"
        f"<td>{_fmt(m.get('mere'))}</td><td>{_fmt(m.get('mare'))}</td>"
        f"<td>{_fmt(m.get('rmse'))}</td>"
        f"<td>{m.get('small_errors', 0)} of {m.get('small_count', 0)}</td>"
        f"<td>{special}</td><td class='l'>{html.escape(ratios)}</td>"
        f"<td class='l'>{html.escape(e.get('reason', ''))}</td></tr>"
    )


def write(project: Path) -> Path | None:
    """Write the report from the record of the last test run; its path, or None without one."""
    record = project / RECORD
    if not record.is_file():
        return None
    path = project / REPORT
    path.write_text(render(load(record), f"Precision report: {project.resolve().name}"))
    return path
