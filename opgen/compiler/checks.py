"""What the compute compiler cannot compile for the target SoCs, found before planning: each
op's first such problem at its JSON path (the failing expression, or the op), so that `opgen
validate`, `new`, `update` and `adopt` refuse it with the front end's problems and the planners
never meet it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace

from opgen.compiler.compute import (
    NO_COMPARE_SELECT,
    ROW_SOC_LIMITS,
    ROW_SOCS,
    UNAVOIDABLE_APIS,
    Lowering,
    api_name,
    lower_compute,
    targets,
)
from opgen.compiler.lower import (
    MAX_ROW_REDUCTIONS,
    REDUCE_APIS,
    LoweringError,
    api_funcs,
    float_scalar_loop,
)
from opgen.compiler.matmul import epilogue_op
from opgen.compiler.streams import Combination, Tensor, combinations, streams
from opgen.frontend import expr, functions, index_functions, soc_dtypes
from opgen.frontend.byte_values import byte_output_problem
from opgen.frontend.catalog import FLOAT_DTYPES, INT_COMPUTE_DTYPES, SOC_FAMILIES
from opgen.frontend.expr import show
from opgen.frontend.int_dtypes import bool_subtraction, wrapped_part
from opgen.frontend.model import Op, Prototype
from opgen.frontend.options import Options
from opgen.frontend.problems import Problem, PrototypeError, key_path
from opgen.frontend.soc_dtypes import SocDtypeError


def check(proto: Prototype, options: Options) -> None:
    """The checks of a prototype the front end passed, for the SoCs of `options`:
    PrototypeError (exit 2) when an op cannot be compiled for them."""
    found = problems(proto.ops, options)
    if found:
        raise PrototypeError(found, proto.source)


def problems(ops: Iterable[Op], options: Options) -> list[Problem]:
    """Each op's first problem (op_error) at its JSON path, for the SoCs of `options`."""
    errors = (op_error(op, options.soc_short_names) for op in ops)
    return [op_problem(e) for e in errors if e is not None]


def op_problem(error: LoweringError | SocDtypeError) -> Problem:
    """An op's error as a problem at its JSON path: a lowering error at the failing expression,
    a dtype no SoC can run at the op."""
    path = error.op.json_path
    if isinstance(error, LoweringError):
        path = key_path(key_path(path, "opgen"), "compute")
        path = key_path(path, error.output) if error.output else path
    return Problem(path, str(error))


def op_index(problem: Problem) -> int:
    """The index of the op a problem is about ($[i]...; 0 for a single op object)."""
    match = re.match(r"\$\[(\d+)\]", problem.path)
    return int(match.group(1)) if match else 0


def op_error(op: Op, socs: list[str]) -> LoweringError | SocDtypeError | None:
    """The first thing that keeps `op` from compiling for `socs` (short names), in the order the
    planners would meet it: the kernel's (its compute expression), then the dtypes the SoCs
    register; a matmul's: its dtypes, the Matmul API of the SoCs, then its epilogue's."""
    if op.is_matmul:
        return (
            _soc_dtype_error(replace(op, compute={}), socs)
            or _matmul_error(op, socs)
            or _kernel_error(epilogue_op(op)[0], socs)
        )
    if op.is_index:
        return _soc_dtype_error(replace(op, compute={}), socs) or _index_error(op, socs)
    return _kernel_error(op, socs) or _soc_dtype_error(op, socs)


