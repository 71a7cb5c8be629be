#ifndef STATS_H
#define STATS_H
#define TM_SAFE __attribute__((transaction_safe))
struct stats { long gets, sets, bytes; };
extern struct stats global_stats;
void stats_add_bytes(long n);                 /* in stats.c, not annotated */
TM_SAFE void stats_count_get(void);           /* in stats.c, declared transaction_safe */
__attribute__((transaction_safe)) long stats_total(void);
#endif
