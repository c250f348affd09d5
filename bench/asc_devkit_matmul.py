"""asc-devkit's Matmul examples on the CPU twin: which build, run, verify (not part of the suite).

    nice -n 10 /work/main/.venv/bin/python bench/asc_devkit_matmul.py [--out DIR] [--jobs N]
        [--timeout S] [--move-regist] [NAME ...]

The examples are asc-devkit's `examples/01_simd_cpp_api/04_advanced_api/00_matmul/*` and
`examples/01_simd_cpp_api/00_introduction/03_fusion_operation/matmul_leakyrelu_advanced_api`:
each a `.asc` file (a `__global__` kernel using the Matmul high-level API, a GenerateTiling()
with matmul_tiling on the host, a main() with the ACL runtime and `kernel<<<n, 0, stream>>>(...)`)
plus scripts/gen_data.py and scripts/verify_result.py. None of their code is committed: each
example is materialized from the local bare mirror /work/.mirror/mirror-cann+asc-devkit/repo at
HEAD (what the session's `fetch` tool brings; a script cannot fetch, so a missing mirror is
reported and every example skipped) into DIR/<name>/, then turned into C++ for the twin by one
mechanical rewrite, written next to it as <name>.cpp, and two build settings:

- `kernel<<<numBlocks, l2ctrl, stream>>>(args...)` becomes
  `opgen_twin_acl::Launch("kernel", kernel, numBlocks, args...)`: bench/asc_devkit_shim/acl/acl.h
  (found as "acl/acl.h" by -I) maps the ACL runtime (aclInit, aclrtMalloc/MallocHost/Memcpy/Free,
  streams, ...) to host memory and launches through opgen_twin/launch_direct.h, every
  aclrtMalloc'd buffer a GM buffer, the argument before the last the system workspace.
- The CMakeLists' `target_compile_definitions` become -D flags (its variables at their set()
  defaults, CMAKE_ASC_RUN_MODE "cpu": `if (VAR EQUAL n)`/`STREQUAL` and else followed), e.g.
  matmul_ibshareAB's SCENARIO_NUM=1 and CYCLENUMS=1.
- The shim header includes <iostream> (the examples use std::cout without it; on CANN another
  header brings it) and gives data_utils.h's aclFloat16 / aclFloat16ToFloat.

It is compiled with `g++ -std=c++17 -O1 -I opgen/twin/include -I bench/asc_devkit_shim
-I DIR/<name>` (no __NPU_ARCH__: the twin emulates Atlas A2, 2201; no ASCENDC_CPU_DEBUG, so no
cpu_debug_launch.h), and run as the example's README says, in DIR/<name>/build: its gen_data.py
line (with this Python, which needs numpy), ./demo, its verify_result.py line. One line per example
goes to stdout and DIR/results.tsv: the architecture the example is built for by default
(dav-2201 is Atlas A2, which the twin emulates; dav-3510 is Ascend 950), the outcome (passed, or
the step that failed: build, gen_data, run, verify), the first error (the compiler's first
`error:`, the twin's `[twin] ...` launch error, an uncaught exception's what(), verify's last
line), and the Matmul features the example uses that the twin does not emulate
(opgen/twin/README.md "Not emulated", and a few it lacks), which explain most failures.

--move-regist then takes each example that passed, moves its REGIST_MATMUL_OBJ statement out of
the kernel entry into a helper (`OpgenMovedRegister(args)`, a function template defined just
before the entry that expands the macro with the same arguments) and runs it again. On Atlas A2
the macro on the AIC serves and returns from the helper, and on an AIV the client ends with the
helper, so a mixed kernel's later Matmul calls fail: the run must fail with a message naming
REGIST_MATMUL_OBJ. A kernel built with ASCENDC_CUBE_ONLY registers with InitCurObj (asc-devkit
kfc_register_obj.h): no server, no client, and the moved registration still passes, as on the NPU.

Figures (asc-devkit 82b89a15f, 2026-11-29, 9 min with --move-regist; details in docs/bench.md
"asc-devkit Matmul examples on the twin"): 42 examples (34 for Atlas A2, 8 for Ascend 950 only),
7 pass (matmul, matmul_a2b2_share, matmul_k_reorder_load, matmul_multi_core_unaligned,
matmul_unitflag, matmul_leakyrelu_advanced_api, matmul_format_nd_align); 31 do not build (features
not emulated or APIs the twin lacks), 4 stop with a twin error (async Iterate; GetBlockIdx() read
before the mixed type is known; g_coreType read before any type, in matmul_preload's `__cube__`
kernel), none verifies a wrong result (the first run found two, since fixed in the twin: ND_ALIGN C
in GM, and that g_coreType). Moved registrations: the 2 mixed kernels
fail naming REGIST_MATMUL_OBJ, the 4 ASCENDC_CUBE_ONLY ones pass; 0 unexpected.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIRROR = Path("/work/.mirror/mirror-cann+asc-devkit/repo")
EXAMPLES = "examples/01_simd_cpp_api/04_advanced_api/00_matmul"
EXTRA = [
    "examples/01_simd_cpp_api/00_introduction/03_fusion_operation/matmul_leakyrelu_advanced_api"
]
CXX = [
    "g++",
    "-std=c++17",
    "-O1",
    "-I",
    str(ROOT / "opgen" / "twin" / "include"),
    "-I",
    str(ROOT / "bench" / "asc_devkit_shim"),
]
COLUMNS = ["example", "arch", "outcome", "seconds", "first_error", "not_emulated"]
# Matmul features the twin does not emulate (opgen/twin/README.md, Matmul "Not emulated" and
# "Element types"), by a pattern of the source that uses them.
FEATURES = [
    (r"int4b_t|DT_INT4", "int4"),
    (r"fp8_e4m3|fp8_e5m2|hifloat8|DT_FLOAT8|DT_HIFLOAT8", "fp8/hif8"),
    (r"fp4x2|e8m0|MatmulTypeWithScale|\bMX\b|_mx_|Mx[A-Z]", "mx"),
    (r"\bint8_t\s*>|DT_INT8|Quant|quant", "int8/quant"),
    (r"SPARSE|Sparse|sparse", "sparse"),
    (r"IterateBatch|IterateNBatch|BatchMatmul|LayoutMode::(?!NONE)", "BatchMatmul"),
    (r"Iterate<false>|IterateAll<false>|GetTensorC<false>", "async"),
    (r"MatmulCallBackFunc<[^>]*?(?:&|\b(?!nullptr\b)[A-Za-z_])", "callbacks"),
    (r"CubeFormat::NZ|FORMAT_FRACTAL_NZ", "NZ"),
    (r"TPosition::TSCM|TPosition::VECOUT\s*,\s*CubeFormat", "TSCM/VECOUT input"),
    (r"IBSHARE|ibshare|isIBShare|IBShare", "IBShare"),
    (r"MixDualMaster|enableMixDualMaster|mixdualmaster", "MixDualMaster"),
    (r"CO1|TPosition::CO1", "CO1 output"),
    (r"CrossCoreSetFlag|CrossCoreWaitFlag", "CrossCore flags"),
    (r"enPartialSum|Iterate\(true", "partial sums"),
    (r"SetHF32\(true|HF32", "HF32"),
    (r"GetBatchTensorC|SetBatchNum", "BatchMatmul"),
    (r"CubeFormat::COLUMN_MAJOR", "COLUMN_MAJOR"),
    (r"CubeFormat::VECTOR", "GEMV (VECTOR A)"),
    (r"MatmulShapeParams|GetMatmulApiTiling", "constant tiling"),
    (r"Impl::Detail::\w*Policy", "custom policy"),
    (r"ScheduleType::OUTER_PRODUCT", "OUTER_PRODUCT"),
    (r"EnableMultiCoreSplitK\(true", "multi-core K split"),
    (r"isPartialOutput\s*=\s*true", "partial output"),
    (r"AscendC::Std::", "AscendC::Std"),
]


def names() -> list[str]:
    """The example directories' paths in the mirror, the 00_matmul ones then EXTRA."""
    git = ["git", f"--git-dir={MIRROR}", "ls-tree", "-d", "--name-only", "HEAD", EXAMPLES + "/"]
    listing = subprocess.run(git, capture_output=True, text=True, check=True).stdout.split()
    return [*listing, *EXTRA]


