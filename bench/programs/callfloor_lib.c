/* The two functions callfloor.c calls: what an instrumented read or write would cost if its
 * barrier did nothing but the access itself. Built as a shared library so that the calls go
 * through the PLT exactly as a -fgnu-tm program's calls of _ITM_RU8 and _ITM_WU8 do. */
long callfloor_load(const long *p);
void callfloor_store(long *p, long v);

long callfloor_load(const long *p) { return *p; }

void callfloor_store(long *p, long v) { *p = v; }
