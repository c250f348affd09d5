"""The rendered PyTorch package (templates/torch_ext): Python that compiles and passes ruff,
schemas PyTorch parses, aclnn and converter arguments in the right order, ops.py's fake kernels
and golden backwards under opcheck, the NPU adapters against real torch_npu headers, and a built
CPU extension running a kernel on the twin.

The NPU compile test needs torch_npu's headers: in this interpreter, or in the venv whose Python
OPGEN_NPU_PYTHON names (torch-npu installed there with --no-deps); otherwise it is skipped.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import EXAMPLES, SHARED_PROTOS, render_files
from torch_ext import protos

from opgen import resources
from opgen.frontend import prototype
from opgen.frontend.options import Options
from opgen.planning import plan_project

RUFF = Path(sys.executable).with_name("ruff")
RUFF_ARGS = [
    "--no-cache",
    "--select",
    "E,F,W,I,B,UP",
    "--line-length",
    "100",
    "--target-version",
    "py310",
]
SOURCES = sorted(EXAMPLES.glob("*.json")) + sorted(SHARED_PROTOS.glob("*.json"))


def write(files, directory: Path) -> Path:
    for f in files:
        path = directory / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f.content)
    return directory


def rendered(proto_text: str, directory: Path, package: str, namespace: str | None = None):
    proto = prototype.loads(proto_text)
    options = Options(package=package, namespace=namespace or package, vendor=package)
    files = render_files(proto, options, resources.templates_dir())
    return proto, options, files, write(files, directory)


@pytest.fixture(scope="module")
def kitchen_sink(tmp_path_factory):
    """Every argument kind, in-place outputs, two outputs, no-aclnn and not-elementwise ops."""
    directory = tmp_path_factory.mktemp("kitchen_sink")
    return rendered(protos.text(protos.KITCHEN_SINK), directory, "sink_ops", "opgen_sink")


def cpp_unescape(literal: str) -> str:
    """The text of a C++ string literal as opgen.literals.cpp_string writes it."""
    body = literal[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] in "01234567":
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
            else:
                out += body[i + 1].encode()
                i += 2
        else:
            out += body[i].encode()
            i += 1
    return out.decode("utf-8")


# ---------------------------------------------------------------------------------------------
# rendering
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_examples_render_clean_python(source, tmp_path):
    proto, options, files, directory = rendered(source.read_text(), tmp_path, "pkg")
    package = directory / "pkg"
    owners = {f.path: f.owner for f in files}
    for op in proto.ops:
        assert owners[f"pkg/overrides/{op.snake_name}.py"] == "user"
        assert owners[f"pkg/csrc_npu/{op.snake_name}_npu.cpp"] == "generated"
        for combo in op.dtype_combinations:
            name = combo[0] if len(set(combo)) == 1 else "_".join(combo)
            assert owners[f"pkg/csrc/{op.snake_name}_{name}.cpp"] == "generated"
    for path in (
        "setup.py",
        "pyproject.toml",
        "pkg/__init__.py",
        "pkg/_support.py",
        "pkg/ops.py",
        "pkg/golden.py",
        "pkg/graph.py",
        "pkg/csrc/ops.cpp",
        "pkg/csrc/opgen_torch.h",
        "pkg/csrc_npu/opgen_npu.h",
    ):
        assert owners[path] == "generated", path
    check_python(directory, [package, directory / "setup.py"])


def test_ops_py_holds_the_ops_and_support_py_the_shared_helpers(tmp_path):
    """ops.py of a two-op project is imports and ops: every def in it belongs to an op; the
    helpers the ops share are generated once, in _support.py, and imported from there."""
    ops = [
        op
        for name in ("gelu_custom.json", "leaky_relu_custom.json")
        for op in as_list(json.loads((EXAMPLES / name).read_text()))
    ]
    proto, _, files, directory = rendered(json.dumps(ops), tmp_path, "pkg")
    assert len(proto.ops) == 2
    owners = {f.path: f.owner for f in files}
    assert owners["pkg/_support.py"] == "generated"
    support = (directory / "pkg/_support.py").read_text()
    assert "DO NOT EDIT" in support.splitlines()[0]
    assert ast.get_docstring(ast.parse(support))
    op_defs = {name for op in proto.ops for name in (op.snake_name, f"_{op.snake_name}_fake")}
    for module in ("ops", "golden"):
        tree = ast.parse((directory / f"pkg/{module}.py").read_text())
        defs = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        if module == "golden":
            op_defs = {
                name for op in proto.ops for name in (op.snake_name, f"{op.snake_name}_formula")
            }
        assert defs == op_defs, module
        imported = {
            alias.name
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module == "_support"
            for alias in node.names
        }
        assert imported, module
        assert all(f"def {name}(" in support for name in imported), module
    check_python(directory, [directory / "pkg"])


def as_list(value):
    return value if isinstance(value, list) else [value]


def test_kitchen_sink_renders_clean_python(kitchen_sink):
    _, _, _, directory = kitchen_sink
    check_python(directory, [directory / "sink_ops", directory / "setup.py"])


def check_python(directory: Path, paths: list[Path]) -> None:
    files = [str(p) for path in paths for p in ([path] if path.is_file() else path.rglob("*.py"))]
    result = subprocess.run(
        [sys.executable, "-m", "py_compile", *files], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    result = subprocess.run(
        [str(RUFF), "check", *RUFF_ARGS, *files], capture_output=True, text=True, cwd=directory
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_schemas_parse(kitchen_sink):
    torch = pytest.importorskip("torch")
    proto, _, _, directory = kitchen_sink
    ops_cpp = (directory / "sink_ops/csrc/ops.cpp").read_text()
    literals = re.findall(r'^    m\.def\(("(?:[^"\\]|\\.)*")\);$', ops_cpp, re.M)
    assert [cpp_unescape(s) for s in literals] == [op.torch_schema for op in proto.ops]
    for op in proto.ops:
        schema = torch._C.parse_schema(op.torch_schema)
        assert [a.name for a in schema.arguments] == (
            [t.name for t in op.inputs] + [a.name for a in op.attrs]
        )
    # The string default survives the C++ escaping and PyTorch's schema parser.
    mode = torch._C.parse_schema(proto.ops[0].torch_schema).arguments[5]
    assert mode.default_value == 'say "hi"\\ \u00e9\n'


def test_cpu_kernels_registered_for_every_op(kitchen_sink):
    proto, _, _, directory = kitchen_sink
    ops_cpp = (directory / "sink_ops/csrc/ops.cpp").read_text()
    impls = re.findall(r'm\.impl\("(\w+)", &(\w+)\);', ops_cpp)
    assert impls == [(op.snake_name, f"{op.snake_name}_cpu") for op in proto.ops]
    setup_py = (directory / "setup.py").read_text()
    for op in proto.ops:
        assert f'"op_host/{op.snake_name}.cpp"' in setup_py
        for combo in op.dtype_combinations:
            name = combo[0] if len(set(combo)) == 1 else "_".join(combo)
            assert f'/csrc/{op.snake_name}_{name}.cpp"' in setup_py
            variant = (directory / f"sink_ops/csrc/{op.snake_name}_{name}.cpp").read_text()
            assert f'#include "{op.snake_name}.cpp"' in variant


def test_aclnn_calls_follow_the_aclnn_signature(kitchen_sink):
    proto, _, _, directory = kitchen_sink
    setup_py = (directory / "setup.py").read_text()
    for op in proto.ops:
        adapter = (directory / f"sink_ops/csrc_npu/{op.snake_name}_npu.cpp").read_text()
        if op.aclnn is None:
            assert "EXEC_NPU_CMD_EXT" not in adapter
            comment = " ".join(line.removeprefix("// ") for line in adapter.splitlines())
            assert op.aclnn_missing_reason in comment
            assert f"{op.snake_name}_npu.cpp" not in setup_py
            continue
        (call,) = re.findall(r"EXEC_NPU_CMD_EXT\((\w+), ([^;]*)\);", adapter)
        assert call[0] == op.aclnn.name
        args = [re.sub(r"(_list)?_$", "", a.strip()) for a in call[1].split(",")]
        assert args == [a.name for a in op.aclnn.args], op.op_type
        assert "PrivateUse1" in adapter and "OptionalDeviceGuard" in adapter


# ---------------------------------------------------------------------------------------------
# torchair converters, against a stand-in torchair
# ---------------------------------------------------------------------------------------------


class FakeGe:
    """torchair.ge as far as the converters use it: records custom_op calls."""

    def __init__(self):
        self.calls = []
        self.attr = type("attr", (), {})()
        for kind in (
            "Int",
            "Float",
            "Bool",
            "Str",
            "ListInt",
            "ListFloat",
            "ListBool",
            "ListListInt",
        ):
            setattr(self.attr, kind, lambda value, kind=kind: (kind, value))

    def custom_op(self, op_type, *, inputs, outputs, attrs=None):
        self.calls.append(
            {"op_type": op_type, "inputs": inputs, "outputs": outputs, "attrs": attrs or {}}
        )
        names = [o if isinstance(o, str) else o[0] for o in outputs]
        results = tuple(f"{op_type}:{n}" for n in names)
        return results[0] if len(results) == 1 else results


def load_package(directory: Path, package: str, proto, namespace: str, monkeypatch):
    """Import the rendered package with `_C` replaced by a module that defines the schemas
    (the C++ extension is not built here)."""
    stub = ["import torch", f"_lib = torch.library.Library({namespace!r}, 'DEF')"]
    stub += [f"_lib.define({op.torch_schema!r})" for op in proto.ops]
    (directory / package / "_C.py").write_text("\n".join(stub) + "\n")
    monkeypatch.syspath_prepend(str(directory))
    return importlib.import_module(package)


@pytest.fixture(scope="module")
def sink_package(kitchen_sink):
    proto, _, _, directory = kitchen_sink
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield proto, load_package(directory, "sink_ops", proto, "opgen_sink", monkeypatch)


def test_converters_by_meaning(sink_package, monkeypatch):
    proto, package = sink_package
    ge = FakeGe()
    registered = {}
    torchair = type(sys)("torchair")
    torchair.ge = ge
    torchair.register_fx_node_ge_converter = lambda op: (
        lambda fn: registered.setdefault(str(op), fn)
    )
    ge_module = type(sys)("torchair.ge")
    ge_module.Tensor, ge_module.TensorSpec = object, object
    monkeypatch.setitem(sys.modules, "torchair", torchair)
    monkeypatch.setitem(sys.modules, "torchair.ge", ge_module)
    torchair.ge = ge
    graph = importlib.import_module("sink_ops.graph")
    assert graph is not None
    for op in proto.ops:
        converter = registered[f"opgen_sink.{op.snake_name}.default"]
        args = {t.name: f"tensor:{t.name}" for t in op.inputs}
        args.update({a.name: f"value:{a.name}" for a in op.attrs})
        dynamic = any(o.param_type == "dynamic" for o in op.outputs)
        if dynamic:  # torchair passes the fake outputs when the converter asks for them
            args["meta_outputs"] = ["spec0", "spec1", "spec2"]
        result = converter(**args)
        call = ge.calls[-1]
        assert call["op_type"] == op.op_type
        assert list(call["inputs"].items()) == [(t.name, f"tensor:{t.name}") for t in op.inputs]
        assert [(k, v[1]) for k, v in call["attrs"].items()] == [
            (a.name, f"value:{a.name}") for a in op.attrs
        ]
        assert [kind for kind, _ in call["attrs"].values()] == [
            {
                "int": "Int",
                "float": "Float",
                "bool": "Bool",
                "string": "Str",
                "list_int": "ListInt",
                "list_float": "ListFloat",
                "list_bool": "ListBool",
                "list_list_int": "ListListInt",
            }[a.type]
            for a in op.attrs
        ]
        assert call["outputs"] == [
            (o.name, 3) if o.param_type == "dynamic" else o.name for o in op.outputs
        ]
        returned = [f"{op.op_type}:{o.name}" for o in op.outputs if not o.is_ref]
        assert result == (
            None if not returned else returned[0] if len(returned) == 1 else tuple(returned)
        )


# ---------------------------------------------------------------------------------------------
# ops.py: fake kernels and golden backwards under opcheck (CPU kernels in Python here)
# ---------------------------------------------------------------------------------------------


def python_cpu_kernel(package, op):
    """A CPU kernel from the golden: what the twin computes, up to rounding."""
    import torch

    returned = [i for i, o in enumerate(op.outputs) if not o.is_ref]
    # (golden result, input it updates); an op without outputs: the inputs it overwrites
    refs = [
        (i, [t.name for t in op.inputs].index(o.name)) for i, o in enumerate(op.results) if o.is_ref
    ]
    table = getattr(package.ops, f"_{op.snake_name.upper()}_DTYPES")

    def kernel(*args):  # trailing arguments equal to their defaults may be left out
        inputs = list(args[: len(op.inputs)]) + [None] * (len(op.inputs) - len(args))
        dtypes = package._support._output_dtypes(op.op_type, table, *inputs)
        results = getattr(package.golden, op.snake_name)(*args)
        results = results if isinstance(results, tuple) else (results,)
        for out, arg in refs:
            args[arg].copy_(results[out].to(args[arg].dtype))
        outs = [results[i].to(dtypes[i]).contiguous() for i in returned]
        return None if not outs else outs[0] if len(outs) == 1 else tuple(outs)

    registered = package.__dict__.setdefault("_test_kernels", set())
    if op.snake_name not in registered:
        registered.add(op.snake_name)
        lib = package.__dict__.setdefault("_test_lib", torch.library.Library("opgen_sink", "IMPL"))
        torch.library.impl(f"opgen_sink::{op.snake_name}", "CPU", func=kernel, lib=lib)


@pytest.mark.parametrize(
    "op_type, make_args",
    [
        (
            "AllAttrsCustom",
            lambda t: [
                (t.randn(3, 5),),
                (t.randn(3, 5, dtype=t.float16),),
                # the string and list attrs no compute reads: their defaults (another value is
                # refused: test_unread_string_and_list_attrs_are_refused_on_meta)
                (
                    t.randn(4),
                    t.randn(4),
                    2.0,
                    1,
                    False,
                    'say "hi"\\ \u00e9\n',
                    [1, 2],
                    [0.25],
                    [True, False],
                ),
            ],
        ),
        (
            "SplitSignCustom",
            lambda t: [
                (t.randn(3, 5), t.randn(3, 5)),
                (t.randn(2, dtype=t.float16), t.randn(2, dtype=t.float16)),
            ],
        ),
        ("AccumulateCustom", lambda t: [(t.randn(3, 5), t.randn(3, 5), 0.25)]),
        ("ScaleInplaceCustom", lambda t: [(t.randn(3, 5),)]),
        ("ScatterMaxCustom", lambda t: [(t.randn(3, 5), t.randn(3, 5), 0.5)]),
        ("AddcdivCustom", lambda t: [(t.randn(3, 5), t.randn(3, 5), t.rand(3, 5) + 1, 0.25)]),
        ("RowSumCustom", lambda t: [(t.randn(3, 5),), (t.randn(3, 5), 0)]),
        ("ShadowCustom", lambda t: [(t.randn(6), t.randn(6), 3.0)]),
    ],
)
def test_opcheck_with_golden_kernels(sink_package, op_type, make_args):
    torch = pytest.importorskip("torch")
    proto, package = sink_package
    op = next(o for o in proto.ops if o.op_type == op_type)
    python_cpu_kernel(package, op)
    overload = getattr(torch.ops.opgen_sink, op.snake_name).default
    updated = [i for i, t in enumerate(op.inputs) if t.is_ref]
    for args in make_args(torch):
        torch.library.opcheck(overload, args)
        grad_args = [
            a.clone().requires_grad_()
            if isinstance(a, torch.Tensor) and a.is_floating_point()
            else a
            for a in args
        ]
        # an input updated in place is a copy of a leaf (x0.clone()), as torch's x.add_(y)
        # refuses a leaf that requires grad
        grad_args = [a.clone() if i in updated else a for i, a in enumerate(grad_args)]
        torch.library.opcheck(overload, grad_args)


def test_unread_string_and_list_attrs_are_refused_on_meta(sink_package):
    """AllAttrsCustom's compute reads none of its string and list attrs: a value other than the
    default is refused (the kernel would compute as for the default), its default taken in any
    sequence type."""
    torch = pytest.importorskip("torch")
    _, package = sink_package
    x = torch.randn(4, device="meta")
    package.all_attrs_custom(x, dims=(1, 2), scales=[0.25], masks=(True, False))
    for name, value, shown in (
        ("mode", "b", "mode='b'"),
        ("dims", [7], "dims=[7]"),
        ("scales", [0.5], "scales=[0.5]"),
        ("masks", [True], "masks=[True]"),
    ):
        with pytest.raises(RuntimeError) as info:
            package.all_attrs_custom(x, **{name: value})
        assert f"AllAttrsCustom: {shown} is not read by its compute expression" in str(info.value)


def test_golden_backward_matches_autograd(sink_package):
    torch = pytest.importorskip("torch")
    proto, package = sink_package
    op = next(o for o in proto.ops if o.op_type == "SplitSignCustom")
    python_cpu_kernel(package, op)
    x = torch.randn(7, requires_grad=True)
    y = torch.randn(7, requires_grad=True)
    pos, neg = package.split_sign_custom(x, y)
    (pos * 2 + neg.float() * 3).sum().backward()
    x_ref, y_ref = x.detach().requires_grad_(), y.detach().requires_grad_()
    ((x_ref.clamp(min=0) + y_ref) * 2 + (x_ref.clamp(max=0) - y_ref) * 3).sum().backward()
    assert torch.allclose(x.grad, x_ref.grad) and torch.allclose(y.grad, y_ref.grad)
    half = torch.randn(5, dtype=torch.float16, requires_grad=True)
    pos, _ = package.split_sign_custom(half, torch.randn(5, dtype=torch.float16))
    pos.sum().backward()
    assert half.grad.dtype == torch.float16
    assert torch.equal(half.grad, (half.detach() > 0).to(torch.float16))
    # Only the passed arguments get gradients: trailing defaults are dropped by the dispatcher.
    ops = next(o for o in proto.ops if o.op_type == "AllAttrsCustom")
    python_cpu_kernel(package, ops)
    x = torch.randn(4, requires_grad=True)
    package.all_attrs_custom(x, alpha=3.0).sum().backward()
    assert torch.equal(x.grad, torch.full((4,), 3.0))


def accumulate_in_place(x, y):
    """AccumulateCustom by torch in place: x = x + rate * y, z = x * y (x as it was)."""
    z = x.clone() * y
    x.add_(y, alpha=0.25)
    return z


def scale_in_place(x):
    x.mul_(3.0)


def scatter_max_in_place(var, updates):
    """ScatterMaxCustom (no outputs) by torch in place: var = max(var, updates * scale)."""
    var.copy_(var.clone().maximum(updates * 0.5))


# The ops of the kitchen sink that update inputs in place: their tensors, their attrs (rate,
# factor, scale), and torch's in-place composition of their golden, the reference for their
# gradients.
IN_PLACE_REFERENCES = {
    "AccumulateCustom": (lambda t: (t.randn(3, 5), t.randn(3, 5)), (0.25,), accumulate_in_place),
    "ScaleInplaceCustom": (lambda t: (t.randn(3, 5),), (3.0,), scale_in_place),
    "ScatterMaxCustom": (lambda t: (t.randn(3, 5), t.randn(3, 5)), (0.5,), scatter_max_in_place),
}


@pytest.mark.parametrize("op_type", list(IN_PLACE_REFERENCES))
def test_in_place_ops_differentiate_as_torch_in_place_ops(sink_package, op_type):
    """An op that updates an input in place, under autograd (_support._register_mutable): the
    update bumps the version and sets grad_fn as x.add_(y) does, and backward through it gives
    torch's gradients, to the input as it was before (x0 of x = x0.clone()) and to the others;
    a leaf that requires grad is refused with torch's error; under no_grad the op just runs."""
    torch = pytest.importorskip("torch")
    proto, package = sink_package
    op = next(o for o in proto.ops if o.op_type == op_type)
    python_cpu_kernel(package, op)
    overload = getattr(torch.ops.opgen_sink, op.snake_name).default
    make, attrs, reference = IN_PLACE_REFERENCES[op_type]
    values = make(torch)
    first = values[0]

    def grads(function):
        leaves = [v.clone().requires_grad_() for v in values]
        x = leaves[0].clone()  # the op updates the first input
        version = x._version
        returned = function(x, *leaves[1:])
        assert x._version > version and x.grad_fn is not None
        generator = torch.Generator().manual_seed(1)
        loss = (x * torch.randn(x.shape, generator=generator)).sum()
        if returned is not None:
            loss = loss + (returned * torch.randn(returned.shape, generator=generator)).sum()
        loss.backward()
        return x.detach(), [leaf.grad for leaf in leaves]

    actual, actual_grads = grads(lambda *args: overload(*args, *attrs))
    expected, expected_grads = grads(reference)
    torch.testing.assert_close(actual, expected)
    for got, want in zip(actual_grads, expected_grads, strict=True):
        assert got is not None and want is not None
        torch.testing.assert_close(got, want)
    # torch.compile sees the same update, the gradients alike
    torch._dynamo.reset()
    compiled_grads = grads(
        torch.compile(lambda *args: overload(*args, *attrs), backend="aot_eager", fullgraph=True)
    )[1]
    for got, want in zip(compiled_grads, expected_grads, strict=True):
        torch.testing.assert_close(got, want)
    # a leaf that requires grad: torch's own refusal, the leaf unchanged
    leaf = first.clone().requires_grad_()
    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad is being used in an in-place operation",
    ):
        overload(leaf, *values[1:], *attrs)
    assert torch.equal(leaf.detach(), first)
    # without grad: the update, no graph, the version bumped
    with torch.no_grad():
        leaf = first.clone().requires_grad_()
        version = leaf._version
        overload(leaf, *values[1:], *attrs)
    assert leaf.grad_fn is None and leaf._version > version
    torch.testing.assert_close(leaf.detach(), expected)


