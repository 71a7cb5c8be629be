/* handler.h — what the server answers to one parsed request (handler.c). */
#ifndef WC_HANDLER_H
#define WC_HANDLER_H

#include "cache.h"
#include "config.h"
#include "http.h"

struct wc_ctx {                /* one per server process */
    const struct wc_config *cfg;
    struct wc_cache *cache;    /* NULL in the nocache build */
    const int *stopping;       /* set (atomic) when shutdown begins: no more keep-alive */
};

/* Fills r (zeroed by the caller) for rq. Resources the response points to are released by the
 * cleanups it registers, which the caller runs after writing (wc_response_cleanup). */
void wc_handle(const struct wc_ctx *ctx, const struct wc_request *rq, struct wc_response *r);

#endif
