"""Index ops (index_select, gather, scatter_add, index_add, argmax, argmin, topk, sort, roll,
one_hot, cumsum, avg_pool2d, max_pool2d, index_reduce): the grammar (expr.IndexCall), the
prototype rules, dtypes and shape rule (frontend/index_ops.py), the SoC refusals
(compiler/checks.py), the plan (planning/index_op.py) and the files the index_op templates
render. The end-to-end build is in test_end_to_end.py (tests/data/e2e/index_ops.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from conftest import op
from kernel_host import twin

from opgen.frontend import expr, index_functions, index_ops, prototype
from opgen.frontend.problems import PrototypeError
from opgen.planning import index_op

ROOT = Path(__file__).resolve().parents[1]
E2E = ROOT / "tests" / "data" / "e2e" / "index_ops.json"
TENSORS = {"x", "ids", "src"}
ATTR_TYPES = {"k": "int", "d": "int", "big": "bool", "ks": "list_int", "f": "float"}


def parse(text: str) -> expr.Node:
    scalars = {n for n, t in ATTR_TYPES.items() if t != "list_int"}
    return expr.parse_compute(text, TENSORS, scalars, {}, ATTR_TYPES)


def tensor(name: str, dtypes: tuple[str, ...] = ("float", "fp16")) -> dict:
    return {"name": name, "param_type": "required", "format": ["ND"] * 2, "type": list(dtypes)}


def index_op_raw(compute: dict[str, str], inputs=None, outputs=None, attrs=(), **opgen) -> dict:
    raw = op(
        op="IndexCustom",
        input_desc=inputs or [tensor("x"), tensor("ids", ("int32", "int64"))],
        output_desc=outputs or [tensor("y")],
        attr=list(attrs),
    )
    raw["opgen"] = {"compute": compute, **opgen}
    return raw


def load(raw: dict):
    return prototype.loads(json.dumps([raw])).ops[0]


def problems(raw: dict) -> list[str]:
    with pytest.raises(PrototypeError) as err:
        prototype.loads(json.dumps([raw]))
    return [f"{p.path}: {p.text()}" for p in err.value.problems]


# ---------------------------------------------------------------------------------------------
# the grammar
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown", "golden"),
    [
        (
            "index_select(x, 0, ids)",
            "index_select(x, 0, ids)",
            "torch.index_select(x, dim=0, index=ids)",
        ),
        ("gather(x, -1, ids)", "gather(x, -1, ids)", "torch.gather(x, dim=-1, index=ids.long())"),
        (
            "scatter_add(x, d, ids, src)",
            "scatter_add(x, d, ids, src)",
            "torch.scatter_add(x, dim=d, index=ids.long(), src=src)",
        ),
        (
            "argmax(x, dim=-1, keepdim=big)",
            "argmax(x, -1, big)",
            "torch.argmax(x, dim=-1, keepdim=big)",
        ),
        (
            "topk(x, k, largest=big).indices",
            "topk(x, k, largest=big).indices",
            "torch.sort(x, dim=-1, descending=big, stable=True).indices.narrow(-1, 0, k)",
        ),
        (
            "sort(x, 1, True).values",
            "sort(x, 1, True).values",
            "torch.sort(x, dim=1, descending=True, stable=True).values",
        ),
        ("roll(x, k, d)", "roll(x, k, d)", "torch.roll(x, shifts=k, dims=d)"),
        ("roll(x, ks, ks)", "roll(x, ks, ks)", "torch.roll(x, shifts=ks, dims=ks)"),
        (
            "roll(x, [3, -2, 1], (0, -1, 0))",
            "roll(x, [3, -2, 1], [0, -1, 0])",
            "torch.roll(x, shifts=[3, -2, 1], dims=[0, -1, 0])",
        ),
        (
            "one_hot(ids, 5)",
            "one_hot(ids, 5)",
            "torch.nn.functional.one_hot(ids.long(), num_classes=5)",
        ),
        ("cumsum(x, -1)", "cumsum(x, -1)", "torch.cumsum(x, dim=-1)"),
        (
            "max(x, d, big).values",
            "max(x, d, big).values",
            "torch.max(x, dim=d, keepdim=big).values",
        ),
        ("min(x, dim=0).indices", "min(x, 0).indices", "torch.min(x, dim=0).indices"),
        ("max(x, -1).indices", "max(x, -1).indices", "torch.max(x, dim=-1).indices"),
        (
            "avg_pool2d(x, ks, padding=[1, 0])",
            "avg_pool2d(x, ks, padding=[1, 0])",
            "torch.nn.functional.avg_pool2d(x, kernel_size=ks, padding=[1, 0])",
        ),
        (
            "max_pool2d(x, 3, 2, 1, ceil_mode=True)",
            "max_pool2d(x, 3, 2, 1, ceil_mode=True)",
            "torch.nn.functional.max_pool2d(x, kernel_size=3, stride=2, padding=1, ceil_mode=True)",
        ),
        (
            "avg_pool2d(x.permute(0, 3, 1, 2), k).permute(0, 2, 3, 1)",
            "avg_pool2d(x.permute(0, 3, 1, 2), k).permute(0, 2, 3, 1)",
            "torch.nn.functional.avg_pool2d(x.permute(0, 3, 1, 2), kernel_size=k)"
            ".permute(0, 2, 3, 1)",
        ),
        (
            "max_pool2d(x.permute((0, 3, 1, 2)), 3, padding=1).permute([0, 2, 3, 1])",
            "max_pool2d(x.permute(0, 3, 1, 2), 3, padding=1).permute(0, 2, 3, 1)",
            "torch.nn.functional.max_pool2d(x.permute(0, 3, 1, 2), kernel_size=3, padding=1)"
            ".permute(0, 2, 3, 1)",
        ),
        (
            "index_add(x, 0, ids, src, alpha=-1)",
            "index_add(x, 0, ids, src, -1)",
            "torch.index_add(x, dim=0, index=ids, source=src, alpha=-1)",
        ),
        (
            "index_add(x, d, ids, src, -0.25)",
            "index_add(x, d, ids, src, -0.25)",
            "torch.index_add(x, dim=d, index=ids, source=src, alpha=-0.25)",
        ),
        (
            "index_add(x, 0, ids, src, alpha=k)",
            "index_add(x, 0, ids, src, k)",
            "torch.index_add(x, dim=0, index=ids, source=src, alpha=k)",
        ),
        (
            'index_reduce(x, 0, ids, src, "amax")',
            "index_reduce(x, 0, ids, src, 'amax')",
            "torch.index_reduce(x, dim=0, index=ids, source=src, reduce='amax')",
        ),
        (
            "index_reduce(x, d, ids, src, reduce='amin', include_self=big)",
            "index_reduce(x, d, ids, src, 'amin', big)",
            "torch.index_reduce(x, dim=d, index=ids, source=src, reduce='amin', include_self=big)",
        ),
    ],
)
def test_index_calls_parse_show_and_spell_torch(text, shown, golden):
    node = parse(text)
    assert isinstance(node, expr.IndexCall)
    assert expr.show(node) == shown
    assert expr.to_torch(node) == golden


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("topk(x, 3)", "returns values and indices: take one, topk(x, 3).values"),
        ("argmax(x)", "argmax() needs its argument dim"),
        ("gather(x, 0, ids * 2)", "takes an input as its index, not 'ids * 2'"),
        ("index_select(x, f, ids)", "index_select(dim=f): dim takes an int or an int attr"),
        ("topk(x, 2, largest=1).values", "largest takes True, False or a bool attr"),
        ("roll(x, 1, dims=0, step=2)", "roll() takes no keyword step"),
        ("x.values", ".values and .indices take a part of topk(...), sort(...), max(x, dim)"),
        ("max(x, 1, True)", "returns values and indices: take one, max(x, 1, True).values"),
        ("min(x, dim=d)", "min(x, d) returns values and indices: take one, min(x, d).values"),
        ("max(x).values", "max() needs its argument dim"),
        ("max(x, 1, 2).indices", "max(keepdim=2): keepdim takes True, False or a bool attr"),
        ("min(x, f).values", "min(dim=f): dim takes an int or an int attr"),
        ("max(x * 2, 1).values", "max() takes an input as its x, not 'x * 2'"),
        ("sort(x).order", "take .values or .indices"),
        ("avg_pool2d(x, [1, 2, 3])", "kernel_size takes an int, a pair of ints"),
        ("roll(x, [1, 0.5], 0)", "shifts takes an int, a list of ints, or an int or list_int"),
        ("roll(x, 1, f)", "dims takes an int, a list of ints, or an int or list_int attr"),
        # channels-last pooling: exactly torch's NHWC wrapping, nothing else permuted
        (
            "avg_pool2d(x.permute(0, 3, 1, 2), 2)",
            "'x.permute(0, 3, 1, 2)' is not allowed: .permute() is taken only around a "
            "channels-last pooling, avg_pool2d(x.permute(0, 3, 1, 2), ...).permute(0, 2, 3, 1) "
            "(or max_pool2d), x and the output NHWC",
        ),
        (
            "avg_pool2d(x, 2).permute(0, 2, 3, 1)",
            "opgen pools NCHW x, avg_pool2d(x, ...), or NHWC x written "
            "avg_pool2d(x.permute(0, 3, 1, 2), ...).permute(0, 2, 3, 1), these permutes exactly",
        ),
        ("max_pool2d(x.permute(0, 2, 1, 3), 2).permute(0, 2, 1, 3)", "no other permute"),
        ("avg_pool2d(x.permute(2, 0, 1), 2).permute(1, 2, 0)", "no other permute"),
        ("avg_pool2d(x.permute(0, -1, 1, 2), 2).permute(0, 2, 3, 1)", "no other permute"),
        ("max_pool2d(x.permute(0, 3, 1, 2), 2).permute(dims=(0, 2, 3, 1))", "no other permute"),
        ("avg_pool2d((x * 2).permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1)", "no other permute"),
        ("gather(x, 0, ids).permute(0, 2, 3, 1)", ".permute() is taken only around"),
        ("x.permute(0, 2, 3, 1)", ".permute() is taken only around"),
        (
            'index_reduce(x, 0, ids, src, "prod")',
            "index_reduce(reduce='prod'): opgen's kernel computes 'amax', 'amin', not torch's "
            "'prod'",
        ),
        ('index_reduce(x, 0, ids, src, "sum")', "reduce='sum'): reduce is one of 'amax', 'amin'"),
        ("index_reduce(x, 0, ids, src, k)", "reduce takes a string literal, 'amax', 'amin'"),
        ("index_reduce(x, 0, ids, src)", "index_reduce() needs its argument reduce"),
        (
            'index_reduce(x, 0, ids, src, "amax", 1)',
            "include_self takes True, False or a bool attr",
        ),
        ("index_add(x, 0, ids, src, alpha=f)", "a float attr is not supported yet as alpha"),
        ("index_add(x, 0, ids, src, alpha=True)", "alpha takes a finite number"),
        ("index_add(x, 0, ids, src, alpha=2**40)", "alpha takes a finite number"),
    ],
)
def test_index_call_refusals_name_the_part(text, message):
    with pytest.raises(expr.ExprError, match=None) as err:
        parse(text)
    assert message in str(err.value), str(err.value)


@pytest.mark.parametrize("text", ["max(x, 0)", "min(x, src)", "max(x, d)", "min(max(x, 0), 6)"])
def test_max_and_min_of_two_operands_stay_elementwise(text):
    """max(a, b) is the elementwise function; torch.max(x, dim) needs a part, a keyword or a
    third argument."""
    assert not any(isinstance(n, expr.IndexCall) for n in expr.walk(parse(text)))


# ---------------------------------------------------------------------------------------------
# the shape rule against torch
# ---------------------------------------------------------------------------------------------

SHAPE_CASES = [
    ("index_select(x, 0, ids)", {"x": (7, 5), "ids": (9,)}, {}),
    ("index_select(x, -1, ids)", {"x": (2, 7, 5), "ids": (3,)}, {}),
    ("gather(x, 1, ids)", {"x": (4, 9), "ids": (4, 5)}, {}),
    ("gather(x, 0, ids)", {"x": (4, 9), "ids": (7, 9)}, {}),
    ("scatter_add(x, 0, ids, src)", {"x": (4, 9), "ids": (6, 9), "src": (7, 9)}, {}),
    ("index_add(x, 1, ids, src)", {"x": (4, 9), "ids": (12,), "src": (4, 12)}, {}),
    ("index_add(x, 0, ids, src, -2)", {"x": (4, 9), "ids": (12,), "src": (12, 9)}, {}),
    ('index_reduce(x, 1, ids, src, "amax")', {"x": (4, 9), "ids": (12,), "src": (4, 12)}, {}),
    ("argmax(x, -1)", {"x": (4, 9)}, {}),
    ("argmin(x, 0, keepdim=True)", {"x": (4, 9, 2)}, {}),
    ("max(x, 1).values", {"x": (4, 9, 2)}, {}),
    ("min(x, -1, True).indices", {"x": (4, 9)}, {}),
    ("topk(x, 3).values", {"x": (4, 9)}, {}),
    ("topk(x, 2, dim=0).indices", {"x": (4, 9)}, {}),
    ("sort(x, 0).values", {"x": (4, 9)}, {}),
    ("roll(x, 5, 1)", {"x": (4, 9)}, {}),
    ("roll(x, [5, -7], [1, 0])", {"x": (4, 9)}, {}),
    ("roll(x, [5, 2], [-1, -1])", {"x": (4, 9, 3)}, {}),
    ("roll(x, [5], [])", {"x": (4, 9)}, {}),
    ("one_hot(ids, 6)", {"ids": (4, 3)}, {}),
    ("cumsum(x, 1)", {"x": (4, 9, 2)}, {}),
    ("avg_pool2d(x, 3, 2, 1)", {"x": (2, 3, 17, 19)}, {}),
    ("avg_pool2d(x, [3, 2], padding=[1, 1], ceil_mode=True)", {"x": (3, 10, 11)}, {}),
    ("max_pool2d(x, 3, 2, 1, ceil_mode=True)", {"x": (2, 3, 8, 9)}, {}),
    ("max_pool2d(x, 2)", {"x": (1, 1, 5, 5)}, {}),
    ("avg_pool2d(x.permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1)", {"x": (2, 8, 9, 3)}, {}),
    (
        "max_pool2d(x.permute(0, 3, 1, 2), [3, 2], 2, 1, ceil_mode=True).permute(0, 2, 3, 1)",
        {"x": (2, 7, 10, 70)},
        {},
    ),
]


@pytest.mark.parametrize(("text", "shapes", "attrs"), SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_output_shape_is_torchs(text, shapes, attrs):
    call = parse(text)
    assert isinstance(call, expr.IndexCall)
    values = {n: v for n, v in call.args if not isinstance(v, str)}
    tensors = {}
    for name, shape in shapes.items():
        if name == "ids":
            tensors[name] = torch.randint(0, 2, shape)
        else:
            tensors[name] = torch.randn(shape)
    golden = eval(expr.to_torch(call), {"torch": torch}, tensors)  # noqa: S307 (checked text)
    assert index_ops.output_shape(call, shapes, values) == tuple(golden.shape)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("roll(x, [1, 2], [0])", "shifts and dims must align (torch): 2 shifts, 1 dims"),
        ("roll(x, [1, 2], [])", "shifts and dims must align (torch): 2 shifts, 0 dims"),
        ("roll(x, [1], [2])", "dims=2 is outside x's 2 dims"),
        ("roll(x, [1, 1], [0, -3])", "dims=-3 is outside x's 2 dims"),
    ],
)
def test_roll_shapes_torch_refuses(text, why):
    call = parse(text)
    assert isinstance(call, expr.IndexCall)
    values = {n: v for n, v in call.args if not isinstance(v, str)}
    assert index_ops.output_shape(call, {"x": (4, 9)}, values) == why
    with pytest.raises((RuntimeError, IndexError)):
        eval(expr.to_torch(call), {"torch": torch}, {"x": torch.randn(4, 9)})  # noqa: S307


# ---------------------------------------------------------------------------------------------
# the prototype's rules
# ---------------------------------------------------------------------------------------------


def test_an_epilogue_after_an_index_op_is_refused():
    found = problems(index_op_raw({"y": "index_select(x, 0, ids) * 2"}))
    assert found == [
        "$[0].opgen.compute.y: compute expression: index_select(x, 0, ids) with an "
        "expression around it: an epilogue after an index op is not supported yet; compute the "
        "call alone (another op may take its output)"
    ]


def test_topk_parts_come_from_one_call():
    raw = index_op_raw(
        {"v": "topk(x, 2).values", "i": "topk(x, 3).indices"},
        inputs=[tensor("x")],
        outputs=[tensor("v"), tensor("i", ("int64", "int32"))],
    )
    (found,) = problems(raw)
    assert found.startswith("$[0].opgen.compute.i:") and "an op computes one index call" in found


@pytest.mark.parametrize(
    ("compute", "outputs", "inputs", "message"),
    [
        (
            "index_select(x, 0, ids)",
            None,
            [tensor("x"), tensor("ids", ("float", "float"))],
            "the index ids is int32 or int64, not float32",
        ),
        (
            "argmax(x, -1)",
            None,
            [tensor("x")],
            "is int32 or int64 (as torch computes it), not float32",
        ),
        (
            "cumsum(x, 0)",
            [tensor("y", ("int32", "float"))],
            [tensor("x", ("int32", "float"))],
            "cumsum(x, 0) of x int32 is int64 (as torch computes it), not int32",
        ),
        (
            "avg_pool2d(x, 2)",
            [tensor("y", ("int32", "float"))],
            [tensor("x", ("int32", "float"))],
            "avg_pool2d(x, 2) takes x in float16, bfloat16, float32, not int32",
        ),
    ],
)
def test_dtype_rules(compute, outputs, inputs, message):
    found = problems(index_op_raw({"y": compute}, inputs=inputs, outputs=outputs))
    assert any(message in f for f in found), found


ROLL_LISTS = [
    {"name": "shifts", "param_type": "required", "type": "list_int"},
    {"name": "dims", "param_type": "required", "type": "list_int"},
]
MOVED = ("bfloat16", "int8", "uint8", "int16", "uint32", "int64", "bool", "complex64")


def test_a_float_alpha_of_an_integer_index_add_is_refused():
    """torch's index_add truncates a float alpha for an integer tensor (1.7 -> 1): refused."""
    raw = index_op_raw(
        {"y": "index_add(x, 0, ids, src, alpha=0.5)"},
        inputs=[tensor("x", ("float", "int32")), tensor("ids", ("int32",) * 2)]
        + [tensor("src", ("float", "int32"))],
        outputs=[tensor("y", ("float", "int32"))],
    )
    assert problems(raw) == [
        "$[0].input_desc[0].type[1]: index_add(x, 0, ids, src, 0.5) of x int32: alpha is a "
        "float; torch's index_add truncates it for an integer tensor (0.5 -> 0): give an int "
        "alpha, or x a float dtype"
    ]


