/* man.h — the backend: man pages rendered to HTML by man2html, CGI-style (man.c). */
#ifndef WC_MAN_H
#define WC_MAN_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct wc_page {
    int status;              /* 200, 404 (no such page), 502 (man2html failed) */
    char *body;              /* malloc'd HTML (status 200), owned by the caller */
    size_t len;
    char content_type[96];
    char cache_control[48];  /* what the backend says about caching, e.g. "max-age=3600" */
    uint64_t cost_us;        /* time spent producing the page */
};

/* Validates a section ("3", "3pm": a digit 1-9 then up to 7 letters/digits) and a name
 * (1-128 of [A-Za-z0-9_.:+@-], not starting with '.', no ".."). */
int wc_man_valid(const char *section, const char *name);

/* Renders /man/<section>/<name>; both must have passed wc_man_valid. */
void wc_man_render(const struct wc_config *cfg, const char *section, const char *name,
                   struct wc_page *out);

#endif
