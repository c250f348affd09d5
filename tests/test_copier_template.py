"""copier drives opgen's templates: a generated project records copier's answers, copier itself
renders it again byte for byte, and templates can come from a git repository at a tag."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from conftest import EXAMPLES, ROOT, render_files
from test_update import cli, edit, new_project

from opgen.resources import templates_dir

GELU = EXAMPLES / "gelu_custom.json"


def files_of(project: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and mode."""
    return {
        p.relative_to(project).as_posix(): (p.read_bytes(), p.stat().st_mode)
        for p in sorted(project.rglob("*"))
        if p.is_file()
    }


def git(*args, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def template_repository(tmp_path: Path) -> Path:
    """opgen's templates as a team's git repository, one commit."""
    repo = tmp_path / "team-templates"
    shutil.copytree(ROOT / "templates", repo, symlinks=True)
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "v1", cwd=repo)
    return repo


def test_the_project_records_copiers_answers(tmp_path):
    project = new_project(tmp_path)
    answers = yaml.safe_load((project / ".copier-answers.yml").read_text())
    assert answers == {
        "_src_path": str(templates_dir()),
        "prototype": GELU.read_text(),
        "prototype_file": "gelu_custom.json",
        "package": "proj",
        "torch_namespace": "proj",
        "vendor": "proj",
        "socs": ["ascend910b1"],
        "adopted": False,
    }
    manifest = json.loads((project / ".opgen" / "manifest.json").read_text())
    assert manifest["files"][".copier-answers.yml"]["owner"] == "generated"


def recopy(project: Path) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, "-m", "copier", "recopy", "--trust", "--defaults", "--overwrite"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result


def test_copier_recopy_leaves_every_file_byte_identical(tmp_path):
    project = new_project(tmp_path)
    before = files_of(project)
    result = recopy(project)
    assert "identical" in result.stderr and "overwrite" not in result.stderr
    assert files_of(project) == before


def test_copier_recopy_alone_writes_every_file_of_the_project(tmp_path):
    """From copier's answers alone, into a project emptied of everything else but opgen's state
    (.opgen/) and the prototype (its input), copier writes every file back byte for byte, mode
    and all: a project holds only what its templates render (no copy of the CPU twin)."""
    project = new_project(tmp_path)
    before = files_of(project)
    kept = {".copier-answers.yml", "gelu_custom.json"}
    for path in before:
        if path not in kept and not path.startswith(".opgen/"):
            (project / path).unlink()
    recopy(project)
    assert files_of(project) == before
    assert not (project / "third_party").exists()


def test_templates_at_a_git_tag_then_an_update_to_the_next_tag_keeps_a_user_edit(tmp_path):
    repo = template_repository(tmp_path)
    git("tag", "v1", cwd=repo)
    project = new_project(tmp_path, templates=f"{repo}@v1")
    assert yaml.safe_load((project / ".copier-answers.yml").read_text())["_commit"] == "v1"

    edit(project / "CMakeLists.txt", "project(opp)", "project(opp)  # user edit")
    edit(
        repo / "layout" / "CMakeLists.txt.jinja",
        "add_subdirectory(op_host)",
        "add_subdirectory(op_host)  # v2 of the templates",
    )
    git("commit", "-qam", "v2", cwd=repo)
    git("tag", "v2", cwd=repo)
    # the working tree moves on; the tag stays
    edit(repo / "layout" / "CMakeLists.txt.jinja", "# v2 of the templates", "# v3, untagged")
    git("commit", "-qam", "v3", cwd=repo)

    result = cli("update", project, "--templates", f"{repo}@v2")
    assert result.exit_code == 0, result.output
    text = (project / "CMakeLists.txt").read_text()
    assert "project(opp)  # user edit" in text and "# v2 of the templates" in text
    assert "v3" not in text
    assert yaml.safe_load((project / ".copier-answers.yml").read_text())["_commit"] == "v2"
    manifest = json.loads((project / ".opgen" / "manifest.json").read_text())
    assert manifest["options"]["templates"] == f"{repo}@v2"


def test_a_tag_the_repository_lacks_is_bad_input(tmp_path):
    repo = template_repository(tmp_path)
    result = cli("new", GELU, "-o", tmp_path / "p", "--no-build", "--templates", f"{repo}@v9")
    assert result.exit_code == 2
    assert f"--templates {repo}@v9: copier cannot get the templates" in result.stderr
    assert "'v9'" in result.stderr
    assert not (tmp_path / "p").exists()


def test_a_git_template_without_opgens_context_names_the_cause(tmp_path):
    repo = template_repository(tmp_path)
    config = repo / "copier.yml"
    config.write_text(
        config.read_text().replace(
            "  - opgen.rendering.template_context.ProjectContext\n", "  - jinja2.ext.do\n"
        )
    )
    git("commit", "-qam", "no context", cwd=repo)
    result = cli("new", GELU, "-o", tmp_path / "p", "--no-build", "--templates", f"{repo}@HEAD")
    assert result.exit_code == 1
    # which template fails first is the file system's order; each lacks `project`
    assert re.search(r"template layout/\S+ failed \(an undefined name\)", result.stderr)
    assert (
        "must list opgen.rendering.template_context.ProjectContext in `_jinja_extensions`"
        in result.stderr
    )
    assert not (tmp_path / "p").exists()


def test_rendering_starts_no_git_process_per_file(tmp_path, monkeypatch):
    """opgen renders into a scratch directory outside any git repository, where copier's sync of
    executable bits into a git index has nothing to do: rendering.render skips it (a git process
    per file was half of a render). The method it overrides must still exist in copier."""
    from copier._main import Worker

    from opgen.frontend import prototype
    from opgen.frontend.options import Options

    assert hasattr(Worker, "_sync_git_index_executable_bit"), (
        "copier renamed the method rendering.render._scratch_worker overrides"
    )
    calls = []
    real_run = subprocess.Popen.__init__

    def counting(self, args, *rest, **kwargs):
        if Path(args[0]).name == "git":
            calls.append(args)
        real_run(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", counting)
    files = render_files(
        prototype.load(EXAMPLES / "gelu_custom.json"), Options("g", "g", "g"), templates_dir()
    )
    assert len(files) >= 40  # GELU's project, every file copier wrote
    assert len(calls) < 5, calls  # copier's probes of the template source, not one per file
    assert next(f for f in files if f.path == "build.sh").executable


def test_opgen_renders_the_data_it_planned(monkeypatch):
    """opgen hands copier's rendering the data it checked and planned: the extension plans from
    the answers only when copier renders by itself (`copier recopy`, test above)."""
    from opgen.frontend import prototype
    from opgen.frontend.options import Options
    from opgen.rendering import template_context

    planned = []
    monkeypatch.setattr(template_context, "plan_answers", planned.append)

    files = render_files(
        prototype.load(EXAMPLES / "gelu_custom.json"), Options("g", "g", "g"), templates_dir()
    )
    assert "op_kernel/gelu_custom.cpp" in {f.path for f in files}
    assert not planned
