"""Template data of `templates/kernel` (`op.kernel`): the Ascend C kernel, its tiling struct and
the user-owned compute step.

`plan(op, options)` runs the compute compiler (`opgen.compiler.lower`) for every SoC variant the
targets need and turns the result into names, signatures and statement text; templates only
loop and print. Raises LoweringError when the compute expression cannot be lowered.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
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
    Allocation,
    IndexAxis,
    Instr,
    Lowerer,
    LoweringError,
    Program,
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
from opgen.frontend.byte_values import byte_output_problem
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
from opgen.frontend.int_dtypes import bool_subtraction, wrapped_part
from opgen.frontend.model import Op, TensorParam
from opgen.frontend.names import aclnn_name, pascal_name
from opgen.frontend.options import Options
from opgen.literals import cpp_literal, cpp_string
from opgen.planning.layout import indent_lines

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
UNAVOIDABLE_APIS = ("floor", "ceil", "erf", "index")


def _api_name(func: str) -> str:
    """The Ascend C API of a compute function in MISSABLE_APIS or UNAVOIDABLE_APIS."""
    return {"pow": "Power", "fma": "FusedMulAdd", "index": "CreateVecIndex"}.get(
        func, func.capitalize()
    )


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
# The SoCs the row kernel runs on: the catalog's with ReduceSum/Max/Min in float.
ROW_SOCS = tuple(s for s, f in SOC_FAMILIES.items() if f.has_reduce and f.has_float_reduce)
ROW_SOC_LIMITS = {
    "ascend910": "ascend910's ReduceSum/ReduceMax/ReduceMin take half only (ReduceSum.md), and "
    "the row kernel reduces in float",
}


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
class Combination:
    """A dtype combination and the type its streamed tensors compute in (None: none)."""

    dtypes: list[str]  # the combination, inputs then outputs
    compute_type: str | None
    streamed_dtypes: list[str]  # of the streamed tensors, in their order


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
    # A stream of an expand(x, size): it moves words of its dtype's width, never widened.
    moved: bool = False

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


@dataclass(frozen=True)
class _Streams:
    """The op's tensors as the kernel sees them."""

    tensors: list[_Tensor]  # the IR tensors, inputs then outputs
    writebacks: list[_Tensor]  # an op without outputs: the inputs it writes back
    streamed: list[_Tensor]  # through UB: the required tensors, then the write-backs
    tags: dict[str, str]  # camelCase identifier per kernel parameter

    @property
    def ins(self) -> list[_Tensor]:
        return [t for t in self.streamed if t.role == "input"]

    @property
    def outs(self) -> list[_Tensor]:
        return [t for t in self.streamed if t.role == "output"]


def _streams(op: Op) -> _Streams:
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
        t.moved = op.expand is not None
        t.through_half = (
            bool(op.compute) and not t.moved and any(d in BYTE_DTYPES for d in t.param.dtypes)
        )
    return _Streams(tensors, writebacks, streamed, _tags(tensors + writebacks))


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


def _combinations(op: Op, streamed: list[_Tensor]) -> list[Combination]:
    """The compute type per dtype combination (of the streamed tensors only)."""
    combos = []
    for combo in op.dtype_combinations:
        dtypes = [
            combo[t.combo_position if t.combo_position >= 0 else len(op.inputs) + t.index]
            for t in streamed
        ]
        ctype = (
            moved_type(dtypes[0])
            if op.expand is not None
            else compute_type(dtypes, through_half=bool(op.compute))
        )
        combos.append(Combination(list(combo), ctype, dtypes))
    return combos


def _row(op: Op, socs: list[str], s: _Streams, tiling_names: set[str]) -> RowPlan:
    """The row kernel's data: per input its row stride field, per output whether it is reduced,
    the passes of a row longer than a tile and their lines in the compute header."""
    _check_row_op(op, socs)
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
    elif any(t.param_type != "required" for t in op.tensors):
        why = "the row kernel takes required inputs and outputs only (no optional or dynamic ones)"
    elif any(d not in FLOAT_DTYPES for t in op.tensors for d in t.dtypes):
        why = (
            "the row kernel reduces in float: every tensor needs a float16, bfloat16 or "
            "float32 dtype"
        )
    if why:
        raise LoweringError(f"compute expression of output '{out}': {why}", out)


