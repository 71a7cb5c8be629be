/* wl_zipf: tabulated Zipf sampling (see wl_zipf.h). */
#include "wl_zipf.h"

#include <math.h>
#include <stdlib.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void wl_rng_seed(wl_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t wl_rng_next(wl_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double wl_rng_uniform(wl_rng *r)
{
    return (double)(wl_rng_next(r) >> 11) * 0x1.0p-53;
}

int wl_zipf_init(wl_zipf *z, size_t n, double s)
{
    z->n = n;
    z->cdf = malloc(n * sizeof *z->cdf);
    if (!z->cdf)
        return -1;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += pow((double)(i + 1), -s);
        z->cdf[i] = sum;
    }
    for (size_t i = 0; i < n; i++)
        z->cdf[i] /= sum;
    z->cdf[n - 1] = 1.0;
    return 0;
}

size_t wl_zipf_draw(const wl_zipf *z, wl_rng *r)
{
    double u = wl_rng_uniform(r);
    size_t lo = 0, hi = z->n - 1;   /* the first index with cdf > u */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (z->cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo + 1;
}

void wl_zipf_free(wl_zipf *z)
{
    free(z->cdf);
    z->cdf = NULL;
}
