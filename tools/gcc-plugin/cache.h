/* The runtime's per-attempt words, cached in registers for a whole function (cache.cc).
 *
 * Every fast path reads some words of the runtime: the descriptor (%fs:0x50), its mode, the
 * gl_wt snapshot, orec_eager's bound and bits, the addresses of the clock and the orec table.
 * None of them changes between two calls the transaction makes: only the runtime writes them,
 * on the thread's own behalf, inside a barrier's slow path, a begin, a commit or another call.
 * So the plugin gives each word one SSA name per function, defined at the function's start
 * and again after every call, and the fast paths use those names instead of loading: a read
 * under gl_wt is then a compare of the mode, the value, the clock and a compare, with nothing
 * for the register allocator to reload but what it spilled. */
#ifndef TMKIT_PLUGIN_CACHE_H
#define TMKIT_PLUGIN_CACHE_H

#include "emit.h"

enum tmi_field {
    TMI_MODE,     /* tx->mode, or TMI_NO_MODE when there is no tmkit or no descriptor */
    TMI_TX,       /* the descriptor, or 0 */
    TMI_GL_SNAP,  /* tx->snapshot while the mode is gl_wt; otherwise ~0, which the clock never
                   * equals (it would take 2^63 commits): so a read can compare the clock with it
                   * before it tests the mode */
    TMI_OWNED,    /* tx->owned (gl_wt: the attempt holds the global lock) */
    TMI_OBOUND,   /* tx->obound (orec_eager: the newest orec version the attempt accepts) */
    TMI_OBIT,     /* tx->obit (orec_eager: our bit in a readers' word; loaded where used) */
    TMI_SLOT,     /* tx->orec_slot (orec_eager: our slot in a released orec; loaded where used) */
    TMI_CLOCK,    /* &gl_wt's clock word (the inline data); without a tmkit, the thread
                   * pointer, a readable word that is never ~0 */
    TMI_ORECS,    /* &the orec table (the inline data) */
    TMI_NFIELDS
};

/* The mode no fast path matches: the value of TMI_MODE without a tmkit descriptor. */
#define TMI_NO_MODE 0xff

/* What one barrier knows of the runtime: with the cache, nothing of its own (every field comes
 * from the function's names); without it, the descriptor and the inline data it tested. */
struct tmi_view {
    tree tx;
    tree abi;
};

/* Starts a function: decides whether its words can be cached (not when it has abnormal edges
 * other than a transaction's restart, such as a non-local goto or a computed goto). */
void tmi_cache_start(function *fn);
/* The tests every fast path starts with when the words are not cached (the inline data is
 * there, the thread has a descriptor); nothing when they are. */
void tmi_view_start(tmi_emit *e, tmi_view *v);
/* The value of field f for the barrier being built. */
tree tmi_field(tmi_emit *e, const tmi_view *v, enum tmi_field f);
/* Ends the function: defines the cached names at its start and after every call, and brings
 * the function back into SSA form. Returns the number of places the words are loaded. */
unsigned tmi_cache_finish(function *fn);

/* &tmkit_inline_v1, the runtime's inline data (weak: 0 when the runtime is not a tmkit with
 * this layout). */
tree tmi_abi_addr(tmi_emit *e);

/* The garbage collector's root for the plugin's one declaration (that of tmkit_inline_v1). */
extern const struct ggc_root_tab tmi_roots[];

#endif
