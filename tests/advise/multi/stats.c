#include "stats.h"
struct stats global_stats;
void stats_add_bytes(long n) { global_stats.bytes += n; }
void stats_count_get(void) { global_stats.gets++; }
long stats_total(void) { return global_stats.gets + global_stats.sets; }
