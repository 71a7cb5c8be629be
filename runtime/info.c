/* tmkit-info: prints facts the `tmkit` command needs from the runtime itself, so the algorithm
 * list has one source (algo/registry.c). Output: one "name<TAB>summary" line per algorithm,
 * default first. */
#include <stdio.h>

#include "algo/algo.h"

int main(void)
{
    for (const tm_algo *const *a = tm_algos; *a; a++)
        printf("%s\t%s\n", (*a)->name, (*a)->summary);
    return 0;
}
