"""The index functions (torch's index_select, gather, scatter_add, index_add, argmax, argmin,
topk, sort, roll, one_hot, cumsum, avg_pool2d, max_pool2d, cross, histc, nll_loss, index_reduce,
max and min along a dim): one frozen entry each, all that opgen knows of it in one place -- its
torch signature and spelling, the index library's kernel that runs it (templates/*/index_lib/),
the dtypes that kernel takes, how the kernel's ints[] (and floats[]) are filled, its shape
function, and what the kernel needs of a SoC. The grammar (expr.py), the rules (index_ops.py), the
SoC checks (compiler/checks.py) and the planner (planning/index_op.py) read it; nothing else names a
function."""

from __future__ import annotations

from dataclasses import dataclass

INDEX_DTYPES = ("int32", "int64")  # an index input's, and an index output's
FLOATS = ("float16", "bfloat16", "float32")
ONE_HOT_OUT_DTYPES = ("int32", "int64", "float32", "float16")
# the parameters that are input tensors (cross's `other` is held as the call's src)
TENSOR_PARAMS = ("x", "index", "src", "other")
# The other parameters by type: bools, pooling's pairs of ints; the rest are ints
BOOL_PARAMS = frozenset(
    "keepdim largest sorted descending ceil_mode count_include_pad include_self".split()
)
PAIR_PARAMS = frozenset("kernel_size stride padding dilation".split())
LIST_PARAMS = frozenset("shifts dims".split())  # an int or a list (torch.roll's, paired in turn)
# A string attr (not a literal): nll_loss's reduction, read per launch, one of torch's values
STRING_PARAMS = {"reduction": ("none", "mean", "sum")}
FLOAT_PARAMS = frozenset("min max".split())  # a number or a float attr (torch.histc's range)
NUMBER_PARAMS = frozenset({"alpha"})  # an int or float literal, or an int attr
# A string literal, one of torch's choices opgen's kernel computes (its ints[] code: the position);
# torch's others, refused by name
STRING_CHOICES = {"reduce": ("amax", "amin")}
STRING_REFUSED = {"reduce": ("prod", "mean")}
PARTS = ("values", "indices")  # topk(...).values, sort(...).indices
# A row prologue the kernel computes on x's row in UB before it (topk(softmax(x, dim=-1), k)):
# its spelling as topk's x, and the equivalent expression opgen also takes ({x} the input)
SOFTMAX = "softmax"
SOFTMAX_LONGHAND = (
    "exp({x} - amax({x}, dim=-1, keepdim=True)) / "
    "sum(exp({x} - amax({x}, dim=-1, keepdim=True)), dim=-1, keepdim=True)"
)
# A channels-last pooling as torch spells it: pool(x.permute(0, 3, 1, 2), ...).permute(0, 2, 3, 1),
# x and y NHWC (the functions with an nhwc_kind; the only permutes the grammar takes)
NHWC_TO_NCHW = (0, 3, 1, 2)
NCHW_TO_NHWC = (0, 2, 3, 1)
# CANN's "dim not given" (the OpDef default of its Cross and CrossV2: hicann/ops-nn
# loss/cross_v2/op_host/cross_v2_def.cpp's DEFAULT_DIM): torch.cross's dim=None
CROSS_UNSET_DIM = -65530

