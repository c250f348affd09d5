"""Template data of `templates/kernel` (`op.kernel`): the Ascend C kernel, its tiling struct and
the user-owned compute step.

`plan(op, options)` runs the compute compiler (`opgen.compiler.lower`) for every SoC variant the
targets need and turns the result into names, signatures and statement text; templates only
loop and print. The compiler's checks (`opgen.compiler.checks`) have refused, before planning,
every op whose compute step cannot be compiled for the targets.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from opgen.compiler.compute import (
    Lowering,
    kernel_tree,
    lower_compute,
)
from opgen.compiler.lower import (
    CMP_BLOCK_ELEMS,
    REDUCE_APIS,
    SELECT_RESERVED_UB,
    SHARED_TMP_NEEDS,
    IndexAxis,
    emit_body,
    fresh,
    host_expr,
    row_passes,
)
from opgen.compiler.streams import Combination, moved_type
from opgen.compiler.streams import Streams as _Streams
from opgen.compiler.streams import Tensor as _Tensor
from opgen.compiler.streams import combinations as _combinations
from opgen.compiler.streams import streams as _streams
from opgen.frontend import expr
from opgen.frontend.broadcast import broadcasts
from opgen.frontend.catalog import (
    BYTE_DTYPES,
    DTYPES,
    tensor_compute_bytes,
)
from opgen.frontend.expr import show
from opgen.frontend.model import Op
from opgen.frontend.names import aclnn_name, pascal_name
from opgen.frontend.options import Options
from opgen.literals import cpp_literal, cpp_string
from opgen.planning.layout import indent_lines

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
    ("uint64_t", "rowCount", "rows: the first input's elements before the reduced axes"),
    ("uint64_t", "rowsPerCore", "rows per core; the last core may take fewer"),
    ("uint32_t", "rowLength", "elements per row, those reduced (column mode: after them)"),
    ("uint32_t", "tileLength", "elements per UB tile: a row, in whole 32-byte blocks"),
    ("uint32_t", "tmpCount", "scratch temporaries of the compute step, one tile each"),
    ("uint32_t", "tmpBytes", "bytes of one temporary"),
    ("uint32_t", "sharedTmpBytes", "bytes of the APIs' sharedTmpBuffer (the reductions' too)"),
    ("uint32_t", "reduceLength", "column mode: lines reduced into each row's values; else 0"),
    ("uint32_t", "columnBlocks", "column mode: tiles across a row's rowLength values"),
)


@dataclass(frozen=True)
class TensorField:
    """A tiling field that belongs to one tensor."""

    tensor: str
    field: str


@dataclass(frozen=True)
class RowPlan:
    """The row kernel's data (op.is_row)."""

    strides: list[TensorField]  # per streamed input, its row stride field
    # per streamed input after the first, its field of values it holds when it has a value per
    # row (0: rows, as its stride says)
    periods: list[TensorField]
    reduced: list[str]  # the outputs with one value per row
    keepdim: bool
    passes: list[list[str]]  # the passes of a long row (lower.row_passes)
    reductions: int  # distinct reductions: the running values column mode keeps
    row_valued: bool  # every output has a value per row: the last pass needs one line
    named_axes: bool  # the reductions name their axes (dim=): the column mode may run

    def stride_of(self, tensor: str) -> str:
        return next((s.field for s in self.strides if s.tensor == tensor), "")

    def period_of(self, tensor: str) -> str:
        return next((s.field for s in self.periods if s.tensor == tensor), "")


@dataclass(frozen=True)
class BroadcastPlan:
    """The tiling fields of an op that broadcasts its inputs (opgen/frontend/broadcast.py)."""

    shape: str  # the output shape's
    reads: list[TensorField]  # per streamed input, how the kernel reads it

    def read_of(self, tensor: str) -> str:
        return next((r.field for r in self.reads if r.tensor == tensor), "")


@dataclass(frozen=True)
class Expression:
    """One output's compute expression, as the compute header's comment shows it."""

    output: str
    text: str  # the expression in the prototype's syntax


@dataclass(frozen=True)
class HostScalar:
    """Attr math TilingFunc computes once (the kernel has no libm) into a tiling field."""

    field: str
    text: str  # the subexpression in the prototype's syntax
    expr: str  # C++ over the attrs' variables
    c_type: str  # float | int64_t


