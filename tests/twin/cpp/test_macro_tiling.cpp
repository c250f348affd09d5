// Host-side checks of the twin's macro-style tiling (register/tilingdata_base.h), linked with
// macro_tiling_kernel_side.cpp (the same header in kernel mode). Run by tests/twin/test_macro_tiling.py.
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "macro_layout_tiling.h"

extern "C" void macro_layout_kernel_side(size_t* out);
extern "C" void macro_layout_kernel_read(const uint8_t* tiling, double* out);
extern "C" uint8_t* macro_param_offset(uint8_t* gm, int64_t blockIdx);
extern "C" void macro_matmul_kernel_read(const uint8_t* tiling, int64_t* out);

namespace {

template <class F>
std::string ErrorOf(F f)
{
    try {
        f();
    } catch (const opgen_twin::TwinError& e) {
        return e.what();
    }
    return "";
}

bool Has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Byte offset of each non-placeholder field, from GetFieldInfo (placeholders are uint8_t arrays
// named <field>PH / <Class>PH).
size_t OffsetOf(const optiling::TilingDef& t, const char* name)
{
    size_t off = 0;
    for (const auto& f : t.GetFieldInfo()) {
        if (std::strcmp(f.name_, name) == 0) return off;
        if (std::strcmp(f.classType_, "0") == 0) {
            const std::string d = f.dtype_;
            off += d == "uint8_t" || d == "int8_t" ? 1 : d == "uint16_t" || d == "int16_t" ? 2
                 : d == "uint64_t" || d == "int64_t" || d == "double" ? 8 : 4;
        } else if (std::strcmp(f.classType_, "1") == 0) {
            const std::string d = f.dtype_;
            const size_t es = d == "uint8_t" || d == "int8_t" ? 1 : d == "uint16_t" || d == "int16_t" ? 2
                            : d == "uint64_t" || d == "int64_t" || d == "double" ? 8 : 4;
            off += es * f.arrSize_;
        } else {
            off += f.structSize_;
        }
    }
    return static_cast<size_t>(-1);
}

void Layout()
{
    optiling::LayoutTop top;
    optiling::LayoutMid mid;
    optiling::LayoutInner inner;
    CHECK(inner.GetDataSize() == 8, "LayoutInner %zu", inner.GetDataSize());
    CHECK(mid.GetDataSize() == 24, "LayoutMid %zu", mid.GetDataSize());
    CHECK(top.GetDataSize() == 96, "LayoutTop %zu", top.GetDataSize());
    const size_t want[] = {96, 0, 8, 16, 24, 32, 56, 64, 80, 88, 24, 0, 8, 16, 8};
    size_t kernel[15] = {};
    macro_layout_kernel_side(kernel);
    for (size_t i = 0; i < 15; ++i) CHECK(kernel[i] == want[i], "kernel layout entry %zu: %zu, want %zu", i, kernel[i], want[i]);
    const char* names[] = {"c", "d", "e", "f", "mid", "g", "h", "k", "last"};
    for (size_t i = 0; i < 9; ++i) {
        CHECK(OffsetOf(top, names[i]) == want[i + 1], "host offset of %s: %zu", names[i], OffsetOf(top, names[i]));
    }
    // The placeholders CANN records (the kernel struct's padding).
    std::vector<std::string> ph;
    for (const auto& f : top.GetFieldInfo()) {
        if (Has(f.name_, "PH")) ph.push_back(std::string(f.name_) + ":" + std::to_string(f.arrSize_));
    }
    const std::vector<std::string> wantPh = {"dPH:7", "fPH:2", "midPH:4", "hPH:7", "LayoutTopPH:6"};
    CHECK(ph == wantPh, "placeholders: %zu entries", ph.size());
    CHECK(std::string(top.GetTilingClassName()) == "LayoutTop", "class name");
}

void SetGetSave()
{
    optiling::LayoutTop top;
    top.set_c(7);
    top.set_d(0x123456789ULL);
    const uint16_t e[3] = {1, 2, 65535};
    top.set_e(const_cast<uint16_t*>(e));
    top.set_f(1.5f);
    top.mid.set_a(-3);
    top.mid.inner.set_s(-1234);
    top.mid.set_b(4000000000u);
    top.set_g(-8);
    int64_t h[2] = {-5, 1LL << 40};
    top.set_h(h);
    top.set_k(0.25);
    top.set_last(77);
    CHECK(top.get_c() == 7 && top.get_d() == 0x123456789ULL && top.get_e()[2] == 65535, "get");
    CHECK(top.mid.inner.get_s() == -1234 && top.mid.get_b() == 4000000000u, "nested get");
    std::vector<uint8_t> buf(200, 0xA5);
    top.SaveToBuffer(buf.data(), buf.size());
    CHECK(buf[96] == 0xA5, "SaveToBuffer writes GetDataSize() bytes only");
    CHECK(buf[1] == 0 && buf[7] == 0 && buf[95] == 0, "placeholders are zero");
    double got[11] = {};
    macro_layout_kernel_read(buf.data(), got);
    const double want[11] = {7, double(0x123456789ULL), 65535, 1.5, -1234, 4000000000.0, double(1LL << 40), 0.25, 77, -3, -8};
    for (int i = 0; i < 11; ++i) CHECK(got[i] == want[i], "kernel reads field %d: %g, want %g", i, got[i], want[i]);

    // Unset fields read 0 (a fresh object's bytes are zero), on both sides.
    optiling::LayoutTop fresh;
    std::vector<uint8_t> buf2(96, 0xA5);
    fresh.SaveToBuffer(buf2.data(), buf2.size());
    macro_layout_kernel_read(buf2.data(), got);
    bool allZero = true;
    for (double v : got) allZero = allZero && v == 0;
    CHECK(allZero && fresh.get_d() == 0, "unset fields read 0");

    // Copies own their bytes; nested fields follow the copy.
    optiling::LayoutTop copy = top;
    copy.mid.set_b(5);
    CHECK(top.mid.get_b() == 4000000000u && copy.mid.get_b() == 5 && copy.get_d() == 0x123456789ULL, "copy");
    fresh = top;
    CHECK(fresh.mid.inner.get_s() == -1234, "assignment");

    // A view of outside bytes (the constructor taking a pointer / SetDataPtr): reads them, writes them,
    // and SaveToBuffer has nothing to do.
    optiling::LayoutTop view(buf.data());
    CHECK(view.get_last() == 77 && view.mid.inner.get_s() == -1234, "view reads the buffer");
    view.mid.set_a(9);
    double got2[11] = {};
    macro_layout_kernel_read(buf.data(), got2);
    CHECK(got2[9] == 9, "view writes the buffer");
}

void Errors()
{
    optiling::LayoutTop top;
    std::vector<uint8_t> small(64);
    std::string e = ErrorOf([&] { top.SaveToBuffer(small.data(), small.size()); });
    CHECK(Has(e, "SaveToBuffer(LayoutTop)") && Has(e, "96 bytes") && Has(e, "only 64"), "%s", e.c_str());
    std::printf("MSG save_small: %s\n", e.c_str());
    e = ErrorOf([&] { top.SaveToBuffer(nullptr, 1024); });
    CHECK(Has(e, "buffer is null"), "%s", e.c_str());
    optiling::LayoutInner detached(nullptr);
    e = ErrorOf([&] { detached.set_s(1); });
    CHECK(Has(e, "set_s") && Has(e, "no bytes"), "%s", e.c_str());
    std::printf("MSG detached: %s\n", e.c_str());
}

void Registry()
{
    auto t = optiling::CTilingDataClassFactory::GetInstance().CreateTilingDataInstance("LayoutOp");
    CHECK(t != nullptr && t->GetDataSize() == 96 && std::string(t->GetTilingClassName()) == "LayoutTop", "registry");
    CHECK(optiling::CTilingDataClassFactory::GetInstance().CreateTilingDataInstance("NoSuchOp") == nullptr,
          "unknown op type");
}

// GetTiling fills the macro-style optiling::TCubeTiling nested in an op's class; the kernel reads
// the same words AscendC::tiling::TCubeTiling gets.
void MatmulTiling()
{
    const platform_ascendc::PlatformAscendC& plat = *platform_ascendc::PlatformAscendCManager::GetInstance();
    auto make = [&](matmul_tiling::MultiCoreMatmulTiling& mm) {
        mm.SetDim(20);
        mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
        mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
        mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
        mm.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
        mm.SetOrgShape(256, 512, 128);
        mm.SetShape(256, 512, 128);
        mm.EnableBias(true);
        mm.SetBufferSpace(-1, -1, -1);
    };
    matmul_tiling::MultiCoreMatmulTiling a(plat), b(plat);
    make(a);
    make(b);
    optiling::LayoutMatmul tiling;
    tiling.set_alpha(3);
    tiling.set_tail(9);
    CHECK(b.GetTiling(tiling.cubeTilingData) == 0, "GetTiling(optiling::TCubeTiling&)");
    AscendC::tiling::TCubeTiling plain;
    CHECK(a.GetTiling(plain) == 0, "GetTiling(AscendC::tiling::TCubeTiling&)");
    CHECK(tiling.GetDataSize() == 216 && tiling.cubeTilingData.GetDataSize() == 200, "sizes %zu", tiling.GetDataSize());
    std::vector<uint8_t> buf(216);
    tiling.SaveToBuffer(buf.data(), buf.size());
    int64_t out[55] = {};
    macro_matmul_kernel_read(buf.data(), out);
    const int32_t* w = reinterpret_cast<const int32_t*>(&plain);
    bool same = true;
    for (int i = 0; i < 50; ++i) same = same && out[i] == w[i];
    CHECK(same && out[54] == plain.baseM && plain.baseM > 0, "kernel reads GetTiling's words");
    CHECK(out[50] == 3 && out[51] == 9 && out[52] == 216 && out[53] == 8, "alpha %lld tail %lld size %lld off %lld",
          (long long)out[50], (long long)out[51], (long long)out[52], (long long)out[53]);
    CHECK(tiling.cubeTilingData.get_M() == 256 && tiling.cubeTilingData.get_Ka() == 128, "host get_");
}

}  // namespace

int main()
{
    Layout();
    SetGetSave();
    Errors();
    Registry();
    MatmulTiling();
    uint8_t gm[1024];
    CHECK(macro_param_offset(gm, 3) == gm + 600, "ParamOffset<half>(gm, 100) on block 3");
    std::printf("SUMMARY pass=%d fail=%d\n", g_pass, g_fail);
    return g_fail == 0 ? 0 : 1;
}