# What a kind's kernel needs of a SoC: catalog.SocFamily flags and the APIs they stand for (the
# library's static_asserts refuse the same SoCs: opgen_soc.h's OPGEN_SOC_HAS_*)
CAPABILITY_APIS = {
    "has_datacopypad": "DataCopyPad",
    "has_compare_select": "Compare and Select",
    "has_float_reduce": "ReduceMax/ReduceMin in float",
    "has_sort32": "Sort32 and MrgSort",
    "has_gather": "Gather",
    "has_hardware_sync_all": "SyncAll (the hardware form)",
}
_SUMMED = (*FLOATS, "int32")  # what cumsum takes (sums in float or int32)
# What IndexAdd, ScatterAdd and IndexReduce take (8/16-bit integers on the scalar unit, wrapping)
_SCATTERED = (*_SUMMED, "int16", "int8", "uint8")
# What the sort kernels take (ints exact in float keys), and the arg kernels (int32 on the scalar
# unit too)
_SORTED = (*FLOATS, "int8", "uint8", "int16")
_ARG = (*_SORTED, "int32")
# What the byte-moving kernels take (words of 1, 2, 4 or 8 bytes; complex64 as one 8-byte word)
_MOVED = (*FLOATS, "int8", "uint8", "int16", "int32", "uint32", "int64", "bool", "complex64")
_POOL_INTS = (
    ("kernel_size[0]", None),
    ("kernel_size[1]", None),
    ("stride[0]", None),  # not given: the kernel's (torch's default)
    ("stride[1]", None),
    ("padding[0]", 0),
    ("padding[1]", 0),
    ("ceil_mode", 0),
)


@dataclass(frozen=True)
class IndexFunction:
    """One index function."""

    name: str  # torch's, as the grammar spells it
    params: tuple[str, ...]  # torch's parameters in order (TENSOR_PARAMS the inputs)
    required: tuple[str, ...]  # the arguments opgen needs (no default it can take)
    torch: str  # torch's spelling, for the golden
    kind: str  # the library's kernel template and its host Tile<kind>
    group: str  # its headers: opgen_index_<group>.h, opgen_index_<group>_tiling.h
    shape_fn: str  # op_host/opgen_index_shapes.h's output shape function
    data_dtypes: tuple[str, ...]  # x's dtypes the kernel takes
    # The kernel's ints[] in order: the argument filling each slot (a pair's item as name[i])
    # and its value when not given (None: given, or the slot two before's, as pooling's stride)
    ints: tuple[tuple[str, int | None], ...] = ()
    # The kernel's floats[] in order (FLOAT_PARAMS): the argument filling each slot, its default
    floats: tuple[tuple[str, float], ...] = ()
    dim: str = "dim"  # the parameter naming the dim ("": the function has none)
    dim_default: int = 0
    movement: bool = False  # it only moves x's elements (so any word, complex64 too)
    last_dim_only: bool = False  # its kernel works along x's last dim only
    has_parts: bool = False  # it returns values and indices: the call takes .values or .indices
    dtype_notes: tuple[tuple[str, str], ...] = ()  # why a dtype the kernel could take is refused
    long_index: bool = False  # torch takes an int64 index only (the golden widens an int32 one)
    gives_index: bool = False  # its value is an index (topk/sort: the .indices part)
    workspace: bool = False  # its kernel takes the launch's workspace (and SyncAll: MIX_AIV_1_0)
    float_golden: bool = False  # torch has no integer kernel: the golden bins x.float() (histc)
    needs: tuple[str, ...] = ("has_datacopypad",)  # catalog.SocFamily flags (CAPABILITY_APIS)
    # an argument whose value the adapters' index range check lets through (nll_loss's
    # ignore_index: torch skips it), and whether they refuse a data range torch refuses (histc's
    # min == max over NaN or inf)
    range_skip: str = ""
    checks_data_range: bool = False
    # the row prologues its kernel computes on x first (SOFTMAX), and the flags they need
    prologues: tuple[str, ...] = ()
    prologue_needs: tuple[str, ...] = ()
    # its channels-last kernel and shape function (pooling of NHWC x: expr.IndexCall.channels_last)
    nhwc_kind: str = ""
    nhwc_shape_fn: str = ""
    # the dim's value standing for torch's dim=None (cross: CANN's Cross/CrossV2 OpDef default
    # -65530; the golden passes None, the host resolves it); None: every value is a dim
    unset_dim: int | None = None
    # the range the generated tests draw the data inputs from, and why (None: the default)
    data_range: tuple[int, int, str] | None = None
    positional: int = 0  # how many arguments may be positional (0: all; nll_loss: its tensors)

    @property
    def has_dim(self) -> bool:
        return bool(self.dim)


def _f(*entries: IndexFunction) -> dict[str, IndexFunction]:
    return {e.name: e for e in entries}