@dataclass(frozen=True)
class AttrField:
    """An int/float/bool attr, its tiling field and how TilingFunc reads it."""

    name: str
    index: int  # among the op's attrs (GetAttrs()'s index)
    field: str
    c_type: str  # int64_t | float | bool
    getter: str  # GetInt | GetFloat | GetBool
    var: str  # TilingFunc's pointer to the value
    required: bool
    default: str | None  # C++ literal of an optional attr's default
    name_literal: str  # the attr name as a C++ string literal


@dataclass(frozen=True)
class TilingField:
    """A field of the tiling struct."""

    type: str
    name: str
    comment: str
    attr: str = ""  # the attr the field holds (its comment: "attr <name>")


@dataclass(frozen=True)
class Stream:
    """A tensor the kernel streams through UB, and the C++ names of its pieces."""

    name: str
    param: str  # the compute step's parameter
    gm_param: str  # the kernel entry's GM_ADDR parameter it reads or writes
    writeback: bool
    index: int
    role: str  # input | output
    macro: str  # DTYPE_<...>
    element: str  # the C type the stream moves: the DTYPE_ macro, or a storage type (complex64)
    tag: str  # camelCase identifier the kernel's names of the stream start with
    tile: str  # the compute step's argument: the tile in the tensor's own type
    view: str  # the compute step's argument: the tile widened to its compute type
    position: str  # VECIN | VECOUT
    dtypes: list[str]
    can_widen: bool
    through_half: bool
    # a through_half stream's compute type: ThroughHalf of this element type ("": float)
    compute_of: str
    row_stride: str = ""  # the row kernel's input: its tiling field of elements between rows
    row_period: str = ""  # and, after the first, its field of values when it has one per row
    reduced: bool = False  # the row kernel's output: one value per row
    broadcast_read: str = ""  # a broadcasting op's input: its tiling field of how it is read
    read_only: bool = False  # an input whose tiles the compute step never writes


@dataclass(frozen=True)
class UnstreamedTensor:
    """An optional or dynamic tensor the elementwise kernel passes but does not stream."""

    name: str
    role: str
    param_type: str


@dataclass(frozen=True)
class StoredDtype:
    """A dtype the kernel moves as words of another C type (complex64: uint64_t)."""

    name: str
    c_type: str  # what the CANN build defines its DTYPE_ macro as
    storage: str  # the C type of the words


@dataclass(frozen=True)
class StorageCase:
    """`#if <macro> == <ge>`: the tensor has that dtype, stored as `type`."""

    macro: str  # ORIG_DTYPE_<...>
    ge: str  # the dtype's DT_ value
    type: str  # the storage type


@dataclass(frozen=True)
class StorageAlias:
    """A `using` alias of the element type of a stream stored as words for some dtypes."""

    name: str
    fallback: str  # the DTYPE_ macro, for the other dtypes
    cases: list[StorageCase]


@dataclass(frozen=True)
class Tile:
    """A tile parameter of the compute step: a LocalTensor of `type` elements."""

    type: str
    name: str


@dataclass(frozen=True)
class StepVariant:
    """The statements of one lowering of the compute step: all of it, or one `#if __NPU_ARCH__`
    branch."""

    arches: list[int]  # the branch's __NPU_ARCH__ values; []: the #else branch, or no branches
    note: str  # the SoCs that lack an API the branch computes another way
    temps: list[str]  # the temporaries the branch declares, scratch slot 0, 1, ...
    shared: str  # the sharedTmpBuffer's view, declared after them; "": the branch needs none
    code: str  # the lowered calls (opgen.compiler.lower.emit_body), indented


@dataclass(frozen=True)
class Zeroing:
    """The placeholder's zeros in an output tile: Duplicate in the tile's type, or (a 1- or 8-byte
    dtype, which Duplicate has no form of) in uint16_t words counted into `words`."""

    tile: str
    type: str
    words: str  # the local holding the word count; "": Duplicate in the tile's own type


