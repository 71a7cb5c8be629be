#include <stdbool.h>

typedef struct {
    bool big;
    long twice;
} answer;

__attribute__((transaction_safe)) answer need(long x);