def test_an_in_place_op_without_a_backward_refuses_inputs_that_require_grad(sink_package):
    """_register_mutable without a backward (no golden to differentiate): the op refuses inputs
    that require grad, naming itself and the reason, before it updates anything; without grad it
    runs."""
    torch = pytest.importorskip("torch")
    _, package = sink_package
    lib = package.__dict__.setdefault(
        "_test_nograd_lib", torch.library.Library("opgen_sink_nograd", "DEF")
    )
    lib.define("bump(Tensor(a!) x, Tensor y) -> ()")

    def bump(x, y):
        x.add_(y)

    lib.impl("bump", bump, "CPU")
    package._support._register_mutable(
        "opgen_sink_nograd::bump",
        "BumpCustom",
        None,
        lambda x, y: None,
        ("x",),
        reason="it has no golden expression",
    )
    x0, y = torch.randn(3), torch.randn(3, requires_grad=True)
    x = x0.clone()
    with pytest.raises(
        RuntimeError,
        match=r"BumpCustom \(opgen_sink_nograd::bump\) updates its "
        r"inputs in place and has no backward: it has no "
        r"golden expression",
    ):
        torch.ops.opgen_sink_nograd.bump(x, y)
    assert torch.equal(x, x0)
    with torch.no_grad():
        torch.ops.opgen_sink_nograd.bump(x, y)
    torch.testing.assert_close(x, x0 + y.detach())
    torch.ops.opgen_sink_nograd.bump(x, y.detach())  # nothing requires grad


