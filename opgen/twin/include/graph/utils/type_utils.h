// opgen CPU twin: ge::TypeUtils::GetDataTypeLength (metadef inc/external/graph/utils/type_utils.h;
// the other TypeUtils members are not emulated). As metadef's base/utils/type_utils_impl.cc:
// DT_STRING/DT_STRING_REF 16 bytes, otherwise GetSizeByDataType's size; false (length untouched)
// for a type with no byte size.
#ifndef OPGEN_TWIN_GRAPH_UTILS_TYPE_UTILS_H
#define OPGEN_TWIN_GRAPH_UTILS_TYPE_UTILS_H

#include <cstdint>

#include "opgen_twin/ge_types.h"

namespace ge {

class TypeUtils {
public:
    static bool GetDataTypeLength(const ge::DataType data_type, uint32_t& length)
    {
        if (data_type == DT_STRING || data_type == DT_STRING_REF) {
            length = static_cast<uint32_t>(sizeof(uint64_t) * 2U);
            return true;
        }
        const int size = GetSizeByDataType(data_type);
        if (size <= 0) return false;
        length = static_cast<uint32_t>(size);
        return true;
    }
};

}  // namespace ge

#endif  // OPGEN_TWIN_GRAPH_UTILS_TYPE_UTILS_H
