/* wl_catalog: the page catalog of the web-cache workload, in its fixed rank order.
 *
 * The catalog is every gzipped man page of sections 2, 3 and 7 under a man directory (default
 * /usr/share/man), named as the server's URLs name them: /man/<section>/<name> for a file
 * man<section>/<name>.<section><suffix>.gz (suffix: letters and digits, e.g. "", "pm", "type").
 * Symbolic links (alias pages) count as pages of their own, as they are distinct URLs; a
 * dangling link is skipped. Names outside [A-Za-z0-9._:+-] (which would need %-escaping) are
 * skipped. When two files give the same URL (foo.3.gz and foo.3pm.gz) it is listed once.
 *
 * Order (rank 1 first): section 2, then 3, then 7; within a section by name, bytewise (strcmp,
 * as in the C locale). The order is therefore fixed for a given set of installed pages.
 */
#ifndef WL_CATALOG_H
#define WL_CATALOG_H

#include <stddef.h>

typedef struct {
    char **paths;   /* "/man/3/printf", rank r at paths[r - 1] */
    size_t n;
} wl_catalog;

/* Scans MANDIR/man2, man3, man7. Returns 0, or -1 with a message on stderr. */
int wl_catalog_load(wl_catalog *cat, const char *mandir);
void wl_catalog_free(wl_catalog *cat);

#endif