def test_fake_kernels_without_compute(sink_package):
    torch = pytest.importorskip("torch")
    from torch._subclasses.fake_tensor import FakeTensorMode

    _, _ = sink_package
    with FakeTensorMode():
        # no compute, no golden: no shape rule to assume; the fake kernel says what to write
        with pytest.raises(NotImplementedError, match="define fake"):
            torch.ops.opgen_sink.opaque_custom(torch.empty(3, 5, dtype=torch.int32))
        # a golden: its shapes
        out = torch.ops.opgen_sink.concat_custom([torch.empty(2, 3), torch.empty(4, 3)])
        assert out.shape == (6, 3) and out.dtype == torch.float32
        chunks = torch.ops.opgen_sink.chunk_custom(torch.empty(6, 2, dtype=torch.float16), 3)
        assert [c.shape for c in chunks] == [(2, 2)] * 3
        assert {c.dtype for c in chunks} == {torch.float16}
        with pytest.raises(RuntimeError, match="no kernel for input dtypes"):
            torch.ops.opgen_sink.split_sign_custom(
                torch.empty(2, dtype=torch.float64), torch.empty(2, dtype=torch.float64)
            )


def test_package_import_without_torch_npu(sink_package):
    _, package = sink_package
    assert package.npu_loaded() is False
    assert package.load_npu() is False  # no torch_npu, no CANN: stays on the CPU
    assert set(package.__all__) >= {op.snake_name for op in sink_package[0].ops}


