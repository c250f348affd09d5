"""`opgen adopt`: an existing msopgen project (its own op_host/ and op_kernel/, macro-style
tiling) gains opgen's PyTorch package, tests and twin, and keeps its files byte for byte. The
OpDef reader (frontend/opdef_source.py), the command's checks, and (slow) the adopted project
built and tested on the twin."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from typer.testing import CliRunner

from opgen.cli import app
from opgen.frontend.opdef_source import OpDefSourceError, prototype_from_opdef

PROJECT = ROOT / "tests" / "data" / "adopt" / "add_custom"  # hand-written, macro-style tiling
PROTOTYPE = ROOT / "tests" / "data" / "adopt" / "add_custom.json"  # its ops, golden x + y


def adopt(*args: str):
    return CliRunner().invoke(app, ["adopt", *args])


def their_files(directory: Path) -> dict[str, str]:
    """path -> sha256 of the project's own files (op_host/, op_kernel/)."""
    return {
        p.relative_to(directory).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for sub in ("op_host", "op_kernel")
        for p in sorted((directory / sub).rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def project(tmp_path) -> Path:
    copy = tmp_path / "add_custom"
    shutil.copytree(PROJECT, copy)
    return copy


# ---------------------------------------------------------------------------------------------
# the OpDef reader
# ---------------------------------------------------------------------------------------------


def test_the_opdef_gives_the_prototype():
    ops = prototype_from_opdef((PROJECT / "op_host" / "add_custom.cpp").read_text(), "add.cpp")
    assert ops == [
        {
            "op": "AddCustom",
            "input_desc": [
                {
                    "name": n,
                    "param_type": "required",
                    "format": ["ND", "ND"],
                    "type": ["float16", "float32"],
                }
                for n in ("x", "y")
            ],
            "output_desc": [
                {
                    "name": "z",
                    "param_type": "required",
                    "format": ["ND", "ND"],
                    "type": ["float16", "float32"],
                }
            ],
            "attr": [],
        }
    ]


ATTRS = """
class ScaleCustom : public OpDef {
public:
    explicit ScaleCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_BF16}).Format({ge::FORMAT_ND});
        // this->Input("old")...: a comment is no declaration
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_BF16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_BF16}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(0.5f);
        this->Attr("steps").AttrType(REQUIRED).Int();
        this->Attr("axes").AttrType(OPTIONAL).ListInt({-1, 2});
        this->Attr("mode").AttrType(OPTIONAL).String("mean");
        this->Attr("keep").AttrType(OPTIONAL).Bool(true);
        this->Attr("slope").Float(0.01f);
        this->Attr("num").AttrType(REQUIRED).Int(0);
    }
};
"""


def test_attrs_keep_their_types_and_defaults():
    (op,) = prototype_from_opdef(ATTRS, "scale.cpp")
    assert [t["name"] for t in op["input_desc"]] == ["x", "bias"]
    assert op["input_desc"][1]["param_type"] == "optional"
    assert op["attr"] == [
        {"name": "alpha", "param_type": "optional", "type": "float", "default_value": 0.5},
        {"name": "steps", "param_type": "required", "type": "int"},
        {"name": "axes", "param_type": "optional", "type": "list_int", "default_value": [-1, 2]},
        {"name": "mode", "param_type": "optional", "type": "string", "default_value": "mean"},
        {"name": "keep", "param_type": "optional", "type": "bool", "default_value": True},
        # required unless AttrType(OPTIONAL) (metadef); the caller gives a required attr's value
        {"name": "slope", "param_type": "required", "type": "float"},
        {"name": "num", "param_type": "required", "type": "int"},
    ]


STRINGS = r"""
class TextCustom : public OpDef {
public:
    explicit TextCustom(const char* name) : OpDef(name)
    {
        this->Input("x").DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});  // "a comment; ("
        this->Output("y").DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("a").AttrType(OPTIONAL).String("a)b");
        this->Attr("b").AttrType(OPTIONAL).String("x; // y, (\"q\")\n");  /* ) ; */
        this->Attr("c").AttrType(OPTIONAL).Int(3);
    }
};
"""


def test_a_string_default_may_hold_parentheses_semicolons_commas_and_escapes():
    """A string literal is read whole (was cut at its ')': "its default "a is no string
    literal"), and C++'s escapes are undone."""
    (op,) = prototype_from_opdef(STRINGS, "text.cpp")
    assert [(a["name"], a["default_value"]) for a in op["attr"]] == [
        ("a", "a)b"),
        ("b", 'x; // y, ("q")\n'),
        ("c", 3),
    ]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("int main() {}", "no OpDef class"),
        (
            'class A : public OpDef { A() { this->Input("x").ParamType(REQUIRED); } };',
            "A's input 'x': no .DataType",
        ),
        (
            'class A : public OpDef { A() { this->Input("x").DataType({ge::DT_QINT8}); } };',
            "A's input 'x': dtype ge::DT_QINT8 is not one opgen knows",
        ),
        (
            'class A : public OpDef { A() { this->Input("x").DataType({ge::DT_FLOAT});\n'
            'this->Attr("k").AttrType(OPTIONAL).Int(two); } };',
            "A's attr 'k': its default two is no int literal",
        ),
    ],
)
def test_an_opdef_opgen_cannot_read_is_named(source, message):
    with pytest.raises(OpDefSourceError, match=re.escape(message)):
        prototype_from_opdef(source, "x.cpp")


