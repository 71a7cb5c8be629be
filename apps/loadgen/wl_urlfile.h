/* wl_urlfile: the request list of webcache-load, read from a URL file.
 *
 * One URL per line: either a path ("/man/3/printf", needs a base address from --base) or a full
 * URL ("http://127.0.0.1:8080/man/3/printf"), whose scheme://host:port becomes the target when
 * no --base is given (every full URL must then name the same one). Empty lines are skipped;
 * anything else is an error naming the line. Each URL becomes a ready-to-send GET request.
 */
#ifndef WL_URLFILE_H
#define WL_URLFILE_H

#include <stddef.h>

typedef struct {
    char **req;        /* complete request texts */
    size_t *len;
    size_t n;
    char base[256];    /* the target found in the file or given, "http://HOST:PORT" */
} wl_urls;

/* base may be NULL (take it from the file). Returns 0, or -1 with a message in err. */
int wl_urls_load(wl_urls *u, const char *file, const char *base, char *err, size_t errlen);
void wl_urls_free(wl_urls *u);

#endif
