"""Row reductions: sum/mean/amax/amin in the compute grammar, the row kernel's data and
templates, and what it refuses (opgen/frontend/expr.py, opgen/compiler/lower.py,
opgen/planning/kernel.py)."""

from __future__ import annotations

import json
import re

import pytest
from conftest import render_files
from kernel_host import twin
from kernel_host.step import step_body, step_signature
from typer.testing import CliRunner

from opgen.cli import app
from opgen.compiler import checks
from opgen.compiler.lower import LoweringError
from opgen.frontend import expr, prototype
from opgen.frontend.options import Options
from opgen.planning import kernel, plan_project
from opgen.planning.host import RowOutput
from opgen.planning.kernel import RowPlan, TensorField
from opgen.resources import templates_dir

RMS = "x * rsqrt(mean(x * x) + epsilon) * gamma"


def make_op(
    compute: dict[str, str],
    inputs=("x", "gamma"),
    types=("float16", "float"),
    keepdim=None,
    attrs=None,
):
    return make_prototype(compute, inputs, types, keepdim, attrs).ops[0]


def make_prototype(
    compute: dict[str, str],
    inputs=("x", "gamma"),
    types=("float16", "float"),
    keepdim=None,
    attrs=None,
):
    block = {"compute": compute}
    if keepdim is not None:
        block["keepdim"] = keepdim
    data = {
        "op": "RowTestCustom",
        "input_desc": [{"name": n, "type": list(types), "format": ["ND"]} for n in inputs],
        "output_desc": [{"name": n, "type": list(types), "format": ["ND"]} for n in compute],
        "attr": attrs
        if attrs is not None
        else [
            {"name": "epsilon", "param_type": "optional", "type": "float", "default_value": 1e-6}
        ],
        "opgen": block,
    }
    return prototype.loads(json.dumps(data))


def parse(text: str) -> expr.Node:
    return expr.parse_compute(text, {"x", "gamma"}, {"epsilon"})


# -- the grammar --------------------------------------------------------------------------------


def test_reductions_parse_show_and_keep_the_axis_in_torch():
    node = parse("exp(x - amax(x)) / sum(exp(x - amax(x)))")
    assert expr.show(node) == "exp(x - amax(x)) / sum(exp(x - amax(x)))"
    assert expr.has_reduce(node) and not expr.is_row_valued(node)
    assert expr.to_torch(parse("mean(x)")) == "torch.mean(x, -1, keepdim=True)"
    assert {type(n).__name__ for n in expr.walk(node)} >= {"Reduce", "Tensor", "Call"}


@pytest.mark.parametrize(
    "text, row_valued",
    [
        ("sum(x)", True),
        ("mean(x) * 2 + epsilon", True),
        ("sqrt(amin(x * gamma))", True),
        ("x - mean(x)", False),
        ("x * 2", False),
        ("sum(x) + gamma", False),
    ],
)
def test_row_valued_outputs_read_inputs_only_inside_reductions(text, row_valued):
    assert expr.is_row_valued(parse(text)) is row_valued


@pytest.mark.parametrize(
    "text, message",
    [
        ("sum(x, 1, True, 2)", "sum() takes a tensor, then dim= and keepdim= (sum(x, dim=-1))"),
        ("mean(epsilon)", "mean() reduces a tensor, not the scalar 'epsilon'"),
        ("amax()", "amax() takes a tensor, then dim= and keepdim="),
    ],
)
def test_bad_reductions_are_refused_with_the_reason(text, message):
    with pytest.raises(expr.ExprError, match=re.escape(message)):
        parse(text)


def test_default_golden_squeezes_a_reduced_output_unless_keepdim():
    assert (
        make_op({"y": "sum(x)"}, inputs=("x",)).golden["y"]
        == "torch.squeeze(torch.sum(x, -1, keepdim=True), -1)"
    )
    op = make_op({"y": "sum(x)"}, inputs=("x",), keepdim=True)
    assert op.keepdim and op.golden["y"] == "torch.sum(x, -1, keepdim=True)"
    assert make_op({"y": RMS}).golden["y"].startswith("((x * torch.rsqrt((torch.mean(")


# -- the row kernel -----------------------------------------------------------------------------