# ---------------------------------------------------------------------------------------------
# builds (slow): the NPU adapters against torch_npu's headers, the CPU extension on the twin
# ---------------------------------------------------------------------------------------------


def npu_python() -> str | None:
    """A Python whose site-packages has torch_npu (found, not imported)."""
    candidates = [os.environ.get("OPGEN_NPU_PYTHON"), sys.executable]
    probe = "import importlib.util,sys; sys.exit(importlib.util.find_spec('torch_npu') is None)"
    for python in filter(None, candidates):
        if subprocess.run([python, "-c", probe], capture_output=True).returncode == 0:
            return python
    return None


NPU_FLAGS_PROBE = """
import importlib.util, sysconfig, torch
from pathlib import Path
npu = Path(importlib.util.find_spec("torch_npu").origin).parent / "include"
torch_inc = Path(torch.__file__).parent / "include"
major, minor = torch.__version__.split("+")[0].split(".")[:2]
flags = ["-std=c++20", f"-DCURRENT_VERSION=V{major}R{minor}",
         "-I" + sysconfig.get_paths()["include"], f"-I{torch_inc}",
         f"-I{torch_inc}/torch/csrc/api/include", f"-I{npu}", f"-I{npu}/third_party/op-plugin",
         f"-I{npu}/third_party/op-plugin/op_plugin/include", f"-I{npu}/third_party/acl/inc",
         f"-I{npu}/third_party/hccl/inc"]
print("\\n".join(flags))
"""


