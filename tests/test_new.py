"""opgen new: destination handling, dry run, determinism, ownership, failure atomicity."""

from __future__ import annotations

import json
import os
import shutil
import sys
import types
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, SHARED_PROTOS, op
from typer.testing import CliRunner

from opgen import literals
from opgen.cli import app
from opgen.frontend import options

GELU = EXAMPLES / "gelu_custom.json"


def invoke(*args, cwd: Path | None = None, monkeypatch=None):
    if cwd is not None:
        monkeypatch.chdir(cwd)
    return CliRunner().invoke(app, ["new", *map(str, args), "--no-build", "--no-msopgen"])


def tree(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize(
    "proto",
    sorted(SHARED_PROTOS.glob("*.json")) + sorted(EXAMPLES.glob("*.json")),
    ids=lambda p: p.name,
)
def test_samples_render(proto, tmp_path):
    result = invoke(proto, "-o", tmp_path / "p")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "p" / ".opgen" / "manifest.json").read_text())
    assert manifest["options"]["package"] == "p"
    assert (tmp_path / "p" / proto.name).read_bytes() == proto.read_bytes()


@pytest.mark.parametrize("outputs", [[], None], ids=["empty-list", "no-key"])
def test_an_op_without_outputs_renders(outputs, tmp_path):
    """msopgen's output-less in-place ops (ScatterMax, ScatterElements) render end to end."""
    data = op(op="ScatterMaxCustom", opgen={"compute": {"x": "max(x, y)"}})
    if outputs is None:
        del data["output_desc"]
    else:
        data["output_desc"] = outputs
    proto = tmp_path / "scatter.json"
    proto.write_text(json.dumps([data]))
    result = invoke(proto, "-o", tmp_path / "p")
    assert result.exit_code == 0, result.output
    root = tmp_path / "p"
    host = (root / "op_host/scatter_max_custom.cpp").read_text()
    assert "this->Output(" not in host
    kernel = (root / "op_kernel/scatter_max_custom.cpp").read_text()
    assert "xRefOut_.Init(pipe_, x," in kernel
    ops_cpp = (root / "p/csrc/ops.cpp").read_text()
    assert '"scatter_max_custom(Tensor(a!) x, Tensor y) -> ()"' in ops_cpp  # y is only read
    assert "x.copy_(updated_[0]);" in ops_cpp and "y.copy_(" not in ops_cpp
    npu = (root / "p/csrc_npu/scatter_max_custom_npu.cpp").read_text()
    assert "EXEC_NPU_CMD_EXT(aclnnScatterMaxCustom, x_, y_);" in npu
    test = (root / "tests/test_scatter_max_custom.py").read_text()
    assert 'Output("x", updates=0, ir=False),' in test


def test_an_optional_output_renders(tmp_path):
    data = op(
        op="AddcdivCustom",
        output_desc=[
            {"name": "z", "type": ["fp16", "float"]},
            {"name": "ratio", "param_type": "optional", "type": ["fp16", "float"]},
        ],
        opgen={"compute": {"z": "x * y", "ratio": "x / y"}},
    )
    proto = tmp_path / "addcdiv.json"
    proto.write_text(json.dumps([data]))
    result = invoke(proto, "-o", tmp_path / "p")
    assert result.exit_code == 0, result.output
    root = tmp_path / "p"
    host = (root / "op_host/addcdiv_custom.cpp").read_text()
    assert 'this->Output("ratio")\n            .ParamType(OPTIONAL)' in host
    npu = (root / "p/csrc_npu/addcdiv_custom_npu.cpp").read_text()
    assert "EXEC_NPU_CMD_EXT(aclnnAddcdivCustom, x_, y_, zOut_, ratioOut_);" in npu
    assert "return std::make_tuple(zOut_, ratioOut_);" in npu
    assert "always allocates it" in (root / "README.md").read_text()
    test = (root / "tests/test_addcdiv_custom.py").read_text()
    assert 'Output("ratio", returned=1),' in test


def test_default_directory_is_the_first_ops_snake_name(tmp_path, monkeypatch):
    result = invoke(GELU, cwd=tmp_path, monkeypatch=monkeypatch)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "gelu_custom" / "CMakeLists.txt").is_file()