@dataclass(frozen=True)
class Compute:
    """The compute step (`op_kernel/<op>_compute.h`): the lowered expression, or a placeholder."""

    fn: str  # its function name
    has_expression: bool
    expressions: list[Expression]  # per output, for the header comment
    mode: str  # float | int | template | stub
    type: str  # the compute type (float, int32_t, T)
    template_params: list[str]  # the function template's type parameters; []: not a template
    # the parameters: the tiles (outputs first), the scratch, the element count, the tiling
    # struct and, for the row kernel, its RowPass ("" for an elementwise op)
    tiles: list[Tile]
    scratch: str
    count: str
    struct: str
    rows: str
    # the statements: Compare's block-rounded count ("": no Compare), each lowering, or the
    # placeholder's zeros
    cmp_count: str
    variants: list[StepVariant]
    zeroing: list[Zeroing]
    temps: int  # scratch temporaries, one tile each
    shared_tmp: bool  # uses the high-level APIs' sharedTmpBuffer
    shared_tmp_apis: list[str]
    shared_tmp_live_nodes: int
    shared_tmp_min_bytes: int
    exp_fallbacks: list[str]  # APIs computed through Exp on SoCs that lack them
    soc_variants: bool  # the body has #if __NPU_ARCH__ branches
    scratch_note: str  # what the scratch holds (the host's tiling policy prints it as a comment)
    host_scalars: list[HostScalar]  # attr math done on the host
    warnings: list[str]
    # Compare/Select: the tile length in whole blocks of this many elements (0: any), and UB
    # bytes the tiles leave to the Select API
    align_elems: int = 0
    reserved_ub: int = 0
    # inputs whose tiles the lowered step never writes (none for a hand-written step): a
    # broadcasting kernel may hand it one row-broadcast tile for every tile (READ_ONLY; the
    # compute header's note on the tiles names them)
    read_only_inputs: tuple[str, ...] = ()
    # integer comparisons and selects: opgen_kernel.h's CompareMask and Choose
    int_compares: bool = False
    # index(dim): the step's parameter holding the tile's flat offset in the output ("": none)
    # and each axis's tiling fields
    offset: str = ""
    index_axes: tuple[IndexAxis, ...] = ()
    # expand(x, size): the input tile the step moves into the output tile, element by element
    # as words of its width ("": the step computes)
    move: str = ""


@dataclass(frozen=True)
class KernelData:
    """Everything the kernel templates render for one op."""

    class_name: str
    compute_fn: str
    compute_header: str
    tiling_header: str
    buffer_num_const: str
    any_widen: bool  # some tensor computes in float while stored as fp16/bf16
    gm_params: list[str]  # Init()'s GM addresses: the streamed tensors' (a write-back: its input's)
    init_args: list[str]  # what the kernel entry passes Init()
    # the kernel entry: its function name and GM_ADDR parameters (the tensors', workspace, tiling)
    entry_fn: str
    entry_params: list[str]
    entry_tiling_var: str  # the kernel entry's locals: the tiling data, the kernel object
    entry_kernel_var: str
    # tensors the kernel streams through UB (required ones), and the others
    streamed: list[Stream]
    streamed_inputs: list[Stream]
    streamed_outputs: list[Stream]
    other_tensors: list[UnstreamedTensor]
    # the tiling struct, widest fields first
    tiling_fields: list[TilingField]
    attr_fields: list[AttrField]  # int/float/bool attrs and how TilingFunc reads them
    combinations: list[Combination]  # compute type per dtype combination
    compute: Compute
    writebacks: list[str]  # an op without outputs: the inputs it writes back, else []
    # streamed tensors stored as words of another C type (complex64): those dtypes (the kernel's
    # and the compute header's notes), and the `using` lines choosing the element type of the
    # tensors that also have other dtypes
    stored_dtypes: list[StoredDtype]
    storage_aliases: list[StorageAlias]
    warnings: list[str]  # for the CLI to show
    row: RowPlan | None  # None for an elementwise op
    tensors: list[_Tensor]  # the op's IR tensors, for the host data (not rendered)
    streams: list[_Tensor]  # every stream, write-backs included, for the host data
    broadcast: BroadcastPlan | None = None  # None: the inputs share one shape


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
    s = _streams(op)
    struct = f"{op.op_type}TilingData"
    elements, aliases = _element_types(s.streamed, s.tags, op.snake_name)
    combos = _combinations(op, s.streamed)
    field_names = attr_field_names(op)
    tiling_names = {f[1] for f in _base_fields(op)} | set(field_names.values())
    row = _row(op, socs, s, tiling_names) if op.is_row else None
    if row is not None:
        tiling_names |= {f.field for f in row.strides + row.periods}
    attr_fields = _attr_fields(op, field_names)
    compute = _compute(
        op, socs, s.streamed, s.ins, s.outs, combos, tiling_names, field_names, struct
    )
    upper = op.snake_name.upper()
    bcast = _broadcast_fields(op, s.ins, s.tags, tiling_names) if broadcasts(op) else None
    fields = _tiling_fields(
        attr_fields, compute.host_scalars, _base_fields(op), row, compute.index_axes
    )
    if bcast is not None:
        fields = _with_broadcast_fields(fields, bcast)

    def stream(t: _Tensor) -> Stream:
        of = _stream_compute_of(t, s.streamed, combos, elements)
        return _tensor_ctx(t, s.tags, elements, row, bcast, compute.read_only_inputs, of)

    return KernelData(
        class_name=f"Kernel{op.op_type}",
        compute_fn=compute.fn,
        compute_header=f"{op.snake_name}_compute.h",
        tiling_header=f"{op.snake_name}_tiling.h",
        buffer_num_const=f"{upper}_BUFFER_NUM",
        any_widen=any(_can_widen(t) for t in s.streamed),
        **_kernel_code(op, s),
        streamed=[stream(t) for t in s.streamed],
        streamed_inputs=[stream(t) for t in s.ins],
        streamed_outputs=[stream(t) for t in s.outs],
        other_tensors=[
            UnstreamedTensor(t.param.name, t.role, t.param.param_type)
            for t in s.tensors
            if not t.streamed
        ],
        tiling_fields=fields,
        attr_fields=attr_fields,
        combinations=combos,
        compute=compute,
        writebacks=[t.param.name for t in s.writebacks],
        stored_dtypes=[
            StoredDtype(d, DTYPES[d].c_type, DTYPES[d].storage)
            for d in sorted({d for t in s.streamed for d in t.param.dtypes if DTYPES[d].storage})
        ],
        storage_aliases=aliases,
        warnings=compute.warnings,
        row=row,
        tensors=s.tensors,
        streams=s.streamed,
        broadcast=bcast,
    )