@pytest.mark.slow
def test_npu_adapters_compile_against_torch_npu(kitchen_sink):
    python = npu_python()
    if python is None:
        pytest.skip(
            "torch_npu is not installed here: set OPGEN_NPU_PYTHON to the Python of a "
            "venv with `pip install torch==<torch version>` and "
            "`pip install --no-deps torch-npu==<torch version>`"
        )
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    env = {**os.environ, "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    flags = subprocess.run(
        [python, "-c", NPU_FLAGS_PROBE], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    proto, _, _, directory = kitchen_sink
    adapters = [
        directory / f"sink_ops/csrc_npu/{op.snake_name}_npu.cpp"
        for op in proto.ops
        if op.aclnn is not None
    ]

    def compile_one(path: Path):
        return subprocess.run(
            ["g++", *flags, "-fsyntax-only", "-Wall", str(path)], capture_output=True, text=True
        )

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(compile_one, adapters))
    for path, result in zip(adapters, results, strict=True):
        errors = [line for line in result.stderr.splitlines() if "error" in line]
        assert result.returncode == 0, f"{path.name}:\n" + "\n".join(errors[:20])
        # Warnings from our file (torch_npu's own headers have some).
        ours = [
            line
            for line in result.stderr.splitlines()
            if line.startswith(str(path)) and "warning" in line
        ]
        assert not ours, "\n".join(ours)


