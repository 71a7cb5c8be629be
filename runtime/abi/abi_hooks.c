/* What abi/ fills in of core's upward hooks (core/hooks.h): the C++ exception state's rollback. */
#include "../core/hooks.h"
#include "abi.h"

__attribute__((constructor(TM_INIT_HOOKS))) static void tm_abi_hooks_init(void)
{
    tm_hooks.eh_rollback = tm_eh_rollback; /* before any thread exists: plain store (hooks.h) */
}
