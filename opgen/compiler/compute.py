"""The compute step compiled for the target SoCs: the type the combinations compute in, the
APIs some targets lack and the `#if __NPU_ARCH__` variants that compute them another way, and
each variant's program (lower.py). The planner (planning/kernel.py) names and lays out the
result; checks.py has refused, before planning, every op this cannot compile."""

from __future__ import annotations

from dataclasses import dataclass

from opgen.compiler.lower import (
    MASK_OPS,
    SELECT_OPS,
    SMALL_DOMAIN_FLOOR_SOCS,
    SPECIAL_VALUE_FUNCS,
    Allocation,
    IndexAxis,
    Instr,
    Lowerer,
    Program,
    allocate,
    api_funcs,
    computed_tree,
)
from opgen.compiler.streams import Combination, Tensor, scalar_loop_only
from opgen.frontend import expr, functions
from opgen.frontend.catalog import SOC_FAMILIES, compute_type
from opgen.frontend.model import Op

# The compute functions' APIs some SoCs lack (functions.APIS, by the catalog's missing_apis
# keys; "pow" is `**` with a non-integer exponent): those the kernel computes another way there,
# and what through, and those without a fallback (an error).
_APIS = {api.key: api for api in functions.APIS}
MISSABLE_APIS = tuple(api.key for api in functions.APIS if api.fallback)
FALLBACK_VIA = {api.key: api.fallback for api in functions.APIS if api.fallback}
UNAVOIDABLE_APIS = tuple(api.key for api in functions.APIS if not api.fallback)


def api_name(func: str) -> str:
    """The Ascend C API of a compute function in MISSABLE_APIS or UNAVOIDABLE_APIS."""
    return _APIS[func].name


# The SoCs the row kernel runs on: the catalog's with ReduceSum/Max/Min in float.
ROW_SOCS = tuple(s for s, f in SOC_FAMILIES.items() if f.has_reduce and f.has_float_reduce)


ROW_SOC_LIMITS = {
    "ascend910": "ascend910's ReduceSum/ReduceMax/ReduceMin take half only (ReduceSum.md), and "
    "the row kernel reduces in float",
}


@dataclass(frozen=True)
class Variant:
    """One lowering of the compute step: all of it, or one `#if __NPU_ARCH__` branch."""

    arches: list[int]  # the #if branch's __NPU_ARCH__ values; []: the #else branch, or none
    note: str  # the SoCs that lack an API the branch computes another way
    api_ok: dict[str, bool]  # per function of MISSABLE_APIS: whether its API is there


@dataclass(frozen=True)
class Lowering:
    """The lowered compute step: each variant's program and allocation, and what they share."""

    mode: str  # float | int | template
    ctype: str  # the compute type (T for a template)
    variants: list[Variant]
    lowered: list[tuple[Program, Allocation]]  # per variant
    host_scalars: dict[expr.Node, str]  # attr math the host computes: its tiling field
    used_funcs: set[str]
    short_missing: dict[str, list[str]]  # per function, the target SoCs without its API
    warnings: list[str]
    one: str  # 1 and -1 in the compute type, as the Lowerer spells them (the emitter's too)
    minus_one: str
    index_axes: tuple[IndexAxis, ...] = ()  # index(dim)'s axes and their tiling fields

    @property
    def instrs(self) -> list[Instr]:
        return [i for p, _ in self.lowered for i in p.instrs]

    @property
    def temps(self) -> int:
        return max(a.temps for _, a in self.lowered)

    @property
    def shared_apis(self) -> list[str]:
        """The high-level APIs that take the sharedTmpBuffer."""
        return sorted({i.op for i in self.instrs if i.shared_tmp})

    @property
    def compares(self) -> bool:
        return any(i.op in MASK_OPS for i in self.instrs)

    @property
    def selects(self) -> bool:
        return any(i.op in SELECT_OPS for i in self.instrs)

    @property
    def exp_fallbacks(self) -> list[str]:
        """APIs computed through Exp on the SoCs that lack them."""
        return sorted(
            api_name(f)
            for f in MISSABLE_APIS
            if "Exp" in FALLBACK_VIA[f] and f in self.used_funcs and self.short_missing[f]
        )