def kernel_data(op, socs=("ascend910b1",)):
    """The kernel's data, or the error the compiler's checks find first."""
    options = Options("p", "p", "p", socs=tuple(socs))
    error = checks.op_error(op, options.soc_short_names)
    if error is not None:
        raise error
    return kernel.plan(op, options)


def test_rms_norm_lowers_to_reduce_sum_in_float_and_the_row_tiling():
    op = make_op({"y": RMS})
    assert op.is_row and not op.is_elementwise
    k = kernel_data(op)
    assert k.compute.mode == "float"
    body = step_body(k.compute)
    assert "rows.Mean(0, tmp0, y, sharedTmp.ReinterpretCast<float>(), count);" in body
    assert "opgen_kernel::RowPass& rows)" in step_signature(k.compute)
    names = [f.name for f in k.tiling_fields]
    assert names[:9] == [
        "rowCount",
        "rowsPerCore",
        "rowLength",
        "tileLength",
        "tmpCount",
        "tmpBytes",
        "sharedTmpBytes",
        "reduceLength",
        "columnBlocks",
    ]
    assert {"xRowStride", "gammaRowStride", "gammaRowPeriod", "epsilon"} <= set(names)
    assert k.row == RowPlan(
        strides=[TensorField("x", "xRowStride"), TensorField("gamma", "gammaRowStride")],
        periods=[TensorField("gamma", "gammaRowPeriod")],
        reduced=[],
        keepdim=False,
        passes=[["mean(x * x)"], []],
        reductions=1,
        row_valued=False,
        named_axes=False,
    )


@pytest.mark.parametrize("func, api", [("amax", "Max"), ("amin", "Min"), ("sum", "Sum")])
def test_each_reduction_calls_its_api_and_a_reduced_output_is_marked(func, api):
    k = kernel_data(make_op({"y": f"{func}(x)"}, inputs=("x",)))
    assert f"rows.{api}(0, y, x, sharedTmp.ReinterpretCast<float>(), count);" in step_body(
        k.compute
    )
    assert k.row.reduced == ["y"]


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"socs": ("ascend910a",)}, "ReduceMin take half only, not ascend910"),
        ({"types": ("int32",)}, "needs a float type"),
    ],
)
def test_what_the_row_kernel_cannot_do_is_refused(overrides, message):
    op = make_op({"y": "sum(x)"}, inputs=("x",), types=overrides.get("types", ("float",)))
    with pytest.raises(LoweringError) as info:
        kernel_data(op, overrides.get("socs", ("ascend910b1",)))
    assert all(word in str(info.value) for word in message.split(", not")[0].split()[-3:])


def test_rows_on_310p_pack_their_tails_and_give_each_core_whole_cache_lines():
    """ascend310p has no DataCopyPad: a row's tail is copied in a whole block and packed after
    the row's whole blocks (a reduction sees each element once), and TilingFunc gives each core
    rows that start a 64-byte line of every output (reduced values are scalar writes)."""
    proto = make_prototype({"y": "sum(x)", "z": "x * 2"}, inputs=("x",), types=("float16",))
    files = {
        f.path: f.content.decode() for f in twin.render_files(proto, twin.options(("ascend310p1",)))
    }
    kernel = files["op_kernel/opgen_kernel.h"]
    assert "share.packed = true;" in kernel and "PackTail(dst, whole, count, block);" in kernel
    host = files["op_host/row_test_custom.cpp"]
    assert (
        "    if (!opgen::AddRowOutput(context, rows, context->GetOutputDesc(0), true) ||\n"
        "        !opgen::AddRowOutput(context, rows, context->GetOutputDesc(1), false)) {"
    ) in host
    assert "SocVersion::ASCEND310P" in files["op_host/opgen_tiling.h"]


def test_unsupported_target_exits_2_naming_the_op(tmp_path):
    proto = tmp_path / "p.json"
    proto.write_text(
        json.dumps(
            [
                {
                    "op": "RowSumCustom",
                    "input_desc": [{"name": "x", "type": ["float"], "format": ["ND"]}],
                    "output_desc": [{"name": "y", "type": ["float"], "format": ["ND"]}],
                    "opgen": {"compute": {"y": "sum(x)"}},
                }
            ]
        )
    )
    result = CliRunner().invoke(
        app,
        [
            "new",
            str(proto),
            "-o",
            str(tmp_path / "out"),
            "--soc",
            "ascend910a",
            "--no-build",
            "--no-msopgen",
        ],
    )
    assert result.exit_code == 2
    text = " ".join(result.stderr.translate(str.maketrans("", "", "│╭╮╰╯─")).split())
    assert "RowSumCustom" in text and "ReduceSum/ReduceMax/ReduceMin" in text
    assert not (tmp_path / "out").exists()


