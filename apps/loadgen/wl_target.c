/* wl_target: parsing of the http://HOST:PORT address a load is aimed at, and the clock the
 * requests are timed with (see wl_http.h). */
#include "wl_http.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

uint64_t wl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int wl_target_parse(wl_target *t, const char *base, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (strncmp(base, "http://", 7) != 0 || strlen(base) >= sizeof t->base) {
        snprintf(err, errlen, "'%s' is not an http://HOST:PORT address", base);
        return -1;
    }
    snprintf(t->base, sizeof t->base, "%s", base);
    size_t blen = strlen(t->base);
    if (blen > 7 && t->base[blen - 1] == '/')
        t->base[--blen] = '\0';
    const char *hp = t->base + 7;
    if (*hp == '\0' || strchr(hp, '/')) {
        snprintf(err, errlen, "'%s' is not an http://HOST:PORT address (no path allowed)", base);
        return -1;
    }
    snprintf(t->host, sizeof t->host, "%s", hp);
    char host[256], port[16] = "80";
    snprintf(host, sizeof host, "%s", hp);
    char *colon = strrchr(host, ':');
    if (colon) {
        *colon = '\0';
        if (colon[1] == '\0' || strlen(colon + 1) >= sizeof port ||
            strspn(colon + 1, "0123456789") != strlen(colon + 1)) {
            snprintf(err, errlen, "bad port in '%s'", base);
            return -1;
        }
        snprintf(port, sizeof port, "%s", colon + 1);
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(rc));
        return -1;
    }
    memcpy(&t->addr, res->ai_addr, res->ai_addrlen);
    t->addrlen = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}
