/* chtest.c — a Lua module for the channels tests only: makes a Lua state run out of memory on
 * demand, and reports how much the C heap holds (oom.lua).
 *
 *   local chtest = require "chtest"
 *   chtest.failafter(k)  -- in the calling state (all its coroutines): the next k allocations
 *                        -- succeed, every later one fails until chtest.unlimit(); frees and
 *                        -- shrinking reallocations always succeed
 *   chtest.unlimit()     -- the state's own allocator again
 *   chtest.heap()        -- bytes the C heap has handed out (glibc mallinfo2: arenas + mmap)
 *
 * The wrapper forwards to the allocator the state had, so it works on any state, the
 * interpreter's or a channels process's, set and removed at any time. Its bookkeeping lives in
 * static slots, one per limited state at a time, so nothing of it is on the heap. The module is
 * linked with -z nodelete: a state closing with the wrapper still set must not call into an
 * unloaded library.
 */
#include <lauxlib.h>
#include <lua.h>
#include <malloc.h>
#include <stdatomic.h>

#define SLOTS 64

typedef struct {
    atomic_int used;
    lua_Alloc f;
    void *ud;
    long left; /* allocations still allowed; touched only by the thread running the state */
} slot;

static slot slots[SLOTS];

static void *limited(void *ud, void *ptr, size_t osize, size_t nsize)
{
    slot *s = ud;
    int grows = nsize > 0 && (ptr == NULL || nsize > osize);
    if (grows) {
        if (s->left <= 0)
            return NULL;
        s->left--;
    }
    return s->f(s->ud, ptr, osize, nsize);
}

static int unlimit(lua_State *L)
{
    void *ud;
    if (lua_getallocf(L, &ud) == limited) {
        slot *s = ud;
        lua_setallocf(L, s->f, s->ud);
        atomic_store(&s->used, 0);
    }
    return 0;
}

static int failafter(lua_State *L)
{
    lua_Integer k = luaL_checkinteger(L, 1);
    luaL_argcheck(L, k >= 0, 1, "a count of allocations >= 0");
    unlimit(L);
    for (int i = 0; i < SLOTS; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&slots[i].used, &free_slot, 1)) {
            slot *s = &slots[i];
            s->left = (long)k;
            s->f = lua_getallocf(L, &s->ud);
            lua_setallocf(L, limited, s);
            return 0; /* nothing pushed: a result would be an allocation */
        }
    }
    return luaL_error(L, "chtest: more than %d states limited at once", SLOTS);
}

static int heap(lua_State *L)
{
    struct mallinfo2 mi = mallinfo2();
    lua_pushinteger(L, (lua_Integer)(mi.uordblks + mi.hblkhd));
    return 1;
}

static const luaL_Reg funcs[] = {
    {"failafter", failafter}, {"unlimit", unlimit}, {"heap", heap}, {NULL, NULL}};

__attribute__((visibility("default"))) int luaopen_chtest(lua_State *L)
{
    luaL_newlib(L, funcs);
    return 1;
}
