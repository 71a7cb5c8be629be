/* The inline fast paths: GIMPLE copies of the runtime's own barrier fast paths for naturally
 * aligned accesses of 1, 2, 4 and 8 bytes in the modes the default runs instrumented (gl_wt,
 * orec_eager and its unlogged read-only attempts) and in the exclusive modes (direct and
 * serial_undo, where a transaction that may cancel runs its instrumented path alone):
 * runtime/abi/barrier_defs.h, algo/fast.h, algo/orec.h, core/serial_modes.c. Each step that the
 * runtime's fast path would leave for its general path leaves here for the original call, which
 * then does everything (and may restart the transaction), so the inlined code never decides
 * anything the runtime's own barrier would not.
 *
 * What a path reads of the runtime's per-attempt words (the mode, the snapshot, the bounds, the
 * clock's and the orec table's addresses) comes from tmi_field (cache.cc): names the whole
 * function shares, loaded after each call, or, where a function cannot share them, loads each
 * path makes after its own two tests. Either way the words are read only where the weak
 * reference to the runtime's inline data (core/inline_layout.h) resolved (GCC's libitm, or a
 * tmkit with another layout, leaves it 0) and the thread has a descriptor; elsewhere the mode
 * matches no path and every access takes its call. Memory orders are those of the runtime's
 * fast paths, each named where it is emitted; on x86-64 they cost no instruction. */
#include "paths.h"

#include "../../runtime/core/inline_layout.h"
#include "cache.h"

/* The address as an SSA name: a MEM_REF's base may be a name or the address of a declaration,
 * not the address of a component (&s.f, &a[3]), which the call's argument may be. */
static tree as_name(tmi_emit *e, tree addr)
{
    return TREE_CODE(addr) == SSA_NAME ? addr : tmi_value(e, addr);
}

static tree addr_word(tmi_emit *e, tree addr) { return tmi_op(e, NOP_EXPR, tmi_u64(), addr); }

/* An orec we hold: our descriptor's address with the lock bit (orec.h: tm_orec_lock_of). */
static tree locked_by_us(tmi_emit *e, const tmi_view *v)
{
    tree word = tmi_op(e, NOP_EXPR, tmi_u64(), tmi_field(e, v, TMI_TX));
    tree bit = tmi_cst(tmi_u64(), 1ull << TM_INL_OREC_LOCK_BIT);
    return tmi_op(e, BIT_IOR_EXPR, tmi_u64(), word, bit);
}

/* if ((addr & (size - 1)) != 0) take the call; nothing when GCC knows the address aligned
 * (`known`: what get_pointer_alignment said of the call's argument). */
static void require_aligned(tmi_emit *e, bool known, tree a64, unsigned size)
{
    if (size == 1 || known)
        return;
    tree low = tmi_op(e, BIT_AND_EXPR, tmi_u64(), a64, tmi_cst(tmi_u64(), size - 1));
    tmi_if(e, EQ_EXPR, low, tmi_cst(tmi_u64(), 0), e->slow);
}

/* &orecs[((addr >> shift) & (2^bits - 1)) * 2] (algo/orec.h: tm_orec_of) */
static tree orec_of(tmi_emit *e, const tmi_view *v, tree a64)
{
    tree orecs = tmi_field(e, v, TMI_ORECS);
    tree w = tmi_op(e, RSHIFT_EXPR, tmi_u64(), a64,
                    build_int_cst(integer_type_node, TM_INL_OREC_SHIFT));
    tree i = tmi_op(e, BIT_AND_EXPR, tmi_u64(), w,
                    tmi_cst(tmi_u64(), (1ull << TM_INL_OREC_BITS) - 1));
    tree off = tmi_op(e, LSHIFT_EXPR, tmi_u64(), i, build_int_cst(integer_type_node, 4));
    tree soff = tmi_op(e, NOP_EXPR, sizetype, off);
    return tmi_op(e, POINTER_PLUS_EXPR, ptr_type_node, orecs, soff);
}

