"""The `opgen` command line: one thin command per stage, heavy modules imported on use.

Exit codes for every command: 0 ok, 1 an action failed, 2 bad input or usage.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from opgen import __version__

if TYPE_CHECKING:
    from typer.core import TyperOption

    from opgen.commands.new import Result
    from opgen.frontend.model import Prototype
    from opgen.frontend.options import Options

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def _flags_without_a_type() -> None:
    """typer's rich help shows a flag's type beside it (`--force <bool>`, `--help <bool>`) as if
    it took a value: a flag (every bool option here, and --help) shows none."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "opgen_flags", False):
        return

    def display_type_rich(self: TyperOption, ctx: typer.Context) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    # a mark on the function, so that a second call patches nothing
    display_type_rich.opgen_flags = True  # type: ignore[attr-defined]
    # typer has no hook for the displayed type: the method itself is replaced, by one taking
    # typer's Context (the context of every typer command), where click's base class is declared
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign, assignment]


_flags_without_a_type()

app = typer.Typer(
    name="opgen",
    help="Scaffold Huawei Ascend custom operators from a JSON prototype.\n\n"
    "Example: opgen validate examples/gelu_custom.json",
    no_args_is_help=True,
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@contextlib.contextmanager
def _exit_codes(as_json: bool) -> Iterator[None]:
    """Errors as a message and an exit code: an invalid prototype (its problems, or their JSON
    with --json) and any other bad input 2, a failed action 1."""
    from opgen.commands import console
    from opgen.errors import ActionFailed, BadInput
    from opgen.frontend.problems import PrototypeError

    try:
        yield
    except PrototypeError as exc:
        console.report_invalid(exc, as_json)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except BadInput as exc:
        console.fail(str(exc))
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except ActionFailed as exc:
        console.fail(str(exc))
        raise typer.Exit(EXIT_FAILED) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"opgen {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool | None = typer.Option(
        None, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Scaffold Huawei Ascend custom operators from a JSON prototype."""


@app.command()
def validate(
    proto: Path = typer.Argument(..., help="Prototype JSON file (msopgen or tutorial format)."),
    soc: list[str] = typer.Option(
        [], "--soc", help="Target SoC, as for opgen new (repeatable) \\[default: ascend910b1]."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
) -> None:
    """Check a prototype against the schema and opgen's rules; print what it derives.

    Runs every check opgen new runs before writing, including lowering the compute expressions
    for the SoCs. Exit 0 if valid, 2 if not (every problem is listed with its JSON path).
    """
    from opgen.commands import console
    from opgen.commands.new import load_prototype, template_data
    from opgen.frontend.options import Options, resolve_socs

    with _exit_codes(as_json):
        socs, soc_warnings = resolve_socs(soc)
        proto_model = load_prototype(proto, socs)
        data = template_data(proto_model, Options("ops", "ops", "ops", socs))
    warnings = soc_warnings + list(proto_model.warnings) + data.warnings
    if as_json:
        console.print_json({**proto_model.as_json(), "warnings": warnings})
        return
    console.print_warnings(warnings)
    _print_summary(proto_model)


def _print_summary(proto_model: Prototype) -> None:
    """Per op: the names and signatures opgen derived from the prototype."""
    from rich.markup import escape

    from opgen.commands import console

    out = console.stdout()
    for op in proto_model.ops:
        ins = ", ".join(t.name for t in op.inputs)
        outs = ", ".join(t.name for t in op.outputs)
        out.print(f"[bold]{op.op_type}[/bold]  kernel and files: {op.snake_name}", soft_wrap=True)
        aclnn = op.aclnn.prototype() if op.aclnn else f"none: {op.aclnn_missing_reason}"
        out.print(f"  aclnn    {escape(aclnn)}", soft_wrap=True)
        out.print(f"  PyTorch  {escape(op.torch_schema)}", soft_wrap=True)
        combos = " | ".join(", ".join(c) for c in op.dtype_combinations)
        out.print(f"  dtypes   ({ins}) -> ({outs}): {combos}", soft_wrap=True)


# `opgen new`'s options, named once so that its signature reads as one line per option.
_Proto = Annotated[Path, typer.Argument(help="Prototype JSON file (msopgen or tutorial format).")]
_Output = Annotated[
    Path | None,
    typer.Option(
        "-o",
        "--output",
        help="Project directory \\[default: the first op's snake name, in the current directory].",
    ),
]
_Socs = Annotated[
    list[str],
    typer.Option(
        "--soc",
        help="Target SoC, full name as npu-smi shows it (repeatable) \\[default: ascend910b1].",
    ),
]
_Package = Annotated[
    str | None,
    typer.Option("--package", help="Python package name \\[default: from the directory's name]."),
]
_Namespace = Annotated[
    str | None,
    typer.Option("--namespace", help="torch.ops namespace \\[default: the package name]."),
]
_Vendor = Annotated[
    str | None,
    typer.Option(
        "--vendor", help="CANN vendor_name of the op package \\[default: the package name]."
    ),
]
_NoBuild = Annotated[bool, typer.Option("--no-build", help="Render only; skip build and tests.")]
_DryRunNew = Annotated[bool, typer.Option("--dry-run", help="List the files; write nothing.")]
_Force = Annotated[bool, typer.Option("--force", help="Write into a non-empty directory.")]
_Msopgen = Annotated[
    Path | None,
    typer.Option("--msopgen", help="msopgen executable \\[default: msopgen on PATH, if any]."),
]
_NoMsopgen = Annotated[bool, typer.Option("--no-msopgen", help="Do not use msopgen even if found.")]
_TemplatesNew = Annotated[
    str | None,
    typer.Option(
        "--templates",
        metavar="DIR|REPO@TAG",
        help="copier template to use instead of opgen's own: a directory or a git repository "
        "at a tag.",
    ),
]
_Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="List every file written.")]
_JsonNew = Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")]


@app.command()
def new(
    proto: _Proto,
    output: _Output = None,
    soc: _Socs = [],  # noqa: B006 (typer copies its defaults)
    package: _Package = None,
    namespace: _Namespace = None,
    vendor: _Vendor = None,
    no_build: _NoBuild = False,
    dry_run: _DryRunNew = False,
    force: _Force = False,
    msopgen_path: _Msopgen = None,
    no_msopgen: _NoMsopgen = False,
    templates: _TemplatesNew = None,
    verbose: _Verbose = False,
    as_json: _JsonNew = False,
) -> None:
    """Render a complete Ascend custom-operator project from a prototype.

    Writes the kernel, host, CANN build files, the PyTorch package and its tests, then (unless
    --no-build) builds the project and runs its tests.
    """
    from opgen.commands import console
    from opgen.commands import new as new_stage

    if msopgen_path is not None and no_msopgen:
        console.fail("--msopgen and --no-msopgen exclude each other")
        raise typer.Exit(EXIT_BAD_INPUT)
    with _exit_codes(as_json):
        the_plan, proto_model = new_stage.plan(
            proto,
            output,
            soc,
            namespace,
            vendor,
            templates,
            msopgen_path,
            use_msopgen=not no_msopgen,
            force=force,
            package=package,
        )
    if not as_json:
        console.print_warnings(the_plan.warnings)
    # a template that does not render is exit 1; another opgen taking the destination, 2
    with _exit_codes(as_json), console.status("rendering the project"):
        result = new_stage.create(the_plan, proto_model, dry_run=dry_run)
    _summarize_and_build(
        result, proto_model, the_plan.options, verbose, dry_run or no_build, as_json
    )


def _summarize_and_build(
    result: Result,
    proto_model: Prototype,
    options: Options,
    verbose: bool,
    render_only: bool,
    as_json: bool,
) -> None:
    """After `opgen new` or `opgen adopt` wrote the project: the summary, then (unless only
    rendering) its build and tests; the next steps after a render without a build."""
    from opgen.commands import console
    from opgen.commands import new as new_stage

    if not as_json:
        console.print_new_summary(result, verbose)
    if render_only:
        if as_json:
            console.print_json(result.as_json())
        elif not result.dry_run:
            console.print_next_steps(
                new_stage.next_steps(result, proto_model, options, built=False)
            )
        return
    _build_new(result, proto_model, options, as_json)


def _build_new(result: Result, proto_model: Prototype, options: Options, as_json: bool) -> None:
    """`opgen new`'s build and test of the project it wrote, reported, and its exit code."""
    from opgen.commands import build, console
    from opgen.commands import new as new_stage

    report = build.run_steps(result.destination, build=True, test=True, pytest_args=[])
    if as_json:  # one document: what was written, then how the build and tests went
        console.print_json({**result.as_json(), "build": report.as_json()})
    else:
        console.print_report(report)
        if report.ok:
            console.print_next_steps(new_stage.next_steps(result, proto_model, options, built=True))
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAILED)