def test_non_empty_directory_needs_force(tmp_path):
    dest = tmp_path / "p"
    dest.mkdir()
    (dest / "notes.txt").write_text("mine")
    result = invoke(GELU, "-o", dest)
    assert result.exit_code == 2 and "not empty" in result.stderr
    assert tree(dest) == {"notes.txt": b"mine"}
    result = invoke(GELU, "-o", dest, "--force")
    assert result.exit_code == 0
    assert (dest / "notes.txt").read_text() == "mine" and (dest / "CMakeLists.txt").is_file()


def test_force_keeps_the_users_files_and_says_so(tmp_path):
    dest = tmp_path / "p"
    assert invoke(GELU, "-o", dest).exit_code == 0
    compute = dest / "op_kernel" / "gelu_custom_compute.h"
    compute.write_text(compute.read_text() + "// my tuned step\n")
    (dest / "CMakeLists.txt").write_text("clobbered\n")  # generated: --force renders it anew
    result = invoke(GELU, "-o", dest, "--force")
    assert result.exit_code == 0, result.output
    assert compute.read_text().endswith("// my tuned step\n")
    assert (dest / "CMakeLists.txt").read_text() != "clobbered\n"
    assert "kept as they were" in result.stdout and "gelu_custom_compute.h" in result.stdout


def test_summary_groups_the_files_and_says_what_next(tmp_path):
    result = CliRunner().invoke(
        app,
        ["new", str(GELU), "-o", str(tmp_path / "p"), "--no-build", "--no-msopgen"],
        terminal_width=200,
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "op_kernel/" in out and "op_kernel/opgen_kernel.h" not in out  # collapsed
    assert "third_party/" not in out  # the twin is the installed opgen's, not a copy
    assert "yours to edit" in out and "op_kernel/gelu_custom_compute.h" in out
    assert (
        "next:" in out
        and "torch.ops.p.gelu_custom(torch.randn(8, dtype=torch.float16))" in out
        and f"opgen build {tmp_path / 'p'}" in out
    )
    verbose = CliRunner().invoke(
        app,
        ["new", str(GELU), "-o", str(tmp_path / "q"), "--no-build", "--no-msopgen", "--verbose"],
    )
    assert "op_kernel/opgen_kernel.h" in verbose.stdout


def test_dry_run_writes_nothing_and_lists_owners(tmp_path):
    dest = tmp_path / "p"
    result = CliRunner().invoke(
        app, ["new", str(GELU), "-o", str(dest), "--dry-run", "--json", "--no-msopgen"]
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["dry_run"] is True and not dest.exists()
    owners = {f["path"]: f["owner"] for f in data["files"]}
    assert owners["CMakeLists.txt"] == "generated"
    assert set(owners.values()) <= {"generated", "user"}


def test_output_is_byte_identical_across_runs(tmp_path):
    assert invoke(GELU, "-o", tmp_path / "a" / "p").exit_code == 0
    assert invoke(GELU, "-o", tmp_path / "b" / "p").exit_code == 0
    assert tree(tmp_path / "a" / "p") == tree(tmp_path / "b" / "p")


def test_generated_files_carry_the_mark_and_pristine_copies(tmp_path):
    assert invoke(GELU, "-o", tmp_path / "p").exit_code == 0
    manifest = json.loads((tmp_path / "p" / ".opgen" / "manifest.json").read_text())
    for path, entry in manifest["files"].items():
        content = (tmp_path / "p" / path).read_bytes()
        assert (tmp_path / "p" / ".opgen" / "pristine" / path).read_bytes() == content
        if entry["owner"] == "generated":
            assert b"Code generated by opgen" in content[:400], path
    assert manifest["options"]["socs"] == ["ascend910b1"]


def test_build_sh_is_executable(tmp_path):
    assert invoke(GELU, "-o", tmp_path / "p").exit_code == 0
    assert (tmp_path / "p" / "build.sh").stat().st_mode & 0o100


def test_presets_carry_soc_and_vendor(tmp_path):
    result = invoke(
        GELU,
        "-o",
        tmp_path / "my-ops",
        "--soc",
        "ascend910b1",
        "--soc",
        "ascend910_9391",
        "--vendor",
        "acme",
    )
    assert result.exit_code == 0, result.output
    presets = json.loads((tmp_path / "my-ops" / "CMakePresets.json").read_text())
    cache = presets["configurePresets"][0]["cacheVariables"]
    assert cache["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b;ascend910_93"
    assert cache["vendor_name"]["value"] == "acme"
    manifest = json.loads((tmp_path / "my-ops" / ".opgen" / "manifest.json").read_text())
    assert manifest["options"]["package"] == "my_ops"
    assert manifest["options"]["namespace"] == "my_ops"


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--soc", "ascend91Ob1"], "did you mean 'ascend910b1'"),
        (["--namespace", "Bad-NS"], "lower-case Python identifier"),
        (["--vendor", "a/b"], "letters, digits and underscores"),
        (["--templates", "/nonexistent"], "no such directory"),
    ],
)
def test_bad_options_exit_2_and_write_nothing(args, fragment, tmp_path):
    result = invoke(GELU, "-o", tmp_path / "p", *args)
    assert result.exit_code == 2 and fragment in result.stderr
    assert not (tmp_path / "p").exists()


@pytest.mark.parametrize(
    "directory, fragment",
    [
        (
            "torch",
            "'torch' would shadow the installed module of that name (from torch); "
            "choose another directory or pass --package NAME",
        ),
        ("json", "'json' would shadow Python's standard module"),
        ("class", "'class' is a Python keyword"),
    ],
)
def test_package_names_that_shadow_a_module_exit_2(directory, fragment, tmp_path):
    result = invoke(GELU, "-o", tmp_path / directory, "--no-build")
    assert result.exit_code == 2 and fragment in result.stderr, result.stderr
    assert not (tmp_path / directory).exists()


def test_a_loaded_module_without_a_spec_does_not_stop_new(tmp_path, monkeypatch):
    # importlib.util.find_spec raises ValueError for a module in sys.modules without __spec__
    # (seen when an earlier in-process run left one named like the project)
    monkeypatch.setitem(sys.modules, "specless", types.ModuleType("specless"))
    result = invoke(GELU, "-o", tmp_path / "specless", "--no-build")
    assert result.exit_code == 0, result.output


def test_package_option_names_the_package(tmp_path):
    result = invoke(GELU, "-o", tmp_path / "torch", "--package", "my_ops")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "torch" / ".opgen" / "manifest.json").read_text())
    assert manifest["options"]["package"] == manifest["options"]["namespace"] == "my_ops"
    assert (tmp_path / "torch" / "my_ops" / "ops.py").is_file()
    for bad, fragment in (
        ("Bad-Name", "lower-case Python identifier"),
        ("numpy", "would shadow the installed module"),
    ):
        result = invoke(GELU, "-o", tmp_path / "q", "--package", bad)
        assert result.exit_code == 2 and fragment in result.stderr, result.stderr