def _row(op: Op, socs: list[str], s: _Streams, tiling_names: set[str]) -> RowPlan:
    """The row kernel's data: per input its row stride field, per output whether it is reduced,
    the passes of a row longer than a tile and their lines in the compute header."""
    strides = [
        TensorField(t.param.name, fresh(f"{s.tags[t.kernel_param]}RowStride", tiling_names))
        for t in s.ins
    ]
    periods = [
        TensorField(t.param.name, fresh(f"{s.tags[t.kernel_param]}RowPeriod", tiling_names))
        for t in s.ins[1:]
    ]
    # a row longer than a tile: the reductions each pass accumulates, then the outputs
    trees = [kernel_tree(op, socs, t.param.name) for t in s.outs]
    return RowPlan(
        strides=strides,
        periods=periods,
        reduced=[t.param.name for t in s.outs if op.is_reduced_output(t.param.name)],
        keepdim=op.keepdim,
        passes=row_passes(trees),
        reductions=len({n for tree in trees for n in expr.reductions(tree)}),
        row_valued=all(op.is_reduced_output(t.param.name) for t in s.outs),
        named_axes=op.dims_given,
    )


def _attr_fields(op: Op, field_names: dict[str, str]) -> list[AttrField]:
    """The int/float/bool attrs and how TilingFunc reads them into the tiling struct."""
    attr_fields = []
    for i, a in enumerate(op.attrs):
        if not a.info.is_scalar:
            continue
        attr_fields.append(
            AttrField(
                name=a.name,
                index=i,
                field=field_names[a.name],
                c_type={"int": "int64_t", "float": "float", "bool": "bool"}[a.type],
                getter={"int": "GetInt", "float": "GetFloat", "bool": "GetBool"}[a.type],
                var=aclnn_name(a.name) + "Attr",
                required=a.required,
                default=None if a.required else cpp_literal(a.type, a.default),
                name_literal=cpp_string(a.name),
            )
        )
    return attr_fields


def _kernel_code(op: Op, s: _Streams) -> dict[str, Any]:
    """The kernel class's Init and the kernel entry: their parameters and arguments, and the
    names their locals take."""
    params = {t.kernel_param for t in s.tensors + s.writebacks}
    entry_tiling = fresh("tilingData", params)
    gm_params = list(dict.fromkeys(t.gm_param for t in s.streamed))  # a write-back: its input's
    return {
        "gm_params": gm_params,
        "init_args": gm_params + [entry_tiling],
        "entry_fn": op.snake_name,
        "entry_params": [t.kernel_param for t in s.tensors] + ["workspace", "tiling"],
        "entry_tiling_var": entry_tiling,
        "entry_kernel_var": fresh("op", params | {entry_tiling}),
    }


