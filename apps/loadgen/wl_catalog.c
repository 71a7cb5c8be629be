/* wl_catalog: scan the man directories into the ranked page list (see wl_catalog.h). */
#include "wl_catalog.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char SECTIONS[] = "237";

static int name_ok(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '+' || c == '-'))
            return 0;
    }
    return 1;
}

/* "printf.3.gz" in section '3' -> length of "printf", or 0 if the file is not a page. */
static size_t page_name_len(const char *file, char section)
{
    size_t len = strlen(file);
    if (len < 4 || strcmp(file + len - 3, ".gz") != 0)
        return 0;
    len -= 3;
    const char *dot = NULL;
    for (size_t i = len; i-- > 0;)
        if (file[i] == '.') {
            dot = file + i;
            break;
        }
    if (!dot || dot[1] != section)
        return 0;
    for (const char *p = dot + 2; p < file + len; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return 0;
    return (size_t)(dot - file);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push(wl_catalog *cat, size_t *cap, char *s)
{
    if (cat->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 1024;
        char **np = realloc(cat->paths, nc * sizeof *np);
        if (!np)
            return -1;
        cat->paths = np;
        *cap = nc;
    }
    cat->paths[cat->n++] = s;
    return 0;
}

static int scan_section(wl_catalog *cat, size_t *cap, const char *mandir, char section)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/man%c", mandir, section);
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "webcache catalog: cannot open %s: %s\n", dir, strerror(errno));
        return -1;
    }
    size_t first = cat->n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = page_name_len(e->d_name, section);
        if (!name_ok(e->d_name, len))
            continue;
        char file[4096 + 256];
        struct stat st;
        snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
            continue;   /* dangling link or not a file */
        char *url = malloc(len + 8);
        if (!url) {
            closedir(d);
            return -1;
        }
        sprintf(url, "/man/%c/%.*s", section, (int)len, e->d_name);
        if (push(cat, cap, url) != 0) {
            free(url);
            closedir(d);
            return -1;
        }
    }
    closedir(d);
    /* Sort this section's names and drop duplicate URLs. */
    qsort(cat->paths + first, cat->n - first, sizeof *cat->paths, cmp_str);
    size_t out = first;
    for (size_t i = first; i < cat->n; i++) {
        if (out > first && strcmp(cat->paths[out - 1], cat->paths[i]) == 0)
            free(cat->paths[i]);
        else
            cat->paths[out++] = cat->paths[i];
    }
    cat->n = out;
    return 0;
}

int wl_catalog_load(wl_catalog *cat, const char *mandir)
{
    size_t cap = 0;
    cat->paths = NULL;
    cat->n = 0;
    for (const char *s = SECTIONS; *s; s++) {
        if (scan_section(cat, &cap, mandir, *s) != 0) {
            wl_catalog_free(cat);
            return -1;
        }
    }
    if (cat->n == 0) {
        fprintf(stderr, "webcache catalog: no man pages of sections 2, 3, 7 under %s\n", mandir);
        return -1;
    }
    return 0;
}

void wl_catalog_free(wl_catalog *cat)
{
    for (size_t i = 0; i < cat->n; i++)
        free(cat->paths[i]);
    free(cat->paths);
    cat->paths = NULL;
    cat->n = 0;
}
