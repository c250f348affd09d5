"""Template data of `templates/kernel` (`op.kernel`): the Ascend C kernel, its tiling struct and
the user-owned compute step.

`plan(op, options)` runs the compute compiler (`opgen.compiler.lower`) for every SoC variant the
targets need and turns the result into names, signatures and statement text; templates only
loop and print. Raises LoweringError when the compute expression cannot be lowered.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from opgen.compiler.lower import (
    CMP_BLOCK_ELEMS,
    MASK_OPS,
    MAX_ROW_REDUCTIONS,
    REDUCE_APIS,
    SELECT_OPS,
    SELECT_RESERVED_UB,
    SHARED_TMP_NEEDS,
    SMALL_DOMAIN_FLOOR_SOCS,
    SPECIAL_VALUE_FUNCS,
    Lowerer,
    LoweringError,
    allocate,
    api_funcs,
    computed_tree,
    emit_body,
    fresh,
    host_expr,
    row_passes,
)
from opgen.frontend import expr
from opgen.frontend.broadcast import broadcasts
from opgen.frontend.catalog import (
    BYTE_DTYPES,
    DTYPES,
    FLOAT_DTYPES,
    INT_COMPUTE_DTYPES,
    SOC_FAMILIES,
    compute_type,
    tensor_compute_bytes,
)
from opgen.frontend.expr import show
from opgen.frontend.model import Op, TensorParam
from opgen.frontend.names import aclnn_name, pascal_name
from opgen.frontend.options import Options
from opgen.literals import cpp_float, cpp_literal, cpp_string
from opgen.planning.layout import cpp_comment, cpp_wrap, indent_lines

# Compute functions whose API some SoCs lack, and what the kernel computes them through there
# ("pow": `**` with a non-integer exponent). floor, ceil and erf have no fallback: an error.
MISSABLE_APIS = ("tanh", "sigmoid", "sign", "pow", "fma")
FALLBACK_VIA = {
    "tanh": "Exp",
    "sigmoid": "Exp",
    "sign": "Muls, Maxs and Mins",
    "pow": "Ln and Exp",
    "fma": "Mul and Add",
}
UNAVOIDABLE_APIS = ("floor", "ceil", "erf")


def _api_name(func: str) -> str:
    """The Ascend C API of a compute function in MISSABLE_APIS or UNAVOIDABLE_APIS."""
    return {"pow": "Power", "fma": "FusedMulAdd"}.get(func, func.capitalize())


# The tiling struct's fields every op has (attr fields and host scalars follow).
BASE_TILING_FIELDS = (
    ("uint64_t", "totalLength", "elements of every streamed tensor"),
    ("uint64_t", "blockLength", "elements per core (32-byte multiple); the last may have fewer"),
    ("uint32_t", "tileLength", "elements per UB tile (a multiple of 32 bytes of every dtype)"),
    ("uint32_t", "tmpCount", "scratch temporaries of the compute step, one tile each"),
    ("uint32_t", "tmpBytes", "bytes of one temporary"),
    ("uint32_t", "sharedTmpBytes", "bytes of the high-level APIs' sharedTmpBuffer"),
)


# The row kernel (an op whose compute reduces over the last axis): its tiling struct's fields
# instead of BASE_TILING_FIELDS, and the SoC families it runs on: ReduceSum/ReduceMax/ReduceMin
# (count mode) are documented in float for Atlas A2/A3, 310P and 200I/500 A2 AI Core (ReduceSum.md,
# 产品支持情况; the training series, ascend910, half only). Without DataCopyPad (ascend310p) the
# rows' tails go in whole blocks and reduced values by the scalar unit; TilingFunc then gives each
# core whole 64-byte cache lines of every output (opgen_tiling.h: AddRowOutput).
ROW_TILING_FIELDS = (
    ("uint64_t", "rowCount", "rows: the first input's elements over its last axis"),
    ("uint64_t", "rowsPerCore", "rows per core; the last core may take fewer"),
    ("uint32_t", "rowLength", "elements per row (the first input's last axis)"),
    ("uint32_t", "tileLength", "elements per UB tile: a row, in whole 32-byte blocks"),
    ("uint32_t", "tmpCount", "scratch temporaries of the compute step, one tile each"),
    ("uint32_t", "tmpBytes", "bytes of one temporary"),
    ("uint32_t", "sharedTmpBytes", "bytes of the APIs' sharedTmpBuffer (the reductions' too)"),
)
# The SoCs the row kernel runs on: the catalog's with ReduceSum/Max/Min in float.
ROW_SOCS = tuple(s for s, f in SOC_FAMILIES.items() if f.has_reduce and f.has_float_reduce)
ROW_SOC_LIMITS = {
    "ascend910": "ReduceSum/ReduceMax/ReduceMin take half only there (ReduceSum.md) and the row "
    "kernel reduces in float",
}


@dataclass(frozen=True)
class Compute:
    """The compute step (`op_kernel/<op>_compute.h`): the lowered expression, or a placeholder."""

    fn: str  # its function name
    has_expression: bool
    expressions: list[dict[str, Any]]  # per output: {"output", "text", "lines"} (header comment)
    mode: str  # float | int | template | stub
    type: str  # the compute type (float, int32_t, T)
    template: str  # "template <...>" line, or ""
    signature: str  # wrapped
    body: str  # indented statements
    temps: int  # scratch temporaries, one tile each
    shared_tmp: bool  # uses the high-level APIs' sharedTmpBuffer
    shared_tmp_apis: list[str]
    shared_tmp_live_nodes: int
    shared_tmp_min_bytes: int
    exp_fallbacks: list[str]  # APIs computed through Exp on SoCs that lack them
    soc_variants: bool  # the body has #if __NPU_ARCH__ branches
    scratch_note: str  # // comment lines
    host_scalars: list[dict[str, str]]  # attr math done on the host: field, text, expr, c_type
    warnings: list[str]
    # Compare/Select: the tile length in whole blocks of this many elements (0: any), and UB
    # bytes the tiles leave to the Select API
    align_elems: int = 0
    reserved_ub: int = 0
    # inputs whose tiles the lowered step never writes (none for a hand-written step): a
    # broadcasting kernel may hand it one row-broadcast tile for every tile (READ_ONLY)
    read_only_inputs: tuple[str, ...] = ()
    # // lines on the tiles (_tile_note: which must stay unwritten, when some are read-only)
    tile_note: str = ""


@dataclass(frozen=True)
class KernelData:
    """Everything the kernel templates render for one op."""

    class_name: str
    compute_fn: str
    compute_header: str
    compute_guard: str
    tiling_header: str
    guard: str  # of the tiling header
    buffer_num_const: str
    any_widen: bool  # some tensor computes in float while stored as fp16/bf16
    # code fragments, already wrapped and indented
    init_signature: str
    init_args: list[str]
    init_offset: str
    init_rest: str
    init_scratch_bytes: str
    compute_call: str
    entry_signature: str
    entry_tiling_var: str
    entry_kernel_var: str
    # tensors the kernel streams through UB (required ones), and the others
    streamed: list[dict[str, Any]]
    streamed_inputs: list[dict[str, Any]]
    streamed_outputs: list[dict[str, Any]]
    other_tensors: list[dict[str, str]]
    # the tiling struct, widest fields first
    tiling_fields: list[dict[str, str]]
    attr_fields: list[dict[str, Any]]  # int/float/bool attrs and how TilingFunc reads them
    combinations: list[dict[str, Any]]  # compute type per dtype combination
    compute: Compute
    writeback_note: str  # // lines for an op without outputs, else ""
    # streamed tensors stored as words of another C type (complex64): the // note, and the
    # `using` lines choosing the element type of those that also have other dtypes
    storage_note: str
    storage_tile_note: str  # // lines for the compute step
    storage_aliases: list[dict[str, Any]]
    warnings: list[str]  # for the CLI to show
    # the row kernel (op.is_row): per streamed input its row stride field, per output whether
    # it is reduced (one value per row), the passes of a long row (lower.row_passes) and their
    # comment lines; None for an elementwise op
    row: dict[str, Any] | None
    tensors: list[_Tensor]  # the op's IR tensors, for the host data (not rendered)
    streams: list[_Tensor]  # every stream, write-backs included, for the host data
    # An op that broadcasts its inputs (opgen/frontend/broadcast.py): the tiling field of the output
    # shape ("shape") and, per streamed input by name, of how the kernel reads it ("reads").
    # None: the inputs share one shape.
    broadcast: dict[str, Any] | None = None


@dataclass
class _Tensor:
    param: TensorParam
    index: int  # IR index among inputs or outputs (a write-back: its input's)
    # The write-back stream of an op without outputs: the new value of input `index`, computed
    # like an in-place output (compute parameter <name>_ref) and copied back to the input's GM
    # address, under the input's DTYPE_ macro (the op has no output for the build to define one).
    writeback: bool = False
    # A 1-byte dtype (int8, uint8, bool) of an op with a compute expression: it computes in
    # float, cast through half.
    through_half: bool = False

    @property
    def role(self) -> str:
        return self.param.role

    @property
    def kernel_param(self) -> str:
        return self.param.kernel_param

    @property
    def gm_param(self) -> str:
        """The kernel entry's GM_ADDR parameter the stream reads or writes."""
        return self.param.name if self.writeback else self.param.kernel_param

    @property
    def combo_position(self) -> int:
        """The tensor's place in a dtype combination (inputs, then outputs)."""
        return self.index if self.role == "input" or self.writeback else -1

    @property
    def macro(self) -> str:
        if self.writeback:
            return f"DTYPE_{self.param.name.upper()}"
        return self.param.dtype_macro

    @property
    def orig_macro(self) -> str:
        """ORIG_DTYPE_<...>: the macro the CANN build defines with the tensor's DT_ number."""
        return "ORIG_" + self.macro

    @property
    def streamed(self) -> bool:
        # an optional output is computed like a required one (its callers always pass it)
        return self.param.param_type == "required" or (
            self.role == "output" and self.param.param_type == "optional"
        )


