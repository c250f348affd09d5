"""Reductions that name their axes (torch's dim= and keepdim=): the grammar, the rules a compute
keeps (opgen/frontend/reductions.py), the row rule over several axes (opgen/frontend/rows.py) and
what the generated code does with them: the default golden, the fake kernel's and the CPU
adapter's checks, InferShape and TilingFunc, and the tests' shapes. The built projects are in
test_end_to_end.py (tests/data/e2e/reductions.json)."""

from __future__ import annotations

import functools
import json
import re
import types

import pytest
import torch
from kernel_host import twin

from opgen.frontend import expr, prototype
from opgen.frontend.problems import PrototypeError
from opgen.frontend.rows import row_first_axis, row_shape_problem, row_split
from opgen.planning import tests as tests_planner


def tensor(name: str) -> dict:
    return {"name": name, "param_type": "required", "format": ["ND"], "type": ["float"]}


def proto(compute: dict, inputs=("x",), attrs=(), keepdim=None) -> dict:
    block: dict = {"compute": compute}
    if keepdim is not None:
        block["keepdim"] = keepdim
    return {
        "op": "ReduceCustom",
        "input_desc": [tensor(n) for n in inputs],
        "output_desc": [tensor(n) for n in compute],
        "attr": list(attrs),
        "opgen": block,
    }


AXES = {"name": "axes", "param_type": "required", "type": "list_int"}
DIM = {"name": "dim", "param_type": "optional", "type": "int", "default_value": 1}
KEEP = {"name": "keep_dims", "param_type": "optional", "type": "bool", "default_value": False}
EPS = {"name": "eps", "param_type": "optional", "type": "float", "default_value": 1e-5}


def load(data: dict):
    return prototype.loads(json.dumps(data)).ops[0]


def problems(data: dict) -> list[str]:
    with pytest.raises(PrototypeError) as info:
        prototype.loads(json.dumps(data))
    return [f"{p.path}: {p.text()}" for p in info.value.problems]


# -- the grammar --------------------------------------------------------------------------------

ATTR_TYPES = {"axes": "list_int", "dim": "int", "keep_dims": "bool", "eps": "float"}


def parse(text: str) -> expr.Node:
    return expr.parse_compute(text, {"x", "y"}, {"dim", "keep_dims", "eps"}, {}, ATTR_TYPES)


@pytest.mark.parametrize(
    "text, axes, keepdim",
    [
        ("sum(x, dim=1)", expr.Axes((1,)), False),
        ("sum(x, 1)", expr.Axes((1,)), False),
        ("mean(x, dim=(2, 3), keepdim=True)", expr.Axes((2, 3)), True),
        ("mean(x, [-2, -1], True)", expr.Axes((-2, -1)), True),
        ("amax(x, dim=None)", expr.Axes(()), False),
        ("amin(x, dim=axes, keepdim=keep_dims)", expr.Axes(attr="axes"), "keep_dims"),
        ("sum(x, dim=dim)", expr.Axes(attr="dim"), False),
    ],
)
def test_dim_and_keepdim_parse_as_torch_takes_them(text, axes, keepdim):
    node = parse(text)
    assert isinstance(node, expr.Reduce) and node.dim_given
    assert (node.axes, node.keepdim) == (axes, keepdim)
    assert expr.show(parse(expr.show(node))) == expr.show(node)  # show() round-trips


def test_the_golden_calls_torch_with_the_same_dim_and_keepdim():
    assert expr.to_torch(parse("mean(x, dim=(2, 3), keepdim=True)")) == (
        "torch.mean(x, dim=[2, 3], keepdim=True)"
    )
    assert expr.to_torch(parse("sum(x * x, dim=None)")) == "torch.sum((x * x), dim=None)"
    assert expr.to_torch(parse("amax(x, dim=axes, keepdim=keep_dims)")) == (
        "torch.amax(x, dim=axes, keepdim=keep_dims)"
    )
    # without dim=: the last axis, kept (it broadcasts back over the row), as before
    assert expr.to_torch(parse("sum(x)")) == "torch.sum(x, -1, keepdim=True)"