/* if ((cur & (LOCK | slot mask)) != tx->orec_slot) take the call (orec.h: tm_eager_slot_ok) */
static void require_own_slot(tmi_emit *e, const tmi_view *v, tree cur)
{
    unsigned HOST_WIDE_INT m = (1ull << TM_INL_OREC_LOCK_BIT) | ((1ull << TM_INL_OREC_SLOT_BITS) - 1);
    tree masked = tmi_op(e, BIT_AND_EXPR, tmi_u64(), cur, tmi_cst(tmi_u64(), m));
    tree slot = tmi_field(e, v, TMI_SLOT);
    tmi_if(e, EQ_EXPR, masked, slot, e->slow);
}

/* if (!(o's readers' word & tx->obit)) take the call: relaxed, as in tm_eager_marked. */
static void require_marked(tmi_emit *e, const tmi_view *v, tree o)
{
    tree readers = tmi_load(e, tmi_u64(), o, 8, 8);
    tree obit = tmi_field(e, v, TMI_OBIT);
    tree both = tmi_op(e, BIT_AND_EXPR, tmi_u64(), readers, obit);
    tmi_if(e, NE_EXPR, both, tmi_cst(tmi_u64(), 0), e->slow);
}

/* orec_eager, logged (tm_eager_read_fast) or not (tm_eager_ro_read_fast), given the value `val`
 * loaded before an acquire fence (value before orec): the orec with acquire (before the
 * readers' word); the orec no newer than the snapshot, or ours (logged attempts: nothing to
 * log), or released by us; our readers' bit set; then a log entry, or a count. */
static void read_eager(tmi_emit *e, const tmi_view *v, tree addr, bool known, tree val,
                       unsigned size, bool logged, auto_vec<edge> *ends, auto_vec<tree> *vals)
{
    tree a64 = addr_word(e, addr);
    require_aligned(e, known, a64, size);
    tree o = orec_of(e, v, a64);
    tree cur = tmi_atomic_load8(e, o, MEMMODEL_ACQUIRE);
    tree bound = tmi_field(e, v, TMI_OBOUND);
    basic_block above = tmi_new_block(e);
    tmi_if(e, LE_EXPR, cur, bound, above);
    basic_block accept = e->cur;

    tmi_continue(e, above);
    if (logged) {
        basic_block own = tmi_new_block(e);
        tree mine = locked_by_us(e, v);
        tmi_if(e, NE_EXPR, cur, mine, own);
        require_own_slot(e, v, cur);
        tmi_goto(e, accept);
        tmi_continue(e, own);
        ends->safe_push(tmi_finish(e));
        vals->safe_push(val);
    } else {
        require_own_slot(e, v, cur);
        tmi_goto(e, accept);
    }

    tmi_continue(e, accept);
    tree tx = tmi_field(e, v, TMI_TX);
    if (logged) {
        tree lcur = tmi_load(e, ptr_type_node, tx, TM_INL_TX_OLOG_CUR, 8);
        tree lend = tmi_load(e, ptr_type_node, tx, TM_INL_TX_OLOG_END, 8);
        tmi_if(e, NE_EXPR, lcur, lend, e->slow);
        require_marked(e, v, o);
        tree next = tmi_op(e, POINTER_PLUS_EXPR, ptr_type_node, lcur, size_int(8));
        tmi_store(e, ptr_type_node, tx, TM_INL_TX_OLOG_CUR, next);
        tmi_store(e, ptr_type_node, lcur, 0, o);
    } else {
        require_marked(e, v, o);
        tree n = tmi_load(e, tmi_u64(), tx, TM_INL_TX_OLOG_UNLOGGED, 8);
        tree n1 = tmi_op(e, PLUS_EXPR, tmi_u64(), n, tmi_cst(tmi_u64(), 1));
        tmi_store(e, tmi_u64(), tx, TM_INL_TX_OLOG_UNLOGGED, n1);
    }
    ends->safe_push(tmi_finish(e));
    vals->safe_push(val);
}

/* The undo record of the word about to be written (fast.h: tm_undo_push_fast): its old value
 * zero-extended, its address, its size; the log must have room. */