def materialize(path: str, dest: Path) -> str | None:
    """The example's files at HEAD under `dest` (as bench/adopt_corpus.py); None, or why not."""
    git = ["git", f"--git-dir={MIRROR}"]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "-z", "HEAD", "--", path + "/"], capture_output=True
    )
    if listing.returncode:
        return f"git ls-tree: {listing.stderr.decode(errors='replace').strip()}"
    dest.mkdir(parents=True)
    for entry in filter(None, listing.stdout.decode().split("\0")):
        meta, name = entry.split("\t", 1)
        if meta.split()[1] != "blob":
            continue
        blob = subprocess.run([*git, "cat-file", "blob", meta.split()[2]], capture_output=True)
        if blob.returncode == 0:
            target = dest / Path(name).relative_to(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob.stdout)
    return None


def split_args(text: str) -> list[str]:
    """`text` split at its top-level commas (not inside (), <>, [] or {})."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "(<[{"
        depth -= ch in ")>]}"
        if ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


LAUNCH = re.compile(r"(\w+)\s*<<<(.*?)>>>\s*\(", re.DOTALL)


def rewrite_launch(source: str) -> str:
    """Each `k<<<n, l2ctrl, stream>>>(` as `opgen_twin_acl::Launch("k", k, n, `."""

    def launch(m: re.Match) -> str:
        blocks = split_args(m.group(2))[0]
        return f'opgen_twin_acl::Launch("{m.group(1)}", {m.group(1)}, {blocks}, '

    return LAUNCH.sub(launch, source)


def not_emulated(source: str) -> str:
    """The FEATURES the source uses, ' | '-joined."""
    found = [name for pattern, name in FEATURES if re.search(pattern, source, re.MULTILINE)]
    return " | ".join(dict.fromkeys(found))


def readme_command(example: Path, script: str) -> list[str]:
    """The arguments the README passes to `script` (gen_data.py, verify_result.py, ./demo)."""
    readme = example / "README.md"
    text = readme.read_text(errors="replace") if readme.is_file() else ""
    for line in text.splitlines():
        words = line.split("#")[0].split()
        if script == "./demo" and words[:1] == [script]:
            return words[1:]
        if words[:1] in (["python3"], ["python"]) and words[1:2] and words[1].endswith(script):
            return words[2:]
    if script == "verify_result.py":
        return ["output/output.bin", "output/golden.bin"]
    return []


COMMAND = re.compile(r"^\s*(\w+)\s*\(([^)]*)\)", re.MULTILINE)


def condition(text: str, variables: dict[str, str]) -> bool:
    """A CMake `if` condition of the form `VAR EQUAL n` or `VAR STREQUAL "s"` (others: false)."""
    m = re.fullmatch(r'\s*(\w+)\s+(EQUAL|STREQUAL)\s+"?([^"\s]*)"?\s*', text)
    return m is not None and variables.get(m.group(1), "").strip('"') == m.group(3)


def cmake_definitions(example: Path) -> list[str]:
    """`-D` flags of the CMakeLists' target_compile_definitions, its variables at their set()
    defaults and CMAKE_ASC_RUN_MODE "cpu" (the twin runs on the CPU), if/else followed."""
    cmake = example / "CMakeLists.txt"
    text = cmake.read_text(errors="replace") if cmake.is_file() else ""
    variables, active, flags = {}, [True], []
    for command, args in COMMAND.findall(text):
        command = command.lower()
        if command == "if":
            active.append(active[-1] and condition(args, variables))
        elif command == "else":
            active[-1] = not active[-1] and active[-2]
        elif command == "endif":
            active.pop()
        elif not active[-1]:
            continue
        elif command == "set" and args.split():
            name, value = args.split()[0], (args.split()[1:] or [""])[0]
            variables[name] = "cpu" if name == "CMAKE_ASC_RUN_MODE" else value.strip('"')
        elif command == "target_compile_definitions":
            for word in args.split()[2:]:
                value = re.sub(r"\$\{(\w+)\}", lambda m: variables.get(m.group(1), ""), word)
                flags.append("-D" + value)
    return flags


def arch(example: Path) -> str:
    """The NPU architecture the example builds for by default (its CMakeLists)."""
    cmake = example / "CMakeLists.txt"
    text = cmake.read_text(errors="replace") if cmake.is_file() else ""
    m = re.search(r'set\(CMAKE_ASC_ARCHITECTURES\s+"([^"]+)"', text)
    return m.group(1) if m else ""


def first_error(output: str) -> str:
    """The compiler's first `error:`, the twin's launch error, an exception's what(), else the
    last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for marker in ("error:", "[twin] ", "what():", "[ERROR]"):
        for line in lines:
            if marker in line:
                return line
    return lines[-1] if lines else ""


