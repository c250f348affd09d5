"""The test suite opgen generates into each project (templates/tests, opgen/planning/tests.py).

Fast: the generated test files of every example and sample prototype (and of the PyTorch
templates' kitchen sink) compile and pass ruff; the value ranges, literals and expectations
they print come out right.

Slow (build real projects, run their suites in a child pytest; tests/generated/project.py):
- examples/gelu_custom.json: every generated test passes, skips only for the NPU (no CANN) and
  torchair (no torch_npu); with OPGEN_NPU_PYTHON (a venv with torch_npu), the torchair converter
  test runs there and passes;
- a bug planted in the compute step, or in the tiling policy, fails the precision tests with a
  useful message (MERE/MARE and the worst element, or the twin's hardware rule);
- tests/data/protos/add_custom.msopgen.json (no compute, no golden): the structure tests pass, the
  precision tests xfail strictly naming op_kernel/add_custom_compute.h.
- tests/data/e2e/tails.json for ascend310p3 and for ascend910a (no DataCopyPad): no kernel calls
  it, the twin is built for the SoC, and every test passes, the tail sizes and broadcasts
  included;
- the precision trials' lerp (torch.lerp's formula) for ascend310p3 and for ascend310b1: its
  branches are FusedMulAdds there too, and its boundary values pass, the float32 extremes
  included.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, SHARED_PROTOS, render_files
from generated.project import build, planted, render, run_suite
from torch_ext import protos

from opgen import resources
from opgen.frontend import expr, prototype
from opgen.frontend.options import Options
from opgen.frontend.problems import PrototypeError
from opgen.planning import plan_project
from opgen.planning import tests as tests_data

RUFF = Path(sys.executable).with_name("ruff")
RUFF_STRICT = ["--select", "E,F,W,I,B,UP", "--line-length", "100", "--target-version", "py310"]
PRECISION_TRIALS = Path(__file__).parent / "data" / "precision" / "trials.json"
SOURCES = (
    sorted(EXAMPLES.glob("*.json")) + sorted(SHARED_PROTOS.glob("*.json")) + [PRECISION_TRIALS]
)


# ---------------------------------------------------------------------------------------------
# rendering (fast)
# ---------------------------------------------------------------------------------------------


def rendered_tests(
    proto_text: str, directory: Path, package: str = "pkg", socs: tuple[str, ...] = ("ascend910b1",)
) -> list[Path]:
    proto = prototype.loads(proto_text)
    options = Options(package=package, namespace=package, vendor=package, socs=list(socs))
    for f in render_files(proto, options, resources.templates_dir()):
        path = directory / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f.content)
    return sorted((directory / "tests").glob("*.py"))


def check_clean(directory: Path, files: list[Path]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "py_compile", *map(str, files)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    for extra in ([], RUFF_STRICT):  # the project's own ruff settings, and opgen's stricter set
        result = subprocess.run(
            [str(RUFF), "check", "--no-cache", *extra, *map(str, files)],
            capture_output=True,
            text=True,
            cwd=directory,
        )
        assert result.returncode == 0, result.stdout + result.stderr
    # every generated Python file, as the project's own `ruff format` would leave it
    python = sorted(str(p) for p in directory.rglob("*.py") if ".opgen" not in p.parts)
    result = subprocess.run(
        [str(RUFF), "format", "--check", "--no-cache", *python],
        capture_output=True,
        text=True,
        cwd=directory,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_generated_tests_are_clean_python(source, tmp_path):
    files = rendered_tests(source.read_text(), tmp_path)
    proto = prototype.loads(source.read_text())
    names = {p.name for p in files}
    assert {"conftest.py", "precision.py", "op_testing.py", "torchair_shim.py"} <= names
    assert {f"test_{op.snake_name}.py" for op in proto.ops} <= names
    check_clean(tmp_path, files)


def test_kitchen_sink_tests_are_clean_python(tmp_path):
    files = rendered_tests(protos.text(protos.KITCHEN_SINK), tmp_path, "sink_ops")
    check_clean(tmp_path, files)
    text = {p.name: p.read_text() for p in files}
    # the twin cannot run list tensors: their tests say so
    assert "TWIN_CANNOT_RUN = pytest.mark.skip(" in text["test_concat_custom.py"]
    # no compute: precision xfails strictly, naming the files to write
    opaque = text["test_opaque_custom.py"]
    assert "PENDING_KERNEL = pytest.mark.xfail(" in opaque and "strict=True" in opaque
    assert '"op_kernel/opaque_custom_kernel.h' in opaque
    assert '"op_host/opaque_custom_infer.h' in opaque
    # no golden either: nothing tells the output shapes, so the fake kernel's tests wait for
    # the user's fake()
    assert "NEEDS_FAKE = pytest.mark.xfail(" in opaque
    assert "from sink_ops.overrides import opaque_custom as overrides" in opaque
    # the string default reaches the test file escaped, and means the same (in the quotes ruff
    # format chooses: single, as the text holds double quotes)
    attrs = text["test_all_attrs_custom.py"]
    assert """AttrArg("mode", 'say "hi"\\\\ \\u00e9\\n')""" in attrs


# opgen sets no limit on an op's name (schema: UpperCamelCase); names of up to this many
# characters leave every generated Python file within the project's line length
LONGEST_NAME = 64


def long_named(prefix: str) -> str:
    """An op name of LONGEST_NAME characters in short words: the longest snake name there is for
    its length (each word adds an underscore)."""
    words = prefix + "Long" * LONGEST_NAME
    return words[: LONGEST_NAME - 1] + "X"


def test_long_op_names_keep_generated_python_within_the_line_length(tmp_path):
    """A long op name runs through docstrings, comments, imports, calls and string literals that
    no formatter wraps: opgen lays them out (planning.layout) or marks the line no formatter can
    cut (an import or call of the op's name), so no generated Python file is over 100 columns:
    an op with a compute expression, one without and a matmul op."""
    x = {"name": "x", "param_type": "required", "format": ["ND"], "type": ["float16", "float"]}
    y = {**x, "name": "y"}
    gelu = {
        "op": long_named("Gelu"),
        "input_desc": [x],
        "output_desc": [y],
        "opgen": {"compute": {"y": "x * sigmoid(1.702 * x)"}},
    }
    scatter = {"op": long_named("Scatter"), "input_desc": [x], "output_desc": [y]}
    matmul = json.loads((ROOT / "tests" / "data" / "e2e" / "matmul.json").read_text())[0]
    matmul["op"] = long_named("MatMul")
    assert {len(op["op"]) for op in (gelu, scatter, matmul)} == {LONGEST_NAME}
    rendered_tests(json.dumps([gelu, scatter, matmul]), tmp_path, "long_ops")
    python = sorted(str(p) for p in tmp_path.rglob("*.py") if ".opgen" not in p.parts)
    assert len(python) > 10
    for check in (
        [
            "check",
            "--isolated",
            "--select",
            "E501",
            "--line-length",
            "100",
            "--output-format",
            "concise",
        ],
        ["format", "--check"],  # the project's own settings
    ):
        result = subprocess.run(
            [str(RUFF), *check, "--no-cache", *python], capture_output=True, text=True, cwd=tmp_path
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_a_word_longer_than_a_piece_is_a_piece_without_spaces():
    """split_pieces: a path too long for a piece stands alone without a space (a line of one word
    is no E501 to ruff), the space going to the next piece, or to a piece of its own between two
    such words; the pieces still join into the text, and shorter words are cut as before."""
    from opgen.planning.layout import split_pieces

    long_a, long_b = "op_host/" + "a" * 90 + ".h", "op_kernel/" + "b" * 90 + ".h,"
    text = f"write {long_a} then {long_b} {long_a} and more words after it"
    pieces = split_pieces(text, 40)
    assert "".join(pieces) == text
    assert pieces == ["write ", long_a, " then ", long_b, " ", long_a, " and more words after it"]
    assert split_pieces("a b c d", 5) == ["a b ", "c d"]


def test_placeholder_banner_is_what_the_tests_look_for(tmp_path):
    """op_testing.kernel_is_placeholder() finds the kernel template's placeholder banner."""
    rendered_tests((SHARED_PROTOS / "add_custom.msopgen.json").read_text(), tmp_path)
    marker = '"!!! PLACEHOLDER"'
    assert marker in (tmp_path / "tests" / "op_testing.py").read_text()
    # an op without compute: the user's kernel and InferShape carry it
    for path in ("op_kernel/add_custom_kernel.h", "op_host/add_custom_infer.h"):
        assert marker.strip('"') in (tmp_path / path).read_text(), path
    rendered_tests((EXAMPLES / "gelu_custom.json").read_text(), tmp_path / "gelu")
    assert marker.strip('"') not in (tmp_path / "gelu/op_kernel/gelu_custom_compute.h").read_text()


def test_precision_level_and_benchmark_reach_the_test_file(tmp_path):
    import json

    gelu = json.loads((EXAMPLES / "gelu_custom.json").read_text())
    gelu[0]["opgen"]["precision"] = "L1"
    rendered_tests(json.dumps(gelu), tmp_path / "gelu")
    text = (tmp_path / "gelu" / "tests" / "test_gelu_custom.py").read_text()
    assert "benchmark=golden.gelu_custom_formula," in text
    assert 'precision_level="L1",' in text
    assert "def test_precision_boundary_values(dtypes, case):" in text
    rendered_tests((SHARED_PROTOS / "add_custom.msopgen.json").read_text(), tmp_path / "add")
    text = (tmp_path / "add" / "tests" / "test_add_custom.py").read_text()
    assert "benchmark=None," in text and 'precision_level="L0",' in text


def test_boundary_value_domains_follow_the_compute(tmp_path):
    """Inputs the compute takes log() of are drawn positive unless the argument is positive
    anyway (log(1 + exp(x))); inputs reaching max get NaN too, except on a SoC where max cannot
    propagate it (ascend910: no Compare/Select tensor modes)."""
    rendered_tests(PRECISION_TRIALS.read_text(), tmp_path)
    softplus = (tmp_path / "tests" / "test_softplus_naive.py").read_text()
    assert 'TensorArg("x", -4.0, 4.0),' in softplus
    rendered_tests((EXAMPLES / "leaky_relu_custom.json").read_text(), tmp_path / "leaky")
    leaky = (tmp_path / "leaky" / "tests" / "test_leaky_relu_custom.py").read_text()
    assert 'TensorArg("x", -4.0, 4.0),' in leaky
    rendered_tests(
        (EXAMPLES / "leaky_relu_custom.json").read_text(), tmp_path / "910a", socs=("ascend910a",)
    )
    leaky = (tmp_path / "910a" / "tests" / "test_leaky_relu_custom.py").read_text()
    assert "do not propagate NaN on ascend910" in leaky
    assert 'TensorArg("x", -4.0, 4.0, nan=False),' in leaky


@pytest.mark.parametrize(
    "compute, positive",
    [
        ("x * y", {}),
        ("log(x) + y", {"x": "log() of it"}),
        ("x / (y + 1)", {"y": "a division by it"}),
        (
            "sqrt(x * y) + rsqrt(z)",
            {"x": "sqrt() of it", "y": "sqrt() of it", "z": "rsqrt() of it"},
        ),
        ("reciprocal(abs(x)) - x / 2", {"x": "reciprocal() of it"}),
        (
            "log1p(x) + y ** 3 + z ** 0.5",
            {"x": "log1p() of it", "z": "a power of it with the exponent 0.5"},
        ),
        ("x ** -2 + expm1(y) * sign(z)", {"x": "a power of it with the exponent -2"}),
        # arguments positive (or, for sqrt, nonnegative) whatever the inputs
        ("log(abs(x) + sqrt(x * x + 1)) + log(1 + exp(y))", {}),
        ("sqrt(z * z) + sqrt(x ** 2 + abs(y)) / (exp(y) + 1)", {}),
        (
            "log(abs(x)) + sqrt(y - 1) + 1 / where(z > 0, z, 1)",
            {"x": "log() of it", "y": "sqrt() of it", "z": "a division by it"},
        ),
    ],
)
def test_inputs_drawn_positive_where_the_compute_needs_it(compute, positive):
    tree = expr.parse_compute(compute, {"x", "y", "z"}, {"alpha"})
    assert tests_data.positive_inputs(tree) == positive


def test_expected_opdef_follows_the_prototype():
    proto = prototype.loads(protos.text([protos.ALL_ATTRS, protos.NO_ACLNN]))
    options = Options(package="p", namespace="p", vendor="p", socs=("ascend910b1",))
    opdef = tests_data.expected_opdef(proto.ops[0], options)
    assert opdef["inputs"][1] == {
        "name": "bias",
        "param_type": "optional",
        "dtypes": ["DT_FLOAT16", "DT_FLOAT"],
        "formats": ["FORMAT_ND", "FORMAT_ND"],
    }
    assert opdef["attrs"][0] == {
        "name": "alpha",
        "type": "float",
        "required": False,
        "default": 0.5,
    }
    assert opdef["socs"] == ["ascend910b"]
    required = tests_data.expected_opdef(proto.ops[1], options)["attrs"][2]
    assert required == {"name": "level", "type": "int", "required": True, "default": None}
    assert tests_data.f32(0.01) == pytest.approx(0.01, rel=1e-7) and tests_data.f32(0.01) != 0.01


# ---------------------------------------------------------------------------------------------
# built projects (slow)
# ---------------------------------------------------------------------------------------------

NPU_SKIP = "no CANN (ASCEND_HOME_PATH is not set)"
TORCHAIR_SKIP = "torch_npu is not installed"


def needs_toolchain():
    pytest.importorskip("torch")
    if shutil.which("g++") is None:
        pytest.skip("no g++")


@pytest.fixture(scope="module")
def gelu(tmp_path_factory):
    needs_toolchain()
    project = render(EXAMPLES / "gelu_custom.json", tmp_path_factory.mktemp("gelu") / "gelu_proj")
    build(project)
    return project


@pytest.fixture(scope="module")
def no_compute(tmp_path_factory):
    needs_toolchain()
    project = render(
        SHARED_PROTOS / "add_custom.msopgen.json", tmp_path_factory.mktemp("add") / "add_proj"
    )
    build(project)
    return project


def skip_reason_allowed(message: str) -> bool:
    return NPU_SKIP in message or TORCHAIR_SKIP in message


@pytest.mark.slow
def test_gelu_suite_passes(gelu):
    suite = run_suite(gelu)
    counts = suite.counts()
    print(f"\ngenerated gelu suite: {dict(counts)} in {suite.seconds:.1f} s")
    assert suite.returncode == 0, suite.describe()
    assert set(counts) <= {"passed", "skipped"}, suite.describe()
    assert counts["passed"] >= 60
    for node, outcome in suite.select("skipped").items():
        assert skip_reason_allowed(outcome["message"]), (node, outcome["message"])
    # every kind of test is there and passed
    for name in (
        "test_precision[float16-beyond-tile-x-cores]",
        "test_precision_non_contiguous_input[bfloat16-transposed]",
        "test_opcheck[float32-test_aot_dispatch_dynamic]",
        "test_opcheck_requires_grad[float16-test_autograd_registration]",
        "test_gradcheck",
        "test_backward_matches_the_float64_golden_gradient[float32]",
        "test_compile_fullgraph_matches_eager[bfloat16]",
        "test_fake_kernel_matches_host_infer[float16-3d]",
        "test_opdef_matches_prototype[inputs]",
    ):
        (outcome,) = suite.select(name=f"::{name}").values()
        assert outcome["outcome"] == "passed", name
    assert suite.seconds < 120, "the generated suite should take well under a minute"


def npu_python() -> str | None:
    """A Python with torch_npu installed: OPGEN_NPU_PYTHON, or this one."""
    probe = "import importlib.util,sys; sys.exit(importlib.util.find_spec('torch_npu') is None)"
    for python in filter(None, [os.environ.get("OPGEN_NPU_PYTHON"), sys.executable]):
        if subprocess.run([python, "-c", probe], capture_output=True).returncode == 0:
            return python
    return None


@pytest.mark.slow
def test_gelu_converter_under_offline_torchair(gelu):
    python = npu_python()
    if python is None:
        pytest.skip(
            "torch_npu is not installed here: set OPGEN_NPU_PYTHON to the Python of a "
            "venv with this torch and `pip install --no-deps torch-npu==<torch version>`"
        )
    suite = run_suite(gelu, "-k", "torchair", python=python)
    (outcome,) = suite.select(name="test_torchair_converter_emits_the_ge_node").values()
    assert outcome["outcome"] == "passed", suite.describe()


@pytest.mark.slow
def test_compute_bug_fails_precision_with_the_numbers(gelu):
    # A 0.1% error in the compute step: 0.5 * x becomes 0.5005 * x. Both standards fail it in
    # float32 (torch's float32 GELU is far better than that).
    with planted(
        gelu, "op_kernel/gelu_custom_compute.h", "Muls(y, x, 0.5f,", "Muls(y, x, 0.5005f,"
    ):
        suite = run_suite(gelu, "-k", "precision")
    failed = suite.select("failed")
    float32 = [
        f"::test_precision[float32-{shape}]"
        for shape in ("37-elements", "3d", "beyond-tile-x-cores")
    ]
    float32 += [
        f"::test_precision_non_contiguous_input[float32-{layout}]"
        for layout in ("transposed", "sliced")
    ]
    for name in float32:
        assert set(suite.select(name=name)) <= set(failed), (name, suite.describe())
    for node, outcome in failed.items():
        for part in ("MERE", "MARE", "RMSE", "worst element", "golden"):
            assert part in outcome["message"], (node, outcome["message"])
    for name in float32:  # random values: both standards fail (boundary ones may overflow)
        for node, outcome in suite.select(name=name).items():
            for part in ("threshold standard failed", "ratio standard (L0)", "MERE ratio"):
                assert part in outcome["message"], (node, outcome["message"])


@pytest.fixture(scope="module", params=["ascend310p3", "ascend910a"])
def no_datacopypad(request, tmp_path_factory):
    """GELU, Add (two inputs, int32 too) and an op that updates its input in place, for a SoC
    without DataCopyPad: the kernels copy tails in whole blocks and the twin is built for it."""
    needs_toolchain()
    soc = request.param
    project = render(
        ROOT / "tests" / "data" / "e2e" / "tails.json",
        tmp_path_factory.mktemp(soc) / "tails_proj",
        (soc,),
    )
    build(project)
    return soc, project


@pytest.mark.slow
def test_suite_passes_without_datacopypad(no_datacopypad):
    soc, project = no_datacopypad
    # the ops' own files; the library's DataCopyPad is compiled only where the SoC has it
    # (test_kernel_library.py)
    library = ("opgen_kernel.h", "opgen_broadcast.h", "opgen_soc.h")
    kernels = (project.directory / "op_kernel").glob("*")
    assert not [
        p.name for p in kernels if "DataCopyPad(" in p.read_text() and p.name not in library
    ]
    arch = {"ascend310p3": "2002", "ascend910a": "1001"}[soc]
    assert f'("__NPU_ARCH__", "{arch}"),' in (project.directory / "setup.py").read_text()
    suite = run_suite(project)
    print(f"\n{soc} tails suite: {dict(suite.counts())} in {suite.seconds:.1f} s")
    assert set(suite.counts()) <= {"passed", "skipped", "failed"}, suite.describe()
    # (on 910A GELU's 1 + tanh goes through Exp as 2 / (exp(-2v) + 1): no cancellation)
    assert not suite.select("failed"), suite.describe()
    assert not [n for n in suite.select("skipped") if "::test_precision[" in n], suite.describe()
    for op in ("gelu_custom", "add_custom", "axpy_inplace_custom"):
        for shape in ("one-element", "37-elements", "3d", "beyond-tile-x-cores"):
            tests = suite.select("passed", f"test_{op}.py::test_precision[")
            assert [n for n in tests if n.endswith(f"-{shape}]")], (op, shape, suite.describe())
    # add_custom broadcasts: rows, one element and strided, with the block-copied tails
    tests = suite.select("passed", "test_add_custom.py::test_precision_shape_per_input[")
    for case in ("broadcast-rows", "broadcast-one-element", "broadcast-strided"):
        assert [n for n in tests if n.endswith(f"-{case}]")], (case, suite.describe())


@pytest.fixture(scope="module")
def trials(tmp_path_factory):
    """x + 2 * other * other and lerp as torch writes it (cancellation near zero; lerp in
    float16 and float32) and the naive softplus log(1 + exp(x)), float32, in one project."""
    needs_toolchain()
    project = render(PRECISION_TRIALS, tmp_path_factory.mktemp("trials") / "trials_proj")
    build(project)
    return project


@pytest.mark.slow
def test_precision_trials(trials):
    suite = run_suite(trials, "-k", "precision")
    print(f"\nprecision trials: {dict(suite.counts())} in {suite.seconds:.1f} s")
    # cancellation: a correct kernel passes (by the ratio standard against torch in float32)
    for node, outcome in suite.select(name="test_axpy_square_custom.py::").items():
        assert outcome["outcome"] in ("passed", "skipped"), (node, outcome["message"])
    # lerp's two branches as torch.lerp: every test passes, the float32 extremes too, where
    # torch.lerp itself overflows (end - start) and the products are fused multiply-adds
    lerp = suite.select(name="test_lerp_custom.py::")
    for node, outcome in lerp.items():
        assert outcome["outcome"] in ("passed", "skipped"), (node, outcome["message"])
    for dtype in ("float16", "float32"):
        assert (
            lerp[next(n for n in lerp if f"boundary_values[{dtype}-extremes]" in n)]["outcome"]
            == "passed"
        )
    # the naive softplus: fine on small inputs, inf for x >= 89 where the golden is x
    softplus = suite.select(name="test_softplus_naive.py::")
    failed = {k: v for k, v in softplus.items() if v["outcome"] == "failed"}
    assert list(failed) == [k for k in softplus if "boundary_values[float32-extremes]" in k]
    (message,) = [v["message"] for v in failed.values()]
    assert "special values:" in message and "actual inf" in message, message


@pytest.fixture(scope="module", params=["ascend310p3", "ascend310b1"])
def lerp_310(request, tmp_path_factory):
    """The trials' lerp (torch.lerp's formula) alone, for a 310 SoC: FusedMulAdd is documented
    for 310P's AI Core and 200I/500 A2 (asc-devkit FusedMulAdd.md)."""
    needs_toolchain()
    soc = request.param
    lerp = [op for op in json.loads(PRECISION_TRIALS.read_text()) if op["op"] == "LerpCustom"]
    proto = tmp_path_factory.mktemp(soc) / "lerp.json"
    proto.write_text(json.dumps(lerp))
    project = render(proto, proto.parent / "lerp_proj", (soc,))
    build(project)
    return soc, project


@pytest.mark.slow
def test_lerp_passes_its_float32_extremes_on_310p_and_310b(lerp_310):
    """Each branch is one FusedMulAdd there too: multiplied and added, (end - start) *
    (1 - weight) overflowed where torch's fused result is finite (start 1, end 3.4e38, weight
    -1), 30 special-value mismatches against torch's 6 in float32."""
    soc, project = lerp_310
    step = (project.directory / "op_kernel" / "lerp_custom_compute.h").read_text()
    assert step.count("AscendC::FusedMulAdd(") == 2 and "#if defined" not in step, step
    suite = run_suite(project, "-k", "boundary_values")
    print(f"\n{soc} lerp boundary values: {dict(suite.counts())} in {suite.seconds:.1f} s")
    lerp = suite.select(name="test_lerp_custom.py::")
    for node, outcome in lerp.items():
        assert outcome["outcome"] in ("passed", "skipped"), (node, outcome["message"])
    for dtype in ("float16", "float32"):
        (extremes,) = [n for n in lerp if f"boundary_values[{dtype}-extremes]" in n]
        assert lerp[extremes]["outcome"] == "passed", suite.describe()


@pytest.mark.slow
@pytest.mark.parametrize(
    "edit, expected",
    [
        # a tile one element longer than the plan: not 32-byte aligned, overlaps the next buffer
        ("plan.tileLength += 1;", "failed on the CPU twin (launch): kernel block"),
        # every core's share a block short: the last elements are never written (NaN poison)
        ("plan.blockLength -= facts.alignElems;", "actual nan"),
    ],
    ids=["tile-not-aligned", "block-short-by-one-block"],
)
def test_tiling_bug_fails_precision(gelu, edit, expected):
    old = "    return DefaultPlan(facts, scratch, MIN_ELEMS_PER_CORE);"
    new = (
        "    TilingPlan plan = DefaultPlan(facts, scratch, MIN_ELEMS_PER_CORE);\n"
        f"    {edit}\n    return plan;"
    )
    with planted(gelu, "op_host/gelu_custom_tiling_policy.h", old, new):
        suite = run_suite(gelu, "-k", "precision")
    failed = suite.select("failed")
    beyond = {
        k: v
        for k, v in suite.select(name="beyond-tile-x-cores").items()
        if "::test_precision[" in k
    }
    assert beyond and set(beyond) <= set(failed), suite.describe()
    for node in beyond:
        assert expected in failed[node]["message"], failed[node]["message"]


@pytest.mark.slow
def test_op_without_compute(no_compute):
    """add_custom.msopgen has neither a compute expression nor a golden: the op is the user's.
    The registration and OpDef tests pass; the rest are strict xfails naming what to write."""
    suite = run_suite(no_compute)
    counts = suite.counts()
    print(f"\ngenerated add_custom (no compute) suite: {dict(counts)} in {suite.seconds:.1f} s")
    assert suite.returncode == 0, suite.describe()
    assert set(counts) <= {"passed", "skipped", "xfailed"}, suite.describe()
    precision = suite.select(name="::test_precision")
    assert len(precision) == 3  # one shape shared by the inputs x 3, one combination
    for node, outcome in precision.items():
        assert outcome["outcome"] == "xfailed", node
        assert "op_kernel/add_custom_kernel.h" in outcome["message"], outcome["message"]
        assert "op_host/add_custom_infer.h" in outcome["message"], outcome["message"]
    for name in (
        "test_opcheck[float16-test_autograd_registration]",
        "test_opdef_matches_prototype[inputs]",
        "test_opdef_matches_prototype[attrs]",
    ):
        (outcome,) = suite.select(name=f"::{name}").values()
        assert outcome["outcome"] == "passed", (name, outcome["message"])
    # no golden: what runs the fake kernel waits for the user's fake() (and golden())
    for node, outcome in suite.select("xfailed").items():
        assert (
            "op_kernel/add_custom_kernel.h" in outcome["message"]
            or "define fake() in overrides/add_custom.py" in outcome["message"]
        ), (node, outcome)
    for node, outcome in suite.select("skipped").items():
        assert skip_reason_allowed(outcome["message"]), (node, outcome["message"])


@pytest.mark.slow
def test_bench_json_and_the_precision_report(gelu):
    """opgen bench --json times the op against torch; opgen test writes the HTML report."""
    import json

    from typer.testing import CliRunner

    from opgen.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["bench", str(gelu.directory), "--json", "--quick"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["device"] == "cpu (opgen CPU twin)" and "not NPU performance" in data["note"]
    assert {(r["op"], r["dtype"]) for r in data["results"]} == {
        ("GeluCustom", d) for d in ("float16", "float32", "bfloat16")
    }
    for row in data["results"]:
        assert {"op", "dtype", "shape", "op_ms", "reference_ms", "ratio"} <= set(row)
        assert row["op_ms"] > 0 and row["reference_ms"] > 0 and row["ratio"] > 0
        # the spread (opgen/commands/bench.py): min <= median <= max, the ratio's conservative range
        assert row["op_ms_min"] <= row["op_ms"] <= row["op_ms_max"]
        assert row["reference_ms_min"] <= row["reference_ms"] <= row["reference_ms_max"]
        assert row["ratio_min"] <= row["ratio"] <= row["ratio_max"]
        assert isinstance(row["noisy"], bool) and row["rounds"] == data["spread"]["rounds"] == 5
    table = runner.invoke(app, ["bench", str(gelu.directory), "--quick"])
    assert table.exit_code == 0 and "emulation" in table.stdout
    assert "median (min-max) of 5 rounds" in table.stdout

    result = runner.invoke(app, ["test", str(gelu.directory), "--", "-k", "precision and float32"])
    assert result.exit_code == 0, result.output
    page = (gelu.directory / ".opgen" / "reports" / "precision.html").read_text()
    assert "<h2>gelu_custom, float32</h2>" in page and "test_precision_boundary_values" in page
    pytest.importorskip("matplotlib")
    assert page.count("src='data:image/png;base64,") == 2


def test_comparisons_give_their_operands_ties(tmp_path):
    """An input compared with a number or an earlier input gets elements equal to it."""
    data = json.loads((ROOT / "tests" / "data" / "e2e" / "compare_where.json").read_text())
    op = prototype.loads(json.dumps(data[0])).ops[0]  # HeavisideCustom: x == 0, x > 0
    assert tests_data.comparison_ties(op) == {"x": [0.0]}
    greater = prototype.loads(json.dumps(data[2])).ops[0]  # x > y
    assert tests_data.comparison_ties(greater) == {"y": ["x"]}
    rendered_tests(json.dumps(data[2]), tmp_path)
    text = (tmp_path / "tests" / "test_greater_custom.py").read_text()
    assert 'TensorArg("y", -4.0, 4.0, ties=("x",)),' in text


# ---------------------------------------------------------------------------------------------
# every op class with test_shapes: the generated test files collect (fast, no build)
# ---------------------------------------------------------------------------------------------

E2E = ROOT / "tests" / "data" / "e2e"
# Tril as msopgen's corpus writes it: index() with test_shapes rendered a test file whose
# SHAPE_CASES was defined only for ops without index() (a NameError when collected)
TRIL = {
    "op": "TrilShapesCustom",
    "input_desc": [{"name": "x", "param_type": "required", "format": ["ND"], "type": ["float"]}],
    "output_desc": [{"name": "y", "param_type": "required", "format": ["ND"], "type": ["float"]}],
    "attr": [{"name": "diagonal", "param_type": "optional", "type": "int", "default_value": 0}],
    "opgen": {
        "compute": {"y": "where(index(-1) <= index(-2) + diagonal, x, 0.0)"},
        "golden": {"y": "torch.tril(x, diagonal)"},
        "test_shapes": [{"x": [5, 7]}, {"x": [3, 4, 9]}],
    },
}


def with_test_shapes(raw: dict) -> dict:
    """The op with test_shapes: its own, else each required input [4, 8] when the op takes that
    (an elementwise, row, index() or in-place op); else as it is."""
    block = raw.get("opgen", {})
    if "test_shapes" in block:
        return raw
    inputs = [t["name"] for t in raw.get("input_desc", []) if t.get("param_type") == "required"]
    given = {**raw, "opgen": {**block, "test_shapes": [{name: [4, 8] for name in inputs}]}}
    try:
        prototype.loads(json.dumps([given]))
    except PrototypeError:
        return raw
    return given


def every_op_class() -> list[dict]:
    """The ops of the end-to-end prototypes (every op class opgen generates: elementwise,
    broadcast, row, index(), expand, string-attr choice, matmul, in place, user-computed,
    golden-only), each with test_shapes where it takes them, and TRIL."""
    ops, seen = [TRIL], {TRIL["op"]}
    for path in sorted(E2E.glob("*.json")):
        for raw in json.loads(path.read_text()):
            if raw["op"] not in seen:
                seen.add(raw["op"])
                ops.append(with_test_shapes(raw))
    return ops


def test_every_op_class_with_test_shapes_renders_test_files_that_collect(tmp_path):
    """ruff's pyflakes checks (an undefined name) and a real `pytest --collect-only`, with the
    package's `_C` a stub defining the schemas (no build); each op's test_shapes cases are
    among the collected tests."""
    ops = every_op_class()
    proto_text = json.dumps(ops)
    files = rendered_tests(proto_text, tmp_path, "allops")
    result = subprocess.run(  # pyflakes' checks: an undefined name, an unused import
        [str(RUFF), "check", "--no-cache", "--select", "F", *map(str, files)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    data = plan_project(prototype.loads(proto_text), Options("allops", "allops", "allops"))
    stub = ["import torch", "_lib = torch.library.Library('allops', 'DEF')"]
    stub += ["_lib.define('_opgen_registry() -> str')"]
    for op in prototype.loads(proto_text).ops:
        stub.append(f"_lib.define({op.torch_schema!r})")
    stub += [f"_lib.define({op.torch.introspection.schema!r})" for op in data.ops]
    (tmp_path / "allops" / "_C.py").write_text("\n".join(stub) + "\n")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path / "tests",
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    collected = result.stdout.splitlines()
    for op in ops:
        if "test_shapes" in op.get("opgen", {}):
            snake = prototype.loads(json.dumps([op])).ops[0].snake_name
            ids = [line for line in collected if f"test_{snake}.py::" in line]
            name, dims = next(iter(op["opgen"]["test_shapes"][0].items()))
            case = name + "x".join(map(str, dims))  # the first case, in its tests' ids
            assert any(case in line or "test-shapes" in line for line in ids), (op["op"], ids[:5])
