"""Build and test opgen's corpus overlays on the CPU twin, one at a time (not part of the suite).

    nice -n 10 .venv/bin/python bench/corpus_build.py [--validate] [--out DIR] [--keep-installed]
        [FILE ...]

For each overlay tests/data/corpus_opgen/<file> (or the FILEs given, paths relative to
tests/data/corpus), merges the overlay's `opgen` block onto the corpus prototype
tests/data/corpus/<file>, writes it to DIR/<stem>.json (<stem> the file's path with / as --) and
runs `opgen new` on it (which builds the project and runs its generated tests), or `opgen
validate` with --validate. Prints one line per file (file, exit code, seconds) and appends it to
DIR/results.tsv; each run's output is in DIR/<stem>.log. `opgen new` installs each project's
package editable into this Python; the script uninstalls it again after the tests
(--keep-installed keeps it). The verdicts in tests/data/corpus/OPGEN.tsv come from such runs:
at 82acbea 22 one-prototype files built and passed their generated tests, 27 to 46 s each
(94 and 160 s for the first two, run beside the quick tier) on 2 cores shared with other work;
at 21ee126 the six that int32 comparisons and index() made possible (GreaterEqual, LessEqual,
Tril and Triu twice each), 26 to 33 s each; with matmul ops the three matmuls (MatmulCustom,
matmul_leakyrelu_custom, MatMulSub), 26 to 29 s each; with expand(x, size) Expand, 234 s (its 12
dtypes' kernel variants built in 197 s; 211 generated tests passed); at c9841dd MseLoss, whose
string attr reduction chooses the output's shape (98 tests: each value over every shape), 142 s,
beside MseLossGrad 126 s and LpNormV2Custom 102 s (the extension's build most of each). With
the index ops (idx-pipe at 07e2520) none of the 16 'cannot' files became one prototype; the NCHW
form of average_pooling2d, {"y": "avg_pool2d(x, kernel_size)"} (a change to the op: the sample
pools NHWC), built in 87 s and failed 12 of its 17 tests (kernel_size, an int attr, passed as
[2, 2]); with that test value an int it built in 66 s and passed all 17. With roll's list_int
shifts/dims and the byte-moved dtypes (idx-roll) the two aclnn_roll files became one prototype:
all 9 dtypes in 73 s (121 tests passed), complex64 in 66 s (17 passed). With the channels-last
pooling (s3-nhwc) average_pooling2d, written avg_pool2d(x.permute(0, 3, 1, 2),
kernel_size).permute(0, 2, 3, 1), became one prototype: 385 s (the extension's build 358 s on
2 loaded cores), 17 passed, 3 skipped (NPU). With gcd(a, b) (s3-gcd)
Gcd became one prototype: int16, int32 and int64 in 63 s alone, 450 s beside five other builds
(60 passed, 18 skipped: the float boundary values, the backward and the NPU's). With histc
(s3-histc) Histogram became one prototype: float32, float16 and int32 in 170 s (336 and 515 s
beside other builds), 47 passed, 11 skipped (the NPU's, and int32's NaN refusal). With
nll_loss (s3-nll) NLLLoss became one prototype: 87 to 285 s beside other builds, 49 passed
(each reduction over every shape, ignore_index=0 hit by the targets), 4 skipped (the NPU's).
With index_add's alpha, the small integers, index_reduce and in-place index ops (s3-scatter)
ScatterSub and ScatterMax became one prototype: 156 s and 136 s run side by side with other
builds (76 tests passed each; the 16 skipped are test_npu_precision). With spence(x)
(s3-spence) Spence became one prototype: bfloat16, float16 and float32 in 282 s (the extension
172 s, the tests 106 s; 507 s beside other builds), 58 passed, 17 skipped (the NPU's and the
backward's: the golden has no derivative).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
OVERLAYS = ROOT / "tests" / "data" / "corpus_opgen"


def merged(name: str) -> list | dict:
    """The corpus prototype `name` with the overlay as every op's `opgen` block."""
    proto = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    block = json.loads((OVERLAYS / name).read_text(encoding="utf-8"))
    for op in proto if isinstance(proto, list) else [proto]:
        op["opgen"] = block
    return proto


def uninstall(project: Path) -> None:
    """Uninstall the package `opgen new` installed editable from `project`, if it got that far."""
    manifest = project / ".opgen" / "manifest.json"
    if not manifest.is_file():
        return
    package = json.loads(manifest.read_text(encoding="utf-8"))["options"]["package"]
    pip = [sys.executable, "-m", "pip", "uninstall", "-y", "--disable-pip-version-check", package]
    subprocess.run(pip, capture_output=True, check=False)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="*")
    parser.add_argument("--validate", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("/tmp/corpus_build"))
    parser.add_argument("--keep-installed", action="store_true")
    args = parser.parse_args()
    overlays = (p.relative_to(OVERLAYS).as_posix() for p in OVERLAYS.rglob("*.json"))
    names = args.files or sorted(overlays)
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    failed = 0
    for name in names:
        stem = name.replace("/", "--").removesuffix(".json")
        proto_file = args.out / f"{stem}.json"
        proto_file.write_text(json.dumps(merged(name), indent=2), encoding="utf-8")
        if args.validate:
            cmd = [sys.executable, "-m", "opgen", "validate", str(proto_file)]
        else:
            project = args.out / stem
            shutil.rmtree(project, ignore_errors=True)
            cmd = [
                sys.executable,
                "-m",
                "opgen",
                "new",
                str(proto_file),
                "-o",
                str(project),
                "--no-msopgen",
            ]
        start = time.monotonic()
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        seconds = time.monotonic() - start
        (args.out / f"{stem}.log").write_text(run.stdout + run.stderr, encoding="utf-8")
        line = f"{name}\t{run.returncode}\t{seconds:.0f}"
        print(line, flush=True)
        if not args.validate:
            with (args.out / "results.tsv").open("a", encoding="utf-8") as results:
                results.write(line + "\n")
        failed += run.returncode != 0
        if not args.validate and not args.keep_installed:
            uninstall(project)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