def _broadcast_fields(
    op: Op, ins: list[_Tensor], tags: dict[str, str], taken: set[str]
) -> BroadcastPlan:
    """The tiling fields of a broadcasting op: the output shape, and how the kernel reads each
    streamed input (OpgenBroadcastShape / OpgenBroadcastInput in the tiling header)."""
    taken = set(taken)
    shape = fresh("outShape", taken)
    taken.add(shape)
    reads = []
    for t in ins:
        reads.append(TensorField(t.param.name, fresh(tags[t.kernel_param] + "Read", taken)))
        taken.add(reads[-1].field)
    return BroadcastPlan(shape, reads)


def _with_broadcast_fields(fields: list[TilingField], bcast: BroadcastPlan) -> list[TilingField]:
    """`fields` and, after them, the broadcast fields."""
    fields = [
        replace(f, comment="elements of the output, which the inputs broadcast to")
        if f.name == "totalLength"
        else f
        for f in fields
    ]
    fields.append(
        TilingField(
            "OpgenBroadcastShape", bcast.shape, "the output shape, which the inputs broadcast to"
        )
    )
    fields += [
        TilingField("OpgenBroadcastInput", r.field, f"how the kernel reads {r.tensor}")
        for r in bcast.reads
    ]
    return fields


def _element_types(
    streamed: list[_Tensor], tags: dict[str, str], snake: str
) -> tuple[dict[str, str], list[StorageAlias]]:
    """The element type of each stream, by DTYPE_ macro: the macro itself; the storage type
    when every dtype of the tensor is stored as words (complex64 -> uint64_t); otherwise a
    `using` alias chosen by `#if ORIG_DTYPE_<...> == DT_...`, the documented way to branch on a
    tensor's dtype (asc-devkit's guide to aclnn op projects, the kernel side)."""
    elements: dict[str, str] = {}
    aliases: list[StorageAlias] = []
    taken = {t.kernel_param for t in streamed} | {snake}
    for t in streamed:
        key = t.macro  # a write-back stream shares its input's
        if key in elements:
            continue
        infos = list(dict.fromkeys(DTYPES[d] for d in t.param.dtypes))
        stored = [d for d in infos if d.storage]
        if t.moved:  # expand(): every dtype moves as the unsigned words of its width
            infos = [replace(d, storage=moved_type(d.name)) for d in infos]
            stored = infos
        if not stored:
            elements[key] = t.macro
        elif len(stored) == len(infos) and len({d.storage for d in stored}) == 1:
            elements[key] = stored[0].storage
        else:
            tag = tags[t.kernel_param]
            name = fresh(tag[:1].upper() + tag[1:] + "Element", taken)
            taken.add(name)
            cases = [StorageCase(t.orig_macro, d.ge, d.storage) for d in stored]
            aliases.append(StorageAlias(name, t.macro, cases))
            elements[key] = name
    return elements, aliases


def _can_widen(t: _Tensor) -> bool:
    """Does some dtype combination give the tensor a compute type other than its dtype? (Never
    for an expand(), which moves words.)"""
    if t.moved:
        return False
    return t.through_half or any(d in ("float16", "bfloat16") for d in t.param.dtypes)


def _tiling_fields(
    attr_fields: list[AttrField],
    host_scalars: list[HostScalar],
    base: tuple[tuple[str, str, str], ...] = BASE_TILING_FIELDS,
    row: RowPlan | None = None,
    axes: tuple[IndexAxis, ...] = (),
) -> list[TilingField]:
    """The tiling struct's fields, widest first so host and device agree on the layout."""
    fields = [TilingField(t, n, c) for t, n, c in base]
    for stride in row.strides if row else ():
        fields.append(
            TilingField(
                "uint32_t",
                stride.field,
                f"elements between rows of {stride.tensor}: rowLength, or 0 when it is one row",
            )
        )
    for period in row.periods if row else ():
        fields.append(
            TilingField(
                "uint32_t",
                period.field,
                f"values of {period.tensor} when it has one per row (row r's: r % this), else 0",
            )
        )
    extra = [TilingField(f.c_type, f.field, "", attr=f.name) for f in attr_fields]
    extra += [
        TilingField(h.c_type, h.field, f"{h.text}, computed on the host") for h in host_scalars
    ]
    what = ("1 / stride", "period (stride * size)", "1 / period")
    extra += [
        TilingField("float", f, f"index({a.dim}): its axis's {w}")
        for a in axes
        for f, w in zip(a.fields, what, strict=True)
    ]
    size = {"int64_t": 8, "float": 4, "bool": 1}
    return fields + sorted(extra, key=lambda f: -size[f.type])


