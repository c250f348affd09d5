"""Host-side twin: OpDef registry (and its JSON), gert contexts, PlatformAscendC."""

from __future__ import annotations

import json

import pytest

# Every test runs a program the twin_build fixture compiles (conftest.py).
pytestmark = pytest.mark.slow

# msopgen-style prototypes of the hand-written test ops (type strings as in msopgen JSON).
PROTOTYPES = {
    "AddCustom": {
        "input_desc": [
            {
                "name": "x",
                "param_type": "required",
                "format": ["ND", "ND"],
                "type": ["fp16", "float"],
            },
            {
                "name": "y",
                "param_type": "required",
                "format": ["ND", "ND"],
                "type": ["fp16", "float"],
            },
        ],
        "output_desc": [
            {
                "name": "z",
                "param_type": "required",
                "format": ["ND", "ND"],
                "type": ["fp16", "float"],
            }
        ],
        "attr": [],
    },
    "GeluCustom": {
        "input_desc": [
            {
                "name": "x",
                "param_type": "required",
                "format": ["ND"] * 3,
                "type": ["float", "fp16", "bf16"],
            }
        ],
        "output_desc": [
            {
                "name": "y",
                "param_type": "required",
                "format": ["ND"] * 3,
                "type": ["float", "fp16", "bf16"],
            }
        ],
        "attr": [
            {
                "name": "approximate",
                "param_type": "optional",
                "type": "string",
                "default_value": "tanh",
            }
        ],
    },
}
DTYPE = {
    "fp16": "DT_FLOAT16",
    "float16": "DT_FLOAT16",
    "float": "DT_FLOAT",
    "fp32": "DT_FLOAT",
    "bf16": "DT_BF16",
}


def _assert_matches_prototype(entry: dict, proto: dict) -> None:
    for key, side in (("input_desc", "inputs"), ("output_desc", "outputs")):
        assert [p["name"] for p in entry[side]] == [p["name"] for p in proto[key]]
        for got, want in zip(entry[side], proto[key], strict=True):
            assert got["param_type"] == want["param_type"]
            assert got["dtypes"] == [DTYPE[t] for t in want["type"]]
            assert got["formats"] == ["FORMAT_" + f for f in want["format"]]
    assert [a["name"] for a in entry["attrs"]] == [a["name"] for a in proto["attr"]]
    for got, want in zip(entry["attrs"], proto["attr"], strict=True):
        assert got["type"] == want["type"]
        assert got["required"] == (want["param_type"] == "required")
        assert got["default"] == want.get("default_value")


def test_registry_json_matches_prototypes(twin_build):
    reg = json.loads(twin_build.run("runner_driver", "registry", check=True).stdout)
    ops = {op["op_type"]: op for op in reg["ops"]}
    assert set(ops) == {
        "AddCustom",
        "GeluCustom",
        "AddCustomBroken",
        "ListSumCustom",
        "SyncRollCustom",
    }
    assert reg["duplicate_registrations"] == []
    for name, proto in PROTOTYPES.items():
        _assert_matches_prototype(ops[name], proto)
        assert ops[name]["socs"] == ["ascend910b"]
        assert ops[name]["infer_shape"] and ops[name]["infer_data_type"] and ops[name]["tiling"]
    gelu_cfg = ops["GeluCustom"]["aicore_configs"][0]
    assert gelu_cfg["flags"] == {"dynamicShapeSupport": True, "dynamicCompileStatic": True}
    assert ops["AddCustomBroken"]["infer_data_type"] is False
    list_sum = ops["ListSumCustom"]
    assert [p["param_type"] for p in list_sum["inputs"]] == ["required", "optional", "dynamic"]
    assert [p["param_type"] for p in list_sum["outputs"]] == ["required", "dynamic"]


def test_registry_json_all_attr_kinds(twin_build):
    reg = json.loads(twin_build.run("test_host_api", "registry", check=True).stdout)
    probe = next(op for op in reg["ops"] if op["op_type"] == "AttrProbe")
    attrs = {a["name"]: a for a in probe["attrs"]}
    assert [a["name"] for a in probe["attrs"]] == [
        "alpha",
        "count",
        "flag",
        "mode",
        "dims",
        "scales",
        "masks",
        "pads",
    ]
    assert attrs["alpha"] == {
        "name": "alpha",
        "type": "float",
        "required": False,
        "has_default": True,
        "default": 1.5,
    }
    assert attrs["count"]["required"] is True and attrs["count"]["has_default"] is False
    assert attrs["count"]["default"] is None
    assert attrs["flag"]["default"] is True
    assert attrs["mode"]["default"] == "fast"
    assert attrs["dims"]["default"] == [1, 2, 3]
    assert attrs["scales"]["default"] == [0.5, 0.25]
    assert attrs["masks"]["default"] == [True, False]
    assert attrs["pads"]["default"] == [[1, 2], [3]]
    assert probe["inputs"][1]["param_type"] == "optional"
    assert probe["inputs"][0]["formats"] == ["FORMAT_ND", "FORMAT_NCHW"]
    assert probe["socs"] == ["ascend910b", "ascend910_93"]
    cfg = probe["aicore_configs"][0]
    assert cfg["flags"] == {"dynamicShapeSupport": True, "needCheckSupport": False}
    assert cfg["extend_cfg"] == {"opFile.value": "attr_probe"}


def test_shapes_and_types(run_section):
    run_section("test_host_api", "shapes")


def test_platform(run_section):
    run_section("test_host_api", "platform")


def test_contexts_attrs_and_validation(run_section):
    msgs = run_section("test_host_api", "contexts")["messages"]
    assert "GetTilingData<T>() returned nullptr" in msgs["tiling_overflow"]
    assert "attr 'count' is a int attr" in msgs["attr_int_narrow"]


def test_tiling_context_directly(run_section):
    run_section("test_host_api", "tilingdata")


def test_dynamic_instances_in_contexts(run_section):
    """AnchorInstanceInfo / GetIr{In,Out}putInstanceInfo, GetDynamicInput{Shape,Desc,DataType,
    Tensor} and the runner's list validation (section "dynamic" of test_host_api.cpp)."""
    assert run_section("test_host_api", "dynamic")["passed"] >= 35


def test_soc_config_narrows_the_dtypes(run_section):
    """An OpAICoreConfig of a SoC replaces the OpDef's dtype lists when the twin runs as that
    SoC (section "socconfig" of test_host_api.cpp)."""
    assert run_section("test_host_api", "socconfig")["passed"] >= 4


def test_launch_threads_errors_and_borrowed_inputs(run_section):
    """Section "launch": every block runs once on 1, 2, 3 or 16 threads; the lowest failing
    block is reported and the blocks before it ran; a large output is filled with 0xFF on several
    threads; the helper threads are kept for the next launch, and a forked child starts its own;
    a borrowed input is its own GM buffer, with its bounds checked; an op without outputs gets
    copies of borrowed inputs."""
    assert run_section("test_host_api", "launch")["passed"] >= 27
