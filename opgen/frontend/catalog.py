"""What msopgen and CANN accept: dtypes, formats, attr types and SoC names.

These tables mirror msopgen's `msopgen/config/transform.json` (INPUT_OUTPUT_DTYPE_MAP,
FORMAT_LIST, IR_ATTR_TYPE_MAP, SOC_VERSION_TYPE) and metadef's `op_def.h`; see
`../shared/reference/ascend-c.md` §1. The JSON Schema in `schema/op.schema.json` lists the same
names; `tests/test_catalog.py` keeps the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from opgen.frontend.functions import lacking_apis


@dataclass(frozen=True)
class DType:
    """One tensor dtype opgen can generate code for, with its name in every layer."""

    name: str  # opgen's canonical name, also the torch.<name> attribute
    ge: str  # ge::DataType enumerator used in OpDef
    c_type: str  # C type the CANN build defines as DTYPE_<NAME>
    size: int  # bytes per element
    is_float: bool  # real floating point (complex is not)
    msopgen: str  # msopgen's spelling (an INPUT_OUTPUT_DTYPE_MAP key)
    at: str  # at::ScalarType enumerator (after `at::`)
    # The C type the kernel stores an element as, when DTYPE_<NAME> is not one on every SoC
    # (complex64 is a C type only on Ascend950): the kernel moves such a tensor as words of
    # this type, chosen by `#if ORIG_DTYPE_<NAME> == <ge>`. "": c_type.
    storage: str = ""

    @property
    def is_complex(self) -> bool:
        return self.name.startswith("complex")


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("float16", "DT_FLOAT16", "half", 2, True, "fp16", "kHalf"),
        DType("bfloat16", "DT_BF16", "bfloat16_t", 2, True, "bf16", "kBFloat16"),
        DType("float32", "DT_FLOAT", "float", 4, True, "float", "kFloat"),
        DType("float64", "DT_DOUBLE", "double", 8, True, "double", "kDouble"),
        DType("int8", "DT_INT8", "int8_t", 1, False, "int8", "kChar"),
        DType("int16", "DT_INT16", "int16_t", 2, False, "int16", "kShort"),
        DType("int32", "DT_INT32", "int32_t", 4, False, "int32", "kInt"),
        DType("int64", "DT_INT64", "int64_t", 8, False, "int64", "kLong"),
        DType("uint8", "DT_UINT8", "uint8_t", 1, False, "uint8", "kByte"),
        DType("uint16", "DT_UINT16", "uint16_t", 2, False, "uint16", "kUInt16"),
        DType("uint32", "DT_UINT32", "uint32_t", 4, False, "uint32", "kUInt32"),
        DType("uint64", "DT_UINT64", "uint64_t", 8, False, "uint64", "kUInt64"),
        DType("bool", "DT_BOOL", "bool", 1, False, "bool", "kBool"),
        # A pair of floats (real, imaginary); the CANN build defines DTYPE_<NAME> as complex64,
        # which only Ascend950's Ascend C has (AscendC::Complex<float>), so the kernel moves it
        # as 8-byte words (ascendc_impl_build.py DTYPE_MAP; kernel_type.h DT_COMPLEX64 16).
        DType(
            "complex64",
            "DT_COMPLEX64",
            "complex64",
            8,
            False,
            "complex64",
            "kComplexFloat",
            storage="uint64_t",
        ),
    )
}

# msopgen's spellings (INPUT_OUTPUT_DTYPE_MAP keys) -> opgen's canonical name.
DTYPE_ALIASES: dict[str, str] = {
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float": "float32",
    "float32": "float32",
    "fp32": "float32",
    "double": "float64",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "bool": "bool",
    "complex64": "complex64",
}

# Near misses seen in real prototypes -> the msopgen spelling they mean (for "did you mean").
DTYPE_SUGGESTIONS: dict[str, str] = {
    "bfloat": "bf16",
    "fp64": "double",
    "float64": "double",
    "f16": "fp16",
    "f32": "float",
    "half16": "fp16",
    "int": "int32",
    "long": "int64",
    "short": "int16",
    "char": "int8",
    "byte": "uint8",
    "uint": "uint32",
    "boolean": "bool",
}

# dtypes msopgen knows for which opgen's kernel and PyTorch templates have no element type. A
# dtype combination holding one is left out with a warning (opgen/frontend/spelling.py); an op
# with no other combination is refused.
NO_ELEMENT_TYPE: tuple[str, ...] = (
    "string",
    "resource",
    "uint1",
    "int2",
    "qint8",
    "qint16",
    "qint32",
    "quint8",
    "quint16",
    "complex32",
    "complex128",
)

# Names msopgen knows that opgen deliberately refuses, with the reason shown to the user.
UNSUPPORTED_DTYPES: dict[str, str] = {
    **{
        name: "a dtype collection expands to many dtypes and breaks the column-aligned dtype "
        "combinations; list the dtypes explicitly"
        for name in (
            "numbertype",
            "realnumbertype",
            "quantizedtype",
            "all",
            "BasicType",
            "IndexNumberType",
        )
    },
    **{
        name: "opgen's kernel and PyTorch templates have no element type for it"
        for name in NO_ELEMENT_TYPE
    },
    "float64": "msopgen does not know 'float64' and silently drops it; write 'double'",
    "int4": "msopgen does not know 'int4' and silently drops it",
}

# msopgen's FORMAT_LIST, in its order; each maps to ge::FORMAT_<name>.
FORMATS: tuple[str, ...] = tuple(
    """
    NCHW NHWC ND NC1HWC0 FRACTAL_Z NC1C0HWPAD NHWC1C0 FSR_NCHW FRACTAL_DECONV C1HWNC0
    FRACTAL_DECONV_TRANSPOSE FRACTAL_DECONV_SP_STRIDE_TRANS NC1HWC0_C04 FRACTAL_Z_C04 CHWN
    FRACTAL_DECONV_SP_STRIDE8_TRANS HWCN NC1KHKWHWC0 BN_WEIGHT FILTER_HWCK
    HASHTABLE_LOOKUP_LOOKUPS HASHTABLE_LOOKUP_KEYS HASHTABLE_LOOKUP_VALUE
    HASHTABLE_LOOKUP_OUTPUT HASHTABLE_LOOKUP_HITS C1HWNCoC0 MD NDHWC FRACTAL_ZZ FRACTAL_NZ NCDHW
    DHWCN NDC1HWC0 FRACTAL_Z_3D CN NC DHWNC FRACTAL_Z_3D_TRANSPOSE FRACTAL_ZN_LSTM
    FRACTAL_ZN_RNN FRACTAL_Z_G NULL
    """.split()
)


@dataclass(frozen=True)
class AttrType:
    """An attr type that has an `ops::OpAttrDef` method (metadef op_def.h), with what every
    stage needs of it."""

    name: str  # msopgen's name
    opdef_method: str  # OpAttrDef method: .Float(0.5f)
    torch: str  # PyTorch schema type
    # C type of its aclnn parameter (op_aclnn_generator.cpp); None: the generator rejects it.
    aclnn_type: str | None
    is_scalar: bool  # int, float, bool: may appear in a compute expression
    cpp_param: str  # C++ parameter type of the PyTorch op implementation
    py_annotation: str  # Python annotation of the op function's parameter
    ge_builder: str  # torchair.ge.attr.<X> in the torchair converter
    ge_tag: str  # torchair's attr value tag (torchair.ge.attr._ATTR_TYPE_MAP)
    twin_value: str  # C++ expression of an opgen_twin::AttrValue from the parameter `{}`
    test_sample: Any  # the value the generated tests pass when the attr is required

    @property
    def aclnn_optional_suffix(self) -> bool:
        """aclnn appends "Optional" only to optional string and list attrs."""
        return not self.is_scalar


ATTR_TYPES: dict[str, AttrType] = {
    a.name: a
    for a in (
        AttrType(
            "int",
            "Int",
            "int",
            "int64_t",
            True,
            "int64_t",
            "int",
            "Int",
            "VT_INT",
            "int64_t{{{}}}",
            2,
        ),
        AttrType(
            "float",
            "Float",
            "float",
            "double",
            True,
            "double",
            "float",
            "Float",
            "VT_FLOAT",
            "static_cast<float>({})",
            0.5,
        ),
        AttrType(
            "bool",
            "Bool",
            "bool",
            "bool",
            True,
            "bool",
            "bool",
            "Bool",
            "VT_BOOL",
            "bool{{{}}}",
            True,
        ),
        AttrType(
            "string",
            "String",
            "str",
            "char *",
            False,
            "c10::string_view",
            "str",
            "Str",
            "VT_STRING",
            "std::string({})",
            "",
        ),
        AttrType(
            "list_int",
            "ListInt",
            "int[]",
            "const aclIntArray *",
            False,
            "at::IntArrayRef",
            "Sequence[int]",
            "ListInt",
            "VT_LIST_INT",
            "{}.vec()",
            [1],
        ),
        AttrType(
            "list_float",
            "ListFloat",
            "float[]",
            "const aclFloatArray *",
            False,
            "at::ArrayRef<double>",
            "Sequence[float]",
            "ListFloat",
            "VT_LIST_FLOAT",
            "std::vector<float>({0}.begin(), {0}.end())",
            [0.5],
        ),
        AttrType(
            "list_bool",
            "ListBool",
            "bool[]",
            "const aclBoolArray *",
            False,
            "const c10::List<bool>&",
            "Sequence[bool]",
            "ListBool",
            "VT_LIST_BOOL",
            "opgen_torch::ToVector({})",
            [True],
        ),
        AttrType(
            "list_list_int",
            "ListListInt",
            "int[][]",
            None,
            False,
            "const std::vector<std::vector<int64_t>>&",
            "Sequence[Sequence[int]]",
            "ListListInt",
            "VT_LIST_LIST_INT",
            "{}",
            [[1]],
        ),
    )
}

# Attr type spellings real prototypes use that msopgen's IR_ATTR_TYPE_MAP lacks (msopgen drops
# such an attr with a warning): opgen reads them as the type they mean (opgen/frontend/spelling.py).
ATTR_TYPE_ALIASES: dict[str, str] = {
    "int32": "int",
    "int64": "int",
    "str": "string",
    "float32": "float",
    "list_int32": "list_int",
    "list_int64": "list_int",
    "list_float32": "list_float",
}

# Attr types msopgen accepts but for which OpAttrDef has no method: msopgen emits code that
# does not compile (ascend-c.md §1.1 and the pitfalls).
UNSUPPORTED_ATTR_TYPES = ("type", "tensor", "list_string", "list_tensor", "list_type")

# msopgen's SOC_VERSION_TYPE: full SoC name -> short name used in AddConfig and
# ASCEND_COMPUTE_UNIT (ascend-c.md §1.3).
SOC_SHORT_NAMES: dict[str, str] = {
    **{f"ascend910b{n}": "ascend910b" for n in ("1", "2", "2c", "3", "4", "4-1")},
    **{f"ascend910_{n}": "ascend910_93" for n in ("9391", "9392", "9381", "9382", "9372", "9362")},
    **{
        f"ascend310p{n}": "ascend310p"
        for n in ("1", "3", "5", "7", "3vir01", "3vir02", "3vir04", "3vir08")
    },
    **{f"ascend310b{n}": "ascend310b" for n in ("1", "2", "3", "4")},
    "ascend950pr": "ascend950",
    "ascend950dt": "ascend950",
    # The 910A generation; a bare "ascend910b" lands here too, which surprises users.
    "ascend910a": "ascend910",
    "ascend910b": "ascend910",
    "ascend910proa": "ascend910",
    "ascend910prob": "ascend910",
    "ascend910premiuma": "ascend910",
    "bs9sx1aa": "bs9sx1a",
}


@dataclass(frozen=True)
class SocFamily:
    """What a generation of SoCs (one msopgen short name) can run, from the asc-devkit docs
    ("产品支持情况" of each API; __NPU_ARCH__ from SIMD-BuiltIn关键字.md). The flags are
    SOC_CAPABILITIES: opgen_soc.h gives the kernel library and the CPU twin each as a macro."""

    short_name: str
    npu_arch: int | None  # __NPU_ARCH__; None: not documented
    has_datacopypad: bool  # DataCopyPad (GM<->UB) for tails that are not whole 32-byte blocks
    # float <-> bfloat16 Cast (no bfloat16 CastIntrinsicsImpl in dav_c100/dav_m200 vconv)
    has_bf16_cast: bool = True
    # float -> half Cast in every RoundMode, not only CAST_NONE and CAST_ODD
    has_half_cast_modes: bool = True
    has_dcci: bool = True  # DataCacheCleanAndInvalid, to flush the scalar unit's GM writes
    has_dcci_dst: bool = True  # its form with a DcciDst template argument
    has_ub_copy: bool = True  # DataCopy UB -> UB
    has_compare_select: bool = True  # Compares and Select's tensor modes
    has_wide_floor: bool = True  # Floor and Ceil over every float, not |x| <= 2147483647 only
    has_reduce: bool = True  # the level-2 ReduceSum, ReduceMax and ReduceMin
    has_float_reduce: bool = True  # those in float, not half only
    select_reserves_ub: bool = False  # Select's modes 1 and 2 keep 8 KB of UB
    # Compare of int32_t (CMPMODE::EQ only) and Not (bitwise, int16_t/uint16_t)
    has_int_compare: bool = False
    # the Matmul API driven from the vector cores of a mixed kernel (KERNEL_TYPE_MIX_AIC_1_2)
    has_mixed_matmul: bool = False
    has_hardware_sync_all: bool = False  # SyncAll() without workspaces (the cores' flags)
    # the AI Core split into a cube core (AIC) and vector cores (AIV), each compiled apart
    has_split_cores: bool = False
    has_soft_sync_all: bool = True  # SyncAll(gmWorkspace, ubWorkspace) through GM
    # a 32/64-bit bit-mode mask[] must have mask[1] == 0 (CANN asserts it); elsewhere unread
    needs_b32_mask_high_zero: bool = False
    # Compares of int16_t, uint16_t, int32_t, uint32_t in every CMPMODE (not int32_t EQ only)
    has_wide_int_compares: bool = False
    # Compare's and Compares' level-0 mask selects elements (not reserved)
    compare_mask_selects: bool = False
    has_subs: bool = False  # Subs, the tensor-scalar subtraction with the scalar on either side
    has_printf: bool = True  # the kernel's printf/PRINTF
    has_dump_tensor: bool = True  # DumpTensor and DumpAccChkPoint
    has_sort32: bool = True  # Sort32 and MrgSort (the index library's topk and sort)
    has_gather: bool = True  # the UB Gather (vector offsets into a tensor)
    has_gather_bf16: bool = True  # Gather of bfloat16_t
    has_gather_b8: bool = True  # Gather of int8_t/uint8_t
    gather_b8_count_only: bool = False  # ... in the count form only, not the repeat forms
    has_gather_b64: bool = True  # Gather of int64_t/uint64_t

    @property
    def missing_apis(self) -> frozenset[str]:
        """The compute functions' APIs it lacks (functions.APIS)."""
        return lacking_apis(self.short_name)