static void undo_push(tmi_emit *e, tree tx, tree addr, tree a64, unsigned size)
{
    tree len = tmi_load(e, tmi_u64(), tx, TM_INL_TX_UNDO_LEN, 8);
    tree cap = tmi_load(e, tmi_u64(), tx, TM_INL_TX_UNDO_CAP, 8);
    tree need = tmi_op(e, PLUS_EXPR, tmi_u64(), len, tmi_cst(tmi_u64(), TM_INL_UNDO_RECORD));
    tmi_if(e, LE_EXPR, need, cap, e->slow);
    tree buf = tmi_load(e, ptr_type_node, tx, TM_INL_TX_UNDO_BUF, 8);
    tree slen = tmi_op(e, NOP_EXPR, sizetype, len);
    tree rec = tmi_op(e, POINTER_PLUS_EXPR, ptr_type_node, buf, slen);
    tree old = tmi_load(e, tmi_uint(size), addr, 0, size);
    tree old64 = tmi_op(e, NOP_EXPR, tmi_u64(), old);
    tmi_store(e, tmi_u64(), rec, 0, old64);
    tmi_store(e, tmi_u64(), rec, 8, a64);
    tmi_store(e, tmi_u64(), rec, 16, tmi_cst(tmi_u64(), size));
    tmi_store(e, tmi_u64(), tx, TM_INL_TX_UNDO_LEN, need);
    tree n = tmi_load(e, tmi_u64(), tx, TM_INL_TX_UNDO_COUNT, 8);
    tree n1 = tmi_op(e, PLUS_EXPR, tmi_u64(), n, tmi_cst(tmi_u64(), 1));
    tmi_store(e, tmi_u64(), tx, TM_INL_TX_UNDO_COUNT, n1);
}

void tmi_emit_read(tmi_emit *e, tree addr, tree type, unsigned size, auto_vec<edge> *ends,
                   auto_vec<tree> *vals)
{
    tmi_view v;
    bool known = get_pointer_alignment(addr) >= size * BITS_PER_UNIT;
    tmi_view_start(e, &v);
    addr = as_name(e, addr);
    /* Every mode's path starts with the value at any alignment and an acquire fence (the value
     * before the clock or the orec; pairs with the writers' release fences). gl_wt's read (fast.h:
     * tm_gl_read_fast) is then done when the clock still equals the snapshot: TMI_GL_SNAP is ~0,
     * which the clock never is, in every other mode, so gl_wt's path tests no mode at all and is
     * laid out straight. */
    tree val = tmi_load(e, type, addr, 0, 1);
    tmi_fence(e, MEMMODEL_ACQUIRE);
    tree now = tmi_load(e, tmi_u64(), tmi_field(e, &v, TMI_CLOCK), 0, 8);
    basic_block others = tmi_new_block(e), eager = tmi_new_block(e), ro = tmi_new_block(e);
    tmi_if(e, EQ_EXPR, now, tmi_field(e, &v, TMI_GL_SNAP), others);
    ends->safe_push(tmi_finish(e));
    vals->safe_push(val);

    tmi_continue(e, others);
    tree mode = tmi_field(e, &v, TMI_MODE); /* gl_wt (its clock moved) and the rest: the call */
    tmi_if(e, NE_EXPR, mode, build_int_cst(unsigned_char_type_node, TM_INL_MODE_OREC_RO), ro);
    tmi_if(e, NE_EXPR, mode, build_int_cst(unsigned_char_type_node, TM_INL_MODE_OREC_EAGER),
           eager);
    /* the exclusive modes (direct, serial_undo): the plain value, as the runtime's
     * TM_READ_SMALL */
    tmi_if(e, LE_EXPR, mode, build_int_cst(unsigned_char_type_node, TM_INL_MODE_SERIAL_UNDO),
           e->slow);
    ends->safe_push(tmi_finish(e));
    vals->safe_push(val);
    tmi_continue(e, ro);
    read_eager(e, &v, addr, known, val, size, false, ends, vals);
    tmi_continue(e, eager);
    read_eager(e, &v, addr, known, val, size, true, ends, vals);
}

/* gl_wt (barrier_defs.h: TM_WRITE_SMALL) while the attempt holds the global lock, and
 * orec_eager (tm_eager_write_fast) when the word's orec is ours (relaxed load: only we change an
 * orec we hold; any other value is checked again by the CAS) or lockable: an undo record, then
 * the store in place (relaxed, as tm_store_n). */
/* orec_eager's lock of an orec that is not ours yet (tm_eager_write_fast): lockable as a read
 * would accept it (no newer than the snapshot, or released by us), a free lock record, then one
 * CAS from the value seen to ours (GCC's __sync CAS: a full barrier, at least the runtime's
 * acquire on success), a release fence (our in-place stores stay after the lock for readers'
 * orec loads), and the record. A lost CAS takes the call, which finds the orec as it is. */
