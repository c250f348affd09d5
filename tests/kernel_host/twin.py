"""Build rendered ops against the CPU twin (opgen/twin) and run them on random data.

`render_project` renders prototypes into a directory with opgen's kernel and host templates.
`build` compiles every dtype variant of each unchanged op_kernel/<op>.cpp with the twin's variant
pattern (pre-include the kernel's headers, define the DTYPE_ and ORIG_DTYPE_ macros, rename the
entry with a macro, wrap the kernel in a namespace), several ops per translation unit, plus all
op_host/<op>.cpp files and driver.cpp in one more unit, and links them into one driver binary.
`run` calls the driver and decodes the outputs; `precision` computes the MERE/MARE metrics of
opbase's experimental standard.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from opgen.compiler import checks
from opgen.frontend import prototype
from opgen.frontend.catalog import DTYPES
from opgen.frontend.options import Options
from opgen.planning import plan_project
from opgen.rendering.render import render
from opgen.resources import templates_dir

ROOT = Path(__file__).resolve().parents[2]
TWIN_INCLUDE = ROOT / "opgen" / "twin" / "include"
DRIVER = Path(__file__).resolve().parent / "driver.cpp"
CXX = os.environ.get("CXX", "g++")
CXXFLAGS = ["-std=c++17", "-O1", "-Wall"]

# MERE/MARE thresholds T per output dtype (opbase experimental standard): MERE < T, MARE < 10 T.
THRESHOLDS = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-13}


def options(socs: tuple[str, ...] = ("ascend910b1",)) -> Options:
    return Options(package="p", namespace="p", vendor="p", socs=socs)


_ROOTS: dict[str, Path] = {}


def kernel_host_templates() -> Path:
    """A template with opgen's kernel and host templates only (layout/'s other entries left
    out), so these tests exercise the kernel/host templates whatever state the others are in."""
    import atexit
    import tempfile

    if "root" not in _ROOTS:
        root = Path(tempfile.mkdtemp(prefix="opgen-kh-templates-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        source = templates_dir()
        shutil.copy(source / "copier.yml", root / "copier.yml")
        # copies: copier renders nothing from outside its root
        for name in ("kernel", "host", "macros"):
            shutil.copytree(source / name, root / name)
        (root / "layout").mkdir()
        for entry in (source / "layout").iterdir():
            if entry.is_symlink():
                if os.readlink(entry).startswith(("../kernel/", "../host/")):
                    (root / "layout" / entry.name).symlink_to(os.readlink(entry))
            else:  # the project's top-level files
                shutil.copy(entry, root / "layout" / entry.name)
        _ROOTS["root"] = root
    return _ROOTS["root"]


def render_files(proto, opts: Options, full: bool = False):
    checks.check(proto, opts)
    source = templates_dir() if full else kernel_host_templates()
    return render(proto, opts, source, plan_project(proto, opts))


def render_project(proto_text: str, dest: Path, socs: tuple[str, ...] = ("ascend910b1",)) -> dict:
    """Render the kernel and host templates for the prototype into `dest`; return the project
    context."""
    proto = prototype.loads(proto_text)
    opts = options(socs)
    for f in render_files(proto, opts):
        path = dest / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f.content)
    ctx = dataclasses.asdict(plan_project(proto, opts))  # plain dicts, for the tests to index
    ctx["proto"] = proto
    return ctx


@dataclass(frozen=True)
class KernelSet:
    """One compilation of an op's kernel: a name and extra compiler flags (e.g. an __NPU_ARCH__)."""

    name: str
    flags: tuple[str, ...] = ()


@dataclass
class OpBuild:
    project: Path
    op: dict[str, Any]  # an op's template data (planning.OpData) as a dict
    sets: tuple[KernelSet, ...] = (KernelSet("default"),)


@dataclass
class Build:
    driver: Path
    seconds: dict[str, float] = field(default_factory=dict)  # compile seconds per unit
    warnings: dict[str, str] = field(default_factory=dict)  # compiler warnings per unit
    cached: set[str] = field(default_factory=set)


def _symbol(op: dict, kset: KernelSet, i: int) -> str:
    return f"opgen_k_{op['snake']}_{kset.name}_{i}"