@dataclass(frozen=True)
class SocCapability:
    """A SocFamily flag, as opgen_soc.h's OPGEN_SOC_<macro>(arch) (opgen/frontend/soc_header.py
    writes it from SOC_FAMILIES; an __NPU_ARCH__ the catalog does not list takes the flag's
    default)."""

    field: str  # the SocFamily flag
    macro: str  # OPGEN_SOC_<macro>
    doc: str  # what it is, and where that was seen


SOC_CAPABILITIES: tuple[SocCapability, ...] = (
    SocCapability(
        "has_datacopypad",
        "HAS_DATACOPYPAD",
        "DataCopyPad (GM <-> UB) for tails that are not whole 32-byte blocks. ascend910 has no "
        "DataCopyPad with DataCopyPadExtParams (only an overload without them in its "
        "implementation); on ascend310p it is deprecated with an empty body and copies nothing. "
        "The kernel library copies their tails in whole 32-byte blocks (OPGEN_BLOCK_TAILS).",
    ),
    SocCapability(
        "has_bf16_cast",
        "HAS_BF16_CAST",
        "Cast between float and bfloat16_t (asc-devkit's Cast table; no bfloat16 "
        "CastIntrinsicsImpl in the dav_c100/dav_m200 vconv). opgen registers no bfloat16 dtype "
        "combination for the SoCs without it.",
    ),
    SocCapability(
        "has_half_cast_modes",
        "HAS_HALF_CAST_MODES",
        "Cast float -> half in every RoundMode. Without it only CAST_NONE (round to nearest even "
        "where inexact) and CAST_ODD: CAST_RINT and the directed modes assert and convert nothing "
        "(asc-devkit's Cast table and the dav_c100/dav_m200 Cast implementations).",
    ),
    SocCapability(
        "has_dcci",
        "HAS_DCCI",
        "DataCacheCleanAndInvalid, which writes the scalar unit's data cache back to GM; "
        "ascend910 has none. The kernel library leaves its scalar GM writes unflushed there.",
    ),
    SocCapability(
        "has_dcci_dst",
        "HAS_DCCI_DST",
        "DataCacheCleanAndInvalid's form with a DcciDst template argument (ascend310p has only "
        "the form without it).",
    ),
    SocCapability(
        "has_ub_copy",
        "HAS_UB_COPY",
        'DataCopy UB -> UB (asc-devkit "DataCopy（UBToUB连续数据搬运）": not Atlas 200I/500 A2, '
        "ascend310b). The kernel library copies there through the vector unit instead.",
    ),
    SocCapability(
        "has_compare_select",
        "HAS_COMPARE_SELECT",
        "Compares, and Select's VSEL_TENSOR_SCALAR_MODE and VSEL_TENSOR_TENSOR_MODE, which "
        "comparisons and where() lower to (asc-devkit Select.md: Atlas 训练系列产品 has mode 0 "
        "only, whose mask repeats every 256 bytes; Compares.md). opgen refuses comparisons for the "
        "SoCs without them, and there min/max/relu/clamp/sign do not propagate NaN as torch does.",
    ),
    SocCapability(
        "has_wide_floor",
        "HAS_WIDE_FLOOR",
        "Floor and Ceil over every float. Without it they take |x| <= 2147483647 only (asc-devkit "
        "Floor.md, Ceil.md: 310P AI Core); the kernels select x itself where |x| >= 2^23.",
    ),
    SocCapability(
        "has_sort32",
        "HAS_SORT32",
        "Sort32 and MrgSort (asc-devkit Sort32.md, MrgSort.md: not the Atlas training and "
        "inference series), which the index library's topk and sort sort with.",
    ),
    SocCapability(
        "has_gather",
        "HAS_GATHER",
        "The UB Gather (asc-devkit Gather.md: not the Atlas training series; dav_c100 reports it "
        "unsupported), which the index library's gather and pooling read with. Its 16- and "
        "32-bit types everywhere it exists; the types below as listed.",
    ),
    SocCapability(
        "has_gather_bf16",
        "HAS_GATHER_BF16",
        "Gather of bfloat16_t (Gather.md 数据类型: Atlas A2/A3 and Ascend950).",
    ),
    SocCapability(
        "has_gather_b8",
        "HAS_GATHER_B8",
        "Gather of int8_t/uint8_t (Gather.md: Atlas 200I/500 A2 and Ascend950); elsewhere the "
        "index library moves bytes through the scalar unit.",
    ),
    SocCapability(
        "gather_b8_count_only",
        "GATHER_B8_COUNT_ONLY",
        "Gather of int8_t/uint8_t in the count form only, not the repeat forms (Gather.md: "
        "Ascend950).",
    ),
    SocCapability(
        "has_gather_b64",
        "HAS_GATHER_B64",
        "Gather of int64_t/uint64_t (Gather.md: Ascend950).",
    ),
    SocCapability(
        "has_reduce",
        "HAS_REDUCE",
        "The level-2 ReduceSum, ReduceMax and ReduceMin (asc-devkit ReduceSum.md, ReduceMax.md, "
        "ReduceMin.md: Atlas A2/A3, 310P, 200I/500 A2 and the training series), which the row "
        "kernel reduces with.",
    ),
    SocCapability(
        "has_float_reduce",
        "HAS_FLOAT_REDUCE",
        "Those reductions in float, not half only (the training series takes half only). The row "
        "kernel reduces in float: it runs where both exist.",
    ),
    SocCapability(
        "select_reserves_ub",
        "SELECT_RESERVES_UB",
        "Select's VSEL_TENSOR_SCALAR_MODE and VSEL_TENSOR_TENSOR_MODE keep 8 KB of UB for "
        "themselves (asc-devkit Select.md, 约束说明: Atlas A2/A3 and 310P). opgen's tiling "
        "leaves them out of the tiles on every SoC.",
    ),
    SocCapability(
        "has_int_compare",
        "HAS_INT_COMPARE",
        "Compare of int32_t, for CMPMODE::EQ only, and Not of int16_t/uint16_t (asc-devkit "
        "Compare.md, Not.md: Atlas A2/A3). An int32 comparison is EQ of max(a, b) or min(a, b) "
        "and a, its complement by Not; opgen refuses int32 comparisons for the SoCs without them.",
    ),
    SocCapability(
        "has_mixed_matmul",
        "HAS_MIXED_MATMUL",
        "The Matmul API in a mixed kernel: KERNEL_TYPE_MIX_AIC_1_2, a cube core and the two vector "
        "cores it serves (asc-devkit 设置Kernel类型.md, Matmul使用说明.md: the separated "
        "architecture of Atlas A2/A3). opgen's matmul ops are such kernels; it refuses them for "
        "the other SoCs.",
    ),
    SocCapability(
        "has_split_cores",
        "HAS_SPLIT_CORES",
        "The AI Core split into a cube core (AIC) and vector cores (AIV), the kernel compiled once "
        "for each (impl/utils/sys_macros.h: SPLIT_CORE_CUBE / SPLIT_CORE_VEC for __NPU_ARCH__ 2201 "
        "and 3510). There g_coreType is AIC or AIV and REGIST_MATMUL_OBJ serves on the AIC and "
        "returns; elsewhere g_coreType is MIX (ASCEND_IS_AIC and ASCEND_IS_AIV both false).",
    ),
    SocCapability(
        "has_hardware_sync_all",
        "HAS_HARDWARE_SYNC_ALL",
        "SyncAll() across the cores of a launch without workspaces (asc-devkit SyncAll.md: Atlas "
        "A2/A3 and Ascend 950); elsewhere only the software form through GM.",
    ),
    SocCapability(
        "has_soft_sync_all",
        "HAS_SOFT_SYNC_ALL",
        "SyncAll(gmWorkspace, ubWorkspace), the software form through GM (asc-devkit SyncAll.md: "
        "not Atlas 200I/500 A2).",
    ),
    SocCapability(
        "needs_b32_mask_high_zero",
        "NEEDS_B32_MASK_HIGH_ZERO",
        "A bit-mode mask[] of a 32- or 64-bit type must have mask[1] == 0: CANN's CPU debug "
        "asserts it on Ascend 950 (impl/basic_api/kernel_utils_base.h, SetMask). Elsewhere an "
        "iteration of such a type reads the low word only (掩码.md: the array's effective length "
        "is 1) and kernels pass the address of one uint64_t.",
    ),
    SocCapability(
        "has_wide_int_compares",
        "HAS_WIDE_INT_COMPARES",
        "Compares (also under its older name) of int16_t, uint16_t, int32_t and uint32_t "
        "in every CMPMODE (asc-devkit Compares.md: Atlas 200I/500 A2, Ascend 950). Elsewhere half "
        "and float, and on Atlas A2/A3 int32_t for CMPMODE::EQ only (OPGEN_SOC_HAS_INT_COMPARE).",
    ),
    SocCapability(
        "compare_mask_selects",
        "COMPARE_MASK_SELECTS",
        "The level-0 mask of Compare and Compares selects the elements compared (asc-devkit "
        "Compare.md, Compares.md: 设置有效 on Atlas 200I/500 A2 and Ascend 950); elsewhere it is "
        "reserved and every element of an iteration is compared (dav_c220 VcmpvImpl and "
        "VcmpvsImpl ignore it). The twin emulates the reserved mask only.",
    ),
    SocCapability(
        "has_subs",
        "HAS_SUBS",
        "Subs, the tensor-scalar subtraction with the scalar on either side (asc-devkit "
        "Subs（灵活标量位置）.md: Ascend 950; SubsImpl exists in dav_3510 only, so a kernel "
        "calling it does not compile for the other SoCs).",
    ),
    SocCapability(
        "has_printf",
        "HAS_PRINTF",
        "The kernel's printf/PRINTF (asc-devkit printf.md: Atlas A2/A3 and Ascend 950).",
    ),
    SocCapability(
        "has_dump_tensor",
        "HAS_DUMP_TENSOR",
        "DumpTensor and DumpAccChkPoint, a tensor's values printed from the kernel (asc-devkit "
        "DumpTensor.md, DumpAccChkPoint.md: not the training series).",
    ),
)


