/* bench_opts.h: the option parsing of bench.h's driver (included by bench.h only, where the
 * driver's state, bench_cfg, and the program's option table are in scope). Strict: an unknown
 * option, a missing value, a value out of range or with trailing characters is an error: a
 * message naming the option and value, the usage (which gives each range), exit 2. */
#ifndef TMKIT_BENCH_OPTS_H
#define TMKIT_BENCH_OPTS_H

static void bench_usage(FILE *out)
{
    fprintf(out, "usage: %s-{tm,mutex} [--threads N] [--seconds S | --ops N] [--seed N]", bench_cfg.name);
    for (const bench_option *o = bench_cfg.options; o && o->name; o++)
        fprintf(out, " [--%s %s]", o->name, o->type == BENCH_CHOICE ? "X" : o->type == BENCH_LONG ? "N" : "F");
    fprintf(out, "\n  --threads N   worker threads, 1-1024 (default 1)\n"
                 "  --seconds S   run S seconds, 0.001-3600 (default 1)\n"
                 "  --ops N       instead: each thread runs exactly N operations\n"
                 "  --seed N      random seed (default 1)\n");
    for (const bench_option *o = bench_cfg.options; o && o->name; o++) {
        fprintf(out, "  --%-*s %s", 11, o->name, o->help);
        if (o->type == BENCH_CHOICE) {
            fprintf(out, ": ");
            for (int i = 0; o->choices[i]; i++)
                fprintf(out, "%s%s", i ? "|" : "", o->choices[i]);
            fprintf(out, " (default %s)\n", o->choices[*(long *)o->value]);
        } else if (o->type == BENCH_LONG) {
            fprintf(out, ", %.0f-%.0f (default %ld)\n", o->min, o->max, *(long *)o->value);
        } else {
            fprintf(out, ", %g-%g (default %g)\n", o->min, o->max, *(double *)o->value);
        }
    }
}

static void bench_fail_usage(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", bench_cfg.name);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    bench_usage(stderr);
    exit(2);
}

static long bench_parse_long(const char *opt, const char *s, double min, double max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        bench_fail_usage("bad value '%s' for --%s", s, opt);
    return v;
}

static double bench_parse_double(const char *opt, const char *s, double min, double max)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= min && v <= max))
        bench_fail_usage("bad value '%s' for --%s", s, opt);
    return v;
}

static void bench_parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            bench_usage(stdout);
            exit(0);
        }
        if (strncmp(arg, "--", 2) != 0)
            bench_fail_usage("unexpected argument '%s'%s", arg, "");
        char name[64];
        const char *value = strchr(arg, '=');
        size_t len = value ? (size_t)(value - arg - 2) : strlen(arg + 2);
        if (len >= sizeof name)
            bench_fail_usage("unknown option '%s'%s", arg, "");
        memcpy(name, arg + 2, len);
        name[len] = 0;
        if (value)
            value++;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            bench_fail_usage("option '%s' needs a value%s", arg, "");

        if (strcmp(name, "threads") == 0) {
            bench_cfg.threads = bench_parse_long(name, value, 1, 1024);
        } else if (strcmp(name, "seconds") == 0) {
            bench_cfg.seconds = bench_parse_double(name, value, 0.001, 3600);
        } else if (strcmp(name, "ops") == 0) {
            bench_cfg.ops = bench_parse_long(name, value, 1, 1e12);
        } else if (strcmp(name, "seed") == 0) {
            bench_cfg.seed = bench_parse_long(name, value, 0, 9e18);
        } else {
            const bench_option *o = bench_cfg.options;
            while (o && o->name && strcmp(o->name, name) != 0)
                o++;
            if (!o || !o->name)
                bench_fail_usage("unknown option '--%s'%s", name, "");
            if (o->type == BENCH_LONG) {
                *(long *)o->value = bench_parse_long(name, value, o->min, o->max);
            } else if (o->type == BENCH_DOUBLE) {
                *(double *)o->value = bench_parse_double(name, value, o->min, o->max);
            } else {
                long k = 0;
                while (o->choices[k] && strcmp(o->choices[k], value) != 0)
                    k++;
                if (!o->choices[k])
                    bench_fail_usage("bad value '%s' for --%s", value, name);
                *(long *)o->value = k;
            }
        }
    }
}

#endif
