/* ch_proc.c — Lua processes: their states, running them, finishing and recycling them.
 *
 * A process gets a lua_State of its own with the base and package libraries open, the other
 * standard libraries ready for `require`, and this library as the global `luaproc` (also
 * `require "luaproc"`), as in luaproc. Its code runs in a coroutine of that state, so a state
 * whose process failed can still be reused, and so send/receive can park it by yielding
 * (lua_yieldk). The state's registry maps it back to its ch_proc (ch_proc_self).
 *
 * A finished process's state is closed, or kept for the next newproc when fewer than the
 * recycle limit are kept (recycle(n); 0 by default). A recycled state keeps the globals its
 * last process left.
 *
 * Errors in a process (a Lua error, or a yield from its main function that is not ours) are
 * reported on stderr and end only that process.
 */
#include "ch_proc.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

#include "ch_chan.h"

static const char proc_key = 0; /* registry key: the state's ch_proc (light userdata) */

static struct {
    ch_lock_t lock;
    ch_proc *head; /* finished processes whose states are kept; S set, L unset */
    int count, max;
} recycled;

static int recycle_ready; /* set by the first newproc, on the main thread */

static void recycle_init(void)
{
    if (!recycle_ready) {
        CH_LOCK_INIT(&recycled.lock);
        recycle_ready = 1;
    }
}

ch_proc *ch_proc_self(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &proc_key);
    ch_proc *p = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return p;
}

static void open_libs(lua_State *S)
{
    static const luaL_Reg preload[] = {
        {LUA_COLIBNAME, luaopen_coroutine}, {LUA_TABLIBNAME, luaopen_table},
        {LUA_IOLIBNAME, luaopen_io},        {LUA_OSLIBNAME, luaopen_os},
        {LUA_STRLIBNAME, luaopen_string},   {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},    {LUA_DBLIBNAME, luaopen_debug},
        {NULL, NULL}};
    luaL_requiref(S, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(S, LUA_LOADLIBNAME, luaopen_package, 1);
    lua_pop(S, 2);
    luaL_getsubtable(S, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    for (const luaL_Reg *r = preload; r->name; r++) {
        lua_pushcfunction(S, r->func);
        lua_setfield(S, -2, r->name);
    }
    lua_pop(S, 1);
    luaL_requiref(S, "luaproc", ch_lua_open_child, 1);
    lua_pop(S, 1);
}

/* A process record with a state: recycled, or new. NULL when out of memory. */
static ch_proc *proc_get(void)
{
    ch_proc *p = NULL;
    CH_CS_BEGIN(&recycled.lock);
    p = recycled.head;
    if (p) {
        recycled.head = p->next;
        recycled.count--;
    }
    CH_CS_END(&recycled.lock);
    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->S = luaL_newstate();
    if (!p->S) {
        free(p);
        return NULL;
    }
    open_libs(p->S);
    return p;
}

/* Keep p's state for reuse, or close it. */
static void proc_put(ch_proc *p)
{
    int kept = 0;
    lua_settop(p->S, 0);
    CH_CS_BEGIN(&recycled.lock);
    if (recycled.count < recycled.max) {
        p->next = recycled.head;
        recycled.head = p;
        recycled.count++;
        kept = 1;
    }
    CH_CS_END(&recycled.lock);
    if (!kept) {
        lua_close(p->S);
        free(p);
    }
}

int ch_proc_new(lua_State *from, const char *buf, size_t len, const char *chunkname,
                uint64_t lib_upvalues)
{
    recycle_init();
    ch_proc *p = proc_get();
    if (!p) {
        lua_pushliteral(from, "out of memory for a new process");
        return -1;
    }
    lua_State *S = p->S;
    if (luaL_loadbuffer(S, buf, len, chunkname) != LUA_OK) {
        lua_pushstring(from, lua_tostring(S, -1));
        proc_put(p);
        return -1;
    }
    for (int i = 1; i <= 64; i++) {
        if (lib_upvalues & ((uint64_t)1 << (i - 1))) {
            lua_getglobal(S, "luaproc");
            if (!lua_setupvalue(S, -2, i))
                lua_pop(S, 1);
        }
    }
    p->L = lua_newthread(S);
    p->ref = luaL_ref(S, LUA_REGISTRYINDEX); /* pops the thread */
    lua_xmove(S, p->L, 1);                   /* the chunk, to run in the coroutine */
    lua_pushlightuserdata(S, p);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &proc_key);
    p->op = CH_OP_NONE;
    p->chan = NULL;
    p->msg = NULL;
    ch_sched_spawn(p);
    return 0;
}

static void finish(ch_proc *p)
{
    luaL_unref(p->S, LUA_REGISTRYINDEX, p->ref);
    p->L = NULL;
    lua_pushnil(p->S);
    lua_rawsetp(p->S, LUA_REGISTRYINDEX, &proc_key);
    proc_put(p);
    ch_sched_done();
}

void ch_proc_run(ch_proc *p)
{
    int nres;
    int st = lua_resume(p->L, NULL, 0, &nres);
    if (st == LUA_YIELD) {
        lua_pop(p->L, nres);
        if (p->op != CH_OP_NONE)
            ch_chan_parked(p); /* p may run elsewhere from here on */
        else
            ch_sched_push(p); /* coroutine.yield() in its main function: run it again later */
        return;
    }
    if (st != LUA_OK) {
        const char *msg = lua_tostring(p->L, -1);
        fprintf(stderr, "channels: error in Lua process: %s\n", msg ? msg : "(error object is not a string)");
        fflush(stderr);
    }
    finish(p);
}

void ch_proc_set_recycle(int n)
{
    recycle_init();
    ch_proc *drop = NULL;
    CH_CS_BEGIN(&recycled.lock);
    recycled.max = n;
    while (recycled.count > n) {
        ch_proc *p = recycled.head;
        recycled.head = p->next;
        recycled.count--;
        p->next = drop;
        drop = p;
    }
    CH_CS_END(&recycled.lock);
    while (drop) {
        ch_proc *p = drop;
        drop = p->next;
        lua_close(p->S);
        free(p);
    }
}

void ch_proc_shutdown(void)
{
    ch_proc_set_recycle(0);
}