SCATTER_INPUTS = [tensor("var", ("float", "int8")), tensor("indices", ("int32", "int32"))]
SCATTER_INPUTS += [tensor("updates", ("float", "int8"))]


def test_an_index_op_without_outputs_updates_its_x_in_place():
    """tf's ScatterSub / ScatterMax: no outputs, var updated; the kernel's y is x's address."""
    for compute in (
        "index_add(var, 0, indices, updates, -1)",
        'index_reduce(var, 0, indices, updates, "amax")',
    ):
        raw = index_op_raw({"var": compute}, inputs=SCATTER_INPUTS, outputs=[])
        raw.pop("output_desc")
        plan = index_op.plan(load(raw))
        assert plan.gm_args == ["var", "indices", "updates", "var"]
        assert plan.template_args == ["DTYPE_VAR", "DTYPE_INDICES"]
    raw = index_op_raw({"updates": "index_add(var, 0, indices, updates)"}, inputs=SCATTER_INPUTS)
    raw.pop("output_desc")
    assert problems(raw) == [
        "$[0].opgen.compute.updates: compute expression: index_add(var, 0, indices, updates) "
        "updates updates, an input without an output: an index op updates its x in place (var = "
        "index_add(var, 0, indices, updates))"
    ]


def test_an_unread_optional_attr_of_an_index_op_keeps_its_default():
    """tf's use_locking, which no index call reads: opgen warns, and the adapters refuse another
    value (the index op's shell keeps its call apart, so it knows the attr is unread)."""
    lock = {"name": "use_locking", "param_type": "optional", "type": "bool", "default_value": False}
    raw = index_op_raw(
        {"var": "index_reduce(var, 0, indices, updates, 'amin')"},
        inputs=SCATTER_INPUTS,
        outputs=[],
        attrs=[lock],
    )
    raw.pop("output_desc")
    proto = prototype.loads(json.dumps([raw]))
    assert [a.name for a in proto.ops[0].fixed_attrs] == ["use_locking"]
    rendered = twin.render_files(proto, twin.options(), full=True)
    files = {f.path: f.content.decode() for f in rendered}
    cpu = next(t for p, t in files.items() if p.endswith("/csrc/ops.cpp"))
    assert 'FixedAttr<bool>("IndexCustom", "use_locking", use_locking, false)' in cpu
    assert "scatter_max" not in cpu and "(Tensor(a!) var, Tensor indices, Tensor updates" in cpu
    kernel = files["op_kernel/index_custom.cpp"]
    assert (
        "opgen_index::IndexReduce<DTYPE_VAR, DTYPE_INDICES>(var, indices, updates, var," in kernel
    )


