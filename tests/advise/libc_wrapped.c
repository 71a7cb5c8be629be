/* With include/tmkit.h (its transaction-safe libc, tmkit/libc.h) the libc calls it wraps are no
 * blockers: set_name (snprintf, strlen) and parse_id (strtol, atoi) have none; log_name keeps
 * its blocker (puts is I/O). The headers parse with clang (tmkit/compat.h). Without the header
 * the same calls are unsafe-call blockers (blockers.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tmkit.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char name[64];
static long id;
static int len;

void set_name(const char *n)
{
    pthread_mutex_lock(&m);
    snprintf(name, sizeof name, "%s!", n);
    len = (int)strlen(name);
    pthread_mutex_unlock(&m);
}

void parse_id(void)
{
    pthread_mutex_lock(&m);
    id = strtol(name, NULL, 10) + atoi(name + 1);
    pthread_mutex_unlock(&m);
}

void log_name(void)
{
    pthread_mutex_lock(&m);
    puts(name);
    pthread_mutex_unlock(&m);
}
