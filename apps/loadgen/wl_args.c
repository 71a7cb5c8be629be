/* wl_args: strict option parsing (see wl_args.h). */
#include "wl_args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *wl_prog = "loadgen";

void wl_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", wl_prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see --help)\n");
    va_end(ap);
    exit(2);
}

const char *wl_next_option(int argc, char **argv, int *i, const char **value,
                           const char *const *flags)
{
    static char name[64];
    if (*i >= argc)
        return NULL;
    const char *arg = argv[(*i)++];
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        wl_usage_error("unexpected argument '%s'", arg);
    const char *eq = strchr(arg + 2, '=');
    size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
    if (len >= sizeof name)
        wl_usage_error("unknown option '%s'", arg);
    memcpy(name, arg + 2, len);
    name[len] = '\0';
    for (const char *const *f = flags; f && *f; f++) {
        if (strcmp(*f, name) == 0) {
            if (eq)
                wl_usage_error("option --%s takes no value", name);
            *value = "";
            return name;
        }
    }
    if (eq) {
        *value = eq + 1;
    } else {
        if (*i >= argc)
            wl_usage_error("option --%s needs a value", name);
        *value = argv[(*i)++];
    }
    return name;
}

int64_t wl_parse_int(const char *name, const char *v, int64_t min, int64_t max)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (*v == '\0' || *end != '\0' || errno != 0 || x < min || x > max)
        wl_usage_error("bad value for --%s: '%s' (want an integer in %lld..%lld)", name, v,
                       (long long)min, (long long)max);
    return x;
}

uint64_t wl_parse_u64(const char *name, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (*v == '\0' || *v == '-' || *end != '\0' || errno != 0)
        wl_usage_error("bad value for --%s: '%s' (want an unsigned integer)", name, v);
    return x;
}

double wl_parse_double(const char *name, const char *v, double min, double max)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (*v == '\0' || *end != '\0' || errno != 0 || !isfinite(x) || x < min || x > max)
        wl_usage_error("bad value for --%s: '%s' (want a number in %g..%g)", name, v, min, max);
    return x;
}
