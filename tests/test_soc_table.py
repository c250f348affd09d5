"""The catalog's SoC table (SOC_FAMILIES) is the one the C++ reads: opgen_soc.h, generated from it,
is checked in for the kernel library and for the CPU twin, and its macros say what the catalog
says for every __NPU_ARCH__."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT

from opgen.frontend import soc_header
from opgen.frontend.catalog import SOC_CAPABILITIES, SOC_CHIPS, SOC_FAMILIES, SocFamily

REGENERATE = "regenerate it with `python -m opgen.frontend.soc_header`"
APIS = sorted({api for f in SOC_FAMILIES.values() for api in f.missing_apis})


@pytest.mark.parametrize("path", soc_header.PATHS)
def test_the_checked_in_header_is_the_catalogs(path):
    assert (ROOT / path).read_text() == soc_header.header(), f"{path} is stale: {REGENERATE}"


def test_the_twins_chip_presets_are_the_catalogs():
    path = soc_header.CHIPS_PATH
    assert (ROOT / path).read_text() == soc_header.chips_header(), f"{path} is stale: {REGENERATE}"


def test_the_twin_hard_codes_no_core_count_or_ub_size():
    """The twin's platform defaults and presets read soc_chips.h: no UB size or core count is
    assigned a number anywhere else in its headers."""
    twin = (ROOT / soc_header.CHIPS_PATH).parents[1]
    assert SOC_CHIPS[0].aic_cores and SOC_CHIPS[0].aiv_cores  # the defaults record both
    found = [
        f"{path.relative_to(twin)}: {hit}"
        for path in sorted(twin.rglob("*.h"))
        for hit in re.findall(r"(?i)\w*(?:ubsize|corenum)\w* *= *[1-9]\d*", path.read_text())
    ]
    assert not found


# The __NPU_ARCH__ numbers the kernel library and the twin still compare with, outside
# opgen_soc.h: each a fact the catalog does not hold. None may join; #27 wants the list empty.
ARCH_LITERALS = {
    # which of the two messages of a missing DataCopyPad (does not compile / copies nothing)
    "opgen_twin/detail/soc.h": ["Arch == 2002"],
    # asc-devkit kernel_utils_constants.h's TOTAL_VEC_LOCAL_SIZE/TOTAL_UB_SIZE, as it spells them
    "opgen_twin/detail/kernel_tensor.h": [
        "__NPU_ARCH__ == 1001",
        "__NPU_ARCH__ == 2002",
        "__NPU_ARCH__ == 3003",
        "__NPU_ARCH__ == 3113",
        "__NPU_ARCH__ == 3002",
        "__NPU_ARCH__ == 3102",
        "__NPU_ARCH__ == 3510",
        "__NPU_ARCH__ == 5102",
    ],
}


def test_the_library_and_the_twin_read_the_table():
    """What differs per SoC is read from opgen_soc.h, not from __NPU_ARCH__ numbers."""
    kernel = (ROOT / soc_header.PATHS[0]).with_name("opgen_kernel.h")
    twin = (ROOT / soc_header.PATHS[1]).parents[1]
    assert '#include "opgen_soc.h"' in kernel.read_text()
    found = {}
    for path in [kernel, *sorted(twin.rglob("*.h"))]:
        if path.name == "soc_table.h":
            continue
        text = path.read_text()
        literals = re.findall(r"(?:Arch|__NPU_ARCH__|arch) *[=!]= *\d{4}", text)
        if literals:
            under = path.is_relative_to(twin.parent)
            found[path.relative_to(twin.parent if under else ROOT).as_posix()] = literals
    assert found == ARCH_LITERALS
    twin_soc = (ROOT / soc_header.PATHS[1]).with_name("soc.h").read_text()
    assert not re.search(r'"ascend', twin_soc)


def test_every_capability_is_a_socfamily_flag():
    fields = SocFamily.__dataclass_fields__
    flags = {name for name, f in fields.items() if f.type in (bool, "bool")}
    assert {c.field for c in SOC_CAPABILITIES} == flags
    assert len({c.macro for c in SOC_CAPABILITIES}) == len(SOC_CAPABILITIES)


def test_the_host_library_pads_where_the_catalog_has_datacopypad():
    """op_host/opgen_tiling.h, compiled for the host (no __NPU_ARCH__), names the SoCs without
    DataCopyPad by their platform_ascendc::SocVersion."""
    text = (ROOT / "templates/host/project/op_host/opgen_tiling.h").read_text()
    named = re.search(r"if \((soc != .*)\) \{\n        return true;", text)
    assert named is not None
    versions = re.findall(r"soc != platform_ascendc::SocVersion::(\w+)", named.group(1))
    lacking = [f.short_name.upper() for f in SOC_FAMILIES.values() if not f.has_datacopypad]
    assert versions == lacking


def test_the_macros_say_what_the_catalog_says(tmp_path):
    """The preprocessor's reading of each macro, for every documented __NPU_ARCH__ and one the
    catalog does not list (every flag's default: every capability)."""
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        pytest.skip(f"{cxx} is not installed")
    arches = sorted({f.npu_arch for f in SOC_FAMILIES.values() if f.npu_arch is not None})
    unit = ['#include "opgen_soc.h"']
    for arch in [*arches, 9999]:
        for cap in SOC_CAPABILITIES:
            unit += [
                f"#if OPGEN_SOC_{cap.macro}({arch})",
                f"{cap.field} {arch} 1",
                "#else",
                f"{cap.field} {arch} 0",
                "#endif",
            ]
        for api in APIS:
            unit += [
                f"#if OPGEN_SOC_HAS_API_{api.upper()}({arch})",
                f"{api} {arch} 1",
                "#else",
                f"{api} {arch} 0",
                "#endif",
            ]
        unit.append(f"name {arch} OPGEN_SOC_NAME({arch})")
    (tmp_path / "opgen_soc.h").write_text(soc_header.header())
    (tmp_path / "unit.cpp").write_text("\n".join(unit) + "\n")
    out = subprocess.run(
        [cxx, "-E", "-P", str(tmp_path / "unit.cpp")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    got = {tuple(line.split(" ", 2)[:2]): line.split(" ", 2)[2] for line in out.split("\n") if line}
    for family in SOC_FAMILIES.values():
        if family.npu_arch is None:
            continue
        for cap in SOC_CAPABILITIES:
            expected = str(int(getattr(family, cap.field)))
            assert got[(cap.field, str(family.npu_arch))] == expected, (family, cap.field)
        for api in APIS:
            expected = str(int(api not in family.missing_apis))
            assert got[(api, str(family.npu_arch))] == expected, (family, api)
    for cap in SOC_CAPABILITIES:
        assert got[(cap.field, "9999")] == str(int(soc_header.flag_default(cap.field))), cap.field
    assert all(got[(api, "9999")] == "1" for api in APIS)
    names = {arch: got[("name", str(arch))] for arch in arches}
    first = {}
    for family in SOC_FAMILIES.values():
        first.setdefault(family.npu_arch, family.short_name)
    assert all(f'"{first[arch]}"' in names[arch] for arch in arches), names
    assert '"an unknown SoC"' in got[("name", "9999")]