def test_roll_takes_every_dtype_the_byte_moves_take():
    """The corpus's aclnn_roll: list_int shifts and dims, 1/2/4/8-byte dtypes and complex64 (one
    8-byte word: a movement computes nothing, so the real-valued compute rule lets it through)."""
    raw = index_op_raw(
        {"y": "roll(x, shifts, dims)"},
        inputs=[tensor("x", MOVED)],
        outputs=[tensor("y", MOVED)],
        attrs=ROLL_LISTS,
    )
    raw["input_desc"][0]["format"] = raw["output_desc"][0]["format"] = ["ND"] * len(MOVED)
    roll = load(raw)
    assert index_ops.attr_sample(roll, "shifts") == [3, -2]  # two dims, a negative shift
    assert index_ops.attr_sample(roll, "dims") == [0, -1]
    plan = index_op.plan(roll)
    assert (plan.roll_shifts.getter, plan.roll_dims.getter) == ("GetListInt", "GetListInt")
    assert plan.template_args == ["XElement"] and not plan.has_dim and not plan.ints
    (alias,) = plan.aliases
    assert [(c.macro, c.ge, c.type) for c in alias.cases] == [
        ("ORIG_DTYPE_X", "DT_COMPLEX64", "uint64_t")
    ]
    files = {
        f.path: f.content.decode()
        for f in twin.render_files(prototype.loads(json.dumps([raw])), twin.options(), full=True)
    }
    host = files[f"op_host/{roll.snake_name}.cpp"]
    assert (
        "a.shiftCount = shifts != nullptr ? static_cast<uint32_t>(shifts->GetSize()) : 0;" in host
    )
    assert "a.rollDims[i] = dims->GetData()[i];" in host
    kernel = files[f"op_kernel/{roll.snake_name}.cpp"]
    assert "#if ORIG_DTYPE_X == DT_COMPLEX64\nusing XElement = uint64_t;" in kernel
    assert "opgen_index::Roll<XElement>(x, y, tilingData.index);" in kernel