def _index_error(op: Op, socs: list[str]) -> LoweringError | None:
    """An index op on SoCs lacking an API its library kernel needs (index_functions: DataCopyPad
    for every kind, not on ascend910 and ascend310p; Sort32 and MrgSort for topk and sort; ...,
    each a catalog.SocFamily flag).
    The library's static_asserts refuse the same when its kernel compiles."""
    call = op.index_call
    assert call is not None
    fn = index_functions.FUNCTIONS[call.func]
    lacking_by_api = [
        (
            index_functions.CAPABILITY_APIS[flag],
            [s for s in socs if not getattr(SOC_FAMILIES[s], flag)],
        )
        for flag in dict.fromkeys(fn.needs + (fn.prologue_needs if call.prologue else ()))
    ]
    missing = [f"{api} (not on {', '.join(lacking)})" for api, lacking in lacking_by_api if lacking]
    if not missing:
        return None
    prologue = f" with its {call.prologue} prologue" if call.prologue else ""
    error = LoweringError(
        f"{call.show()}: the index library's {fn.nhwc_kind if call.channels_last else fn.kind} "
        f"kernel{prologue} needs {', '.join(missing)}",
        op.outputs[0].name,
    )
    return error.naming(op)


def _soc_dtype_error(op: Op, socs: list[str]) -> SocDtypeError | None:
    why = soc_dtypes.refusal(op, socs)
    return SocDtypeError(op, why) if why else None


def _matmul_error(op: Op, socs: list[str]) -> LoweringError | None:
    """The Matmul API driven from a mixed kernel's vector cores: Atlas A2/A3 only."""
    mm = op.matmul
    lacking = [s for s in socs if not SOC_FAMILIES[s].has_mixed_matmul]
    if mm is None or not lacking:
        return None
    error = LoweringError(
        f"{mm.show()} drives the Matmul API from the vector cores of a mixed kernel "
        f"(KERNEL_TYPE_MIX_AIC_1_2, Atlas A2/A3 only), which {', '.join(lacking)} "
        f"{'lacks' if len(lacking) == 1 else 'lack'}",
        op.outputs[0].name,
    )
    return error.naming(op)


def _kernel_error(op: Op, socs: list[str]) -> LoweringError | None:
    try:
        _check_kernel(op, socs)
    except LoweringError as exc:
        return exc.naming(op)
    return None


def _check_kernel(op: Op, socs: list[str]) -> None:
    """Raise the LoweringError of the first thing the kernel of `op` cannot compute for `socs`:
    the row kernel's limits, the compute step's (the combinations, the targets' APIs, the
    values torch computes, then the lowering itself), then the streams' compute types."""
    if op.is_row:
        _check_row_op(op, socs)
    s = streams(op)
    combos = combinations(op, s.streamed)
    if op.compute and op.expand is None:
        _check_combinations(combos, s.streamed, s.outs)
        tg = targets(op, socs, combos)
        _check_scalar_loops(tg.trees, tg.ctypes)
        _check_unavoidable_apis(tg.trees, tg.mode, tg.used_funcs, tg.short_missing)
        _check_attr_powers(tg.trees, tg.short_missing[functions.POWER_API.key])
        _check_spence(op, socs)
        _check_compare(op, socs, s.outs, tg.mode)
        _check_values(op, s.outs)
        scalars = {a.name: a.name for a in op.attrs if a.info.is_scalar}
        low = lower_compute(op, socs, s.streamed, combos, set(scalars.values()), scalars)
        _check_reductions(op, s.outs, low)
    _check_stream_types(s.streamed, combos)


def _check_stream_types(streamed: list[Tensor], combos: list[Combination]) -> None:
    """A bool stream in a combination that computes in an integer type computes in the type of
    an input that is never bool: there must be one."""
    lead = next((u for u in streamed if u.role == "input" and "bool" not in u.param.dtypes), None)
    for position, t in enumerate(streamed):
        in_int = any(
            c.compute_type != "float" and c.streamed_dtypes[position] == "bool" for c in combos
        )
        if t.through_half and in_int and lead is None:
            raise LoweringError(
                f"compute expression of '{t.param.name}': its bool dtype computes in an integer "
                "type only beside an input that is never bool; give the op such an input or "
                "float dtypes",
                t.param.name,
            )


