"""The schema, the catalog and msopgen's tables agree; the schema documents every field."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from opgen.frontend.catalog import (
    ATTR_TYPE_ALIASES,
    ATTR_TYPES,
    DTYPE_ALIASES,
    FORMATS,
    SOC_SHORT_NAMES,
    compute_type,
)
from opgen.resources import schema_path

SCHEMA = json.loads(schema_path().read_text())


def test_schema_is_valid_2020_12():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_enums_match_the_catalog():
    defs = SCHEMA["$defs"]
    assert defs["dtype"]["enum"] == list(DTYPE_ALIASES)
    assert defs["format"]["enum"] == list(FORMATS)
    assert defs["attr"]["properties"]["type"]["enum"] == [*ATTR_TYPES, *ATTR_TYPE_ALIASES]
    if_types = [rule["if"]["properties"]["type"]["const"] for rule in defs["attr"]["allOf"]]
    assert if_types == list(ATTR_TYPES)


def test_every_field_has_a_description_and_an_example():
    for name, definition in SCHEMA["$defs"].items():
        assert definition.get("description"), name
        for field, spec in definition.get("properties", {}).items():
            assert spec.get("description"), f"{name}.{field}"
            if field != "opgen":
                assert spec.get("examples"), f"{name}.{field}"


def test_formats_are_msopgens_format_list():
    assert len(FORMATS) == 42 and {
        "ND",
        "NCHW",
        "NHWC",
        "NC1HWC0",
        "FRACTAL_Z",
        "FRACTAL_NZ",
    } <= set(FORMATS)


def test_soc_short_names_follow_msopgen():
    assert SOC_SHORT_NAMES["ascend910b1"] == "ascend910b"
    assert SOC_SHORT_NAMES["ascend910b"] == "ascend910"  # the 910A trap
    assert SOC_SHORT_NAMES["ascend910_9391"] == "ascend910_93"
    assert SOC_SHORT_NAMES["ascend310p3"] == "ascend310p"
    assert SOC_SHORT_NAMES["ascend310b1"] == "ascend310b"
    assert SOC_SHORT_NAMES["ascend950pr"] == "ascend950"
    assert len(SOC_SHORT_NAMES) == 32


def test_bool_tensors_beside_one_integer_type_compute_in_it():
    """A comparison of int32 tensors into a bool output computes in int32_t (its 0 and 1);
    without a compute expression (through_half False) bool has no compute type."""
    assert compute_type(["int32", "int32", "bool"], through_half=True) == "int32_t"
    assert compute_type(["int32", "bool", "int32"], through_half=True) == "int32_t"
    assert compute_type(["int32", "int32", "bool"]) is None
    assert compute_type(["int32", "int16", "bool"], through_half=True) is None
    assert compute_type(["int32", "int8"], through_half=True) is None
    assert compute_type(["bool", "bool"], through_half=True) == "float"
