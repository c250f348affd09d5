"""Template data of a matmul op's generated kernel and host files (`op.matmul`;
templates/kernel/matmul_op/, templates/host/matmul_op/): the product on the cube unit through
the Matmul API, and the epilogue, lowered by the compiler as an elementwise op over the
product's blocks in UB.

The epilogue is the op's expression with matmul(a, b) replaced by a float input, the product:
kernel.plan() lowers that op (`epilogue_op`) into the compute step the matmul kernel calls once
per block of the product."""

from __future__ import annotations

from dataclasses import dataclass

from opgen.compiler.lower import fresh
from opgen.compiler.matmul import epilogue_op
from opgen.frontend import expr
from opgen.frontend.catalog import DTYPES
from opgen.frontend.matmuls import epilogue_inputs
from opgen.frontend.model import Op
from opgen.frontend.options import Options
from opgen.planning import kernel
from opgen.planning.kernel import (
    AttrField,
    Compute,
    HostScalar,
    TilingField,
)

# The product's blocks in UB hold this many elements more than baseM x baseN: the epilogue's
# Compare rounds its count up to whole 256-byte blocks (opgen_kernel's CMP_BLOCK_ELEMS floats).
BLOCK_SLACK_ELEMS = 64


@dataclass(frozen=True)
class Operand:
    """a or b of matmul(a, b)."""

    name: str
    index: int  # among the op's inputs
    kernel_param: str
    macro: str  # its DTYPE_ macro
    # transposed: always (True), never (False), or as the bool attr in `attr` says at run time
    transpose: bool
    attr: str
    attr_index: int  # the attr's index among the op's attrs (-1 without one)
    attr_default: str  # its default as C++ ("false" when required)

    @property
    def may_transpose(self) -> bool:
        """Does the kernel's MatmulType enable transposing (ISTRANS)?"""
        return self.transpose or bool(self.attr)


@dataclass(frozen=True)
class EpilogueInput:
    """An input the epilogue reads: [N] (a value per column, replicated down each block's
    rows) or the product's shape (its block), as the host finds it per launch."""

    name: str
    index: int  # among the op's inputs
    kernel_param: str
    macro: str
    tile: str  # the compute step's float tile of it
    full_field: str  # tiling field: 1 when it has the product's shape, 0 for [N]
    widen: bool  # some dtype combination stores it narrower than float (a Cast into the tile)


@dataclass(frozen=True)
class MatmulData:
    a: Operand
    b: Operand
    inputs: list[EpilogueInput]
    output: str
    output_param: str
    output_macro: str
    narrow_output: bool  # some combination stores the output narrower than float
    product_tile: str  # the compute step's tile of the product
    output_tile: str
    compute: Compute  # the epilogue step
    epilogue_header: str  # op_kernel/<op>_epilogue.h
    tiling_fields: list[TilingField]  # the op's own fields (the struct ends with cubeTiling)
    attr_fields: list[AttrField]
    host_scalars: list[HostScalar]
    expression: str  # the output's compute expression, for the comments
    block_slack: int
    # TilingFunc's UB budget of a block: bytes per element of it (every tile, the widest dtype
    # of each combination), and bytes besides (32-byte rounding of each buffer, the
    # sharedTmpBuffer's minimum)
    ub_per_elem: int
    ub_fixed: int


def plan(op: Op, options: Options) -> MatmulData:
    """The matmul kernel's data (compiler.checks has refused a target SoC without the Matmul
    API in a mixed kernel, and an epilogue the compiler cannot lower)."""
    mm = op.matmul
    assert mm is not None
    epi, product = epilogue_op(op)
    data = kernel.plan(epi, options)
    a, b = _operand(op, mm.a, mm.transpose_a), _operand(op, mm.b, mm.transpose_b)
    inputs = _epilogue_inputs(op, data)
    out = op.outputs[0]
    narrow = any(d != "float32" for d in out.dtypes)
    per_elem, fixed = _ub_budget(op, data.compute, inputs, narrow)
    return MatmulData(
        a=a,
        b=b,
        inputs=inputs,
        output=out.name,
        output_param=out.kernel_param,
        output_macro=out.dtype_macro,
        narrow_output=narrow,
        product_tile=product,
        output_tile=data.compute.tiles[0].name,
        compute=data.compute,
        epilogue_header=f"{op.snake_name}_epilogue.h",
        tiling_fields=_tiling_fields(op, data, a, b, inputs),
        attr_fields=data.attr_fields,
        host_scalars=data.compute.host_scalars,
        expression=expr.show(op.compute[out.name]),
        block_slack=BLOCK_SLACK_ELEMS,
        ub_per_elem=per_elem,
        ub_fixed=fixed,
    )