BUILD_CHECK = """
import json, time, torch
start = time.time()
import {package}
result = {{"import_s": time.time() - start}}
op = torch.ops.{namespace}.gelu_custom
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    x = torch.randn(4, 515).to(dtype)
    start = time.time()
    y = op(x)
    result[str(dtype)] = {{
        "seconds": time.time() - start,
        "dtype": str(y.dtype),
        "max_error": (y.double() - torch.nn.functional.gelu(x.double(), approximate="tanh"))
                     .abs().max().item()}}
result["empty"] = list(op(torch.empty(0, 3)).shape)
result["scalar"] = op(torch.tensor(1.0)).item()
for args in [(torch.randn(3, 40),), (torch.randn(3, 40, requires_grad=True),),
             (torch.randn(40, 3).t(),)]:
    torch.library.opcheck(op.default, args)
result["opcheck"] = "passed"
print(json.dumps(result))
"""


@pytest.mark.slow
def test_cpu_extension_builds_and_runs_gelu(tmp_path):
    pytest.importorskip("torch")
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    from opgen.commands import new

    destination = tmp_path / "gelu_proj"
    the_plan, proto = new.plan(
        EXAMPLES / "gelu_custom.json", destination, [], None, None, None, None, False, False
    )
    new.create(the_plan, proto, dry_run=False)
    package = the_plan.options.package
    env = {**os.environ, "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    build = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=destination,
        capture_output=True,
        text=True,
        env=env,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-5000:]
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            BUILD_CHECK.format(package=package, namespace=the_plan.options.namespace),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(destination)},
    )
    assert run.returncode == 0, run.stderr[-5000:]
    result = json.loads(run.stdout.splitlines()[-1])
    assert result["torch.float32"]["max_error"] < 1e-5
    assert result["torch.float16"]["max_error"] < 5e-3
    assert result["torch.bfloat16"]["max_error"] < 4e-2
    assert result["empty"] == [0, 3]
    assert abs(result["scalar"] - 0.8411920071) < 1e-5
    assert result["opcheck"] == "passed"


