/* Where a function's cached runtime words are live, and so must be loaded again (live.cc). */
#ifndef TMKIT_PLUGIN_LIVE_H
#define TMKIT_PLUGIN_LIVE_H

#include "gcc_headers.h"

/* The places, in the function as it is before any of them is split off. */
struct tmi_reloads {
    bool at_entry;                 /* a fast path is reached from the start with no call first */
    auto_vec<gimple *> after;      /* after these calls (none ends its block) */
    auto_vec<edge> on_edge;        /* on these edges, out of a block a call ends */
    auto_vec<basic_block> at_start; /* at the start of these blocks (EH or abnormal entries) */
};

/* Does g leave the cached words unknown (a call into anything but the fast paths' own
 * builtins, or an asm)? */
bool tmi_clobbers(gimple *g);
/* Does bb start with the words unknown (an EH or abnormal edge enters it)? */
bool tmi_starts_unknown(basic_block bb);
/* Fills out for the function whose fast paths use `names`. */
void tmi_find_reloads(function *fn, hash_set<tree> &names, tmi_reloads *out);

#endif