@pytest.mark.parametrize(
    "text, message",
    [
        ("sum(x, axis=1)", "sum() takes the keywords dim= and keepdim=, not ['axis']"),
        # **kwargs beside a keyword: once a TypeError (None sorted with 'axis')
        ("sum(x, axis=1, **k)", "sum() takes the keywords dim= and keepdim=, not ['axis']"),
        ("sum(x, **k)", "sum() takes the keywords dim= and keepdim=, not **"),
        ("sum(x, keepdim=True)", "sum(): keepdim= goes with dim="),
        ("sum(x, 1, dim=1)", "sum() got dim twice"),
        ("sum(x, dim=1.5)", "sum(): dim= takes ints (up to 64)"),
        ("sum(x, dim=(1, 1))", "sum(dim=(1, 1)) names an axis twice"),
        ("sum(x, dim=eps)", "sum(dim=eps): 'eps' is a float attr; dim= takes an int or list_int"),
        ("sum(x, dim=1, keepdim=1)", "sum(): keepdim= takes True, False or a bool attr, not '1'"),
        ("sum(x, dim=1, keepdim=dim)", "keepdim= takes True, False or a bool attr, not 'dim'"),
        ("mean(eps, dim=1)", "mean() reduces a tensor, not the scalar 'eps'"),
        ("sum(x, 1, True, 2)", "sum() takes a tensor, then dim= and keepdim="),
    ],
)
def test_a_bad_dim_or_keepdim_is_refused_naming_it(text, message):
    with pytest.raises(expr.ExprError, match=re.escape(message)):
        parse(text)


# -- the rules a compute keeps -----------------------------------------------------------------


def test_an_op_s_reductions_name_the_same_axes_or_none_do():
    found = problems(proto({"y": "sum(x, dim=0)", "z": "amax(x, dim=1)"}))
    assert any(
        "$.opgen.compute.z" in p
        and "'amax(x, dim=1)' reduces dim=1 where 'sum(x, dim=0)' reduces dim=0" in p
        for p in found
    ), found
    found = problems(proto({"y": "x - amax(x) + sum(x, dim=-1, keepdim=True)"}))
    assert any("'amax(x)' has no dim= where" in p for p in found), found


def test_a_reduction_that_broadcasts_back_keeps_its_axes():
    found = problems(proto({"y": "x - amax(x, dim=-1)"}))
    assert any(
        "'amax(x, dim=-1)' broadcasts back over the elements beside it: write keepdim=True" in p
        for p in found
    ), found
    assert problems(proto({"y": "x - amax(x, dim=axes, keepdim=keep_dims)"}, attrs=[AXES, KEEP]))
    # a reduction over every axis is 0-d: it broadcasts anywhere, as in torch
    load(proto({"y": "x - mean(x, dim=None)"}))
    load(proto({"y": "x - amax(x, dim=(0, 1), keepdim=True)"}))


def test_an_output_s_reductions_agree_on_keepdim():
    found = problems(proto({"y": "sum(x, dim=-1) + amax(x, dim=-1, keepdim=True)"}))
    assert any("different keepdim=" in p for p in found), found


def test_the_opgen_keepdim_goes_with_plain_reductions_only():
    found = problems(proto({"y": "sum(x, dim=-1)"}, keepdim=True))
    assert any("$.opgen.keepdim: is for reductions without dim=" in p for p in found), found


def test_dims_that_are_adjacent_in_no_shape_are_refused():
    found = problems(proto({"y": "sum(x, dim=(0, 2))"}))
    assert any("dim=(0, 2) are adjacent axes of no shape" in p for p in found), found
    load(proto({"y": "sum(x, dim=(0, 1))"}))


def test_dim_and_keepdim_attrs_count_as_read():
    op = load(proto({"y": "sum(x, dim=axes, keepdim=keep_dims)"}, attrs=[AXES, KEEP]))
    assert op.unread_attrs == () and op.row_axes == expr.Axes(attr="axes")
    assert op.output_keepdim("y") == "keep_dims"


# -- the row rule over several axes ------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, dims, split, first",
    [
        ((4, 37, 5), (-1,), (148, 5, 1), 2),
        ((4, 37, 5), (1, 2), (4, 185, 1), 1),
        ((4, 37, 5), (2, -2), (4, 185, 1), 1),
        ((4, 37, 5), (), (1, 740, 1), 0),
        ((4, 37, 5), (1,), (4, 37, 5), None),  # ARA: the kernel's column mode
        ((4, 37, 5), (0,), (1, 4, 185), None),  # RA
        ((4, 1, 5), (0, 2), (1, 20, 1), None),  # adjacent once the axis of 1 is left out
        ((4, 37, 1), (1,), (4, 37, 1), None),
        ((), (), (1, 1, 1), 0),
        ((), (0,), (1, 1, 1), 0),
        ((), (-1,), (1, 1, 1), 0),
        ((7,), (0,), (1, 7, 1), 0),
    ],
)
def test_the_dims_split_the_input_into_lead_reduce_and_trail(shape, dims, split, first):
    assert row_split(shape, dims) == split
    assert row_first_axis(shape, dims) == first