SOC_FAMILIES: dict[str, SocFamily] = {
    f.short_name: f
    for f in (
        # The APIs each family lacks are functions.APIS' (missing_apis).
        SocFamily(
            "ascend910b",
            2201,
            True,
            select_reserves_ub=True,
            has_int_compare=True,
            has_mixed_matmul=True,
            has_hardware_sync_all=True,
            has_split_cores=True,
            has_gather_b8=False,
            has_gather_b64=False,
        ),
        SocFamily(
            "ascend910_93",
            2201,
            True,
            select_reserves_ub=True,
            has_int_compare=True,
            has_mixed_matmul=True,
            has_hardware_sync_all=True,
            has_split_cores=True,
            has_gather_b8=False,
            has_gather_b64=False,
        ),
        # Atlas training (910A): no DataCopyPad, no bfloat16 Cast (float -> half only with
        # CAST_NONE or CAST_ODD), no DataCacheCleanAndInvalid, no Compares and Select's mode 0
        # only, ReduceSum/Max/Min in half only.
        SocFamily(
            "ascend910",
            1001,
            False,
            has_bf16_cast=False,
            has_half_cast_modes=False,
            has_dcci=False,
            has_dcci_dst=False,
            has_compare_select=False,
            has_float_reduce=False,
            has_printf=False,
            has_dump_tensor=False,
            has_sort32=False,
            has_gather=False,
            has_gather_bf16=False,
            has_gather_b8=False,
            has_gather_b64=False,
        ),
        # Atlas inference (310P): no DataCopyPad, no bfloat16 Cast (float -> half only with
        # CAST_NONE or CAST_ODD), DataCacheCleanAndInvalid only without DcciDst, Floor and Ceil
        # over |x| <= 2147483647 only.
        SocFamily(
            "ascend310p",
            2002,
            False,
            has_bf16_cast=False,
            has_half_cast_modes=False,
            has_dcci_dst=False,
            has_wide_floor=False,
            select_reserves_ub=True,
            has_printf=False,
            has_sort32=False,
            has_gather_bf16=False,
            has_gather_b8=False,
            has_gather_b64=False,
        ),
        # Atlas 200I/500 A2 (310B): no UB-to-UB DataCopy.
        SocFamily(
            "ascend310b",
            3002,
            True,
            has_ub_copy=False,
            has_soft_sync_all=False,
            has_wide_int_compares=True,
            compare_mask_selects=True,
            has_printf=False,
            has_gather_bf16=False,
            has_gather_b64=False,
        ),
        # Ascend950 and BS9SX1A: the level-2 ReduceSum/Max/Min are not documented for them.
        SocFamily(
            "ascend950",
            3510,
            True,
            has_reduce=False,
            has_float_reduce=False,
            has_hardware_sync_all=True,
            has_split_cores=True,
            needs_b32_mask_high_zero=True,
            has_wide_int_compares=True,
            compare_mask_selects=True,
            has_subs=True,
            gather_b8_count_only=True,
        ),
        SocFamily(
            "bs9sx1a",
            None,
            True,
            has_reduce=False,
            has_float_reduce=False,
        ),
    )
}


