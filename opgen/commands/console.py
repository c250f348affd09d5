"""Terminal output: narration and errors go to stderr with rich; data goes to stdout."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from opgen.frontend.problems import PrototypeError

if TYPE_CHECKING:
    from rich.console import Console

    from opgen.commands.new import Result
    from opgen.commands.update import Plan


class BuildStep(Protocol):
    """A step of `opgen build`/`test` (commands.build.Step, which imports this module)."""

    name: str
    status: str
    seconds: float
    detail: str
    log: str | None


class BuildReport(Protocol):
    """The steps of a build/test run (commands.build.Report)."""

    project: Path

    @property
    def steps(self) -> Sequence[BuildStep]: ...


@lru_cache(maxsize=1)
def stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


@lru_cache(maxsize=1)
def stdout() -> Console:
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
    stderr().print(Panel(body, title=title, title_align="left", border_style="red", expand=False))


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


def status(message: str) -> AbstractContextManager[object]:
    """A spinner on stderr while `message` runs; silent when stderr is not a terminal."""
    import contextlib

    if not stderr().is_terminal:
        return contextlib.nullcontext()
    return stderr().status(message)


class StepProgress:
    """A long step's progress: on a terminal a spinner with its last progress mark and the time
    so far; elsewhere (a CI log, a pipe) a line every QUIET_SECONDS, so a step of minutes is
    never silent."""

    QUIET_SECONDS = 30.0

    def __init__(self, name: str):
        import time

        self.name = name
        self.started = time.monotonic()
        self.mark = ""
        self.spinner = stderr().status(f"{name} …") if stderr().is_terminal else None
        self.last_line = self.started

    def __enter__(self) -> StepProgress:
        if self.spinner is not None:
            self.spinner.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.spinner is not None:
            self.spinner.__exit__(exc_type, exc, tb)

    def update(self, mark: str | None = None) -> None:
        """Called about twice a second while the step runs, with its newest mark if any (e.g.
        '12/21 compiled')."""
        import time

        from rich.markup import escape

        self.mark = mark or self.mark
        now = time.monotonic()
        text = f"{self.name} … {now - self.started:.0f} s" + (f", {self.mark}" if self.mark else "")
        if self.spinner is not None:
            self.spinner.update(escape(text))
        elif now - self.last_line >= self.QUIET_SECONDS:
            self.last_line = now
            stderr().print(f"[dim]  {escape(text)}[/dim]", soft_wrap=True)


def print_new_summary(result: Result, verbose: bool = False) -> None:
    """What `opgen new` wrote: the files grouped by directory (every file with --verbose), which
    are the user's, who wrote the CANN skeleton."""
    from collections import Counter

    from rich.markup import escape
    from rich.table import Table

    verb = "would write" if result.dry_run else "wrote"
    out = stdout()
    title = f"{verb} {len(result.files)} files to {escape(str(result.destination))}"
    table = Table(title=title, title_justify="left", box=None, pad_edge=False)
    if verbose:
        table.add_column("file")
        table.add_column("owner")
        for f in result.files:
            owner = "[green]user[/green]" if f.owner == "user" else f.owner
            table.add_row(escape(f.path), owner)
    else:
        table.add_column("directory")
        table.add_column("files", justify="right")
        table.add_column("what")
        groups = Counter(
            f.path.split("/")[0] + "/" if "/" in f.path else "./" for f in result.files
        )
        for group, count in sorted(groups.items()):
            role = _DIRECTORY_ROLES.get(group, "")
            if group == f"{result.package}/":
                role = "the PyTorch package: schemas, CPU twin and NPU kernels, overrides"
            table.add_row(escape(group), str(count), role)
    out.print(table, soft_wrap=True)
    yours = [f.path for f in result.files if f.owner == "user"]
    out.print(
        f"[green]yours to edit[/green] (opgen update keeps your edits): {escape(', '.join(yours))}",
        soft_wrap=True,
    )
    if result.kept:
        out.print(
            f"kept as they were (--force writes over generated files only): "
            f"{escape(', '.join(result.kept))}",
            soft_wrap=True,
        )
    out.print(skeleton_line(result.skeleton), soft_wrap=True)
    out.print(
        "The generated files are re-rendered by [bold]opgen update[/bold]"
        + ("." if verbose else "; --verbose lists every file."),
        soft_wrap=True,
    )


