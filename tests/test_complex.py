"""complex64 tensors: accepted for ops whose compute step is the user's, moved by the kernel as
uint64_t words (never as DTYPE_<NAME>, a C type only Ascend950 has), complex in PyTorch, judged
part by part by the precision standard; a compute expression over one is refused. complex32 and
complex128 stay without an element type.

Slow: a float32/complex64 op builds on the CPU twin, and a compute step written over the words
(2.0f times every float of the tile) passes the generated precision tests in both combinations,
which it can only do if each combination's kernel streams the right element type.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types

import pytest
from conftest import ROOT, op, render_files
from typer.testing import CliRunner

from opgen.cli import app
from opgen.frontend import prototype
from opgen.frontend.options import Options
from opgen.frontend.problems import PrototypeError
from opgen.resources import templates_dir

CORPUS = ROOT / "tests" / "data" / "corpus" / "hicann__cann-ops-competitions"
ROLL_COMPLEX = CORPUS / (
    "04_tasks__01_community-task-2026__docs__202607__self_test_case__aclnn_roll__op_complex.json"
)
TWIN_INCLUDE = ROOT / "opgen" / "twin" / "include"


def tensor(name, types):
    return {"name": name, "param_type": "required", "format": ["ND"], "type": list(types)}


def scale(types=("float", "complex64"), **opgen_block):
    """ScaleC: x -> y over `types`, optionally with an "opgen" block."""
    data = op(op="ScaleC", input_desc=[tensor("x", types)], output_desc=[tensor("y", types)])
    if opgen_block:
        data["opgen"] = opgen_block
    return data


def rendered(data) -> dict[str, str]:
    proto = prototype.loads(json.dumps(data))
    files = render_files(proto, Options("p", "p", "p"), templates_dir())
    return {f.path: f.content.decode() for f in files}


# --- the prototype ----------------------------------------------------------------------------


def test_the_real_complex_roll_is_accepted():
    (roll,) = prototype.load(ROLL_COMPLEX).ops
    assert roll.dtype_combinations == (("complex64", "complex64"),)
    assert not roll.compute


def test_complex64_next_to_other_dtypes_is_kept():
    proto = prototype.loads(json.dumps(scale()))
    assert proto.ops[0].dtype_combinations == (("float32", "float32"), ("complex64", "complex64"))
    assert proto.warnings == ()


def test_golden_over_complex_is_accepted():
    proto = prototype.loads(json.dumps(scale(golden={"y": "2 * x"})))
    assert proto.ops[0].golden == {"y": "2 * x"}


def test_compute_over_a_complex_tensor_is_refused_with_its_path():
    with pytest.raises(PrototypeError) as info:
        prototype.loads(json.dumps([scale(compute={"y": "2 * x"})]))
    (problem,) = info.value.problems
    assert problem.path == "$[0].opgen.compute.y"
    assert problem.text().startswith(
        "input 'x' and output 'y' can be complex64, but compute expressions are real-valued"
    )
    assert "op_kernel/scale_c_compute.h" in problem.text()


def test_validate_refuses_a_complex_compute_with_exit_2(tmp_path):
    path = tmp_path / "scale.json"
    path.write_text(json.dumps([scale(compute={"y": "2 * x"})]))
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    assert "$[0].opgen.compute.y" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("dtype", ["complex32", "complex128"])
def test_other_complex_dtypes_still_have_no_element_type(dtype):
    with pytest.raises(PrototypeError) as info:
        prototype.loads(json.dumps(scale(types=(dtype,))))
    paths = {p.path: p.text() for p in info.value.problems}
    assert set(paths) == {"$.input_desc[0].type[0]", "$.output_desc[0].type[0]"}
    assert "no element type" in paths["$.input_desc[0].type[0]"]


def test_a_combination_with_complex128_is_left_out_with_a_warning():
    proto = prototype.loads(json.dumps(scale(types=("float", "complex128", "complex64"))))
    assert proto.ops[0].dtype_combinations == (("float32", "float32"), ("complex64", "complex64"))
    assert proto.warnings == (
        "$: dtype combination(s) 1 left out: opgen's kernel and PyTorch "
        "templates have no element type for complex128",
    )


# --- the rendered project ---------------------------------------------------------------------


def test_a_complex_only_tensor_streams_uint64_words():
    files = rendered(json.loads(ROLL_COMPLEX.read_text()))
    kernel = files["op_kernel/roll.cpp"]
    assert "opgen_kernel::InStream<uint64_t, ROLL_BUFFER_NUM> xIn_;" in kernel
    assert "opgen_kernel::OutStream<uint64_t, ROLL_BUFFER_NUM> outOut_;" in kernel
    assert not re.search(r"\bDTYPE_(X|OUT)\b", kernel.replace("DTYPE_ macro", ""))
    assert "only Ascend950's Ascend C has" in " ".join(kernel.replace("// ", "").split())
    assert "#if" not in kernel
    step = files["op_kernel/roll_compute.h"]
    assert "A complex64 tile holds uint64_t words" in step
    # the placeholder zeros 8-byte elements as uint16_t words (Duplicate has no 8-byte form)
    assert "AscendC::Duplicate(out.template ReinterpretCast<uint16_t>()" in step


def test_a_tensor_with_complex_and_real_dtypes_picks_its_type_by_orig_dtype():
    files = rendered(scale())
    kernel = files["op_kernel/scale_c.cpp"]
    assert (
        "#if ORIG_DTYPE_X == DT_COMPLEX64\nusing XElement = uint64_t;\n#else\n"
        "using XElement = DTYPE_X;\n#endif\n"
    ) in kernel
    assert "opgen_kernel::InStream<XElement, SCALE_C_BUFFER_NUM> xIn_;" in kernel
    assert "opgen_kernel::OutStream<YElement, SCALE_C_BUFFER_NUM> yOut_;" in kernel
    variant = files["p/csrc/scale_c_complex64.cpp"]
    assert (
        "#define DTYPE_X complex64\n#define ORIG_DTYPE_X DT_COMPLEX64\n"
        "#define DTYPE_Y complex64\n#define ORIG_DTYPE_Y DT_COMPLEX64\n"
    ) in variant
    assert "#define ORIG_DTYPE_X DT_FLOAT\n" in files["p/csrc/scale_c_float32.cpp"]


def test_pytorch_and_the_tests_know_complex64():
    files = rendered(scale())
    adapter = files["p/csrc/opgen_torch.h"]
    assert "case at::kComplexFloat: return ge::DT_COMPLEX64;" in adapter
    assert "case ge::DT_COMPLEX64: return at::kComplexFloat;" in adapter
    assert "((torch.complex64,), (torch.complex64,))" in files["p/ops.py"]
    assert '"DT_COMPLEX64": torch.complex64' in files["tests/op_testing.py"]
    assert "OPGEN_X_RANGE" not in files["tests/test_scale_c.py"]  # sanity: rendered whole
    host = files["op_host/scale_c.cpp"]
    assert ".DataType({ge::DT_FLOAT, ge::DT_COMPLEX64})" in host


def test_rendering_without_complex_defines_no_alias():
    kernel = rendered(op(opgen={"compute": {"z": "x + y"}}))["op_kernel/add_custom.cpp"]
    assert "using " not in kernel and "ORIG_DTYPE" not in kernel and "InStream<DTYPE_X," in kernel


# --- precision of complex outputs -------------------------------------------------------------


@pytest.fixture(scope="module")
def precision(tmp_path_factory):
    from test_precision_standard import load_rendered

    return load_rendered(tmp_path_factory, "precision")


def test_a_complex_output_is_judged_by_its_parts(precision):
    torch = pytest.importorskip("torch")
    golden = torch.complex(
        torch.linspace(-3, 3, 1000, dtype=torch.float64),
        torch.linspace(2, -2, 1000, dtype=torch.float64),
    )
    result = precision.measure(golden.to(torch.complex64), golden)
    assert result.passed and result.dtype == torch.float32 and result.count == 2000
    wrong = golden.to(torch.complex64) + 1e-3j  # only the imaginary parts are off
    result = precision.measure(wrong, golden)
    assert not result.passed and "threshold standard failed" in result.reason
    assert result.worst_index[-1] == 1  # an imaginary part


def test_complex_inputs_are_drawn_with_both_parts_in_range(
    tmp_path_factory, precision, monkeypatch
):
    torch = pytest.importorskip("torch")
    from test_precision_standard import load_rendered

    monkeypatch.setitem(sys.modules, "p", types.ModuleType("p"))  # the package it imports
    op_testing = load_rendered(tmp_path_factory, "op_testing")
    t = op_testing.random_tensor((50,), torch.complex64, -4.0, 4.0, torch.Generator())
    assert t.dtype == torch.complex64
    assert t.real.abs().max() <= 4 and t.imag.abs().max() <= 4 and t.imag.abs().max() > 1


# --- on the CPU twin --------------------------------------------------------------------------


@pytest.mark.slow
def test_both_variants_compile_on_the_twin(tmp_path):
    for path, text in rendered(scale()).items():
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    for variant in ("float32", "complex64"):
        result = subprocess.run(
            [
                "g++",
                "-std=c++17",
                "-fsyntax-only",
                "-Wall",
                "-I",
                str(TWIN_INCLUDE),
                "-I",
                str(tmp_path / "op_kernel"),
                str(tmp_path / "p" / "csrc" / f"scale_c_{variant}.cpp"),
            ],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.slow
def test_twin_refuses_dtype_x_as_a_type_for_complex64(tmp_path):
    """As on 910B, where the CANN build's DTYPE_X=complex64 names no type, the twin has none:
    a kernel that declares complex64 data through DTYPE_X does not compile."""
    source = tmp_path / "uses_dtype.cpp"
    source.write_text(
        '#include "kernel_operator.h"\n#include "opgen_twin/kernel_type.h"\n'
        "#define DTYPE_X complex64\n"
        "#define ORIG_DTYPE_X DT_COMPLEX64\n"
        'static_assert(ORIG_DTYPE_X == DT_COMPLEX64, "");\nDTYPE_X value;\n'
    )
    result = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-I", str(TWIN_INCLUDE), str(source)],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "complex64" in result.stderr
    assert "static_assert" not in result.stderr


@pytest.mark.slow
def test_a_compute_step_over_the_words_passes_precision_in_both_combinations(tmp_path):
    from generated.project import build, render, run_suite

    source = tmp_path / "scale_c.json"
    source.write_text(json.dumps([scale(golden={"y": "2 * x"})]))
    project = render(source, tmp_path / "scale_c")
    step = project.directory / "op_kernel" / "scale_c_compute.h"
    text = step.read_text()
    body = text[text.index("    // TODO(opgen)") : text.index("}\n\n#endif")]
    text = text.replace(
        body,
        "    AscendC::Muls(y.template ReinterpretCast<float>(), "
        "x.template ReinterpretCast<float>(), 2.0f,\n"
        "                  static_cast<int32_t>(count * sizeof(TX) / "
        "sizeof(float)));\n",
    )
    step.write_text(re.sub(r"// !!! .*\n", "", text))  # the placeholder banner goes too
    build(project)
    suite = run_suite(project, "-k", "test_precision")
    assert suite.returncode == 0, suite.describe()
    passed = suite.select("passed", "::test_precision[")
    assert {node.split("[")[1].split("-")[0] for node in passed} == {"float32", "complex64"}, (
        suite.describe()
    )
    assert len(passed) == 10, suite.describe()  # 5 shapes per combination