def test_roll_with_an_int_attr_and_a_list_attr_samples_one_pair():
    attrs = [ROLL_LISTS[0], {"name": "d", "param_type": "required", "type": "int"}]
    roll = load(index_op_raw({"y": "roll(x, shifts, d)"}, inputs=[tensor("x")], attrs=attrs))
    assert index_ops.attr_sample(roll, "shifts") == [3]
    assert index_ops.attr_sample(roll, "d") == -1


def test_an_index_op_that_computes_still_refuses_complex():
    cx = ("complex64", "float")
    found = problems(
        index_op_raw({"y": "cumsum(x, 0)"}, inputs=[tensor("x", cx)], outputs=[tensor("y", cx)])
    )
    assert any("compute expressions are real-valued" in f for f in found), found
    found = problems(
        index_op_raw(
            {"y": "topk(x, 2).values"}, inputs=[tensor("x", cx)], outputs=[tensor("y", cx)]
        )
    )
    assert any("compute expressions are real-valued" in f for f in found), found


@pytest.mark.parametrize("compute", ["index_select(x, 0, ids)", "gather(x, -1, ids)"])
def test_index_select_and_gather_move_every_word_dtype(compute):
    """The library moves their rows and elements as words: bool, bytes, uint32, complex64 too."""
    moved = ("bool", "int16", "complex64", "int8", "uint8", "int64")
    raw = index_op_raw(
        {"y": compute},
        inputs=[tensor("x", moved), tensor("ids", ("int32",) * len(moved))],
        outputs=[tensor("y", moved)],
    )
    for t in (*raw["input_desc"], *raw["output_desc"]):
        t["format"] = ["ND"] * len(moved)
    plan = index_op.plan(load(raw))
    assert plan.template_args == ["XElement", "DTYPE_IDS"]


