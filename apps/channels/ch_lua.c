/* ch_lua.c — the Lua face of channels: luaproc's functions, and the module's life.
 *
 *   local luaproc = require "channels_lock"    -- or "channels_tm", "channels_tm_busywait"
 *
 * (each build's file exports its own luaopen_channels_<build>: CH_LUAOPEN, and luaopen_luaproc).
 * The first open, in the interpreter's state, starts one
 * worker and ties the runtime's end to that state: when it closes (the script ended), a __gc
 * waits for every process, as luaproc's implicit wait() does, then joins the workers before
 * Lua unloads the library. Processes get the same functions as the global `luaproc`.
 *
 * Results follow luaproc: true, or nil and a message, for conditions of the run (no such
 * channel, channel destroyed); arguments of the wrong type raise errors. send and receive park
 * the calling process (a yield; ch_chan.c). In the interpreter's own state, which is not a
 * process and cannot be parked, a blocking send or receive polls every 100 us instead.
 */
#include <errno.h>
#include <stdint.h>
#include <lauxlib.h>
#include <string.h>
#include <time.h>

#include "ch_chan.h"
#include "ch_msg.h"
#include "ch_proc.h"

static int started; /* the runtime is up (set on the main thread) */

static int fail(lua_State *L, const char *msg)
{
    lua_pushnil(L);
    lua_pushstring(L, msg);
    return 2;
}

static void nap(void)
{
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
}

static int writer(lua_State *L, const void *b, size_t sz, void *ud)
{
    (void)L;
    luaL_addlstring(ud, b, sz);
    return 0;
}

static int l_newproc(lua_State *L);

/* A bit for each of the first 64 upvalues of the function at f that holds this library's
 * table (`local luaproc = require ...` in the main script): the new process binds them to its
 * own `luaproc`. Other upvalues start as nil, as in luaproc (only _ENV is bound, to globals). */
static uint64_t lib_upvalues(lua_State *L, int f)
{
    uint64_t mask = 0;
    for (int i = 1; i <= 64; i++) {
        int top = lua_gettop(L);
        if (!lua_getupvalue(L, f, i))
            break;
        if (lua_type(L, -1) == LUA_TTABLE) {
            lua_getfield(L, -1, "newproc");
            if (lua_tocfunction(L, -1) == l_newproc)
                mask |= (uint64_t)1 << (i - 1);
        }
        lua_settop(L, top);
    }
    return mask;
}

static int l_newproc(lua_State *L)
{
    int r;
    if (lua_type(L, 1) == LUA_TFUNCTION) {
        if (lua_iscfunction(L, 1))
            return luaL_argerror(L, 1, "a Lua function cannot be a C function");
        luaL_Buffer b;
        lua_settop(L, 1);
        luaL_buffinit(L, &b);
        lua_pushvalue(L, 1);
        lua_dump(L, writer, &b, 0);
        lua_pop(L, 1);
        luaL_pushresult(&b);
        size_t len;
        const char *code = lua_tolstring(L, -1, &len);
        r = ch_proc_new(L, code, len, "=(luaproc function)", lib_upvalues(L, 1));
    } else {
        size_t len;
        const char *code = luaL_checklstring(L, 1, &len);
        r = ch_proc_new(L, code, len, "=(luaproc code)", 0);
    }
    if (r != 0) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* After a parked process is resumed: the outcome of its send or receive. */
static int send_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    ch_proc *p = (ch_proc *)ctx;
    ch_chan *c = p->chan;
    p->op = CH_OP_NONE;
    p->chan = NULL;
    ch_chan_release(c);
    if (p->status == CH_DELETED) {
        ch_msg_free(p->msg);
        p->msg = NULL;
        return fail(L, "channel destroyed while waiting for a receiver");
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int recv_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    ch_proc *p = (ch_proc *)ctx;
    ch_chan *c = p->chan;
    p->op = CH_OP_NONE;
    p->chan = NULL;
    ch_chan_release(c);
    if (p->status == CH_DELETED)
        return fail(L, "channel destroyed while waiting for a sender");
    ch_msg *m = p->msg;
    p->msg = NULL;
    lua_settop(L, 0);
    return ch_msg_push(L, m); /* frees m, also when it raises an error */
}

/* The process to park, or NULL when the caller cannot be parked (the interpreter's state, or
 * a coroutine that cannot yield). */
static ch_proc *parkable(lua_State *L)
{
    ch_proc *p = ch_proc_self(L);
    if (p && (p->L != L || !lua_isyieldable(L)))
        luaL_error(L, "send/receive: cannot block here (inside a coroutine or a C call); "
                      "use receive(channel, true)");
    return p;
}

static int l_send(lua_State *L)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    ch_proc *self = parkable(L);
    ch_msg *m = ch_msg_pack(L, 2);
    ch_chan *c = ch_chan_acquire(name, len);
    if (!c) {
        ch_msg_free(m);
        return fail(L, "channel does not exist");
    }
    ch_proc *w;
    int r;
    while ((r = ch_chan_send(c, self, m, &w)) == CH_R_NONE)
        nap(); /* the interpreter's state: poll */
    if (r == CH_R_PARKED)
        return lua_yieldk(L, 0, (lua_KContext)self, send_k);
    ch_chan_release(c);
    if (r == CH_R_DELETED) {
        ch_msg_free(m);
        return fail(L, "channel destroyed");
    }
    ch_sched_push(w);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_receive(lua_State *L)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    int async = lua_toboolean(L, 2);
    ch_proc *self = async ? NULL : parkable(L);
    ch_chan *c = ch_chan_acquire(name, len);
    if (!c)
        return fail(L, "channel does not exist");
    ch_proc *w;
    ch_msg *m;
    int r;
    while ((r = ch_chan_recv(c, self, &m, &w)) == CH_R_NONE && !async)
        nap(); /* the interpreter's state: poll */
    if (r == CH_R_PARKED)
        return lua_yieldk(L, 0, (lua_KContext)self, recv_k);
    ch_chan_release(c);
    if (r == CH_R_DELETED)
        return fail(L, "channel destroyed");
    if (r == CH_R_NONE)
        return fail(L, "no senders waiting on channel");
    ch_sched_push(w);
    lua_settop(L, 0);
    return ch_msg_push(L, m); /* frees m, also when it raises an error */
}

