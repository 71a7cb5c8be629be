/* webcache-urls: the web-cache workload's request stream (docs/webcache.md).
 *
 * Prints --n URL paths, one per line, each page chosen by rank from the catalog (wl_catalog.h:
 * man pages of sections 2, 3, 7 in a fixed order) with probability proportional to 1/rank^s
 * (wl_zipf.h). The stream depends only on the catalog, --s, --n, --seed and --pages, so a list
 * can be regenerated instead of stored. --base http://HOST:PORT prefixes every line, giving full
 * URLs for clients that want them; --catalog prints the ranked catalog itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_args.h"
#include "wl_catalog.h"
#include "wl_zipf.h"

static const char USAGE[] =
    "usage: webcache-urls --s S --n N [--seed X] [--base http://HOST:PORT] [--pages P]\n"
    "                     [--man-dir DIR]\n"
    "       webcache-urls --catalog [--base URL] [--pages P] [--man-dir DIR]\n"
    "Prints N request paths (/man/<section>/<name>), page of rank r drawn with probability\n"
    "proportional to 1/r^S, one per line. The catalog: every gzipped man page of sections 2, 3\n"
    "and 7 under DIR (default /usr/share/man), section 2 first, then 3, then 7, by name (bytewise)\n"
    "within a section; --pages keeps only the first P. --catalog lists it, rank 1 first.\n"
    "  --s S        Zipf exponent, 0 (uniform) .. 10\n"
    "  --n N        number of URLs, 1 .. 100000000\n"
    "  --seed X     generator seed, unsigned 64-bit (default 1)\n"
    "  --base URL   prefix for every line, e.g. http://127.0.0.1:8080 (no trailing slash)\n";

int main(int argc, char **argv)
{
    wl_prog = "webcache-urls";
    static const char *const flags[] = {"catalog", "help", NULL};
    double s = -1;
    long long n = -1, pages = 0;
    uint64_t seed = 1;
    const char *base = "", *mandir = "/usr/share/man";
    int list_catalog = 0;
    const char *opt, *v;
    int i = 1;
    while ((opt = wl_next_option(argc, argv, &i, &v, flags)) != NULL) {
        if (strcmp(opt, "help") == 0) {
            fputs(USAGE, stdout);
            return 0;
        } else if (strcmp(opt, "s") == 0) {
            s = wl_parse_double(opt, v, 0, 10);
        } else if (strcmp(opt, "n") == 0) {
            n = wl_parse_int(opt, v, 1, 100000000);
        } else if (strcmp(opt, "seed") == 0) {
            seed = wl_parse_u64(opt, v);
        } else if (strcmp(opt, "pages") == 0) {
            pages = wl_parse_int(opt, v, 1, 100000000);
        } else if (strcmp(opt, "base") == 0) {
            size_t len = strlen(v);
            if (strncmp(v, "http://", 7) != 0 || len <= 7 || v[len - 1] == '/')
                wl_usage_error("bad value for --base: '%s' (want http://HOST:PORT, no trailing "
                               "slash)", v);
            base = v;
        } else if (strcmp(opt, "man-dir") == 0) {
            mandir = v;
        } else if (strcmp(opt, "catalog") == 0) {
            list_catalog = 1;
        } else {
            wl_usage_error("unknown option --%s", opt);
        }
    }
    if (!list_catalog && (s < 0 || n < 0))
        wl_usage_error("--s and --n are required");

    wl_catalog cat;
    if (wl_catalog_load(&cat, mandir) != 0)
        return 1;
    size_t npages = cat.n;
    if (pages > 0 && (size_t)pages < npages)
        npages = (size_t)pages;
    if (list_catalog) {
        for (size_t r = 0; r < npages; r++)
            printf("%s%s\n", base, cat.paths[r]);
        wl_catalog_free(&cat);
        return fflush(stdout) == 0 ? 0 : 1;
    }

    wl_zipf z;
    if (wl_zipf_init(&z, npages, s) != 0) {
        fprintf(stderr, "webcache-urls: out of memory\n");
        return 1;
    }
    wl_rng rng;
    wl_rng_seed(&rng, seed);
    for (long long k = 0; k < n; k++) {
        size_t r = wl_zipf_draw(&z, &rng);
        fputs(base, stdout);
        fputs(cat.paths[r - 1], stdout);
        putchar('\n');
    }
    wl_zipf_free(&z);
    wl_catalog_free(&cat);
    if (fflush(stdout) != 0) {
        perror("webcache-urls: write");
        return 1;
    }
    return 0;
}
