"""The Ascend C names opgen writes hold in every CANN release it supports (docs/socs.md): none is
an old name that asc-devkit's API change table (接口变更说明.md) renamed to one every such release
declares; the old one may log its deprecation or go (tests/data/asc_devkit_renamed.tsv, from
bench/asc_devkit_names.py). Where a supported release lacks the new name the table's old one is
not listed, and the templates keep it."""

from __future__ import annotations

import re

from api_names import renamed_names
from conftest import ROOT

# what writes Ascend C: the templates, the compute compiler's calls, the planners' C++ text
WRITERS = ("templates", "opgen/compiler", "opgen/planning")


def written_texts() -> dict[str, str]:
    texts = {}
    for top in WRITERS:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                texts[str(path.relative_to(ROOT))] = path.read_text(errors="replace")
    return texts


def test_the_table_holds_the_renames_of_cann_9():
    renamed = renamed_names()
    assert renamed["CalcTschBlockDim"] == "CalcTschNumBlocks"
    # 9.1.0 renamed these to ReduceRepeat, which 9.0.0 does not have: the old names stay valid
    assert "WholeReduceSum" not in renamed and "RepeatReduceSum" not in renamed


def test_nothing_opgen_writes_uses_a_renamed_api():
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, renamed_names())) + r")\b")
    found = [
        f"{path}: {match.group(1)} (now {renamed_names()[match.group(1)]})"
        for path, text in written_texts().items()
        for match in pattern.finditer(text)
    ]
    assert not found, found