static int l_newchannel(lua_State *L)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    if (ch_chan_create(name, len) != 0)
        return fail(L, errno == EEXIST ? "channel already exists" : "out of memory");
    lua_pushboolean(L, 1);
    return 1;
}

static int l_delchannel(lua_State *L)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    if (ch_chan_delete(name, len) != 0)
        return fail(L, "channel does not exist");
    lua_pushboolean(L, 1);
    return 1;
}

static int l_setnumworkers(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n >= 1 && n <= 1024, 1, "number of workers must be from 1 to 1024");
    int err = ch_sched_set_workers((int)n);
    if (err)
        return luaL_error(L, "cannot start a worker: %s", strerror(err));
    return 0;
}

static int l_getnumworkers(lua_State *L)
{
    lua_pushinteger(L, ch_sched_get_workers());
    return 1;
}

static int l_recycle(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n >= 0 && n <= 1000000, 1, "recycle limit must be from 0 to 1000000");
    ch_proc_set_recycle((int)n);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_wait(lua_State *L)
{
    if (ch_proc_self(L))
        return luaL_error(L, "wait: only the main script can wait for all processes");
    ch_sched_wait_idle();
    return 0;
}

static const luaL_Reg funcs[] = {
    {"newproc", l_newproc},         {"send", l_send},
    {"receive", l_receive},         {"newchannel", l_newchannel},
    {"delchannel", l_delchannel},   {"setnumworkers", l_setnumworkers},
    {"getnumworkers", l_getnumworkers}, {"recycle", l_recycle},
    {"wait", l_wait},               {NULL, NULL}};

int ch_lua_open_child(lua_State *L)
{
    luaL_newlib(L, funcs);
    lua_pushliteral(L, CH_SYNC_NAME);
    lua_setfield(L, -2, "build");
    return 1;
}

/* The interpreter's state is closing: wait for every process, stop the workers. */
static int l_close(lua_State *L)
{
    (void)L;
    ch_sched_wait_idle();
    ch_sched_shutdown();
    ch_proc_shutdown();
    ch_chan_shutdown();
    started = 0;
    return 0;
}

__attribute__((visibility("default"))) int CH_LUAOPEN(lua_State *L);

/* The same module under luaproc's own name, so that scripts written for luaproc run unchanged
 * (`require "luaproc"` with package.cpath naming build/lib/luaproc-<build>/, CMakeLists.txt). */
__attribute__((visibility("default"))) int luaopen_luaproc(lua_State *L)
{
    return CH_LUAOPEN(L);
}

int CH_LUAOPEN(lua_State *L)
{
    if (!started && !ch_proc_self(L)) {
        static int inited;
        if (!inited) {
            ch_sched_init();
            ch_chan_init();
            inited = 1;
        }
        started = 1;
        int err = ch_sched_set_workers(1);
        if (err)
            return luaL_error(L, "cannot start a worker: %s", strerror(err));
        lua_newuserdatauv(L, 0, 0); /* the sentinel whose __gc ends the runtime */
        lua_newtable(L);
        lua_pushcfunction(L, l_close);
        lua_setfield(L, -2, "__gc");
        lua_setmetatable(L, -2);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &started);
    }
    return ch_lua_open_child(L);
}
