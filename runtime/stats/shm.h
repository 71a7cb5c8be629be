/* Layout of the shared-memory statistics segment (TMKIT_STATS_SHM=name -> /dev/shm/tmkit.name),
 * shared by the runtime (stats_shm.c, the writers) and tmkit-shmdump (the reader).
 *
 * Every thread of every attached process counts into a block of its own (one writer per block:
 * no shared cache line is written on the hot path, as in the private mode); readers sum the
 * blocks. Sites are keyed across processes by (object, offset), so separately exec'd worker
 * processes with different load addresses add up. A block records its owner's pid and start
 * time: readers tell live processes from exited or crashed ones, and a new process may recycle
 * a dead process's block after folding its counts into the archive block. Claiming blocks,
 * adding objects and (re)initializing the segment happen under flock(2) on the segment, which
 * the kernel releases if the holder dies, so a crash cannot wedge the segment; counters of a
 * crashed process stay readable (plain 64-bit counters cannot be torn on x86-64).
 */
#ifndef TMKIT_STATS_SHM_H
#define TMKIT_STATS_SHM_H

#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"

#define TM_SHM_MAGIC 0x316d73746b6d74ull /* "tmktsm1" */
#define TM_SHM_VERSION 5 /* 2: tm_site.fast; 3: tm_site.fast_serial; 4: gcc_irrevocable, build ids;
                           * 5: the htm counters */
#define TM_SHM_BLOCKS 128  /* threads counting at once, over all processes */
#define TM_SHM_OBJECTS 64  /* executables and shared objects containing sites */
#define TM_SHM_PATH 256
#define TM_SHM_NAME_MAX 64 /* [A-Za-z0-9._-], checked by the configuration */

enum { TM_SHM_FREE = 0, TM_SHM_LIVE = 1, TM_SHM_EXITED = 2 };

typedef struct tm_shm_block {
    _Atomic int32_t owner;   /* pid counting into this block; 0: never used */
    _Atomic uint32_t state;  /* TM_SHM_FREE, LIVE, or EXITED (the owner ran its exit hooks) */
    uint64_t owner_start;    /* owner's start time (/proc/PID/stat field 22): detects pid reuse */
    char program[TM_SHM_PATH];
    char algo[32];
    tm_site_table table;     /* table.next and table.shared are process-local: readers ignore */
} tm_shm_block;

typedef struct tm_shm_segment {
    uint64_t magic;
    uint32_t version, ncounters, nsites, nblocks, nobjects;
    uint32_t size_kb;                /* sizeof(tm_shm_segment) / 1024: a layout check */
    _Atomic uint32_t overflow;       /* threads that found no block (counted privately) */
    _Atomic uint32_t n_objects;      /* published with release after the path is written */
    _Atomic uint64_t generation;     /* bumped at each (re)initialization */
    char objects[TM_SHM_OBJECTS][TM_SHM_PATH];
    char object_build_ids[TM_SHM_OBJECTS][TM_STATS_BUILD_ID_HEX]; /* hex, "" if none */
    tm_shm_block archive;            /* counts of dead processes whose blocks were recycled */
    tm_shm_block block[TM_SHM_BLOCKS];
} tm_shm_segment;

/* A segment name: 1 to TM_SHM_NAME_MAX characters from A-Z a-z 0-9 . _ -, not "." or "..". */
#define TM_SHM_NAME_RULE "1 to 64 characters from A-Z a-z 0-9 . _ -"
static inline bool tm_shm_name_valid(const char *n)
{
    size_t len = strlen(n);
    if (len == 0 || len > TM_SHM_NAME_MAX || !strcmp(n, ".") || !strcmp(n, ".."))
        return false;
    for (; *n; n++)
        if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
              *n == '.' || *n == '_' || *n == '-'))
            return false;
    return true;
}

/* Start time of a process in clock ticks since boot (/proc/PID/stat field 22; 0 if unknown):
 * with the pid, it names one process even after its pid is reused. */
static inline uint64_t tm_shm_proc_start(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may contain spaces */
    if (!p)
        return 0;
    char *save = NULL; /* after ") ": field 3 (state) ... field 22 (starttime) */
    int field = 2;
    for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        if (++field == 22)
            return strtoull(tok, NULL, 10);
    return 0;
}

#endif
