"""The Ascend C names the matmul_op templates use, as tests/test_matmul_ops.py and
bench/asc_devkit_names.py collect them: from the files rendered for tests/data/e2e/matmul.json,
the names qualified by an Ascend C namespace, the member functions they call on the Matmul
object, its tiling API, the platform and TCubeTiling, and the kernel macros."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "tests" / "data" / "asc_devkit_names.tsv"
RENAMED = ROOT / "tests" / "data" / "asc_devkit_renamed.tsv"
PROTOTYPE = ROOT / "tests" / "data" / "e2e" / "matmul.json"

QUALIFIED = re.compile(r"\b(?:AscendC|matmul|matmul_tiling|platform_ascendc)((?:::\w+)+)")
# calls on the objects of those APIs: the Matmul object, the tiling API, the platform
MEMBER_CALL = re.compile(r"\b(?:matmul_|api|platform)\.(?:template )?(\w+)")
CUBE_FIELD = re.compile(r"\b(?:mm|cube|tiling_\.cubeTiling|tiling->cubeTiling)\.(\w+)")
MACROS = ("REGIST_MATMUL_OBJ", "KERNEL_TASK_TYPE_DEFAULT", "KERNEL_TYPE_MIX_AIC_1_2")
GLOBALS = ("CubeFormat", "GetSysWorkSpacePtr", "ND_ALIGN")


def rendered_matmul_files() -> dict[str, str]:
    from kernel_host import twin

    from opgen.frontend import prototype

    proto = prototype.load(PROTOTYPE)
    files = twin.render_files(proto, twin.options())
    snakes = [op.snake_name for op in proto.ops]
    return {
        f.path: f.content.decode()
        for f in files
        if any(f.path.startswith(f"op_{side}/{s}") for s in snakes for side in ("kernel", "host"))
    }


def used_names() -> set[str]:
    names: set[str] = set(MACROS)
    for text in rendered_matmul_files().values():
        names |= {part for chain in QUALIFIED.findall(text) for part in chain.split("::") if part}
        names |= set(MEMBER_CALL.findall(text))
        names |= set(CUBE_FIELD.findall(text))
        names |= {g for g in GLOBALS if re.search(rf"\b{g}\b", text)}
    return names


def recorded_names() -> dict[str, str]:
    """name -> the asc-devkit header bench/asc_devkit_names.py found it in."""
    rows = [r for r in TABLE.read_text(encoding="utf-8").splitlines() if not r.startswith("#")]
    return dict(r.split("\t") for r in rows)


def renamed_names() -> dict[str, str]:
    """old name -> the new name every CANN release opgen supports has (asc-devkit's API change
    table, as bench/asc_devkit_names.py recorded it)."""
    rows = [r for r in RENAMED.read_text(encoding="utf-8").splitlines() if not r.startswith("#")]
    return dict(r.split("\t") for r in rows)
