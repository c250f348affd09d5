"""msopgen's looser spellings that real prototypes use: each is read (with a warning where opgen
assumes a meaning), and what msopgen turns into a broken project is refused with the JSON path
and what msopgen would do."""

from __future__ import annotations

import json

import pytest
from conftest import op

from opgen.errors import UsageError
from opgen.frontend import prototype, spelling
from opgen.frontend.options import resolve_socs
from opgen.frontend.problems import PrototypeError


def load(data):
    return prototype.loads(json.dumps(data))


def problems_of(data) -> list[tuple[str, str]]:
    with pytest.raises(PrototypeError) as info:
        load(data)
    return [(p.path, p.text()) for p in info.value.problems]


def with_attr(**attr):
    return op(attr=[{"name": "a", "param_type": "optional", **attr}])


@pytest.mark.parametrize(
    "attr_type, text, value",
    [
        ("float", "0.0", 0.0),
        ("float", "1e-12", 1e-12),
        ("float", "-2.5f", -2.5),
        ("float", "3", 3.0),
        ("int", "2", 2),
        ("int", "-1", -1),
        ("int", "1.0", 1),
        ("bool", "false", False),
        ("bool", "True", True),
        ("list_int", "{}", []),
        ("list_int", "{0}", [0]),
        ("list_int", "{1, 2, 3}", [1, 2, 3]),
        ("list_int", "[4, 5]", [4, 5]),
        ("list_float", "{0.5f, 1e-3}", [0.5, 1e-3]),
        ("list_bool", "{true, false}", [True, False]),
        ("list_list_int", "{{1, 2}, {3}}", [[1, 2], [3]]),
        ("list_list_int", "{}", []),
    ],
)
def test_string_defaults_are_read_by_the_attr_type(attr_type, text, value):
    proto = load(with_attr(type=attr_type, default_value=text))
    (model,) = proto.ops
    assert model.attrs[0].default == value
    assert type(model.attrs[0].default) is type(value)
    assert proto.warnings[0] == (
        f"$.attr[0].default_value: the string {json.dumps(text)} is "
        f"read as the {attr_type} {json.dumps(value)}"
    )


def test_a_string_default_stays_a_string_for_a_string_attr():
    proto = load(with_attr(type="string", default_value="{}"))
    assert proto.ops[0].attrs[0].default == "{}" and proto.warnings == ()


@pytest.mark.parametrize(
    "attr_type, text, method",
    [
        ("float", "abc", "Float"),
        ("float", "", "Float"),
        ("int", "1.5", "Int"),
        ("bool", "yes", "Bool"),
        ("list_int", "{1, x}", "ListInt"),
        ("list_int", "{1, 2", "ListInt"),
        ("list_list_int", "{{1}, 2}", "ListListInt"),
    ],
)
def test_a_string_default_that_would_not_compile_is_refused(attr_type, text, method):
    ((path, message),) = problems_of(with_attr(type=attr_type, default_value=text))
    assert path == "$.attr[0].default_value"
    assert (
        f"msopgen would paste it into the OpDef as .{method}({text}), which does not compile"
        in message
    )


def test_an_empty_object_is_an_empty_list():
    proto = load(with_attr(type="list_float", default_value={}))
    assert proto.ops[0].attrs[0].default == []
    assert proto.warnings == ("$.attr[0].default_value: {} is read as the empty list []",)


@pytest.mark.parametrize(
    "alias, canonical",
    [
        ("int32", "int"),
        ("int64", "int"),
        ("float32", "float"),
        ("list_int64", "list_int"),
    ],
)
def test_attr_type_aliases(alias, canonical):
    proto = load(with_attr(type=alias, default_value=[1] if "list" in alias else 1))
    assert proto.ops[0].attrs[0].type == canonical
    assert proto.warnings == (
        f"$.attr[0].type: attr type '{alias}' is read as '{canonical}' "
        "(msopgen drops an attr of this type, with a warning)",
    )


