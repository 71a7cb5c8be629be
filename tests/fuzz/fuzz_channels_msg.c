/* fuzz_channels_msg.c — the channels library's message copy between two Lua states
 * (apps/channels/ch_msg.c): ch_msg_pack on the sender's stack, ch_msg_push onto the receiver's,
 * as send and receive do, each under lua_pcall as in the module (a Lua error must leave no leak).
 *
 * The input is a little program that builds the sender's stack; each op byte (low 4 bits) pushes
 *   0 nil  1 false  2 true  3 integer (8 bytes)  4 float (8 bytes, any bits: NaN, -0, inf)
 *   5 string (1 length byte, bytes)  6 long string (2 bytes n, then n * 4 copies of the next
 *   byte)  7 a table nested (next byte) deep  8 a function  9 a light userdata
 *   10 a full userdata  11 a coroutine  12 copies of the top value (2 bytes: up to 4095;
 *   0xff then n: n * 4096, to reach Lua's stack limit of a million slots)  13 the receiver's memory budget (2 bytes, in KB: its allocator fails
 *   past it)  14/15 an empty string
 * Checks: pack raises an error exactly when the stack holds a table, function, userdata or
 * thread; otherwise the receiver gets the same values, each of its type (integers stay
 * integers, floats keep their bits), or a clean error ("too many values", "not enough memory")
 * with its stack as before.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch_msg.h"

/* The string bytes a message may carry: past a few MB an input only costs time (a run once
 * hit libFuzzer's 10 s limit with 137 MB: regressions/channels_msg/slow_137mb_message). */
#define MSG_BYTES_MAX ((size_t)8 << 20)

static size_t budget, used; /* the receiver's allocator: fails past budget bytes */
static size_t wanted;       /* the budget the input asked for, applied inside the receive */

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    if (ptr == NULL)
        osize = 0;
    if (nsize == 0) {
        free(ptr);
        used -= osize;
        return NULL;
    }
    if (nsize > osize && used + (nsize - osize) > budget)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p)
        used = used - osize + nsize;
    return p;
}

static int do_pack(lua_State *L)
{
    ch_msg **out = lua_touserdata(L, 1);
    lua_remove(L, 1);
    *out = ch_msg_pack(L, 1);
    return lua_gettop(L); /* the values again, to compare with what arrives */
}

static int do_push(lua_State *L)
{
    ch_msg *m = lua_touserdata(L, 1);
    lua_pop(L, 1);
    budget = used + wanted; /* from here: as the module's receive, already running */
    return ch_msg_push(L, m);
}

