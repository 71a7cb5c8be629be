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

#include <stdatomic.h>
#include <stdint.h>

#include "stats.h"

#define TM_SHM_MAGIC 0x316d73746b6d74ull /* "tmktsm1" */
#define TM_SHM_VERSION 1
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
    tm_shm_block archive;            /* counts of dead processes whose blocks were recycled */
    tm_shm_block block[TM_SHM_BLOCKS];
} tm_shm_segment;

#endif