@pytest.mark.parametrize(
    "dims, message",
    [
        ((3,), "ReduceCustom: dim=3 names axis 3, and x [4, 37, 5] has 3"),
        ((1, -2), "ReduceCustom: dim=[1, -2] names an axis of x [4, 37, 5] twice"),
        (
            (0, 2),
            "ReduceCustom: dim=[0, 2] of x [4, 37, 5] are not adjacent axes; opgen's row kernel "
            "reduces one run of them",
        ),
    ],
)
def test_dims_the_kernel_cannot_reduce_are_refused_with_torch_s_reasons(dims, message):
    assert row_shape_problem("ReduceCustom", {"x": (4, 37, 5)}, dims) == message


def test_the_row_of_several_axes_broadcasts_as_one():
    shapes = {"x": (2, 3, 4, 5), "w": (4, 5)}
    assert row_shape_problem("ReduceCustom", shapes, (2, 3)) is None
    assert row_shape_problem("ReduceCustom", {"x": (2, 3, 4, 5), "w": (5,)}, (2, 3)) == (
        "ReduceCustom: w has shape [5]; a row op's inputs take x's shape [2, 3, 4, 5], its "
        "row [4, 5] or a value per row ([2, 3, 1, 1], or without its first dims)"
    )
    assert "rows of 0 elements" in row_shape_problem("ReduceCustom", {"x": (2, 0, 3)}, (1, 2))
    # reduced axes with more after them: another input has x's shape
    assert row_shape_problem("ReduceCustom", {"x": (4, 37, 5), "w": (37, 5)}, (1,)) == (
        "ReduceCustom: w has shape [37, 5]; a row op's inputs take x's shape [4, 37, 5]"
    )


@functools.cache
def support() -> types.ModuleType:
    """The rendered _support.py of a project with a row op."""
    files = twin.render_files(
        prototype.loads(json.dumps(proto({"y": "sum(x, dim=-1)"}))), twin.options(), full=True
    )
    source = next(f.content.decode() for f in files if f.path == "p/_support.py")
    module = types.ModuleType("support")
    exec(compile(source, "_support.py", "exec"), module.__dict__)
    return module


@pytest.mark.parametrize(
    "x, w, dims",
    [
        ((4, 37, 5), (4, 37, 5), (1, 2)),
        ((4, 37, 5), (37, 5), (1, 2)),
        ((4, 37, 5), (5,), (1, 2)),
        ((4, 37, 5), (4, 37, 5), (1,)),
        ((4, 37, 5), (37, 5), (1,)),
        ((4, 37, 5), (4, 37, 5), (0, 2)),
        ((4, 1, 5), (4, 1, 5), (0, 2)),
        ((4, 37, 5), (4, 37, 5), (3,)),
        ((4, 37, 5), (4, 37, 5), (0, -3)),
        ((4, 37, 5), (4, 37, 5), ()),
        ((), (), ()),
        ((2, 0, 3), (2, 0, 3), (1, 2)),
    ],
)
def test_the_fake_kernel_says_what_the_rule_says(x, w, dims):
    try:
        support()._row_shapes(
            "ReduceCustom",
            dims[0] if len(dims) == 1 else dims,
            x=torch.empty(x, device="meta"),
            w=torch.empty(w, device="meta"),
        )
        message = None
    except RuntimeError as exc:
        message = str(exc)
    assert message == row_shape_problem("ReduceCustom", {"x": x, "w": w}, dims)


# -- the generated code ------------------------------------------------------------------------


def rendered(data: dict) -> dict[str, str]:
    files = twin.render_files(prototype.loads(json.dumps(data)), twin.options(), full=True)
    return {f.path: f.content.decode() for f in files}


def test_literal_dims_reach_every_check_and_infer_shape():
    files = rendered(proto({"y": "mean(x, dim=(2, 3), keepdim=True)"}))
    assert '_row_shapes("ReduceCustom", (2, 3), x=x)' in files["p/ops.py"]
    assert 'opgen_torch::RowShapes("ReduceCustom", {"x"}, {x}, {2, 3});' in files["p/csrc/ops.cpp"]
    host = files["op_host/reduce_custom.cpp"]
    assert host.count("const int64_t reducedDims[] = {2, 3};") == 2  # TilingFunc, InferShape
    assert "!opgen::ReadRows(rowShape, rows, dims)" in host
    assert "opgen::SetRowOutputShape(context, 0, *rows, true, true, dims)" in host
    assert "torch.mean(x, dim=[2, 3], keepdim=True)" in files["p/golden.py"]


