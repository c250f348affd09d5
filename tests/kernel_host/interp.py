"""A tiny interpreter of the compute step opgen emits, for checking the lowering's meaning.

It executes the body of `<Op>Compute()` line by line on numpy arrays (one per tile: outputs,
inputs and temporaries), honouring `#if defined(__NPU_ARCH__) ...` branches, and enforces the
API rules the lowering must respect: the high-level APIs (Tanh, Sigmoid, Sign, Floor, Ceil, Erf,
Power) neither write over their source nor run without a sharedTmpBuffer; a Compare mask lives
in its tile (writing the tile loses it, and Select must read a mask); opgen_kernel.h's integer
CompareMask/Choose read none of their tiles back and leave garbage in their
scratch tile, which must be none of their operands. Scalar operands are
evaluated as C++ float expressions over the tiling struct (float literals, static_cast<...>,
+ - * / and parentheses).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

_CALL = re.compile(r"^(?:AscendC|opgen_kernel)::(\w+)\((.*)\);$")
_DECL = re.compile(
    r"^const AscendC::LocalTensor<(\w+)> (\w+) = "
    r"(\w+)(?:\[[^\]]*\])?(\.ReinterpretCast<\w+>\(\))?;$"
)


def _split_args(text: str) -> list[str]:
    args, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    args.append(cur.strip())
    return args


def scalar(text: str, tiling: dict[str, Any]) -> float:
    """Evaluate a C++ scalar expression the lowering emits."""
    expr = re.sub(r"static_cast<\w+>", "", text)
    expr = re.sub(r"(\d(?:[\d.]*)(?:e[+-]?\d+)?)f\b", r"\1", expr)
    expr = re.sub(r"tiling\.(\w+)", r"tiling['\1']", expr)
    return float(eval(expr, {"__builtins__": {}}, {"tiling": tiling}))  # test-only input


_UNARY = {
    "Exp": np.exp,
    "Ln": np.log,
    "Sqrt": np.sqrt,
    "Rsqrt": lambda v: 1 / np.sqrt(v),
    "Abs": np.abs,
    "Reciprocal": lambda v: 1 / v,
    "Relu": lambda v: np.where(v > 0, v, 0.0),
    "Tanh": np.tanh,
    "Sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "Sign": np.sign,
    "Floor": np.floor,
    "Ceil": np.ceil,
    "Erf": np.vectorize(math.erf, otypes=[np.float64]),
}
_ADV = ("Tanh", "Sigmoid", "Sign", "Floor", "Ceil", "Erf")
_BINARY = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Div": np.divide,
    "Max": np.fmax,
    "Min": np.fmin,
}
# Max/Min/Relu with NaN: the twin's rule (a NaN loses; asc-devkit documents none)
_SCALAR = {"Adds": np.add, "Muls": np.multiply, "Maxs": np.fmax, "Mins": np.fmin}
_CMP = {
    "LT": np.less,
    "LE": np.less_equal,
    "GT": np.greater,
    "GE": np.greater_equal,
    "EQ": np.equal,
    "NE": np.not_equal,
}
_MASK = re.compile(r"^(\w+)\.(?:template )?ReinterpretCast<uint8_t>\(\)$")


def _statements(body: str) -> list[str]:
    """The body's statements and preprocessor lines, a call wrapped over lines joined again;
    no comments or blank lines."""
    statements: list[str] = []
    pending = ""
    for raw in body.splitlines():
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        if pending:
            pending += " " + line
        elif line.startswith("#") or line.endswith((";", "{", "}")):
            statements.append(line)
            continue
        else:
            pending = line
        if pending.endswith(";"):
            statements.append(pending)
            pending = ""
    return statements


def run(
    body: str, tiles: dict[str, np.ndarray], tiling: dict[str, Any], arch: int | None = None
) -> dict[str, np.ndarray]:
    """Execute the body; `tiles` maps parameter names to arrays (outputs may hold garbage)."""
    tiles = {k: np.array(v, dtype=np.float64) for k, v in tiles.items()}
    n = len(next(iter(tiles.values())))
    shared: set[str] = set()
    masks: dict[str, np.ndarray] = {}  # tile -> the Compare bits it holds
    active = [True]
    calls = []
    for line in _statements(body):
        if line.startswith("#if "):
            cond = line[4:]
            arches = [int(a) for a in re.findall(r"__NPU_ARCH__ == (\d+)", cond)]
            active.append(arch is not None and arch in arches)
            continue
        if line == "#else":
            active[-1] = not active[-1]
            continue
        if line == "#endif":
            active.pop()
            continue
        if not all(active):
            continue
        if line.startswith("const uint32_t "):  # cmpCount
            continue
        decl = _DECL.match(line)
        if decl:
            ctype, name = decl.group(1), decl.group(2)
            if ctype == "uint8_t":
                shared.add(name)
            else:
                tiles[name] = np.full(n, np.nan)  # fresh scratch holds garbage
            continue
        call = _CALL.match(line)
        if not call:
            raise AssertionError(f"unexpected line in the compute step: {line}")
        api, args = call.group(1), _split_args(call.group(2))
        calls.append(api)
        mask_args = {i: m.group(1) for i, a in enumerate(args) if (m := _MASK.match(a))}
        args = [mask_args.get(i, a) for i, a in enumerate(args)]
        dst = args[0]
        assert dst in tiles, f"{api} writes {dst}, which is not a tile"
        if api in ("Compare", "Compares"):
            assert 0 in mask_args, f"{api} writes a uint8_t mask ({line})"
            assert dst not in args[1:3], f"{api} must not write its mask over a source ({line})"
            mode = args[3].rsplit("::", 1)[1]
            other = tiles[args[2]] if api == "Compare" else scalar(args[2], tiling)
            masks[dst] = _CMP[mode](tiles[args[1]], other)
            tiles[dst] = np.full(n, np.nan)
            continue
        if api in ("CompareMask", "Choose"):
            _library_call(api, args, tiles, masks, tiling, line)
            continue
        if api == "Select":
            assert 1 in mask_args and args[1] in masks, f"Select reads no mask ({line})"
            assert dst != args[1], f"Select must not write over its mask ({line})"
            mode = args[4].rsplit("::", 1)[1]
            other = tiles[args[3]] if mode == "VSEL_TENSOR_TENSOR_MODE" else scalar(args[3], tiling)
            value = np.where(masks[args[1]], tiles[args[2]], other)
            masks.pop(dst, None)
            tiles[dst] = value
            continue
        masks.pop(dst, None)
        if api == "FusedMulAdd":  # dst = src0 * dst + src1, rounded once
            assert dst not in args[1:3], f"FusedMulAdd reads its dst besides ({line})"
            value = tiles[args[1]] * tiles[dst] + tiles[args[2]]
        elif api in _BINARY:
            value = _BINARY[api](tiles[args[1]], tiles[args[2]])
        elif api in _SCALAR:
            value = _SCALAR[api](tiles[args[1]], scalar(args[2], tiling))
        elif api in _ADV:
            assert dst != args[1], f"{api} must not write over its source ({line})"
            assert args[2] in shared, f"{api} needs the sharedTmpBuffer ({line})"
            value = _UNARY[api](tiles[args[1]])
            if api in ("Floor", "Ceil") and arch == 2002:  # the twin: |x| <= 2^31 - 1 only
                src = tiles[args[1]]
                outside = ~(np.abs(src) <= 2147483647.0)
                value = np.where(
                    outside,
                    np.where(
                        np.isnan(src), 0.0, np.clip(np.nan_to_num(src), -2147483648.0, 2147483647.0)
                    ),
                    value,
                )
        elif api == "Power":  # Power(dst, src, exponent, sharedTmp, count)
            assert dst != args[1], f"{api} must not write over its source ({line})"
            assert args[3] in shared, f"{api} needs the sharedTmpBuffer ({line})"
            value = np.power(tiles[args[1]], scalar(args[2], tiling))
        elif api in _UNARY:
            value = _UNARY[api](tiles[args[1]])
        elif api == "Duplicate":
            value = np.full(n, scalar(args[1], tiling))
        else:
            raise AssertionError(f"unknown API {api}")
        tiles[dst] = value
    tiles["__calls__"] = calls
    return tiles


def _library_call(api, args, tiles, masks, tiling, line) -> None:
    """opgen_kernel.h's CompareMask(mask, a, b|s, mode, count, scratch) and
    Choose(dst, mask, a|s, b|s, count, scratch); a mask is the tile holding it."""
    n = len(tiles[args[0]])
    dst, scratch = args[0], args[-1]
    assert scratch in tiles and scratch not in args[:-1], f"{api}: scratch overlaps ({line})"

    def operand(text: str):
        return tiles[text] if text in tiles else scalar(text, tiling)

    if api == "Choose":
        assert args[1] in masks, f"Choose reads no mask ({line})"
        assert dst not in args[1:4], f"Choose writes over an operand ({line})"
        masks.pop(dst, None)
        tiles[dst] = np.where(masks[args[1]], operand(args[2]), operand(args[3]))
    else:
        assert dst not in args[1:3], f"{api} writes over a source ({line})"
        mode = args[3].rsplit("::", 1)[1]
        masks[dst] = _CMP[mode](tiles[args[1]], operand(args[2]))
        tiles[dst] = np.full(n, np.nan)
    masks.pop(scratch, None)
    tiles[scratch] = np.full(n, np.nan)
