"""Real msopgen prototypes from public repositories (tests/data/corpus, with their sources and
licences): opgen accepts and renders every one that msopgen turns into a compilable project, and
refuses the rest with the JSON path and what msopgen would do. tests/data/corpus/OPGEN.tsv says
which of them opgen writes from one prototype (the corpus file with the `opgen` block in
tests/data/corpus_opgen/<file> merged onto it; built and tested on the twin by
bench/corpus_build.py), which only after a change to the op, and which it cannot write."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import ROOT
from typer.testing import CliRunner

from opgen.cli import app
from opgen.compiler import checks
from opgen.frontend import prototype
from opgen.frontend.options import Options
from opgen.frontend.problems import PrototypeError
from opgen.planning import plan_project

CORPUS = ROOT / "tests" / "data" / "corpus"
SOURCES = list(csv.DictReader((CORPUS / "SOURCES.tsv").open(encoding="utf-8"), delimiter="\t"))

# Refused on purpose: file -> (JSON path, a fragment of the message). msopgen writes a lossy
# project for each (see the message).
REFUSED = {
    # "attr_desc" is no msopgen key: msopgen ignores it and the op loses its attrs
    "wybxw__Ascend_ops_Base_S6/Argmin__ArgMin.json": (
        "$.attr_desc",
        "msopgen ignores it, so what it holds would be lost; did you mean 'attr'?",
    ),
}
ACCEPTED = [r["file"] for r in SOURCES if r["file"] not in REFUSED]

OVERLAYS = ROOT / "tests" / "data" / "corpus_opgen"
VERDICTS = list(csv.DictReader((CORPUS / "OPGEN.tsv").open(encoding="utf-8"), delimiter="\t"))
ONE_PROTOTYPE = [r["file"] for r in VERDICTS if r["verdict"] == "one-prototype"]


def merged(name: str) -> list | dict:
    """The corpus prototype `name` with its overlay (tests/data/corpus_opgen/<name>, only an
    `opgen` block) as every op's `opgen` block."""
    proto = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    block = json.loads((OVERLAYS / name).read_text(encoding="utf-8"))
    for op in proto if isinstance(proto, list) else [proto]:
        op["opgen"] = block
    return proto


def test_the_corpus_is_large_and_every_file_has_a_source_and_licence():
    assert len(SOURCES) >= 50
    on_disk = {p.relative_to(CORPUS).as_posix() for p in CORPUS.glob("*/*.json")}
    assert on_disk == {r["file"] for r in SOURCES}
    assert set(REFUSED) <= on_disk
    for row in SOURCES:
        assert row["repo"] and row["path"] and len(row["commit"]) == 40, row
        owner_repo = row["repo"].replace("/", "__")
        licence = {"Apache-2.0": "Apache-2.0.txt", "MIT": f"MIT-{owner_repo}.txt"}[row["licence"]]
        assert (CORPUS / "LICENSES" / licence).is_file(), licence


@pytest.mark.parametrize("name", ACCEPTED, ids=lambda name: name.split("/")[-1])
def test_accepted(name):
    proto = prototype.load(CORPUS / name)
    assert proto.ops


@pytest.mark.parametrize("name", list(REFUSED), ids=lambda name: name.split("/")[-1])
def test_refused_with_path_and_msopgen_behaviour(name):
    with pytest.raises(PrototypeError) as info:
        prototype.load(CORPUS / name)
    path, fragment = REFUSED[name]
    assert any(p.path == path and fragment in p.text() for p in info.value.problems), [
        (p.path, p.text()) for p in info.value.problems
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name", ACCEPTED, ids=lambda name: name.split("/")[-1])
def test_rendered(name, tmp_path):
    dest = tmp_path / "corpus_project"
    result = CliRunner().invoke(
        app, ["new", str(CORPUS / name), "-o", str(dest), "--no-build", "--no-msopgen", "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (dest / ".opgen" / "manifest.json").is_file()
    for op in prototype.load(CORPUS / name).ops:
        assert f"op_kernel/{op.snake_name}.cpp" in {f["path"] for f in summary["files"]}


def test_opgen_tsv_gives_every_corpus_file_one_verdict():
    files = [r["file"] for r in VERDICTS]
    assert sorted(files) == sorted(r["file"] for r in SOURCES)
    assert len(files) == len(set(files))
    for row in VERDICTS:
        assert row["verdict"] in {"one-prototype", "needs-change", "cannot"}, row
        assert row["note"].strip(), row
    overlays = {p.relative_to(OVERLAYS).as_posix() for p in OVERLAYS.rglob("*.json")}
    assert overlays == set(ONE_PROTOTYPE)


@pytest.mark.parametrize("name", ONE_PROTOTYPE, ids=lambda name: name.split("/")[-1])
def test_one_prototype_loads_and_compiles(name):
    block = json.loads((OVERLAYS / name).read_text(encoding="utf-8"))
    assert set(block) <= {
        "compute",
        "golden",
        "fast_math",
        "keepdim",
        "precision",
        "test_shapes",
        "values",
    }
    proto = prototype.loads(json.dumps(merged(name)), name)
    for op in proto.ops:
        assert set(op.compute) == {t.name for t in op.results}  # no outputs: what it updates
    options = Options("corpus", "corpus", "corpus")
    problems = checks.problems(proto.ops, options)
    assert not problems, [p.text() for p in problems]
    assert len(plan_project(proto, options).ops) == len(proto.ops)
