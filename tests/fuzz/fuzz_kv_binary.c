/* fuzz_kv_binary.c — kvcache's binary protocol (kv_binary.c, kv_binary_cmds.c) through the
 * connection state machine, the cache behind it (kv_fuzz.h). */
#include "kv_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kv_fuzz_run(data, size, KV_PROTO_BINARY);
    return 0;
}