def variant_block(op: dict, kset: KernelSet) -> list[str]:
    """Every dtype combination of the op's unchanged kernel, each in its own namespace."""
    snake = op["snake"]
    lines = []
    for i, combo in enumerate(op["dtype_combinations"]):
        macros = {}
        for t, d in zip(op["tensors"], combo, strict=True):  # as the CANN build passes them
            macros.update({t["macro"]: DTYPES[d].c_type, "ORIG_" + t["macro"]: DTYPES[d].ge})
        lines += [f"#define {m} {c}" for m, c in macros.items()]
        if op.get("user_computed"):  # the user's kernel header uses the DTYPE_ macros: anew
            lines.append(f"#undef {op['user']['kernel_guard']}")
        lines += [
            f"#define {snake} {_symbol(op, kset, i)}",
            f"namespace opgen_variant_{snake}_{i} {{",
            f'#include "{snake}.cpp"',
            f"}}  // namespace opgen_variant_{snake}_{i}",
            f"#undef {snake}",
        ]
        lines += [f"#undef {m}" for m in macros] + [""]
    return lines


def kernel_unit(ops: list[tuple[dict, KernelSet]], scope: str = "") -> str:
    """One translation unit holding the kernel variants of several ops: the headers each kernel
    includes come first, so the kernels' own #includes inside the namespaces are no-ops.
    `scope`: a namespace for the ops' headers, for a kernel set with its own flags: its inline
    compute step (e.g. an __NPU_ARCH__ branch) must not be merged by the linker with the
    default set's function of the same name."""
    lines = [
        "// Kernel dtype variants for the CPU twin (see tests/kernel_host/twin.py).",
        '#include "kernel_operator.h"',
        '#include "opgen_twin/kernel_type.h"',
        '#include "opgen_kernel.h"',
    ]
    lines += [f"namespace {scope} {{"] if scope else []
    for op, _ in ops:
        lines.append(f'#include "{op["snake"]}_tiling.h"')
        if not op.get("user_computed"):  # an op without compute: its kernel header, per variant
            lines.append(f'#include "{op["snake"]}_compute.h"')
    lines += [f"}}  // namespace {scope}", f"using namespace {scope};"] if scope else []
    lines.append("")
    for op, kset in ops:
        lines += variant_block(op, kset)
    return "\n".join(lines)


def variants_table(builds: list[OpBuild]) -> str:
    decls, cases = [], []
    for b in builds:
        op = b.op
        arity = len(op["tensors"]) + 2
        for kset in b.sets:
            rows = []
            for i, combo in enumerate(op["dtype_combinations"]):
                sym = _symbol(op, kset, i)
                decls.append(f'extern "C" void {sym}({", ".join(["uint8_t*"] * arity)});')
                dts = ", ".join(f"ge::{DTYPES[d].ge}" for d in combo)
                rows.append(f"{{{{{dts}}}, opgen_twin::MakeKernel({sym})}}")
            cases.append(
                f'    if (op == "{op["op_type"]}" && set == "{kset.name}") {{\n'
                f"        return {{{', '.join(rows)}}};\n    }}"
            )
    return "\n".join(
        [
            *decls,
            "",
            "inline std::vector<opgen_twin::KernelVariant> Variants(const std::string& op, "
            "const std::string& set)",
            "{",
            *cases,
            "    return {};",
            "}",
            "",
        ]
    )


