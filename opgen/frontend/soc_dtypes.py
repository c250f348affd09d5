"""Which of an op's dtype combinations each SoC of the project registers.

A combination holding bfloat16 computes through the float <-> bfloat16 Cast, which the 910A
and 310P generations lack (`catalog.SocFamily.has_bf16_cast`): such a SoC registers the other
combinations, in an OpAICoreConfig of its own (templates/host/op), with a warning. An op that
would leave a SoC with no combination, or a combination with no SoC, is refused. An
expand(x, size) casts nothing (it moves bfloat16 as 16-bit words): every SoC registers all of it.
"""

from __future__ import annotations

from opgen.frontend.catalog import SOC_FAMILIES
from opgen.frontend.model import Op

Combination = tuple[str, ...]


class SocDtypeError(ValueError):
    """No SoC of the project can run some dtype combination of the op, or a SoC is left with
    none; `op` is the op, for the JSON path of the message."""

    def __init__(self, op: Op, message: str) -> None:
        super().__init__(f"{op.op_type}: {message}")
        self.op = op


def runs_on(combo: Combination, soc: str, op: Op | None = None) -> bool:
    """Whether the SoC family `soc` (a short name) can run the combination (of `op`: an
    expand(x, size) runs every one)."""
    moved = op is not None and op.expand is not None
    return moved or SOC_FAMILIES[soc].has_bf16_cast or "bfloat16" not in combo


def per_soc(op: Op, socs: list[str]) -> dict[str, list[Combination]]:
    """Per SoC short name, the combinations it registers, in the prototype's order."""
    return {s: [c for c in op.dtype_combinations if runs_on(c, s, op)] for s in socs}


def check(op: Op, socs: list[str]) -> list[str]:
    """Warnings naming the SoCs that leave combinations out; SocDtypeError when a SoC keeps
    none or a combination runs on no SoC."""
    why = refusal(op, socs)
    if why:
        raise SocDtypeError(op, why)
    return warnings(op, socs)


def _lacking(op: Op, socs: list[str]) -> list[str]:
    """The SoCs without the bfloat16 Cast, when some combination of `op` needs it."""
    combos = op.dtype_combinations
    if op.expand is not None or not any("bfloat16" in c for c in combos):
        return []  # an expand(x, size) moves bfloat16 as words: no Cast
    return [s for s in socs if not SOC_FAMILIES[s].has_bf16_cast]


def refusal(op: Op, socs: list[str]) -> str:
    """Why no SoC can run a combination of `op`, or a SoC is left with none ("": neither)."""
    lacking = _lacking(op, socs)
    fix = "list a SoC that has it (e.g. --soc ascend910b1) or drop bfloat16 from the prototype"
    if lacking and len(lacking) == len(socs):
        return (
            f"dtype bfloat16 needs the float <-> bfloat16 Cast, which "
            f"{_and(lacking)} {'lacks' if len(lacking) == 1 else 'lack'}: "
            f"no SoC of the project can run it; {fix}"
        )
    kept = per_soc(op, socs)
    empty = [s for s in lacking if not kept[s]]
    if empty:
        return (
            f"every dtype combination holds bfloat16, which needs the "
            f"float <-> bfloat16 Cast that {_and(empty)} "
            f"{'lacks' if len(empty) == 1 else 'lack'}: nothing is left to "
            f"register there; add a combination without bfloat16 or drop "
            f"{'that SoC' if len(empty) == 1 else 'those SoCs'}"
        )
    return ""


def warnings(op: Op, socs: list[str]) -> list[str]:
    """The warnings naming the SoCs that leave combinations out (of an op without a refusal)."""
    combos = op.dtype_combinations
    dropped = sum("bfloat16" in c for c in combos)
    return [
        f"{op.op_type}: dtype bfloat16 is not registered for {s}, which has no float <-> "
        f"bfloat16 Cast ({dropped} of {len(combos)} dtype combinations left out there)"
        for s in _lacking(op, socs)
    ]


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
