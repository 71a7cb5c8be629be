/* rbtree: an integer set kept in a red-black tree (parent pointers, NULL leaves, no shared
 * sentinel node, so transactions on different parts of the tree write disjoint memory).
 * Operations as in list.c: key uniform in [0, --range), --update-pct percent updates (half
 * inserts, half removes), the rest lookups; the tree starts half full. Inserts allocate and
 * removes free inside the transaction.
 * Invariant: search order, parent links, root black, no red node with a red child, the same
 * number of black nodes on every root-to-leaf path; size = initial + inserted - removed.
 */
#include "bench.h"

static long range = 1024, update_pct = 20;

static const bench_option options[] = {
    {"range", BENCH_LONG, &range, 2, 1 << 24, NULL, "keys are drawn from [0, range)"},
    {"update-pct", BENCH_LONG, &update_pct, 0, 100, NULL, "percent of operations that update"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

typedef struct rb_node {
    long key;
    struct rb_node *left, *right, *parent;
    long red;
} rb_node;

static rb_node *root;
static long initial_size;

TM_SAFE static inline int is_red(const rb_node *n)
{
    return n && n->red;
}

/* Makes x's right child y take x's place; x becomes y's left child. */
TM_SAFE static void rotate_left(rb_node *x)
{
    rb_node *y = x->right, *p = x->parent;
    x->right = y->left;
    if (y->left)
        y->left->parent = x;
    y->parent = p;
    if (!p)
        root = y;
    else if (p->left == x)
        p->left = y;
    else
        p->right = y;
    y->left = x;
    x->parent = y;
}

/* The mirror image of rotate_left. */
TM_SAFE static void rotate_right(rb_node *x)
{
    rb_node *y = x->left, *p = x->parent;
    x->left = y->right;
    if (y->right)
        y->right->parent = x;
    y->parent = p;
    if (!p)
        root = y;
    else if (p->right == x)
        p->right = y;
    else
        p->left = y;
    y->right = x;
    x->parent = y;
}

TM_SAFE static int rb_contains(long key)
{
    rb_node *n = root;
    while (n && n->key != key)
        n = key < n->key ? n->left : n->right;
    return n != NULL;
}

/* After inserting red node z: while z and its parent are both red, recolour (red uncle) or
 * rotate (black uncle) moving the violation up; the root ends black. */
TM_SAFE static void insert_fixup(rb_node *z)
{
    while (is_red(z->parent)) {
        rb_node *p = z->parent, *g = p->parent; /* p is red, so it is not the root: g exists */
        if (p == g->left) {
            rb_node *u = g->right;
            if (is_red(u)) {
                p->red = 0;
                u->red = 0;
                g->red = 1;
                z = g;
                continue;
            }
            if (z == p->right) {
                rotate_left(p);
                z = p;
                p = z->parent;
            }
            p->red = 0;
            g->red = 1;
            rotate_right(g);
        } else {
            rb_node *u = g->left;
            if (is_red(u)) {
                p->red = 0;
                u->red = 0;
                g->red = 1;
                z = g;
                continue;
            }
            if (z == p->left) {
                rotate_right(p);
                z = p;
                p = z->parent;
            }
            p->red = 0;
            g->red = 1;
            rotate_left(g);
        }
    }
    if (root->red) /* test first: an unconditional store would make every insert write the root */
        root->red = 0;
}

TM_SAFE static int rb_insert(long key)
{
    rb_node *p = NULL, *c = root;
    while (c) {
        if (c->key == key)
            return 0;
        p = c;
        c = key < c->key ? c->left : c->right;
    }
    rb_node *n = malloc(sizeof *n);
    n->key = key;
    n->left = n->right = NULL;
    n->parent = p;
    n->red = 1;
    if (!p)
        root = n;
    else if (key < p->key)
        p->left = n;
    else
        p->right = n;
    insert_fixup(n);
    return 1;
}

/* Puts subtree v (possibly NULL) where subtree u was. */
TM_SAFE static void replace_child(rb_node *u, rb_node *v)
{
    rb_node *p = u->parent;
    if (!p)
        root = v;
    else if (p->left == u)
        p->left = v;
    else
        p->right = v;
    if (v)
        v->parent = p;
}

/* A black node was removed from above x (x may be NULL: then xp is its parent): x's side has
 * one black node too few. Push the deficit up, or end it by rotation and recolouring. */
TM_SAFE static void remove_fixup(rb_node *x, rb_node *xp)
{
    while (x != root && !is_red(x)) {
        if (x == xp->left) {
            rb_node *w = xp->right; /* exists: its side has at least one black node */
            if (w->red) {
                w->red = 0;
                xp->red = 1;
                rotate_left(xp);
                w = xp->right;
            }
            if (!is_red(w->left) && !is_red(w->right)) {
                w->red = 1;
                x = xp;
                xp = x->parent;
                continue;
            }
            if (!is_red(w->right)) {
                w->left->red = 0;
                w->red = 1;
                rotate_right(w);
                w = xp->right;
            }
            w->red = xp->red;
            xp->red = 0;
            w->right->red = 0;
            rotate_left(xp);
        } else {
            rb_node *w = xp->left;
            if (w->red) {
                w->red = 0;
                xp->red = 1;
                rotate_right(xp);
                w = xp->left;
            }
            if (!is_red(w->left) && !is_red(w->right)) {
                w->red = 1;
                x = xp;
                xp = x->parent;
                continue;
            }
            if (!is_red(w->left)) {
                w->right->red = 0;
                w->red = 1;
                rotate_left(w);
                w = xp->left;
            }
            w->red = xp->red;
            xp->red = 0;
            w->left->red = 0;
            rotate_right(xp);
        }
        x = root;
        break;
    }
    if (x && x->red)
        x->red = 0;
}

TM_SAFE static int rb_remove(long key)
{
    rb_node *z = root;
    while (z && z->key != key)
        z = key < z->key ? z->left : z->right;
    if (!z)
        return 0;
    rb_node *x, *xp;
    long removed_red;
    if (!z->left || !z->right) {
        /* z has at most one child: that child takes its place. */
        x = z->left ? z->left : z->right;
        xp = z->parent;
        removed_red = z->red;
        replace_child(z, x);
    } else {
        /* z's successor y (leftmost of the right subtree) takes z's place and colour. */
        rb_node *y = z->right;
        while (y->left)
            y = y->left;
        removed_red = y->red;
        x = y->right;
        if (y->parent == z) {
            xp = y;
        } else {
            xp = y->parent;
            replace_child(y, x);
            y->right = z->right;
            y->right->parent = y;
        }
        replace_child(z, y);
        y->left = z->left;
        y->left->parent = y;
        y->red = z->red;
    }
    if (!removed_red)
        remove_fixup(x, xp);
    free(z);
    return 1;
}

static int bench_setup(int threads)
{
    bench_thread r = {.rng = 0x5EED5EED5EEDull};
    while (initial_size < range / 2)
        initial_size += rb_insert(bench_rand_below(&r, range));
    return 0;
}

static void bench_thread_init(bench_thread *t)
{
}

/* count[0]: successful inserts; count[1]: successful removes; count[2]: lookups that hit. */
static inline void bench_op(bench_thread *t)
{
    long key = bench_rand_below(t, range), pick = bench_rand_below(t, 200);
    int done;
    if (pick < update_pct) {
        TXN_BEGIN
        done = rb_insert(key);
        TXN_END
        t->count[0] += done;
    } else if (pick < 2 * update_pct) {
        TXN_BEGIN
        done = rb_remove(key);
        TXN_END
        t->count[1] += done;
    } else {
        TXN_BEGIN
        done = rb_contains(key);
        TXN_END
        t->count[2] += done;
    }
}

/* Checks the subtree at n (keys in (lo, hi)); returns its black height, or -1 if broken. */
static long check_subtree(const rb_node *n, const rb_node *parent, long lo, long hi, long *size)
{
    if (!n)
        return 1;
    if (n->parent != parent || n->key <= lo || n->key >= hi)
        return -1;
    if (n->red && (is_red(n->left) || is_red(n->right)))
        return -1;
    ++*size;
    long l = check_subtree(n->left, n, lo, n->key, size);
    long r = check_subtree(n->right, n, n->key, hi, size);
    if (l < 0 || l != r)
        return -1;
    return l + !n->red;
}

static long final_size = -1, final_height = -1;

static int bench_check(bench_thread *ts, int n)
{
    long expect = initial_size, size = 0;
    for (int i = 0; i < n; i++)
        expect += ts[i].count[0] - ts[i].count[1];
    if (is_red(root))
        return 0;
    final_height = check_subtree(root, NULL, -1, range, &size);
    final_size = size;
    return final_height > 0 && size == expect;
}

static void bench_report(FILE *out)
{
    fprintf(out, " size=%ld black_height=%ld", final_size, final_height);
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, "rbtree", options);
}
