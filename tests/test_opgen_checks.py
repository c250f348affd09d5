"""The checks the generated adapters make (csrc/opgen_checks.h) and the fake kernel's
(_support.py), with the same messages: FixedAttr and FixedListAttr (an attr no compute
expression reads keeps its default, of every type the adapters take, string and lists
included; tests/test_torch_ext_render.py checks the calls), and MatmulShapes (a matmul's
operands as opgen's kernel takes them, refused with a reason before the twin's InferShape or
TilingFunc fails without one)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess

import pytest

from opgen import resources

LIBRARY = resources.templates_dir() / "torch_ext/project/{{ project.package }}"

# matmul(a, b[, transpose_b]) + an epilogue input `bias`: (a, b, b transposed, bias or None) ->
# the message (None: taken)
MATMUL_CASES = [
    ((4, 3), (3, 5), False, (5,), None),
    ((2, 4, 3), (2, 5, 3), True, (2, 4, 5), None),
    ((0, 3), (3, 5), False, None, None),  # an empty product
    ((0, 0), (0, 5), False, None, None),  # K = 0 in an empty product: nothing to compute
    ((4, 3), (3, 5), False, None, None),
    (
        (3,),
        (3, 5),
        False,
        None,
        "Op: a [3] and b [3, 5]: opgen's matmul takes a [M, K] or [B, M, K] and b [K, N] or "
        "[B, K, N] (not 1-D, at most 3-D)",
    ),
    ((4, 3), (4, 5), False, None, "Op: a [4, 3] and b [4, 5] cannot be multiplied (4x3 and 4x5)"),
    (
        (1, 4, 3),
        (2, 3, 5),
        False,
        None,
        "Op: a [1, 4, 3] and b [2, 3, 5]: a batched b takes a of the same batch (opgen's matmul "
        "does not broadcast batch dims)",
    ),
    (
        (4, 3),
        (2, 3, 5),
        False,
        None,
        "Op: a [4, 3] and b [2, 3, 5]: a batched b takes a of the same batch (opgen's matmul "
        "does not broadcast batch dims)",
    ),
    (
        (4, 0),
        (0, 5),
        False,
        (5,),
        "Op: a [4, 0] and b [0, 5]: K is 0, which the Matmul API does not take (torch's "
        "product would be zeros)",
    ),
    (
        (1, 4, 0),
        (1, 0, 5),
        False,
        None,
        "Op: a [1, 4, 0] and b [1, 0, 5]: K is 0, which the Matmul API does not take (torch's "
        "product would be zeros)",
    ),
    (
        (4, 3),
        (3, 5),
        False,
        (1,),
        "Op: bias [1]: the epilogue of a matmul takes [N] ([5]) or the product's shape ([4, 5]), "
        "not one it broadcasts",
    ),
    (
        (4, 3),
        (3, 5),
        False,
        (4, 1),
        "Op: bias [4, 1]: the epilogue of a matmul takes [N] ([5]) or the product's shape "
        "([4, 5]), not one it broadcasts",
    ),
]


def support_module():
    spec = importlib.util.spec_from_file_location(
        "opgen_support_under_test", LIBRARY / "_support.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("a", "b", "b_t", "bias", "message"), MATMUL_CASES)
def test_the_fake_kernel_refuses_matmul_shapes_the_kernel_does_not_take(a, b, b_t, bias, message):
    """Was torch.matmul's broadcasting on meta, and "InferShape/TilingFunc returned GRAPH_FAILED"
    without a reason on the CPU."""
    torch = pytest.importorskip("torch")
    support = support_module()

    def meta(shape):
        return torch.empty(shape, device="meta")

    epilogue = {"bias": meta(bias)} if bias is not None else None
    call = (support._matmul_shapes, "Op", "a", meta(a), "b", meta(b), False, b_t, epilogue)
    if message is None:
        call[0](*call[1:])
        return
    with pytest.raises(RuntimeError) as info:
        call[0](*call[1:])
    assert str(info.value) == message


CHECKS = """
#include <iostream>
#include "opgen_checks.h"
template <typename F> void report(F f)
{
    try {
        f();
        std::cout << "ok\\n";
    } catch (const c10::Error& e) {
        std::cout << e.what_without_backtrace() << "\\n";
    }
}
int main()
{
    using opgen_checks::FixedAttr;
    using opgen_checks::FixedListAttr;
    std::vector<int64_t> dims{7};
    std::vector<double> scales{0.25};
    c10::List<bool> masks({true});
    std::vector<std::vector<int64_t>> pads{{1, 2}};
    report([&] { FixedAttr<c10::string_view>("Op", "mode", c10::string_view("b"), "a"); });
    report([&] { FixedAttr<c10::string_view>("Op", "mode", c10::string_view("a"), "a"); });
    report([&] { FixedListAttr<int64_t>("Op", "dims", at::IntArrayRef(dims), {1, 2}); });
    report([&] { FixedListAttr<int64_t>("Op", "dims", at::IntArrayRef(dims), {7}); });
    report([&] { FixedListAttr<double>("Op", "scales", at::ArrayRef<double>(scales), {0.25}); });
    report([&] { FixedListAttr<bool>("Op", "masks", masks, {true, false}); });
    report([&] { FixedListAttr<bool>("Op", "masks", masks, {}); });
    report([&] { FixedListAttr<std::vector<int64_t>>("Op", "pads", pads, {{1, 2}}); });
    report([&] { FixedListAttr<std::vector<int64_t>>("Op", "pads", pads, {}); });
    // MATMUL
}
"""


def matmul_calls() -> str:
    """MATMUL_CASES as calls of opgen_checks::MatmulShapes on meta tensors."""

    def meta(shape) -> str:
        return "at::empty({" + ", ".join(map(str, shape)) + "}, at::kMeta)"

    calls = []
    for a, b, b_t, bias, _ in MATMUL_CASES:
        args = ['"Op"', '"a"', meta(a), '"b"', meta(b), "false", str(b_t).lower()]
        if bias is not None:
            args += ['{"bias"}', "{" + meta(bias) + "}"]
        calls.append(f"    report([&] {{ opgen_checks::MatmulShapes({', '.join(args)}); }});")
    return "\n".join(calls)


TAIL = " is not read by its compute expression; the kernel computes as for the default "


@pytest.mark.slow
def test_the_adapters_checks_refuse_as_the_fake_kernel_does(tmp_path):
    """Unread string and list attrs other than their default (were taken, and ignored), and
    matmul shapes the kernel does not take (were "GRAPH_FAILED" without a reason)."""
    cpp_extension = pytest.importorskip("torch.utils.cpp_extension")
    compiler = shutil.which("g++") or pytest.skip("no g++")
    shutil.copy(LIBRARY / "csrc" / "opgen_checks.h", tmp_path / "opgen_checks.h")
    (tmp_path / "main.cpp").write_text(CHECKS.replace("    // MATMUL", matmul_calls()))
    libs = cpp_extension.library_paths()[0]
    includes = [f"-I{p}" for p in cpp_extension.include_paths()]
    command = [compiler, "-std=c++20", "-w", "-I.", *includes, "main.cpp", f"-L{libs}"]
    command += ["-lc10", "-ltorch_cpu", f"-Wl,-rpath,{libs}", "-o", "main"]
    subprocess.run(command, cwd=tmp_path, check=True, timeout=600)
    lines = subprocess.run(
        [tmp_path / "main"], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert lines == [
        "Op: mode='b'" + TAIL + "mode='a'",
        "ok",
        "Op: dims=[7]" + TAIL + "dims=[1, 2]",
        "ok",
        "ok",
        "Op: masks=[True]" + TAIL + "masks=[True, False]",
        "Op: masks=[True]" + TAIL + "masks=[]",
        "ok",
        "Op: pads=[[1, 2]]" + TAIL + "pads=[]",
        *(message or "ok" for *_, message in MATMUL_CASES),
    ]