def _stream_compute_of(
    t: _Tensor, streamed: list[_Tensor], combos: list[Combination], elements: dict[str, str]
) -> str:
    """The element type whose ThroughHalf is the compute type of a stream with a 1-byte dtype
    ("": float): its own when it has other dtypes too (an int32 dtype computes in int32_t). A
    bool tensor in an integer combination computes in that type: an input's that is never
    bool."""
    if not t.through_half:
        return ""
    position = streamed.index(t)
    in_int = any(
        c.compute_type != "float" and c.streamed_dtypes[position] == "bool" for c in combos
    )
    if not in_int:
        return "" if all(d in BYTE_DTYPES for d in t.param.dtypes) else elements[t.macro]
    # checks.py refused a bool stream computing in an integer type without such an input
    lead = next(u for u in streamed if u.role == "input" and "bool" not in u.param.dtypes)
    return elements[lead.macro]


def _tensor_ctx(
    t: _Tensor,
    tags: dict[str, str],
    elements: dict[str, str],
    row: RowPlan | None,
    bcast: BroadcastPlan | None,
    read_only: tuple[str, ...],
    compute_of: str,
) -> Stream:
    tag = tags[t.kernel_param]
    name = t.param.name
    return Stream(
        name=name,
        param=t.kernel_param,
        gm_param=t.gm_param,
        writeback=t.writeback,
        index=t.index,
        role=t.role,
        macro=t.macro,
        element=elements[t.macro],
        tag=tag,
        tile=f"{tag}Tile",
        view=f"{tag}View",
        position="VECIN" if t.role == "input" else "VECOUT",
        dtypes=list(t.param.dtypes),
        can_widen=_can_widen(t),
        through_half=t.through_half,
        compute_of=compute_of,
        row_stride=row.stride_of(name) if row else "",
        row_period=row.period_of(name) if row else "",
        reduced=bool(row and name in row.reduced),
        broadcast_read=bcast.read_of(name) if bcast else "",
        read_only=t.role == "input" and name in read_only,
    )


@dataclass(frozen=True)
class _StepNames:
    """The compute function's name, and the names of its parameters beside the tiles."""

    fn: str
    count: str
    scratch: str
    rows: str  # the row kernel's RowPass, "" for an elementwise op
    reserved: frozenset[str]  # names the step's locals must not take
    offset: str = ""  # the tile's flat offset in the output (index())


def _step_names(op: Op, streamed: list[_Tensor]) -> _StepNames:
    fn = f"{op.op_type}Compute"
    taken = {t.kernel_param for t in streamed} | {fn}
    count = fresh("count", taken)
    scratch = fresh("scratch", taken | {count})
    rows = fresh("rows", taken | {count, scratch}) if op.is_row else ""
    offset = fresh("offset", taken | {count, scratch, rows})
    return _StepNames(
        fn,
        count,
        scratch,
        rows,
        frozenset(taken | {count, scratch, rows, offset, "tiling", "T"}),
        offset,
    )


