/* Lock groups: what group.c (the protocol) and group_held.c (a thread's held groups) share. */
#ifndef TMKIT_EXT_GROUP_IMPL_H
#define TMKIT_EXT_GROUP_IMPL_H

#include "ext.h"

#define TM_GROUP_HELD 1u    /* state: a writer holds it (or is draining its readers) */
#define TM_GROUP_SLEEPERS 2u /* state: somebody sleeps on the state word */

/* tm_group_t's first word (include/tmkit/group.h); the rest is the libitm fallback's. */
typedef _Atomic uint32_t tm_group_state;

/* group_held.c */
TM_HIDDEN int tm_group_sort(void *const *list, tm_group_state **out); /* by address, no repeats */
TM_HIDDEN int tm_group_find(tm_ext_state *e, tm_group_state *g);     /* the slot, or -1 */
TM_HIDDEN int tm_group_free_slot(tm_ext_state *e, tm_group_state *g, const char *op);
TM_HIDDEN void tm_group_free(tm_ext_state *e, int i);
/* group.c: takes g in shared mode into slot `slot` (waits while a writer holds it). */
TM_HIDDEN void tm_group_enter_one(tm_ext_state *e, int slot, tm_group_state *g);
/* group.c: gives up an exclusive hold, waking the sleepers. */
TM_HIDDEN void tm_group_unlock_one(tm_group_state *g);

#endif
