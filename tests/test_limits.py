"""Hostile sizes and values are exit-2 problems with their JSON path, never a traceback or a hang;
`validate` and `new` agree on every prototype."""

from __future__ import annotations

import json

import pytest
from conftest import op
from typer.testing import CliRunner

from opgen.cli import app


def with_compute(expression: str, section: str = "compute") -> dict:
    return op(
        input_desc=[{"name": "x", "type": ["float"]}],
        output_desc=[{"name": "y", "type": ["float"]}],
        opgen={section: {"y": expression}},
    )


def validate(tmp_path, text: str) -> tuple[int, list[dict]]:
    path = tmp_path / "proto.json"
    path.write_text(text)
    result = CliRunner().invoke(app, ["validate", str(path), "--json"])
    errors = json.loads(result.stdout)["errors"] if result.exit_code == 2 else []
    assert "Traceback" not in result.output
    return result.exit_code, errors


@pytest.mark.parametrize(
    "expression, section, fragment",
    [
        ("x * " + "1" * 400, "compute", "is larger than 2**64"),
        ("x * 1e400", "compute", "does not fit in a double"),
        (" + ".join(["x"] * 600), "compute", "nests more than 100 levels deep"),
        ("-" * 100_000 + "x", "compute", "characters long; opgen takes at most 4000"),
        ("(" * 300 + "x" + ")" * 300, "compute", "too many nested parentheses"),
        ("-(" * 150 + "x" + ")" * 150, "compute", "nests more than 100 levels deep"),
        ("x * 2 ** 2 ** 2 ** 100", "golden", "takes an exponent of at most 64"),
        ("x * 10 ** 400", "golden", "takes an exponent of at most 64"),
    ],
)
def test_expression_bounds(tmp_path, expression, section, fragment):
    code, errors = validate(tmp_path, json.dumps(with_compute(expression, section)))
    assert code == 2
    assert errors[0]["path"] == f"$.opgen.{section}.y" and fragment in errors[0]["message"], errors


def test_json_nested_thousands_deep(tmp_path):
    for depth in (70, 100_000):
        code, errors = validate(tmp_path, "[" * depth + "]" * depth)
        assert code == 2 and errors == [
            {"path": "$", "message": "nests more than 64 levels deep; a prototype needs about 5"}
        ]


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("1e309", "is not a finite number"),
        ("1e-320", "rounds to 0 in a C++ float"),
    ],
)
def test_float_defaults_a_cpp_float_cannot_hold(tmp_path, text, fragment):
    data = json.dumps(
        op(attr=[{"name": "a", "param_type": "optional", "type": "float", "default_value": 0.5}])
    ).replace("0.5", text)
    code, errors = validate(tmp_path, data)
    assert code == 2 and errors[0]["path"] == "$.attr[0].default_value"
    assert fragment in errors[0]["message"]


def test_validate_and_new_agree_on_what_cannot_be_lowered(tmp_path):
    data = json.dumps([with_compute("x / 0")])
    code, errors = validate(tmp_path, data)
    assert code == 2 and errors[0]["path"] == "$[0].opgen.compute.y"
    assert "divides by zero" in errors[0]["message"]
    result = CliRunner().invoke(
        app,
        ["new", str(tmp_path / "proto.json"), "-o", str(tmp_path / "p"), "--no-build", "--json"],
    )
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
    assert [e["path"] for e in errors] == [
        "$[0].opgen.compute.y",
        "$[1].input_desc[0].type[0]",
        "$[2].opgen.compute.y",
    ]
    assert "divides by zero" in errors[2]["message"] and "ThirdCustom" in errors[2]["message"]
    result = CliRunner().invoke(
        app,
        ["new", str(tmp_path / "proto.json"), "-o", str(tmp_path / "p"), "--no-build", "--json"],
    )
    assert result.exit_code == 2 and json.loads(result.stdout)["errors"] == errors
    # without a rule problem, every op that cannot be lowered is still reported
    code, errors = validate(tmp_path, json.dumps([ops[0], ops[2]]))
    assert code == 2 and [e["path"] for e in errors] == [
        "$[0].opgen.compute.y",
        "$[1].opgen.compute.y",
    ]


