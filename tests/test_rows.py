"""The shape rule of row ops (opgen/frontend/rows.py): the shapes it takes and refuses, `opgen
validate` refusing a test_shapes case it refuses, and the generated code applying it: the fake
kernel (_support._row_shapes, with the rule's own messages), the CPU adapter
(opgen_torch::RowShapes) and op_host's InferShape. The built norms project checks the CPU and meta
kernels in test_end_to_end.py."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import types

import pytest
import torch
from kernel_host import twin

from opgen.frontend import prototype
from opgen.frontend.rows import row_shape_problem

RMS = "x * rsqrt(mean(x * x) + epsilon) * gamma"
ROWS = "rows of 0 elements, which the row kernel does not reduce"


def tensor(name: str) -> dict:
    return {"name": name, "param_type": "required", "format": ["ND"], "type": ["float"]}


def rms_norm(test_shapes=None) -> dict:
    block = {"compute": {"y": RMS}}
    if test_shapes is not None:
        block["test_shapes"] = test_shapes
    return {
        "op": "RmsNormCustom",
        "input_desc": [tensor("x"), tensor("gamma")],
        "output_desc": [tensor("y")],
        "attr": [
            {"name": "epsilon", "param_type": "optional", "type": "float", "default_value": 1e-6}
        ],
        "opgen": block,
    }


def row_sum() -> dict:
    return {
        "op": "RowSumCustom",
        "input_desc": [tensor("x")],
        "output_desc": [tensor("y")],
        "opgen": {"compute": {"y": "sum(x)"}},
    }


ACCEPTED = [
    ((4, 37), (37,)),
    ((4, 37), (4, 37)),
    ((2, 3, 4096), (4096,)),
    ((37,), (37,)),
    ((), ()),
    ((0, 37), (37,)),
    ((0, 37), (0, 37)),
    ((1,), (1,)),
    # a value per row: InstanceNorm's gamma [C, 1] over [N, C, L], [N, C, 1], a scalar
    ((4, 37), (4, 1)),
    ((2, 3, 40), (3, 1)),
    ((2, 3, 40), (1, 3, 1)),
    ((2, 3, 40), (2, 3, 1)),
    ((4, 37), (1,)),
    ((4, 37), ()),
    ((2, 0, 37), (0, 1)),  # no rows, so no values
]
REFUSED = [
    ((4, 37), (4, 2)),
    ((2, 3, 40), (2, 1, 1)),
    ((2, 3, 40), (1, 2, 3, 1)),
    ((4, 37), (1, 37)),
    ((2, 3, 5), (3, 5)),
    ((4, 37), (38,)),
    ((), (1,)),
    ((4, 0), (0,)),
    ((0, 0), (0,)),
    ((0,), (0,)),
]


@pytest.mark.parametrize("x, gamma", ACCEPTED)
def test_the_rule_takes_x_s_shape_and_its_row(x, gamma):
    assert row_shape_problem("RmsNormCustom", {"x": x, "gamma": gamma}) is None


@pytest.mark.parametrize("x, gamma", REFUSED)
def test_the_rule_refuses_any_other_shape_and_rows_of_no_elements(x, gamma):
    assert row_shape_problem("RmsNormCustom", {"x": x, "gamma": gamma}) is not None


def test_the_messages_name_the_op_the_inputs_and_their_shapes():
    assert row_shape_problem("RmsNormCustom", {"x": (4, 37), "gamma": (4, 2)}) == (
        "RmsNormCustom: gamma has shape [4, 2]; a row op's inputs take x's shape [4, 37], its "
        "row [37] or a value per row ([4, 1], or without its first dims)"
    )
    assert row_shape_problem("RmsNormCustom", {"x": (37,), "gamma": (2,)}) == (
        "RmsNormCustom: gamma has shape [2]; a row op's inputs take x's shape [37] or its row [37]"
    )
    assert row_shape_problem("RmsNormCustom", {"x": (), "gamma": (1,)}) == (
        "RmsNormCustom: gamma has shape [1]; a row op's inputs take x's shape []"
    )
    assert row_shape_problem("RowSumCustom", {"x": (4, 0)}) == (
        f"RowSumCustom: x has shape [4, 0]: {ROWS} (torch: sum 0, mean nan, amax/amin an error)"
    )


def validate(path):
    return subprocess.run(
        [sys.executable, "-m", "opgen", "validate", str(path)], capture_output=True, text=True
    )


def test_validate_refuses_a_row_op_test_shapes_case_with_exit_2_and_its_path(write_proto):
    proc = validate(
        write_proto([rms_norm([{"x": [4, 37], "gamma": [37]}, {"x": [4, 37], "gamma": [4, 2]}])])
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    text = " ".join(proc.stderr.translate(str.maketrans("", "", "│╭╮╰╯─")).split())
    assert "$[0].opgen.test_shapes[1]" in text and "test_shapes[0]" not in text
    assert (
        "RmsNormCustom: gamma has shape [4, 2]; a row op's inputs take x's shape [4, 37], "
        "its row [37] or a value per row ([4, 1], or without its first dims)"
    ) in text


def test_validate_takes_the_shapes_the_kernel_reads(write_proto):
    proto = rms_norm([{"x": [4, 37], "gamma": [37]}, {"x": [2, 3, 64], "gamma": [2, 3, 64]}])
    assert validate(write_proto([proto])).returncode == 0


def rendered(*ops: dict) -> dict[str, str]:
    files = twin.render_files(prototype.loads(json.dumps(list(ops))), twin.options(), full=True)
    return {f.path: f.content.decode() for f in files}


def test_the_fake_kernel_the_cpu_adapter_and_infer_shape_apply_the_rule():
    files = rendered(rms_norm(), row_sum())
    ops_py = files["p/ops.py"]
    assert '_row_shapes("RmsNormCustom", x=x, gamma=gamma)' in ops_py
    assert '_row_shapes("RowSumCustom", x=x)' in ops_py
    # before the golden runs on the fake tensors
    assert ops_py.index('_row_shapes("RmsNormCustom"') < ops_py.index("_golden.rms_norm_custom(")
    assert "_row_shapes" in ops_py.split("from ._support import")[1].split("\n\n")[0]
    cpp = files["p/csrc/ops.cpp"]
    check = 'opgen_torch::RowShapes("RmsNormCustom", {"x", "gamma"}, {x, gamma});'
    assert check in cpp and cpp.index(check) < cpp.index("opgen_kernel_rms_norm_custom_float32)")
    assert 'opgen_torch::RowShapes("RowSumCustom", {"x"}, {x});' in cpp
    assert "inline void RowShapes(" in files["p/csrc/opgen_checks.h"]
    assert "using opgen_checks::RowShapes;" in files["p/csrc/opgen_torch.h"]
    host = files["op_host/rms_norm_custom.cpp"]
    assert "!opgen::RowsHaveElements(rows) ||" in host
    tiling = files["op_host/opgen_tiling.h"]
    assert "if (rank == 0 || !RowFirstAxis(*rows, dims, first)) {" in tiling
    assert "if (!RowValuePeriod(*shape, *rows, first, values)) {" in tiling
    assert "    return reduce > 0;\n" in tiling


def test_an_elementwise_project_has_no_row_check():
    files = rendered(
        {
            "op": "AddCustom",
            "input_desc": [tensor("x"), tensor("y")],
            "output_desc": [tensor("z")],
            "opgen": {"compute": {"z": "x + y"}},
        }
    )
    # the libraries (_support.py, csrc/opgen_torch.h) define the check; nothing calls it
    assert "_row_shapes" not in files["p/ops.py"] and "RowShapes" not in files["p/csrc/ops.cpp"]


@functools.cache
def support() -> types.ModuleType:
    """The rendered _support.py of a project with a row op."""
    module = types.ModuleType("support")
    exec(compile(rendered(rms_norm())["p/_support.py"], "_support.py", "exec"), module.__dict__)
    return module


@pytest.mark.parametrize("x, gamma", ACCEPTED + REFUSED)
def test_the_generated_fake_check_says_what_the_rule_says(x, gamma):
    module = support()
    try:
        module._row_shapes(
            "RmsNormCustom",
            x=torch.empty(x, device="meta"),
            gamma=torch.empty(gamma, device="meta"),
        )
        message = None
    except RuntimeError as exc:
        message = str(exc)
    assert message == row_shape_problem("RmsNormCustom", {"x": x, "gamma": gamma})