def test_row_templates_render_only_for_row_ops():
    """opgen_kernel.h and opgen_tiling.h gain the row kernel only in projects with a row op."""
    proto = prototype.loads(
        json.dumps(
            [
                {
                    "op": "RowSumCustom",
                    "input_desc": [{"name": "x", "type": ["float"], "format": ["ND"]}],
                    "output_desc": [{"name": "y", "type": ["float"], "format": ["ND"]}],
                    "opgen": {"compute": {"y": "sum(x)"}},
                }
            ]
        )
    )
    row = plan_project(proto, Options("p", "p", "p"))
    assert row.has_row_ops
    host = row.ops[0].host
    assert host.like_input is None
    assert host.row_outputs == [
        RowOutput(0, "y", reduced="true", keepdim="false", keepdim_text="false")
    ]
    files = {
        f.path: f.content.decode()
        for f in render_files(proto, Options("p", "p", "p"), templates_dir())
    }
    assert (
        "    // By rows: y has x's shape without its last axis.\n"
        in files["op_host/row_sum_custom.cpp"]
    )


def test_a_row_op_that_compares_gets_whole_compare_blocks_and_selects_ub(tmp_path):
    """Compare reads whole 256-byte blocks and Select's tensor modes keep 8 KB of UB: the row
    tiling policy applies both, as the elementwise one does."""
    proto = tmp_path / "p.json"
    proto.write_text(
        json.dumps(
            [
                {
                    "op": "AboveMeanCustom",
                    "input_desc": [{"name": "x", "type": ["float"], "format": ["ND"]}],
                    "output_desc": [{"name": "y", "type": ["float"], "format": ["ND"]}],
                    "opgen": {"compute": {"y": "where(x > mean(x), x, 0.0)"}},
                }
            ]
        )
    )
    result = CliRunner().invoke(
        app, ["new", str(proto), "-o", str(tmp_path / "out"), "--no-build", "--no-msopgen"]
    )
    assert result.exit_code == 0, result.output
    policy = (tmp_path / "out" / "op_host" / "above_mean_custom_tiling_policy.h").read_text()
    assert "inline RowPlan PlanTiling(" in policy
    assert "ours.alignElems = ours.alignElems > COMPARE_BLOCK_ELEMS" in policy
    assert "ours.ubSize - SELECT_RESERVED_UB" in policy
    assert "return DefaultRowPlan(ours, scratch, rows);" in policy


# -- rows longer than a tile: the passes ---------------------------------------------------------


@pytest.mark.parametrize(
    "compute, passes",
    [
        ({"y": RMS}, [["mean(x * x)"], []]),
        ({"y": "sum(x)"}, [["sum(x)"], []]),
        # amax/amin(e) come with sum(where(e != e, e, 0)), NaN when the row holds one
        (
            {"y": "exp(x - amax(x)) / sum(exp(x - amax(x)))"},
            [
                ["amax(x)", "sum(where(x != x, x, 0))"],
                ["sum(exp(x - (amax(x) - sum(where(x != x, x, 0)))))"],
                [],
            ],
        ),
        (
            {"y": "(x - mean(x)) * rsqrt(mean((x - mean(x)) ** 2) + epsilon) * gamma"},
            [["mean(x)"], ["mean((x - mean(x)) ** 2)"], []],
        ),
        (
            {"r": "amax(x) - amin(x)", "m": "mean(x)"},
            [["amax(x)", "sum(where(x != x, x, 0))", "amin(x)", "mean(x)"], []],
        ),
        (
            {"y": "x - mean(x - mean(x - mean(x)))"},
            [["mean(x)"], ["mean(x - mean(x))"], ["mean(x - mean(x - mean(x)))"], []],
        ),
    ],
)
def test_a_long_row_takes_a_pass_per_reduction_level_then_one_for_the_outputs(compute, passes):
    """A reduction accumulates in the pass after the deepest reduction its argument holds; the
    last pass writes the outputs. The kernel's PASSES and every call's level follow."""
    k = kernel_data(make_op(compute))
    assert k.row.passes == passes
    levels = [int(m) for m in re.findall(r"rows\.\w+\((\d+), ", step_body(k.compute))]
    assert sorted(set(levels)) == list(range(len(passes) - 1))
    assert len(levels) == sum(len(p) for p in passes)  # each distinct reduction computed once