# ---------------------------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------------------------


def test_adopt_writes_opgens_files_beside_theirs_and_never_over_them(project):
    before = their_files(project)
    result = adopt(str(project), "--prototype", str(PROTOTYPE), "--no-build")
    assert result.exit_code == 0, result.output
    assert their_files(project) == before
    manifest = json.loads((project / ".opgen" / "manifest.json").read_text())
    paths = set(manifest["files"])
    assert not any(p.startswith(("op_host/", "op_kernel/")) for p in paths), paths
    assert {"setup.py", "tests/test_add_custom.py", "add_custom/csrc/ops.cpp"} <= paths
    assert not {"CMakeLists.txt", "build.sh", "README.md"} & paths
    # the twin, as for a new project: the installed opgen's, no copy
    assert not any(p.startswith("third_party/") for p in paths), paths
    assert "opgen.twin_include(OPGEN_VERSION)" in (project / "setup.py").read_text()
    tests = (project / "tests" / "test_add_custom.py").read_text()
    assert "the adopted project's own: no test waits for one" in tests
    assert "kernel_is_placeholder" not in tests
    # update re-renders opgen's files only
    updated = CliRunner().invoke(app, ["update", str(project)])
    assert updated.exit_code == 0, updated.output
    assert their_files(project) == before


def test_adopt_without_a_prototype_reads_the_opdef_and_says_what_is_missing(project):
    result = adopt(str(project), "--no-build")
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "no --prototype: the ops come from the OpDef" in flat and "without a golden" in flat
    written = json.loads((project / "opgen_prototype.json").read_text())
    assert written[0]["op"] == "AddCustom"


def test_a_dry_run_writes_nothing(project):
    before = sorted(p.as_posix() for p in project.rglob("*"))
    result = adopt(str(project), "--prototype", str(PROTOTYPE), "--dry-run")
    assert result.exit_code == 0, result.output
    assert sorted(p.as_posix() for p in project.rglob("*")) == before


def test_what_adopt_refuses(project, tmp_path):
    assert "no such directory" in adopt(str(tmp_path / "none")).output
    empty = tmp_path / "empty"
    (empty / "op_host").mkdir(parents=True)
    result = adopt(str(empty))
    assert result.exit_code == 2 and "op_host/ holds no .cpp file" in result.output
    proto = json.loads(PROTOTYPE.read_text())
    proto[0]["opgen"]["compute"] = {"z": "x + y"}
    with_compute = tmp_path / "with_compute.json"
    with_compute.write_text(json.dumps(proto))
    result = adopt(str(project), "--prototype", str(with_compute), "--no-build")
    assert result.exit_code == 2
    assert "an adopted project keeps its own kernel" in " ".join(result.output.split())
    proto[0]["opgen"].pop("compute")
    proto[0]["op"] = "SubCustom"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(proto))
    result = adopt(str(project), "--prototype", str(other), "--no-build")
    assert result.exit_code == 2
    assert "op_host/sub_custom.cpp does not exist" in " ".join(result.output.split())
    assert not (project / ".opgen").exists()
    assert adopt(str(project), "--prototype", str(PROTOTYPE), "--no-build").exit_code == 0
    again = adopt(str(project), "--prototype", str(PROTOTYPE), "--no-build")
    assert again.exit_code == 2 and "an opgen project already" in again.output


def test_new_force_refuses_to_write_over_an_adopted_project(project):
    """opgen new --force would write opgen's skeletons over the project's own op_host/ and
    op_kernel/ files, of which .opgen/pristine keeps no copy: refused, nothing written."""
    assert adopt(str(project), "--prototype", str(PROTOTYPE), "--no-build").exit_code == 0
    before = sorted(p.as_posix() for p in project.rglob("*"))
    ours = their_files(project)
    result = CliRunner().invoke(
        app, ["new", str(PROTOTYPE), "-o", str(project), "--force", "--no-build"]
    )
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "is an adopted msopgen project (opgen adopt)" in flat and "opgen update" in flat
    assert "Traceback" not in result.output
    assert sorted(p.as_posix() for p in project.rglob("*")) == before
    assert their_files(project) == ours


