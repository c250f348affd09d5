"""Template data of an index op's generated kernel and host files (`op.index`;
templates/kernel/index_op/, templates/host/index_op/): the index library's kind, the kernel
template's arguments (the element types, the GM addresses in the library's order), and where
TilingFunc and InferShape take the dim and the kind's ints[] and floats[] from (a literal, or an
attr read at run time). The library itself (templates/*/index_lib/) is rendered once into a
project that has index ops."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from opgen.frontend import expr
from opgen.frontend.catalog import DTYPES
from opgen.frontend.index_functions import FUNCTIONS, PARTS, STRING_CHOICES, IndexFunction
from opgen.frontend.index_ops import gives_index, range_tensor
from opgen.frontend.model import Op
from opgen.planning.kernel import StorageAlias, StorageCase


@dataclass(frozen=True)
class IndexInt:
    """Where a value of HostArgs (the dim, or ints[slot]) comes from: a literal, an attr (its
    `item`-th element for a list_int one), or another slot (`same_as`: pooling's stride, the
    kernel's when not given)."""

    slot: int  # ints[slot]; -1 for the dim
    name: str  # torch's argument ("kernel_size[1]")
    literal: int
    attr: str  # "" for a literal
    attr_index: int
    getter: str  # GetInt, GetBool, GetListInt
    item: int  # the list_int attr's element; -1 for an int or bool attr
    default: int  # an optional attr's default (its item), when the launch gives none
    same_as: int = -1
    literals: tuple[int, ...] = ()  # a literal list, whole (roll's shifts and dims)
    text_default: str = ""  # a string attr's default (getter AttrText: nll_loss's reduction)


@dataclass(frozen=True)
class IndexFloat:
    """Where HostArgs' floats[slot] comes from (histc's min and max): a literal, or a float attr
    read with GetFloat (its default when the launch gives none)."""

    slot: int
    name: str  # torch's argument
    literal: float
    attr: str  # "" for a literal
    attr_index: int
    default: float


@dataclass(frozen=True)
class IndexTensor:
    """An input or output of the kind's kernel."""

    name: str
    index: int  # among the op's inputs, or its outputs
    kernel_param: str
    macro: str  # its DTYPE_ macro


@dataclass(frozen=True)
class IndexOpData:
    kind: str  # the library's: IndexSelect, TopK, ...
    group: str  # its headers': gather, accum, select, pool
    func: str  # torch's function
    expressions: list[str]  # each output's call as the prototype writes it (for comments)
    kernel_header: str  # op_kernel/opgen_index_<group>.h
    host_header: str  # op_host/opgen_index_<group>_tiling.h
    shape_fn: str  # op_host/opgen_index_shapes.h's function of the kind
    # the host normalises the dim (not one_hot's, not pooling's; not cross's, whose unset dim
    # TileCross resolves)
    has_dim: bool
    x: IndexTensor
    index: IndexTensor | None
    src: IndexTensor | None
    outputs: list[IndexTensor]  # the op's outputs, each one part of the call
    # the kernel template's GM arguments in the library's order (nullptr: a part not computed)
    gm_args: list[str]
    template_args: list[str]  # its element types: T, then TIdx or TOut where it takes one
    dim: IndexInt
    ints: list[IndexInt]
    has_index_output: bool  # some output is an index (argmax, .indices): outBytes from it
    parts: bool  # the call returns values and indices (topk, sort, max, min)
    index_output: int  # that output's index among the outputs (-1: none)
    # the adapters' range check of the index before the kernel runs (as torch refuses it): the
    # tensor holding indices (one_hot's x), and the bound: x's size along the dim, or one_hot's
    # num_classes (a literal or an attr)
    range_tensor: str
    range_of: str  # the tensor whose dim size bounds it; "" for one_hot
    range_dim: IndexInt | None
    range_bound: IndexInt | None
    # x's element type as words where its DTYPE_ macro is no C type on every SoC (complex64):
    # a `using` alias chosen by ORIG_DTYPE_ (the movement kinds use only its size)
    aliases: list[StorageAlias]
    # roll: shifts and dims as lists (HostArgs' ints[] and rollDims[], with their counts)
    roll_shifts: IndexInt | None
    roll_dims: IndexInt | None
    floats: list[IndexFloat]  # HostArgs' floats[] (histc's min and max)
    # the kernel takes the launch's workspace (the host adds the tiling's workspaceBytes) and
    # calls SyncAll, so it runs as KERNEL_TYPE_MIX_AIV_1_0
    uses_workspace: bool
    # histc: the adapters refuse x's own range (min == max) where torch does (NaN or inf in x)
    checks_data_range: bool
    # an index value the range check lets through (nll_loss's ignore_index), else None
    range_skip: IndexInt | None = None


def plan(op: Op) -> IndexOpData:
    """The index op's kernel and host data (the front end has checked the call, its dtypes and
    the attrs it reads; compiler.checks has refused a kind a target SoC cannot run)."""
    call = op.index_call
    assert call is not None
    fn = FUNCTIONS[call.func]
    kind, group = (fn.nhwc_kind if call.channels_last else fn.kind), fn.group
    inputs = {
        t.name: IndexTensor(t.name, i, t.kernel_param, t.dtype_macro)
        for i, t in enumerate(op.inputs)
    }
    outs = [IndexTensor(t.name, i, t.kernel_param, t.dtype_macro) for i, t in enumerate(op.outputs)]
    parts = _parts(op, outs)
    x = inputs[call.x]
    index = inputs[call.index] if call.index else None
    src = inputs[call.src] if call.src else None
    index_out = next((i for i, t in enumerate(outs) if _is_index_output(op.compute[t.name])), -1)
    ints = [_source(op, call, slot, name, default) for slot, (name, default) in enumerate(fn.ints)]
    if call.func in ("avg_pool2d", "max_pool2d") and call.arg("stride") in (None, ()):
        ints[2] = _copy(ints[2], 0)
        ints[3] = _copy(ints[3], 1)
    dim = _source(op, call, -1, fn.dim or "dim", fn.dim_default)
    aliases = _x_aliases(op, call.x, x)
    template_args = _template_args(call, x, index, outs, index_out)
    template_args[:1] = [a.name for a in aliases] or template_args[:1]
    if call.prologue:  # the row prologue TopK/Sort compute first (RowPrologue)
        template_args.append(f"opgen_index::RowPrologue::k{call.prologue.capitalize()}")
    return IndexOpData(
        kind=kind,
        group=group,
        func=call.func,
        expressions=[expr.show(op.compute[t.name]) for t in outs],
        kernel_header=f"opgen_index_{group}.h",
        host_header=f"opgen_index_{group}_tiling.h",
        shape_fn=fn.nhwc_shape_fn if call.channels_last else fn.shape_fn,
        has_dim=fn.has_dim and fn.unset_dim is None,  # else the kind's Tile resolves the dim
        x=x,
        index=index,
        src=src,
        outputs=outs,
        gm_args=_gm_args(call, [x, index, src], parts, outs),
        template_args=template_args,
        dim=dim,
        ints=ints,
        has_index_output=index_out >= 0,
        parts=fn.has_parts,
        index_output=index_out,
        range_tensor=range_tensor(call),
        range_of=call.x if call.index else "",
        range_dim=dim if call.index else None,
        range_bound=ints[0] if call.func == "one_hot" else None,
        aliases=aliases,
        roll_shifts=_source(op, call, 0, "shifts", None) if call.func == "roll" else None,
        roll_dims=_source(op, call, 0, "dims", None) if call.func == "roll" else None,
        floats=[_float_source(op, call, slot, n, d) for slot, (n, d) in enumerate(fn.floats)],
        uses_workspace=fn.workspace,
        checks_data_range=fn.checks_data_range,
        range_skip=_range_skip(fn, ints),
    )


def _range_skip(fn: IndexFunction, ints: list[IndexInt]) -> IndexInt | None:
    """The ints[] slot whose value the range check lets through (the registry's range_skip)."""
    names = [name for name, _ in fn.ints]
    return ints[names.index(fn.range_skip)] if fn.range_skip else None


def _float_source(op: Op, call: expr.IndexCall, slot: int, name: str, default: float) -> IndexFloat:
    """Where floats[slot] takes its value: argument `name`, a literal or a float attr."""
    value = call.arg(name)
    if isinstance(value, str):
        index = next(i for i, a in enumerate(op.attrs) if a.name == value)
        a = op.attrs[index]
        attr_default = float(a.default) if not a.required and a.default is not None else 0.0
        return IndexFloat(slot, name, 0.0, value, index, attr_default)
    literal = float(value) if isinstance(value, (int, float)) else default
    return IndexFloat(slot, name, literal, "", -1, 0.0)


def _parts(op: Op, outs: list[IndexTensor]) -> dict[str, IndexTensor]:
    """Each output by the part of the call it takes (values unless .indices)."""
    parts = {}
    for t in outs:
        tree = op.compute[t.name]
        assert isinstance(tree, expr.IndexCall)
        parts[tree.part or "values"] = t
    return parts


def _x_aliases(op: Op, x_name: str, x: IndexTensor) -> list[StorageAlias]:
    """x's element type when some of its dtypes are stored as words (complex64 -> uint64_t)."""
    param = next(t for t in op.inputs if t.name == x_name)
    stored = [DTYPES[d] for d in dict.fromkeys(param.dtypes) if DTYPES[d].storage]
    if not stored:
        return []
    cases = [StorageCase("ORIG_" + x.macro, d.ge, d.storage) for d in stored]
    return [StorageAlias("XElement", x.macro, cases)]


def _gm_args(
    call: expr.IndexCall,
    inputs: list[IndexTensor | None],
    parts: dict[str, IndexTensor],
    outs: list[IndexTensor],
) -> list[str]:
    """The kernel's GM arguments in the library's order: x, index, src (those it has), then the
    output (topk, sort: values and indices, nullptr for a part the op does not compute; an op
    without outputs: x, which the kernel updates in place)."""
    gm = [t.kernel_param for t in inputs if t is not None]
    if FUNCTIONS[call.func].has_parts:
        return gm + [parts[p].kernel_param if p in parts else "nullptr" for p in PARTS]
    out = outs[0].kernel_param if outs else gm[0]  # an in-place op writes its x
    if FUNCTIONS[call.func].workspace:
        return [*gm, out, "workspace"]
    return [*gm, out]


def _template_args(
    call: expr.IndexCall,
    x: IndexTensor,
    index: IndexTensor | None,
    outs: list[IndexTensor],
    index_out: int,
) -> list[str]:
    """The kernel template's element types: x's, then the index input's, the index output's
    (argmax, .indices) or the output's (one_hot, cumsum)."""
    if index is not None:
        return [x.macro, index.macro]
    if index_out >= 0:
        return [x.macro, outs[index_out].macro]
    if call.func in ("one_hot", "cumsum", "histc"):
        return [x.macro, outs[0].macro]
    if FUNCTIONS[call.func].has_parts:  # .values alone: the indices it does not store
        return [x.macro, "int32_t"]
    return [x.macro]


def _is_index_output(tree: expr.Node) -> bool:
    return isinstance(tree, expr.IndexCall) and gives_index(tree)


def _copy(source: IndexInt, slot: int) -> IndexInt:
    return IndexInt(source.slot, source.name, 0, "", -1, "", -1, 0, same_as=slot)


def _source(op: Op, call: expr.IndexCall, slot: int, name: str, default: int | None) -> IndexInt:
    """Where slot `slot` (the dim: -1) takes its value: argument `name` (pooling's "name[i]"),
    a literal or an attr, or its default."""
    base, _, rest = name.partition("[")
    item = int(rest[:-1]) if rest else -1
    value = call.arg(base)
    if base in STRING_CHOICES:  # a string literal: its code, the choice's position
        assert isinstance(value, str)
        return IndexInt(slot, name, STRING_CHOICES[base].index(value), "", -1, "", -1, 0)
    if base == "alpha_bits":  # index_add's float alpha as float32 bits (0: an int alpha)
        alpha = call.arg("alpha")
        bits = struct.unpack("<i", struct.pack("<f", alpha))[0] if isinstance(alpha, float) else 0
        return IndexInt(slot, name, bits, "", -1, "", -1, 0)
    if isinstance(value, float):  # a float alpha: its bits carry it (alpha_bits)
        return IndexInt(slot, name, 0, "", -1, "", -1, 0)
    if value is None or value == ():
        return IndexInt(slot, name, int(default or 0), "", -1, "", -1, 0)
    if isinstance(value, str):
        index = next(i for i, a in enumerate(op.attrs) if a.name == value)
        a = op.attrs[index]
        if a.type == "string":  # the host turns the text into the kind's code
            text = "" if a.required else str(a.default)
            return IndexInt(slot, name, 0, value, index, "AttrText", -1, 0, text_default=text)
        getter = {"int": "GetInt", "bool": "GetBool", "list_int": "GetListInt"}[a.type]
        attr_default = a.default if not a.required else 0
        if isinstance(attr_default, list):
            attr_default = (
                attr_default[min(max(item, 0), len(attr_default) - 1)] if attr_default else 0
            )
        return IndexInt(
            slot,
            name,
            0,
            value,
            index,
            getter,
            item if a.type == "list_int" else -1,
            int(attr_default or 0),
        )
    if isinstance(value, tuple):
        first = int(value[max(item, 0)]) if value else 0
        return IndexInt(slot, name, first, "", -1, "", -1, 0, literals=tuple(value))
    return IndexInt(slot, name, int(value), "", -1, "", -1, 0)
