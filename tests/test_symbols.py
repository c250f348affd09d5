"""The NPU adapter's symbol check flags only what would be unresolved on an NPU machine: the C/C++
runtime's own symbols (libc, libstdc++, libgcc, the dynamic loader) are there on every one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from opgen.commands import symbols

pytestmark = pytest.mark.slow  # compiles a small shared library

SOURCE = """
#include <string>
thread_local std::string last_name;  // global-dynamic TLS: __tls_get_addr, from ld.so
extern "C" void nowhere_defined();   // what an NPU machine would not resolve either
void remember(const char *name) { last_name = name; }
void forget() { nowhere_defined(); }
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to build the library")
def test_runtime_symbols_pass_and_an_unknown_one_fails(tmp_path):
    source = tmp_path / "adapter.cpp"
    source.write_text(SOURCE)
    library = tmp_path / "libadapter.so"
    subprocess.run(["g++", "-shared", "-fPIC", str(source), "-o", str(library)], check=True)
    nm = subprocess.run(
        ["nm", "-D", "--undefined-only", str(library)], capture_output=True, text=True, check=True
    ).stdout
    assert "__tls_get_addr" in nm  # what the LayerNorm adapter's thread_local needed
    torch_npu = tmp_path / "torch_npu"
    (torch_npu / "lib").mkdir(parents=True)
    assert symbols.unresolved(library, torch_npu) == ["nowhere_defined"]


def test_the_dynamic_loader_is_a_provider():
    loader = symbols.dynamic_loader()
    assert loader is not None and loader.name.startswith("ld")
    assert loader in symbols.system_libraries()
    assert "__tls_get_addr" in symbols.exported(Path(loader))