def test_gather_of_uint32_is_refused_for_want_of_a_golden():
    raw = index_op_raw(
        {"y": "gather(x, -1, ids)"},
        inputs=[tensor("x", ("uint32", "float")), tensor("ids", ("int32", "int32"))],
        outputs=[tensor("y", ("uint32", "float"))],
    )
    (found,) = problems(raw)
    assert found.startswith("$[0].input_desc[0].type[0]:")
    assert "(torch.gather, the golden, has no CPU kernel for uint32)" in found
    with pytest.raises(NotImplementedError):
        torch.gather(torch.zeros(2, 2, dtype=torch.uint32), 1, torch.zeros(2, 1, dtype=torch.long))


def test_roll_test_shapes_with_misaligned_literals_are_refused():
    raw = index_op_raw({"y": "roll(x, [1, 2], [0])"}, inputs=[tensor("x")])
    found = problems(raw)
    assert found and all("shifts and dims must align (torch): 2 shifts, 1 dims" in f for f in found)


def test_test_shapes_torch_refuses_are_refused():
    raw = index_op_raw({"y": "gather(x, 0, ids)"}, test_shapes=[{"x": [4, 5], "ids": [2, 9]}])
    (found,) = problems(raw)
    assert "$[0].opgen.test_shapes[0]" in found
    assert "opgen's Gather kernel takes an index ids of x's sizes off dim ([4, 5])" in found


def test_topk_and_sort_on_another_dim_than_the_last_are_refused():
    """The library sorts the last dim: a literal dim is -1; an attr dim is checked against every
    test shape (and by TileTopK/TileSort when the op runs)."""
    found = problems(index_op_raw({"y": "topk(x, 3, 0).values"}, outputs=[tensor("y")]))
    assert any(
        p.startswith("$[0].opgen.compute.y") and "TopK kernel sorts the last dim; write dim=-1" in p
        for p in found
    ), found
    attrs = [{"name": "d", "param_type": "required", "type": "int"}]
    only_x = {"inputs": [tensor("x")], "outputs": [tensor("y")]}
    raw = index_op_raw({"y": "sort(x, d).values"}, attrs=attrs, **only_x)
    assert load(raw).compute  # the attr's test value is -1: the last dim
    raw = index_op_raw({"y": "sort(x, d).values"}, attrs=attrs, **only_x)
    raw["attr"][0] = {**attrs[0], "param_type": "optional", "default_value": 0}
    found = problems(raw)[0]  # the tests would pass d=0
    assert "test_shapes[0]" in found and "Sort kernel sorts the last dim, not dim 0" in found
    load(index_op_raw({"y": "sort(x, -1).values"}, **only_x))


def test_sort_is_refused_on_310p_naming_the_api():
    raw = index_op_raw({"y": "sort(x, -1).values"}, inputs=[tensor("x")], outputs=[tensor("y")])
    proto = prototype.loads(json.dumps([raw]))
    with pytest.raises(PrototypeError) as err:
        twin.render_files(proto, twin.options(("ascend910b1", "ascend310p3")))
    (problem,) = err.value.problems
    assert problem.path == "$[0].opgen.compute.y"
    assert (
        "Sort kernel needs DataCopyPad (not on ascend310p), Sort32 and MrgSort (not on "
        "ascend310p)" in problem.text()
    )


@pytest.mark.parametrize(
    "compute, socs, missing",
    [
        # every kind copies rows of any length with DataCopyPad (the library's static_assert)
        (
            "index_select(x, 0, ids)",
            ("ascend910b1", "ascend910a"),
            "DataCopyPad (not on ascend910)",
        ),
        ("argmax(x, -1)", ("ascend950pr",), "ReduceMax/ReduceMin in float (not on ascend950)"),
    ],
)
def test_socs_lacking_a_kinds_api_are_refused(compute, socs, missing):
    outputs = [tensor("y", ("int64", "int64"))] if "argmax" in compute else None
    raw = index_op_raw({"y": compute}, outputs=outputs)
    proto = prototype.loads(json.dumps([raw]))
    with pytest.raises(PrototypeError) as err:
        twin.render_files(proto, twin.options(socs))
    (problem,) = err.value.problems
    assert missing in problem.text()


def test_every_index_function_names_what_exists():
    """Each registry entry's kernel template, Tile function and shape function are in the
    library's headers, and its torch spelling and parameters are torch's."""
    lib = ROOT / "templates"
    shapes = (lib / "host" / "index_lib" / "op_host" / "opgen_index_shapes.h").read_text()
    for fn in index_functions.FUNCTIONS.values():
        kernel = (
            lib / "kernel" / "index_lib" / "op_kernel" / f"opgen_index_{fn.group}.h"
        ).read_text()
        host = (
            lib / "host" / "index_lib" / "op_host" / f"opgen_index_{fn.group}_tiling.h"
        ).read_text()
        for kind, shape_fn in ((fn.kind, fn.shape_fn), (fn.nhwc_kind, fn.nhwc_shape_fn)):
            if kind:
                assert f"void {kind}(" in kernel, fn.name
                assert f"Tile{kind}(const HostArgs& a, IndexTiling& t)" in host, fn.name
                assert f"{shape_fn}(" in shapes, fn.name
        assert bool(fn.nhwc_kind) == bool(fn.nhwc_shape_fn), fn.name
        target = eval(fn.torch, {"torch": torch})  # noqa: S307 (the registry's own text)
        assert callable(target), fn.torch
        assert set(fn.needs) <= set(index_functions.CAPABILITY_APIS), fn.name
        assert set(fn.required) <= set(fn.params) and (not fn.dim or fn.dim in fn.params)
        # a slot no parameter fills holds its default (max pooling's unused count_include_pad)
        unfilled = [s for s, d in fn.ints if s.split("[")[0] not in fn.params and d is None]
        assert unfilled == [], fn.name