def test_a_sum_of_500_inputs_is_a_problem_not_a_recursion_error(tmp_path):
    names = [f"x{i}" for i in range(500)]
    data = op(
        input_desc=[{"name": n, "type": ["float"]} for n in names],
        output_desc=[{"name": "y", "type": ["float"]}],
        opgen={"compute": {"y": " + ".join(names)}},
    )
    code, errors = validate(tmp_path, json.dumps(data))
    assert code == 2 and errors[0]["path"] == "$.opgen.compute.y"


# --- every JSON number: a problem with its path (exit 2), never a traceback or a silent change --

BIG = "1" + "0" * 400  # 10**400: Python reads it as an int, float() of it overflows
HUGE = "1" + "0" * 5000  # beyond Python's 4300-digit int conversion limit


def run_validate(tmp_path, text: str) -> list[dict]:
    """`opgen validate --json` on `text`: exit 2 through SystemExit, no traceback; its errors."""
    path = tmp_path / "proto.json"
    path.write_text(text)
    result = CliRunner().invoke(app, ["validate", str(path), "--json"])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return json.loads(result.stdout)["errors"]


def with_default(attr_type: str, default_text: str, **extra) -> str:
    """A prototype with one optional attr whose default_value is `default_text` as written."""
    data = op(
        attr=[
            {
                "name": "a",
                "param_type": "optional",
                "type": attr_type,
                "default_value": "@DEFAULT@",
                **extra,
            }
        ]
    )
    return json.dumps(data).replace('"@DEFAULT@"', default_text)


@pytest.mark.parametrize(
    "attr_type, default_text, fragment",
    [
        ("float", BIG, "does not fit in a C++ float"),
        ("float", "-" + BIG, "does not fit in a C++ float"),
        ("list_float", f"[1, {BIG}]", "does not fit in a C++ float"),
        ("float", f'"{BIG}"', "does not fit in a C++ float"),
        ("float", '"1e400"', "does not fit in a C++ float"),
        ("list_float", '"{0.5, 1e400}"', "does not fit in a C++ float"),
        ("float", "1e-400", "1e-400 reads as 0"),
        ("list_float", "[1e-400]", "1e-400 reads as 0"),
        ("float", '"1e-400"', "1e-400, which reads as 0"),
        ("int", '"1e400"', "does not fit in int64"),
        ("int", f'"{BIG}.0"', "does not fit in int64"),
        ("int", f'"{HUGE}"', "does not fit in int64"),
        ("list_list_int", f'"{{{{1, {HUGE}}}}}"', "does not fit in int64"),
        ("int", HUGE, "an integer of 5001 digits"),
        ("float", HUGE, "an integer of 5001 digits"),
        ("bool", HUGE, "an integer of 5001 digits"),
    ],
)
def test_attr_defaults_beyond_their_cpp_type(tmp_path, attr_type, default_text, fragment):
    errors = run_validate(tmp_path, with_default(attr_type, default_text))
    assert [e["path"] for e in errors] == ["$.attr[0].default_value"]
    assert fragment in errors[0]["message"], errors
    assert len(errors[0]["message"]) < 400  # a long number is shortened, not pasted whole


def test_the_edges_of_int64_and_float_defaults_are_taken_and_beyond_refused(tmp_path):
    for attr_type, text in (
        ("int", str(2**63 - 1)),
        ("int", str(-(2**63))),
        ("float", "3.4e38"),
        ("float", '"-3.4e38f"'),
    ):
        path = tmp_path / "ok.json"
        path.write_text(with_default(attr_type, text))
        assert CliRunner().invoke(app, ["validate", str(path)]).exit_code == 0, text
    errors = run_validate(tmp_path, with_default("float", str(2**128)))
    assert "holds up to 3.4e38" in errors[0]["message"]