def test_bare_ascend910b_warns(tmp_path):
    # leaky_relu has no bfloat16, which the 910A generation cannot run
    result = invoke(
        EXAMPLES / "leaky_relu_custom.json", "-o", tmp_path / "p", "--soc", "ascend910b"
    )
    assert result.exit_code == 0 and "910A generation" in result.stderr


def test_invalid_prototype_exits_2(tmp_path, write_proto):
    result = invoke(write_proto(op(op="bad-name")), "-o", tmp_path / "p")
    assert result.exit_code == 2 and not (tmp_path / "p").exists()


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("broken.txt.jinja", "{% for x in %}\n", "layout/broken.txt.jinja failed (TemplateSyntax"),
        # what a .py.jinja renders goes through ruff format, which must parse it
        (
            "broken.py.jinja",
            "def {{ project.package }}(:\n",
            "layout/broken.py.jinja renders Python that does not parse",
        ),
    ],
)
def test_broken_custom_template_fails_and_leaves_nothing(tmp_path, name, text, message):
    custom = tmp_path / "tpl"
    shutil.copytree(ROOT / "templates", custom, symlinks=True)
    (custom / "layout" / name).write_text(text)
    result = invoke(GELU, "-o", tmp_path / "p", "--templates", custom)
    assert result.exit_code == 1, result.stderr
    assert message in result.stderr
    assert not (tmp_path / "p").exists()
    assert not [p for p in tmp_path.iterdir() if "opgen-new" in p.name]