def _digest(parts: list[bytes]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()


def _tree_bytes(*dirs: Path) -> list[bytes]:
    out = []
    for d in dirs:
        for p in sorted(d.rglob("*")):
            if p.is_file() and p.suffix in (".h", ".cpp", ".inc"):
                out += [str(p.relative_to(d)).encode(), p.read_bytes()]
    return out


def build(builds: list[OpBuild], out: Path, cache: Path | None = None) -> Build:
    """Compile and link the driver; objects are reused from `cache` when their inputs match."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "variants.inc").write_text(variants_table(builds))
    shutil.copy(DRIVER, out / "driver.cpp")
    twin_bytes = _tree_bytes(TWIN_INCLUDE)
    units: dict[str, tuple[list[str], list[bytes]]] = {}
    # Kernel variants grouped into a few translation units (one per core; kernel sets with their
    # own compiler flags apart, and projects with different op_kernel/opgen_kernel.h apart: its
    # include guard lets only the first into a unit): the twin's headers are parsed once per
    # unit, not once per op.
    groups: dict[tuple[tuple[str, ...], bytes], list[tuple[OpBuild, KernelSet]]] = {}
    for b in builds:
        shared = (b.project / "op_kernel" / "opgen_kernel.h").read_bytes()
        for kset in b.sets:
            groups.setdefault((kset.flags, shared), []).append((b, kset))
    snakes = [b.op["snake"] for b in builds]
    assert len(set(snakes)) == len(snakes), "kernel units need distinct op names"
    jobs = max(2, os.cpu_count() or 2)
    for index, ((flags, _), members) in enumerate(groups.items()):
        # The helpers of opgen_kernel.h differ between groups (another project, another
        # __NPU_ARCH__): a namespace of their own per group keeps the one-definition rule.
        rename = f"-Dopgen_kernel=opgen_kernel_{index}"
        n = max(1, min(len(members), jobs if not flags else 1))
        for g in range(n):
            part = members[g::n]
            name = f"kernels_{len(units)}"
            src = out / f"{name}.cpp"
            scope = f"opgen_set_{part[0][1].name}" if flags else ""
            src.write_text(kernel_unit([(b.op, k) for b, k in part], scope))
            dirs = list(dict.fromkeys(b.project / "op_kernel" for b, _ in part))
            units[name] = (
                [
                    *CXXFLAGS,
                    *flags,
                    rename,
                    "-I",
                    str(TWIN_INCLUDE),
                    *(x for d in dirs for x in ("-I", str(d))),
                    "-c",
                    str(src),
                ],
                [src.read_bytes(), *_tree_bytes(*dirs)],
            )

    # The host files of every op and the driver in ONE translation unit: the generated host code
    # must not clash when several ops share a library (here even a translation unit).
    hosts = [b.project / "op_host" / f"{b.op['snake']}.cpp" for b in builds]
    unity = out / "host_driver.cpp"
    unity.write_text("".join(f'#include "{h}"\n' for h in hosts) + '#include "driver.cpp"\n')
    units["host_driver"] = (
        [*CXXFLAGS, "-I", str(TWIN_INCLUDE), "-I", str(out), "-c", str(unity)],
        [
            unity.read_bytes(),
            (out / "driver.cpp").read_bytes(),
            (out / "variants.inc").read_bytes(),
            *(
                x
                for b in builds
                for x in _tree_bytes(b.project / "op_host", b.project / "op_kernel")
            ),
        ],
    )

    result = Build(out / "driver")
    objects = []

    def compile_unit(name: str) -> tuple[str, float, subprocess.CompletedProcess | None]:
        args, inputs = units[name]
        obj = out / f"{name}.o"
        key = _digest(
            [
                CXX.encode(),
                " ".join(a for a in args if not a.startswith("/")).encode(),
                *inputs,
                *twin_bytes,
            ]
        )
        if cache is not None and (cache / f"{key}.o").is_file():
            shutil.copy(cache / f"{key}.o", obj)
            return name, 0.0, None
        start = time.monotonic()
        proc = subprocess.run([CXX, *args, "-o", str(obj)], capture_output=True, text=True)
        if proc.returncode == 0 and cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
            shutil.copy(obj, cache / f"{key}.o")
        return name, time.monotonic() - start, proc

    errors = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        for name, seconds, proc in pool.map(compile_unit, list(units)):
            objects.append(out / f"{name}.o")
            if proc is None:
                result.cached.add(name)
                continue
            result.seconds[name] = seconds
            if proc.returncode != 0:
                errors.append(f"--- {name}: {CXX} {' '.join(units[name][0])}\n{proc.stderr}")
            elif proc.stderr.strip():
                result.warnings[name] = proc.stderr
    if errors:
        raise RuntimeError("C++ compilation failed:\n" + "\n".join(errors))
    proc = subprocess.run(
        [CXX, "-o", str(result.driver), *map(str, objects)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"link failed:\n{proc.stderr}")
    return result


# ---------------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------------

_TORCH_DTYPES = {
    "float16": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "int16": "int16",
    "int32": "int32",
    "int8": "int8",
    "uint8": "uint8",
    "int64": "int64",
    "float64": "float64",
    "bool": "bool",
}


def encode(values: np.ndarray, dtype: str) -> tuple[bytes, np.ndarray]:
    """Raw bytes of `values` in `dtype`, and the values as stored (float64), for the golden.
    int64 values given as integers stay exact (stored as int64: float64 holds 53 bits)."""
    import torch

    exact = dtype == "int64" and np.asarray(values).dtype.kind == "i"
    t = torch.from_numpy(np.ascontiguousarray(values, dtype=np.int64 if exact else np.float64))
    t = t.to(getattr(torch, _TORCH_DTYPES[dtype]))
    stored = t.numpy() if exact else t.to(torch.float64).numpy()
    if dtype == "bfloat16":
        raw = t.view(torch.int16).numpy().tobytes()
    else:
        raw = t.numpy().tobytes()
    return raw, stored


def decode(raw: bytes, dtype: str, shape: list[int], exact: bool = False) -> np.ndarray:
    """The values in float64; with `exact`, integers in their own numpy dtype."""
    import torch

    if dtype == "bfloat16":
        bits = torch.from_numpy(np.frombuffer(raw, dtype=np.int16).copy())
        return bits.view(torch.bfloat16).to(torch.float64).numpy().reshape(shape)
    np_dtype = np.dtype(_TORCH_DTYPES[dtype])
    values = np.frombuffer(raw, dtype=np_dtype)
    return (values.copy() if exact else values.astype(np.float64)).reshape(shape)


_GE_TO_DTYPE = {d.ge: name for name, d in DTYPES.items()}


def run(
    driver: Path,
    op_type: str,
    inputs: list[tuple[str, np.ndarray] | None],
    attrs: list[tuple[str, Any]] | None = None,
    kernel_set: str = "default",
    cores: int | None = None,
    ub: int | None = None,
    workdir: Path | None = None,
    exact: bool = False,
) -> dict:
    """Run one op; inputs are (dtype, values) or None for an absent optional input.

    Returns the driver's JSON with "outputs" decoded to float64 arrays (with `exact`, integer
    ones in their own dtype), "inputs" as stored and "updated_inputs" as the kernel left them
    (None for absent or dynamic ones).
    """
    import tempfile

    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        args = [str(driver), "run", op_type, kernel_set, tmp]
        stored = []
        for k, item in enumerate(inputs):
            if item is None:
                args.append("--absent")
                stored.append(None)
                continue
            dtype, values = item
            raw, as_stored = encode(values, dtype)
            path = Path(tmp) / f"in{k}.bin"
            path.write_bytes(raw)
            shape = ",".join(str(d) for d in np.shape(values))
            args += ["--in", f"DT_{_ge_name(dtype)}", shape, str(path)]
            stored.append(as_stored)
        for kind, value in attrs or []:
            if kind == "default":
                args.append("--attr-default")
            else:
                args += [f"--attr-{kind}", str(int(value) if kind == "b" else value)]
        if cores is not None:
            args += ["--cores", str(cores)]
        if ub is not None:
            args += ["--ub", str(ub)]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"driver failed ({proc.returncode}): {proc.stderr}")
        result = json.loads(proc.stdout)
        for out in result["outputs"]:
            dtype = _GE_TO_DTYPE[out["dtype"]]
            out["dtype"] = dtype
            out["values"] = decode(Path(out["file"]).read_bytes(), dtype, out["shape"], exact)
        for upd in result.get("updated_inputs", []):
            if upd is not None:
                upd["dtype"] = _GE_TO_DTYPE[upd["dtype"]]
                upd["values"] = decode(Path(upd["file"]).read_bytes(), upd["dtype"], upd["shape"])
        result["inputs"] = stored
        return result


def _ge_name(dtype: str) -> str:
    return DTYPES[dtype].ge.removeprefix("DT_")


def golden(op, output: str, inputs: dict[str, np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    """The prototype's golden expression of `output`, evaluated in float64 with torch."""
    import torch

    scope: dict[str, Any] = {k: torch.from_numpy(v) for k, v in inputs.items()}
    scope.update(attrs)
    value = eval(op.golden[output], {"torch": torch}, scope)  # whitelisted by opgen.frontend.expr
    return value.to(torch.float64).numpy()


def precision(actual: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    """(MERE, MARE) with the standard's 1e-7 guard in the denominator."""
    if actual.size == 0:
        return 0.0, 0.0
    rel = np.abs(actual - expected) / (np.abs(expected) + 1e-7)
    return float(rel.mean()), float(rel.max())