@pytest.mark.parametrize(
    "text, path",
    [
        (json.dumps(op(op="@N@")).replace('"@N@"', HUGE), "$.op"),
        (
            with_default("int", "1", value_range=["@N@"]).replace('"@N@"', HUGE),
            "$.attr[0].value_range[0]",
        ),
        (
            json.dumps([op(), op(op="SubCustom", opgen={"test_shapes": [{"x": ["@N@"]}]})]).replace(
                '"@N@"', "-" + HUGE
            ),
            "$[1].opgen.test_shapes[0].x[0]",
        ),
    ],
)
def test_an_integer_too_long_to_read_is_named_by_its_path(tmp_path, text, path):
    errors = run_validate(tmp_path, text)
    assert errors == [
        {
            "path": path,
            "message": "an integer of 5001 digits; opgen reads at most "
            "600, and no field of a prototype takes a "
            "number near that size",
        }
    ]


@pytest.mark.parametrize(
    "dtype, expression, fragment",
    [
        ("float", "x * 3.5e38", "the number 3.5e+38 does not fit in float"),
        ("fp16", "min(x, -3.5e38)", "the number -3.5e+38 does not fit in float"),
        ("int8", "x * 1e39", "does not fit in float"),
        ("float", "x * 1e300 * 1e-290", "the number 1e+300 does not fit in float"),
        ("int32", "x + 3000000000", "the number 3000000000 does not fit in int32_t"),
        ("int32", "x * 1e30", "does not fit in int32_t"),
        ("int16", "x + 40000", "the number 40000 does not fit in int16_t"),
        ("int16", "where(x > 0, x, -32769)", "the number -32769 does not fit in int16_t"),
        ("float", "x + 1e-50", "the number 1e-50 rounds to 0 in float"),
        ("float", "x * 1e-400", "the number 1e-400 reads as 0"),
        ("float", "golden: x * 1e-400", "golden expression: the number 1e-400 reads as 0"),
    ],
)
def test_compute_numbers_beyond_the_compute_type(tmp_path, dtype, expression, fragment):
    section, _, expression = expression.rpartition(": ")
    data = op(
        input_desc=[{"name": "x", "type": [dtype]}],
        output_desc=[{"name": "y", "type": [dtype]}],
        opgen={section or "compute": {"y": expression}},
    )
    errors = run_validate(tmp_path, json.dumps(data))
    assert [e["path"] for e in errors] == [f"$.opgen.{section or 'compute'}.y"]
    assert fragment in errors[0]["message"], errors


def test_compute_numbers_at_the_edge_of_the_compute_type_are_taken(tmp_path):
    for dtype, expression in (
        ("float", "x * 3.4e38"),
        ("int32", "x + -2147483648"),
        ("int16", "max(x, -32768) + 32767"),
    ):
        data = op(
            input_desc=[{"name": "x", "type": [dtype]}],
            output_desc=[{"name": "y", "type": [dtype]}],
            opgen={"compute": {"y": expression}},
        )
        (tmp_path / "ok.json").write_text(json.dumps(data))
        assert CliRunner().invoke(app, ["validate", str(tmp_path / "ok.json")]).exit_code == 0
    # one past the edge, with a mixed float/int32 op: the int32 combination refuses it
    data = op(
        input_desc=[{"name": "x", "type": ["float", "int32"]}],
        output_desc=[{"name": "y", "type": ["float", "int32"]}],
        opgen={"compute": {"y": "x + 2147483648"}},
    )
    assert "does not fit in int32_t" in run_validate(tmp_path, json.dumps(data))[0]["message"]


# --- test_shapes: bounded element counts ---------------------------------------------------


