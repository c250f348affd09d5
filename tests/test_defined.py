"""The part of an output an op defines ("opgen": {"defined"}, frontend/defined.py): the
prototype's checks, the index the generated tests get, and the generated check_precision
comparing that part only (run here on a stand-in op, with the rendered op_testing.py)."""

from __future__ import annotations

import importlib
import json
import re
import sys
import types
from pathlib import Path

import pytest
import torch
from test_generated_suite import check_clean, rendered_tests
from typer.testing import CliRunner

from opgen.cli import app
from opgen.frontend.defined import index_of, subscript_problem
from opgen.literals import py_value


def reduce_proto(**opgen) -> list[dict]:
    """ReduceCustom as the Ascend sample writes it: the sum in element 0 of a [32] output."""
    tensor = {"param_type": "required", "format": ["ND", "ND"], "type": ["float16", "float32"]}
    return [
        {
            "op": "ReduceCustom",
            "input_desc": [{"name": "x", **tensor}],
            "output_desc": [{"name": "z", **tensor}],
            "opgen": {
                "golden": {"z": "torch.nn.functional.pad(x.sum().reshape(1), (0, 31))"},
                "test_shapes": [{"x": [128]}],
                **opgen,
            },
        }
    ]


def validate(tmp_path: Path, ops: list[dict]):
    path = tmp_path / "proto.json"
    path.write_text(json.dumps(ops))
    return CliRunner().invoke(app, ["validate", str(path)])


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("[:1]", "(slice(None, 1),)"),
        (" [0] ", "(0,)"),
        ("[..., -4:]", "(Ellipsis, slice(-4, None))"),
        ("[1:9:2, 0]", "(slice(1, 9, 2), 0)"),
        ("[:]", "(slice(None, None),)"),
    ],
)
def test_a_subscript_becomes_the_index_it_stands_for(text, index):
    assert subscript_problem(text) == ""
    assert py_value(index_of(text)) == index
    t = torch.arange(2 * 10).reshape(2, 10) if "," in text else torch.arange(10)
    assert torch.equal(t[eval(index)], eval("t" + text.strip()))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("0", "not a subscript in brackets"),
        ("[x]", "'x' is neither an integer, a slice nor '...'"),
        ("[:n]", "a slice's bounds and step must be integers"),
        ("[::0]", "a slice's step must be positive"),
        ("[::-1]", "a slice's step must be positive"),
        ("[..., ...]", "'...' may appear once"),
        ("[True]", "'True' is neither an integer, a slice nor '...'"),
        ("[__import__('os')]", "is neither an integer, a slice nor '...'"),
        ("[:1", "not a subscript in brackets"),
        ("[1][2]", "not one subscript"),
    ],
)
def test_what_a_subscript_may_not_hold(text, why):
    assert why in subscript_problem(text)


@pytest.mark.parametrize(
    ("opgen", "path", "message"),
    [
        ({"defined": {"y": "[:1]"}}, "$[0].opgen.defined.y", "'y' is not an output of this op"),
        ({"defined": {"z": "[x]"}}, "$[0].opgen.defined.z", "write a subscript of integers"),
        ({"defined": {"z": 1}}, "$[0].opgen.defined.z", "must be a string"),
        (
            {"defined": {"z": "[:1]"}, "compute": {"z": "x + 1"}},
            "$[0].opgen.defined",
            "defines every element",
        ),
    ],
)
def test_a_wrong_defined_is_named_and_refused(tmp_path, opgen, path, message):
    result = validate(tmp_path, reduce_proto(**opgen))
    assert result.exit_code == 2, result.output
    text = " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split())  # the box's lines wrap
    assert path in text and message in text, result.output
    assert "Traceback" not in result.output


def test_the_generated_tests_compare_the_defined_part(tmp_path):
    files = rendered_tests(json.dumps(reduce_proto(defined={"z": "[:1]"})), tmp_path)
    check_clean(tmp_path, files)
    test_file = (tmp_path / "tests" / "test_reduce_custom.py").read_text()
    assert 'Output("z", returned=0, defined="[:1]", index=(slice(None, 1),))' in test_file
    assert "the op defines only z[:1]" in test_file
    # opcheck's AOT check compares every element (NaN unequal to NaN): skipped, saying why,
    # and torch.compile against eager (NaN equal) checks the op's tracing instead
    assert re.search(
        r"UNDEFINED_PART = pytest.mark.skip\(\s*reason=\(\s*"
        r"'ReduceCustom: z is undefined outside z\[:1\]",
        test_file,
    )
    assert '"test_aot_dispatch_dynamic", marks=[KERNEL_UNWRITTEN, UNDEFINED_PART]' in test_file
    assert "def test_compile(dtypes):\n" in test_file
    whole = tmp_path / "whole"
    rendered_tests(json.dumps(reduce_proto()), whole)
    whole_file = (whole / "tests" / "test_reduce_custom.py").read_text()
    assert 'Output("z", returned=0),' in whole_file
    assert "UNDEFINED_PART" not in whole_file and "def test_compile" not in whole_file


@pytest.fixture
def op_testing(tmp_path, monkeypatch):
    """The rendered tests/op_testing.py, its package (the op's compiled extension) stood in
    for by an empty module."""
    rendered_tests(json.dumps(reduce_proto(defined={"z": "[:1]"})), tmp_path, package="pkg")
    monkeypatch.setitem(sys.modules, "pkg", types.ModuleType("pkg"))
    monkeypatch.syspath_prepend(str(tmp_path / "tests"))
    for name in ("op_testing", "precision"):
        sys.modules.pop(name, None)
    module = importlib.import_module("op_testing")
    yield module
    for name in ("op_testing", "precision"):
        sys.modules.pop(name, None)


def stand_in(op_testing, kernel):
    """A ReduceCustom spec whose op is `kernel` (x -> [32] output) and whose golden is the sum
    padded with zeros."""

    def golden(x):
        return torch.nn.functional.pad(x.double().sum().reshape(1), (0, 31))

    return types.SimpleNamespace(
        op_type="ReduceCustom",
        outputs=[op_testing.Output("z", returned=0, defined="[:1]", index=(slice(None, 1),))],
        precision_level="L0",
        make_args=lambda dtypes, shape, layout=None, device=None: [
            torch.rand(shape, generator=torch.Generator().manual_seed(0)).to(dtypes[0])
        ],
        golden_outputs=lambda args: [golden(args[0])],
        benchmark_outputs=lambda args, dtypes: ([[golden(args[0]).to(dtypes[0])]], ""),
        run=lambda args: [kernel(args[0])],
    )


def test_only_the_defined_part_is_compared(op_testing):
    def defined_first(x):  # the sum in element 0, the rest what the vector unit left there
        return torch.cat([x.sum().reshape(1), torch.full((31,), float("nan"))]).to(x.dtype)

    dtypes = ((torch.float32,), (torch.float32,))
    op_testing.check_precision(stand_in(op_testing, defined_first), dtypes, (128,))

    def wrong_first(x):
        return torch.cat([x.sum().reshape(1) + 1, torch.zeros(31)]).to(x.dtype)

    with pytest.raises(AssertionError, match=r"ReduceCustom output z\[:1\]"):
        op_testing.check_precision(stand_in(op_testing, wrong_first), dtypes, (128,))