def moved_type(dtype: str) -> str:
    """The unsigned C type of a dtype's width: expand() moves elements as such words (any
    dtype, whether or not Ascend C computes in it)."""
    return f"uint{8 * DTYPES[dtype].size}_t"


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
    lead = next((u for u in streamed if u.role == "input" and "bool" not in u.param.dtypes), None)
    if lead is None:
        raise LoweringError(
            f"compute expression of '{t.param.name}': its bool dtype computes in an integer "
            "type only beside an input that is never bool; give the op such an input or float "
            "dtypes",
            t.param.name,
        )
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


@dataclass(frozen=True)
class _Variant:
    """One lowering of the compute step: all of it, or one `#if __NPU_ARCH__` branch."""

    arches: list[int]  # the #if branch's __NPU_ARCH__ values; []: the #else branch, or none
    note: str  # the SoCs that lack an API the branch computes another way
    api_ok: dict[str, bool]  # per function of MISSABLE_APIS: whether its API is there


@dataclass(frozen=True)
class _Lowering:
    """The lowered compute step: each variant's program and allocation, and what they share."""

    mode: str  # float | int | template
    ctype: str  # the compute type (T for a template)
    variants: list[_Variant]
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
            _api_name(f)
            for f in MISSABLE_APIS
            if "Exp" in FALLBACK_VIA[f] and f in self.used_funcs and self.short_missing[f]
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
    low = _lower(op, socs, streamed, combos, tiling_names, attr_fields)
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


def _lower(
    op: Op,
    socs: list[str],
    streamed: list[_Tensor],
    combos: list[Combination],
    tiling_names: set[str],
    attr_fields: dict[str, str],
) -> _Lowering:
    """Check the compute expressions against the combinations and the targets, and lower them:
    once, or once per `#if __NPU_ARCH__` branch when only some targets lack an API."""
    ins = [t for t in streamed if t.role == "input"]
    outs = [t for t in streamed if t.role == "output"]
    _check_combinations(combos, streamed, outs)
    mode, ctype = _compute_mode(combos)
    short_missing = {
        f: sorted({s for s in socs if f in SOC_FAMILIES[s].missing_apis})
        for f in MISSABLE_APIS + UNAVOIDABLE_APIS
    }
    ctypes = frozenset(c.compute_type for c in combos)
    trees = {o: kernel_tree(op, socs, o, mode, ctypes) for o in op.compute}
    warnings = special_values_warning(op, socs, ctypes) if mode != "int" else []
    used_funcs = {f for tree in trees.values() for f in api_funcs(tree, mode)}
    _check_unavoidable_apis(trees, mode, used_funcs, short_missing)
    _check_attr_powers(trees, short_missing["pow"])
    _check_compare(op, socs, outs, mode)
    _check_values(op, outs)
    variants = _variants(short_missing, used_funcs, len(socs))
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
    low = _Lowering(
        mode,
        ctype,
        variants,
        lowered,
        host_scalars,
        used_funcs,
        short_missing,
        warnings,
        lw.literal(1.0, expr.Const(1.0)),
        lw.literal(-1.0, expr.Const(-1.0)),
        tuple(lw.index_axes.values()),
    )
    _check_reductions(op, outs, low)
    return low


def _check_combinations(
    combos: list[Combination], streamed: list[_Tensor], outs: list[_Tensor]
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


def _combination_why(c: Combination, streamed: list[_Tensor]) -> str:
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
            "compute in float with the float dtypes)"
        )
    return (
        f"the dtype combination ({pairs}) mixes types that do not compute in one "
        "type; give every tensor of a combination float types, or one integer type"
    )


def _compute_mode(combos: list[Combination]) -> tuple[str, str]:
    """float or int with its one compute type, or a template over T when the combinations
    compute in several."""
    types = {c.compute_type for c in combos}
    if len(types) == 1:
        return "float" if types == {"float"} else "int", types.pop()
    return "template", "T"


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
                f"compute expression of output '{out}': {f}() needs the {_api_name(f)} API, "
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
            (n for n in expr.walk(tree) if isinstance(n, expr.Call) and n.func == "pow"), None
        )
        if power is not None and lacking:
            raise LoweringError(
                f"compute expression of output '{out}': '{show(power)}' needs the Power API "
                f"(its exponent is known at run time only), which {', '.join(lacking)} "
                f"lack{'s' if len(lacking) == 1 else ''} (asc-devkit, 产品支持情况); drop those "
                "SoCs from the targets or give the exponent as a number",
                out,
            )


