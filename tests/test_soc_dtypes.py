"""bfloat16 and the SoCs without a float <-> bfloat16 Cast (opgen/frontend/soc_dtypes.py): per-SoC
dtype lists in the OpDef, the warning, the refusal, and the combinations the twin-run tests take."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES
from kernel_host import protos, twin
from typer.testing import CliRunner

from opgen.cli import app
from opgen.frontend import prototype, soc_dtypes
from opgen.frontend.catalog import SOC_FAMILIES
from opgen.planning import tests as tests_data

GELU = EXAMPLES / "gelu_custom.json"  # float16, float32, bfloat16


def host_cpp(text: str, socs: tuple[str, ...]) -> str:
    op = prototype.loads(text).ops[0]
    files = twin.render_files(prototype.loads(text), twin.options(socs))
    return next(f.content.decode() for f in files if f.path == f"op_host/{op.snake_name}.cpp")


def flat(text: str) -> str:
    return " ".join(text.translate(str.maketrans("", "", "│╭╮╰╯─")).split())


def test_only_910a_and_310p_lack_the_bf16_cast():
    assert sorted(s for s, f in SOC_FAMILIES.items() if not f.has_bf16_cast) == [
        "ascend310p",
        "ascend910",
    ]


def test_a_soc_without_bf16_gets_its_own_config():
    cpp = host_cpp(GELU.read_text(), ("ascend910b1", "ascend310p3", "ascend310b1"))
    opdef, configs = cpp.split("SetTiling", 1)
    # the OpDef itself lists every combination; only 310P gets a config without bfloat16
    assert opdef.count("ge::DT_BF16") == 2
    assert configs.count("OpAICoreConfig ") == 1 and "ge::DT_BF16" not in configs
    assert 'this->AICore().AddConfig("ascend910b");' in configs
    assert 'this->AICore().AddConfig("ascend310b");' in configs
    assert 'this->AICore().AddConfig("ascend310p", ascend310pConfig);' in configs
    assert (
        'ascend310pConfig.Input("x")\n            .ParamType(REQUIRED)\n'
        "            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})\n"
        "            .Format({ge::FORMAT_ND, ge::FORMAT_ND});"
    ) in configs
    assert 'ascend310pConfig.Output("y")' in configs
    # the flags AddConfig(soc) sets, so the config differs only in its dtypes
    assert ".DynamicShapeSupportFlag(true)" in configs and ".PrecisionReduceFlag(true);" in configs


def test_no_config_when_every_soc_runs_every_combination():
    assert "OpAICoreConfig" not in host_cpp(GELU.read_text(), ("ascend910b1",))
    assert "OpAICoreConfig" not in host_cpp(GELU.read_text(), ("ascend910b1", "ascend310b1"))
    # without bfloat16, 310P and 910A take everything
    assert "OpAICoreConfig" not in host_cpp(
        protos.text(protos.RECIP), ("ascend310p3", "ascend910a")
    )


def test_the_warning_names_dtype_and_soc():
    op = prototype.load(GELU).ops[0]
    warnings = soc_dtypes.check(op, ["ascend910b", "ascend310p", "ascend910"])
    assert warnings == [
        "GeluCustom: dtype bfloat16 is not registered for ascend310p, which has no float <-> "
        "bfloat16 Cast (1 of 3 dtype combinations left out there)",
        "GeluCustom: dtype bfloat16 is not registered for ascend910, which has no float <-> "
        "bfloat16 Cast (1 of 3 dtype combinations left out there)",
    ]
    assert soc_dtypes.check(op, ["ascend910b", "ascend310b"]) == []


def test_bf16_on_no_listed_soc_is_refused():
    op = prototype.load(GELU).ops[0]
    with pytest.raises(soc_dtypes.SocDtypeError, match="bfloat16.*ascend310p and ascend910 lack"):
        soc_dtypes.check(op, ["ascend310p", "ascend910"])


def test_a_soc_left_without_combinations_is_refused():
    only_bf16 = prototype.loads(
        protos.text(
            protos.op(
                "OnlyBf16Custom",
                [protos.tensor("x", ["bf16"])],
                [protos.tensor("y", ["bf16"])],
                compute={"y": "x * 2"},
            )
        )
    ).ops[0]
    with pytest.raises(
        soc_dtypes.SocDtypeError, match="every dtype combination holds bfloat16.*ascend310p lacks"
    ):
        soc_dtypes.check(only_bf16, ["ascend910b", "ascend310p"])


def new(dest, *socs):
    args = ["new", str(GELU), "-o", str(dest), "--no-build", "--no-msopgen"]
    return CliRunner().invoke(app, args + [a for s in socs for a in ("--soc", s)])


def test_new_exits_2_naming_dtype_and_soc(tmp_path):
    result = new(tmp_path / "soc_refused", "ascend310p3")
    assert result.exit_code == 2
    text = flat(result.stderr)
    assert "$[0]" in text and "bfloat16" in text and "ascend310p" in text
    assert not (tmp_path / "soc_refused").exists()


def test_new_warns_and_registers_per_soc(tmp_path):
    result = new(tmp_path / "soc_split", "ascend910b1", "ascend910a")
    assert result.exit_code == 0, result.output
    assert "bfloat16 is not registered for ascend910" in flat(result.stderr)
    cpp = (tmp_path / "soc_split" / "op_host" / "gelu_custom.cpp").read_text()
    assert 'AddConfig("ascend910", ascend910Config)' in cpp


def test_twin_run_tests_take_the_first_socs_combinations():
    op = prototype.load(GELU).ops[0]
    assert [c.id for c in tests_data.combinations(op, "ascend910b")] == [
        "float16",
        "float32",
        "bfloat16",
    ]
    assert [c.id for c in tests_data.combinations(op, "ascend310p")] == ["float16", "float32"]


def test_a_dtype_no_soc_can_run_is_reported_with_the_other_problems(tmp_path):
    bf16_only = {
        "op": "BfCustom",
        "input_desc": [{"name": "x", "type": ["bf16"]}],
        "output_desc": [{"name": "y", "type": ["bf16"]}],
        "opgen": {"compute": {"y": "x * 2"}},
    }
    misspelt = {
        "op": "OtherCustom",
        "input_desc": [{"name": "x", "type": ["fp61"]}],
        "output_desc": [{"name": "y", "type": ["float"]}],
    }
    path = tmp_path / "proto.json"
    path.write_text(json.dumps([bf16_only, misspelt]))
    result = CliRunner().invoke(app, ["validate", str(path), "--soc", "ascend910a", "--json"])
    assert result.exit_code == 2
    errors = json.loads(result.stdout)["errors"]
    assert [e["path"] for e in errors] == ["$[0]", "$[1].input_desc[0].type[0]"]
    assert "bfloat16" in errors[0]["message"]
