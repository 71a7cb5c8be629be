/* fuzz_kv_text.c — kvcache's text protocol (kv_text.c, kv_text_store.c) through the connection
 * state machine, the cache behind it (kv_fuzz.h). */
#include "kv_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kv_fuzz_run(data, size, KV_PROTO_TEXT);
    return 0;
}
