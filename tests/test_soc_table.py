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
