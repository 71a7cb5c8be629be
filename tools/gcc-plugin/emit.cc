/* GIMPLE building for the inline fast paths (the interface: emit.h). */
#include "emit.h"

/* x86-64's %fs address space (GCC's ADDR_SPACE_SEG_FS, the __seg_fs keyword). */
#define TMI_ADDR_SPACE_FS 1

static void append(tmi_emit *e, gimple *g)
{
    gimple_set_location(g, e->loc);
    gsi_insert_after(&e->gsi, g, GSI_NEW_STMT);
}

void tmi_emit_start(tmi_emit *e, basic_block head, basic_block slow, basic_block join,
                    location_t loc)
{
    e->cur = head;
    e->slow = slow;
    e->join = join;
    e->loc = loc;
    e->gsi = gsi_last_bb(head);
}

basic_block tmi_new_block(tmi_emit *e)
{
    basic_block bb = create_empty_bb(e->cur);
    if (current_loops)
        add_bb_to_loop(bb, e->cur->loop_father);
    bb->count = e->cur->count;
    return bb;
}

void tmi_continue(tmi_emit *e, basic_block bb)
{
    e->cur = bb;
    e->gsi = gsi_last_bb(bb);
}

tree tmi_u64(void) { return long_long_unsigned_type_node; }

tree tmi_uint(unsigned bytes)
{
    switch (bytes) {
    case 1: return unsigned_char_type_node;
    case 2: return short_unsigned_type_node;
    case 4: return unsigned_type_node;
    default: return long_long_unsigned_type_node;
    }
}

tree tmi_cst(tree type, unsigned HOST_WIDE_INT v) { return build_int_cstu(type, v); }

tree tmi_value(tmi_emit *e, tree expr)
{
    tree t = make_ssa_name(TREE_TYPE(expr));
    append(e, gimple_build_assign(t, expr));
    return t;
}

tree tmi_op(tmi_emit *e, enum tree_code code, tree type, tree a, tree b)
{
    tree t = make_ssa_name(type);
    gimple *g = b ? gimple_build_assign(t, code, a, b) : gimple_build_assign(t, code, a);
    append(e, g);
    return t;
}

/* MEM_REF of TYPE at base + off; the offset operand's type (char *) puts the access in alias
 * set 0, so that it conflicts with every other access: the inline code reads the program's
 * words and the runtime's through untyped addresses. */
static tree mem_at(tree type, tree base, HOST_WIDE_INT off, unsigned align_bytes)
{
    if (align_bytes && align_bytes * BITS_PER_UNIT < TYPE_ALIGN(type))
        type = build_aligned_type(type, align_bytes * BITS_PER_UNIT);
    tree ptr = build_pointer_type(char_type_node);
    return build2(MEM_REF, type, base, build_int_cst(ptr, off));
}

tree tmi_load(tmi_emit *e, tree type, tree base, HOST_WIDE_INT off, unsigned align_bytes)
{
    tree t = make_ssa_name(TYPE_MAIN_VARIANT(type));
    append(e, gimple_build_assign(t, mem_at(type, base, off, align_bytes)));
    return t;
}

void tmi_store(tmi_emit *e, tree type, tree base, HOST_WIDE_INT off, tree val)
{
    append(e, gimple_build_assign(mem_at(type, base, off, 0), val));
}

tree tmi_tcb_load(tmi_emit *e, HOST_WIDE_INT off)
{
    int quals = ENCODE_QUAL_ADDR_SPACE(TMI_ADDR_SPACE_FS);
    tree fs_u64 = build_qualified_type(tmi_u64(), quals);
    tree fs_ptr = build_pointer_type(fs_u64);
    tree ref = build2(MEM_REF, fs_u64, build_int_cst(fs_ptr, off), build_int_cst(fs_ptr, 0));
    tree t = make_ssa_name(tmi_u64());
    append(e, gimple_build_assign(t, ref));
    return t;
}

void tmi_fence(tmi_emit *e, int model)
{
    tree fn = builtin_decl_explicit(BUILT_IN_ATOMIC_THREAD_FENCE);
    append(e, gimple_build_call(fn, 1, build_int_cst(integer_type_node, model)));
}

tree tmi_atomic_load8(tmi_emit *e, tree ptr, int model)
{
    tree fn = builtin_decl_explicit(BUILT_IN_ATOMIC_LOAD_8);
    gcall *g = gimple_build_call(fn, 2, ptr, build_int_cst(integer_type_node, model));
    tree t = make_ssa_name(TREE_TYPE(TREE_TYPE(fn)));
    gimple_call_set_lhs(g, t);
    append(e, g);
    return t;
}

tree tmi_cas8(tmi_emit *e, tree ptr, tree expected, tree desired)
{
    tree fn = builtin_decl_explicit(BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_8);
    gcall *g = gimple_build_call(fn, 3, ptr, expected, desired);
    tree t = make_ssa_name(TREE_TYPE(TREE_TYPE(fn)));
    gimple_call_set_lhs(g, t);
    append(e, g);
    return t;
}

void tmi_if(tmi_emit *e, enum tree_code code, tree a, tree b, basic_block otherwise)
{
    append(e, gimple_build_cond(code, a, b, NULL_TREE, NULL_TREE));
    basic_block next = tmi_new_block(e);
    edge t = make_edge(e->cur, next, EDGE_TRUE_VALUE);
    edge f = make_edge(e->cur, otherwise, EDGE_FALSE_VALUE);
    t->probability = profile_probability::very_likely();
    f->probability = t->probability.invert();
    tmi_continue(e, next);
}

static edge jump(tmi_emit *e, basic_block bb)
{
    edge f = make_edge(e->cur, bb, EDGE_FALLTHRU);
    f->probability = profile_probability::always();
    return f;
}

void tmi_goto(tmi_emit *e, basic_block bb) { jump(e, bb); }

edge tmi_finish(tmi_emit *e) { return jump(e, e->join); }