def test_default_test_shapes_and_index_range():
    op_ = load(index_op_raw({"y": "index_select(x, 0, ids)"}))
    assert op_.test_shapes[0] == {"x": (37, 70), "ids": (77,)}  # duplicates: 77 draws of 37
    assert index_ops.index_range(op_) == 1  # the 1x1 case
    hot = load(
        index_op_raw(
            {"y": "one_hot(ids, n)"},
            inputs=[tensor("ids", ("int64", "int32"))],
            outputs=[tensor("y", ("int64", "int32"))],
            attrs=[{"name": "n", "param_type": "required", "type": "int"}],
        )
    )
    assert index_ops.index_range(hot) == 7  # the tests' num_classes


def test_an_int_pooling_attr_is_sampled_as_an_int():
    """torch reads kernel_size=2 as 2x2; an int attr's test value must be an int, not [2, 2]
    (the corpus's average_pooling2d, written with an int kernel_size, failed its tests)."""
    attrs = [
        {"name": "ks", "param_type": "required", "type": "int"},
        {"name": "kl", "param_type": "required", "type": "list_int"},
    ]
    pool = load(index_op_raw({"y": "avg_pool2d(x, ks)"}, inputs=[tensor("x")], attrs=attrs[:1]))
    assert index_ops.attr_sample(pool, "ks") == 2
    pool_list = load(
        index_op_raw({"y": "avg_pool2d(x, kl)"}, inputs=[tensor("x")], attrs=attrs[1:])
    )
    assert index_ops.attr_sample(pool_list, "kl") == [2, 2]


# ---------------------------------------------------------------------------------------------
# the plan and the rendered files
# ---------------------------------------------------------------------------------------------


def test_a_channels_last_pooling_is_its_own_kind():
    """pool(x.permute(0, 3, 1, 2), ...).permute(0, 2, 3, 1): the NHWC kernel and shape function,
    the same ints as NCHW (stride the kernel's), NHWC default test shapes, torch's golden, and
    an x that is not 4-D refused in test_shapes as torch's permute refuses it."""
    attrs = [{"name": "kernel_size", "param_type": "required", "type": "int"}]
    text = "avg_pool2d(x.permute(0, 3, 1, 2), kernel_size).permute(0, 2, 3, 1)"
    pool = load(index_op_raw({"y": text}, inputs=[tensor("x")], attrs=attrs))
    plan = index_op.plan(pool)
    assert (plan.kind, plan.shape_fn, plan.group) == ("AvgPool2dNhwc", "ShapePool2dNhwc", "pool")
    assert [i.same_as for i in plan.ints[2:4]] == [0, 1]  # stride: the kernel's
    assert plan.expressions == [text]
    assert index_ops.attr_sample(pool, "kernel_size") == 2
    assert [c["x"] for c in pool.test_shapes] == [(2, 17, 19, 3), (1, 8, 8, 1), (2, 9, 10, 70)]
    for case in pool.test_shapes:
        x = torch.randn(case["x"])
        golden = eval(
            expr.to_torch(pool.compute["y"]), {"torch": torch}, {"x": x, "kernel_size": 2}
        )
        shape = index_ops.output_shape(pool.index_call, case, {"kernel_size": 2})
        assert shape == tuple(golden.shape)
    maxed = load(index_op_raw({"y": text.replace("avg", "max")}, inputs=[tensor("x")], attrs=attrs))
    assert index_op.plan(maxed).kind == "MaxPool2dNhwc"
    found = problems(
        index_op_raw({"y": text}, inputs=[tensor("x")], attrs=attrs, test_shapes=[{"x": [8, 8, 3]}])
    )
    assert any("takes x [N, H, W, C] (torch's permute), not [8, 8, 3]" in p for p in found), found


def test_the_plan_maps_arguments_to_the_librarys_ints():
    ops = {o.op_type: o for o in prototype.loads(E2E.read_text()).ops}
    topk = index_op.plan(ops["TopKAttr"])
    assert topk.kind == "TopK" and topk.group == "select"
    assert [(i.name, i.attr, i.getter, i.default) for i in topk.ints] == [
        ("k", "k", "GetInt", 4),
        ("largest", "largest", "GetBool", 1),
    ]
    assert topk.gm_args == ["x", "values", "indices"]
    assert topk.template_args == ["DTYPE_X", "DTYPE_INDICES"]
    pool = index_op.plan(ops["AvgPoolCustom"])
    assert [(i.name, i.item) for i in pool.ints[:6]] == [
        ("kernel_size[0]", 0),
        ("kernel_size[1]", 1),
        ("stride[0]", 0),
        ("stride[1]", 1),
        ("padding[0]", 0),
        ("padding[1]", 1),
    ]
    assert [i.literal for i in pool.ints[6:]] == [0, 1]  # ceil_mode, count_include_pad
    embed = index_op.plan(ops["EmbeddingLookup"])
    assert embed.gm_args == ["table", "ids", "y"] and embed.range_of == "table"
    inputs = [tensor("x"), tensor("ids", ("int32", "int64")), tensor("src")]
    add = index_op.plan(load(index_op_raw({"y": "index_add(x, 0, ids, src, -0.5)"}, inputs)))
    assert [(i.slot, i.literal) for i in add.ints] == [(0, 0), (1, -1090519040)]  # -0.5f's bits
    add = index_op.plan(load(index_op_raw({"y": "index_add(x, 0, ids, src, alpha=-3)"}, inputs)))
    assert [(i.slot, i.literal) for i in add.ints] == [(0, -3), (1, 0)]
    add = index_op.plan(load(index_op_raw({"y": "index_add(x, 0, ids, src)"}, inputs)))
    assert [(i.slot, i.literal) for i in add.ints] == [(0, 1), (1, 0)]  # torch's alpha=1
    red = index_op.plan(
        load(index_op_raw({"y": 'index_reduce(x, 0, ids, src, "amin", False)'}, inputs))
    )
    assert red.kind == "IndexReduce" and red.host_header == "opgen_index_reduce_tiling.h"
    assert [(i.slot, i.literal) for i in red.ints] == [(0, 1), (1, 0)]


