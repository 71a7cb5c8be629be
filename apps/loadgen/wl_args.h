/* wl_args: strict command-line parsing shared by webcache-urls and webcache-load.
 *
 * Every option takes exactly one value (`--name V` or `--name=V`); numbers must be complete
 * (no trailing junk, no empty string) and inside the option's range. Any error prints one line
 * "PROG: ..." to stderr and exits with status 2, the usual status for bad usage.
 */
#ifndef WL_ARGS_H
#define WL_ARGS_H

#include <stdint.h>

/* Program name used in error messages; set once by main(). */
extern const char *wl_prog;

/* Prints "PROG: <message>" and exits 2. */
void wl_usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Iterates over argv. Returns the option's name without "--" (e.g. "seed"), or NULL when
 * argv is exhausted; *value receives the option's value. Exits 2 on a positional argument or a
 * missing value. Options in `flags` (a NULL-terminated list) take no value; *value is then "". */
const char *wl_next_option(int argc, char **argv, int *i, const char **value,
                           const char *const *flags);

/* Parse helpers: exit 2 with "bad value for --NAME: 'V' (want ...)" on error. */
int64_t wl_parse_int(const char *name, const char *v, int64_t min, int64_t max);
double wl_parse_double(const char *name, const char *v, double min, double max);
uint64_t wl_parse_u64(const char *name, const char *v);

#endif
