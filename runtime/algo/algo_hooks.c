/* What algo/ fills in of core's upward hooks (core/hooks.h): the list of algorithms the
 * configuration chooses from, the speculative algorithm of each of adaptive's modes, and the
 * release of a descriptor's algorithm state. */
#include "../core/hooks.h"
#include "algo.h"
#include "orec.h"

extern const tm_dispatch tm_disp_norec TM_HIDDEN, tm_disp_gl_wt TM_HIDDEN,
    tm_disp_orec_lazy TM_HIDDEN, tm_disp_orec_eager TM_HIDDEN;

/* Before any thread exists and before the configuration is read: plain stores (hooks.h). */
__attribute__((constructor(TM_INIT_HOOKS))) static void tm_algo_hooks_init(void)
{
    tm_hooks.algos = tm_algos;
    /* adaptive's speculative modes (core/cm.c decides among them; the serial ones stay NULL) */
    tm_hooks.adaptive_modes[TM_CM_GLWT] = &tm_disp_gl_wt;
    tm_hooks.adaptive_modes[TM_CM_OREC_EAGER] = &tm_disp_orec_eager;
    tm_hooks.adaptive_modes[TM_CM_NOREC] = &tm_disp_norec;
    tm_hooks.adaptive_modes[TM_CM_OREC_LAZY] = &tm_disp_orec_lazy;
    /* the orec algorithms' lock records, the only algorithm state a descriptor keeps */
    tm_hooks.algo_state_init = tm_locks_init;
    tm_hooks.algo_state_free = tm_locks_free;
}