def test_project_data_carries_torch_data():
    proto = prototype.loads(protos.text([protos.ALL_ATTRS]))
    data = plan_project(proto, Options(package="p", namespace="n", vendor="v"))
    assert data.ops[0].torch.qualname == "n::all_attrs_custom"


@pytest.mark.parametrize(
    "socs, arch",
    [
        (("ascend910b1",), None),  # the twin's default
        (("ascend310p3", "ascend910b1"), "2002"),
        (("ascend910a",), "1001"),
    ],
)
def test_twin_build_compiles_for_the_first_soc(socs, arch):
    proto = prototype.loads(protos.text([protos.ONLY_IN_PLACE]))
    options = Options(package="pkg", namespace="pkg", vendor="pkg", socs=socs)
    files = {
        f.path: f.content.decode() for f in render_files(proto, options, resources.templates_dir())
    }
    # the twin's platform takes the first SoC's core counts
    assert f'            ("OPGEN_TWIN_SOC", "{socs[0]}"),\n' in files["setup.py"]
    if arch is None:
        assert "__NPU_ARCH__" not in files["setup.py"]
    else:
        assert f'            ("__NPU_ARCH__", "{arch}"),\n' in files["setup.py"]


def test_attrs_the_compute_never_reads_must_keep_their_defaults(tmp_path):
    """The CPU and NPU adapters and the fake kernel refuse another value of an attr that no
    compute expression reads, of any type (the kernel would ignore it); a float's default as the
    double the adapter receives; a project whose attrs are all read has no such check."""
    attrs = [
        {"name": "alpha", "param_type": "optional", "type": "float", "default_value": 0.1},
        {"name": "dim", "param_type": "optional", "type": "int", "default_value": -1},
        {"name": "mode", "param_type": "optional", "type": "string", "default_value": "a"},
        {"name": "scale", "param_type": "optional", "type": "float", "default_value": 2.0},
        {"name": "lst", "param_type": "optional", "type": "list_int", "default_value": [1, 2]},
        {"name": "fl", "param_type": "optional", "type": "list_float", "default_value": [0.1]},
    ]
    data = {
        "op": "ScaleCustom",
        "attr": attrs,
        "input_desc": [
            {"name": "x", "param_type": "required", "format": ["ND"], "type": ["float"]}
        ],
        "output_desc": [
            {"name": "y", "param_type": "required", "format": ["ND"], "type": ["float"]}
        ],
        "opgen": {"compute": {"y": "x * scale"}},
    }
    _, _, files, _ = rendered(json.dumps([data]), tmp_path / "fixed", "fixed")
    text = {f.path: f.content.decode() for f in files}
    cpu = text["fixed/csrc/ops.cpp"]
    assert 'opgen_torch::FixedAttr<double>("ScaleCustom", "alpha", alpha, 0.1);' in cpu
    assert 'opgen_torch::FixedAttr<int64_t>("ScaleCustom", "dim", dim, -1);' in cpu
    assert 'opgen_torch::FixedAttr<c10::string_view>("ScaleCustom", "mode", mode, "a");' in cpu
    assert 'opgen_torch::FixedListAttr<int64_t>("ScaleCustom", "lst", lst, {1, 2});' in cpu
    assert 'opgen_torch::FixedListAttr<double>("ScaleCustom", "fl", fl, {0.1});' in cpu
    assert '"scale", scale' not in cpu
    npu = text["fixed/csrc_npu/scale_custom_npu.cpp"]
    assert 'opgen_npu::FixedAttr<double>("ScaleCustom", "alpha", alpha, 0.1);' in npu
    fake = text["fixed/ops.py"]
    assert '_fixed_attr("ScaleCustom", "alpha", alpha, 0.1)' in fake
    assert '_fixed_attr("ScaleCustom", "dim", dim, -1)' in fake
    assert '_fixed_attr("ScaleCustom", "mode", mode, "a")' in fake
    assert '_fixed_attr("ScaleCustom", "lst", lst, (1, 2))' in fake
    assert "def _fixed_attr(" in text["fixed/_support.py"]
    data["opgen"]["compute"] = {"y": "x * scale * alpha + dim"}
    data["attr"] = [a for a in attrs if a["name"] not in ("mode", "lst", "fl")]
    _, _, files, _ = rendered(json.dumps([data]), tmp_path / "read", "read")
    # the libraries (_support.py, csrc/opgen_checks.h, the same in every project) define them;
    # nothing calls them
    assert not [
        f.path
        for f in files
        if b"FixedAttr(" in f.content or b"_fixed_attr(" in f.content
        if not f.path.endswith(("/_support.py", "/opgen_checks.h"))
    ]
