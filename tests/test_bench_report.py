"""opgen bench (opgen/commands/bench.py, the generated bench/run.py) and the precision report
(opgen/commands/report.py): bad input, the JSON shape, the HTML page with and without matplotlib.

The runs on a built project are slow tests in test_generated_suite.py."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES
from typer.testing import CliRunner

from opgen.cli import app
from opgen.commands import report

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
    result = run(
        "new", EXAMPLES / "gelu_custom.json", "-o", directory, "--no-build", "--no-msopgen"
    )
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


def row(op_ms, reference_ms, op=(None, None), reference=(None, None), noisy=False, **more):
    """A bench/run.py result row: medians, (min, max) of the op's and the reference's times and
    the conservative ratio range."""
    out = {
        "op": "GeluCustom",
        "dtype": "float32",
        "shape": [4096],
        "op_ms": op_ms,
        "reference_ms": reference_ms,
        "ratio": round(op_ms / reference_ms, 3),
        "rounds": 5,
    }
    if op[0] is not None:
        out.update(
            op_ms_min=op[0],
            op_ms_max=op[1],
            reference_ms_min=reference[0],
            reference_ms_max=reference[1],
            ratio_min=round(op[0] / reference[1], 3),
            ratio_max=round(op[1] / reference[0], 3),
            noisy=noisy,
        )
    return out | more


SPREAD = {"rounds": 5, "noisy_spread": 2.0}
CPU = {
    "device": "cpu (opgen CPU twin)",
    "soc": None,
    "note": "the CPU twin is an emulation of the NPU for correctness: these times are not NPU "
    "performance",
    "reference": "torch",
    "spread": SPREAD,
}


def test_bench_table_says_the_twin_is_an_emulation():
    from opgen.commands import bench

    text = bench.table(
        CPU
        | {
            "results": [
                row(0.7, 0.01, (0.69, 0.72), (0.0098, 0.0102)),
                {
                    "op": "GeluCustom",
                    "dtype": "float16",
                    "shape": [4096],
                    "op_ms": None,
                    "reference_ms": None,
                    "ratio": None,
                    "error": "RuntimeError: x",
                },
            ]
        }
    )
    assert "not NPU performance" in text and "failed: RuntimeError: x" in text
    assert "times: us," in text and "op us" in text  # every time under a millisecond
    assert "700 (690-720)" in text and "10.0 (9.80-10.2)" in text
    assert "70.0 (67.6-73.5)" in text and "noisy" not in text.split("ratio min")[-1]


def test_bench_table_shows_min_median_max_and_flags_a_noisy_row():
    from opgen.commands import bench

    quiet = row(0.212, 0.0251, (0.206, 0.231), (0.0246, 0.0296))  # ratio 6.96 .. 9.39
    loaded = row(0.61, 1.2, (0.58, 1.19), (0.17, 8.02), noisy=True)  # ratio 0.072 .. 7.0
    text = bench.table(CPU | {"results": [quiet, loaded]})
    lines = text.splitlines()
    assert max(map(len, lines)) <= 100, text
    assert "times: ms, median (min-max) of 5 rounds" in text
    assert "ratio max > 2 x ratio min" in text
    head = next(i for i, line in enumerate(lines) if line.startswith("op "))
    assert lines[head].split() == ["op", "dtype", "shape", "op", "ms", "reference", "ms", "ratio"]
    first, second, note = lines[head + 1 : head + 4]
    assert first.split("  ")[-1] == "8.45 (6.96-9.39)" and "0.212 (0.206-0.231)" in first
    assert "0.0251 (0.0246-0.0296)" in first and "noisy" not in first
    assert "0.610 (0.580-1.19)" in second and "1.20 (0.170-8.02)" in second
    assert "0.508 (0.0720-7.00)" in second
    assert note == "  noisy: ratio between 0.0720 and 7.00; rerun on an idle machine"
    assert len(lines) == head + 4  # the quiet row has no note
    # the columns line up: every row's times start where the header's do
    column = lines[head].index("op ms")
    assert first.index("0.212") == second.index("0.610") == column


def test_bench_table_of_an_old_bench_script_prints_medians():
    """A project rendered before the spread: its rows have no min, max or noisy."""
    from opgen.commands import bench

    report = CPU | {"results": [row(0.7, 0.01)]}
    del report["spread"]
    text = bench.table(report)
    assert "predates them; opgen update adds them" in text
    assert text.splitlines()[-1].split() == [
        "GeluCustom",
        "float32",
        "[4096]",
        "700",
        "10.0",
        "70.0",
    ]


def test_bench_table_on_an_npu_has_a_bandwidth_column():
    from opgen.commands import bench

    npu = {
        "device": "npu",
        "soc": "Ascend910B2",
        "note": None,
        "reference": "torch",
        "spread": SPREAD,
        "results": [
            row(
                0.05, 0.04, (0.049, 0.052), (0.039, 0.041), bandwidth_gbps=167.8, peak_fraction=None
            ),
            row(
                0.05,
                0.04,
                (0.049, 0.052),
                (0.039, 0.041),
                bandwidth_gbps=167.8,
                peak_fraction=0.105,
            ),
        ],
    }
    lines = bench.table(npu).splitlines()
    assert lines[0] == "device: npu (Ascend910B2)" and lines[-3].endswith("  GB/s (peak)")
    assert lines[-2].endswith("  50.0 (49.0-52.0)  40.0 (39.0-41.0)  1.25 (1.20-1.33)  168")
    assert lines[-1].endswith("  168 (10%)")
    assert max(map(len, lines)) <= 100


def test_number_keeps_three_significant_digits():
    from opgen.commands import bench

    assert [bench.number(v) for v in (0.0123456, 0.7126, 12.345, 1234.5, 0, None)] == [
        "0.0123",
        "0.713",
        "12.3",
        "1234",
        "0",
        "-",
    ]


def rendered(path, *names):
    """The named constants and functions of a rendered bench/run.py, run apart from torch."""
    import ast
    import math
    import statistics
    import textwrap

    tree = ast.parse(path.read_text())
    keep = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name in names
        or isinstance(node, ast.Assign)
        and getattr(node.targets[0], "id", None) in names
    ]
    scope = {"math": math, "statistics": statistics, "textwrap": textwrap}
    exec(compile(ast.Module(keep, type_ignores=[]), str(path), "exec"), scope)  # noqa: S102
    return scope


@pytest.fixture(scope="module")
def spread(unbuilt):
    return rendered(unbuilt / "bench" / "run.py", "NOISY_SPREAD", "spread")["spread"]


def test_spread_keeps_the_old_keys_as_medians(spread):
    row = spread([2.0, 1.0, 3.0, 2.5, 1.5], [1.0, 1.0, 0.9, 1.1, 1.0])
    assert row["op_ms"] == 2.0 and row["reference_ms"] == 1.0 and row["ratio"] == 2.0
    assert (row["op_ms_min"], row["op_ms_max"]) == (1.0, 3.0)
    assert (row["reference_ms_min"], row["reference_ms_max"]) == (0.9, 1.1)
    assert row["ratio_min"] == 0.9091 and row["ratio_max"] == 3.333  # 1 / 1.1, 3 / 0.9
    assert row["rounds"] == 5 and row["noisy"] is True


@pytest.mark.parametrize(
    ("op", "reference", "noisy"),
    [
        ([1.0] * 5, [0.5] * 5, False),  # no spread
        ([1.0, 1.0, 1.9, 1.0, 1.0], [0.5] * 5, False),  # one slow op round, under 2x
        ([1.0, 1.0, 2.1, 1.0, 1.0], [0.5] * 5, True),  # over 2x
        ([1.0] * 5, [0.5, 0.5, 0.5, 0.5, 0.05], True),  # one fast reference round: 10x
        ([1.0, 1.4, 1.2, 1.1, 1.0], [0.5, 0.7, 0.6, 0.5, 0.5], False),  # 1.4 x 1.4 = 1.96
        ([1.0, 1.5, 1.2, 1.1, 1.0], [0.5, 0.75, 0.6, 0.5, 0.5], True),  # 1.5 x 1.5 = 2.25
        ([0.9, 30.0, 0.95, 0.9, 0.9], [12.0, 0.2, 12.0, 8.0, 0.17], True),  # ratio 0.03 .. 176
    ],
)
def test_a_row_is_noisy_when_its_ratio_range_spans_more_than_2x(spread, op, reference, noisy):
    row = spread(op, reference)
    assert row["noisy"] is noisy
    assert (row["ratio_max"] > 2 * row["ratio_min"]) is noisy


def test_a_reference_below_the_timer_makes_the_row_noisy(spread):
    row = spread([1.0] * 5, [0.0, 0.1, 0.1, 0.1, 0.1])
    assert row["noisy"] is True and row["ratio_max"] is None


def test_a_tiny_ratio_keeps_its_digits(spread):
    row = spread([0.0012, 0.0013, 0.0012], [9.0, 9.5, 9.1])
    assert row["ratio"] == 0.0001319 and row["ratio_min"] == 0.0001263
    assert row["noisy"] is False


def test_the_generated_table_is_opgen_bench_s(unbuilt):
    """bench/run.py prints the same table as opgen bench: its functions are
    opgen/commands/bench.py's."""
    import ast
    import inspect

    from opgen.commands import bench

    source = (unbuilt / "bench" / "run.py").read_text()
    generated = {
        node.name: ast.get_source_segment(source, node)
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
    }
    functions = (bench.number, bench.cells, bench.noise, bench.table, bench.row_head)
    for function in (*functions, bench.shape_text):
        assert generated[function.__name__] == inspect.getsource(function).rstrip()
    scope = rendered(
        unbuilt / "bench" / "run.py",
        "WIDTH",
        "NOISY_SPREAD",
        "REPEATS",
        "SPREAD",
        "number",
        "cells",
        "noise",
        "table",
        "row_head",
        "shape_text",
    )
    report = CPU | {
        "spread": scope["SPREAD"],
        "results": [row(0.61, 1.2, (0.58, 1.19), (0.17, 8.02), noisy=True)],
    }
    assert scope["table"](report) == bench.table(report)
    assert scope["SPREAD"]["noisy_spread"] == 2.0 and scope["SPREAD"]["rounds"] == 5


