// Each CASE must fail to compile with a message that says why (CASE 0 must compile).
// Driven by tests/twin/test_compile_errors.py with -fsyntax-only -DCASE=n.
#if CASE == 5 || CASE == 13
// Macro-style tiling on the kernel side: the struct and REGISTER_TILING_DATA_CLASS's alias.
#define OPGEN_TWIN_KERNEL_TILING
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(DemoMacroTiling)
TILING_DATA_FIELD_DEF(uint32_t, n);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(DemoOp, DemoMacroTiling)
}  // namespace optiling
#if CASE == 5
#define OPGEN_TWIN_OP_TYPE OtherOp  // no REGISTER_TILING_DATA_CLASS for it
#else
#define OPGEN_TWIN_OP_TYPE DemoOp
#endif
#endif
#if CASE == 12
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(BadField)
TILING_DATA_FIELD_DEF(uint32_t*, p);  // not an integer or floating-point type
END_TILING_DATA_DEF;
}  // namespace optiling
void HostTiling()
{
    optiling::BadField t;
    t.set_p(nullptr);
}
#elif CASE == 14
// Control: the older host API hand-written projects still use (the Ascend samples' first AddCustom):
// std::cout through register/op_def_registry.h, InferShapeRange, SetTilingParse, an int32_t check
// function, AsyncFlag/RangeLimitValue, OP_ADD with a compile-info type.
#include "register/op_def_registry.h"
namespace optiling {
struct CompileInfo {};
static ge::graphStatus TilingPrepare(gert::TilingParseContext*) { return ge::GRAPH_SUCCESS; }
static int32_t CheckOpSupport(const ge::Operator&, ge::AscendString& result)
{
    result = ge::AscendString("{}");
    std::cout << "check" << std::endl;
    return 1;
}
}  // namespace optiling
static ge::graphStatus InferShapeRange(gert::InferShapeRangeContext* context)
{
    *context->GetOutputShapeRange(0) = *context->GetInputShapeRange(0);
    return ge::GRAPH_SUCCESS;
}
namespace ops {
class OldStyle : public OpDef {
public:
    explicit OldStyle(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShapeRange(InferShapeRange);
        this->AICore().SetTilingParse(optiling::TilingPrepare).SetCheckSupport(optiling::CheckOpSupport);
        OpAICoreConfig cfg;
        cfg.AsyncFlag(true).RangeLimitValue("limited").DynamicShapeSupportFlag(true);
        this->AICore().AddConfig("ascend910b", cfg);
    }
};
OP_ADD(OldStyle, optiling::CompileInfo);
}  // namespace ops
#elif CASE == 11
#include "tiling/tiling_api.h"
void HostTiling()
{
    optiling::TCubeTiling tiling;  // macro-style host TilingData: compiles (CASE 11 is a control)
    tiling.set_M(16);
}
#elif CASE == 8
#include "register/op_def_registry.h"
namespace ops {
class DeprecatedUse : public OpDef {
public:
    explicit DeprecatedUse(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND});
    }
};
}  // namespace ops
#else
#include "kernel_operator.h"
#if CASE == 10 || CASE == 20
#include "lib/matmul_intf.h"
#endif
#if CASE == 18
#include "opgen_twin/kernel_type.h"
// every DT_* and FORMAT_* of CANN's kernel_type.h: an undefined one would be 0 (DT_FLOAT) in #if
#if ORIG_DTYPE_NONE == DT_HIFLOAT8 || DT_FLOAT8_E4M3FN != 36 || DT_MAX != 42 || FORMAT_ND != 2
#error "a DT_ or FORMAT_ number differs from CANN's"
#endif
#endif

struct DemoTiling {
    uint32_t n;
};

extern "C" __global__ __aicore__ void demo(GM_ADDR x, GM_ADDR tiling)
{
#if CASE != 6 && CASE != 5 && CASE != 13
    REGISTER_TILING_DEFAULT(DemoTiling);
#endif
    GET_TILING_DATA(t, tiling);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    AscendC::LocalTensor<half> h = buf.Get<half>();
    AscendC::LocalTensor<float> f = buf.Get<float>();
    (void)x;
    (void)t;
#if CASE == 0
    AscendC::Adds(h, h, half(1.0f), 16);
    AscendC::Cast(f, h, AscendC::RoundMode::CAST_NONE, 16);
#elif CASE == 1
    AscendC::LocalTensor<bfloat16_t> b = buf.Get<bfloat16_t>();
    AscendC::Add(b, b, b, 16);
#elif CASE == 2
    AscendC::LocalTensor<uint8_t> u = buf.Get<uint8_t>();
    AscendC::Add(u, u, u, 32);
#elif CASE == 3
    AscendC::Gelu(f, f, 16);
#elif CASE == 4
    AscendC::LocalTensor<bfloat16_t> b = buf.Get<bfloat16_t>();
    AscendC::Cast(b, h, AscendC::RoundMode::CAST_RINT, 16);
#elif CASE == 7
    AscendC::Adds(h, h, 1.0f, 16);
#elif CASE == 9
    AscendC::Exp(buf.Get<int32_t>(), buf.Get<int32_t>(), 8);
#elif CASE == 17
    ASSERT(t.n != 0, "n");  // one argument on the NPU (impl/basic_api/kernel_macros.h)
#elif CASE == 18
    // control: the tiling macros of generate_tiling_code.py and kernel_utils_macros.h
    GET_TILING_DATA_PTR_WITH_STRUCT(DemoTiling, ptr, tiling);
    COPY_TILING_WITH_STRUCT(DemoTiling, ptr, copy);
    COPY_TILING_WITH_ARRAY(uint32_t, 1, ptr, words);
    if (TILING_KEY_LIST(1, 2, 3) && TILING_KEY_VAR == 2 && copy->n == (*words)[0]) {
        AscendC::Adds(h, h, half(1.0f), 16);
    }
#elif CASE == 19
    REGISTER_TILING_FOR_TILINGKEY("TILING_KEY_VAR == 1", DemoTiling);
#elif CASE == 20
    // REGIST_MATMUL_OBJ declares ASCubeObjConfig first: not a statement an unbraced if takes
    using MT = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>;
    AscendC::Matmul<MT, MT, AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>> mm;
    if (t.n > 0) REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm);
#elif CASE == 15
    // ASCEND_IS_AIV is `constexpr(...)` on the NPU: only `if ASCEND_IS_AIV {` compiles
    if (ASCEND_IS_AIV) {
        AscendC::Adds(h, h, half(1.0f), 16);
    }
#elif CASE == 16
    // control: the forms asc-devkit's kernels write, with else and else if, warning-free (-Wall)
    if ASCEND_IS_AIV {
        AscendC::Adds(h, h, half(1.0f), 16);
    } else if ASCEND_IS_AIC {
        AscendC::Adds(h, h, half(2.0f), 16);
    } else {
        AscendC::Adds(h, h, half(3.0f), 16);
    }
    if ASCEND_IS_NOT_AIC {
        AscendC::Adds(h, h, half(4.0f), 16);
    }
#elif CASE == 10
    // bfloat16_t inputs with a half bias cannot give a bfloat16_t C (asc-devkit's Matmul type table).
    using In = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, bfloat16_t>;
    AscendC::Matmul<In, In, AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, bfloat16_t>,
                    AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>> mm;
    (void)mm;
#endif
}
#endif