def with_shapes(*cases: dict, compute: str | None = None) -> dict:
    block = {"test_shapes": list(cases)}
    if compute is not None:
        block["compute"] = {"z": compute}
    return op(opgen=block)


@pytest.mark.parametrize(
    "data, path, fragment",
    [
        (
            with_shapes({"x": [10**12], "y": [1]}),
            "$.opgen.test_shapes[0].x[0]",
            "dim 1000000000000 is larger than 16777216 (2**24)",
        ),
        (
            with_shapes({"x": [4], "y": [2**70]}),
            "$.opgen.test_shapes[0].y[0]",
            "dim 1180591620717411303424 is larger than 16777216 (2**24)",
        ),
        (
            with_shapes({"x": [1], "y": [1]}, {"x": [0, 2**70], "y": [1]}),
            "$.opgen.test_shapes[1].x[1]",
            "is larger than 16777216 (2**24)",
        ),
        (
            with_shapes({"x": [100000, 100000], "y": [1]}),
            "$.opgen.test_shapes[0].x",
            "100000 x 100000 is 10000000000 elements; a test tensor holds at most 16777216 (2**24)",
        ),
        (
            with_shapes({"x": [4097, 4096], "y": [4096]}, compute="x + y"),
            "$.opgen.test_shapes[0].x",
            "is 16781312 elements; a test tensor holds at most 16777216 (2**24)",
        ),
        (
            with_shapes({"x": [8192, 1], "y": [1, 8192]}, compute="x + y"),
            "$.opgen.test_shapes[0]",
            "broadcast to [8192, 8192], 67108864 elements; a test tensor holds at most 16777216",
        ),
        (
            with_shapes(*[{"x": [4096, 4096], "y": [1]}] * 5),
            "$.opgen.test_shapes",
            "the cases' inputs hold 83886085 elements in all; an op's test_shapes hold at most "
            "67108864 (2**26)",
        ),
    ],
)
def test_test_shapes_beyond_the_limits(tmp_path, data, path, fragment):
    errors = run_validate(tmp_path, json.dumps(data))
    assert [e["path"] for e in errors] == [path]
    assert fragment in errors[0]["message"], errors


def test_test_shapes_at_the_limits_are_taken_and_read_as_integers(tmp_path):
    from opgen.frontend import prototype

    # 2**24 elements per tensor, 2**26 in all: the limits themselves
    at_limits = with_shapes(
        {"x": [4096, 4096], "y": [4096, 4096]},
        {"x": [4096, 4096], "y": [2**24 - 185 - 1]},
        {"x": [0, 2**24], "y": [1]},
        {"x": [4.0, 37], "y": [37]},
    )
    (tmp_path / "ok.json").write_text(json.dumps(at_limits))
    assert CliRunner().invoke(app, ["validate", str(tmp_path / "ok.json")]).exit_code == 0
    shapes = prototype.load(tmp_path / "ok.json").ops[0].test_shapes
    assert shapes[3] == {"x": (4, 37), "y": (37,)}
    assert all(type(d) is int for case in shapes for shape in case.values() for d in shape)
    # 1e-400 is no dim (JSON reads it as 0)
    text = json.dumps(with_shapes({"x": [4, "@D@"], "y": [1]})).replace('"@D@"', "1e-400")
    errors = run_validate(tmp_path, text)
    assert errors[0]["path"] == "$.opgen.test_shapes[0].x[1]"
    assert "1e-400 reads as 0" in errors[0]["message"]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(with_shapes({"x": [100000, 100000], "y": [1]})),
        with_default("float", BIG),
    ],
)
def test_new_refuses_what_validate_refuses(tmp_path, text):
    errors = run_validate(tmp_path, text)
    result = CliRunner().invoke(
        app,
        ["new", str(tmp_path / "proto.json"), "-o", str(tmp_path / "p"), "--no-build", "--json"],
    )
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert json.loads(result.stdout)["errors"] == errors
    assert not (tmp_path / "p").exists()