def test_a_template_without_opgens_context_is_refused(tmp_path):
    custom = tmp_path / "tpl"
    shutil.copytree(ROOT / "templates", custom, symlinks=True)
    config = custom / "copier.yml"
    config.write_text(
        config.read_text().replace(
            "  - opgen.rendering.template_context.ProjectContext\n", "  - jinja2.ext.do\n"
        )
    )
    result = invoke(GELU, "-o", tmp_path / "p", "--templates", custom)
    assert result.exit_code == 2
    assert (
        "must list opgen.rendering.template_context.ProjectContext in `_jinja_extensions`"
        in result.stderr
    )
    assert not (tmp_path / "p").exists()


def test_a_missing_template_directory_is_bad_input(tmp_path):
    result = invoke(GELU, "-o", tmp_path / "p", "--templates", tmp_path / "none")
    assert result.exit_code == 2 and "no such directory" in result.stderr
    (tmp_path / "empty").mkdir()
    result = invoke(GELU, "-o", tmp_path / "p", "--templates", tmp_path / "empty")
    assert result.exit_code == 2 and "copier.yml is missing" in result.stderr
    for root in ("kernel", "host", "torch_ext", "tests"):  # the format before copier rendered
        (tmp_path / "empty" / root).mkdir()
        (tmp_path / "empty" / root / "copier.yml").write_text("_subdirectory: project\n")
    result = invoke(GELU, "-o", tmp_path / "p", "--templates", tmp_path / "empty")
    assert result.exit_code == 2 and "a copier.yml per root" in result.stderr
    assert not (tmp_path / "p").exists()


def test_rendering_without_a_writable_cache_directory(tmp_path, monkeypatch):

    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache directory would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    result = invoke(GELU, "-o", tmp_path / "p")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "p" / "op_kernel" / "gelu_custom.cpp").is_file()


KERNEL_TEMPLATE = "kernel/op/op_kernel/{{ op.snake }}.cpp.jinja"


@pytest.mark.parametrize("where", ["text", "file name"])
def test_a_template_naming_a_missing_key_fails_naming_it(tmp_path, where):
    """Strict templates: a misspelt name is an error (exit 1, nothing written), never empty
    text or a file named `_tiling.h`."""
    custom = tmp_path / "tpl"
    shutil.copytree(ROOT / "templates", custom, symlinks=True)
    source = custom / KERNEL_TEMPLATE
    if where == "text":
        source.write_text(source.read_text() + "// {{ k.clas_name }}\n")
        expected = [
            "'clas_name'",
            "template kernel/op/op_kernel/{{ op.snake }}.cpp.jinja",
            "for op GeluCustom",
        ]
    else:
        source.rename(source.with_name("{{ op.snak }}.cpp.jinja"))
        expected = ["'snak'", "a file or directory name", "for op GeluCustom"]
    result = invoke(GELU, "-o", tmp_path / "p", "--templates", custom)
    assert result.exit_code == 1, result.stderr
    assert "an undefined name" in result.stderr
    for text in expected:
        assert text in result.stderr
    assert not (tmp_path / "p").exists()
    assert not [p for p in tmp_path.iterdir() if "opgen-new" in p.name]


def test_a_custom_root_must_render_strictly(tmp_path):
    custom = tmp_path / "tpl"
    shutil.copytree(ROOT / "templates", custom, symlinks=True)
    config = custom / "copier.yml"
    config.write_text(config.read_text().replace("  undefined: jinja2.StrictUndefined\n", ""))
    result = invoke(GELU, "-o", tmp_path / "p", "--templates", custom)
    assert result.exit_code == 2
    assert "must set `_envops: undefined: jinja2.StrictUndefined`" in result.stderr
    assert not (tmp_path / "p").exists()


