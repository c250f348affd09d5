// opgen CPU twin: ops::OpDef prototype registration (metadef register/op_def.h) plus a
// process-wide registry filled by OP_ADD, queryable by the runner and as JSON.
#ifndef OPGEN_TWIN_OP_DEF_H
#define OPGEN_TWIN_OP_DEF_H

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "opgen_twin/gert.h"

namespace ge {
class Operator;
class AscendString {
public:
    AscendString() = default;
    AscendString(const char* s) : s_(s == nullptr ? "" : s) {}  // NOLINT
    const char* GetString() const { return s_.c_str(); }
    bool operator<(const AscendString& o) const { return s_ < o.s_; }
    bool operator==(const AscendString& o) const { return s_ == o.s_; }

private:
    std::string s_;
};
}  // namespace ge

namespace optiling {
using OP_CHECK_FUNC = ge::graphStatus (*)(const ge::Operator& op, ge::AscendString& result);
using PARAM_GENERALIZE_FUNC = ge::graphStatus (*)(const ge::Operator& op, const ge::AscendString& generalize_config,
                                                  ge::AscendString& generalized_op_params);
}  // namespace optiling

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class FormatCheckOption : uint32_t { DEFAULT = 0, STRICT = 1, MAX };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };
enum class CommentSection : uint32_t { BRIEF = 0, CONSTRAINTS, RESTRICTIONS, SEE, THIRDPARTYFWKCOMPAT, SECTION_MAX };

class OpParamDef {
public:
    explicit OpParamDef(const char* name) : name_(name) {}
    OpParamDef& ParamType(Option param_type)
    {
        paramType_ = param_type;
        return *this;
    }
    OpParamDef& DataType(std::vector<ge::DataType> types)
    {
        dtypes_ = std::move(types);
        return *this;
    }
    OpParamDef& DataTypeList(std::vector<ge::DataType> types)
    {
        dtypes_ = std::move(types);
        dtypeList_ = true;
        return *this;
    }
    OpParamDef& Format(std::vector<ge::Format> formats)
    {
        formats_ = std::move(formats);
        return *this;
    }
    OpParamDef& FormatList(std::vector<ge::Format> formats)
    {
        formats_ = std::move(formats);
        formatList_ = true;
        return *this;
    }
    [[deprecated("UnknownShapeFormat is deprecated in CANN (OpParamDef doc: 该接口废弃); use Format()")]]
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats)
    {
        unknownShapeFormats_ = std::move(formats);
        return *this;
    }
    OpParamDef& ValueDepend(Option value_depend)
    {
        valueDepend_ = value_depend;
        return *this;
    }
    OpParamDef& ValueDepend(Option value_depend, DependScope scope)
    {
        valueDepend_ = value_depend;
        dependScope_ = scope;
        return *this;
    }
    OpParamDef& IgnoreContiguous(void)
    {
        ignoreContiguous_ = true;
        return *this;
    }
    OpParamDef& AutoContiguous()
    {
        autoContiguous_ = true;
        return *this;
    }
    OpParamDef& Scalar()
    {
        scalar_ = true;
        return *this;
    }
    OpParamDef& ScalarList()
    {
        scalarList_ = true;
        return *this;
    }
    OpParamDef& Version(uint32_t version)
    {
        version_ = version;
        return *this;
    }
    OpParamDef& Follow(const char* paramName)
    {
        follow_ = paramName;
        return *this;
    }
    OpParamDef& Follow(const char* paramName, FollowType)
    {
        follow_ = paramName;
        return *this;
    }
    OpParamDef& InitValue(uint64_t value)
    {
        initValue_ = static_cast<int64_t>(value);
        hasInitValue_ = true;
        return *this;
    }
    OpParamDef& OutputShapeDependOnCompute()
    {
        shapeDependOnCompute_ = true;
        return *this;
    }
    OpParamDef& Comment(const char* comment)
    {
        comment_ = comment;
        return *this;
    }

    // ---- twin accessors ----
    const std::string& TwinName() const { return name_; }
    Option TwinParamType() const { return paramType_; }
    const std::vector<ge::DataType>& TwinDataTypes() const { return dtypes_; }
    const std::vector<ge::Format>& TwinFormats() const { return formats_; }
    const std::vector<ge::Format>& TwinUnknownShapeFormats() const { return unknownShapeFormats_; }
    Option TwinValueDepend() const { return valueDepend_; }
    bool TwinDataTypeList() const { return dtypeList_; }
    bool TwinFormatList() const { return formatList_; }
    bool TwinAutoContiguous() const { return autoContiguous_; }
    bool TwinIgnoreContiguous() const { return ignoreContiguous_; }
    const std::string& TwinFollow() const { return follow_; }
    uint32_t TwinVersion() const { return version_; }