def step(cmd: list[str], cwd: Path, timeout: float) -> tuple[bool, str]:
    """Runs `cmd` in `cwd`: whether it exited 0, and its stderr then stdout."""
    try:
        run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"timeout after {timeout:.0f} s: {' '.join(cmd)}"
    output = run.stderr + run.stdout
    if run.returncode < 0:
        output += f"\nkilled by signal {-run.returncode}"
    return run.returncode == 0, output


def build(example: Path, asc: Path, cpp_text: str, timeout: float) -> tuple[bool, str]:
    """Writes the rewritten source next to the example and compiles it into build/demo."""
    cpp = example / (asc.stem + ".cpp")
    cpp.write_text(cpp_text, encoding="utf-8")
    (example / "build").mkdir(exist_ok=True)
    defines = cmake_definitions(example)
    cmd = ["nice", "-n", "10", *CXX, *defines, "-I", str(example), str(cpp), "-o", "build/demo"]
    ok, output = step(cmd, example, timeout)
    return ok, output.replace(str(example) + "/", "")


def run_steps(example: Path, timeout: float) -> tuple[str, str]:
    """gen_data, ./demo and verify_result as the README runs them in build/: (outcome, error)."""
    work = example / "build"
    python = sys.executable
    gen = [python, "../scripts/gen_data.py", *readme_command(example, "gen_data.py")]
    ok, output = step(gen, work, timeout)
    if not ok:
        return "gen_data", first_error(output)
    ok, output = step(["./demo", *readme_command(example, "./demo")], work, timeout)
    if not ok:
        return "run", first_error(output)
    verify = [python, "../scripts/verify_result.py", *readme_command(example, "verify_result.py")]
    ok, output = step(verify, work, timeout)
    if not ok or "pass" not in output.lower():
        return "verify", first_error(output)
    return "passed", ""


