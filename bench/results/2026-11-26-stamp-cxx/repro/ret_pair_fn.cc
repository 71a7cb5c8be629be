#include "ret_pair.h"
// in its own file, so the caller calls the clone instead of inlining it
P need(long x)
{
    if (x > 10)
        return P(true, x * 2);
    return P(false, 0);
}
