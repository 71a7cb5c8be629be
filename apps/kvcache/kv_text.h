/* kv_text.h — what the text protocol's three files (kv_text.c: lines and commands,
 * kv_text_store.c: storage commands and their values, kv_text_admin.c: stats, slabs, flush_all,
 * verbosity) share. */
#ifndef KV_TEXT_H
#define KV_TEXT_H

#include "kv_conn.h"

#define KV_TOKENS 8

struct kv_line {
    char *tok[KV_TOKENS];
    size_t len[KV_TOKENS];
    int n;
    char *rest; /* after the first KV_TOKENS - 1 tokens (get's further keys) */
};

/* Strict numbers: the whole token, digits (and a leading '-' for the signed one). */
int kv_parse_u64s(const char *s, uint64_t *v);
int kv_parse_i64s(const char *s, int64_t *v);
/* set, add, replace, append, prepend, cas: checks the line, allocates the item, and leaves the
 * connection reading the value (kv_text_value). */
void kv_cmd_store(struct kv_conn *c, struct kv_line *l, enum kv_store_op op);
/* stats [group ...], slabs ..., flush_all [time] [noreply], verbosity level [noreply] */
void kv_cmd_stats(struct kv_conn *c, struct kv_line *l);
void kv_cmd_slabs(struct kv_conn *c, struct kv_line *l);
void kv_cmd_flush_all(struct kv_conn *c, struct kv_line *l);
void kv_cmd_verbosity(struct kv_conn *c, struct kv_line *l);

#endif
