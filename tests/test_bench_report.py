"""opgen bench (opgen/bench.py, the generated bench/run.py) and the precision report
(opgen/report.py): bad input, the JSON shape, the HTML page with and without matplotlib.

The runs on a built project are slow tests in test_generated_suite.py."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES
from typer.testing import CliRunner

from opgen import report
from opgen.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_bench_of_a_directory_that_is_no_project_exits_2(tmp_path):
    result = run("bench", tmp_path, "--json")
    assert result.exit_code == 2 and result.stdout == ""
    assert "not an opgen project" in result.stderr and "Traceback" not in result.stderr


@pytest.fixture(scope="module")
def unbuilt(tmp_path_factory):
    directory = tmp_path_factory.mktemp("bench") / "bench_unbuilt"
    result = run("new", EXAMPLES / "gelu_custom.json", "-o", directory, "--no-build",
                 "--no-msopgen")
    assert result.exit_code == 0, result.output
    return directory


def test_a_new_project_has_a_generated_bench(unbuilt):
    text = (unbuilt / "bench" / "run.py").read_text()
    assert "DO NOT EDIT" in text.splitlines()[0]
    assert '"test_gelu_custom",' in text and "PEAK_GBPS" in text
    assert "EMULATION_NOTE" in text and "NPU performance" in text


def test_bench_without_a_built_package_exits_1_with_a_message(unbuilt):
    result = run("bench", unbuilt, "--quick")
    assert result.exit_code == 1
    assert "bench/run.py failed" in result.stderr and "opgen build" in result.stderr
    assert "Traceback" not in result.stderr


def test_bench_without_the_script_exits_2(unbuilt, tmp_path):
    import shutil

    copy = tmp_path / "old_project"
    shutil.copytree(unbuilt, copy)
    (copy / "bench" / "run.py").unlink()
    result = run("bench", copy)
    assert result.exit_code == 2 and "opgen update" in result.stderr


def test_bench_table_says_the_twin_is_an_emulation():
    from opgen import bench

    text = bench.table({"device": "cpu (opgen CPU twin)", "soc": None,
                        "note": "the CPU twin is an emulation of the NPU for correctness: these "
                                "times are not NPU performance", "reference": "torch",
                        "results": [{"op": "GeluCustom", "dtype": "float32", "shape": [4096],
                                     "op_ms": 0.7, "reference_ms": 0.01, "ratio": 70.0},
                                    {"op": "GeluCustom", "dtype": "float16", "shape": [4096],
                                     "op_ms": None, "error": "RuntimeError: x"}]})
    assert "not NPU performance" in text and "70.00" in text and "failed: RuntimeError" in text


def entry(test, what, passed, dtype="float32"):
    return {"test": f"tests/test_gelu_custom.py::{test}", "what": what, "dtype": dtype,
            "passed": passed, "rule": "threshold" if passed else "ratio L0",
            "reason": "within the threshold standard" if passed else "threshold standard failed",
            "level": "L0",
            "metrics": {"mere": 1e-7, "mare": 1e-6, "rmse": 1e-7, "small_errors": 0,
                        "small_count": 3, "special_mismatches": 0},
            "ratios": {"MARE": 1.0}, "benchmark": None,
            "worst": {"index": [0], "actual": 1.0, "golden": 1.0},
            "sample": {"golden_abs": [0.0, 0.5, 1.0, 2.0], "abs_error": [0.0, 1e-8, 2e-7, 3e-7],
                       "rel_error": [0.0, 2e-8, 2e-7, 1.5e-7]}}


def test_report_holds_the_cases_and_plots(tmp_path):
    pytest.importorskip("matplotlib")
    record = tmp_path / report.RECORD
    record.parent.mkdir(parents=True)
    lines = [entry("test_precision[float32-3d]", "inputs (float32), shape (3, 5, 17)", True),
             entry("test_precision[float16-3d]", "inputs (float16), shape (3, 5, 17)", False,
                   "float16")]
    record.write_text("\n".join(json.dumps(e) for e in lines) + "\n{cut short")
    path = report.write(tmp_path)
    assert path == tmp_path / report.REPORT
    text = path.read_text()
    assert "2 judged outputs, 1 failed" in text
    assert "<h2>gelu_custom, float16</h2>" in text and "<h2>gelu_custom, float32</h2>" in text
    assert text.count("src='data:image/png;base64,") == 4  # two plots per op and dtype
    assert "threshold standard failed" in text and "ratio L0" in text
    assert report.write(tmp_path) and path.read_text() == text  # deterministic


def test_report_says_when_plots_are_unavailable(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "plots", lambda entries: None)
    html = report.render([entry("test_precision[float32-3d]", "case", True)], "t")
    assert "Plots unavailable: matplotlib is not installed" in html
    assert "data:image/png" not in html


def test_no_record_no_report(tmp_path):
    assert report.write(tmp_path) is None
