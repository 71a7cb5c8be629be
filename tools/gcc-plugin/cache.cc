/* The function-wide cache of the runtime's per-attempt words (the interface and why it is
 * correct: cache.h).
 *
 * The fast paths use one SSA name per word, its "original" name. When the function's barriers
 * are all rewritten, tmi_cache_finish defines each original name at the function's start (a
 * transactional clone runs inside a transaction: the words are loaded; any other function
 * starts outside one: the "no tmkit" values) and gives it a new definition after every call and
 * asm, and at the start of every landing pad (a call that threw may have changed the mode),
 * wherever a fast path may follow before the next such place (live.cc).
 * GCC's incremental SSA update (create_new_def_for, update_ssa) then puts each use on the
 * definition that reaches it, with PHIs where paths meet. A load of the words tests first, as
 * every uncached fast path does, that the inline data resolved and that the thread has a
 * descriptor; otherwise the words take their "absent" values (absent()): the mode TMI_NO_MODE,
 * gl_wt's snapshot ~0, the clock's address the thread pointer, and every fast path takes its
 * call.
 *
 * A transaction's restart is an abnormal edge from each call that may abort to the block after
 * the begin call (the begin returns again there); like every block an abnormal or EH edge enters,
 * that block loads the words first (or, if it uses none itself, on its way out to the blocks
 * that do), so the restarted attempt never sees the aborted one's copies. Functions with
 * computed or non-local gotos keep the uncached fast paths. */
#include "cache.h"
#include "live.h"

#include "../../runtime/core/inline_layout.h"

static GTY(()) tree tmi_abi_decl;

/* ggc root for tmi_abi_decl (plugin.cc registers it). */
const struct ggc_root_tab tmi_roots[] = {
    {&tmi_abi_decl, 1, sizeof(tmi_abi_decl), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    LAST_GGC_ROOT_TAB,
};

/* extern const unsigned long long tmkit_inline_v1[8] __attribute__((weak)); */
tree tmi_abi_addr(tmi_emit *e)
{
    if (!tmi_abi_decl) {
        tree type = build_array_type_nelts(tmi_u64(), TM_INL_SIZE / 8);
        tree d = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier(TM_INLINE_SYMBOL), type);
        TREE_PUBLIC(d) = 1;
        DECL_EXTERNAL(d) = 1;
        DECL_ARTIFICIAL(d) = 1;
        TREE_USED(d) = 1;
        declare_weak(d);
        varpool_node::get_create(d);
        tmi_abi_decl = d;
    }
    return tmi_value(e, build_fold_addr_expr(tmi_abi_decl));
}

/* Where each word is: in the descriptor (from_abi false) or in the inline data. */
static const struct {
    bool from_abi;
    HOST_WIDE_INT off;
    unsigned bytes; /* 1: unsigned char; 8: u64 or pointer */
    bool pointer;
} fields[TMI_NFIELDS] = {
    [TMI_MODE] = {false, TM_INL_TX_MODE, 1, false},
    [TMI_TX] = {false, 0, 8, true}, /* the descriptor itself */
    [TMI_GL_SNAP] = {false, TM_INL_TX_SNAPSHOT, 8, false}, /* computed: value_of */
    [TMI_OWNED] = {false, TM_INL_TX_OWNED, 8, false},
    [TMI_OBOUND] = {false, TM_INL_TX_OBOUND, 8, false},
    [TMI_OBIT] = {false, TM_INL_TX_OBIT, 8, false},
    [TMI_SLOT] = {false, TM_INL_TX_OREC_SLOT, 8, false},
    [TMI_CLOCK] = {true, TM_INL_GL_CLOCK, 8, true},
    [TMI_ORECS] = {true, TM_INL_ORECS, 8, true},
};

static tree field_type(int f)
{
    return fields[f].pointer ? ptr_type_node : fields[f].bytes == 1 ? unsigned_char_type_node
                                                                    : tmi_u64();
}

/* The value of field f where the runtime is not there (TMI_CLOCK's, the thread pointer, is
 * loaded: `tp`). */
