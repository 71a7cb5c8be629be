/* fuzz_shmdump.c — the shared-memory profile reader (runtime/stats/shmdump.c, which `tmkit stat`
 * runs): a damaged or half-written segment must give a clear error or valid JSON, never a read
 * outside the segment.
 *
 * shmdump.c is compiled into this file (its main renamed) so that sd_print runs on a segment in
 * memory. The segment starts valid and empty (magic, version, counters as the writer sets them);
 * the input is a list of patches, each: kind (1 byte), index (1), offset (2, little-endian),
 * length (1, up to 64 bytes), bytes. Kinds, by the low 2 bits: 0 the header and the object
 * tables; 1 a block's owner, state, program and algorithm (index % 129, 128: the archive);
 * 2 a site of a block's table (offset % 257, 256: "other sites"); 3 anywhere (offset * 256 +
 * index). Patches are undone after each input. Checks besides the sanitizers: the printed
 * snapshot is UTF-8 with no raw control byte but newlines, or the reader refused the segment.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define main shmdump_main
#include "stats/shmdump.c"
#undef main

static tm_shm_segment *seg;
static char *out;
static size_t out_len;

struct patch { size_t off, len; };

static void check_output(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 && c != '\n')
            abort();
        if (c >= 0x80) {
            size_t u = sd_utf8((const unsigned char *)s + i, n - i);
            if (!u)
                abort();
            i += u - 1;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t size)
{
    if (!seg) {
        seg = calloc(1, sizeof *seg);
        seg->magic = TM_SHM_MAGIC;
        seg->version = TM_SHM_VERSION;
        seg->ncounters = TM_STAT_N;
        seg->nsites = TM_SITES;
        seg->nblocks = TM_SHM_BLOCKS;
        seg->nobjects = TM_SHM_OBJECTS;
        seg->size_kb = (uint32_t)(sizeof *seg / 1024);
    }
    static tm_shm_segment saved_head; /* the header part, restored whole */
    struct patch undo[64];
    int np = 0;
    char *base = (char *)seg;
    memcpy(&saved_head, seg, offsetof(tm_shm_segment, archive));
    for (size_t k = 0; k + 5 <= size && np < 64;) {
        uint8_t kind = d[k] & 3, idx = d[k + 1];
        size_t off = (size_t)d[k + 2] | (size_t)d[k + 3] << 8, len = d[k + 4] & 63;
        k += 5;
        if (len > size - k)
            len = size - k;
        size_t at;
        if (kind == 0) {
            at = off % offsetof(tm_shm_segment, archive);
        } else if (kind == 1 || kind == 2) {
            tm_shm_block *b = idx % 129 == 128 ? &seg->archive : &seg->block[idx % 129];
            if (kind == 1) {
                at = (size_t)((char *)b - base) + off % offsetof(tm_shm_block, table);
            } else {
                size_t si = off % (TM_SITES + 1);
                tm_site *s = si == TM_SITES ? &b->table.other : &b->table.site[si];
                at = (size_t)((char *)s - base);
                if (len == 0) { /* a live-looking site: pc, object 0, counters */
                    s->pc = 2, s->c[TM_STAT_starts] = s->c[TM_STAT_commits] = 1;
                    undo[np++] = (struct patch){at, sizeof *s};
                    continue;
                }
            }
        } else {
            at = (off << 8 | idx) % sizeof *seg;
        }
        if (at + len > sizeof *seg)
            len = sizeof *seg - at;
        memcpy(base + at, d + k, len);
        k += len;
        if (at >= offsetof(tm_shm_segment, archive))
            undo[np++] = (struct patch){at, len};
    }
    FILE *saved = stdout;
    stdout = open_memstream(&out, &out_len);
    int rc = sd_print(seg, "fuzz", "/dev/shm/tmkit.fuzz", 1e9);
    fclose(stdout);
    stdout = saved;
    if (rc == 0)
        check_output(out, out_len);
    else if (rc != 1 || out_len != 0)
        abort();
    free(out);
    out = NULL;
    for (int i = 0; i < np; i++)
        memset(base + undo[i].off, 0, undo[i].len);
    memcpy(seg, &saved_head, offsetof(tm_shm_segment, archive));
    return 0;
}