@dataclass(frozen=True)
class SocChip:
    """One chip (or a run of chips) of a SoC family as the CPU twin emulates it: what
    PlatformConfig::Preset gives the name npu-smi or msopgen spells (in any case). soc_header.py
    writes SOC_CHIPS as opgen_twin/detail/soc_chips.h."""

    name: str  # lower case; with `prefix`, every name that starts with it
    family: str  # its SOC_FAMILIES key
    ub_size: int  # bytes of Unified Buffer per core (the platform ini's ub_size, TOTAL_UB_SIZE)
    aic_cores: int | None = None  # AI Cube cores; None: not recorded (the default chip's)
    aiv_cores: int | None = None  # AI Vector cores; None: not recorded (the default chip's)
    # a run of chips (Ascend310P1, Ascend310P3, ...): the twin reports the name as it was asked;
    # a single chip reports its family's short name
    prefix: bool = False


# The chips the twin has presets for; the first is the one it emulates unless told otherwise.
SOC_CHIPS: tuple[SocChip, ...] = (
    # ub_size in the Ascend910B*.ini platform files; B3/B4 have the fewest cores of the family
    SocChip("ascend910b3", "ascend910b", 196608, aic_cores=20, aiv_cores=40),
    SocChip("ascend910b4", "ascend910b", 196608, aic_cores=20, aiv_cores=40),
    SocChip("ascend910b1", "ascend910b", 196608, aic_cores=24, aiv_cores=48),
    SocChip("ascend910b2", "ascend910b", 196608, aic_cores=24, aiv_cores=48),
    # asc-devkit's TOTAL_UB_SIZE for __NPU_ARCH__ 2002 (256 KiB) and 3002 (248 KiB)
    SocChip("ascend310p", "ascend310p", 262144, prefix=True),
    SocChip("ascend310b", "ascend310b", 253952, prefix=True),
)