private:
    std::string name_;
    Option paramType_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_;
    std::vector<ge::Format> unknownShapeFormats_;
    Option valueDepend_ = IGNORE;
    DependScope dependScope_ = DependScope::ALL;
    bool dtypeList_ = false;
    bool formatList_ = false;
    bool ignoreContiguous_ = false;
    bool autoContiguous_ = false;
    bool scalar_ = false;
    bool scalarList_ = false;
    bool hasInitValue_ = false;
    bool shapeDependOnCompute_ = false;
    int64_t initValue_ = 0;
    uint32_t version_ = 0;
    std::string follow_;
    std::string comment_;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name) : name_(name) {}
    OpAttrDef& AttrType(Option attr_type)
    {
        required_ = attr_type != OPTIONAL;  // as in metadef: only OPTIONAL clears "required"
        return *this;
    }
    OpAttrDef& Bool(void) { return SetKind(opgen_twin::AttrKind::kBool); }
    OpAttrDef& Bool(bool value)
    {
        b_ = value;
        return SetDefault(opgen_twin::AttrKind::kBool);
    }
    OpAttrDef& Float(void) { return SetKind(opgen_twin::AttrKind::kFloat); }
    OpAttrDef& Float(float value)
    {
        f_ = value;
        return SetDefault(opgen_twin::AttrKind::kFloat);
    }
    OpAttrDef& Int(void) { return SetKind(opgen_twin::AttrKind::kInt); }
    OpAttrDef& Int(int64_t value)
    {
        i_ = value;
        return SetDefault(opgen_twin::AttrKind::kInt);
    }
    OpAttrDef& String(void) { return SetKind(opgen_twin::AttrKind::kString); }
    OpAttrDef& String(const char* value)
    {
        s_ = value == nullptr ? "" : value;
        return SetDefault(opgen_twin::AttrKind::kString);
    }
    OpAttrDef& ListBool(void) { return SetKind(opgen_twin::AttrKind::kListBool); }
    OpAttrDef& ListBool(std::vector<bool> value)
    {
        lb_ = std::move(value);
        return SetDefault(opgen_twin::AttrKind::kListBool);
    }
    OpAttrDef& ListFloat(void) { return SetKind(opgen_twin::AttrKind::kListFloat); }
    OpAttrDef& ListFloat(std::vector<float> value)
    {
        lf_ = std::move(value);
        return SetDefault(opgen_twin::AttrKind::kListFloat);
    }
    OpAttrDef& ListInt(void) { return SetKind(opgen_twin::AttrKind::kListInt); }
    OpAttrDef& ListInt(std::vector<int64_t> value)
    {
        li_ = std::move(value);
        return SetDefault(opgen_twin::AttrKind::kListInt);
    }
    OpAttrDef& ListListInt(void) { return SetKind(opgen_twin::AttrKind::kListListInt); }
    OpAttrDef& ListListInt(std::vector<std::vector<int64_t>> value)
    {
        lli_ = std::move(value);
        return SetDefault(opgen_twin::AttrKind::kListListInt);
    }
    OpAttrDef& Version(uint32_t version)
    {
        version_ = version;
        return *this;
    }
    OpAttrDef& Comment(const char*) { return *this; }
    bool IsRequired(void) { return required_; }

    // ---- twin accessors ----
    const std::string& TwinName() const { return name_; }
    bool TwinRequired() const { return required_; }
    opgen_twin::AttrKind TwinKind() const { return kind_; }
    bool TwinHasDefault() const { return hasDefault_; }
    bool TwinBool() const { return b_; }
    int64_t TwinInt() const { return i_; }
    float TwinFloat() const { return f_; }
    const std::string& TwinString() const { return s_; }
    const std::vector<bool>& TwinListBool() const { return lb_; }
    const std::vector<int64_t>& TwinListInt() const { return li_; }
    const std::vector<float>& TwinListFloat() const { return lf_; }
    const std::vector<std::vector<int64_t>>& TwinListListInt() const { return lli_; }