static tree absent(int f, tree tp)
{
    if (f == TMI_CLOCK)
        return tp;
    if (f == TMI_GL_SNAP)
        return build_int_cst(tmi_u64(), -1);
    return f == TMI_MODE ? build_int_cst(unsigned_char_type_node, TMI_NO_MODE)
                         : build_int_cst(field_type(f), 0);
}

/* The thread pointer (%fs:0, the TCB's address, whose first word is itself) as a pointer. */
static tree thread_pointer(tmi_emit *e)
{
    return tmi_op(e, NOP_EXPR, ptr_type_node, tmi_tcb_load(e, 0));
}

/* Field f's value from the runtime's descriptor tx and inline data abi. */
static tree value_of(tmi_emit *e, int f, tree tx, tree abi)
{
    if (f == TMI_TX)
        return tx;
    if (f == TMI_GL_SNAP) { /* snapshot | ~mask, mask all ones when the mode is gl_wt */
        tree m = tmi_load(e, unsigned_char_type_node, tx, TM_INL_TX_MODE, 1);
        tree snap = tmi_load(e, tmi_u64(), tx, TM_INL_TX_SNAPSHOT, 8);
        tree is = tmi_op(e, EQ_EXPR, boolean_type_node, m,
                         build_int_cst(unsigned_char_type_node, TM_INL_MODE_GLWT));
        tree mask = tmi_op(e, NEGATE_EXPR, tmi_u64(), tmi_op(e, NOP_EXPR, tmi_u64(), is));
        tree keep = tmi_op(e, BIT_AND_EXPR, tmi_u64(), snap, mask);
        return tmi_op(e, BIT_IOR_EXPR, tmi_u64(), keep, tmi_op(e, BIT_NOT_EXPR, tmi_u64(), mask));
    }
    return tmi_load(e, field_type(f), fields[f].from_abi ? abi : tx, fields[f].off,
                    fields[f].bytes);
}

static bool cache_on;            /* this function's words are cached */
static tree names[TMI_NFIELDS];  /* the original names, made when a fast path first asks */

void tmi_cache_start(function *fn)
{
    cache_on = !fn->has_nonlocal_label && !fn->has_forced_label_in_static;
    for (int f = 0; f < TMI_NFIELDS; f++)
        names[f] = NULL_TREE;
    basic_block bb;
    FOR_EACH_BB_FN(bb, fn)
    {
        gimple *last = last_stmt(bb);
        edge e;
        edge_iterator ei;
        FOR_EACH_EDGE(e, ei, bb->succs)
        if ((e->flags & EDGE_ABNORMAL) && !(last && is_gimple_call(last)))
            cache_on = false; /* a computed goto */
    }
}

void tmi_view_start(tmi_emit *e, tmi_view *v)
{
    v->tx = v->abi = NULL_TREE;
    if (cache_on)
        return;
    v->abi = tmi_abi_addr(e);
    tmi_if(e, NE_EXPR, v->abi, build_int_cst(TREE_TYPE(v->abi), 0), e->slow);
    tree word = tmi_tcb_load(e, TM_INL_TCB_WORD);
    tmi_if(e, NE_EXPR, word, tmi_cst(tmi_u64(), 0), e->slow);
    v->tx = tmi_op(e, NOP_EXPR, ptr_type_node, word);
}

tree tmi_field(tmi_emit *e, const tmi_view *v, enum tmi_field f)
{
    /* loaded where used: the slot is needed only for an orec we released, and the readers' bit
     * once per orec_eager read, where a load from the descriptor's line costs less than the
     * register it would hold across every loop (without it, a loop of gl_wt reads kept its
     * bound in a register instead of on the stack: 0.39 ns a read instead of 0.41) */
    if (cache_on && (f == TMI_SLOT || f == TMI_OBIT))
        return tmi_load(e, field_type(f), tmi_field(e, v, TMI_TX), fields[f].off, fields[f].bytes);
    if (cache_on) {
        if (!names[f])
            names[f] = make_ssa_name(field_type(f));
        return names[f];
    }
    return value_of(e, f, v->tx, v->abi);
}

