"""Terminal output: narration and errors go to stderr with rich; data goes to stdout."""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from typing import Any

from opgen.problems import PrototypeError


@lru_cache(maxsize=1)
def stderr():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


@lru_cache(maxsize=1)
def stdout():
    from rich.console import Console

    return Console(highlight=False)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def print_problems(error: PrototypeError) -> None:
    """All problems of a prototype in one panel, one entry per problem, in file order."""
    from rich.panel import Panel
    from rich.text import Text

    body = Text(overflow="fold")  # fold, never crop: a long path must stay readable
    for i, p in enumerate(error.problems):
        if i:
            body.append("\n")
        body.append(p.path, style="bold")
        body.append("\n  " + p.text())
    count = len(error.problems)
    title = Text(f"{count} problem{'s' if count != 1 else ''} in {error.source}")
    stderr().print(Panel(body, title=title, title_align="left", border_style="red",
                         expand=False))


def report_invalid(error: PrototypeError, as_json: bool) -> None:
    """An invalid prototype: the problems as JSON on stdout, or as a panel on stderr."""
    if as_json:
        print_json({"errors": [p.as_json() for p in error.problems]})
    else:
        print_problems(error)


def print_warnings(warnings: list[str] | tuple[str, ...]) -> None:
    from rich.markup import escape

    for warning in warnings:
        stderr().print(f"[yellow]warning:[/yellow] {escape(warning)}")


def fail(message: str) -> None:
    from rich.markup import escape

    stderr().print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)


def status(message: str):
    """A spinner on stderr while `message` runs; silent when stderr is not a terminal."""
    import contextlib

    if not stderr().is_terminal:
        return contextlib.nullcontext()
    return stderr().status(message)


def print_new_summary(result) -> None:
    """What `opgen new` wrote, who owns each file, and what to do next."""
    from rich.markup import escape
    from rich.table import Table

    verb = "would write" if result.dry_run else "wrote"
    table = Table(title=f"{verb} {len(result.files)} files to {escape(str(result.destination))}",
                  title_justify="left")
    table.add_column("file")
    table.add_column("owner")
    for f in result.files:
        style = "green" if f.owner == "user" else ""
        table.add_row(escape(f.path), f"[{style}]{f.owner}[/{style}]" if style else f.owner)
    out = stdout()
    out.print(table)
    out.print(f"CANN skeleton: {escape(result.skeleton)}")
    out.print("generated files are re-rendered by [bold]opgen update[/bold]; "
              "[green]user[/green] files are yours and never overwritten")


_STATUS_STYLE = {"passed": "green", "failed": "red", "skipped": "yellow"}


def print_step(step) -> None:
    from rich.markup import escape

    style = _STATUS_STYLE.get(step.status, "")
    stderr().print(f"[{style}]{step.status:>7}[/{style}]  {escape(step.name)}  "
                   f"({step.seconds:.1f} s)  {escape(step.detail)}")


def print_log_tail(step, text: str) -> None:
    from rich.markup import escape

    if text:
        stderr().print(f"[dim]last lines of {escape(step.log or '')}:[/dim]")
        stderr().print(escape(text), soft_wrap=True)


def print_report(report) -> None:
    """The summary table of a build/test run."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{escape(str(report.project))}: {'ok' if report.ok else 'FAILED'}",
                  title_justify="left")
    for column in ("step", "status", "time", "detail", "log"):
        table.add_column(column)
    for s in report.steps:
        style = _STATUS_STYLE.get(s.status, "")
        table.add_row(escape(s.name), f"[{style}]{s.status}[/{style}]", f"{s.seconds:.1f} s",
                      escape(s.detail), escape(s.log or ""))
    stdout().print(table)


def print_update(the_plan, dry_run: bool, diff: bool, written: int) -> None:
    """Per file what the update did (or would do), the diffs on request, the conflicts."""
    from collections import Counter

    from rich.markup import escape

    out = stdout()
    changed = [c for c in the_plan.changes if c.action != "unchanged"]
    for c in changed:
        style = {"conflict": "red", "merged": "cyan", "added": "green", "removed": "yellow",
                 "deleted by user": "dim"}.get(c.action, "")
        label = f"[{style}]{c.action}[/{style}]" if style else c.action
        out.print(f"{label:>12}  {escape(c.path)}  [dim]({c.owner})[/dim]", soft_wrap=True)
        if diff and c.new_content is not None or diff and c.action == "removed":
            out.print(escape(c.diff()), soft_wrap=True, highlight=False)
    counts = Counter(c.action for c in the_plan.changes)
    summary = ", ".join(f"{n} {a}" for a, n in counts.items())
    verb = "would change" if dry_run else "changed"
    out.print(f"{summary}; {verb} {len([c for c in changed if c.writes])} file(s)"
              + ("" if dry_run else f", {written} written incl. .opgen state"))
    if the_plan.conflicts:
        stderr().print("[red]conflicts[/red] (resolve the <<<<<<< markers, then commit):")
        for path in the_plan.conflicts:
            stderr().print(f"  {escape(path)}")