private:
    OpAttrDef& SetKind(opgen_twin::AttrKind k)
    {
        kind_ = k;
        return *this;
    }
    OpAttrDef& SetDefault(opgen_twin::AttrKind k)
    {
        kind_ = k;
        hasDefault_ = true;
        return *this;
    }
    std::string name_;
    bool required_ = true;
    opgen_twin::AttrKind kind_ = opgen_twin::AttrKind::kNone;
    bool hasDefault_ = false;
    bool b_ = false;
    int64_t i_ = 0;
    float f_ = 0.0f;
    std::string s_;
    std::vector<bool> lb_;
    std::vector<int64_t> li_;
    std::vector<float> lf_;
    std::vector<std::vector<int64_t>> lli_;
    uint32_t version_ = 0;
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char* soc) : soc_(soc == nullptr ? "" : soc) {}
    OpParamDef& Input(const char* name) { return FindOrAdd(inputs_, name); }
    OpParamDef& Output(const char* name) { return FindOrAdd(outputs_, name); }
    OpAICoreConfig& DynamicCompileStaticFlag(bool flag) { return Flag("dynamicCompileStatic", flag); }
    OpAICoreConfig& DynamicFormatFlag(bool flag) { return Flag("dynamicFormat", flag); }
    OpAICoreConfig& DynamicRankSupportFlag(bool flag) { return Flag("dynamicRankSupport", flag); }
    OpAICoreConfig& DynamicShapeSupportFlag(bool flag) { return Flag("dynamicShapeSupport", flag); }
    OpAICoreConfig& NeedCheckSupportFlag(bool flag) { return Flag("needCheckSupport", flag); }
    OpAICoreConfig& PrecisionReduceFlag(bool flag) { return Flag("precision_reduce", flag); }
    // Older CANN's op_def.h (the Ascend samples' first AddCustom): recorded, no effect.
    OpAICoreConfig& AsyncFlag(bool flag) { return Flag("async", flag); }
    OpAICoreConfig& RangeLimitValue(const char* value) { return ExtendCfgInfo("rangeLimit.value", value); }
    OpAICoreConfig& ExtendCfgInfo(const char* key, const char* value)
    {
        ext_.emplace_back(key, value);
        return *this;
    }

    const std::vector<std::pair<std::string, bool>>& TwinFlags() const { return flags_; }
    const std::vector<std::pair<std::string, std::string>>& TwinExtend() const { return ext_; }
    const std::vector<OpParamDef>& TwinInputs() const { return inputs_; }
    const std::vector<OpParamDef>& TwinOutputs() const { return outputs_; }

