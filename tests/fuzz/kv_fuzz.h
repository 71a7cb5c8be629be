/* kv_fuzz.h — what the two kvcache harnesses share: one connection of kvcache's own state
 * machine (kv_conn.c's kv_process, compiled into the harness so it stays static there) with the
 * real cache behind it (slabs, hash table, items, statistics), fed bytes as kv_read would
 * deliver them, in pieces.
 *
 * An input's first byte picks the segmentation: below 0x80, the rest arrives at once; otherwise
 * in pieces of (byte & 0x7f) + 1 bytes, each followed by a kv_process pass as after a read.
 * After the input the connection closes as kv_close does (an item being filled is released) and
 * everything is flushed, so that one input's items do not change the next one's replies much.
 * The cache is small (8 MB, 64 KB items) so that eviction, "too large" and "out of memory" paths
 * are reached. After every pass the replies must be whole replies of the protocol (framing:
 * kv_fuzz_check_text, kv_fuzz_check_binary).
 */
#ifndef KV_FUZZ_H
#define KV_FUZZ_H

#include "kv_conn.c" /* first: its _GNU_SOURCE; kv_process, kv_grow, ... */
#include "kv_binary.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct kv_settings kv_settings = {
    .port = 0,
    .threads = 1,
    .maxbytes = 8u << 20,
    .maxconns = 16,
    .item_max = 64u << 10,
    .addr = "127.0.0.1",
    .verbose = 0,
    .hashpower = 4, /* small: chains and the expansion trigger */
    .factor = 1.25,
};

static struct kv_tstats *kv_fuzz_stats;

static void kv_fuzz_init(void)
{
    if (kv_fuzz_stats)
        return;
    kv_slabs_init();
    kv_assoc_init(kv_settings.hashpower);
    kv_started = kv_now();
    kv_fuzz_stats = kv_tstats_new();
}

/* Appends n input bytes as kv_read does (compacting, growing by KV_READ_CHUNK). */
static void kv_fuzz_arrive(struct kv_conn *c, const uint8_t *p, size_t n)
{
    if (c->rpos && c->rpos + c->rlen + n > c->rcap) {
        memmove(c->rbuf, c->rbuf + c->rpos, c->rlen);
        c->rpos = 0;
    }
    if (c->rpos + c->rlen + n > c->rcap)
        kv_grow(&c->rbuf, &c->rcap, c->rpos + c->rlen + n);
    memcpy(c->rbuf + c->rpos + c->rlen, p, n);
    c->rlen += n;
}

/* The replies of one pass must be whole replies of the protocol. Text: lines ending in \r\n
 * that begin with a reply word or are a number (incr/decr), each VALUE line followed by exactly
 * its announced bytes and \r\n. Binary: response packets (magic 0x81) whose lengths add up,
 * back to back to the end. */
static void kv_fuzz_check_text(const char *p, size_t n)
{
    static const char *const words[] = {"END", "STORED", "NOT_STORED", "EXISTS", "NOT_FOUND",
        "DELETED", "TOUCHED", "OK", "ERROR", "CLIENT_ERROR ", "SERVER_ERROR ", "STAT ",
        "VERSION ", "RESET", NULL};
    size_t i = 0;
    while (i < n) {
        const char *line = p + i, *nl = memmem(line, n - i, "\r\n", 2);
        if (!nl)
            abort(); /* a reply without its line end */
        size_t len = (size_t)(nl - line);
        i += len + 2;
        if (len > 6 && !memcmp(line, "VALUE ", 6)) {
            /* VALUE <key> <flags> <bytes> [<cas>]: the key holds no space */
            const char *f[4];
            int nf = 0;
            for (size_t k = 6; k < len && nf < 4; k++)
                if (line[k - 1] == ' ')
                    f[nf++] = line + k;
            if (nf < 3)
                abort();
            uint64_t bytes = strtoull(f[2], NULL, 10);
            if (bytes > n - i || n - i - bytes < 2 || memcmp(p + i + bytes, "\r\n", 2))
                abort(); /* the value is not its announced length */
            i += bytes + 2;
            continue;
        }
        int ok = len > 0 && len <= 20 && strspn(line, "0123456789") == len;
        for (int w = 0; !ok && words[w]; w++) {
            size_t wl = strlen(words[w]);
            ok = len >= wl && !memcmp(line, words[w], wl) &&
                 (len == wl || words[w][wl - 1] == ' ');
        }
        if (!ok)
            abort(); /* not a reply of the text protocol */
    }
}

static void kv_fuzz_check_binary(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (n - i < 24 || (uint8_t)p[i] != 0x81)
            abort();
        size_t keylen = (size_t)(uint8_t)p[i + 2] << 8 | (uint8_t)p[i + 3];
        size_t extlen = (uint8_t)p[i + 4];
        size_t body = (size_t)kv_get32(p + i + 8);
        if (extlen + keylen > body || body > n - i - 24)
            abort();
        i += 24 + body;
    }
}

static void kv_fuzz_run(const uint8_t *data, size_t size, enum kv_proto proto)
{
    kv_fuzz_init();
    if (size == 0)
        return;
    size_t piece = data[0] < 0x80 ? size : (size_t)(data[0] & 0x7f) + 1;
    data++, size--;
    struct kv_conn c = {.fd = -1, .stats = kv_fuzz_stats, .proto = proto};
    for (size_t off = 0; off < size && !c.closing;) {
        size_t n = size - off < piece ? size - off : piece;
        kv_fuzz_arrive(&c, data + off, n);
        off += n;
        kv_process(&c);
        /* replies past KV_WBUF_HIGH pause the input until they drain (EPOLLOUT) */
        for (int more = 1; more && !c.closing && c.wlen - c.wpos >= KV_WBUF_HIGH;) {
            size_t before = c.rlen;
            if (proto == KV_PROTO_TEXT)
                kv_fuzz_check_text(c.wbuf, c.wlen);
            else
                kv_fuzz_check_binary(c.wbuf, c.wlen);
            c.wpos = c.wlen = 0;
            kv_process(&c);
            more = c.rlen != before || c.wlen;
        }
        /* the worker sends the replies; here they are dropped once checked to be in bounds */
        if (c.wpos > c.wlen || c.wlen > c.wcap || c.rpos + c.rlen > c.rcap)
            abort();
        if (proto == KV_PROTO_TEXT)
            kv_fuzz_check_text(c.wbuf, c.wlen);
        else
            kv_fuzz_check_binary(c.wbuf, c.wlen);
        c.wpos = c.wlen = 0;
    }
    if (c.item)
        kv_release(c.item);
    free(c.rbuf);
    free(c.wbuf);
    kv_set_verbose(0); /* `verbosity` would make every later input log */
    kv_flush(0);
}

#endif