def _variants(
    short_missing: dict[str, list[str]], used_funcs: set[str], soc_count: int
) -> list[_Variant]:
    """One lowering, or two chosen by __NPU_ARCH__ when only some targets lack an API."""
    used_missing = [f for f in MISSABLE_APIS if f in used_funcs and short_missing[f]]
    if not any(len(short_missing[f]) < soc_count for f in used_missing):
        return [
            _Variant(
                [],
                _missing_note(short_missing, used_funcs),
                {f: not short_missing[f] for f in MISSABLE_APIS},
            )
        ]
    arches = sorted({SOC_FAMILIES[s].npu_arch for f in used_missing for s in short_missing[f]})
    return [
        _Variant(
            arches,
            _missing_note(short_missing, used_funcs),
            {f: not short_missing[f] for f in MISSABLE_APIS},
        ),
        _Variant([], "", {f: True for f in MISSABLE_APIS}),
    ]


def _check_reductions(op: Op, outs: list[_Tensor], low: _Lowering) -> None:
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


def _step_body(
    low: _Lowering, names: _StepNames, ins: list[_Tensor], outs: list[_Tensor]
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


def _host_scalars(op: Op, low: _Lowering, attr_fields: dict[str, str]) -> list[HostScalar]:
    return [
        HostScalar(
            field=name,
            text=show(node),
            expr=host_expr(node, attr_fields, low.mode != "float", text_vars(op)),
            c_type="float" if low.mode == "float" else "int64_t",
        )
        for node, name in low.host_scalars.items()
    ]


def _scratch_note(low: _Lowering, live_nodes: int, min_bytes: int) -> str:
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
    types = {compute_type(list(c), through_half=bool(op.compute)) for c in op.dtype_combinations}
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


def _check_compare(op: Op, socs: list[str], outs: list[_Tensor], mode: str) -> None:
    """Comparisons and where() need Select's tensor modes, and in an integer type Compare's
    int32_t form and Not; a bool output takes a comparison."""
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


def _check_values(op: Op, outs: list[_Tensor]) -> None:
    """The values the kernel computes are torch's: integer parts, int8/uint8 outputs, index()."""
    _check_integer_parts(op, outs)
    _check_byte_outputs(op, outs)
    _check_index(op)


def _check_integer_parts(op: Op, outs: list[_Tensor]) -> None:
    """Per dtype combination: no `-` of a bool (torch refuses it), and where the output is not
    int8/uint8 (those wrap their result: _check_byte_outputs), no part torch computes in
    int8/uint8/bool that may leave its range (torch wraps it, the kernel's float does not)."""
    attr_types = {a.name: a.type for a in op.attrs}
    names = [t.name for t in op.tensors]
    for t in outs:
        tree = op.compute.get(t.param.name)
        pos = t.combo_position if t.combo_position >= 0 else len(op.inputs) + t.index
        for combo in op.dtype_combinations if tree is not None else ():
            ins = dict(zip(names, combo[: len(op.inputs)], strict=False))
            why = bool_subtraction(tree, ins, attr_types)
            if not why and combo[pos] not in ("int8", "uint8"):
                why = wrapped_part(tree, ins, attr_types, combo[pos])
            if why:
                raise LoweringError(
                    f"compute expression of output '{t.param.name}': {why}", t.param.name
                )


def _check_byte_outputs(op: Op, outs: list[_Tensor]) -> None:
    """An int8/uint8 output computes in float and wraps its result into its range: per dtype
    combination in which it is int8/uint8, that must be torch's value (byte_values)."""
    attrs = {a.name: a.type in ("int", "bool") for a in op.attrs}
    names = [t.name for t in op.tensors]
    int_compute = ", ".join(
        sorted({d for c in op.dtype_combinations for d in c if d in INT_COMPUTE_DTYPES})
    )
    for t in outs:
        tree = op.compute.get(t.param.name)
        pos = t.combo_position if t.combo_position >= 0 else len(op.inputs) + t.index
        for combo in op.dtype_combinations if tree is not None else ():
            if combo[pos] not in ("int8", "uint8"):
                continue
            ins = dict(zip(names, combo[: len(op.inputs)], strict=False))
            if why := byte_output_problem(tree, combo[pos], ins, attrs, int_compute):
                raise LoweringError(
                    f"compute expression of output '{t.param.name}': {why}", t.param.name
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
        only = types.pop()
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