private:
    static OpParamDef& FindOrAdd(std::vector<OpParamDef>& v, const char* name)
    {
        for (auto& p : v) {
            if (p.TwinName() == name) return p;
        }
        v.emplace_back(name);
        return v.back();
    }
    OpAICoreConfig& Flag(const char* k, bool v)
    {
        for (auto& f : flags_) {
            if (f.first == k) {
                f.second = v;
                return *this;
            }
        }
        flags_.emplace_back(k, v);
        return *this;
    }
    std::string soc_;
    std::vector<std::pair<std::string, bool>> flags_;
    std::vector<std::pair<std::string, std::string>> ext_;
    std::vector<OpParamDef> inputs_;
    std::vector<OpParamDef> outputs_;
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(gert::OpImplRegisterV2::TilingKernelFunc func)
    {
        tiling_ = func;
        return *this;
    }
    OpAICoreDef& SetCheckSupport(optiling::OP_CHECK_FUNC func)
    {
        checkSupport_ = func;
        return *this;
    }
    OpAICoreDef& SetOpSelectFormat(optiling::OP_CHECK_FUNC func)
    {
        selectFormat_ = func;
        return *this;
    }
    // Older CANN (the Ascend samples' first AddCustom): a check function returning int32_t.
    OpAICoreDef& SetCheckSupport(int32_t (*)(const ge::Operator&, ge::AscendString&)) { return *this; }
    // Older CANN: the compile-info parser (TilingPrepare); the twin has no compile info to parse.
    OpAICoreDef& SetTilingParse(gert::OpImplRegisterV2::TilingParseKernelFunc) { return *this; }
    OpAICoreDef& SetOpSupportInfo(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSpecInfo(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetParamGeneralize(optiling::PARAM_GENERALIZE_FUNC) { return *this; }
    OpAICoreDef& LaunchWithZeroEleOutputTensors(bool launchFlag)
    {
        launchZero_ = launchFlag;
        return *this;
    }
    gert::OpImplRegisterV2::TilingKernelFunc& GetTiling(void) { return tiling_; }
    OpAICoreDef& AddConfig(const char* soc)
    {
        OpAICoreConfig cfg(soc);
        return AddConfig(soc, cfg);
    }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& aicore_config)
    {
        const std::string s = soc == nullptr ? "" : soc;
        for (auto& c : configs_) {
            if (c.first == s) {
                c.second = aicore_config;
                return *this;
            }
        }
        configs_.emplace_back(s, aicore_config);
        return *this;
    }

    const std::vector<std::pair<std::string, OpAICoreConfig>>& TwinConfigs() const { return configs_; }
    gert::OpImplRegisterV2::TilingKernelFunc TwinTiling() const { return tiling_; }
    bool TwinLaunchWithZeroEle() const { return launchZero_; }
    bool TwinHasCheckSupport() const { return checkSupport_ != nullptr; }

private:
    gert::OpImplRegisterV2::TilingKernelFunc tiling_ = nullptr;
    optiling::OP_CHECK_FUNC checkSupport_ = nullptr;
    optiling::OP_CHECK_FUNC selectFormat_ = nullptr;
    bool launchZero_ = false;
    std::vector<std::pair<std::string, OpAICoreConfig>> configs_;
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type) {}
    OpParamDef& Input(const char* name) { return FindOrAdd(inputs_, name); }
    OpParamDef& Output(const char* name) { return FindOrAdd(outputs_, name); }
    OpAttrDef& Attr(const char* name)
    {
        for (auto& a : attrs_) {
            if (a.TwinName() == name) return a;
        }
        attrs_.emplace_back(name);
        return attrs_.back();
    }
    OpDef& Comment(CommentSection, const char*) { return *this; }
    OpDef& SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc func)
    {
        inferShape_ = func;
        return *this;
    }
    OpDef& SetInferShapeRange(gert::OpImplRegisterV2::InferShapeRangeKernelFunc func)
    {
        inferShapeRange_ = func;
        return *this;
    }
    OpDef& SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc func)
    {
        inferDataType_ = func;
        return *this;
    }
    gert::OpImplRegisterV2::InferShapeKernelFunc& GetInferShape(void) { return inferShape_; }
    gert::OpImplRegisterV2::InferShapeRangeKernelFunc& GetInferShapeRange(void) { return inferShapeRange_; }
    gert::OpImplRegisterV2::InferDataTypeKernelFunc& GetInferDataType(void) { return inferDataType_; }
    OpAICoreDef& AICore(void) { return aicore_; }
    OpDef& FormatMatchMode(FormatCheckOption option)
    {
        formatMatch_ = option;
        return *this;
    }
    OpDef& EnableFallBack(void)
    {
        fallback_ = true;
        return *this;
    }

    // ---- twin accessors ----
    const std::string& TwinType() const { return type_; }
    const std::vector<OpParamDef>& TwinInputs() const { return inputs_; }
    const std::vector<OpParamDef>& TwinOutputs() const { return outputs_; }
    const std::vector<OpAttrDef>& TwinAttrs() const { return attrs_; }
    const OpAICoreDef& TwinAICore() const { return aicore_; }
    gert::OpImplRegisterV2::InferShapeKernelFunc TwinInferShape() const { return inferShape_; }
    gert::OpImplRegisterV2::InferDataTypeKernelFunc TwinInferDataType() const { return inferDataType_; }
    bool TwinFallback() const { return fallback_; }

private:
    static OpParamDef& FindOrAdd(std::vector<OpParamDef>& v, const char* name)
    {
        for (auto& p : v) {
            if (p.TwinName() == name) return p;
        }
        v.emplace_back(name);
        return v.back();
    }
    std::string type_;
    std::vector<OpParamDef> inputs_;
    std::vector<OpParamDef> outputs_;
    std::vector<OpAttrDef> attrs_;
    gert::OpImplRegisterV2::InferShapeKernelFunc inferShape_ = nullptr;
    gert::OpImplRegisterV2::InferShapeRangeKernelFunc inferShapeRange_ = nullptr;
    gert::OpImplRegisterV2::InferDataTypeKernelFunc inferDataType_ = nullptr;
    OpAICoreDef aicore_;
    FormatCheckOption formatMatch_ = FormatCheckOption::DEFAULT;
    bool fallback_ = false;
};

}  // namespace ops