def _check_row_op(op: Op, socs: list[str]) -> None:
    """What the row kernel cannot do yet, as a LoweringError naming it."""
    out = next(iter(op.compute))
    lacking = [s for s in socs if s not in ROW_SOCS]
    why = ""
    if lacking:
        reasons = "; ".join(ROW_SOC_LIMITS.get(s, f"{s} is not among them") for s in lacking)
        why = (
            f"the row kernel runs on {', '.join(ROW_SOCS)} only ({reasons}); drop "
            f"{', '.join(lacking)} from the targets"
        )
    elif not op.outputs or any(t.is_ref for t in op.outputs):
        why = "the row kernel does not update inputs in place; give the op its own outputs"
    elif any(t.param_type != "required" for t in op.inputs) or any(
        t.param_type == "dynamic" for t in op.outputs
    ):
        # an optional output is computed like a required one (its callers always pass it)
        why = (
            "the row kernel takes required inputs and required or optional outputs only (no "
            "optional or dynamic inputs, no dynamic outputs)"
        )
    elif any(d not in FLOAT_DTYPES for t in op.tensors for d in t.dtypes):
        why = (
            "the row kernel reduces in float: every tensor needs a float16, bfloat16 or "
            "float32 dtype"
        )
    if why:
        raise LoweringError(f"compute expression of output '{out}': {why}", out)


def _check_combinations(
    combos: list[Combination], streamed: list[Tensor], outs: list[Tensor]
) -> None:
    """Per combination, every streamed tensor computes in one type."""
    for c in combos:
        if c.compute_type is not None:
            continue
        out = outs[0].param.name if outs else "?"
        raise LoweringError(
            f"compute expression of output '{out}': {_combination_why(c, streamed)}. Drop the "
            "compute expression to write the compute step by hand.",
            out,
        )


def _combination_why(c: Combination, streamed: list[Tensor]) -> str:
    """Why a dtype combination has no one compute type."""
    pairs = ", ".join(
        f"{t.param.name} is {d}" for t, d in zip(streamed, c.streamed_dtypes, strict=True)
    )
    ints = sorted({d for d in c.streamed_dtypes if d in INT_COMPUTE_DTYPES})
    if ints:
        return (
            f"the dtype combination ({pairs}) mixes {'/'.join(ints)} with other dtypes, and "
            "opgen computes a combination in one type: an int32 value does not fit float "
            "exactly (beyond 2^24); give every tensor of the combination that integer dtype "
            "(bool ones may stand beside it: a comparison's output, a where() condition) or "
            "float dtypes"
        )
    bad = [d for d in c.streamed_dtypes if d not in FLOAT_DTYPES + INT_COMPUTE_DTYPES]
    if bad:
        return (
            f"dtype {bad[0]} has no Ascend C vector arithmetic opgen can lower to "
            "(float16, bfloat16, float32, int16 and int32 do; int8, uint8 and bool "
            "compute in float with the float dtypes; int64 only in an op whose outputs are "
            "gcd() of its inputs, which the scalar unit computes)"
        )
    return (
        f"the dtype combination ({pairs}) mixes types that do not compute in one "
        "type; give every tensor of a combination float types, or one integer type"
    )


def _check_scalar_loops(trees: dict[str, expr.Node], ctypes: frozenset[str]) -> None:
    """gcd() in a float compute type (int8/uint8/bool through half too), before the value
    checks, whose advice (a float output dtype) torch.gcd has no kernel for."""
    if "float" not in ctypes:
        return
    for out, tree in trees.items():
        for n in expr.walk(tree):
            func = functions.FUNCTIONS.get(n.func) if isinstance(n, expr.Call) else None
            if func is not None and func.scalar_loop:
                raise LoweringError(
                    f"compute expression of output '{out}': {float_scalar_loop(func.name)}", out
                )