def _compute(
    op: Op,
    socs: list[str],
    streamed: list[_Tensor],
    ins: list[_Tensor],
    outs: list[_Tensor],
    combos: list[Combination],
    tiling_names: set[str],
    attr_fields: dict[str, str],
    struct: str,
) -> Compute:
    names = _step_names(op, streamed)
    if not op.compute:
        return _stub(streamed, outs, combos, names, struct)
    if op.expand is not None:
        return _move(op, streamed, outs, ins, combos, names, struct)
    low = lower_compute(op, socs, streamed, combos, tiling_names, attr_fields)
    read_only = tuple(
        t.param.name for t in ins if all(f"in:{t.param.name}" not in a.dst for _, a in low.lowered)
    )
    apis = low.shared_apis
    live_nodes = max((SHARED_TMP_NEEDS[a][0] for a in apis), default=0)
    min_bytes = max((SHARED_TMP_NEEDS[a][1] for a in apis), default=0)
    ty = low.ctype if low.mode != "template" else "T"
    cmp_count, variants = _step_body(low, names, ins, outs)
    return Compute(
        fn=names.fn,
        has_expression=True,
        expressions=_expressions(op, [t.param.name for t in outs]),
        mode=low.mode,
        type=ty,
        template_params=["T"] if low.mode == "template" else [],
        tiles=[Tile(ty, x.kernel_param) for x in outs + ins],
        scratch=names.scratch,
        count=names.count,
        struct=struct,
        rows=names.rows,
        cmp_count=cmp_count,
        variants=variants,
        zeroing=[],
        temps=low.temps,
        shared_tmp=any(a.shared_tmp for _, a in low.lowered),
        shared_tmp_apis=apis,
        shared_tmp_live_nodes=live_nodes,
        shared_tmp_min_bytes=min_bytes,
        exp_fallbacks=low.exp_fallbacks,
        soc_variants=len(low.variants) > 1,
        scratch_note=_scratch_note(low, live_nodes, min_bytes) + ".",
        host_scalars=_host_scalars(op, low, attr_fields),
        warnings=low.warnings,
        align_elems=CMP_BLOCK_ELEMS if low.compares else 0,
        reserved_ub=SELECT_RESERVED_UB if low.selects else 0,
        read_only_inputs=read_only,
        int_compares=any(i.scratch for i in low.instrs),
        offset=names.offset if low.index_axes else "",
        index_axes=tuple(low.index_axes),
    )


def _step_body(
    low: Lowering, names: _StepNames, ins: list[_Tensor], outs: list[_Tensor]
) -> tuple[str, list[StepVariant]]:
    """The compute step's statements: the name of Compare's block-rounded count ("": no
    Compare), and per variant its scratch views and the lowered calls."""
    temps = low.temps
    tiles = {f"in:{x.param.name}": x.kernel_param for x in ins}
    tiles.update({f"out:{x.param.name}": x.kernel_param for x in outs})
    tmp_names = []
    for i in range(temps):
        tmp_names.append(fresh(f"tmp{i}", names.reserved))
        tiles[f"tmp:{i}"] = tmp_names[-1]
    shared_name = fresh("sharedTmp", names.reserved | set(tmp_names))
    ectx = {
        "count": names.count,
        "shared": shared_name,
        "one": low.one,
        "minus_one": low.minus_one,
        "rows": names.rows,
        "offset": names.offset,
    }
    cmp_count = ""
    if low.compares:
        cmp_count = fresh("cmpCount", names.reserved | {shared_name} | set(tmp_names))
        ectx["cmp_count"] = cmp_count
    variants = [
        StepVariant(
            arches=v.arches,
            note=v.note,
            temps=tmp_names[: alloc.temps],  # declared per branch: each uses what it needs
            shared=shared_name if alloc.shared_tmp else "",
            code=indent_lines(emit_body(prog, alloc, tiles, ectx)),
        )
        for v, (prog, alloc) in zip(low.variants, low.lowered, strict=True)
    ]
    return cmp_count, variants


def text_var(name: str) -> str:
    """TilingFunc's variable holding a string attr's value (GetAttrPointer<char>)."""
    return aclnn_name(name) + "Attr"


def text_vars(op: Op) -> dict[str, str]:
    """The string attrs a compute expression compares, each TilingFunc's variable of it."""
    return {a.name: text_var(a.name) for a in op.checked_attrs}


def _host_scalars(op: Op, low: Lowering, attr_fields: dict[str, str]) -> list[HostScalar]:
    return [
        HostScalar(
            field=name,
            text=show(node),
            expr=host_expr(node, attr_fields, low.mode != "float", text_vars(op)),
            c_type="float" if low.mode == "float" else "int64_t",
        )
        for node, name in low.host_scalars.items()
    ]


def _scratch_note(low: Lowering, live_nodes: int, min_bytes: int) -> str:
    """What the scratch holds: the temporaries, the sharedTmpBuffer and what uses it."""
    temps = low.temps
    plural = "temporary" if temps == 1 else "temporaries"
    note = f"opgen's lowering of the compute expression uses {temps} {plural}"
    row_apis = [a for a in low.shared_apis if a in REDUCE_APIS]
    other_apis = [a for a in low.shared_apis if a not in REDUCE_APIS]
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
    if low.exp_fallbacks:
        note += f"; {' and '.join(low.exp_fallbacks)} through Exp where the SoC lacks the API"
    if low.compares:
        note += (
            "; Compare masks live in temporaries' first bytes (1 bit per element), and "
            f"Compare reads whole blocks of {CMP_BLOCK_ELEMS} floats: tiles are whole blocks"
        )
    if low.selects:
        note += (
            f"; Select's tensor modes need {SELECT_RESERVED_UB // 1024} KB of UB left free "
            "(asc-devkit Select.md)"
        )
    return note


