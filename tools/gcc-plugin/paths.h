/* The inline fast paths of the barriers (paths.cc). */
#ifndef TMKIT_PLUGIN_PATHS_H
#define TMKIT_PLUGIN_PATHS_H

#include "emit.h"

/* The fast paths of a read of `size` bytes (1, 2, 4, 8) of TYPE at addr: each ends with an edge
 * into e->join (ends) carrying its value (vals); every failed test goes to e->slow. */
void tmi_emit_read(tmi_emit *e, tree addr, tree type, unsigned size, auto_vec<edge> *ends,
                   auto_vec<tree> *vals);
/* The same for a write of val (`size` bytes) to addr. */
void tmi_emit_write(tmi_emit *e, tree addr, tree val, unsigned size, auto_vec<edge> *ends);

#endif