def test_attr_dims_and_keepdim_are_read_where_the_shapes_are_told():
    files = rendered(proto({"y": "sum(x, dim=axes, keepdim=keep_dims)"}, attrs=[AXES, KEEP]))
    assert '_row_shapes("ReduceCustom", axes, x=x)' in files["p/ops.py"]
    assert 'opgen_torch::RowShapes("ReduceCustom", {"x"}, {x}, axes);' in files["p/csrc/ops.cpp"]
    host = files["op_host/reduce_custom.cpp"]
    assert host.count("opgen::AttrRowDims(context->GetAttrs(), 0, true, nullptr, dims)") == 2
    assert "const bool keepDimsAttr = opgen::AttrBool(context->GetAttrs(), 1, false);" in host
    assert "SetRowOutputShape(context, 0, *rows, true, keepDimsAttr, dims)" in host
    # the tests pass the last axis for the required attr
    assert 'AttrArg("axes", [-1]),' in files["tests/test_reduce_custom.py"]


def test_an_int_dim_attr_reaches_the_cpu_check_as_one_dim():
    files = rendered(proto({"y": "sum(x, dim=dim)"}, attrs=[DIM]))
    assert 'opgen_torch::RowShapes("ReduceCustom", {"x"}, {x}, {dim});' in files["p/csrc/ops.cpp"]
    host = files["op_host/reduce_custom.cpp"]
    assert "const int64_t defaultDims[] = {1};" in host
    assert "opgen::AttrRowDims(context->GetAttrs(), 0, false, &fallback, dims)" in host


def test_the_tests_shapes_fit_the_dims():
    op = load(proto({"y": "mean(x, dim=(2, 3), keepdim=True)"}))
    assert tests_planner.row_layout(op) == (2, 2)
    shapes = {s.id: s.literal for s in tests_planner.row_shapes(op)}
    assert shapes == {
        "row-of-1": "(1, 1, 1, 1)",
        "row-of-37": "(1, 1, 1, 37)",
        "row-of-4096": "(1, 1, 1, 4096)",
        "rows-longer-than-ub": "(1, 2, 1, 40000)",
        "many-short-rows": "(1, 300, 1, 37)",
        "4d": "(3, 5, 17, 4)",
        # dim=(2, 3) of 5 dims: ARA, the kernel's column mode, on shapes as they are
        "columns": '{"x": (3, 5, 17, 4, 37)}',
        "columns-wider-than-ub": '{"x": (2, 2, 2, 2, 20000)}',
        # 65536 lines of 16 values: the column sum's cascade (a line at a time drifts by 3e-4)
        "long-columns": '{"x": (1, 1, 65536, 1, 16)}',
    }
    files = rendered(proto({"y": "mean(x, dim=(2, 3), keepdim=True)"}))
    assert "    rows=(2, 2),\n" in files["tests/test_reduce_custom.py"]
    assert 'SameLines({"x": (1, 1, 65536, 1, 16)}), id="long-columns"' in " ".join(
        files["tests/test_reduce_custom.py"].split()
    )
    assert "def same_lines(t: torch.Tensor) -> torch.Tensor:" in files["tests/op_testing.py"]
    assert "def fit_rows(shape, layout: tuple[int, int]) -> tuple:" in files["tests/op_testing.py"]
    # an op over every axis, or the last one, takes the usual shapes
    for compute in ("sum(x, dim=None)", "sum(x, dim=-1)", "sum(x)"):
        assert tests_planner.row_layout(load(proto({"y": compute}))) is None
    assert tests_planner.row_layout(load(proto({"y": "sum(x, dim=(-2, -1))"}))) == (1, 2)
    assert tests_planner.row_layout(load(proto({"y": "sum(x, dim=0)"}))) is None  # RA at 2 dims
    assert "fit_rows" not in rendered(proto({"y": "sum(x)"}))["tests/op_testing.py"]


@pytest.mark.parametrize(
    "shape, layout, fitted",
    [
        ((0, 4), (2, 2), (1, 0, 1, 4)),  # zero rows stay zero rows
        ((12, 33), (1, 2), (12, 1, 33)),
        ((3, 5, 17), (1, 1), (15, 17)),
        ((3, 5, 17), (0, 1), (255,)),
        ((), (1, 2), (1, 1, 1)),
    ],
)
def test_a_shape_of_rows_keeps_its_rows_and_row(shape, layout, fitted):
    assert tests_planner.fit_rows(shape, layout) == fitted