def run_example(path: str, out: Path, timeout: float, transform=None) -> dict:
    """Materialize, rewrite (then `transform`, if given), build and run one example: its record."""
    name = path.rsplit("/", 1)[-1]
    example = out / name
    if example.exists():
        shutil.rmtree(example)
    record = dict.fromkeys(COLUMNS, "")
    record["example"] = name
    start = time.monotonic()
    why = materialize(path, example)
    asc = next(iter(sorted(example.glob("*.asc"))), None) if why is None else None
    if asc is None:
        record.update(outcome="skipped", first_error=why or "no .asc file")
        return record
    source = asc.read_text(encoding="utf-8", errors="replace")
    record.update(not_emulated=not_emulated(source), arch=arch(example))
    cpp_text = rewrite_launch(source)
    if transform is not None:
        cpp_text, why = transform(cpp_text)
        if why:
            record.update(outcome="not moved", first_error=why)
            return record
    ok, output = build(example, asc, cpp_text, timeout)
    if ok:
        outcome, error = run_steps(example, timeout)
    else:
        outcome, error = "build", first_error(output)
    record.update(
        outcome=outcome, first_error=error[:400], seconds=f"{time.monotonic() - start:.0f}"
    )
    return record


def matching(text: str, open_at: int) -> int:
    """The index of the bracket closing the one at `open_at` (comments and strings not skipped)."""
    pair = {"(": ")", "{": "}"}[text[open_at]]
    depth = 0
    for i in range(open_at, len(text)):
        depth += text[i] == text[open_at]
        depth -= text[i] == pair
        if depth == 0:
            return i
    return len(text)


def in_comment(text: str, pos: int) -> bool:
    return "//" in text[text.rfind("\n", 0, pos) + 1 : pos]


def entries(source: str) -> list[tuple[int, int, int]]:
    """The kernel entries' definitions: (start of the declaration's line, body start, body end)."""
    found = []
    for m in re.finditer(r"__global__", source):
        if in_comment(source, m.start()):
            continue
        name = re.compile(r"void\s+\w+\s*\(").search(source, m.end())
        if name is None:
            continue
        params = name.end() - 1
        body = matching(source, params) + 1
        body += len(source[body:]) - len(source[body:].lstrip())
        if source.startswith("{", body):
            line = source.rfind("\n", 0, m.start()) + 1
            previous = source.rfind("\n", 0, max(line - 1, 0)) + 1
            if source[previous:line].strip() == 'extern "C"':
                line = previous
            found.append((line, body, matching(source, body)))
    return found


