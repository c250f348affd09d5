"""opgen update: template changes, prototype changes, user edits, conflicts, no-ops."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT
from typer.testing import CliRunner

from opgen.cli import app
from opgen.commands import update as update_stage

GELU = EXAMPLES / "gelu_custom.json"
KERNEL = "op_kernel/gelu_custom.cpp"  # generated
HOST = "op_host/gelu_custom.cpp"  # generated
COMPUTE = "op_kernel/gelu_custom_compute.h"  # user-owned
POLICY = "op_host/gelu_custom_tiling_policy.h"  # user-owned


def cli(*args):
    return CliRunner().invoke(app, [*map(str, args)])


def new_project(tmp_path: Path, proto: Path = GELU, templates: Path | None = None) -> Path:
    dest = tmp_path / "proj"
    args = ["new", proto, "-o", dest, "--no-build", "--no-msopgen"]
    if templates is not None:
        args += ["--templates", templates]
    result = cli(*args)
    assert result.exit_code == 0, result.output
    return dest


def snapshot(project: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(project).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(project.rglob("*"))
        if p.is_file()
    }


def template_copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(ROOT / "templates", target, symlinks=True)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def add_the_add_example(project: Path) -> None:
    """Append examples/add_custom.json's op to the project's (GELU) prototype."""
    proto = project / "gelu_custom.json"
    data = json.loads(proto.read_text())
    data.append(json.loads((EXAMPLES / "add_custom.json").read_text())[0])
    proto.write_text(json.dumps(data, indent=2))


def test_no_op_update_touches_nothing(tmp_path):
    project = new_project(tmp_path)
    before = snapshot(project)
    result = cli("update", project)
    assert result.exit_code == 0, result.output
    assert snapshot(project) == before


def test_dry_run_writes_nothing(tmp_path):
    project = new_project(tmp_path)
    (project / "op_host" / "CMakeLists.txt").unlink()
    proto = project / "gelu_custom.json"
    data = json.loads(proto.read_text())
    data[0]["input_desc"][0]["type"].append("int32")
    data[0]["output_desc"][0]["type"].append("int32")
    data[0].pop("opgen")
    proto.write_text(json.dumps(data))
    before = snapshot(project)
    result = cli("update", project, "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["dry_run"] is True and report["files_written"] == 0
    assert any(f["action"] == "updated" for f in report["files"])
    assert snapshot(project) == before


def test_template_change_merges_into_the_users_compute_and_tiling(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    # the user tunes the compute step and the tiling policy (user-owned files)
    edit(project / COMPUTE, "    // y <- 0.5 * x\n", "    // user: tuned compute\n")
    edit(
        project / POLICY,
        "constexpr uint64_t MIN_ELEMS_PER_CORE = 1024;",
        "constexpr uint64_t MIN_ELEMS_PER_CORE = 4096;  // user: tuned tiling",
    )
    # template v2 changes a generated file and the compute step's template
    edit(
        v2 / "layout" / "CMakeLists.txt.jinja",
        "project(opp)",
        "project(opp)\n# v2 of the templates",
    )
    compute_tpl = next((v2 / "kernel" / "op").rglob("*_compute.h.jinja"))
    compute_tpl.write_text(compute_tpl.read_text() + "// v2 compute template\n")
    result = cli("update", project, "--templates", v2, "--json")
    assert result.exit_code == 0, result.output
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions["CMakeLists.txt"] == "updated" and actions[COMPUTE] == "merged"
    assert actions[POLICY] == "unchanged"
    assert "# v2 of the templates" in (project / "CMakeLists.txt").read_text()
    compute = (project / COMPUTE).read_text()
    assert "// user: tuned compute\n" in compute and compute.endswith("// v2 compute template\n")
    assert "= 4096;  // user: tuned tiling" in (project / POLICY).read_text()
    manifest = json.loads((project / ".opgen" / "manifest.json").read_text())
    assert manifest["options"]["templates"] == str(v2.resolve())


def git_repo(project: Path) -> list[str]:
    git = ["git", "-C", str(project)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run(
        [*git, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], check=True
    )
    return git


def test_a_new_compute_expression_reaches_the_users_compute_step(tmp_path):
    project = new_project(tmp_path)
    git_repo(project)  # the prototype edit below stays uncommitted: it must not block
    edit(project / POLICY, "MIN_ELEMS_PER_CORE = 1024;", "MIN_ELEMS_PER_CORE = 2048;")
    edit(
        project / COMPUTE,
        '#include "kernel_operator.h"\n',
        '#include "kernel_operator.h"\n// user: my note\n',
    )
    subprocess.run(
        [
            "git",
            "-C",
            str(project),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qam",
            "tune",
        ],
        check=True,
    )
    proto = project / "gelu_custom.json"
    data = json.loads(proto.read_text())
    data[0]["opgen"]["compute"]["y"] = "x * sigmoid(1.702 * x)"
    proto.write_text(json.dumps(data, indent=2))
    result = cli("update", project, "--json")
    assert result.exit_code == 0, result.output
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions[COMPUTE] == "merged" and actions[POLICY] == "merged"
    compute = (project / COMPUTE).read_text()
    assert "//   y = x * sigmoid(1.702 * x)" in compute and "AscendC::Sigmoid" in compute
    assert "AscendC::Tanh" not in compute and "// user: my note\n" in compute
    assert "MIN_ELEMS_PER_CORE = 2048;" in (project / POLICY).read_text()


def test_removing_the_compute_expression_leaves_the_users_step_alone(tmp_path):
    project = new_project(tmp_path)
    before = (project / COMPUTE).read_bytes()
    proto = project / "gelu_custom.json"
    data = json.loads(proto.read_text())
    data[0]["opgen"].pop("compute")
    proto.write_text(json.dumps(data, indent=2))
    result = cli("update", project, "--json")
    assert result.exit_code == 0, result.output
    assert (project / COMPUTE).read_bytes() == before  # never the zero-writing placeholder


def test_restore_writes_a_deleted_user_file_anew(tmp_path):
    project = new_project(tmp_path)
    before = (project / COMPUTE).read_bytes()
    (project / COMPUTE).unlink()
    result = cli("update", project, "--json")
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions[COMPUTE] == "deleted by user" and not (project / COMPUTE).exists()
    result = cli("update", project, "--restore", COMPUTE, "--json")
    assert result.exit_code == 0, result.output
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions[COMPUTE] == "restored" and (project / COMPUTE).read_bytes() == before
    result = cli("update", project, "--restore", "op_kernel/nope.h")
    assert result.exit_code == 2 and "does not render that file" in result.stderr


def test_a_missing_pristine_copy_never_overwrites_an_edit(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    edit(project / "CMakeLists.txt", "project(opp)", "project(opp)  # user edit")
    (project / ".opgen" / "pristine" / "CMakeLists.txt").unlink()
    edit(
        v2 / "layout" / "CMakeLists.txt.jinja",
        "add_subdirectory(op_host)",
        "add_subdirectory(op_host)  # v2",
    )
    result = cli("update", project, "--templates", v2, "--json")
    assert result.exit_code == 1  # no base to merge from: the differences are marked
    text = (project / "CMakeLists.txt").read_text()
    assert "project(opp)  # user edit" in text and "<<<<<<<" in text


def test_edited_generated_file_is_merged_cleanly(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    edit(
        project / "op_host" / "CMakeLists.txt",
        "npu_op_package_add(",
        "# user: extra host sources go here\nnpu_op_package_add(",
    )
    edit(
        v2 / "host" / "project" / "op_host" / "CMakeLists.txt.jinja",
        "aux_source_directory(",
        "# v2 header note\naux_source_directory(",
    )
    result = cli("update", project, "--templates", v2, "--json")
    assert result.exit_code == 0, result.output
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions["op_host/CMakeLists.txt"] == "merged"
    text = (project / "op_host" / "CMakeLists.txt").read_text()
    assert "# user: extra host sources go here" in text and "# v2 header note" in text


def test_overlapping_edit_gives_markers_and_exit_1(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    edit(project / "CMakeLists.txt", "project(opp)", "project(opp_user)")
    edit(v2 / "layout" / "CMakeLists.txt.jinja", "project(opp)", "project(opp_v2)")
    result = cli("update", project, "--templates", v2)
    assert result.exit_code == 1
    assert "CMakeLists.txt" in result.stderr
    text = (project / "CMakeLists.txt").read_text()
    assert "<<<<<<< CMakeLists.txt (yours)" in text and "project(opp_user)" in text
    assert ">>>>>>> CMakeLists.txt (new opgen rendering)" in text and "project(opp_v2)" in text
    assert not list(project.rglob("*.rej"))


def test_prototype_change_adds_a_dtype_without_touching_the_compute(tmp_path):
    project = new_project(tmp_path)
    compute = project / COMPUTE
    compute.write_text(compute.read_text() + "\n// user compute edit\n")
    before_compute = compute.read_bytes()
    proto = project / "gelu_custom.json"
    data = json.loads(proto.read_text())
    for tensor in data[0]["input_desc"] + data[0]["output_desc"]:
        tensor["type"].append("fp16")  # a fourth combination would repeat: use int8 instead
        tensor["type"][-1] = "int8"
    data[0]["opgen"].pop("compute")  # int8 GELU has no vector lowering; the golden stays
    proto.write_text(json.dumps(data, indent=2))
    result = cli("update", project, "--json")
    assert result.exit_code == 0, result.output
    host = (project / HOST).read_text()
    assert "ge::DT_INT8" in host  # the OpDef lists the new dtype
    assert compute.read_bytes() == before_compute
    changed = {f["path"] for f in json.loads(result.stdout)["files"] if f["action"] != "unchanged"}
    assert HOST in changed and any(p.startswith("tests/") for p in changed)


def test_new_op_in_the_prototype_appears(tmp_path):
    project = new_project(tmp_path)
    add_the_add_example(project)
    result = cli("update", project, "--json")
    assert result.exit_code == 0, result.output
    added = {f["path"] for f in json.loads(result.stdout)["files"] if f["action"] == "added"}
    assert "op_host/add_custom.cpp" in added and (project / "op_host" / "add_custom.cpp").is_file()


def test_deleted_file_stays_deleted(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    (project / "build.sh").unlink()
    edit(v2 / "layout" / "build.sh.jinja", "set -euo pipefail", "set -euo pipefail\n# v2")
    result = cli("update", project, "--templates", v2, "--json")
    assert result.exit_code == 0
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions["build.sh"] == "deleted by user" and not (project / "build.sh").exists()


def test_files_no_longer_produced_are_removed_only_if_unmodified(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    for name in ("gone.txt", "kept.txt"):
        (v1 / "layout" / f"{name}.jinja").write_text(
            '{% import "macros/header.jinja" as header %}\n'
            "{{ header.sh(project.header) }}\nold file\n"
        )
    project = new_project(tmp_path, templates=v1)
    (project / "kept.txt").write_text((project / "kept.txt").read_text() + "user line\n")
    result = cli("update", project, "--templates", v2, "--json")
    assert result.exit_code == 0
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions["gone.txt"] == "removed" and not (project / "gone.txt").exists()
    assert actions["kept.txt"] == "kept (modified, no longer produced)"
    assert (project / "kept.txt").read_text().endswith("user line\n")


def test_soc_option_is_recorded_and_rerenders(tmp_path):
    # leaky_relu has no bfloat16, which 310P cannot run (gelu's would be refused: exit 2)
    project = new_project(tmp_path, EXAMPLES / "leaky_relu_custom.json")
    result = cli("update", project, "--soc", "ascend310p3")
    assert result.exit_code == 0, result.output
    presets = json.loads((project / "CMakePresets.json").read_text())
    assert (
        presets["configurePresets"][0]["cacheVariables"]["ASCEND_COMPUTE_UNIT"]["value"]
        == "ascend310p"
    )
    manifest = json.loads((project / ".opgen" / "manifest.json").read_text())
    assert manifest["options"]["socs"] == ["ascend310p3"]
    assert cli("update", project).exit_code == 0  # the recorded SoC is reused: a no-op now
    assert "ascend310p" in (project / "CMakePresets.json").read_text()


def test_dirty_git_tree_is_refused_naming_the_files(tmp_path):
    project = new_project(tmp_path)
    git_repo(project)
    edit(
        project / "CMakeLists.txt",
        "add_subdirectory(op_kernel)",
        "add_subdirectory(op_kernel)\n# dirty",
    )
    v2 = template_copy(tmp_path, "v2")
    edit(v2 / "layout" / "CMakeLists.txt.jinja", "project(opp)", "project(opp)\n# v2")
    result = cli("update", project, "--templates", v2)
    assert result.exit_code == 2 and "uncommitted changes: CMakeLists.txt" in result.stderr
    assert "git stash" not in result.stderr
    assert cli("update", project, "--templates", v2, "--dry-run").exit_code == 0
    assert cli("update", project, "--templates", v2, "--allow-dirty").exit_code == 0


def test_uncommitted_changes_the_update_does_not_write_never_block(tmp_path):
    project = new_project(tmp_path)
    git_repo(project)
    (project / "README.md").write_text("my notes\n")  # dirty, but the update leaves it alone
    proto = project / "gelu_custom.json"
    data = json.loads(proto.read_text())
    data[0]["opgen"]["golden"]["y"] = "torch.nn.functional.gelu(x)"
    proto.write_text(json.dumps(data, indent=2))  # the prototype itself is uncommitted too
    result = cli("update", project, "--json")
    assert result.exit_code == 0, result.output
    assert (project / "README.md").read_text() == "my notes\n"


def test_failure_part_way_restores_the_project(tmp_path, monkeypatch):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    edit(v2 / "layout" / "CMakeLists.txt.jinja", "project(opp)", "project(opp2)")
    edit(v2 / "layout" / "build.sh.jinja", "set -euo pipefail", "set -eu")
    before = {p: c for p, (c, _) in snapshot(project).items()}
    the_plan = update_stage.plan_update(project, v2)
    real_replace = Path.replace
    calls = {"n": 0}

    def flaky_replace(self, target):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", flaky_replace)
    with pytest.raises(OSError):
        update_stage.apply(the_plan)
    monkeypatch.undo()
    after = {p: c for p, (c, _) in snapshot(project).items()}
    assert after == before


def test_an_update_killed_part_way_is_completed_by_the_next(tmp_path, monkeypatch):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    edit(v2 / "layout" / "CMakeLists.txt.jinja", "project(opp)", "project(opp2)")
    edit(v2 / "layout" / "build.sh.jinja", "set -euo pipefail", "set -eu")
    the_plan = update_stage.plan_update(project, v2)
    written = []
    real_replace = Path.replace

    def record(self, target):
        written.append(Path(target).relative_to(project).as_posix())
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", record)
    update_stage.apply(the_plan)
    monkeypatch.undo()
    state = [i for i, path in enumerate(written) if path.startswith(".opgen/")]
    assert written[-1] == ".opgen/manifest.json"
    assert state == list(range(state[0], len(written)))  # project files first, state last
    # killed before the state was written: the project files are new, the state is old
    killed = new_project(tmp_path / "again", templates=v1)
    the_plan = update_stage.plan_update(killed, v2)
    for change in the_plan.changes:
        if change.writes:
            (killed / change.path).write_bytes(change.new_content)
    result = cli("update", killed, "--templates", v2, "--json")
    assert result.exit_code == 0, result.output
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions["CMakeLists.txt"] == "unchanged" and actions["build.sh"] == "unchanged"
    manifest = json.loads((killed / ".opgen" / "manifest.json").read_text())
    assert manifest["options"]["templates"] == str(v2.resolve())


def test_not_a_project_is_a_usage_error(tmp_path):
    result = cli("update", tmp_path)
    assert result.exit_code == 2 and "not an opgen project" in result.stderr
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "manifest",
    [
        b"{}",
        b"[]",
        b"\xff\xfe\x00binary",
        b'{"options": 3}',
        b'{"options": {"package": "p"}, "files": {}}',
    ],
)
@pytest.mark.parametrize("command", ["update", "build", "test"])
def test_a_damaged_manifest_is_a_message_not_a_traceback(tmp_path, manifest, command):
    """Every command reads .opgen/manifest.json through one loader: exit 2, what is wrong, how
    to recover, and nothing written."""
    project = tmp_path / "proj"
    (project / ".opgen").mkdir(parents=True)
    (project / ".opgen" / "manifest.json").write_bytes(manifest)
    before = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    result = cli(command, project)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "manifest.json is damaged" in result.stderr
    assert "opgen new" in result.stderr
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("*")) == before


def test_unresolved_markers_keep_exit_1(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    edit(project / "CMakeLists.txt", "project(opp)", "project(mine)")
    edit(v2 / "layout" / "CMakeLists.txt.jinja", "project(opp)", "project(theirs)")
    assert cli("update", project, "--templates", v2).exit_code == 1
    text = (project / "CMakeLists.txt").read_text()
    result = cli("update", project, "--json")  # the markers are still there
    assert result.exit_code == 1
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions["CMakeLists.txt"] == "unresolved conflict"
    assert (project / "CMakeLists.txt").read_text() == text


def test_a_changed_contract_of_a_users_file_is_reported(tmp_path):
    project = new_project(tmp_path, proto=EXAMPLES / "add_custom.json")
    proto = project / "add_custom.json"
    data = json.loads(proto.read_text())
    data[0].pop("opgen", None)  # the compute step is the user's to write
    proto.write_text(json.dumps(data, indent=2))
    assert cli("update", project).exit_code == 0
    kernel = project / "op_kernel" / "add_custom_kernel.h"  # written by that update
    kernel.write_text(kernel.read_text().replace("// TODO(opgen): compute", "// mine"))
    data[0]["input_desc"].append(
        {
            "name": "w",
            "param_type": "required",
            "format": ["ND"],
            "type": data[0]["input_desc"][0]["type"],
        }
    )
    proto.write_text(json.dumps(data, indent=2))
    result = cli("update", project, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    actions = {f["path"]: f["action"] for f in report["files"]}
    assert actions["op_kernel/add_custom_kernel.h"] == "kept (rendering changed)"
    assert any(
        w.startswith("op_kernel/add_custom_kernel.h: opgen's rendering of this file")
        for w in report["warnings"]
    )
    assert "// mine" in kernel.read_text()


def test_a_renamed_ops_files_of_the_user_are_reported_orphaned(tmp_path):
    project = new_project(tmp_path)
    proto = project / "gelu_custom.json"
    data = json.loads(proto.read_text())
    data[0]["op"] = "GeluTanh"
    proto.write_text(json.dumps(data, indent=2))
    result = cli("update", project, "--json")
    assert result.exit_code == 0, result.output
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions[COMPUTE] == "orphaned" and (project / COMPUTE).is_file()
    assert actions[KERNEL] == "removed" and not (project / KERNEL).exists()
    assert actions["op_kernel/gelu_tanh_compute.h"] == "added"


def test_a_users_file_in_the_way_of_a_new_op_is_kept(tmp_path):
    project = new_project(tmp_path)
    mine = project / "op_kernel" / "add_custom_compute.h"
    mine.write_text("// my own file\n")
    add_the_add_example(project)
    result = cli("update", project, "--json")
    assert result.exit_code == 0, result.output
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions["op_kernel/add_custom_compute.h"] == "kept (already there)"
    assert mine.read_text() == "// my own file\n"


def test_a_damaged_pristine_copy_is_no_base_for_a_merge(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    edit(project / "CMakeLists.txt", "project(opp)", "project(opp)  # user edit")
    pristine = project / ".opgen" / "pristine" / "CMakeLists.txt"
    pristine.write_text((project / "CMakeLists.txt").read_text())  # as if it held the edit
    edit(
        v2 / "layout" / "CMakeLists.txt.jinja",
        "add_subdirectory(op_host)",
        "add_subdirectory(op_host)  # v2",
    )
    result = cli("update", project, "--templates", v2)
    assert result.exit_code == 1  # not trusted as a base: marked, never overwritten
    text = (project / "CMakeLists.txt").read_text()
    assert "project(opp)  # user edit" in text and "<<<<<<<" in text


def test_a_second_opgen_on_the_same_project_is_refused(tmp_path):
    from opgen.project import manifest as project_state

    project = new_project(tmp_path)
    with project_state.locked(project.resolve()):
        result = cli("update", project)
        assert result.exit_code == 2 and "another opgen is writing" in result.stderr
        result = cli("new", GELU, "-o", project, "--force", "--no-build", "--no-msopgen")
        assert result.exit_code == 2 and "another opgen is writing" in result.stderr
    assert cli("update", project).exit_code == 0
    assert not list(tmp_path.glob(".*opgen-lock"))


def test_leftovers_of_a_killed_update_are_cleaned_up(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    (project / ".opgen-update-x1y2").mkdir()
    (project / ".opgen-update-x1y2" / "0").write_text("a backup")
    (project / "op_host" / ".gelu_custom.cpp.opgen-new").write_text("staged")
    edit(v2 / "layout" / "CMakeLists.txt.jinja", "project(opp)", "project(opp2)")
    assert cli("update", project, "--templates", v2).exit_code == 0
    assert not list(project.glob(".opgen-update-*"))
    assert not list(project.rglob("*.opgen-new"))


def test_a_template_that_does_not_render_is_a_message(tmp_path):
    v1, v2 = template_copy(tmp_path, "v1"), template_copy(tmp_path, "v2")
    project = new_project(tmp_path, templates=v1)
    (v2 / "layout" / "broken.txt.jinja").write_text("{% for x in %}\n")
    before = snapshot(project)
    result = cli("update", project, "--templates", v2)
    assert result.exit_code == 1 and "broken.txt.jinja" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert snapshot(project) == before