@app.command()
def adopt(
    directory: Path = typer.Argument(
        ..., help="An existing msopgen project: op_host/<op>.cpp and op_kernel/<op>.cpp."
    ),
    proto: Path | None = typer.Option(
        None,
        "--prototype",
        help="The ops' msopgen prototype JSON, with an opgen block's golden and test_shapes "
        "\\[default: the OpDef in op_host/, without a golden].",
    ),
    soc: _Socs = [],  # noqa: B006 (typer copies its defaults)
    package: _Package = None,
    namespace: _Namespace = None,
    no_build: _NoBuild = False,
    dry_run: _DryRunNew = False,
    verbose: _Verbose = False,
    as_json: _JsonNew = False,
) -> None:
    """Give an existing msopgen project opgen's PyTorch package (on the CPU twin) and tests.

    The project's op_host/ and op_kernel/ files stay as they are and opgen never writes them;
    it adds the PyTorch package (the CPU adapter runs the project's own kernel on the twin), the
    tests, the bench and its .opgen state, then (unless --no-build) builds and tests it.
    """
    from opgen.commands import adopt as adopt_stage
    from opgen.commands import console

    with _exit_codes(as_json):
        the_plan, proto_model = adopt_stage.plan(directory, proto, soc, package, namespace)
    if not as_json:
        console.print_warnings(the_plan.warnings)
    with _exit_codes(as_json), console.status("rendering opgen's files"):
        result = adopt_stage.create(the_plan, proto_model, dry_run=dry_run)
    _summarize_and_build(
        result, proto_model, the_plan.options, verbose, dry_run or no_build, as_json
    )


