"""The `opgen` command line: one thin command per stage, heavy modules imported on use.

Exit codes for every command: 0 ok, 1 an action failed, 2 bad input or usage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from opgen import __version__

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2

app = typer.Typer(
    name="opgen",
    help="Scaffold Huawei Ascend custom operators from a JSON prototype.\n\n"
    "Example: opgen validate examples/gelu_custom.json",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"opgen {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Optional[bool] = typer.Option(
        None, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Scaffold Huawei Ascend custom operators from a JSON prototype."""


@app.command()
def validate(
    proto: Path = typer.Argument(..., help="Prototype JSON file (msopgen or tutorial format)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
) -> None:
    """Check a prototype against the schema and opgen's rules; print what it derives.

    Exit 0 if valid, 2 if not (every problem is listed with its JSON path).
    """
    from opgen import console, prototype
    from opgen.problems import PrototypeError

    try:
        proto_model = prototype.load(proto)
    except PrototypeError as exc:
        if as_json:
            console.print_json({"errors": [p.as_json() for p in exc.problems]})
        else:
            console.print_problems(exc)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    if as_json:
        console.print_json(proto_model.as_json())
        return
    console.print_warnings(proto_model.warnings)
    _print_summary(proto_model)


def _print_summary(proto_model) -> None:
    from rich.markup import escape
    from rich.table import Table

    from opgen import console

    table = Table(title="valid prototype", title_justify="left")
    for column in ("op", "kernel / files", "aclnn", "PyTorch schema", "dtype combinations"):
        table.add_column(column)
    for op in proto_model.ops:
        aclnn = op.aclnn.name if op.aclnn else f"none: {op.aclnn_missing_reason}"
        combos = "\n".join(", ".join(c) for c in op.dtype_combinations)
        table.add_row(op.op_type, op.snake_name, escape(aclnn), escape(op.torch_schema), combos)
    console.stdout().print(table)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the prototype format (JSON Schema 2020-12)."""
    from opgen.resources import schema_path

    typer.echo(schema_path().read_text(encoding="utf-8"), nl=False)


def main() -> None:
    app()