# The types a kernel computes in.
FLOAT_DTYPES = ("float16", "bfloat16", "float32")  # computed in float
# 1-byte dtypes an op with a compute expression computes in float too, through half as CANN's
# kernels do: Cast int8/uint8 -> half is the only Cast from them on every SoC (asc-devkit
# Cast.md); a bool tensor is cast as its uint8 bytes (0 or 1).
BYTE_DTYPES = ("int8", "uint8", "bool")
INT_COMPUTE_DTYPES = ("int16", "int32")  # Add/Sub/Mul/Max/Min(+s) exist for these
# No vector instruction takes int64_t on the SoCs opgen targets: an op computes in it only when
# the scalar unit computes every output element by element (gcd(a, b): functions.scalar_loop).
SCALAR_LOOP_DTYPES = ("int64",)


def compute_type(
    dtypes: list[str], through_half: bool = False, scalar_loop: bool = False
) -> str | None:
    """The C type a combination of dtypes computes in, or None when they do not share one.
    With `through_half` (an op with a compute expression) 1-byte dtypes compute in float, and
    bool ones beside a single integer type in that type; with `scalar_loop` (every output a
    function the scalar unit loops over) int64 ones in int64_t."""
    floats = FLOAT_DTYPES + (BYTE_DTYPES if through_half else ())
    if all(d in floats for d in dtypes):
        return "float"
    ints = {d for d in dtypes if d != "bool"} if through_half else set(dtypes)
    computed = INT_COMPUTE_DTYPES + (SCALAR_LOOP_DTYPES if scalar_loop else ())
    if len(ints) == 1 and (only := ints.pop()) in computed:
        # bool tensors beside one integer type compute in it (a comparison's 0 and 1)
        return DTYPES[only].c_type
    return None


def tensor_compute_bytes(dtype: str) -> int:
    """sizeof the compute type the kernel widens one tensor to (16-bit floats -> float)."""
    return 4 if dtype in FLOAT_DTYPES else DTYPES[dtype].size
