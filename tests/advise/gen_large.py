#!/usr/bin/env python3
"""Writes a memcached-sized lock-based C program (default 8 files, ~10,000 lines) and its
compile_commands.json into DIR, for timing `tmkit advise`. Each file has a hash table with
per-bucket locks, items with a lock inside, global stats under their own lock, helpers called
from sections (some doing I/O on error paths), wrappers, nested locks and loops.

usage: gen_large.py DIR [FILES] [FUNCS_PER_FILE]
"""
import json
import os
import sys

HEADER = """#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item{m} {{
    pthread_mutex_t lock;
    struct item{m} *next;
    unsigned hash;
    int refcount;
    long value;
    char key[48];
}};

#define NB{m} 1024
static pthread_mutex_t bucket_lock{m}[NB{m}];
static struct item{m} *table{m}[NB{m}];
static pthread_mutex_t stats_lock{m} = PTHREAD_MUTEX_INITIALIZER;
static long stat_hits{m}, stat_misses{m}, stat_bytes{m};
#define STATS_LOCK{m}() pthread_mutex_lock(&stats_lock{m})
#define STATS_UNLOCK{m}() pthread_mutex_unlock(&stats_lock{m})

static void bucket_enter{m}(unsigned h) {{ pthread_mutex_lock(&bucket_lock{m}[h % NB{m}]); }}
static void bucket_leave{m}(unsigned h) {{ pthread_mutex_unlock(&bucket_lock{m}[h % NB{m}]); }}

static unsigned hash{m}(const char *k, int n)
{{
    unsigned h = 2166136261u;
    for (int i = 0; i < n && k[i]; i++) {{
        h ^= (unsigned char)k[i];
        h *= 16777619u;
    }}
    return h;
}}

static int key_eq{m}(const char *a, const char *b)
{{
    int i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    return a[i] == b[i];
}}

static void complain{m}(const char *what, long v)
{{
    fprintf(stderr, "%s: %ld\\n", what, v);
}}
"""

FUNC = """
long op{m}_{i}(const char *key, long delta, int flags)
{{
    unsigned h = hash{m}(key, 48);
    struct item{m} *it;
    long result = -1;
    int steps = 0;

    bucket_enter{m}(h);
    for (it = table{m}[h % NB{m}]; it != NULL; it = it->next) {{
        steps++;
        if (it->hash != h || !key_eq{m}(it->key, key))
            continue;
        if (flags & {bit}) {{
            result = it->value;
            bucket_leave{m}(h);
            goto found;
        }}
        pthread_mutex_lock(&it->lock);
        it->refcount++;
        it->value += delta;
        if (it->value < 0 && (flags & 0x100))
            complain{m}("negative value", it->value);
        result = it->value;
        pthread_mutex_unlock(&it->lock);
        break;
    }}
    if (result < 0 && (flags & 0x200)) {{
        it = calloc(1, sizeof *it);
        if (it != NULL) {{
            memcpy(it->key, key, 47);
            it->hash = h;
            it->value = delta;
            it->next = table{m}[h % NB{m}];
            table{m}[h % NB{m}] = it;
            result = delta;
        }}
    }}
    bucket_leave{m}(h);
found:
    STATS_LOCK{m}();
    if (result >= 0)
        stat_hits{m}++;
    else
        stat_misses{m}++;
    stat_bytes{m} += steps * {i};
    STATS_UNLOCK{m}();
    return result;
}}
"""


def main():
    out = sys.argv[1]
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    funcs = int(sys.argv[3]) if len(sys.argv) > 3 else 21
    os.makedirs(out, exist_ok=True)
    db, lines = [], 0
    for m in range(files):
        text = HEADER.format(m=m) + "".join(FUNC.format(m=m, i=i, bit=1 << (i % 8))
                                            for i in range(funcs))
        path = os.path.join(out, f"mod{m}.c")
        with open(path, "w") as f:
            f.write(text)
        lines += text.count("\n")
        db.append({"directory": out, "file": f"mod{m}.c",
                   "arguments": ["gcc", "-O2", "-pthread", "-c", f"mod{m}.c", "-o", f"mod{m}.o"]})
    with open(os.path.join(out, "compile_commands.json"), "w") as f:
        json.dump(db, f, indent=1)
    print(f"{files} files, {lines} lines")


if __name__ == "__main__":
    main()
