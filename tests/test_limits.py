"""Hostile sizes and values are exit-2 problems with their JSON path, never a traceback or a hang;
`validate` and `new` agree on every prototype."""

from __future__ import annotations

import json

import pytest
from conftest import op
from typer.testing import CliRunner

from opgen.cli import app


def with_compute(expression: str, section: str = "compute") -> dict:
    return op(input_desc=[{"name": "x", "type": ["float"]}],
              output_desc=[{"name": "y", "type": ["float"]}],
              opgen={section: {"y": expression}})


def validate(tmp_path, text: str) -> tuple[int, list[dict]]:
    path = tmp_path / "proto.json"
    path.write_text(text)
    result = CliRunner().invoke(app, ["validate", str(path), "--json"])
    errors = json.loads(result.stdout)["errors"] if result.exit_code == 2 else []
    assert "Traceback" not in result.output
    return result.exit_code, errors


@pytest.mark.parametrize("expression, section, fragment", [
    ("x * " + "1" * 400, "compute", "is larger than 2**64"),
    ("x * 1e400", "compute", "does not fit in a double"),
    (" + ".join(["x"] * 600), "compute", "nests more than 100 levels deep"),
    ("-" * 100_000 + "x", "compute", "characters long; opgen takes at most 4000"),
    ("(" * 300 + "x" + ")" * 300, "compute", "too many nested parentheses"),
    ("-(" * 150 + "x" + ")" * 150, "compute", "nests more than 100 levels deep"),
    ("x * 2 ** 2 ** 2 ** 100", "golden", "takes an exponent of at most 64"),
    ("x * 10 ** 400", "golden", "takes an exponent of at most 64"),
])
def test_expression_bounds(tmp_path, expression, section, fragment):
    code, errors = validate(tmp_path, json.dumps(with_compute(expression, section)))
    assert code == 2
    assert errors[0]["path"] == f"$.opgen.{section}.y" and fragment in errors[0]["message"], errors


def test_json_nested_thousands_deep(tmp_path):
    for depth in (70, 100_000):
        code, errors = validate(tmp_path, "[" * depth + "]" * depth)
        assert code == 2 and errors == [{"path": "$", "message": "nests more than 64 levels "
                                                                 "deep; a prototype needs about 5"}]


@pytest.mark.parametrize("text, fragment", [
    ("1e309", "is not a finite number"),
    ("1e-320", "rounds to 0 in a C++ float"),
])
def test_float_defaults_a_cpp_float_cannot_hold(tmp_path, text, fragment):
    data = json.dumps(op(attr=[{"name": "a", "param_type": "optional", "type": "float",
                                "default_value": 0.5}])).replace("0.5", text)
    code, errors = validate(tmp_path, data)
    assert code == 2 and errors[0]["path"] == "$.attr[0].default_value"
    assert fragment in errors[0]["message"]


def test_validate_and_new_agree_on_what_cannot_be_lowered(tmp_path):
    data = json.dumps([with_compute("x / 0")])
    code, errors = validate(tmp_path, data)
    assert code == 2 and errors[0]["path"] == "$[0].opgen.compute.y"
    assert "divides by zero" in errors[0]["message"]
    result = CliRunner().invoke(app, ["new", str(tmp_path / "proto.json"), "-o",
                                      str(tmp_path / "p"), "--no-build", "--json"])
    assert result.exit_code == 2 and json.loads(result.stdout)["errors"] == errors
    assert not (tmp_path / "p").exists()


def test_one_run_reports_lowering_problems_with_the_rule_problems(tmp_path):
    """The compute compiler's problems come with the schema's and the rules' in one run, in op
    order, for validate, new and update alike: every op that passes the rules is lowered."""
    bad_type = op(op="SecondCustom")
    bad_type["input_desc"][0]["type"] = ["fp61"]
    ops = [with_compute("x / 0"), bad_type, {**with_compute("x / 0"), "op": "ThirdCustom"}]
    code, errors = validate(tmp_path, json.dumps(ops))
    assert code == 2
    assert [e["path"] for e in errors] == ["$[0].opgen.compute.y", "$[1].input_desc[0].type[0]",
                                           "$[2].opgen.compute.y"]
    assert "divides by zero" in errors[2]["message"] and "ThirdCustom" in errors[2]["message"]
    result = CliRunner().invoke(app, ["new", str(tmp_path / "proto.json"), "-o",
                                      str(tmp_path / "p"), "--no-build", "--json"])
    assert result.exit_code == 2 and json.loads(result.stdout)["errors"] == errors
    # without a rule problem, every op that cannot be lowered is still reported
    code, errors = validate(tmp_path, json.dumps([ops[0], ops[2]]))
    assert code == 2 and [e["path"] for e in errors] == ["$[0].opgen.compute.y",
                                                         "$[1].opgen.compute.y"]


def test_a_sum_of_500_inputs_is_a_problem_not_a_recursion_error(tmp_path):
    names = [f"x{i}" for i in range(500)]
    data = op(input_desc=[{"name": n, "type": ["float"]} for n in names],
              output_desc=[{"name": "y", "type": ["float"]}],
              opgen={"compute": {"y": " + ".join(names)}})
    code, errors = validate(tmp_path, json.dumps(data))
    assert code == 2 and errors[0]["path"] == "$.opgen.compute.y"
