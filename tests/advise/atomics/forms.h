/* tests/advise/atomics.sh's program: every builtin form tm_atomic_* replaces, and counters. */
#ifndef FORMS_H
#define FORMS_H

#include <pthread.h>

extern unsigned long bytes_in;          /* a counter declared in a header, defined in forms.c */

#endif
