#include "kv_conn.h"
int kv_binary_step(struct kv_conn *c) { c->closing = 1; return 0; }