def move_regist(source: str) -> tuple[str, str]:
    """The source with the entry's REGIST_MATMUL_OBJ statement moved into a helper; or why not."""
    regs = [
        m
        for m in re.finditer(r"REGIST_MATMUL_OBJ\s*\(", source)
        if not in_comment(source, m.start())
    ]
    if not regs:
        return source, "no REGIST_MATMUL_OBJ"
    for line, body, end in entries(source):
        for m in regs:
            if body < m.start() < end:
                close = matching(source, m.end() - 1)
                args = split_args(source[m.end() : close])
                stop = source.find(";", close) + 1
                params = ", ".join(f"T{i}&& a{i}" for i in range(len(args)))
                names = ", ".join(f"a{i}" for i in range(len(args)))
                helper = (
                    f"template <{', '.join(f'class T{i}' for i in range(len(args)))}>\n"
                    f"__aicore__ inline void OpgenMovedRegister({params})\n{{\n"
                    f"    REGIST_MATMUL_OBJ({names});\n}}\n\n"
                )
                call = f"OpgenMovedRegister({', '.join(args)});"
                moved = source[: m.start()] + call + source[stop:]
                return moved[:line] + helper + moved[line:], ""
    return source, "REGIST_MATMUL_OBJ is not in a kernel entry already"


def expected_moved(record: dict, source: str) -> str:
    """Whether a moved registration's run did what the NPU does (see the module docstring)."""
    cube_only = re.search(r"^\s*#define ASCENDC_CUBE_ONLY", source, re.MULTILINE) is not None
    if cube_only:
        return "as expected (ASCENDC_CUBE_ONLY)" if record["outcome"] == "passed" else "UNEXPECTED"
    named = "REGIST_MATMUL_OBJ" in record["first_error"]
    return "as expected" if record["outcome"] == "run" and named else "UNEXPECTED"


def report(records: list[dict], path: Path, columns: list[str]) -> None:
    """One tab-separated line per record to stdout and `path` (with a header)."""
    lines = ["\t".join(columns)]
    for record in records:
        lines.append("\t".join(str(record.get(c, "")).replace("\t", " ") for c in columns))
    print("\n".join(lines), flush=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_all(paths: list[str], out: Path, jobs: int, timeout: float, transform=None) -> list[dict]:
    """run_example over `paths`, `jobs` at a time (each outcome printed as it comes), in the
    order given."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_example, p, out, timeout, transform) for p in paths]
        for future in as_completed(futures):
            record = future.result()
            print(f"# {record['example']}: {record['outcome']}", file=sys.stderr, flush=True)
        return [f.result() for f in futures]


def moved_pass(paths: list[str], records: list[dict], args: argparse.Namespace) -> int:
    """--move-regist: the passing examples again, registration moved; the unexpected count."""
    passing = [p for p, r in zip(paths, records, strict=True) if r["outcome"] == "passed"]
    moved = run_all(passing, args.out / "moved", args.jobs, args.timeout, move_regist)
    for record in moved:
        asc = next((args.out / "moved" / record["example"]).glob("*.asc"), None)
        source = asc.read_text(errors="replace") if asc else ""
        record["moved"] = expected_moved(record, source) if record["outcome"] != "not moved" else ""
    columns = ["example", "outcome", "moved", "first_error"]
    report(moved, args.out / "moved.tsv", columns)
    return sum(r["moved"] == "UNEXPECTED" for r in moved)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="example directory names (default: all)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/asc_devkit_matmul"))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--move-regist", action="store_true")
    args = parser.parse_args()
    if not MIRROR.is_dir():
        print(
            f"skipped: no mirror {MIRROR} (fetch github:mirror-cann/asc-devkit in a session first)"
        )
        return 1
    paths = [p for p in names() if not args.names or p.rsplit("/", 1)[-1] in args.names]
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("OPGEN_TWIN_THREADS", "2")
    records = run_all(paths, args.out, args.jobs, args.timeout)
    report(records, args.out / "results.tsv", COLUMNS)
    passed = sum(r["outcome"] == "passed" for r in records)
    print(f"{passed} of {len(records)} examples passed", flush=True)
    if args.move_regist:
        unexpected = moved_pass(paths, records, args)
        print(f"moved registrations: {unexpected} unexpected outcomes", flush=True)
        return 1 if unexpected else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