def entry(test, what, passed, dtype="float32"):
    return {
        "test": f"tests/test_gelu_custom.py::{test}",
        "what": what,
        "dtype": dtype,
        "passed": passed,
        "rule": "threshold" if passed else "ratio L0",
        "reason": "within the threshold standard" if passed else "threshold standard failed",
        "level": "L0",
        "metrics": {
            "mere": 1e-7,
            "mare": 1e-6,
            "rmse": 1e-7,
            "small_errors": 0,
            "small_count": 3,
            "special_mismatches": 0,
        },
        "ratios": {"MARE": 1.0},
        "benchmark": None,
        "worst": {"index": [0], "actual": 1.0, "golden": 1.0},
        "sample": {
            "golden_abs": [0.0, 0.5, 1.0, 2.0],
            "abs_error": [0.0, 1e-8, 2e-7, 3e-7],
            "rel_error": [0.0, 2e-8, 2e-7, 1.5e-7],
        },
    }


def test_report_holds_the_cases_and_plots(tmp_path):
    pytest.importorskip("matplotlib")
    record = tmp_path / report.RECORD
    record.parent.mkdir(parents=True)
    lines = [
        entry("test_precision[float32-3d]", "inputs (float32), shape (3, 5, 17)", True),
        entry("test_precision[float16-3d]", "inputs (float16), shape (3, 5, 17)", False, "float16"),
    ]
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


def test_report_gives_the_special_value_mismatches_beside_torchs(monkeypatch):
    monkeypatch.setattr(report, "plots", lambda entries: None)
    judged = entry("test_precision_boundary_values[float32-extremes]", "extremes", True)
    judged["metrics"]["special_mismatches"] = 7
    judged["benchmark"] = dict(judged["metrics"], special_mismatches=6)
    assert "<td>7 (torch 6)</td>" in report.render([judged], "t")
    assert "<td>0</td>" in report.render([entry("test_precision[x]", "case", True)], "t")


def test_no_record_no_report(tmp_path):
    assert report.write(tmp_path) is None


def test_a_matmul_rows_shape_names_each_input():
    from opgen.commands.bench import shape_text

    assert shape_text([4096]) == "[4096]"
    assert shape_text({"a": [37, 70], "b": [70, 45]}) == "a [37, 70], b [70, 45]"
