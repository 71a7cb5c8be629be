/* GCC's internal headers, in the order they must come, for every file of the plugin. */
#ifndef TMKIT_PLUGIN_GCC_HEADERS_H
#define TMKIT_PLUGIN_GCC_HEADERS_H

#include "gcc-plugin.h"

#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "cfghooks.h"
#include "tree-cfg.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "gimple-ssa.h"
#include "ssa.h"
#include "stringpool.h"
#include "attribs.h"
#include "varasm.h"
#include "cgraph.h"
#include "cfgloop.h"
#include "tree-into-ssa.h"
#include "diagnostic-core.h"
#include "builtins.h"
#include "fold-const.h"
#include "stor-layout.h"
#include "profile-count.h"
#include "memmodel.h"

#endif
