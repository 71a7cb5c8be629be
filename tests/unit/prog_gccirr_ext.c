/* prog_gccirr_ext.c — a function of another file that prog_gccirr.c calls inside relaxed
 * transactions: not declared transaction_safe there, so GCC must treat the call as unsafe
 * (test_gcc_irrevocable.sh). It writes nothing anyone reads: a write(2) to /dev/null. */
#include <fcntl.h>
#include <unistd.h>

void gccirr_note(long v);

static int fd = -1;

/* Before any thread: the calls only read it. */
__attribute__((constructor)) static void gccirr_open(void)
{
    fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
}

void gccirr_note(long v)
{
    char c = (char)('0' + v % 10);
    if (write(fd, &c, 1) != 1)
        _exit(3);
}