def _tags(tensors: list[_Tensor]) -> dict[str, str]:
    """camelCase identifiers per tensor (x_ref -> xRef); by position if two would clash."""
    tags = {t.kernel_param: aclnn_name(t.kernel_param) for t in tensors}
    if len(set(tags.values())) < len(tags):
        tags = {
            t.kernel_param: f"{t.role[:2] if t.role == 'input' else 'out'}{t.index}"
            for t in tensors
        }
    return tags


def _base_fields(op: Op) -> tuple[tuple[str, str, str], ...]:
    return ROW_TILING_FIELDS if op.is_row else BASE_TILING_FIELDS


def attr_field_names(op: Op) -> dict[str, str]:
    """The tiling field of each scalar attr: its own name unless a base field has it."""
    reserved = {f[1] for f in _base_fields(op)}
    return {
        a.name: f"attr_{a.name}" if a.name in reserved else a.name
        for a in op.attrs
        if a.info.is_scalar
    }


def plan(op: Op, options: Options) -> KernelData:
    socs = options.soc_short_names
    tensors = [_Tensor(t, i) for i, t in enumerate(op.inputs)] + [
        _Tensor(t, i) for i, t in enumerate(op.outputs)
    ]
    # An op without outputs streams each input it overwrites back to where it came from.
    positions = {t.name: i for i, t in enumerate(op.inputs)}
    writebacks = [
        _Tensor(t, positions[t.name], writeback=True)
        for t in (op.results if op.in_place_only else ())
    ]
    streamed = [t for t in tensors if t.streamed] + writebacks
    for t in streamed:
        t.through_half = bool(op.compute) and any(d in BYTE_DTYPES for d in t.param.dtypes)
    ins = [t for t in streamed if t.role == "input"]
    outs = [t for t in streamed if t.role == "output"]
    tags = _tags(tensors + writebacks)
    struct = f"{op.op_type}TilingData"
    elements, aliases = _element_types(streamed, tags, op.snake_name)
    storage_notes = _storage_notes(streamed, aliases)

    # compute types per dtype combination (streamed tensors only)
    combos = []
    for combo in op.dtype_combinations:
        dtypes = [
            combo[t.combo_position if t.combo_position >= 0 else len(op.inputs) + t.index]
            for t in streamed
        ]
        combos.append(
            {
                "dtypes": list(combo),
                "compute_type": compute_type(dtypes, through_half=bool(op.compute)),
                "streamed_dtypes": dtypes,
            }
        )

    if op.is_row:
        _check_row_op(op, socs)
    field_names = attr_field_names(op)
    tiling_names = {f[1] for f in _base_fields(op)} | set(field_names.values())
    row = None
    if op.is_row:
        strides = {
            t.param.name: fresh(f"{tags[t.kernel_param]}RowStride", tiling_names) for t in ins
        }
        tiling_names |= set(strides.values())
        row = {
            "strides": strides,
            "reduced": {t.param.name: op.is_reduced_output(t.param.name) for t in outs},
            "keepdim": op.keepdim,
            # a row longer than a tile: the reductions each pass accumulates, then the outputs
            "passes": row_passes([kernel_tree(op, socs, t.param.name) for t in outs]),
        }
        # the compute header's list of them, within 120 columns after "//   "
        row["pass_lines"] = [
            line
            for i, p in enumerate(row["passes"])
            for line in textwrap.wrap(
                f"{i}: {', '.join(p) if p else 'the outputs'}",
                115,
                subsequent_indent="   ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        ]
    attr_fields = []
    for i, a in enumerate(op.attrs):
        if not a.info.is_scalar:
            continue
        c_type = {"int": "int64_t", "float": "float", "bool": "bool"}[a.type]
        getter = {"int": "GetInt", "float": "GetFloat", "bool": "GetBool"}[a.type]
        attr_fields.append(
            {
                "name": a.name,
                "index": i,
                "field": field_names[a.name],
                "c_type": c_type,
                "getter": getter,
                "var": aclnn_name(a.name) + "Attr",
                "required": a.required,
                "default": None if a.required else cpp_literal(a.type, a.default),
                "name_literal": cpp_string(a.name),
            }
        )

    compute = _compute(op, socs, streamed, ins, outs, combos, tiling_names, field_names, struct)

    params = {t.kernel_param for t in tensors + writebacks}
    entry_tiling = fresh("tilingData", params)
    entry_kernel = fresh("op", params | {entry_tiling})
    init_locals = {base: fresh(base, params) for base in ("offset", "rest", "scratchBytes")}
    views = [tags[t.kernel_param] + ("View" if _can_widen(t) else "Tile") for t in outs + ins]
    gm_params = list(dict.fromkeys(t.gm_param for t in streamed))  # a write-back shares its input's
    init_params = [f"GM_ADDR {p}" for p in gm_params] + [f"const {struct}& tiling"]
    entry_params = [
        f"GM_ADDR {p}" for p in [t.kernel_param for t in tensors] + ["workspace", "tiling"]
    ]
    upper = op.snake_name.upper()
    bcast = _broadcast_fields(op, ins, tags, tiling_names) if broadcasts(op) else None
    fields = _tiling_fields(attr_fields, compute.host_scalars, _base_fields(op), row)
    if bcast is not None:
        fields = _with_broadcast_fields(fields, bcast)
    return KernelData(
        class_name=f"Kernel{op.op_type}",
        compute_fn=compute.fn,
        compute_header=f"{op.snake_name}_compute.h",
        compute_guard=f"{upper}_COMPUTE_H",
        tiling_header=f"{op.snake_name}_tiling.h",
        guard=f"{upper}_TILING_H",
        buffer_num_const=f"{upper}_BUFFER_NUM",
        any_widen=any(_can_widen(t) for t in streamed),
        init_signature=cpp_wrap("__aicore__ inline void Init(", init_params, ")", indent=" " * 4),
        init_args=gm_params + [entry_tiling],
        init_offset=init_locals["offset"],
        init_rest=init_locals["rest"],
        init_scratch_bytes=init_locals["scratchBytes"],
        compute_call=cpp_wrap(
            compute.fn + "(",
            views + ["scratch_", "count", "tiling_"] + (["rows_"] if op.is_row else []),
            ");",
            indent=" " * 8,
        ),
        entry_signature=cpp_wrap(
            f'extern "C" __global__ __aicore__ void {op.snake_name}(', entry_params, ")"
        ),
        entry_tiling_var=entry_tiling,
        entry_kernel_var=entry_kernel,
        streamed=[_tensor_ctx(t, tags, elements) for t in streamed],
        streamed_inputs=[_tensor_ctx(t, tags, elements) for t in ins],
        streamed_outputs=[_tensor_ctx(t, tags, elements) for t in outs],
        other_tensors=[
            {"name": t.param.name, "role": t.role, "param_type": t.param.param_type}
            for t in tensors
            if not t.streamed
        ],
        tiling_fields=fields,
        attr_fields=attr_fields,
        combinations=combos,
        compute=compute,
        writeback_note=_writeback_note(op, writebacks),
        storage_note=storage_notes[0],
        storage_tile_note=storage_notes[1],
        storage_aliases=aliases,
        warnings=compute.warnings,
        row=row,
        tensors=tensors,
        streams=streamed,
        broadcast=bcast,
    )


def _broadcast_fields(
    op: Op, ins: list[_Tensor], tags: dict[str, str], taken: set[str]
) -> dict[str, Any]:
    """The tiling fields of a broadcasting op: the output shape, and how the kernel reads each
    streamed input (OpgenBroadcastShape / OpgenBroadcastInput in the tiling header)."""
    taken = set(taken)
    shape = fresh("outShape", taken)
    taken.add(shape)
    reads = {}
    for t in ins:
        reads[t.param.name] = fresh(tags[t.kernel_param] + "Read", taken)
        taken.add(reads[t.param.name])
    return {"shape": shape, "reads": reads}


def _with_broadcast_fields(
    fields: list[dict[str, str]], bcast: dict[str, Any]
) -> list[dict[str, str]]:
    """`fields` and, after them, the broadcast fields, all aligned again."""
    fields = [dict(f) for f in fields]
    for f in fields:
        if f["name"] == "totalLength":
            f["comment"] = "elements of the output, which the inputs broadcast to"
    fields.append(
        {
            "type": "OpgenBroadcastShape",
            "name": bcast["shape"],
            "comment": "the output shape, which the inputs broadcast to",
        }
    )
    fields += [
        {"type": "OpgenBroadcastInput", "name": field, "comment": f"how the kernel reads {name}"}
        for name, field in bcast["reads"].items()
    ]
    width = max(len(f"{f['type']} {f['name']};") for f in fields)
    for f in fields:
        f["decl"] = f"{f['type']} {f['name']};".ljust(width)
    return fields


def _check_row_op(op: Op, socs: list[str]) -> None:
    """What the row kernel cannot do yet, as a LoweringError naming it."""
    out = next(iter(op.compute))
    lacking = [s for s in socs if s not in ROW_SOCS]
    why = ""
    if lacking:
        reasons = "; ".join(f"{s}: {ROW_SOC_LIMITS.get(s, 'not among them')}" for s in lacking)
        why = (
            f"the row kernel runs on {', '.join(ROW_SOCS)} only ({reasons}); drop "
            f"{', '.join(lacking)} from the targets"
        )
    elif not op.outputs or any(t.is_ref for t in op.outputs):
        why = "the row kernel does not update inputs in place; give the op its own outputs"
    elif any(t.param_type != "required" for t in op.tensors):
        why = "the row kernel takes required inputs and outputs only (no optional or dynamic ones)"
    elif any(d not in FLOAT_DTYPES for t in op.tensors for d in t.dtypes):
        why = (
            "the row kernel reduces in float: every tensor needs a float16, bfloat16 or "
            "float32 dtype"
        )
    if why:
        raise LoweringError(f"compute expression of output '{out}': {why}", out)


def _writeback_note(op: Op, writebacks: list[_Tensor]) -> str:
    if not writebacks:
        return ""
    names = ", ".join(t.param.name for t in writebacks)
    return cpp_comment(
        f"{op.op_type} has no outputs: it updates its inputs in place. The compute step writes "
        f"the new value of {names} into <name>_ref, which the kernel copies back to the "
        "input's own GM address, tile by tile after reading it."
    )


def _element_types(
    streamed: list[_Tensor], tags: dict[str, str], snake: str
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The element type of each stream, by DTYPE_ macro: the macro itself; the storage type
    when every dtype of the tensor is stored as words (complex64 -> uint64_t); otherwise a
    `using` alias chosen by `#if ORIG_DTYPE_<...> == DT_...`, the documented way to branch on a
    tensor's dtype (asc-devkit's guide to aclnn op projects, the kernel side)."""
    elements: dict[str, str] = {}
    aliases: list[dict[str, Any]] = []
    taken = {t.kernel_param for t in streamed} | {snake}
    for t in streamed:
        key = t.macro  # a write-back stream shares its input's
        if key in elements:
            continue
        infos = list(dict.fromkeys(DTYPES[d] for d in t.param.dtypes))
        stored = [d for d in infos if d.storage]
        if not stored:
            elements[key] = t.macro
        elif len(stored) == len(infos) and len({d.storage for d in stored}) == 1:
            elements[key] = stored[0].storage
        else:
            tag = tags[t.kernel_param]
            name = fresh(tag[:1].upper() + tag[1:] + "Element", taken)
            taken.add(name)
            aliases.append(
                {
                    "name": name,
                    "fallback": t.macro,
                    "cases": [
                        {"test": f"{t.orig_macro} == {d.ge}", "type": d.storage} for d in stored
                    ],
                }
            )
            elements[key] = name
    return elements, aliases


def _storage_notes(streamed: list[_Tensor], aliases: list[dict[str, Any]]) -> tuple[str, str]:
    """// comments on tensors stored as words of another type: for the kernel, for the compute
    step."""
    stored = sorted({d for t in streamed for d in t.param.dtypes if DTYPES[d].storage})
    if not stored:
        return "", ""
    kernel = " ".join(
        f"A {d} tensor: the CANN build defines its DTYPE_ macro as {DTYPES[d].c_type}, a C type "
        f"only Ascend950's Ascend C has, so the kernel moves each element as one "
        f"{DTYPES[d].storage} word (the real and imaginary float side by side)."
        for d in stored
    )
    if aliases:
        kernel += (
            " For a tensor that also takes other dtypes, its ORIG_DTYPE_ macro picks the "
            "type (the *Element aliases below)."
        )
    step = " ".join(
        f"A {d} tile holds {DTYPES[d].storage} words, one element each: "
        f"ReinterpretCast<float>() views it as 2*count floats, real and imaginary parts "
        "alternating."
        for d in stored
    )
    return cpp_comment(kernel), cpp_comment(step)


def _can_widen(t: _Tensor) -> bool:
    """Does some dtype combination give the tensor a compute type other than its dtype?"""
    return t.through_half or any(d in ("float16", "bfloat16") for d in t.param.dtypes)


def _tiling_fields(
    attr_fields: list[dict],
    host_scalars: list[dict],
    base: tuple[tuple[str, str, str], ...] = BASE_TILING_FIELDS,
    row: dict[str, Any] | None = None,
) -> list[dict[str, str]]:
    """The tiling struct's fields, widest first so host and device agree on the layout."""
    fields = [{"type": t, "name": n, "comment": c} for t, n, c in base]
    for name, field in row["strides"].items() if row else ():
        fields.append(
            {
                "type": "uint32_t",
                "name": field,
                "comment": f"elements between rows of {name}: rowLength, or 0 when it is one row",
            }
        )
    extra = [
        {"type": f["c_type"], "name": f["field"], "comment": f"attr {f['name']}"}
        for f in attr_fields
    ]
    extra += [
        {"type": h["c_type"], "name": h["field"], "comment": f"{h['text']}, computed on the host"}
        for h in host_scalars
    ]
    size = {"int64_t": 8, "float": 4, "bool": 1}
    fields += sorted(extra, key=lambda f: -size[f["type"]])
    width = max(len(f"{f['type']} {f['name']};") for f in fields)
    for f in fields:
        f["decl"] = f"{f['type']} {f['name']};".ljust(width)
    return fields


def _tensor_ctx(t: _Tensor, tags: dict[str, str], elements: dict[str, str]) -> dict[str, Any]:
    tag = tags[t.kernel_param]
    up = tag[:1].upper() + tag[1:]
    return {
        "name": t.param.name,
        "param": t.kernel_param,
        "gm_param": t.gm_param,
        "writeback": t.writeback,
        "index": t.index,
        "role": t.role,
        "macro": t.macro,
        # the C type the stream moves: the DTYPE_ macro, or a storage type (complex64)
        "element": elements[t.macro],
        "tag": tag,
        "gm": f"{tag}Gm_",
        "queue": f"{tag}Queue_",
        "cast": f"{tag}Cast_",
        "tile": f"{tag}Tile",
        "view": f"{tag}View",
        "compute_alias": f"Compute{up}",
        "position": "VECIN" if t.role == "input" else "VECOUT",
        "dtypes": list(t.param.dtypes),
        "can_widen": _can_widen(t),
        "through_half": t.through_half,
    }


def _compute(
    op: Op,
    socs: list[str],
    streamed: list[_Tensor],
    ins: list[_Tensor],
    outs: list[_Tensor],
    combos: list[dict],
    tiling_names: set[str],
    attr_fields: dict[str, str],
    struct: str,
) -> Compute:
    fn = f"{op.op_type}Compute"
    taken = {t.kernel_param for t in streamed} | {fn}
    count = fresh("count", taken)
    scratch = fresh("scratch", taken | {count})
    rows = fresh("rows", taken | {count, scratch}) if op.is_row else ""
    reserved = taken | {count, scratch, rows, "tiling", "T"}
    types = {c["compute_type"] for c in combos}
    warnings: list[str] = []
    host_scalars: dict[expr.Node, str] = {}

    if not op.compute:
        return _stub(streamed, outs, combos, fn, count, scratch, struct)

    # per combination, every streamed tensor computes in one type
    for c in combos:
        if c["compute_type"] is None:
            bad = [d for d in c["streamed_dtypes"] if d not in FLOAT_DTYPES + INT_COMPUTE_DTYPES]
            out = outs[0].param.name if outs else "?"
            if bad:
                why = (
                    f"dtype {bad[0]} has no Ascend C vector arithmetic opgen can lower to "
                    "(float16, bfloat16, float32, int16 and int32 do; int8, uint8 and bool "
                    "compute in float with the float dtypes)"
                )
            else:
                pairs = ", ".join(
                    f"{t.param.name}={d}"
                    for t, d in zip(streamed, c["streamed_dtypes"], strict=True)
                )
                why = (
                    f"the dtype combination ({pairs}) mixes types that do not compute in one "
                    "type; give every tensor of a combination float types, or one integer type"
                )
            raise LoweringError(
                f"compute expression of output '{out}': {why}. Drop the compute "
                "expression to write the compute step by hand.",
                out,
            )
    if len(types) == 1:
        mode = "float" if types == {"float"} else "int"
        ctype = types.pop()
    else:
        mode, ctype = "template", "T"

    short_missing = {
        f: sorted({s for s in socs if f in SOC_FAMILIES[s].missing_apis})
        for f in MISSABLE_APIS + UNAVOIDABLE_APIS
    }
    trees = {o: kernel_tree(op, socs, o, mode) for o in op.compute}
    if mode == "float":
        warnings += special_values_warning(op, socs)
    used_funcs = {f for tree in trees.values() for f in api_funcs(tree, mode)}
    for f in UNAVOIDABLE_APIS:
        if f in used_funcs and short_missing[f]:
            out = next(o for o, tree in trees.items() if f in api_funcs(tree, mode))
            lacking = ", ".join(short_missing[f])
            raise LoweringError(
                f"compute expression of output '{out}': {f}() needs the {_api_name(f)} API, "
                f"which {lacking} lack{'s' if len(short_missing[f]) == 1 else ''} "
                "(asc-devkit, 产品支持情况); drop those SoCs from the targets or write the "
                "compute step by hand",
                out,
            )
    _check_compare(op, socs, outs)
    _check_byte_outputs(op, outs)
    need_variants = any(
        short_missing[f] and len(short_missing[f]) < len(socs)
        for f in MISSABLE_APIS
        if f in used_funcs
    )
    in_names = [t.param.name for t in ins]
    out_names = [t.param.name for t in outs]

    ctypes = frozenset(c["compute_type"] for c in combos)

    def lower_variant(api_ok: dict[str, bool]):
        lw = Lowerer(
            op,
            mode,
            ctype,
            api_ok,
            host_scalars,
            tiling_names,
            attr_fields,
            ctypes,
            special_values=special_values_exact(socs),
            floor_domain=floor_domain(socs),
        )
        prog = lw.lower(in_names, out_names)
        return prog, allocate(prog)

    variants = []
    if need_variants:
        # Some targets lack an API: emit both sequences, chosen by __NPU_ARCH__.
        fallback = {f: not short_missing[f] for f in MISSABLE_APIS}
        arches = sorted(
            {
                SOC_FAMILIES[s].npu_arch
                for f in MISSABLE_APIS
                if f in used_funcs
                for s in short_missing[f]
            }
        )
        cond = " || ".join(f"__NPU_ARCH__ == {a}" for a in arches)
        variants.append(
            {
                "cond": f"defined(__NPU_ARCH__) && ({cond})",
                "note": _missing_note(short_missing, used_funcs),
                "api_ok": fallback,
            }
        )
        variants.append({"cond": None, "note": "", "api_ok": {f: True for f in MISSABLE_APIS}})
    else:
        variants.append(
            {
                "cond": None,
                "note": _missing_note(short_missing, used_funcs),
                "api_ok": {f: not short_missing[f] for f in MISSABLE_APIS},
            }
        )
    lowered = [lower_variant(v["api_ok"]) for v in variants]
    read_only = tuple(n for n in in_names if all(f"in:{n}" not in a.dst for _, a in lowered))
    reductions = max(sum(i.op in REDUCE_APIS for i in p.instrs) for p, _ in lowered)
    if reductions > MAX_ROW_REDUCTIONS:
        out = outs[0].param.name if outs else "?"
        raise LoweringError(
            f"compute expressions of {op.op_type}: {reductions} distinct "
            f"reductions, more than the {MAX_ROW_REDUCTIONS} a row kernel "
            "keeps (opgen_kernel.h's RowPass)",
            out,
        )
    temps = max(a.temps for _, a in lowered)
    shared = any(a.shared_tmp for _, a in lowered)
    apis = sorted({ins_.op for p, _ in lowered for ins_ in p.instrs if ins_.shared_tmp})
    live_nodes = max((SHARED_TMP_NEEDS[a][0] for a in apis), default=0)
    min_bytes = max((SHARED_TMP_NEEDS[a][1] for a in apis), default=0)
    exp_fallbacks = sorted(
        _api_name(f)
        for f in MISSABLE_APIS
        if "Exp" in FALLBACK_VIA[f] and f in used_funcs and short_missing[f]
    )

    # C++ names of the tiles
    names = {f"in:{t.param.name}": t.kernel_param for t in ins}
    names.update({f"out:{t.param.name}": t.kernel_param for t in outs})
    tmp_names = []
    for i in range(temps):
        tmp_names.append(fresh(f"tmp{i}", reserved))
        names[f"tmp:{i}"] = tmp_names[-1]
    shared_name = fresh("sharedTmp", reserved | set(tmp_names))
    t = ctype if mode != "template" else "T"
    lit = _literal_fn(mode, ctype)
    ectx = {
        "count": count,
        "shared": shared_name,
        "one": lit(1),
        "minus_one": lit(-1),
        "rows": rows,
    }
    compares = any(i.op in MASK_OPS for p, _ in lowered for i in p.instrs)
    selects = any(i.op in SELECT_OPS for p, _ in lowered for i in p.instrs)
    if compares:
        ectx["cmp_count"] = fresh("cmpCount", reserved | {shared_name} | set(tmp_names))

    def offset(i: int) -> str:  # of scratch slot i: the temporaries, then the sharedTmpBuffer
        return "" if i == 0 else ("[tiling.tmpBytes]" if i == 1 else f"[{i} * tiling.tmpBytes]")

    body: list[str] = []
    if compares:
        body += [
            f"// Compare and Compares take whole 256-byte blocks ({CMP_BLOCK_ELEMS} floats): "
            "the tile (its length is",
            "// whole blocks) is compared up to the next block; Select takes the mask bits "
            "it needs.",
            f"const uint32_t {ectx['cmp_count']} = ({count} + {CMP_BLOCK_ELEMS - 1}) / "
            f"{CMP_BLOCK_ELEMS} * {CMP_BLOCK_ELEMS};",
        ]
    for v, (prog, alloc) in zip(variants, lowered, strict=True):
        if len(variants) > 1:
            body.append(f"#if {v['cond']}" if v["cond"] else "#else")
        if v["note"]:
            body += [f"// {line}" for line in textwrap.wrap(v["note"], 93)]  # indented 4
        for i in range(alloc.temps):  # declared per branch: each uses what it needs
            body.append(
                f"const AscendC::LocalTensor<{t}> {tmp_names[i]} = "
                f"{scratch}{offset(i)}.ReinterpretCast<{t}>();"
            )
        if alloc.shared_tmp:
            body.append(
                f"const AscendC::LocalTensor<uint8_t> {shared_name} = {scratch}{offset(temps)};"
            )
        body += emit_body(prog, alloc, names, ectx)
    if len(variants) > 1:
        body.append("#endif")

    params = [f"const AscendC::LocalTensor<{t}>& {x.kernel_param}" for x in outs + ins]
    params += [
        f"const AscendC::LocalTensor<uint8_t>& {scratch}",
        f"uint32_t {count}",
        f"const {struct}& tiling",
    ]
    if op.is_row:
        params.append(f"opgen_kernel::RowPass& {rows}")
    head = "__aicore__ inline void " + fn + "("
    signature = cpp_wrap(head, params, ")")
    template = "template <typename T>" if mode == "template" else ""

    host = [
        {
            "field": name,
            "text": show(node),
            "expr": host_expr(node, attr_fields, mode != "float"),
            "c_type": "float" if mode == "float" else "int64_t",
        }
        for node, name in host_scalars.items()
    ]
    plural = "temporary" if temps == 1 else "temporaries"
    note = f"opgen's lowering of the compute expression uses {temps} {plural}"
    row_apis = [a for a in apis if a in REDUCE_APIS]
    other_apis = [a for a in apis if a not in REDUCE_APIS]
    if other_apis:
        floats = "float" if live_nodes == 1 else "floats"
        note += (
            f" and the sharedTmpBuffer of {' and '.join(other_apis)} "
            f"(Get<API>TmpBufferFactorSize: {live_nodes} {floats} per element; "
            f"Get<API>MaxMinTmpSize: at least {min_bytes} bytes)"
        )
    if row_apis:
        note += (
            f"{'; it is' if other_apis else ' and the sharedTmpBuffer as'} the work buffer "
            f"of {' and '.join(sorted({REDUCE_APIS[a] for a in row_apis}))} "
            "(opgen_kernel.h's RowPass; a float per element, at least "
            "256 bytes: more than ReduceSum.md's minimum)"
        )
    if exp_fallbacks:
        note += f"; {' and '.join(exp_fallbacks)} through Exp where the SoC lacks the API"
    if compares:
        note += (
            "; Compare masks live in temporaries' first bytes (1 bit per element), and "
            f"Compare reads whole blocks of {CMP_BLOCK_ELEMS} floats: tiles are whole blocks"
        )
    if selects:
        note += (
            f"; Select's tensor modes need {SELECT_RESERVED_UB // 1024} KB of UB left free "
            "(asc-devkit Select.md)"
        )
    return Compute(
        fn=fn,
        has_expression=True,
        expressions=[
            {
                "output": o,
                "text": show(op.compute[o]),
                # within 120 columns after "//   ", continued 4 columns in
                "lines": textwrap.wrap(
                    f"{o} = {show(op.compute[o])}",
                    115,
                    subsequent_indent="    ",
                    break_long_words=False,
                    break_on_hyphens=False,
                ),
            }
            for o in out_names
        ],
        mode=mode,
        type=t,
        template=template,
        signature=signature,
        body=indent_lines(body),
        temps=temps,
        shared_tmp=shared,
        shared_tmp_apis=apis,
        shared_tmp_live_nodes=live_nodes,
        shared_tmp_min_bytes=min_bytes,
        exp_fallbacks=exp_fallbacks,
        soc_variants=len(variants) > 1,
        scratch_note=cpp_comment(note + "."),
        host_scalars=host,
        warnings=warnings,
        align_elems=CMP_BLOCK_ELEMS if compares else 0,
        reserved_ub=SELECT_RESERVED_UB if selects else 0,
        read_only_inputs=read_only,
        tile_note=_tile_note(op, read_only),
    )


TILE_NOTE = (
    "Every tensor is a UB tile of `count` elements in its compute type: float for "
    "float16, bfloat16 and float32 tensors (the kernel widens them before this step and "
    "rounds the outputs back after it), the dtype itself otherwise. Outputs come first, "
    "then inputs; an input tile may be overwritten once its value is no longer needed"
)


def _tile_note(op: Op | None = None, read_only: tuple[str, ...] = ()) -> str:
    """The compute header's paragraph on the tiles; for a broadcasting op whose step leaves some
    inputs' tiles unwritten (the kernel's READ_ONLY streams), it names them."""
    if op is None or not read_only or not broadcasts(op):
        return cpp_comment(TILE_NOTE + ".")
    names = [f"{n}'s" for n in read_only]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return cpp_comment(
        f"{TILE_NOTE}, except {listed}: the kernel hands every tile of a row-broadcast input the "
        f"same repeated row (READ_ONLY in {op.snake_name}.cpp; the CPU twin fails a step that "
        "writes there)."
    )


# SoCs without what comparisons and where() lower to: Select's VSEL_TENSOR_SCALAR_MODE and
# VSEL_TENSOR_TENSOR_MODE, and Compares (asc-devkit Select.md, Compares.md: Atlas 训练系列产品
# has Select mode 0 only, whose mask repeats every 256 bytes, and no Compares): the catalog's
# without has_compare_select.
NO_COMPARE_SELECT = tuple(s for s, f in SOC_FAMILIES.items() if not f.has_compare_select)


def special_values_exact(socs: list[str]) -> bool:
    """Whether float kernels compute torch's NaN and -0 results for min/max/relu/clamp/sign and
    amax/amin (lower.torch_special_values): that compares and selects, which every target SoC
    must have."""
    return not any(s in NO_COMPARE_SELECT for s in socs)


def floor_domain(socs: list[str]) -> bool:
    """Whether a target's Floor/Ceil take a small domain (lower.guard_floor_domain)."""
    return any(s in SMALL_DOMAIN_FLOOR_SOCS for s in socs)


def kernel_tree(op: Op, socs: list[str], output: str, mode: str = "float") -> expr.Node:
    """The compute tree of `output` as the kernel for `socs` computes it (the Lowerer's tree)."""
    return computed_tree(
        op.compute[output], mode == "float" and special_values_exact(socs), floor_domain(socs)
    )


def special_values_warning(op: Op, socs: list[str]) -> list[str]:
    """The warning for an op whose min/max/... cannot follow torch's NaN rule on a target."""
    used = sorted(
        {
            n.func
            for tree in op.compute.values()
            for n in expr.walk(tree)
            if isinstance(n, (expr.Call, expr.Reduce)) and n.func in SPECIAL_VALUE_FUNCS
        }
    )
    lacking = [s for s in socs if s in NO_COMPARE_SELECT]
    if not used or not lacking:
        return []
    return [
        f"{op.op_type}: on {', '.join(lacking)} (no Compare/Select tensor modes) "
        f"{'/'.join(used)} do not propagate NaN as torch does; its tests feed them none"
    ]


def _check_compare(op: Op, socs: list[str], outs: list[_Tensor]) -> None:
    """Comparisons and where() need Select's tensor modes; a bool output takes a comparison."""
    uses = [
        o
        for o, tree in op.compute.items()
        if any(
            n.is_tensor
            and (isinstance(n, expr.Compare) or isinstance(n, expr.Call) and n.func == "where")
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


def _check_byte_outputs(op: Op, outs: list[_Tensor]) -> None:
    """An int8/uint8 output holds its float result truncated: its expression must have integer
    values for the truncation to be torch's arithmetic (a float-valued one would differ)."""
    integral_dtypes = ("int8", "uint8", "bool", "int16", "int32")
    tensors = {t.name: all(d in integral_dtypes for d in t.dtypes) for t in op.inputs}
    attrs = {a.name: a.type in ("int", "bool") for a in op.attrs}

    def integral(n: expr.Node) -> bool:
        if isinstance(n, expr.Tensor):
            return tensors[n.name]
        if isinstance(n, expr.Scalar):
            return attrs[n.name]
        if isinstance(n, expr.Const):
            return n.value.is_integer()
        if isinstance(n, expr.Compare):
            return True
        if isinstance(n, expr.Pow):
            return isinstance(n.exponent, int) and n.exponent > 0 and integral(n.base)
        if isinstance(n, expr.BinOp):
            return n.op != "/" and integral(n.left) and integral(n.right)
        if isinstance(n, expr.Call) and n.func in ("floor", "ceil"):
            return True
        if isinstance(n, expr.Call) and n.func == "where":
            return integral(n.args[1]) and integral(n.args[2])
        if isinstance(n, expr.Call) and n.func in ("min", "max", "abs", "relu", "sign", "clamp"):
            return all(integral(a) for a in n.args)
        return isinstance(n, expr.Neg) and integral(n.arg)

    for t in outs:
        tree = op.compute.get(t.param.name)
        byte = [d for d in t.param.dtypes if d in ("int8", "uint8")]
        if tree is not None and byte and not integral(tree):
            raise LoweringError(
                f"compute expression of output '{t.param.name}': an {byte[0]} output takes integer "
                f"values (integer inputs, attrs and numbers, + - *, min, max, abs, clamp, sign, "
                f"floor, ceil, where, comparisons), and '{show(tree)}' may not have them; wrap it "
                "in floor() or ceil()",
                t.param.name,
            )


def _missing_note(short_missing: dict[str, list[str]], used: set[str]) -> str:
    """ "ascend910 has no Tanh API: ..." for the SoCs that lack an API the expression uses."""
    lacking: dict[str, list[str]] = {}
    via: dict[str, str] = {}  # API -> what it is computed through
    for f in MISSABLE_APIS:
        for soc in short_missing[f] if f in used else ():
            api = _api_name(f)
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


def _literal_fn(mode: str, ctype: str):
    def lit(v: int) -> str:
        if mode == "float":
            return cpp_float(float(v))
        if ctype == "int32_t":
            return str(v)
        return f"static_cast<{ctype}>({v})"

    return lit


def _stub_types(
    streamed: list[_Tensor], outs: list[_Tensor], combos: list[dict]
) -> tuple[str, dict[str, str]]:
    """The placeholder's template line and each tensor's element type: one type, one template
    parameter T, or one per tensor when the combinations share no compute type."""
    types = {c["compute_type"] for c in combos}
    if None in types:
        tparams = {x.kernel_param: "T" + pascal_name(aclnn_name(x.kernel_param)) for x in streamed}
        if len(set(tparams.values())) < len(tparams):
            tparams = {x.kernel_param: f"T{i}" for i, x in enumerate(streamed)}
        template = (
            "template <"
            + ", ".join(
                f"typename {tparams[x.kernel_param]}"
                for x in outs + [s for s in streamed if s.role == "input"]
            )
            + ">"
        )
        return template, tparams
    if len(types) == 1:
        only = types.pop()
        return "", {x.kernel_param: only for x in streamed}
    return "template <typename T>", {x.kernel_param: "T" for x in streamed}


def _zeroing(outs: list[_Tensor], ptype: dict[str, str], count: str, taken: set[str]) -> list[str]:
    """The placeholder's statements: every output tile set to zeros."""
    body = []
    for x in outs:
        ty = ptype[x.kernel_param]
        duplicable = all(tensor_compute_bytes(d) in (2, 4) and d != "bool" for d in x.param.dtypes)
        if duplicable:
            zero = "0.0f" if ty == "float" else f"static_cast<{ty}>(0)"
            body.append(f"AscendC::Duplicate({x.kernel_param}, {zero}, {count});")
        else:
            # Duplicate has no 1- or 8-byte form: zero the tile's bytes as uint16_t, rounded up
            # to whole 32-byte blocks (the tile holds them).
            words = fresh(f"{aclnn_name(x.kernel_param)}Words", taken)
            taken.add(words)
            body.append(
                f"const int32_t {words} = static_cast<int32_t>(({count} * sizeof({ty}) "
                "+ 31) / 32 * 16);"
            )
            view = f"{x.kernel_param}.template ReinterpretCast<uint16_t>()"
            body.append(f"AscendC::Duplicate({view}, static_cast<uint16_t>(0), {words});")
    return body


def _stub(
    streamed: list[_Tensor],
    outs: list[_Tensor],
    combos: list[dict],
    fn: str,
    count: str,
    scratch: str,
    struct: str,
) -> Compute:
    """No compute expression: a compiling placeholder that writes zeros, loudly marked."""
    template, ptype = _stub_types(streamed, outs, combos)
    taken = {x.kernel_param for x in streamed} | {fn, count, scratch, "tiling"}
    body = [
        "// TODO(opgen): the prototype has no compute expression, so this step only writes",
        "// zeros. Replace it with the op's computation (AscendC::Add, Muls, Exp, ...).",
        *_zeroing(outs, ptype, count, taken),
    ]
    ins = [s for s in streamed if s.role == "input"]
    params = [
        f"const AscendC::LocalTensor<{ptype[x.kernel_param]}>& {x.kernel_param}" for x in outs + ins
    ]
    params += [
        f"const AscendC::LocalTensor<uint8_t>& {scratch}",
        f"uint32_t {count}",
        f"const {struct}& tiling",
    ]
    signature = cpp_wrap("__aicore__ inline void " + fn + "(", params, ")")
    return Compute(
        fn=fn,
        has_expression=False,
        expressions=[],
        mode="stub",
        type="",
        template=template,
        signature=signature,
        body=indent_lines(body),
        temps=0,
        shared_tmp=False,
        shared_tmp_apis=[],
        shared_tmp_live_nodes=0,
        shared_tmp_min_bytes=0,
        exp_fallbacks=[],
        soc_variants=False,
        scratch_note="// The placeholder compute step uses none; reserve what your code needs.",
        host_scalars=[],
        warnings=[],
        tile_note=_tile_note(),
    )
