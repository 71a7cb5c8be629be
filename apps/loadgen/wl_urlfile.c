/* wl_urlfile: read the URL list and prepare the requests (see wl_urlfile.h). */
#include "wl_urlfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int push(wl_urls *u, size_t *cap, const char *host, const char *path)
{
    if (u->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4096;
        char **nr = realloc(u->req, nc * sizeof *nr);
        size_t *nl = nr ? realloc(u->len, nc * sizeof *nl) : NULL;
        if (nr)
            u->req = nr;
        if (!nl)
            return -1;
        u->len = nl;
        *cap = nc;
    }
    static const char fmt[] = "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: webcache-load\r\n\r\n";
    int len = snprintf(NULL, 0, fmt, path, host);
    char *r = malloc((size_t)len + 1);
    if (!r)
        return -1;
    snprintf(r, (size_t)len + 1, fmt, path, host);
    u->req[u->n] = r;
    u->len[u->n] = (size_t)len;
    u->n++;
    return 0;
}

int wl_urls_load(wl_urls *u, const char *file, const char *base, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    if (base)
        snprintf(u->base, sizeof u->base, "%s", base);
    FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open URL file %s: %s", file, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t linecap = 0, cap = 0, lineno = 0;
    ssize_t got;
    int rc = 0;
    while ((got = getline(&line, &linecap, f)) >= 0) {
        lineno++;
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r' || line[got - 1] == ' '))
            line[--got] = '\0';
        if (got == 0)
            continue;
        const char *path = line;
        if (strncmp(line, "http://", 7) == 0) {
            char *slash = strchr(line + 7, '/');
            size_t blen = slash ? (size_t)(slash - line) : (size_t)got;
            if (blen >= sizeof u->base) {
                snprintf(err, errlen, "%s:%zu: address too long", file, lineno);
                rc = -1;
                break;
            }
            if (u->base[0] == '\0')
                snprintf(u->base, sizeof u->base, "%.*s", (int)blen, line);
            else if (!base && (strncmp(u->base, line, blen) != 0 || u->base[blen] != '\0')) {
                snprintf(err, errlen, "%s:%zu: '%.*s' differs from the first URL's '%s' (one "
                         "server per run)", file, lineno, (int)blen, line, u->base);
                rc = -1;
                break;
            }
            path = slash ? slash : "/";
        } else if (line[0] != '/') {
            snprintf(err, errlen, "%s:%zu: '%s' is neither a path (/...) nor an http:// URL",
                     file, lineno, line);
            rc = -1;
            break;
        } else if (!base) {
            snprintf(err, errlen, "%s:%zu: a path without --base http://HOST:PORT", file, lineno);
            rc = -1;
            break;
        }
        if (strpbrk(path, " \t")) {
            snprintf(err, errlen, "%s:%zu: blank inside the URL", file, lineno);
            rc = -1;
            break;
        }
        if (push(u, &cap, u->base + 7, path) != 0) {
            snprintf(err, errlen, "out of memory reading %s", file);
            rc = -1;
            break;
        }
    }
    free(line);
    if (f != stdin)
        fclose(f);
    if (rc == 0 && u->n == 0) {
        snprintf(err, errlen, "URL file %s has no URLs", file);
        rc = -1;
    }
    if (rc != 0)
        wl_urls_free(u);
    return rc;
}

void wl_urls_free(wl_urls *u)
{
    for (size_t i = 0; i < u->n; i++)
        free(u->req[i]);
    free(u->req);
    free(u->len);
    u->req = NULL;
    u->len = NULL;
    u->n = 0;
}
