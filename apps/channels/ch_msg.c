/* ch_msg.c — messages between Lua states (ch_msg.h).
 *
 * Two lua_States share nothing, so a message is copied twice: out of the sender's stack into
 * one block (values, then the bytes of its strings), and from that block onto the receiver's
 * stack. The copies run outside every critical section: a section only moves the block's
 * pointer from the sender to the receiver. Integers stay integers and floats floats. */
#include "ch_msg.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

enum { CH_NIL, CH_FALSE, CH_TRUE, CH_INT, CH_FLT, CH_STR };

typedef struct {
    int type;
    union {
        lua_Integer i;
        lua_Number d;
        struct {
            size_t off, len; /* into the block's string bytes */
        } s;
    } u;
} ch_val;

struct ch_msg {
    int n;
    int strings; /* how many of the values are strings */
    ch_val v[]; /* then the string bytes */
};

ch_msg *ch_msg_pack(lua_State *L, int first)
{
    int top = lua_gettop(L);
    int n = top >= first ? top - first + 1 : 0;
    size_t bytes = 0;
    for (int i = first; i <= top; i++) {
        switch (lua_type(L, i)) {
        case LUA_TNIL:
        case LUA_TBOOLEAN:
        case LUA_TNUMBER:
            break;
        case LUA_TSTRING:
            bytes += lua_rawlen(L, i);
            break;
        default:
            luaL_typeerror(L, i, "nil, boolean, number or string");
        }
    }
    ch_msg *m = malloc(sizeof *m + (size_t)n * sizeof(ch_val) + bytes);
    if (!m)
        luaL_error(L, "out of memory for a message");
    m->n = n;
    m->strings = 0;
    char *str = (char *)&m->v[n];
    size_t off = 0;
    for (int k = 0; k < n; k++) {
        int i = first + k;
        ch_val *v = &m->v[k];
        switch (lua_type(L, i)) {
        case LUA_TNIL:
            v->type = CH_NIL;
            break;
        case LUA_TBOOLEAN:
            v->type = lua_toboolean(L, i) ? CH_TRUE : CH_FALSE;
            break;
        case LUA_TNUMBER:
            if (lua_isinteger(L, i)) {
                v->type = CH_INT;
                v->u.i = lua_tointeger(L, i);
            } else {
                v->type = CH_FLT;
                v->u.d = lua_tonumber(L, i);
            }
            break;
        default: { /* string (checked above) */
            size_t len;
            const char *s = lua_tolstring(L, i, &len);
            memcpy(str + off, s, len);
            v->type = CH_STR;
            v->u.s.off = off;
            v->u.s.len = len;
            off += len;
            m->strings++;
        }
        }
    }
    return m;
}

/* Pushes the values; the stack has room for them (lua_checkstack). Only lua_pushlstring can
 * raise an error here (out of memory: the string is new, or the collector step it may take
 * fails): pushing nil, booleans and numbers allocates nothing. */
static void push_values(lua_State *L, const ch_msg *m)
{
    const char *str = (const char *)&m->v[m->n];
    for (int k = 0; k < m->n; k++) {
        const ch_val *v = &m->v[k];
        switch (v->type) {
        case CH_NIL:
            lua_pushnil(L);
            break;
        case CH_FALSE:
        case CH_TRUE:
            lua_pushboolean(L, v->type == CH_TRUE);
            break;
        case CH_INT:
            lua_pushinteger(L, v->u.i);
            break;
        case CH_FLT:
            lua_pushnumber(L, v->u.d);
            break;
        default:
            lua_pushlstring(L, str + v->u.s.off, v->u.s.len);
        }
    }
}

/* push_values under lua_pcall: the message as light userdata, the values as results. */
static int push_protected(lua_State *L)
{
    const ch_msg *m = lua_touserdata(L, 1);
    lua_pop(L, 1);
    if (!lua_checkstack(L, m->n)) /* already grown by the caller: no allocation */
        return luaL_error(L, "receive: no stack for the message");
    push_values(L, m);
    return m->n;
}

int ch_msg_push(lua_State *L, ch_msg *m)
{
    int n = m->n;
    /* Room for the values, and for the function and argument of the protected call below.
     * lua_checkstack raises no error: it answers 0 past Lua's stack limit or out of memory. */
    if (!lua_checkstack(L, n + 2)) {
        ch_msg_free(m);
        return luaL_error(L, "receive: too many values in a message for the receiver's stack");
    }
    if (m->strings == 0) { /* nothing to allocate, nothing can fail */
        push_values(L, m);
        ch_msg_free(m);
        return n;
    }
    /* A memory error in lua_pushlstring would longjmp past the free: copy the strings under a
     * protected call, free the message whatever it answers, then raise its error again. */
    int top = lua_gettop(L);
    lua_pushcfunction(L, push_protected);
    lua_pushlightuserdata(L, m);
    int st = lua_pcall(L, 1, LUA_MULTRET, 0);
    ch_msg_free(m);
    if (st == LUA_ERRMEM)
        return luaL_error(L, "receive: not enough memory for the message (%d values); "
                             "it is dropped", n);
    if (st != LUA_OK)
        return lua_error(L);
    return lua_gettop(L) - top;
}

void ch_msg_free(ch_msg *m)
{
    free(m);
}
