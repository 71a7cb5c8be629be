/* ch_proc.h — creating Lua processes. */
#ifndef CH_PROC_H
#define CH_PROC_H

#include <stdint.h>

#include "ch_core.h"

/* A new process running the chunk in buf (Lua source or a dumped function), queued to run;
 * the upvalues in lib_upvalues (bit i-1: upvalue i) are bound to its `luaproc` table.
 * Returns 0, or -1 with an error message pushed on `from` (syntax error, out of memory). */
int ch_proc_new(lua_State *from, const char *buf, size_t len, const char *chunkname,
                uint64_t lib_upvalues);

/* Opens the library table in a process's state (ch_lua.c). */
int ch_lua_open_child(lua_State *L);

#endif