@dataclass(frozen=True)
class Targets:
    """What the compute step compiles against: the combinations' compute mode and types, per
    function of MISSABLE_APIS and UNAVOIDABLE_APIS the target SoCs without its API, each
    output's tree as the targets compute it and the API functions those trees use."""

    mode: str  # float | int | template
    ctype: str  # the compute type (T for a template)
    ctypes: frozenset[str]
    short_missing: dict[str, list[str]]
    trees: dict[str, expr.Node]
    used_funcs: set[str]


def targets(op: Op, socs: list[str], combos: list[Combination]) -> Targets:
    """The compute step's targets: `socs` (short names) and the combinations' compute types."""
    mode, ctype = compute_mode(combos)
    short_missing = {
        f: sorted({s for s in socs if f in SOC_FAMILIES[s].missing_apis})
        for f in MISSABLE_APIS + UNAVOIDABLE_APIS
    }
    ctypes = frozenset(_compute_types(combos))
    trees = {o: kernel_tree(op, socs, o, mode, ctypes) for o in op.compute}
    used_funcs = {f for tree in trees.values() for f in api_funcs(tree, mode)}
    return Targets(mode, ctype, ctypes, short_missing, trees, used_funcs)


def lower_compute(
    op: Op,
    socs: list[str],
    streamed: list[Tensor],
    combos: list[Combination],
    tiling_names: set[str],
    attr_fields: dict[str, str],
) -> Lowering:
    """Lower the compute expressions for the combinations and the targets (checks.py refuses,
    before planning, what cannot be): once, or once per `#if __NPU_ARCH__` branch when only
    some targets lack an API."""
    ins = [t for t in streamed if t.role == "input"]
    outs = [t for t in streamed if t.role == "output"]
    tg = targets(op, socs, combos)
    mode, ctype, ctypes = tg.mode, tg.ctype, tg.ctypes
    warnings = special_values_warning(op, socs, ctypes) if mode != "int" else []
    variants = soc_variants(tg.short_missing, tg.used_funcs, len(socs))
    host_scalars: dict[expr.Node, str] = {}
    lowered = []
    for v in variants:
        lw = Lowerer(
            op,
            mode,
            ctype,
            v.api_ok,
            host_scalars,
            tiling_names,
            attr_fields,
            ctypes,
            special_values=special_values_exact(socs, ctypes),
            floor_domain=floor_domain(socs),
        )
        prog = lw.lower([t.param.name for t in ins], [t.param.name for t in outs])
        lowered.append((prog, allocate(prog)))
    return Lowering(
        mode,
        ctype,
        variants,
        lowered,
        host_scalars,
        tg.used_funcs,
        tg.short_missing,
        warnings,
        lw.literal(1.0, expr.Const(1.0)),
        lw.literal(-1.0, expr.Const(-1.0)),
        tuple(lw.index_axes.values()),
    )


def compute_mode(combos: list[Combination]) -> tuple[str, str]:
    """float or int with its one compute type, or a template over T when the combinations
    compute in several."""
    types = _compute_types(combos)
    if len(types) == 1:
        return "float" if types == {"float"} else "int", types.pop()
    return "template", "T"


def _compute_types(combos: list[Combination]) -> set[str]:
    """The combinations' compute types: each computes in one (checks._check_combinations
    refuses the op before its compute step is lowered otherwise)."""
    types = {c.compute_type for c in combos}
    if None in types:
        raise ValueError("a dtype combination computes in no one type")
    return {t for t in types if t is not None}


def soc_variants(
    short_missing: dict[str, list[str]], used_funcs: set[str], soc_count: int
) -> list[Variant]:
    """One lowering, or two chosen by __NPU_ARCH__ when only some targets lack an API. A
    target that lacks one and has no documented __NPU_ARCH__ (bs9sx1a) no #if can pick out:
    then every target computes without the APIs some lack."""
    used_missing = [f for f in MISSABLE_APIS if f in used_funcs and short_missing[f]]
    lacking = {SOC_FAMILIES[s].npu_arch for f in used_missing for s in short_missing[f]}
    if None in lacking or not any(len(short_missing[f]) < soc_count for f in used_missing):
        return [
            Variant(
                [],
                _missing_note(short_missing, used_funcs),
                {f: not short_missing[f] for f in MISSABLE_APIS},
            )
        ]
    return [
        Variant(
            sorted(a for a in lacking if a is not None),
            _missing_note(short_missing, used_funcs),
            {f: not short_missing[f] for f in MISSABLE_APIS},
        ),
        Variant([], "", {f: True for f in MISSABLE_APIS}),
    ]