namespace opgen_twin {

using OpDefFactory = std::function<ops::OpDef(const char*)>;

struct OpRegistry {
    std::vector<std::pair<std::string, OpDefFactory>> factories;  // registration order
    std::vector<std::string> duplicates;
};

inline OpRegistry& Registry()
{
    static OpRegistry r;
    return r;
}

namespace detail {
inline int RegisterOpDef(const char* type, OpDefFactory f)
{
    auto& r = Registry();
    for (auto& e : r.factories) {
        if (e.first == type) {
            r.duplicates.push_back(type);
            e.second = std::move(f);  // last registration wins
            return 0;
        }
    }
    r.factories.emplace_back(type, std::move(f));
    return 0;
}
}  // namespace detail

inline std::vector<std::string> RegisteredOpTypes()
{
    std::vector<std::string> out;
    for (const auto& e : Registry().factories) out.push_back(e.first);
    return out;
}

// Builds the OpDef registered with OP_ADD(type); false if not registered.
inline bool FindOpDef(const std::string& type, ops::OpDef* out)
{
    for (const auto& e : Registry().factories) {
        if (e.first == type) {
            *out = e.second(type.c_str());
            return true;
        }
    }
    return false;
}

namespace detail {

inline std::string JsonEscape(const std::string& s)
{
    std::string o = "\"";
    for (char c : s) {
        switch (c) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\n': o += "\\n"; break;
            case '\t': o += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    o += Format("\\u%04x", c);
                } else {
                    o += c;
                }
        }
    }
    return o + "\"";
}
inline std::string JsonFloat(double v)
{
    if (std::isnan(v)) return "\"nan\"";
    if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
    return Format("%.9g", v);
}
template <class T, class F>
inline std::string JsonList(const std::vector<T>& v, F f)
{
    std::string o = "[";
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) o += ", ";
        o += f(v[i]);
    }
    return o + "]";
}
inline const char* OptionName(ops::Option o)
{
    switch (o) {
        case ops::IGNORE: return "ignore";
        case ops::OPTIONAL: return "optional";
        case ops::REQUIRED: return "required";
        case ops::DYNAMIC: return "dynamic";
        case ops::VIRTUAL: return "virtual";
    }
    return "?";
}
inline std::string ParamJson(const ops::OpParamDef& p)
{
    std::string o = "{\"name\": " + JsonEscape(p.TwinName());
    o += Format(", \"param_type\": \"%s\"", OptionName(p.TwinParamType()));
    o += ", \"dtypes\": " + JsonList(p.TwinDataTypes(), [](ge::DataType d) { return JsonEscape(DataTypeName(d)); });
    o += ", \"formats\": " + JsonList(p.TwinFormats(), [](ge::Format f) { return JsonEscape(FormatName(f)); });
    o += ", \"unknown_shape_formats\": " +
         JsonList(p.TwinUnknownShapeFormats(), [](ge::Format f) { return JsonEscape(FormatName(f)); });
    o += Format(", \"value_depend\": \"%s\"", OptionName(p.TwinValueDepend()));
    o += Format(", \"auto_contiguous\": %s", p.TwinAutoContiguous() ? "true" : "false");
    o += Format(", \"data_type_list\": %s, \"format_list\": %s", p.TwinDataTypeList() ? "true" : "false",
                p.TwinFormatList() ? "true" : "false");
    if (!p.TwinFollow().empty()) o += ", \"follow\": " + JsonEscape(p.TwinFollow());
    return o + "}";
}
inline std::string AttrDefaultJson(const ops::OpAttrDef& a)
{
    switch (a.TwinKind()) {
        case AttrKind::kBool: return a.TwinBool() ? "true" : "false";
        case AttrKind::kInt: return Format("%lld", static_cast<long long>(a.TwinInt()));
        case AttrKind::kFloat: return JsonFloat(a.TwinFloat());
        case AttrKind::kString: return JsonEscape(a.TwinString());
        case AttrKind::kListBool: {
            std::vector<bool> v = a.TwinListBool();
            std::string o = "[";
            for (size_t i = 0; i < v.size(); ++i) o += std::string(i ? ", " : "") + (v[i] ? "true" : "false");
            return o + "]";
        }
        case AttrKind::kListInt:
            return JsonList(a.TwinListInt(), [](int64_t x) { return Format("%lld", static_cast<long long>(x)); });
        case AttrKind::kListFloat: return JsonList(a.TwinListFloat(), [](float x) { return JsonFloat(x); });
        case AttrKind::kListListInt:
            return JsonList(a.TwinListListInt(), [](const std::vector<int64_t>& in) {
                return JsonList(in, [](int64_t x) { return Format("%lld", static_cast<long long>(x)); });
            });
        default: return "null";
    }
}
inline std::string OpDefJson(const ops::OpDef& d)
{
    std::string o = "{\"op_type\": " + JsonEscape(d.TwinType());
    o += ", \"inputs\": " + JsonList(d.TwinInputs(), ParamJson);
    o += ", \"outputs\": " + JsonList(d.TwinOutputs(), ParamJson);
    o += ", \"attrs\": " + JsonList(d.TwinAttrs(), [](const ops::OpAttrDef& a) {
        std::string s = "{\"name\": " + JsonEscape(a.TwinName());
        s += Format(", \"type\": \"%s\", \"required\": %s, \"has_default\": %s", AttrKindName(a.TwinKind()),
                    a.TwinRequired() ? "true" : "false", a.TwinHasDefault() ? "true" : "false");
        s += ", \"default\": " + (a.TwinHasDefault() ? AttrDefaultJson(a) : std::string("null"));
        return s + "}";
    });
    o += Format(", \"infer_shape\": %s, \"infer_data_type\": %s, \"tiling\": %s",
                d.TwinInferShape() ? "true" : "false", d.TwinInferDataType() ? "true" : "false",
                d.TwinAICore().TwinTiling() ? "true" : "false");
    o += ", \"aicore_configs\": " + JsonList(d.TwinAICore().TwinConfigs(), [](const std::pair<std::string, ops::OpAICoreConfig>& c) {
        std::string s = "{\"soc\": " + JsonEscape(c.first) + ", \"flags\": {";
        const auto& fl = c.second.TwinFlags();
        for (size_t i = 0; i < fl.size(); ++i) {
            s += (i ? ", " : "") + JsonEscape(fl[i].first) + ": " + (fl[i].second ? "true" : "false");
        }
        s += "}, \"extend_cfg\": {";
        const auto& ex = c.second.TwinExtend();
        for (size_t i = 0; i < ex.size(); ++i) {
            s += (i ? ", " : "") + JsonEscape(ex[i].first) + ": " + JsonEscape(ex[i].second);
        }
        s += "}, \"inputs\": " + JsonList(c.second.TwinInputs(), ParamJson);
        s += ", \"outputs\": " + JsonList(c.second.TwinOutputs(), ParamJson);
        return s + "}";
    });
    o += ", \"socs\": " + JsonList(d.TwinAICore().TwinConfigs(),
                                   [](const std::pair<std::string, ops::OpAICoreConfig>& c) { return JsonEscape(c.first); });
    return o + "}";
}

}  // namespace detail

// The whole OP_ADD registry as JSON (schema in opgen/twin/README.md).
inline std::string RegistryJson()
{
    std::string o = "{\"ops\": [";
    bool first = true;
    for (const auto& e : Registry().factories) {
        ops::OpDef d = e.second(e.first.c_str());
        o += (first ? "" : ", ") + detail::OpDefJson(d);
        first = false;
    }
    o += "], \"duplicate_registrations\": " +
         detail::JsonList(Registry().duplicates, [](const std::string& s) { return detail::JsonEscape(s); });
    return o + "}";
}

}  // namespace opgen_twin

// Registers class `opType` (derived from ops::OpDef) under its own name; used inside
// namespace ops, like the real macro. Extra arguments (old samples) are ignored.
#define OP_ADD(opType, ...)                                                                             \
    [[maybe_unused]] static int g_##opType##_added = ::opgen_twin::detail::RegisterOpDef(               \
        #opType, [](const char* name) -> ::ops::OpDef { return opType(name); })

#endif  // OPGEN_TWIN_OP_DEF_H