def _check_unavoidable_apis(
    trees: dict[str, expr.Node],
    mode: str,
    used_funcs: set[str],
    short_missing: dict[str, list[str]],
) -> None:
    """floor, ceil and erf have no fallback: a target without their API is an error."""
    for f in UNAVOIDABLE_APIS:
        if f in used_funcs and short_missing[f]:
            out = next(o for o, tree in trees.items() if f in api_funcs(tree, mode))
            lacking = ", ".join(short_missing[f])
            raise LoweringError(
                f"compute expression of output '{out}': {f}() needs the {api_name(f)} API, "
                f"which {lacking} lack{'s' if len(short_missing[f]) == 1 else ''} "
                "(asc-devkit, 产品支持情况); drop those SoCs from the targets or write the "
                "compute step by hand",
                out,
            )


def _check_attr_powers(trees: dict[str, expr.Node], lacking: list[str]) -> None:
    """e ** p with an exponent known at run time only takes the Power API: exp(p * ln(e)),
    the fallback of a constant non-integer exponent, is NaN for a negative e where torch's pow
    of an integral p is not."""
    for out, tree in trees.items():
        power = next(
            (
                n
                for n in expr.walk(tree)
                if isinstance(n, expr.Call) and n.func == functions.POW.name
            ),
            None,
        )
        if power is not None and lacking:
            raise LoweringError(
                f"compute expression of output '{out}': '{show(power)}' needs the Power API "
                f"(its exponent is known at run time only), which {', '.join(lacking)} "
                f"lack{'s' if len(lacking) == 1 else ''} (asc-devkit, 产品支持情况); drop those "
                "SoCs from the targets or give the exponent as a number",
                out,
            )


def _check_reductions(op: Op, outs: list[Tensor], low: Lowering) -> None:
    """A row kernel keeps at most MAX_ROW_REDUCTIONS reductions."""
    reductions = max(sum(i.op in REDUCE_APIS for i in p.instrs) for p, _ in low.lowered)
    if reductions > MAX_ROW_REDUCTIONS:
        out = outs[0].param.name if outs else "?"
        raise LoweringError(
            f"compute expressions of {op.op_type}: {reductions} distinct "
            f"reductions, more than the {MAX_ROW_REDUCTIONS} a row kernel "
            "keeps (opgen_kernel.h's RowPass)",
            out,
        )


def _check_spence(op: Op, socs: list[str]) -> None:
    """spence() selects cephes' pieces: Compares and Select's tensor modes on every target."""
    lacking = [s for s in socs if s in NO_COMPARE_SELECT]
    spence = next(
        (
            o
            for o, tree in op.compute.items()
            if any(
                isinstance(n, expr.Call) and n.func == functions.SPENCE.name
                for n in expr.walk(tree)
            )
        ),
        None,
    )
    if spence is not None and lacking:
        raise LoweringError(
            f"compute expression of output '{spence}': spence() selects cephes' pieces with "
            f"Compare, Compares and Select's tensor modes, which {', '.join(lacking)} "
            f"lack{'s' if len(lacking) == 1 else ''} (asc-devkit Select.md: Atlas 训练系列产品 "
            "has mode 0 only; Compares.md); drop it from the targets",
            spence,
        )


