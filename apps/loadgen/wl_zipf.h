/* wl_zipf: Zipf-distributed ranks with a seeded, portable generator.
 *
 * P(rank = r) = (1 / r^s) / H(n, s) for r = 1..n, where H(n, s) = sum_{k=1..n} 1/k^s. The
 * cumulative distribution is tabulated once (n doubles) and each draw is one uniform number
 * and a binary search, so the output depends only on (n, s, seed), on every machine.
 * The generator is xoshiro256** seeded through splitmix64 (Blackman and Vigna).
 */
#ifndef WL_ZIPF_H
#define WL_ZIPF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t s[4];
} wl_rng;

void wl_rng_seed(wl_rng *r, uint64_t seed);
uint64_t wl_rng_next(wl_rng *r);
double wl_rng_uniform(wl_rng *r);   /* [0, 1), 53 random bits */

typedef struct {
    double *cdf;   /* cdf[i] = P(rank <= i + 1), cdf[n - 1] = 1 */
    size_t n;
} wl_zipf;

int wl_zipf_init(wl_zipf *z, size_t n, double s);   /* 0, or -1 when out of memory */
size_t wl_zipf_draw(const wl_zipf *z, wl_rng *r);   /* a rank in 1..n */
void wl_zipf_free(wl_zipf *z);

#endif
