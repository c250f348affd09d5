"""csrc/opgen_checks.h's FixedAttr and FixedListAttr: an attr no compute expression reads keeps
its default, of every type the adapters take (string and lists included), with the fake kernel's
messages (tests/test_torch_ext_render.py checks the calls and the fake kernel)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from opgen import resources

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
}
"""

TAIL = " is not read by its compute expression; the kernel computes as for the default "


@pytest.mark.slow
def test_unread_string_and_list_attrs_are_refused_by_the_adapters(tmp_path):
    cpp_extension = pytest.importorskip("torch.utils.cpp_extension")
    compiler = shutil.which("g++") or pytest.skip("no g++")
    checks = resources.templates_dir() / "torch_ext/project/{{ project.package }}/csrc"
    shutil.copy(checks / "opgen_checks.h", tmp_path / "opgen_checks.h")
    (tmp_path / "main.cpp").write_text(CHECKS)
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
    ]
