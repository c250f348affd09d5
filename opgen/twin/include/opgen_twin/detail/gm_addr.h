// opgen CPU twin: the __gm__ qualifier and GM_ADDR, shared by kernel and runner code.
#ifndef OPGEN_TWIN_DETAIL_GM_ADDR_H
#define OPGEN_TWIN_DETAIL_GM_ADDR_H
#include <cstdint>
#ifndef __gm__
#define __gm__
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif
#endif  // OPGEN_TWIN_DETAIL_GM_ADDR_H
