"""Property: whatever the user adds to their project and however the templates change, an
update never loses a line the user wrote (it is merged, or kept inside conflict markers)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from conftest import EXAMPLES, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from opgen.cli import app

# Plain-text templates: inserting a line anywhere keeps them valid Jinja.
TEMPLATE_FILES = [
    "layout/CMakeLists.txt.jinja",
    "host/project/op_host/CMakeLists.txt.jinja",
    "kernel/project/op_kernel/CMakeLists.txt.jinja",
    "layout/build.sh.jinja",
]

edit = st.tuples(st.integers(0, 10_000), st.floats(0, 1), st.sampled_from(["insert", "replace"]))


def apply_edits(text: str, edits, tag: str) -> tuple[str, list[str]]:
    """Insert or replace lines; return the text and the lines added."""
    lines = text.splitlines(keepends=True)
    added = []
    for n, (_, where, kind) in enumerate(edits):
        line = f"# {tag}-{n}\n"
        i = int(where * len(lines))
        if kind == "replace" and i < len(lines) and "{" not in lines[i] and "}" not in lines[i]:
            lines[i] = line
        else:
            lines.insert(i, line)
        added.append(line.strip())
    return "".join(lines), added


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    user_edits=st.lists(edit, min_size=1, max_size=6),
    template_edits=st.lists(edit, min_size=1, max_size=6),
)
def test_update_never_loses_a_user_line(user_edits, template_edits):
    with tempfile.TemporaryDirectory(prefix="opgen-prop-") as tmp:
        tmp = Path(tmp)
        v1, v2 = tmp / "v1", tmp / "v2"
        shutil.copytree(ROOT / "templates", v1, symlinks=True)
        shutil.copytree(ROOT / "templates", v2, symlinks=True)
        project = tmp / "proj"
        result = CliRunner().invoke(
            app,
            [
                "new",
                str(EXAMPLES / "gelu_custom.json"),
                "-o",
                str(project),
                "--no-build",
                "--no-msopgen",
                "--templates",
                str(v1),
            ],
        )
        assert result.exit_code == 0, result.output
        manifest = json.loads((project / ".opgen" / "manifest.json").read_text())
        editable = sorted(manifest["files"])
        # the user edits files of both owners
        expected: dict[str, list[str]] = {}
        for n, e in enumerate(user_edits):
            path = editable[e[0] % len(editable)]
            text, added = apply_edits((project / path).read_text(), [e], f"user{n}")
            (project / path).write_text(text)
            expected.setdefault(path, []).extend(added)
        # a later edit may replace a line an earlier one added: the user's lines are those left
        expected = {
            p: [line for line in lines if line in (project / p).read_text()]
            for p, lines in expected.items()
        }
        user_owned_before = {
            p: (project / p).read_bytes()
            for p in editable
            if manifest["files"][p]["owner"] == "user"
        }
        # the templates change
        for n, e in enumerate(template_edits):
            tpl = v2 / TEMPLATE_FILES[e[0] % len(TEMPLATE_FILES)]
            text, _ = apply_edits(tpl.read_text(), [e], f"tpl{n}")
            tpl.write_text(text)
        result = CliRunner().invoke(app, ["update", str(project), "--templates", str(v2)])
        assert result.exit_code in (0, 1), result.output
        for path, lines in expected.items():
            final = (project / path).read_text()
            for line in lines:
                assert line in final, f"{line!r} lost from {path}"
        for path, content in user_owned_before.items():
            assert (project / path).read_bytes() == content
        if result.exit_code == 1:
            assert "<<<<<<<" in "".join((project / p).read_text() for p in expected)
