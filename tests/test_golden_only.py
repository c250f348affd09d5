"""Ops without a compute expression (a golden only, or neither): the user's files are skeletons
written once, nothing generated assumes a shape rule, the tests take test_shapes, and
`opgen update` keeps the user's work."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import EXAMPLES, ROOT
from typer.testing import CliRunner

from opgen.cli import app

MATMUL = ROOT / "tests" / "data" / "e2e" / "matmul_golden.json"
USER_FILES = ["op_kernel/matmul_custom_kernel.h", "op_kernel/matmul_custom_tiling.h",
              "op_host/matmul_custom_tiling_policy.h", "op_host/matmul_custom_infer.h"]
# what an elementwise stand-in looks like in the host code
SHAPE_RULES = re.compile(r"InferShapeLikeInput|InferElementwiseShape|InferDataTypeLikeInput|"
                         r"ReadFacts|whose shape every")


def new(tmp_path: Path, proto: Path, name: str = "proj") -> tuple[Path, dict]:
    dest = tmp_path / name
    result = CliRunner().invoke(app, ["new", str(proto), "-o", str(dest), "--no-build",
                                      "--no-msopgen", "--json"])
    assert result.exit_code == 0, result.output
    return dest, json.loads(result.stdout)


def write_proto(tmp_path: Path, ops: list[dict]) -> Path:
    path = tmp_path / "proto.json"
    path.write_text(json.dumps(ops))
    return path


def tensor(name: str, param_type: str = "required") -> dict:
    return {"name": name, "param_type": param_type, "format": ["ND", "ND"],
            "type": ["fp16", "float"]}


def test_a_golden_only_op_gets_user_skeletons_and_no_shape_rule(tmp_path):
    project, summary = new(tmp_path, MATMUL)
    owners = {f["path"]: f["owner"] for f in summary["files"]}
    for path in USER_FILES:
        assert owners[path] == "user", path
    assert owners["op_host/matmul_custom.cpp"] == owners["op_kernel/matmul_custom.cpp"] \
        == "generated"
    assert "op_kernel/matmul_custom_compute.h" not in owners
    assert "op_host/matmul_custom_tiling_base.h" not in owners
    for path, owner in owners.items():
        if owner == "generated" and path.startswith(("op_host/", "op_kernel/")) \
                and "matmul_custom" in path:
            text = (project / path).read_text()
            assert not SHAPE_RULES.search(text), path
    host = (project / "op_host/matmul_custom.cpp").read_text()
    assert '#include "matmul_custom_infer.h"' in host
    assert "SetInferShape(optiling::matmul_custom::InferShape)" in host
    infer = (project / "op_host/matmul_custom_infer.h").read_text()
    assert "#define MATMUL_CUSTOM_INFER_SHAPE_NOT_WRITTEN  // !!! PLACEHOLDER" in infer
    assert "return ge::GRAPH_FAILED;" in infer.split("inline ge::graphStatus InferDataType")[0]
    kernel = (project / "op_kernel/matmul_custom_kernel.h").read_text()
    for gm in ("aGm_.SetGlobalBuffer", "bGm_.SetGlobalBuffer", "cGm_.SetGlobalBuffer"):
        assert gm in kernel
    assert "!!! PLACEHOLDER" in kernel and "TODO(opgen)" in kernel
    # the notice names every file to write
    notice = next(w for w in summary["warnings"] if "yours to compute" in w)
    for path in USER_FILES:
        assert path in notice
    # the CPU op returns zeros of the fake kernel's shapes while InferShape is the placeholder
    ops_cpp = (project / "proj/csrc/ops.cpp").read_text()
    assert "#ifdef MATMUL_CUSTOM_INFER_SHAPE_NOT_WRITTEN" in ops_cpp
    # the fake kernel is the golden on meta tensors, in the combination's dtypes
    ops_py = (project / "proj/ops.py").read_text()
    assert "results_ = _golden.matmul_custom(a, b)" in ops_py
    assert "dtype=dtypes_[0]" in ops_py


def test_the_tests_of_a_golden_only_op_use_test_shapes(tmp_path):
    project, _ = new(tmp_path, MATMUL)
    text = (project / "tests/test_matmul_custom.py").read_text()
    assert 'pytest.param({"a": [16, 32], "b": [32, 8]}, id="a16x32-b32x8")' in text
    assert 'pytest.param({"a": [2, 16, 32], "b": [32, 8]}, id="a2x16x32-b32x8")' in text
    assert 'kernel_is_placeholder("op_host/matmul_custom_infer.h")' in text
    assert "def test_host_infer_matches_golden" in text
    compile(text, "test_matmul_custom.py", "exec")


def test_an_op_with_compute_keeps_its_files(tmp_path):
    _, summary = new(tmp_path, EXAMPLES / "gelu_custom.json")
    paths = {f["path"] for f in summary["files"]}
    assert "op_kernel/gelu_custom_compute.h" in paths
    assert not any(p.endswith(("gelu_custom_infer.h", "gelu_custom_kernel.h")) for p in paths)
    assert not any("yours to compute" in w for w in summary["warnings"])


def test_an_op_with_neither_compute_nor_golden_is_told_what_to_write(tmp_path):
    proto = write_proto(tmp_path, [{"op": "PairCustom", "input_desc": [tensor("x"), tensor("y")],
                                    "output_desc": [tensor("z")]}])
    project, summary = new(tmp_path, proto)
    warnings = " ".join(summary["warnings"])
    assert "neither a compute expression nor a golden" in warnings
    assert "op_host/pair_custom_infer.h" in warnings and "no golden" in warnings
    ops_py = (project / "proj/ops.py").read_text()
    assert "has no compute and no golden expression" in ops_py  # the fake assumes nothing
    assert "new_empty(x.shape" not in ops_py


def test_a_golden_only_op_without_test_shapes_is_warned(tmp_path):
    proto = write_proto(tmp_path, [{"op": "PairCustom", "input_desc": [tensor("x"), tensor("y")],
                                    "output_desc": [tensor("z")],
                                    "opgen": {"golden": {"z": "torch.matmul(x, y)"}}}])
    _, summary = new(tmp_path, proto)
    assert any("test_shapes" in w for w in summary["warnings"])


def test_update_keeps_the_users_files(tmp_path):
    project, _ = new(tmp_path, MATMUL)
    edited = {}
    for path in USER_FILES:
        target = project / path
        edited[path] = target.read_text() + "// mine\n"
        target.write_text(edited[path])
    proto = project / "matmul_golden.json"
    data = json.loads(proto.read_text())
    data[0]["opgen"]["golden"]["c"] = "torch.mm(a, b)"
    proto.write_text(json.dumps(data))
    result = CliRunner().invoke(app, ["update", str(project)])
    assert result.exit_code == 0, result.output
    for path, text in edited.items():
        assert (project / path).read_text() == text, path
    assert "torch.mm(a, b)" in (project / "proj/golden.py").read_text()


def test_a_golden_only_op_with_a_dynamic_input_gets_a_list_and_skips_what_the_twin_cannot_run(
        tmp_path):
    add_n = {"op": "AddNCustom", "input_desc": [tensor("x", "dynamic")],
             "output_desc": [tensor("y")],
             "opgen": {"golden": {"y": "torch.sum(torch.stack(x), 0)"}}}
    project, summary = new(tmp_path, write_proto(tmp_path, [add_n]))
    owners = {f["path"]: f["owner"] for f in summary["files"]}
    assert owners["op_kernel/add_n_custom_kernel.h"] == "user"
    assert "op_kernel/add_n_custom_compute.h" not in owners
    for path in ("op_host/add_n_custom.cpp", "op_kernel/add_n_custom.cpp"):
        assert not SHAPE_RULES.search((project / path).read_text()), path
    kernel = (project / "op_kernel/add_n_custom_kernel.h").read_text()
    assert "xList_.Init(reinterpret_cast<__gm__ void*>(x));" in kernel
    assert "AscendC::ListTensorDesc xList_;" in kernel and "GetDataPtr<DTYPE_X>(i)" in kernel
    assert "yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y*>(y));" in kernel
    infer = (project / "op_host/add_n_custom_infer.h").read_text()
    assert "context->GetDynamicInputShape(0, i);" in infer
    # the output's dtype follows the list's (fp16 -> fp16, float -> float), not a fixed one
    assert "context->SetOutputDataType(0, context->GetDynamicInputDataType(0, 0));" in infer
    tests = (project / "tests/test_add_n_custom.py").read_text()
    assert "TWIN_CANNOT_RUN = pytest.mark.skip(" in tests
    for test in ("test_host_infer_matches_golden", "test_precision(", "test_opcheck"):
        assert re.search(r"@TWIN_CANNOT_RUN\n(@\w+.*\n)*def " + re.escape(test), tests), test
    assert not re.search(r"@TWIN_CANNOT_RUN\n(@\w+.*\n)*def test_fake_kernel_matches_golden",
                         tests)


def test_a_golden_only_op_with_a_dynamic_output_gets_a_list(tmp_path):
    split = {"op": "SplitCustom", "input_desc": [tensor("x")],
             "output_desc": [tensor("y", "dynamic")],
             "opgen": {"golden": {"y": "torch.chunk(x, 2)"}}}
    project, summary = new(tmp_path, write_proto(tmp_path, [split]))
    owners = {f["path"]: f["owner"] for f in summary["files"]}
    assert owners["op_kernel/split_custom_kernel.h"] == "user"
    assert "op_kernel/split_custom_compute.h" not in owners
    kernel = (project / "op_kernel/split_custom_kernel.h").read_text()
    assert "yList_.Init(reinterpret_cast<__gm__ void*>(y));" in kernel
    infer = (project / "op_host/split_custom_infer.h").read_text()
    # every tensor of the list gets the dtype of x
    assert "const gert::AnchorInstanceInfo* yInfo = context->GetIrOutputInstanceInfo(0);" in infer
    assert ("context->SetOutputDataType(yInfo->GetInstanceStart() + i, "
            "context->GetRequiredInputDataType(0));") in infer
    assert "context->GetOutputShape(yFirst + i);" in infer