/* Loads the used words on edge `on`: where the runtime is there, from it; else the absent
 * values. `orig`: these are the original names' definitions (the start of a clone); otherwise
 * each is a new definition of its original name. */
static void load_on(edge on, bool orig)
{
    location_t loc = UNKNOWN_LOCATION;
    basic_block head = split_edge(on);
    basic_block join = split_edge(single_succ_edge(head));
    remove_edge(single_succ_edge(head));
    tmi_emit e;
    tmi_emit_start(&e, head, join, join, loc);
    tree tp = names[TMI_CLOCK] ? thread_pointer(&e) : NULL_TREE;
    tree abi = tmi_abi_addr(&e);
    tmi_if(&e, NE_EXPR, abi, build_int_cst(TREE_TYPE(abi), 0), join);
    basic_block has_abi = e.cur;
    tree word = tmi_tcb_load(&e, TM_INL_TCB_WORD);
    tmi_if(&e, NE_EXPR, word, tmi_cst(tmi_u64(), 0), join);
    tree tx = tmi_op(&e, NOP_EXPR, ptr_type_node, word);
    tree val[TMI_NFIELDS];
    for (int f = 0; f < TMI_NFIELDS; f++) {
        if (!names[f])
            continue;
        val[f] = value_of(&e, f, tx, abi);
    }
    edge loaded = tmi_finish(&e);
    edge no_abi = find_edge(head, join), no_tx = find_edge(has_abi, join);
    for (int f = 0; f < TMI_NFIELDS; f++) {
        if (!names[f])
            continue;
        gphi *phi = create_phi_node(orig ? names[f] : copy_ssa_name(names[f]), join);
        add_phi_arg(phi, absent(f, tp), no_abi, loc);
        add_phi_arg(phi, absent(f, tp), no_tx, loc);
        add_phi_arg(phi, val[f], loaded, loc);
        if (!orig) {
            tree made = gimple_phi_result(phi);
            create_new_def_for(names[f], phi, gimple_phi_result_ptr(phi));
            release_ssa_name(made);
        }
    }
}

/* The original names as the absent values, on edge `on` (the start of a function that is not
 * a clone: its barriers all follow a begin, after which the words are loaded). */
static void absent_on(edge on)
{
    tmi_emit e;
    basic_block bb = split_edge(on);
    tmi_emit_start(&e, bb, bb, bb, UNKNOWN_LOCATION);
    tree tp = names[TMI_CLOCK] ? thread_pointer(&e) : NULL_TREE;
    for (int f = 0; f < TMI_NFIELDS; f++)
        if (names[f])
            gsi_insert_after(&e.gsi, gimple_build_assign(names[f], absent(f, tp)), GSI_NEW_STMT);
}

unsigned tmi_cache_finish(function *fn)
{
    hash_set<tree> used;
    for (int f = 0; f < TMI_NFIELDS; f++)
        if (names[f])
            used.add(names[f]);
    if (!cache_on || used.is_empty())
        return 0;
    tmi_reloads at;
    tmi_find_reloads(fn, used, &at);
    /* every place as an edge to load on; the splits keep the edges already collected valid */
    auto_vec<edge> on;
    for (unsigned i = 0; i < at.at_start.length(); i++)
        on.safe_push(split_block_after_labels(at.at_start[i]));
    for (unsigned i = 0; i < at.after.length(); i++)
        on.safe_push(split_block(gimple_bb(at.after[i]), at.after[i]));
    for (unsigned i = 0; i < at.on_edge.length(); i++)
        on.safe_push(at.on_edge[i]);
    edge start = single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fn));
    if (at.at_entry && decl_is_tm_clone(fn->decl))
        load_on(start, true);
    else
        absent_on(start);
    for (unsigned i = 0; i < on.length(); i++)
        load_on(on[i], false);
    return on.length() + at.at_entry;
}
