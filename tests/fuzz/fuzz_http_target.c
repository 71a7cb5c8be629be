/* fuzz_http_target.c — the web cache's request-target checks, Host grammar and percent-decoding
 * (apps/webcache/http_target.c) called directly, on buffers of exactly the input's length (they
 * are not NUL-terminated in the server either).
 *
 * Input: byte 0 picks the method (GET, OPTIONS, CONNECT, other) and the decode buffer's size
 * (1..64 bytes: its bound is reached), the rest is the target. Checks besides the sanitizers:
 * a valid target points inside the input (or is the literal "/"), holds no byte that the
 * grammar forbids; decoding writes a NUL-terminated string shorter than the buffer, fails only
 * with 400 or 404, and a decoded path never contains a NUL or more bytes than the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const enum wc_method methods[4] = {WC_GET, WC_OPTIONS, WC_CONNECT, WC_OTHER_KNOWN};
    struct wc_request rq = {.method = methods[data[0] & 3]};
    size_t outsize = (size_t)(data[0] >> 2) + 1;
    data++, size--;
    char *t = malloc(size ? size : 1);
    memcpy(t, data, size);

    int st = wc_http_target(t, size, &rq);
    if (st != 0 && st != 400)
        abort();
    if (st == 0) {
        int inside = rq.target >= t && rq.target + rq.target_len <= t + size;
        if (!rq.target_len || !(inside || (rq.target_len == 1 && rq.target[0] == '/')))
            abort();
        for (size_t i = 0; i < size; i++)
            if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f || t[i] == '#')
                abort();
    }
    int host = wc_http_valid_host(t, size);
    if (host != 0 && host != 1)
        abort();

    char *out = malloc(outsize);
    int d = wc_http_decode_path(t, size, out, outsize);
    if (d != 0 && d != 400 && d != 404)
        abort();
    if (d == 0) {
        size_t n = strnlen(out, outsize);
        if (n >= outsize || n > size)
            abort();
    }
    free(out);
    free(t);
    return 0;
}
