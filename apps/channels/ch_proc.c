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

/* Under lua_pcall (proc_get): opening the libraries allocates, and an error outside a protected
 * call would reach the state's panic function, which aborts the program. */
static int open_libs(lua_State *S)
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
    return 0;
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
    lua_pushcfunction(p->S, open_libs);
    if (lua_pcall(p->S, 0, 0, 0) != LUA_OK) { /* out of memory */
        lua_close(p->S);
        free(p);
        return NULL;
    }
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

/* What setup needs, passed as light userdata through lua_pcall. */
struct setup {
    ch_proc *p;
    const char *buf, *chunkname;
    size_t len;
    uint64_t lib_upvalues;
};

/* In the new process's state, under lua_pcall: load the chunk, bind its library upvalues, and
 * make the coroutine that runs it. Each step may allocate, so may raise a memory error (or,
 * in a recycled state, run a metamethod its last process left on the globals). The state's
 * ch_proc is registered last, so a failure leaves at most p->ref for the caller to drop. */
static int setup(lua_State *S)
{
    struct setup *a = lua_touserdata(S, 1);
    ch_proc *p = a->p;
    lua_pop(S, 1);
    if (luaL_loadbuffer(S, a->buf, a->len, a->chunkname) != LUA_OK)
        return lua_error(S);
    for (int i = 1; i <= 64; i++) {
        if (a->lib_upvalues & ((uint64_t)1 << (i - 1))) {
            lua_getglobal(S, "luaproc");
            if (!lua_setupvalue(S, -2, i))
                lua_pop(S, 1);
        }
    }
    lua_State *L = lua_newthread(S);
    p->ref = luaL_ref(S, LUA_REGISTRYINDEX); /* pops the thread */
    p->L = L;
    lua_xmove(S, L, 1); /* the chunk, to run in the coroutine */
    lua_pushlightuserdata(S, p);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &proc_key);
    return 0;
}

/* Under lua_pcall in the caller's state: a copy of the error message on top of S. */
static int copy_error(lua_State *from)
{
    lua_State *S = lua_touserdata(from, 1);
    size_t len;
    const char *msg = lua_type(S, -1) == LUA_TSTRING ? lua_tolstring(S, -1, &len) : NULL;
    if (msg)
        lua_pushlstring(from, msg, len);
    else
        lua_pushliteral(from, "(error object is not a string)");
    return 1;
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
    struct setup a = {p, buf, chunkname, len, lib_upvalues};
    p->L = NULL;
    p->ref = LUA_NOREF;
    lua_pushcfunction(S, setup);
    lua_pushlightuserdata(S, &a);
    if (lua_pcall(S, 1, 0, 0) != LUA_OK) {
        /* The message goes to the caller's state, where copying it may run out of memory too:
         * under a protected call, so that p is put back in every case; then either the copy
         * or Lua's memory error is on top of `from`. */
        lua_pushcfunction(from, copy_error);
        lua_pushlightuserdata(from, S);
        lua_pcall(from, 1, 1, 0);
        luaL_unref(S, LUA_REGISTRYINDEX, p->ref); /* allocates nothing */
        p->L = NULL;
        proc_put(p);
        return -1;
    }
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
        /* No lua_tostring on a number: converting it in place allocates, and this is outside
         * any protected call (an allocation failure here would abort the whole program). */
        lua_State *L = p->L;
        if (lua_type(L, -1) == LUA_TSTRING)
            fprintf(stderr, "channels: error in Lua process: %s\n", lua_tostring(L, -1));
        else if (lua_isinteger(L, -1))
            fprintf(stderr, "channels: error in Lua process: %lld\n", (long long)lua_tointeger(L, -1));
        else if (lua_type(L, -1) == LUA_TNUMBER)
            fprintf(stderr, "channels: error in Lua process: %.14g\n", (double)lua_tonumber(L, -1));
        else
            fprintf(stderr, "channels: error in Lua process: (error object is not a string)\n");
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