static void lock_orec(tmi_emit *e, const tmi_view *v, tree o, tree cur, tree mine)
{
    tree bound = tmi_field(e, v, TMI_OBOUND);
    basic_block lockable = tmi_new_block(e);
    tmi_if(e, GT_EXPR, cur, bound, lockable);
    require_own_slot(e, v, cur);
    tmi_goto(e, lockable);
    tmi_continue(e, lockable);
    tree locks = tmi_load(e, ptr_type_node, tmi_field(e, v, TMI_TX), TM_INL_TX_ALGO_STATE, 8);
    tree n = tmi_load(e, tmi_u64(), locks, TM_INL_LOCKS_N, 8);
    tree cap = tmi_load(e, tmi_u64(), locks, TM_INL_LOCKS_CAP, 8);
    tmi_if(e, NE_EXPR, n, cap, e->slow);
    tree won = tmi_cas8(e, o, cur, mine);
    tmi_if(e, NE_EXPR, won, build_int_cst(TREE_TYPE(won), 0), e->slow);
    tmi_fence(e, MEMMODEL_RELEASE);
    tree off = tmi_op(e, MULT_EXPR, tmi_u64(), n, tmi_cst(tmi_u64(), TM_INL_LOCKREC_SIZE));
    tree rec = tmi_op(e, POINTER_PLUS_EXPR, ptr_type_node, locks, tmi_op(e, NOP_EXPR, sizetype, off));
    tmi_store(e, ptr_type_node, rec, TM_INL_LOCKS_REC + TM_INL_LOCKREC_OREC, o);
    tree n1 = tmi_op(e, PLUS_EXPR, tmi_u64(), n, tmi_cst(tmi_u64(), 1));
    tmi_store(e, tmi_u64(), locks, TM_INL_LOCKS_N, n1);
}

void tmi_emit_write(tmi_emit *e, tree addr, tree val, unsigned size, auto_vec<edge> *ends)
{
    tmi_view v;
    bool known = get_pointer_alignment(addr) >= size * BITS_PER_UNIT;
    tmi_view_start(e, &v);
    addr = as_name(e, addr);
    tree a64 = addr_word(e, addr);
    require_aligned(e, known, a64, size);
    tree mode = tmi_field(e, &v, TMI_MODE);
    basic_block others = tmi_new_block(e), own = tmi_new_block(e), direct = tmi_new_block(e);
    tmi_if(e, EQ_EXPR, mode, build_int_cst(unsigned_char_type_node, TM_INL_MODE_GLWT), others);
    tree owned = tmi_field(e, &v, TMI_OWNED); /* gl_wt, laid out straight as for reads */
    tmi_if(e, NE_EXPR, owned, tmi_cst(tmi_u64(), 0), e->slow);
    tmi_goto(e, own);

    tmi_continue(e, others);
    tmi_if(e, NE_EXPR, mode, build_int_cst(unsigned_char_type_node, TM_INL_MODE_SERIAL_UNDO),
           own);
    tmi_if(e, NE_EXPR, mode, build_int_cst(unsigned_char_type_node, TM_INL_MODE_DIRECT), direct);
    tmi_if(e, EQ_EXPR, mode, build_int_cst(unsigned_char_type_node, TM_INL_MODE_OREC_EAGER),
           e->slow);
    tree o = orec_of(e, &v, a64);
    tree cur = tmi_load(e, tmi_u64(), o, 0, 8);
    tree mine = locked_by_us(e, &v);
    /* orec_eager, gl_wt and serial_undo end in one block: the undo record and the store */
    tmi_if(e, NE_EXPR, cur, mine, own);
    lock_orec(e, &v, o, cur, mine);
    tmi_goto(e, own);

    tmi_continue(e, direct); /* serial-irrevocable: the store alone */
    tmi_store(e, TREE_TYPE(val), addr, 0, val);
    ends->safe_push(tmi_finish(e));

    tmi_continue(e, own);
    undo_push(e, tmi_field(e, &v, TMI_TX), addr, a64, size);
    tmi_store(e, TREE_TYPE(val), addr, 0, val);
    ends->safe_push(tmi_finish(e));
}