def _check_compare(op: Op, socs: list[str], outs: list[Tensor], mode: str) -> None:
    """Comparisons and where() need Select's tensor modes, and in an integer type Compare's
    int32_t form and Not; a bool output takes a comparison."""
    uses = [
        o
        for o, tree in op.compute.items()
        if any(
            n.is_tensor
            and (
                isinstance(n, expr.Compare)
                or isinstance(n, expr.Call)
                and n.func == functions.WHERE.name
            )
            for n in expr.walk(tree)
        )
    ]
    lacking = [s for s in socs if s in NO_COMPARE_SELECT]
    if uses and lacking:
        raise LoweringError(
            f"compute expression of output '{uses[0]}': comparisons and where() lower to Compare, "
            f"Compares and Select's tensor modes, which {', '.join(lacking)} lack"
            f"{'s' if len(lacking) == 1 else ''} (asc-devkit Select.md: Atlas 训练系列产品 has "
            "mode 0 only; Compares.md); drop it from the targets or write the compute step by "
            "hand",
            uses[0],
        )
    lacking = [s for s in socs if not SOC_FAMILIES[s].has_int_compare]
    if uses and lacking and mode != "float":
        raise LoweringError(
            f"compute expression of output '{uses[0]}': comparisons and where() of integers "
            f"lower to Compare's int32_t form (CMPMODE::EQ) and Not, which "
            f"{', '.join(lacking)} lack{'s' if len(lacking) == 1 else ''} (asc-devkit "
            "Compare.md, Not.md: Atlas A2/A3); drop it from the targets, give the op float "
            "dtypes, or write the compute step by hand",
            uses[0],
        )
    for t in outs:
        tree = op.compute.get(t.param.name)
        if tree is None or "bool" not in t.param.dtypes:
            continue
        if not isinstance(tree, expr.Compare):
            raise LoweringError(
                f"compute expression of output '{t.param.name}': a bool output takes a comparison "
                f"(x > y, a == b, ...), not '{show(tree)}'",
                t.param.name,
            )


def _check_index(op: Op) -> None:
    """index(dim) is an elementwise op's: the row kernel's tiles are not flat runs of the output."""
    for out, tree in op.compute.items():
        index = next((n for n in expr.walk(tree) if isinstance(n, expr.Index)), None)
        if index is not None and op.is_row:
            raise LoweringError(
                f"compute expression of output '{out}': {index.show()} is for elementwise ops; "
                "an op with reductions computes by rows, where it is not supported",
                out,
            )


def _check_values(op: Op, outs: list[Tensor]) -> None:
    """The values the kernel computes are torch's: integer parts, int8/uint8 outputs, index()."""
    _check_integer_parts(op, outs)
    _check_byte_outputs(op, outs)
    _check_index(op)


def _check_integer_parts(op: Op, outs: list[Tensor]) -> None:
    """Per dtype combination: no `-` of a bool (torch refuses it), and where the output is not
    int8/uint8 (those wrap their result: _check_byte_outputs), no part torch computes in
    int8/uint8/bool that may leave its range (torch wraps it, the kernel's float does not)."""
    attr_types = {a.name: a.type for a in op.attrs}
    for t, tree, dtype, ins in _output_cases(op, outs):
        why = bool_subtraction(tree, ins, attr_types)
        if not why and dtype not in ("int8", "uint8"):
            why = wrapped_part(tree, ins, attr_types, dtype)
        if why:
            raise LoweringError(
                f"compute expression of output '{t.param.name}': {why}", t.param.name
            )


def _check_byte_outputs(op: Op, outs: list[Tensor]) -> None:
    """An int8/uint8 output computes in float and wraps its result into its range: per dtype
    combination in which it is int8/uint8, that must be torch's value (byte_values)."""
    attrs = {a.name: a.type in ("int", "bool") for a in op.attrs}
    int_compute = ", ".join(
        sorted({d for c in op.dtype_combinations for d in c if d in INT_COMPUTE_DTYPES})
    )
    for t, tree, dtype, ins in _output_cases(op, outs):
        if dtype not in ("int8", "uint8"):
            continue
        if why := byte_output_problem(tree, dtype, ins, attrs, int_compute):
            raise LoweringError(
                f"compute expression of output '{t.param.name}': {why}", t.param.name
            )


def _output_cases(
    op: Op, outs: list[Tensor]
) -> Iterator[tuple[Tensor, expr.Node, str, dict[str, str]]]:
    """Each computed output in each dtype combination: the output, its compute tree, its dtype
    there and the inputs' dtypes by name."""
    names = [t.name for t in op.tensors]
    for t in outs:
        tree = op.compute.get(t.param.name)
        if tree is None:
            continue
        for combo in op.dtype_combinations:
            ins = dict(zip(names, combo[: len(op.inputs)], strict=False))
            yield t, tree, t.dtype_in(combo, len(op.inputs)), ins
