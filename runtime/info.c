/* tmkit-info: prints facts the `tmkit` command needs from the runtime itself, so each has one
 * source. It is linked from the library's own objects.
 *   tmkit-info            one "name<TAB>summary" line per algorithm, default first (algo/registry.c)
 *   tmkit-info --config   the TMKIT_* variables, one a line (core/config.c, tm_config_describe)
 *   tmkit-info --version  the build string the library exports as tmkit_version (core/version.c) */
#include <stdio.h>
#include <string.h>

#include "algo/algo.h"
#include "core/config.h"

extern const char tmkit_version[];

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--config") == 0) {
        tm_config_describe(stdout);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        puts(tmkit_version);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: tmkit-info [--config | --version]\n");
        return 2;
    }
    for (const tm_algo *const *a = tm_algos; *a; a++)
        printf("%s\t%s\n", (*a)->name, (*a)->summary);
    return 0;
}
