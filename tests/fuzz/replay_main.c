/* replay_main.c — a main() for the fuzz harnesses where libFuzzer is not linked (the gcc
 * builds of tests/fuzz/CMakeLists.txt, under ASan+UBSan): runs LLVMFuzzerTestOneInput once on
 * every file named, and on every file of every directory named (in name order).
 *
 * usage: fuzz-replay-TARGET FILE_OR_DIR...
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t k; (k = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    uint8_t *exact = malloc(n ? n : 1); /* exactly the input's size: a read past it is caught */
    memcpy(exact, buf, n);
    free(buf);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= replay_file(argv[i]), files++;
            continue;
        }
        struct dirent **ents;
        int n = scandir(argv[i], &ents, NULL, alphasort);
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], ents[k]->d_name);
            if (ents[k]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
                bad |= replay_file(path), files++;
            free(ents[k]);
        }
        free(ents);
    }
    printf("replayed %d inputs\n", files);
    return bad;
}