def _operand(op: Op, name: str, flag: bool | str) -> Operand:
    """a or b, and its transpose: a literal, or an attr read at run time (its default when the
    launch gives none)."""
    t = next(t for t in op.inputs if t.name == name)
    attr = flag if isinstance(flag, str) else ""
    index = next((i for i, x in enumerate(op.attrs) if x.name == attr), -1)
    default = bool(attr) and not op.attrs[index].required and bool(op.attrs[index].default)
    return Operand(
        name,
        op.inputs.index(t),
        t.kernel_param,
        t.dtype_macro,
        flag is True,
        attr,
        index,
        "true" if default else "false",
    )


def _epilogue_inputs(op: Op, data: kernel.KernelData) -> list[EpilogueInput]:
    """The epilogue's inputs, each with its tiling field saying which shape it has."""
    taken = {f.name for f in data.tiling_fields}
    inputs = []
    for t in epilogue_inputs(op):
        field = fresh(t.kernel_param + "Full", taken)
        taken.add(field)
        inputs.append(
            EpilogueInput(
                t.name,
                op.inputs.index(t),
                t.kernel_param,
                t.dtype_macro,
                t.kernel_param,  # the step's tile: the epilogue op's input of that name
                field,
                any(d != "float32" for d in t.dtypes),
            )
        )
    return inputs


def _tiling_fields(
    op: Op, data: kernel.KernelData, a: Operand, b: Operand, inputs: list[EpilogueInput]
) -> list[TilingField]:
    """The op's tiling fields before cubeTiling: the launch, the epilogue's block and scratch,
    the runtime choices (batches, transposes, each input's shape), the attrs, widest first."""
    out = op.outputs[0].name
    fields = [
        TilingField("uint32_t", "blockDim", "cube cores the launch uses, two vector cores each"),
        TilingField("uint32_t", "tileLength", "elements of a block's tiles: baseM x baseN + slack"),
        TilingField("uint32_t", "tmpCount", "scratch temporaries of the epilogue, one tile each"),
        TilingField("uint32_t", "tmpBytes", "bytes of one temporary"),
        TilingField("uint32_t", "sharedTmpBytes", "bytes of the high-level APIs' sharedTmpBuffer"),
        TilingField("uint32_t", "batch", f"matrices in {a.name} and {out} (0: empty)"),
        TilingField("uint32_t", "bBatched", f"1 when {b.name} is 3-D (a matrix per batch), else 0"),
    ]
    fields += [
        TilingField("uint32_t", o.kernel_param + "Transposed", f"1 when {o.name} is transposed")
        for o in (a, b)
        if o.attr
    ]
    fields += [
        TilingField("uint32_t", i.full_field, f"1 when {i.name} has {out}'s shape, 0 for [N]")
        for i in inputs
    ]
    size = {"int64_t": 8, "float": 4, "bool": 1}
    extra = [TilingField(f.c_type, f.field, "", attr=f.name) for f in data.attr_fields]
    extra += [
        TilingField(h.c_type, h.field, f"{h.text}, computed on the host")
        for h in data.compute.host_scalars
    ]
    return fields + sorted(extra, key=lambda f: -size[f.type])


def _ub_budget(
    op: Op, compute: Compute, inputs: list[EpilogueInput], narrow: bool
) -> tuple[int, int]:
    """UB bytes per element of a block (the product, the scratch, each input and the output
    in its widest dtype and, where narrower than float, a float copy) and bytes besides (32-byte
    rounding per buffer, the sharedTmpBuffer's minimum)."""
    size = {d: DTYPES[d].size for t in op.tensors for d in t.dtypes}
    per_elem = 4 * (1 + compute.temps + compute.shared_tmp_live_nodes)
    by_name = {t.name: t for t in op.inputs}
    for i in inputs:
        per_elem += max(size[d] for d in by_name[i.name].dtypes) + (4 if i.widen else 0)
    out = op.outputs[0]
    per_elem += max(size[d] for d in out.dtypes) + (4 if narrow else 0)
    buffers = 2 + 2 * len(inputs) + 2  # product, scratch; each input and its copy; the output's
    return per_elem, 32 * (buffers + 1) + compute.shared_tmp_min_bytes