# SoCs without what comparisons and where() lower to: Select's VSEL_TENSOR_SCALAR_MODE and
# VSEL_TENSOR_TENSOR_MODE, and Compares (asc-devkit Select.md, Compares.md: Atlas 训练系列产品
# has Select mode 0 only, whose mask repeats every 256 bytes, and no Compares): the catalog's
# without has_compare_select.
NO_COMPARE_SELECT = tuple(s for s, f in SOC_FAMILIES.items() if not f.has_compare_select)


FLOAT_ONLY = frozenset({"float"})  # the compute types of an op whose combinations compute in float


def special_values_exact(socs: list[str], ctypes: frozenset[str] = FLOAT_ONLY) -> bool:
    """Whether kernels computing in `ctypes` (one type, or a compute step templated over several)
    compute torch's NaN and -0 results for min/max/relu/clamp/sign and amax/amin
    (lower.torch_special_values): that compares and selects, which every target SoC must have,
    and a step templated over float and int32_t compares int32_t too (Compare's int32_t form,
    has_int_compare; int16_t has none). Otherwise min/max are the instructions, which let a NaN
    lose."""
    if "float" not in ctypes or any(s in NO_COMPARE_SELECT for s in socs):
        return False
    ints = set(ctypes) - {"float"}
    return not ints or ints == {"int32_t"} and all(SOC_FAMILIES[s].has_int_compare for s in socs)


def compute_types(op: Op) -> frozenset[str]:
    """The types the op's dtype combinations compute in (as the kernel planner's combinations,
    over every tensor)."""
    loop = scalar_loop_only(op)
    types = {
        compute_type(list(c), through_half=bool(op.compute), scalar_loop=loop)
        for c in op.dtype_combinations
    }
    return frozenset(t for t in types if t is not None)


def floor_domain(socs: list[str]) -> bool:
    """Whether a target's Floor/Ceil take a small domain (lower.guard_floor_domain)."""
    return any(s in SMALL_DOMAIN_FLOOR_SOCS for s in socs)


def kernel_tree(
    op: Op, socs: list[str], output: str, mode: str = "float", ctypes: frozenset[str] = FLOAT_ONLY
) -> expr.Node:
    """The compute tree of `output` as the kernel for `socs` computes it (the Lowerer's tree)."""
    exact = mode != "int" and special_values_exact(socs, ctypes)
    return computed_tree(op.compute[output], exact, floor_domain(socs))


def special_values_warning(
    op: Op, socs: list[str], ctypes: frozenset[str] = FLOAT_ONLY
) -> list[str]:
    """The warning for an op whose min/max/... cannot follow torch's NaN rule on a target."""
    used = sorted(
        {
            n.func
            for tree in op.compute.values()
            for n in expr.walk(tree)
            if isinstance(n, (expr.Call, expr.Reduce)) and n.func in SPECIAL_VALUE_FUNCS
        }
    )
    lacking = [s for s in socs if not special_values_exact([s], ctypes)]
    if not used or not lacking:
        return []
    why = "no Compare/Select tensor modes" if set(ctypes) == {"float"} else "templated over "
    if set(ctypes) != {"float"}:
        why += f"{'/'.join(sorted(ctypes))}: no Compare/Select of its integer type"
    return [
        f"{op.op_type}: on {', '.join(lacking)} ({why}) "
        f"{'/'.join(used)} do not propagate NaN as torch does; its tests feed them none"
    ]


def _missing_note(short_missing: dict[str, list[str]], used: set[str]) -> str:
    """ "ascend910 has no Tanh API: ..." for the SoCs that lack an API the expression uses."""
    lacking: dict[str, list[str]] = {}
    via: dict[str, str] = {}  # API -> what it is computed through
    for f in MISSABLE_APIS:
        for soc in short_missing[f] if f in used else ():
            api = api_name(f)
            lacking.setdefault(soc, []).append(api)
            via[api] = FALLBACK_VIA[f]
    if not lacking:
        return ""
    how = (
        "computed through Exp"
        if set(via.values()) == {"Exp"}
        else ", ".join(f"{api} computed through {v}" for api, v in sorted(via.items()))
    )
    return (
        "; ".join(f"{soc} has no {' or '.join(apis)} API" for soc, apis in sorted(lacking.items()))
        + ": "
        + how
    )