def skeleton_line(skeleton: str) -> str:
    """Who wrote the CANN project skeleton (its CMake files, build.sh, scripts): "opgen",
    "msopgen <path>[ (not run: dry run)]", or the project's own (an adopted project)."""
    from rich.markup import escape

    what = "The CANN project skeleton (CMake files, build.sh, scripts)"
    if skeleton.startswith("the project's own"):
        return f"{what} is {escape(skeleton)}."
    if skeleton == "opgen":
        return f"{what} was written by opgen itself (msopgen was not used)."
    return f"{what} was written by {escape(skeleton)}."


_DIRECTORY_ROLES = {
    "op_kernel/": "Ascend C kernel",
    "op_host/": "tiling, shape inference, OpDef",
    "tests/": "precision and registration tests (pytest)",
    "bench/": "the ops timed against torch (opgen bench)",
    "./": "CANN and Python build files, the prototype",
}


def print_next_steps(lines: list[str]) -> None:
    from rich.markup import escape

    stdout().print("next:")
    for line in lines:
        stdout().print(f"  {escape(line)}", soft_wrap=True, highlight=False)


_STATUS_STYLE = {"passed": "green", "failed": "red", "skipped": "yellow"}


def print_step(step: BuildStep) -> None:
    from rich.markup import escape

    style = _STATUS_STYLE.get(step.status, "")
    stderr().print(
        f"[{style}]{step.status:>7}[/{style}]  {escape(step.name)}  "
        f"({step.seconds:.1f} s)  {escape(step.detail)}",
        soft_wrap=True,
    )


def shown_path(path: str | Path) -> str:
    """A path as the caller can use it from the folder opgen was run in (a step's log, the
    precision report): relative to that folder when inside it, else absolute."""
    absolute = Path(path).resolve()
    try:
        return str(absolute.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(absolute)


def print_log_tail(step: BuildStep, text: str, project: Path) -> None:
    """The last lines of a failed step's log (`step.log`, relative to `project`)."""
    from rich.markup import escape

    if text:
        where = shown_path(project / step.log) if step.log else ""
        stderr().print(f"[dim]last lines of {escape(where)}:[/dim]", soft_wrap=True)
        stderr().print(escape(text), soft_wrap=True)


def print_report(report: BuildReport) -> None:
    """The verdict of a build/test run (its steps were shown as they ran)."""
    from rich.markup import escape

    seconds = sum(s.seconds for s in report.steps)
    failed = [s for s in report.steps if s.status == "failed"]
    if failed:
        log = failed[0].log
        where = f"; log: {shown_path(report.project / log)}" if log else ""
        stdout().print(
            f"[red]FAILED[/red] {escape(failed[0].name)} in "
            f"{escape(str(report.project))}{escape(where)}",
            soft_wrap=True,
        )
    else:
        stdout().print(
            f"[green]ok[/green] {escape(str(report.project))}: "
            f"{len(report.steps)} steps in {seconds:.1f} s",
            soft_wrap=True,
        )


def print_update(the_plan: Plan, dry_run: bool, diff: bool, written: int) -> None:
    """Per file what the update did (or would do), the diffs on request, the conflicts."""
    from collections import Counter

    from rich.markup import escape

    out = stdout()
    changed = [c for c in the_plan.changes if c.action != "unchanged"]
    for c in changed:
        style = {
            "conflict": "red",
            "unresolved conflict": "red",
            "merged": "cyan",
            "added": "green",
            "removed": "yellow",
            "deleted by user": "dim",
            "kept (rendering changed)": "yellow",
            "orphaned": "yellow",
        }.get(c.action, "")
        label = f"{c.action:>12}"  # padded before the markup, which takes no columns
        label = f"[{style}]{label}[/{style}]" if style else label
        out.print(f"{label}  {escape(c.path)}  [dim]({c.owner})[/dim]", soft_wrap=True)
        if diff and c.new_content is not None or diff and c.action == "removed":
            out.print(escape(c.diff()), soft_wrap=True, highlight=False)
    counts = Counter(c.action for c in the_plan.changes)
    summary = ", ".join(f"{n} {a}" for a, n in counts.items())
    verb = "would change" if dry_run else "changed"
    out.print(
        f"{summary}; {verb} {len([c for c in changed if c.writes])} file(s)"
        + ("" if dry_run else f", {written} written incl. .opgen state")
    )
    if the_plan.conflicts:
        stderr().print("[red]conflicts[/red] (resolve the <<<<<<< markers, then commit):")
        for path in the_plan.conflicts:
            stderr().print(f"  {escape(path)}")