def test_every_kind_renders_its_kernel_host_and_tests():
    proto = prototype.loads(E2E.read_text())
    files = {
        f.path: f.content.decode() for f in twin.render_files(proto, twin.options(), full=True)
    }
    for o in proto.ops:
        plan = index_op.plan(o)
        kernel = files[f"op_kernel/{o.snake_name}.cpp"]
        assert (
            f"opgen_index::{plan.kind}<" in kernel and f'#include "{plan.kernel_header}"' in kernel
        )
        host = files[f"op_host/{o.snake_name}.cpp"]
        assert f"opgen_index::Tile{plan.kind}(a, tiling->index)" in host
        assert f"opgen_index::{plan.shape_fn}(a, outShape)" in host
        assert "opgen_index::IndexTiling index;" in files[f"op_kernel/{o.snake_name}_tiling.h"]
        test = files[f"tests/test_{o.snake_name}.py"]
        assert ("def test_out_of_range_index_refused" in test) == bool(plan.range_tensor)
    cpu = next(t for p, t in files.items() if p.endswith("/csrc/ops.cpp"))
    assert cpu.count("TORCH_CHECK_INDEX(") == 5  # index_select, gather, scatter/index_add, one_hot
    assert "op_kernel/opgen_index_tiling.h" in files
    assert "op_host/opgen_index_shapes.h" in files


def test_a_project_without_index_ops_has_no_index_library():
    proto = prototype.loads((ROOT / "examples" / "gelu_custom.json").read_text())
    files = [f.path for f in twin.render_files(proto, twin.options(), full=True)]
    assert not [p for p in files if "opgen_index" in p]


def test_every_library_file_carries_the_generated_mark():
    """The library is opgen's (owner "generated"), never the user's to edit."""
    for root in ("kernel/index_lib/op_kernel", "host/index_lib/op_host"):
        for path in (ROOT / "templates" / root).iterdir():
            head = path.read_text()[:400]
            assert "Code generated by opgen" in head and "DO NOT EDIT" in head, path


def test_the_rendered_files_are_tidy():
    from test_kernel_host_render import assert_tidy

    proto = prototype.loads(E2E.read_text())
    files = {f.path: f.content.decode() for f in twin.render_files(proto, twin.options())}
    snakes = [o.snake_name for o in proto.ops]
    assert_tidy({p: t for p, t in files.items() if any(s in p for s in snakes)})


# ---------------------------------------------------------------------------------------------
# the softmax row prologue (topk(softmax(x, dim=-1), k)): TopK/Sort's RowPrologue::kSoftmax
# ---------------------------------------------------------------------------------------------

LONGHAND = index_functions.SOFTMAX_LONGHAND.format(x="x")


@pytest.mark.parametrize(
    "text",
    [
        "topk(softmax(x, dim=-1), k).values",
        "topk(softmax(x, -1), k).values",
        f"topk({LONGHAND}, k).values",
    ],
)
def test_softmax_before_topk_is_a_prologue(text):
    node = parse(text)
    assert isinstance(node, expr.IndexCall)
    assert (node.x, node.prologue) == ("x", "softmax")
    assert expr.show(node) == "topk(softmax(x, dim=-1), k).values"
    golden = expr.to_torch(node)
    assert golden.startswith("torch.sort(torch.softmax(x, dim=-1), dim=-1, descending=True")
    x = torch.tensor([[0.5, 2.0, -1.0, 2.0, 0.25]])
    got = eval(golden, {"torch": torch, "x": x, "k": 3})  # noqa: S307 (the golden's text)
    assert torch.equal(got, torch.topk(torch.softmax(x, -1), 3).values)
    assert expr.to_torch(parse("sort(softmax(x, dim=-1)).indices")) == (
        "torch.sort(torch.softmax(x, dim=-1), stable=True).indices"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("topk(softmax(x, dim=0), k).values", "softmax over the last dim, the one topk() sorts"),
        ("topk(softmax(x), k).values", "topk() takes an input as its x, or softmax(input, dim=-1)"),
        ("topk(softmax(x * 2, -1), k).values", "softmax(input, dim=-1)"),
        ("topk(x * 2, k).values", "a row prologue its kernel computes"),
        (f"topk({LONGHAND.replace('-1', '0')}, k).values", "not 'exp(x - amax(x, dim=0"),
        ("softmax(x, -1)", "supported as the x of topk() or sort() only"),
        ("argmax(softmax(x, -1), 1)", "supported as the x of topk() or sort() only"),
        ("topk(softmax(x, -1), k).values * 2", None),  # an epilogue: index_problems refuses it
    ],
)
def test_softmax_elsewhere_is_refused(text, message):
    if message is None:
        raw = index_op_raw({"y": text}, inputs=[tensor("x")], attrs=[_K])
        assert "epilogue after an index op is not supported" in problems(raw)[0]
        return
    with pytest.raises(expr.ExprError) as err:
        parse(text)
    assert message in str(err.value), str(err.value)


_K = {"name": "k", "param_type": "optional", "type": "int", "default_value": 4}


def _softmax_topk_raw() -> dict:
    return index_op_raw(
        {"y": "topk(softmax(x, dim=-1), k).values", "i": "topk(softmax(x, dim=-1), k).indices"},
        inputs=[tensor("x")],
        outputs=[tensor("y"), tensor("i", ("int32", "int32"))],
        attrs=[_K],
    )


def test_softmax_topk_plans_the_prologue_as_a_template_argument():
    plan = index_op.plan(load(_softmax_topk_raw()))
    assert plan.kind == "TopK"
    assert plan.template_args == ["DTYPE_X", "DTYPE_I", "opgen_index::RowPrologue::kSoftmax"]
    files = {
        f.path: f.content.decode()
        for f in twin.render_files(
            prototype.loads(json.dumps([_softmax_topk_raw()])), twin.options()
        )
    }
    kernel = files["op_kernel/index_custom.cpp"]
    assert "opgen_index::RowPrologue::kSoftmax>" in kernel
    assert "y = topk(softmax(x, dim=-1), k).values" in kernel