@app.command()
def update(
    project: Path = typer.Argument(Path("."), help="Project directory."),
    templates: str | None = typer.Option(
        None,
        "--templates",
        metavar="DIR|REPO@TAG",
        help="copier template to switch to, e.g. a newer tag (recorded for later updates).",
    ),
    soc: list[str] = typer.Option([], "--soc", help="Change the target SoC(s) (repeatable)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change; write nothing."),
    diff: bool = typer.Option(False, "--diff", help="With the report, print unified diffs."),
    allow_dirty: bool = typer.Option(
        False, "--allow-dirty", help="Update even over uncommitted changes in git."
    ),
    restore: list[str] = typer.Option(
        [],
        "--restore",
        help="Write this file anew from the rendering, e.g. a deleted "
        "op_kernel/OP_compute.h (repeatable).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on stdout."),
) -> None:
    """Re-render a project after a template or prototype change, keeping the user's edits.

    Edited files are merged three-way (git merge-file); conflicts get markers and exit code 1.
    User-owned files (the compute step, the tiling policy) change only where opgen's rendering
    of them changed, e.g. after a new compute expression.
    """
    from opgen.commands import console
    from opgen.commands import update as update_stage
    from opgen.frontend.options import resolve_socs
    from opgen.project import manifest as project_state

    with contextlib.ExitStack() as held:
        with _exit_codes(as_json):  # a template that does not render is exit 1
            socs, soc_warnings = resolve_socs(soc) if soc else ((), [])
            if not dry_run:
                held.enter_context(project_state.locked(project))
            the_plan = update_stage.plan_update(
                project, templates, socs or None, allow_dirty, dry_run, tuple(restore)
            )
        if not as_json:
            console.print_warnings(soc_warnings + the_plan.warnings)
        written = 0 if dry_run else update_stage.apply(the_plan)
    if as_json:
        console.print_json({**the_plan.as_json(), "dry_run": dry_run, "files_written": written})
    else:
        console.print_update(the_plan, dry_run, diff, written)
    raise typer.Exit(EXIT_FAILED if the_plan.conflicts else EXIT_OK)