FUNCTIONS: dict[str, IndexFunction] = _f(
    IndexFunction(
        "index_select",
        ("x", "dim", "index"),
        ("dim",),
        "torch.index_select",
        "IndexSelect",
        "gather",
        "ShapeIndexSelect",
        _MOVED,
        movement=True,
    ),
    IndexFunction(
        "gather",
        ("x", "dim", "index"),
        ("dim",),
        "torch.gather",
        "Gather",
        "gather",
        "ShapeGather",
        tuple(d for d in _MOVED if d != "uint32"),
        long_index=True,
        movement=True,
        dtype_notes=(("uint32", " (torch.gather, the golden, has no CPU kernel for uint32)"),),
        needs=("has_datacopypad", "has_gather"),
    ),
    IndexFunction(
        "scatter_add",
        ("x", "dim", "index", "src"),
        ("dim",),
        "torch.scatter_add",
        "ScatterAdd",
        "accumulate",
        "ShapeScatterAdd",
        _SCATTERED,
        long_index=True,
    ),
    IndexFunction(
        "index_add",
        ("x", "dim", "index", "src", "alpha"),
        ("dim",),
        "torch.index_add",
        "IndexAdd",
        "accumulate",
        "ShapeIndexAdd",
        _SCATTERED,
        # alpha: an int, and a float literal's float32 bits (planning/index_op.py fills both)
        ints=(("alpha", 1), ("alpha_bits", 0)),
    ),
    IndexFunction(
        "argmax",
        ("x", "dim", "keepdim"),
        ("dim",),
        "torch.argmax",
        "ArgMax",
        "select",
        "ShapeArgReduce",
        _ARG,
        ints=(("keepdim", 0),),  # the host's shapes only: the kernel ignores it
        gives_index=True,
        needs=("has_datacopypad", "has_float_reduce"),
    ),
    IndexFunction(
        "argmin",
        ("x", "dim", "keepdim"),
        ("dim",),
        "torch.argmin",
        "ArgMin",
        "select",
        "ShapeArgReduce",
        _ARG,
        ints=(("keepdim", 0),),
        gives_index=True,
        needs=("has_datacopypad", "has_float_reduce"),
    ),
    IndexFunction(
        "topk",
        ("x", "k", "dim", "largest", "sorted"),
        ("k",),
        "torch.topk",
        "TopK",
        "select",
        "ShapeTopK",
        _SORTED,
        ints=(("k", None), ("largest", 1)),
        dim_default=-1,
        last_dim_only=True,
        has_parts=True,
        needs=("has_datacopypad", "has_sort32"),
        prologues=(SOFTMAX,),
        prologue_needs=("has_float_reduce",),
    ),
    IndexFunction(
        "sort",
        ("x", "dim", "descending"),
        (),
        "torch.sort",
        "Sort",
        "select",
        "ShapeSame",
        _SORTED,
        ints=(("descending", 0),),
        dim_default=-1,
        last_dim_only=True,
        has_parts=True,
        needs=("has_datacopypad", "has_sort32"),
        prologues=(SOFTMAX,),
        prologue_needs=("has_float_reduce",),
    ),
    IndexFunction(
        "roll",
        ("x", "shifts", "dims"),
        ("shifts", "dims"),
        "torch.roll",
        "Roll",
        "gather",
        "ShapeSame",
        _MOVED,
        dim="",  # shifts and dims are lists, read apart (IndexOpData.roll_shifts, roll_dims)
        movement=True,
    ),
    IndexFunction(
        "one_hot",
        ("x", "num_classes"),
        ("num_classes",),
        "torch.nn.functional.one_hot",
        "OneHot",
        "gather",
        "ShapeOneHot",
        INDEX_DTYPES,
        ints=(("num_classes", None),),
        dim="",
    ),
    IndexFunction(
        "cumsum",
        ("x", "dim"),
        ("dim",),
        "torch.cumsum",
        "CumSum",
        "accumulate",
        "ShapeSame",
        _SUMMED,
    ),
    IndexFunction(
        "avg_pool2d",
        ("x", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"),
        ("kernel_size",),
        "torch.nn.functional.avg_pool2d",
        "AvgPool2d",
        "pool",
        "ShapePool2d",
        FLOATS,
        ints=(*_POOL_INTS, ("count_include_pad", 1)),
        dim="",
        needs=("has_datacopypad", "has_compare_select", "has_gather"),
        nhwc_kind="AvgPool2dNhwc",
        nhwc_shape_fn="ShapePool2dNhwc",
    ),
    IndexFunction(
        "max_pool2d",
        ("x", "kernel_size", "stride", "padding", "dilation", "ceil_mode"),
        ("kernel_size",),
        "torch.nn.functional.max_pool2d",
        "MaxPool2d",
        "pool",
        "ShapePool2d",
        FLOATS,
        ints=(*_POOL_INTS, ("count_include_pad", 0)),  # unused: max pooling pads with -inf
        dim="",
        needs=("has_datacopypad", "has_compare_select", "has_gather"),
        nhwc_kind="MaxPool2dNhwc",
        nhwc_shape_fn="ShapePool2dNhwc",
    ),
    IndexFunction(
        "cross",
        ("x", "other", "dim"),
        (),
        "torch.cross",  # its dim=None rule (torch.linalg.cross has none); a given dim: the same
        "Cross",
        "cross",
        "ShapeCross",
        ("float16", "float32", "int32", "int8"),
        dim_default=CROSS_UNSET_DIM,  # not given: torch's None
        unset_dim=CROSS_UNSET_DIM,
        data_range=(-100, 100, "products that wrap in int8 as torch's (the kernel wraps too)"),
    ),
    IndexFunction(
        "histc",
        ("x", "bins", "min", "max"),
        (),
        "torch.histc",
        "Histc",
        "histogram",
        "ShapeHistc",
        ("float16", "float32", "int32"),
        ints=(("bins", 100),),
        floats=(("min", 0.0), ("max", 0.0)),
        dim="",
        workspace=True,
        float_golden=True,
        checks_data_range=True,
        needs=("has_datacopypad", "has_hardware_sync_all"),
    ),
    IndexFunction(
        "nll_loss",
        ("x", "index", "src", "ignore_index", "reduction"),
        (),
        "torch.nn.functional.nll_loss",
        "NllLoss",
        "loss",
        "ShapeNllLoss",
        ("float32",),
        # ints[1]: the reduction's code (opgen_index::kReduction*), read from the string attr
        ints=(("ignore_index", -100), ("reduction", 1)),
        dim="",
        dim_default=-1,  # the classes' axis: the targets index x's last dim
        long_index=True,
        positional=3,  # torch's 4th is the deprecated size_average: the rest by keyword
        range_skip="ignore_index",
    ),
    IndexFunction(
        "index_reduce",
        ("x", "dim", "index", "src", "reduce", "include_self"),
        ("dim", "reduce"),
        "torch.index_reduce",
        "IndexReduce",
        "reduce",
        "ShapeIndexAdd",
        _SCATTERED,
        ints=(("reduce", None), ("include_self", 1)),
    ),
    # torch.max(x, dim, keepdim) / torch.min: (values, indices), the arg kernels storing both.
    # max(a, b) of two operands is the elementwise function: the grammar takes a call with a
    # keyword, a third argument or a part (.values/.indices) as this one.
    IndexFunction(
        "max",
        ("x", "dim", "keepdim"),
        ("dim",),
        "torch.max",
        "MaxDim",
        "select",
        "ShapeArgReduce",
        _ARG,
        ints=(("keepdim", 0),),
        has_parts=True,
        needs=("has_datacopypad", "has_float_reduce"),
    ),
    IndexFunction(
        "min",
        ("x", "dim", "keepdim"),
        ("dim",),
        "torch.min",
        "MinDim",
        "select",
        "ShapeArgReduce",
        _ARG,
        ints=(("keepdim", 0),),
        has_parts=True,
        needs=("has_datacopypad", "has_float_reduce"),
    ),
)