def test_softmax_topk_is_refused_where_the_float_reductions_are_missing():
    """Ascend 950 has Sort32 but (in opgen's catalog) not the float ReduceMax/ReduceSum."""
    proto = prototype.loads(json.dumps([_softmax_topk_raw()]))
    with pytest.raises(PrototypeError) as err:
        twin.render_files(proto, twin.options(("ascend950pr",)))
    (problem,) = err.value.problems
    assert (
        "topk(softmax(x, dim=-1), k).values: the index library's TopK kernel with its softmax "
        "prologue needs ReduceMax/ReduceMin in float (not on ascend950)" in problem.text()
    )
    plain = index_op_raw({"y": "topk(x, k).values"}, inputs=[tensor("x")], attrs=[_K])
    twin.render_files(prototype.loads(json.dumps([plain])), twin.options(("ascend950pr",)))


# ---------------------------------------------------------------------------------------------
# max/min along a dim (torch.max(x, dim): values and indices) and integer x for the arg kinds
# ---------------------------------------------------------------------------------------------

ARG_INT_DTYPES = ("float", "fp16", "int32", "uint8", "int8", "int16")


def typed(name: str, dtypes: tuple[str, ...]) -> dict:
    return {"name": name, "param_type": "required", "format": ["ND"] * len(dtypes), "type": dtypes}


DIM_ATTRS = [
    {"name": "d", "param_type": "required", "type": "int"},
    {"name": "big", "param_type": "optional", "type": "bool", "default_value": False},
]


def test_max_gives_values_and_indices_of_every_arg_dtype():
    """The corpus's ArgMaxWithValue: one call, .indices (int32) and .values (x's dtype) to two
    outputs; the kernel gets x, values, indices (the library's order), TOut the index's."""
    raw = index_op_raw(
        {"i": "max(x, d, big).indices", "v": "max(x, d, big).values"},
        inputs=[typed("x", ARG_INT_DTYPES)],
        outputs=[typed("i", ("int32",) * 6), typed("v", ARG_INT_DTYPES)],
        attrs=DIM_ATTRS,
    )
    plan = index_op.plan(load(raw))
    assert (plan.kind, plan.group, plan.shape_fn) == ("MaxDim", "select", "ShapeArgReduce")
    assert plan.gm_args == ["x", "v", "i"] and plan.template_args == ["DTYPE_X", "DTYPE_I"]
    assert plan.parts and plan.has_index_output and plan.index_output == 0
    assert [(i.name, i.attr, i.getter) for i in plan.ints] == [("keepdim", "big", "GetBool")]


def test_min_values_alone_passes_no_indices():
    raw = index_op_raw(
        {"v": "min(x, 0).values"}, inputs=[typed("x", ("int32",))], outputs=[typed("v", ("int32",))]
    )
    proto = prototype.loads(json.dumps([raw]))
    plan = index_op.plan(proto.ops[0])
    assert plan.gm_args == ["x", "v", "nullptr"] and plan.template_args == ["DTYPE_X", "int32_t"]
    files = {f.path: f.content.decode() for f in twin.render_files(proto, twin.options())}
    host = files[f"op_host/{proto.ops[0].snake_name}.cpp"]
    assert "a.outBytes = 4;  // .values alone" in host


@pytest.mark.parametrize(
    ("compute", "x", "out", "message"),
    [
        (
            "max(x, 0).values",
            ("int32",),
            ("int64",),
            "max(x, 0).values of x int32 is int32 (as torch computes it), not int64",
        ),
        (
            "min(x, 0).indices",
            ("uint8",),
            ("uint8",),
            "min(x, 0).indices of x uint8 is int32 or int64 (as torch computes it), not uint8",
        ),
        (
            "max(x, 0).values",
            ("int64",),
            ("int64",),
            "max(x, 0).values takes x in float16, bfloat16, float32, int8, uint8, int16, int32, "
            "not int64",
        ),
        (
            "argmin(x, 0)",
            ("bool",),
            ("int64",),
            "argmin(x, 0) takes x in float16, bfloat16, float32, int8, uint8, int16, int32, "
            "not bool",
        ),
        (
            "topk(x, 2).values",
            ("int32",),
            ("int32",),
            "topk(x, 2).values takes x in float16, bfloat16, float32, int8, uint8, int16, "
            "not int32",
        ),
    ],
)
def test_max_min_dtype_rules(compute, x, out, message):
    raw = index_op_raw({"y": compute}, inputs=[typed("x", x)], outputs=[typed("y", out)])
    found = problems(raw)
    assert any(message in f for f in found), found


@pytest.mark.parametrize("compute", ["argmin(x, -1)", "argmax(x, 0, True)"])
def test_arg_kinds_take_integer_x(compute):
    raw = index_op_raw(
        {"y": compute}, inputs=[typed("x", ARG_INT_DTYPES)], outputs=[typed("y", ("int64",) * 6)]
    )
    assert index_op.plan(load(raw)).template_args == ["DTYPE_X", "DTYPE_Y"]


def test_max_parts_come_from_one_call():
    raw = index_op_raw(
        {"v": "max(x, 0).values", "i": "min(x, 0).indices"},
        inputs=[typed("x", ("float",))],
        outputs=[typed("v", ("float",)), typed("i", ("int64",))],
    )
    (found,) = problems(raw)
    assert "min(x, 0).indices beside max(x, 0).values (v): an op computes one index call" in found


def test_softmax_prologue_of_an_int_x_is_refused():
    raw = index_op_raw(
        {"y": "topk(softmax(x, dim=-1), 2).values"},
        inputs=[typed("x", ("float", "int8"))],
        outputs=[typed("y", ("float", "int8"))],
    )
    (found,) = problems(raw)
    assert found.startswith("$[0].input_desc[0].type[1]:")
    assert "softmax of x int8: torch.softmax takes float16, bfloat16 or float32 only" in found


def test_topk_and_sort_take_small_ints():
    for compute in ("topk(x, 2).values", "sort(x).values"):
        dtypes = ("int8", "uint8", "int16")
        raw = index_op_raw(
            {"y": compute}, inputs=[typed("x", dtypes)], outputs=[typed("y", dtypes)]
        )
        assert index_op.plan(load(raw)).gm_args == ["x", "y", "nullptr"]
