/* kv_binary.h — what the binary protocol's two files share (kv_binary.c: framing, checks,
 * dispatch; kv_binary_cmds.c: the commands). */
#ifndef KV_BINARY_H
#define KV_BINARY_H

#include "kv_conn.h"

enum {
    OP_GET = 0x00, OP_SET = 0x01, OP_ADD = 0x02, OP_REPLACE = 0x03, OP_DELETE = 0x04,
    OP_INCR = 0x05, OP_DECR = 0x06, OP_QUIT = 0x07, OP_FLUSH = 0x08, OP_GETQ = 0x09,
    OP_NOOP = 0x0a, OP_VERSION = 0x0b, OP_GETK = 0x0c, OP_GETKQ = 0x0d, OP_APPEND = 0x0e,
    OP_PREPEND = 0x0f, OP_STAT = 0x10, OP_SETQ = 0x11, OP_ADDQ = 0x12, OP_REPLACEQ = 0x13,
    OP_DELETEQ = 0x14, OP_INCRQ = 0x15, OP_DECRQ = 0x16, OP_QUITQ = 0x17, OP_FLUSHQ = 0x18,
    OP_APPENDQ = 0x19, OP_PREPENDQ = 0x1a, OP_VERBOSITY = 0x1b, OP_TOUCH = 0x1c, OP_GAT = 0x1d,
    OP_GATQ = 0x1e, OP_GATK = 0x23, OP_GATKQ = 0x24,
};
enum {
    ST_OK = 0, ST_NOT_FOUND = 1, ST_EXISTS = 2, ST_TOO_LARGE = 3, ST_INVALID = 4,
    ST_NOT_STORED = 5, ST_NON_NUMERIC = 6, ST_AUTH_ERROR = 0x20, ST_UNKNOWN = 0x81,
    ST_NO_MEMORY = 0x82,
};

struct kv_req {
    uint8_t opcode, extlen;
    uint16_t keylen;
    uint32_t bodylen, opaque;
    uint64_t cas;
    const char *ext, *key, *val;
    size_t vallen;
};

uint64_t kv_get64(const char *p); /* big-endian fields */
uint32_t kv_get32(const char *p);
void kv_put64(char *p, uint64_t v);
/* Appends a response packet echoing r's opcode and opaque. */
void kv_resp(struct kv_conn *c, const struct kv_req *r, uint16_t status, uint64_t cas,
             const void *ext, uint8_t extlen, const void *key, uint16_t keylen, const void *val,
             size_t vallen);
/* A response with memcached's message for `status`. */
void kv_error(struct kv_conn *c, const struct kv_req *r, uint16_t status);

int kv_quiet(uint8_t op);
void kv_bin_get(struct kv_conn *c, const struct kv_req *r);   /* get*, touch, gat*, gatk* */
void kv_bin_store(struct kv_conn *c, const struct kv_req *r); /* set, add, replace, append... */
void kv_bin_delta(struct kv_conn *c, const struct kv_req *r); /* incr, decr */
void kv_bin_stat(struct kv_conn *c, const struct kv_req *r);

#endif