def test_custom_templates_replace_the_builtin_root(tmp_path):
    custom = tmp_path / "tpl"
    shutil.copytree(ROOT / "templates", custom, symlinks=True)
    (custom / "layout" / "TEAM.md.jinja").write_text("team notes for {{ project.package }}\n")
    result = invoke(GELU, "-o", tmp_path / "p", "--templates", custom)
    assert result.exit_code == 0
    assert (tmp_path / "p" / "TEAM.md").read_text() == "team notes for p\n"
    manifest = json.loads((tmp_path / "p" / ".opgen" / "manifest.json").read_text())
    assert manifest["options"]["templates"] == str(custom.resolve())
    assert manifest["files"]["TEAM.md"]["owner"] == "user"


def test_package_name_from_directory():
    assert options.package_name(Path("/x/my-ops")) == "my_ops"
    assert options.package_name(Path("/x/2ops")) == "ops_2ops"


@pytest.mark.parametrize(
    "text, literal",
    [
        ("plain", '"plain"'),
        ('quo"te\\back', '"quo\\"te\\\\back"'),
        ("new\nline", '"new\\012line"'),
        ("*/ ??= é", '"*/ ??= \\303\\251"'),
    ],
)
def test_cpp_string_escapes_everything(text, literal):
    assert literals.cpp_string(text) == literal


def test_cpp_literals_for_opdef_defaults():
    assert literals.cpp_literal("float", 0.01) == "0.01f"
    assert literals.cpp_literal("float", 1) == "1.0f"
    assert literals.cpp_literal("float", 1e-12) == "1e-12f"
    assert literals.cpp_literal("list_int", [1, -2]) == "{1, -2}"
    assert literals.cpp_literal("list_list_int", [[1], [2, 3]]) == "{{1}, {2, 3}}"
    assert literals.cpp_literal("list_bool", [True, False]) == "{true, false}"
    assert literals.cpp_literal("string", 'ta"nh') == '"ta\\"nh"'
    assert literals.cpp_literal("int", -(2**63)) == "INT64_MIN"


def test_staging_left_by_a_killed_new_is_cleaned_up(tmp_path):
    stale = tmp_path / ".p.opgen-new-abc123"
    (stale / "project").mkdir(parents=True)
    assert invoke(GELU, "-o", tmp_path / "p").exit_code == 0
    assert not stale.exists()


def test_a_dangling_symlink_as_destination_is_a_message(tmp_path):
    (tmp_path / "link").symlink_to(tmp_path / "nowhere" / "p")
    result = CliRunner().invoke(
        app, ["new", str(GELU), "-o", str(tmp_path / "link"), "--no-build", "--no-msopgen"]
    )
    assert result.exit_code == 2 and "is a symbolic link to" in result.stderr
    assert not (tmp_path / "nowhere").exists()


def test_force_leaves_unchanged_files_untouched(tmp_path):
    """`make demo` runs `opgen new --force` over its last project: files whose rendering did not
    change keep their times, so the build after it compiles nothing."""
    dest = tmp_path / "p"
    assert invoke(GELU, "-o", dest).exit_code == 0
    kernel = dest / "op_kernel" / "gelu_custom.cpp"
    cmake = dest / "CMakeLists.txt"
    os.utime(kernel, (1_000_000, 1_000_000))
    cmake.write_text("clobbered\n")
    os.utime(cmake, (1_000_000, 1_000_000))
    assert invoke(GELU, "-o", dest, "--force").exit_code == 0
    assert kernel.stat().st_mtime == 1_000_000  # the same text: left alone
    assert cmake.stat().st_mtime != 1_000_000 and cmake.read_text() != "clobbered\n"


def test_the_example_call_takes_the_first_test_shapes_case(tmp_path):
    """A matmul's inputs share no shape: the printed call uses test_shapes[0], and None for an
    optional input the case leaves out."""
    from opgen.commands.new import call_example
    from opgen.frontend.prototype import load

    proto = json.loads((ROOT / "tests" / "data" / "e2e" / "matmul_golden.json").read_text())
    proto[0]["input_desc"].append(
        {"name": "bias", "param_type": "optional", "format": ["ND"] * 2, "type": ["fp16", "float"]}
    )
    path = tmp_path / "mm.json"
    path.write_text(json.dumps(proto))
    op = load(path).ops[0]
    assert call_example(op, "p") == (
        "torch.ops.p.matmul_custom(torch.randn(16, 32, dtype=torch.float16), "
        "torch.randn(32, 8, dtype=torch.float16), None)"
    )