def test_more_reductions_than_row_pass_keeps_are_refused():
    text = " + ".join(f"sum(x * {i})" for i in range(1, 18))
    with pytest.raises(LoweringError, match="17 distinct reductions, more than the 16"):
        kernel_data(make_op({"y": text}))


def test_the_kernel_and_the_tiling_choose_single_or_multi_pass(tmp_path):
    """TilingFunc's DefaultRowPlan takes a whole row per tile when it fits, else the longest tile
    that fits; the kernel runs the passes when tileLength < rowLength."""
    proto = tmp_path / "p.json"
    proto.write_text(
        json.dumps(
            [
                {
                    "op": "SoftmaxCustom",
                    "input_desc": [{"name": "x", "type": ["float"], "format": ["ND"]}],
                    "output_desc": [{"name": "y", "type": ["float"], "format": ["ND"]}],
                    "opgen": {"compute": {"y": "exp(x - amax(x)) / sum(exp(x - amax(x)))"}},
                }
            ]
        )
    )
    result = CliRunner().invoke(
        app, ["new", str(proto), "-o", str(tmp_path / "out"), "--no-build", "--no-msopgen"]
    )
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    kernel_src = (out / "op_kernel" / "softmax_custom.cpp").read_text()
    assert "static constexpr uint32_t PASSES = 3;" in kernel_src
    assert "xIn_.CopyIn(row * tiling_.xRowStride + offset, count);" in kernel_src
    assert "yOut_.CopyOut(row * tiling_.rowLength + offset, count);" in kernel_src
    common = (out / "op_kernel" / "opgen_kernel.h").read_text()
    assert "const bool single = tiling_.tileLength >= length;" in common
    assert "const uint32_t passes = single ? 1 : Derived::PASSES;" in common
    host = (out / "op_host" / "opgen_tiling.h").read_text()
    assert "(facts.ubSize - fixed) / perElem / align * align" in host


def with_param_types(compute, inputs, outputs_type, inputs_type=None):
    """make_prototype's op with some inputs and outputs made optional (or dynamic)."""
    data = json.loads(json.dumps(RAW_BASE))
    data["input_desc"] = [{"name": n, "type": ["float"], "format": ["ND"]} for n in inputs]
    data["output_desc"] = [{"name": n, "type": ["float"], "format": ["ND"]} for n in compute]
    data["opgen"] = {"compute": compute}
    for t, kind in zip(data["output_desc"][1:], outputs_type, strict=False):
        t["param_type"] = kind
    if inputs_type is not None:
        data["input_desc"][-1]["param_type"] = inputs_type
    return prototype.loads(json.dumps(data)).ops[0]


RAW_BASE = {"op": "RowTestCustom", "attr": []}
INSTANCE_NORM = {
    "y": "(x - mean(x, dim=(1, 2), keepdim=True)) * gamma",
    "mean": "mean(x, dim=(1, 2), keepdim=True)",
    "variance": "mean((x - mean(x, dim=(1, 2), keepdim=True)) ** 2, dim=(1, 2), keepdim=True)",
}


def test_optional_outputs_of_a_row_op_are_computed_like_required_ones():
    """InstanceNorm's optional mean and variance beside its x-shaped y: the kernel writes them
    (the PyTorch op always allocates them), one value per row."""
    op = with_param_types(INSTANCE_NORM, ("x", "gamma"), ("optional", "optional"))
    k = kernel_data(op)
    assert k.row.reduced == ["mean", "variance"]
    assert [t.param.name for t in k.streams if t.role == "output"] == ["y", "mean", "variance"]


def test_optional_inputs_of_a_row_op_are_refused():
    op = with_param_types({"y": "sum(x)"}, ("x", "gamma"), (), "optional")
    with pytest.raises(LoweringError, match="no optional or dynamic inputs, no dynamic outputs"):
        kernel_data(op)
