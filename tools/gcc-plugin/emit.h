/* Building GIMPLE for an inline fast path (emit.cc): straight-line statements appended to one
 * block at a time, conditions that leave for another block, and the end of each path at the
 * block after the call. Everything is made in SSA form; memory operands get their virtual SSA
 * names when the pass returns TODO_update_ssa_only_virtuals. */
#ifndef TMKIT_PLUGIN_EMIT_H
#define TMKIT_PLUGIN_EMIT_H

#include "gcc_headers.h"

struct tmi_emit {
    basic_block cur;  /* the block statements are appended to */
    basic_block slow; /* the block holding the original barrier call */
    basic_block join; /* the block after the call, where every path ends */
    gimple_stmt_iterator gsi;
    location_t loc;
};

/* Starts appending to `head`, whose fall-through edge to the call's block the caller removed. */
void tmi_emit_start(tmi_emit *e, basic_block head, basic_block slow, basic_block join,
                    location_t loc);
/* A new, empty block in the loop of the current one (a target for tmi_if). */
basic_block tmi_new_block(tmi_emit *e);
/* Continues appending to `bb` (one made by tmi_new_block). */
void tmi_continue(tmi_emit *e, basic_block bb);

/* t = expr (an invariant such as an address) */
tree tmi_value(tmi_emit *e, tree expr);
/* t = a CODE b (b may be NULL_TREE for a unary code); returns t. */
tree tmi_op(tmi_emit *e, enum tree_code code, tree type, tree a, tree b = NULL_TREE);
/* t = *(TYPE *)((char *)base + off), in the generic alias set. align_bytes: what the address
 * is known to be aligned to (1: any). */
tree tmi_load(tmi_emit *e, tree type, tree base, HOST_WIDE_INT off, unsigned align_bytes);
/* *(TYPE *)((char *)base + off) = val */
void tmi_store(tmi_emit *e, tree type, tree base, HOST_WIDE_INT off, tree val);
/* The word at %fs:off (the thread's TCB). */
tree tmi_tcb_load(tmi_emit *e, HOST_WIDE_INT off);
/* __atomic_thread_fence(model) */
void tmi_fence(tmi_emit *e, int model);
/* __atomic_load_8(ptr, model) */
tree tmi_atomic_load8(tmi_emit *e, tree ptr, int model);

/* __sync_bool_compare_and_swap_8(ptr, expected, desired) */
tree tmi_cas8(tmi_emit *e, tree ptr, tree expected, tree desired);

/* if (a CODE b) go on in a new block; else go to `otherwise` (likely: the new block). */
void tmi_if(tmi_emit *e, enum tree_code code, tree a, tree b, basic_block otherwise);
/* Ends the current block with a jump to `bb`. */
void tmi_goto(tmi_emit *e, basic_block bb);
/* Ends the current block with a jump to the join block; returns that edge. */
edge tmi_finish(tmi_emit *e);

/* Types used throughout. */
tree tmi_u64(void);
tree tmi_uint(unsigned bytes);
tree tmi_cst(tree type, unsigned HOST_WIDE_INT v);

#endif
