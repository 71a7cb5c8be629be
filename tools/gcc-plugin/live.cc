/* Where a function's cached runtime words must be loaded again (the interface: live.h).
 *
 * The words stop being trustworthy after every call or asm and at the start of every block an
 * EH or abnormal edge enters (cache.cc says why). Loading them at all those places would cost a
 * transaction a load of every word after its commit and after each call outside it, where no
 * fast path follows. So the loads go only where the words are live: a backward data-flow
 * problem over the blocks, with the fast paths' statements as the uses and those places as the
 * kills, solved by iterating to the fixed point (the transfer is monotone and the lattice has
 * two values, so it ends). */
#include "live.h"

/* GCC's dispatcher of abnormal edges (functions that call setjmp): one internal call, leading
 * only to blocks whose start is a kill. */
static bool dispatcher(basic_block bb)
{
    gimple_stmt_iterator gsi = gsi_after_labels(bb);
    return !gsi_end_p(gsi) && is_gimple_call(gsi_stmt(gsi)) &&
           gimple_call_internal_p(gsi_stmt(gsi), IFN_ABNORMAL_DISPATCHER);
}

bool tmi_starts_unknown(basic_block bb)
{
    edge e;
    edge_iterator ei;
    FOR_EACH_EDGE(e, ei, bb->preds)
    if (e->flags & (EDGE_EH | EDGE_ABNORMAL))
        return !dispatcher(bb);
    return false;
}

bool tmi_clobbers(gimple *g)
{
    if (gimple_code(g) == GIMPLE_ASM)
        return true;
    if (!is_gimple_call(g) || gimple_call_internal_p(g))
        return false;
    if (gimple_call_builtin_p(g, BUILT_IN_NORMAL)) {
        switch (DECL_FUNCTION_CODE(gimple_call_fndecl(g))) {
        case BUILT_IN_ATOMIC_THREAD_FENCE:
        case BUILT_IN_ATOMIC_LOAD_8:
        case BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_8:
            return false; /* the fast paths' own: they do not enter the runtime */
        default:
            break;
        }
    }
    return true;
}

static bool uses(gimple *g, hash_set<tree> &names)
{
    ssa_op_iter it;
    tree op;
    FOR_EACH_SSA_TREE_OPERAND(op, g, it, SSA_OP_USE)
    if (names.contains(op))
        return true;
    return false;
}

/* Does edge e lead where the words are live, given each block's live-in? An EH or abnormal
 * edge never does: the block it enters starts unknown, or is the dispatcher, whose blocks do. */
static bool into_live(edge e, const auto_sbitmap &in)
{
    return e->dest->index != EXIT_BLOCK && bitmap_bit_p(in, e->dest->index);
}

/* Is the value live where bb's last statement ends? */
static bool live_out(basic_block bb, const auto_sbitmap &in)
{
    edge e;
    edge_iterator ei;
    FOR_EACH_EDGE(e, ei, bb->succs)
    if (into_live(e, in))
        return true;
    return false;
}

/* Loads on each edge out of bb into a block where the words are live. */
static void on_live_edges(basic_block bb, const auto_sbitmap &in, tmi_reloads *out)
{
    edge e;
    edge_iterator ei;
    FOR_EACH_EDGE(e, ei, bb->succs)
    if (into_live(e, in))
        out->on_edge.safe_push(e);
}

/* Walks bb backward from its live-out; with `out`, records the loads it needs. Returns the
 * live-in. A block that starts unknown and uses nothing itself loads on its way out, only
 * towards the blocks that need the words: the block after a begin tests whether to run the
 * instrumented code, and the uninstrumented side (the default's biased thread, hardware
 * transactions) then loads nothing. */
static bool walk(basic_block bb, const auto_sbitmap &in, hash_set<tree> &names,
                 tmi_reloads *out)
{
    bool live = live_out(bb, in), own = false; /* own: a use in bb, not only beyond it */
    gimple *last = last_stmt(bb);
    for (gimple_stmt_iterator gsi = gsi_last_bb(bb); !gsi_end_p(gsi); gsi_prev(&gsi)) {
        gimple *g = gsi_stmt(gsi);
        if (tmi_clobbers(g)) {
            if (out && g == last)
                on_live_edges(bb, in, out);
            else if (out && live)
                out->after.safe_push(g);
            live = own = false;
        }
        if (uses(g, names))
            live = own = true;
    }
    if (tmi_starts_unknown(bb)) {
        if (out && live && own)
            out->at_start.safe_push(bb);
        else if (out && live)
            on_live_edges(bb, in, out);
        live = false;
    }
    return live;
}

void tmi_find_reloads(function *fn, hash_set<tree> &names, tmi_reloads *out)
{
    auto_sbitmap in(last_basic_block_for_fn(fn));
    bitmap_clear(in);
    basic_block bb;
    for (bool changed = true; changed;) {
        changed = false;
        FOR_EACH_BB_REVERSE_FN(bb, fn)
        {
            bool l = walk(bb, in, names, NULL);
            if (l != bitmap_bit_p(in, bb->index)) {
                if (l)
                    bitmap_set_bit(in, bb->index);
                else
                    bitmap_clear_bit(in, bb->index);
                changed = true;
            }
        }
    }
    FOR_EACH_BB_FN(bb, fn)
    walk(bb, in, names, out);
    out->at_entry = bitmap_bit_p(in, single_succ(ENTRY_BLOCK_PTR_FOR_FN(fn))->index);
}