def _project_dir(project: Path) -> Path:
    from opgen.commands import console
    from opgen.project import manifest as project_state

    try:
        project_state.load(project)
    except project_state.ProjectError as exc:
        console.fail(str(exc))
        raise typer.Exit(EXIT_BAD_INPUT) from None
    return project


@app.command()
def build(
    project: Path = typer.Argument(Path("."), help="Project directory."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON on stdout."),
) -> None:
    """Build a generated project (PyTorch extension; the CANN package when CANN is present)."""
    from opgen.commands import build as build_stage

    raise typer.Exit(build_stage.build_and_test(_project_dir(project), as_json=as_json, test=False))


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def test(
    ctx: typer.Context,
    project: Path = typer.Argument(Path("."), help="Project directory."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON on stdout."),
) -> None:
    """Run a generated project's tests; arguments after -- go to pytest."""
    from opgen.commands import build as build_stage

    raise typer.Exit(
        build_stage.build_and_test(
            _project_dir(project), as_json=as_json, build=False, pytest_args=list(ctx.args)
        )
    )


@app.command()
def bench(
    project: Path = typer.Argument(Path("."), help="Project directory (built)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON on stdout."),
    quick: bool = typer.Option(False, "--quick", help="One small size per op and dtype."),
) -> None:
    """Time each op and dtype against its reference (torch computing the golden in the op's
    dtypes) on the same device, at a few sizes; on the CPU the op runs on the twin, an
    emulation, not NPU performance. Runs the project's bench/run.py."""
    from opgen.commands import bench as bench_stage
    from opgen.commands import console

    directory = _project_dir(project)
    with _exit_codes(as_json), console.status("timing the ops …"):
        report = bench_stage.run(directory, quick=quick)
    if as_json:
        console.print_json(report)
    else:
        typer.echo(bench_stage.table(report))


@app.command()
def doctor(
    project: Path = typer.Argument(
        Path("."),
        help="A project to check: was it generated by this opgen, whose CPU twin it builds "
        "against? (Skipped when the directory is not a project.)",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the findings as JSON on stdout."),
) -> None:
    """Report what this machine has for each step and what that means, and whether the project
    in PROJECT (the current directory) was generated by this opgen."""
    from rich.markup import escape
    from rich.table import Table

    from opgen.commands import console
    from opgen.commands import doctor as doctor_stage

    found = doctor_stage.checks(project)
    if as_json:
        console.print_json([c.as_json() for c in found])
        return
    table = Table(title="opgen doctor", title_justify="left")
    for column in ("what", "found", "what it means"):
        table.add_column(column)
    for c in found:
        table.add_row(
            c.what, escape(c.found) if c.found else "[yellow]not found[/yellow]", escape(c.meaning)
        )
    console.stdout().print(table)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the prototype format (JSON Schema 2020-12)."""
    from opgen.resources import schema_path

    typer.echo(schema_path().read_text(encoding="utf-8"), nl=False)


def main() -> None:
    """Run the command line: SIGTERM unwinds like Ctrl-C (staging and backups are cleaned up),
    and a file-system error is a message, not a traceback."""
    import signal

    def terminated(signum: int, frame: FrameType | None) -> NoReturn:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminated)
    try:
        app()
    except OSError as exc:
        from opgen.commands import console

        where = f"{exc.filename}: " if exc.filename else ""
        console.fail(f"{where}{exc.strerror or exc}")
        raise SystemExit(EXIT_FAILED) from None