def test_update_of_an_adopted_project_refuses_a_compute_and_an_op_without_sources(project):
    """The adopted prototype gains a compute expression (was an internal template error, exit
    1) or a second op with no op_host/op_kernel sources (was accepted): exit 2, the JSON path,
    nothing written."""
    assert adopt(str(project), "--prototype", str(PROTOTYPE), "--no-build").exit_code == 0
    written = project / PROTOTYPE.name
    proto = json.loads(written.read_text())
    before = sorted(p.as_posix() for p in project.rglob("*") if p != written)
    proto[0]["opgen"]["compute"] = {"z": "x + y"}
    written.write_text(json.dumps(proto))
    result = CliRunner().invoke(app, ["update", str(project), "--allow-dirty"])
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "$[0].opgen.compute" in flat and "an adopted project keeps its own kernel" in flat
    proto[0]["opgen"].pop("compute")
    proto.append({**proto[0], "op": "SubCustom"})
    written.write_text(json.dumps(proto))
    result = CliRunner().invoke(app, ["update", str(project), "--allow-dirty"])
    flat = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "$[1]" in flat and "op_kernel/sub_custom.cpp does not exist" in flat
    assert sorted(p.as_posix() for p in project.rglob("*") if p != written) == before


@pytest.mark.slow
def test_an_adopted_project_passes_on_the_twin_and_a_planted_bug_fails(project):
    """Their kernel and TilingFunc, untouched, on the CPU twin: precision passes against the
    golden; without an InferShape (an op called through aclnn) it still does, the outputs sized
    by the fake kernel and the InferShape test skipped saying why; a one-character bug in their
    kernel fails it."""
    run = [sys.executable, "-m", "opgen"]
    try:
        adopted = subprocess.run(
            [*run, "adopt", str(project), "--prototype", str(PROTOTYPE), "--json"],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert adopted.returncode == 0, adopted.stdout[-3000:] + adopted.stderr[-3000:]
        tests = json.loads(adopted.stdout)["build"]["steps"]
        detail = next(s["detail"] for s in tests if s["step"] == "run tests")
        assert " passed" in detail and "failed" not in detail, detail
        host = project / "op_host" / "add_custom.cpp"
        host.write_text(host.read_text().replace("SetInferShape(ge::InferShape).", ""))
        verdicts = {**os.environ, "PYTEST_ADDOPTS": "-rA"}  # each test's verdict, in the log
        for step in ("build", "test"):
            done = subprocess.run(
                [*run, step, str(project)],
                capture_output=True,
                text=True,
                timeout=900,
                env=verdicts,
            )
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        log = (project / ".opgen" / "logs" / "test.log").read_text()
        assert "registers no InferShape" in log and "FAILED" not in log, log[-3000:]
        assert re.search(r"PASSED \S+::test_precision\[", log), log[-3000:]
        kernel = project / "op_kernel" / "add_custom.cpp"
        kernel.write_text(
            kernel.read_text().replace("AscendC::Add(z, x, y", "AscendC::Sub(z, x, y")
        )
        built = subprocess.run(
            [*run, "build", str(project)], capture_output=True, text=True, timeout=900
        )
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
        tested = subprocess.run(
            [*run, "test", str(project)], capture_output=True, text=True, timeout=900
        )
        assert tested.returncode != 0
        log = (project / ".opgen" / "logs" / "test.log").read_text()
        assert re.search(r"FAILED \S+::test_precision\[", log), log[-3000:]
    finally:
        subprocess.run(
            [sys.executable, "-m", "pip", "uninstall", "-y", "-q", "add_custom"],
            capture_output=True,
        )


def test_the_socs_are_the_ones_the_opdef_registers():
    from opgen.frontend.opdef_source import target_socs

    source = 'AddConfig("ascend910", c); AddConfig("ascend310p", c); AddConfig("ascend910b", c);'
    assert target_socs(source) == ["ascend910b1", "ascend910a", "ascend310p1"]
    assert target_socs('// AddConfig("ascend310b")') == []


ADOPT_CORPUS = sorted((ROOT / "tests" / "data" / "adopt_corpus").glob("*.json"))


@pytest.mark.parametrize("path", ADOPT_CORPUS, ids=[p.stem for p in ADOPT_CORPUS])
def test_the_adopt_corpus_prototypes_stay_valid(path):
    """Our prototypes of the public hand-written projects bench/adopt_corpus.py adopts: valid,
    with a golden and test_shapes, no compute (the kernel is the project's)."""
    from opgen.frontend import prototype

    for op in prototype.load(path).ops:
        assert op.golden and op.test_shapes and not op.compute, op.op_type


def test_every_adopt_corpus_project_has_a_source_and_a_verdict():
    """SOURCES.tsv says where each project comes from, VERDICTS.tsv what it gave and why a
    failing one fails (its own bug, traced): one row each, for exactly the prototypes there."""
    folder = ROOT / "tests" / "data" / "adopt_corpus"
    names = {p.name for p in ADOPT_CORPUS}
    for table in ("SOURCES.tsv", "VERDICTS.tsv"):
        rows = [line.split("\t") for line in (folder / table).read_text().splitlines()[1:]]
        assert sorted(r[0] for r in rows) == sorted(names), table
    for row in (
        line.split("\t") for line in (folder / "VERDICTS.tsv").read_text().splitlines()[1:]
    ):
        passed = row[1] == "all" and row[2] == "all"
        assert passed == (row[3] == "passes every test"), row
