/* ch_msg.h — a message: a tuple of nil, boolean, number and string values copied out of one
 * lua_State into one malloc'd block, and pushed onto another. */
#ifndef CH_MSG_H
#define CH_MSG_H

#include <lua.h>

typedef struct ch_msg ch_msg;

/* Copy the values at stack slots first..top of L into a new message; a value of another type
 * raises a Lua error (bad argument) before anything is allocated. */
ch_msg *ch_msg_pack(lua_State *L, int first);
/* Push the message's values onto L and free m, in every case: returns how many values, or
 * raises an error with nothing pushed when L cannot take them (a stack that cannot grow so far:
 * "too many values"; Lua out of memory while it copies the strings: "not enough memory").
 * A message that cannot be received is dropped; its sender has already been served. */
int ch_msg_push(lua_State *L, ch_msg *m);
void ch_msg_free(ch_msg *m);

#endif
