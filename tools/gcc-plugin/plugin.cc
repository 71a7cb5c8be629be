/* tmkit_inline: a GCC 12 plugin that inlines tmkit's barrier fast paths into -fgnu-tm code.
 *
 * GCC's TM lowering (trans-mem.cc) turns every load and store inside a transaction, or in a
 * function's transactional clone, into a call of an _ITM_R* or _ITM_W* function of the runtime:
 * an out-of-line call through the PLT, which costs more than the barrier's work in the common
 * modes and makes the caller spill its registers around it. This plugin adds a pass right after
 * the lowering's last pass (tmedge) that puts, in front of each such call for a 1-8 byte integer
 * or pointer, a copy of the runtime's own fast path (paths.cc); the call stays, as the path
 * every test that fails goes to. Use: gcc -fgnu-tm -fplugin=$(tmkit plugin) ...
 *
 * The result runs on any runtime: the inlined code reads the runtime's data only after a weak
 * reference to it (core/inline_layout.h) has resolved, which under GCC's libitm it never does.
 * At -O0 nothing is changed. Option: -fplugin-arg-tmkit_inline-report prints, per function, how
 * many calls got a fast path (a note). */
#include "cache.h"
#include "paths.h"

#include "plugin-version.h"

int plugin_is_GPL_compatible; /* GCC loads only plugins that say so; see README.md */

static bool tmi_report;

/* Does call g get a fast path, and what kind and size? */
static bool candidate(gimple *g, bool *is_read, unsigned *size)
{
    if (!is_gimple_call(g) || !gimple_call_builtin_p(g, BUILT_IN_NORMAL))
        return false;
    switch (DECL_FUNCTION_CODE(gimple_call_fndecl(g))) {
#define R(N)                                                                                     \
    case BUILT_IN_TM_LOAD_##N: case BUILT_IN_TM_LOAD_RAR_##N: case BUILT_IN_TM_LOAD_RAW_##N:      \
    case BUILT_IN_TM_LOAD_RFW_##N:                                                              \
        *is_read = true, *size = N;                                                             \
        return gimple_call_lhs(g) && TREE_CODE(gimple_call_lhs(g)) == SSA_NAME;
#define W(N)                                                                                     \
    case BUILT_IN_TM_STORE_##N: case BUILT_IN_TM_STORE_WAR_##N: case BUILT_IN_TM_STORE_WAW_##N:   \
        *is_read = false, *size = N;                                                            \
        return true;
    R(1) R(2) R(4) R(8) W(1) W(2) W(4) W(8)
#undef R
#undef W
    default:
        return false;
    }
}

/* Splits the call's block so that the call is alone in `slow` between `head` (whatever came
 * before it, with no successor yet) and `join` (whatever comes after). The call keeps its own
 * edges (a call in a function with transactions has an abnormal edge to the restart). */
static bool isolate(gcall *call, basic_block *head, basic_block *slow, basic_block *join)
{
    basic_block bb = gimple_bb(call);
    gimple_stmt_iterator gsi = gsi_for_stmt(call);
    gsi_prev(&gsi);
    edge in = gsi_end_p(gsi) ? split_block_after_labels(bb) : split_block(bb, gsi_stmt(gsi));
    *head = in->src;
    *slow = in->dest;
    if (gsi_stmt(gsi_last_bb(*slow)) == call) {
        edge ft = find_fallthru_edge((*slow)->succs);
        if (!ft)
            return false;
        *join = split_edge(ft);
    } else {
        *join = split_block(*slow, call)->dest;
    }
    remove_edge(in);
    return true;
}

static void rewrite(gcall *call, bool is_read, unsigned size)
{
    location_t loc = gimple_location(call);
    basic_block head, slow, join;
    if (!isolate(call, &head, &slow, &join))
        return;
    tmi_emit e;
    tmi_emit_start(&e, head, slow, join, loc);
    auto_vec<edge> ends;
    tree addr = gimple_call_arg(call, 0);
    if (!is_read) {
        tmi_emit_write(&e, addr, gimple_call_arg(call, 1), size, &ends);
        return;
    }
    tree lhs = gimple_call_lhs(call);
    auto_vec<tree> vals;
    tmi_emit_read(&e, addr, TREE_TYPE(lhs), size, &ends, &vals);
    tree from_call = copy_ssa_name(lhs);
    gimple_call_set_lhs(call, from_call);
    update_stmt(call);
    gphi *phi = create_phi_node(lhs, join);
    add_phi_arg(phi, from_call, find_edge(slow, join), loc);
    for (unsigned i = 0; i < ends.length(); i++)
        add_phi_arg(phi, vals[i], ends[i], loc);
}

static const pass_data tmi_pass_data = {
    GIMPLE_PASS, "tmkit_inline", OPTGROUP_NONE, TV_NONE, PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};

struct tmi_pass : gimple_opt_pass {
    tmi_pass(gcc::context *ctxt) : gimple_opt_pass(tmi_pass_data, ctxt) {}
    bool gate(function *) final override { return flag_tm && optimize > 0; }
    opt_pass *clone() final override { return new tmi_pass(m_ctxt); }
    unsigned int execute(function *fn) final override
    {
        auto_vec<gcall *> calls;
        auto_vec<unsigned> sizes;
        auto_vec<bool> reads;
        basic_block bb;
        FOR_EACH_BB_FN(bb, fn)
        {
            for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
                bool is_read;
                unsigned size;
                if (candidate(gsi_stmt(gsi), &is_read, &size)) {
                    calls.safe_push(as_a<gcall *>(gsi_stmt(gsi)));
                    sizes.safe_push(size);
                    reads.safe_push(is_read);
                }
            }
        }
        if (calls.is_empty())
            return 0;
        free_dominance_info(CDI_DOMINATORS);
        free_dominance_info(CDI_POST_DOMINATORS);
        tmi_cache_start(fn);
        for (unsigned i = 0; i < calls.length(); i++)
            rewrite(calls[i], reads[i], sizes[i]);
        unsigned loads = tmi_cache_finish(fn);
        if (tmi_report)
            inform(DECL_SOURCE_LOCATION(fn->decl),
                   "%<tmkit_inline%>: %u barrier calls in %qD got a fast path; the runtime words "
                   "are loaded in %u places",
                   calls.length(), fn->decl, loads);
        if (current_loops)
            loops_state_set(LOOPS_NEED_FIXUP);
        mark_virtual_operands_for_renaming(fn);
        update_ssa(TODO_update_ssa);
        return TODO_cleanup_cfg;
    }
};

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("%<tmkit_inline%>: built for GCC %s, loaded by GCC %s", gcc_version.basever,
              version->basever);
        return 1;
    }
    for (int i = 0; i < info->argc; i++) {
        if (!strcmp(info->argv[i].key, "report") && !info->argv[i].value) {
            tmi_report = true;
        } else {
            error("%<tmkit_inline%>: unknown option %<-fplugin-arg-%s-%s%>", info->base_name,
                  info->argv[i].key);
            return 1;
        }
    }
    struct register_pass_info pass;
    pass.pass = new tmi_pass(g);
    pass.reference_pass_name = "tmedge";
    pass.ref_pass_instance_number = 1;
    pass.pos_op = PASS_POS_INSERT_AFTER;
    register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
    register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL, (void *)tmi_roots);
    static struct plugin_info about = {"1", "inlines tmkit's barrier fast paths (-fgnu-tm)"};
    register_callback(info->base_name, PLUGIN_INFO, NULL, &about);
    return 0;
}