static int same(lua_State *a, int i, lua_State *b, int j)
{
    if (lua_type(a, i) != lua_type(b, j))
        return 0;
    switch (lua_type(a, i)) {
    case LUA_TNIL: return 1;
    case LUA_TBOOLEAN: return lua_toboolean(a, i) == lua_toboolean(b, j);
    case LUA_TNUMBER: {
        if (lua_isinteger(a, i) != lua_isinteger(b, j))
            return 0;
        if (lua_isinteger(a, i))
            return lua_tointeger(a, i) == lua_tointeger(b, j);
        lua_Number x = lua_tonumber(a, i), y = lua_tonumber(b, j);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    case LUA_TSTRING: {
        size_t n, m;
        const char *s = lua_tolstring(a, i, &n), *t = lua_tolstring(b, j, &m);
        return n == m && memcmp(s, t, n) == 0;
    }
    }
    return 0;
}

static int noop(lua_State *L) { (void)L; return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t size)
{
    lua_State *S = luaL_newstate();
    budget = wanted = (size_t)256 << 20, used = 0;
    lua_State *R = lua_newstate(limited_alloc, NULL);
    int bad = 0;      /* values pack must refuse */
    size_t bytes = 0; /* string bytes on the sender's stack */
    size_t k = 0;
#define NEED(n) if (size - k < (n)) break
    while (k < size) {
        uint8_t op = d[k++] & 15;
        if (!lua_checkstack(S, 2))
            break;
        if (op == 0) {
            lua_pushnil(S);
        } else if (op == 1 || op == 2) {
            lua_pushboolean(S, op == 2);
        } else if (op == 3) {
            NEED(8);
            lua_Integer v;
            memcpy(&v, d + k, 8), k += 8;
            lua_pushinteger(S, v);
        } else if (op == 4) {
            NEED(8);
            lua_Number v;
            memcpy(&v, d + k, 8), k += 8;
            lua_pushnumber(S, v);
        } else if (op == 5) {
            NEED(1);
            size_t n = d[k++];
            if (n > size - k)
                n = size - k;
            lua_pushlstring(S, (const char *)d + k, n), k += n;
            bytes += n;
        } else if (op == 6) {
            NEED(3);
            size_t n = (size_t)d[k] << 8 | d[k + 1];
            if (n * 4 > MSG_BYTES_MAX - bytes)
                n = (MSG_BYTES_MAX - bytes) / 4;
            bytes += n * 4;
            char *s = malloc(n * 4 + 1);
            memset(s, d[k + 2], n * 4);
            lua_pushlstring(S, s, n * 4);
            free(s), k += 3;
        } else if (op == 7) {
            NEED(1);
            int depth = d[k++] & 31;
            lua_newtable(S);
            for (int i = 0; i < depth && lua_checkstack(S, 2); i++) {
                lua_newtable(S);
                lua_pushvalue(S, -1);
                lua_rawseti(S, -3, 1);
                lua_remove(S, -2);
            }
            bad = 1;
        } else if (op == 8) {
            lua_pushcfunction(S, noop), bad = 1;
        } else if (op == 9) {
            lua_pushlightuserdata(S, (void *)d), bad = 1;
        } else if (op == 10) {
            lua_newuserdatauv(S, 8, 0), bad = 1;
        } else if (op == 11) {
            lua_newthread(S), bad = 1;
        } else if (op == 12) {
            NEED(2);
            int n = d[k] == 0xff ? d[k + 1] << 12 : (d[k] & 15) << 8 | d[k + 1]; /* 0xff: to Lua's limit */
            k += 2;
            if (lua_gettop(S) == 0)
                continue;
            size_t len = lua_type(S, -1) == LUA_TSTRING ? lua_rawlen(S, -1) : 0;
            if (len && (size_t)n > (MSG_BYTES_MAX - bytes) / len) /* the message copies each */
                n = (int)((MSG_BYTES_MAX - bytes) / len);
            bytes += (size_t)n * len;
            if (!lua_checkstack(S, n + 4))
                continue;
            for (int i = 0; i < n; i++)
                lua_pushvalue(S, -1);
        } else if (op == 13) {
            NEED(2);
            wanted = (size_t)(d[k] << 8 | d[k + 1]) << 10;
            k += 2;
        } else {
            lua_pushliteral(S, "");
        }
    }
    int n = lua_gettop(S);
    ch_msg *m = NULL;
    if (!lua_checkstack(S, 3))
        goto out;
    lua_pushcfunction(S, do_pack);
    lua_insert(S, 1);
    lua_pushlightuserdata(S, &m);
    lua_insert(S, 2);
    int st = lua_pcall(S, n + 1, LUA_MULTRET, 0);
    if ((st != LUA_OK) != bad)
        abort(); /* refused a good message or packed a bad one */
    if (st != LUA_OK || !m)
        goto out;
    if (lua_gettop(S) != n)
        abort();
    if (!lua_checkstack(R, 3)) {
        ch_msg_free(m);
        goto out;
    }
    lua_pushinteger(R, 42); /* something below: the stack must be as it was after an error */
    int before = lua_gettop(R);
    lua_pushcfunction(R, do_push);
    lua_pushlightuserdata(R, m);
    int rs = lua_pcall(R, 1, LUA_MULTRET, 0);
    budget = (size_t)256 << 20;
    if (rs == LUA_OK) {
        if (lua_gettop(R) - before != n)
            abort();
        for (int i = 1; i <= n; i++)
            if (!same(S, i, R, before + i))
                abort();
    } else {
        const char *e = lua_tostring(R, -1);
        if (rs != LUA_ERRMEM &&
            (!e || (!strstr(e, "too many values") && !strstr(e, "not enough memory"))))
            abort();
        if (lua_gettop(R) != before + 1 || lua_tointeger(R, before) != 42)
            abort();
    }
out:
    lua_close(S);
    lua_close(R);
    return 0;
}
