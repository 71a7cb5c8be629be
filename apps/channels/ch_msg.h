/* ch_msg.h — a message: a tuple of nil, boolean, number and string values copied out of one
 * lua_State into one malloc'd block, and pushed onto another. */
#ifndef CH_MSG_H
#define CH_MSG_H

#include <lua.h>

typedef struct ch_msg ch_msg;

/* Copy the values at stack slots first..top of L into a new message; a value of another type
 * raises a Lua error (bad argument) before anything is allocated. */
ch_msg *ch_msg_pack(lua_State *L, int first);
/* Push the message's values onto L; returns how many, or -1 (nothing pushed, no error raised)
 * when L's stack cannot grow to hold them: the caller frees m, then raises the error
 * (ch_msg_push_error). */
int ch_msg_push(lua_State *L, const ch_msg *m);
int ch_msg_push_error(lua_State *L);
void ch_msg_free(ch_msg *m);

#endif