def test_a_required_attrs_default_is_ignored_with_a_warning():
    data = op(attr=[{"name": "k", "param_type": "required", "type": "int", "default_value": 3}])
    proto = load(data)
    (model,) = proto.ops
    assert model.attrs[0].required and model.attrs[0].default is None
    assert "int k" in model.torch_schema and "k=" not in model.torch_schema
    (warning,) = proto.warnings
    assert warning.startswith(
        "$.attr[0].default_value: required attr 'k' has a default_value, which is ignored"
    )


def test_respelling_leaves_the_callers_data_alone():
    data = with_attr(type="int64", default_value="2")
    before = json.dumps(data)
    respelt, warnings, problems = spelling.normalise(data, "$")
    assert json.dumps(data) == before and respelt["attr"][0] == {
        "name": "a",
        "param_type": "optional",
        "type": "int",
        "default_value": 2,
    }
    assert len(warnings) == 2 and problems == []


def test_an_output_named_out():
    (model,) = load(op(output_desc=[{"name": "out", "type": ["fp16", "float"]}])).ops
    assert model.outputs[0].name == "out"
    assert [a.name for a in model.aclnn.args] == ["x", "y", "out"]
    two = op(
        output_desc=[
            {"name": "out", "type": ["fp16", "float"]},
            {"name": "w", "type": ["fp16", "float"]},
        ]
    )
    (model,) = load(two).ops
    assert [a.name for a in model.aclnn.args] == ["x", "y", "outOut", "wOut"]


def test_an_input_named_out_next_to_a_single_output_collides_in_aclnn():
    data = op(input_desc=[{"name": "out", "type": ["fp16", "float"]}])
    ((path, message),) = problems_of(data)
    assert path == "$" and "both become the aclnn parameter 'out'" in message


def test_attr_desc_suggests_attr_and_says_what_msopgen_does():
    data = op()
    data["attr_desc"] = data.pop("attr")
    assert problems_of(data) == [
        (
            "$.attr_desc",
            "unknown key 'attr_desc': msopgen ignores it, "
            "so what it holds would be lost; did you mean "
            "'attr'?",
        )
    ]


@pytest.mark.parametrize(
    "dtype, suggestion", [("bfloat", "bf16"), ("fp64", "double"), ("boolean", "bool")]
)
def test_dtype_near_misses(dtype, suggestion):
    data = op(
        input_desc=[{"name": "x", "type": [dtype, "float"]}],
        output_desc=[{"name": "z", "type": ["fp16", "float"]}],
    )
    ((path, message),) = problems_of(data)
    assert path == "$.input_desc[0].type[0]"
    assert message.endswith(f"did you mean '{suggestion}'?") and "msopgen would drop it" in message


def test_float64_names_double():
    data = op(
        input_desc=[{"name": "x", "type": ["float64", "float"]}],
        output_desc=[{"name": "z", "type": ["fp16", "float"]}],
    )
    ((_, message),) = problems_of(data)
    assert "write 'double'" in message and "did you mean" not in message


def test_refusals_say_what_msopgen_would_do():
    lower = problems_of(op(op="addCustom"))
    assert lower[0][0] == "$.op" and 'msopgen only warns "should be Upper CamelCase"' in lower[0][1]
    split = {k: v for k, v in op().items() if k != "op"}
    assert (
        "$[1]",
        "missing required key 'op' (msopgen skips the object: \"Failed to obtain the op type\")",
    ) in problems_of([{"op": "AddCustom"}, split])
    list_attr = problems_of(op(attr=[{"name": "k", "param_type": "optional", "type": "list_int"}]))
    assert list_attr == [
        (
            "$.attr[0]",
            "optional attr 'k' needs a default_value of type list_int "
            "(msopgen would write .ListInt(None))",
        )
    ]


def test_an_unknown_soc_gets_a_full_soc_name():
    with pytest.raises(UsageError, match=r"did you mean 'ascend910b[0-9]'"):
        resolve_socs(["ascend910b9"])