def _expressions(op: Op, out_names: list[str]) -> list[Expression]:
    return [Expression(output=o, text=show(op.compute[o])) for o in out_names]


def _stub_types(
    streamed: list[_Tensor], outs: list[_Tensor], combos: list[Combination]
) -> tuple[list[str], dict[str, str]]:
    """The placeholder's template parameters and each tensor's element type: one type, one
    template parameter T, or one per tensor when the combinations share no compute type."""
    types = {c.compute_type for c in combos}
    if None in types:
        tparams = {x.kernel_param: "T" + pascal_name(aclnn_name(x.kernel_param)) for x in streamed}
        if len(set(tparams.values())) < len(tparams):
            tparams = {x.kernel_param: f"T{i}" for i, x in enumerate(streamed)}
        order = outs + [s for s in streamed if s.role == "input"]
        return [tparams[x.kernel_param] for x in order], tparams
    if len(types) == 1:
        (only,) = {t for t in types if t is not None}
        return [], {x.kernel_param: only for x in streamed}
    return ["T"], {x.kernel_param: "T" for x in streamed}


def _zeroing(outs: list[_Tensor], ptype: dict[str, str], taken: set[str]) -> list[Zeroing]:
    """The placeholder's statements: every output tile set to zeros."""
    zeroing = []
    for x in outs:
        duplicable = all(tensor_compute_bytes(d) in (2, 4) and d != "bool" for d in x.param.dtypes)
        words = ""
        if not duplicable:
            # Duplicate has no 1- or 8-byte form: zero the tile's bytes as uint16_t, rounded up
            # to whole 32-byte blocks (the tile holds them).
            words = fresh(aclnn_name(x.kernel_param) + "Words", taken)
            taken.add(words)
        zeroing.append(Zeroing(x.kernel_param, ptype[x.kernel_param], words))
    return zeroing


def _stub(
    streamed: list[_Tensor],
    outs: list[_Tensor],
    combos: list[Combination],
    names: _StepNames,
    struct: str,
) -> Compute:
    """No compute expression: a compiling placeholder that writes zeros, loudly marked."""
    template_params, ptype = _stub_types(streamed, outs, combos)
    count = names.count
    taken = {x.kernel_param for x in streamed} | {names.fn, count, names.scratch, "tiling"}
    ins = [s for s in streamed if s.role == "input"]
    return Compute(
        fn=names.fn,
        has_expression=False,
        expressions=[],
        mode="stub",
        type="",
        template_params=template_params,
        tiles=[Tile(ptype[x.kernel_param], x.kernel_param) for x in outs + ins],
        scratch=names.scratch,
        count=count,
        struct=struct,
        rows=names.rows,
        cmp_count="",
        variants=[],
        zeroing=_zeroing(outs, ptype, taken),
        temps=0,
        shared_tmp=False,
        shared_tmp_apis=[],
        shared_tmp_live_nodes=0,
        shared_tmp_min_bytes=0,
        exp_fallbacks=[],
        soc_variants=False,
        scratch_note="The placeholder compute step uses none; reserve what your code needs.",
        host_scalars=[],
        warnings=[],
    )


def _move(
    op: Op,
    streamed: list[_Tensor],
    outs: list[_Tensor],
    ins: list[_Tensor],
    combos: list[Combination],
    names: _StepNames,
    struct: str,
) -> Compute:
    """expand(x, size): the broadcasting kernel's reads put x's elements at the output's
    positions, so the step moves x's tile into the output's, as words of the dtype's width.
    It never writes x's tile: a row-broadcast x hands every tile its repeated row (READ_ONLY)."""
    _, ptype = _stub_types(streamed, outs, combos)
    compute = _stub(streamed, outs, combos, names, struct)
    return replace(
        compute,
        has_expression=True,
        expressions=_expressions(op, [t.param.name for t in outs]),
        mode="move",
        type=ptype[outs[0].kernel_param],
        zeroing=[],
        scratch_note="The step moves the input's tile and uses none.",
        move=ins[0].kernel_param,
        read_only_inputs=(ins[0].param.name,),
    )
