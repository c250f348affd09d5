"""Which undefined symbols of a built library nothing we link against exports.

The lesson of EXEC_NPU_CMD (torch-side.md §2.1): an adapter built against op-plugin's internal
header compiles and links, then fails to load with `undefined symbol: g_hash_buf`, because
libtorch_npu does not export what the macro needs. This check finds that at build time.
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

SYSTEM_LIBS = (
    "libc.so.6",
    "libm.so.6",
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
)


def _nm(path: Path, *flags: str) -> list[tuple[str, str]]:
    """(type, name) pairs of `nm -D` for a shared library, versions stripped."""
    out = subprocess.run(
        ["nm", "-D", *flags, str(path)], capture_output=True, text=True, check=False
    ).stdout
    pairs = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            pairs.append((parts[-2], parts[-1].split("@")[0]))
    return pairs


@cache
def exported(path: Path) -> frozenset[str]:
    return frozenset(name for kind, name in _nm(path, "--defined-only"))


def dynamic_loader() -> Path | None:
    """The ELF interpreter (ld.so) of the running Python: it exports what `thread_local` and
    dlopen need (__tls_get_addr, _dl_*), and every process on the NPU machine has it loaded."""
    import re
    import sys

    out = subprocess.run(
        ["readelf", "-l", "--wide", str(Path(sys.executable).resolve())],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    match = re.search(r"program interpreter: ([^\]]+)\]", out)
    path = Path(match.group(1)) if match else None
    return path.resolve() if path is not None and path.exists() else None


def system_libraries() -> list[Path]:
    """The C/C++ runtime: libc, libm, libstdc++, libgcc_s, ... and the dynamic loader."""
    loader = dynamic_loader()
    found = [loader] if loader is not None else []
    for name in SYSTEM_LIBS:
        proc = subprocess.run(
            ["gcc", f"-print-file-name={name}"], capture_output=True, text=True, check=False
        )
        path = Path(proc.stdout.strip())
        if path.is_absolute() and path.exists():
            found.append(path.resolve())
    return found


def provider_libraries(torch_npu_dir: Path) -> list[Path]:
    import importlib.util

    torch_spec = importlib.util.find_spec("torch")
    libs = sorted((torch_npu_dir / "lib").glob("*.so*"))
    if torch_spec is not None and torch_spec.origin:
        libs += sorted((Path(torch_spec.origin).parent / "lib").glob("*.so*"))
    return libs + system_libraries()


def unresolved(library: Path, torch_npu_dir: Path) -> list[str]:
    """Strong undefined symbols of `library` that no provider exports (Python's own excepted:
    the interpreter provides Py* when the module loads)."""
    provided: set[str] = set()
    for lib in provider_libraries(torch_npu_dir):
        provided |= exported(lib)
    missing = []
    for kind, name in _nm(library, "--undefined-only"):
        if kind in ("w", "v") or name.startswith(("Py", "_Py")) or name in provided:
            continue
        missing.append(name)
    return sorted(set(missing))
