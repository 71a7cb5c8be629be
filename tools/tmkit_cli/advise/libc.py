"""What GCC 12 (-fgnu-tm) accepts inside a transaction, for functions without source.

Checked by compiling probes with gcc 12.2 -fgnu-tm at -O0 and -O2 (docs/advise.md lists them):
accepted in __transaction_atomic: memcpy, memmove, memset, malloc, calloc, free, abort, abs,
fabs, const builtins (__builtin_expect, __builtin_popcount, ...), functions declared
__attribute__((const)) (so the ctype macros, which call the const __ctype_b_loc, pass), and
functions declared transaction_safe or transaction_pure. Rejected: everything else without a
body, including strlen, strcmp, memcmp, memchr, strchr, strcpy, realloc, strdup, snprintf,
qsort, atoi/strtol, rand, time, sqrt (errno), exit, assert (__assert_fail), __builtin_trap,
__builtin_alloca, __atomic_*/__sync_* builtins and _Atomic accesses, volatile accesses, asm.
"""

GCC_SAFE = {"memcpy", "memmove", "memset", "malloc", "calloc", "free", "abort", "abs", "labs",
            "llabs", "fabs", "fabsf", "fabsl"}
UNSAFE_BUILTINS = {"__builtin_trap", "__builtin_alloca", "__builtin_alloca_with_align",
                   "__builtin_printf", "__builtin_puts", "__builtin_putchar", "__builtin_fputc",
                   "__builtin_fputs", "__builtin_fwrite", "__builtin_fprintf", "__builtin_realloc",
                   "__builtin_strlen", "__builtin_strcmp", "__builtin_memcmp", "__builtin_strcpy",
                   "__builtin_strncpy", "__builtin_strchr", "__builtin_snprintf", "__builtin_sprintf",
                   "__builtin_exit", "__builtin_longjmp", "__builtin_setjmp"}
IO = set("""printf fprintf vprintf vfprintf dprintf vdprintf puts fputs putc fputc putchar
fwrite fread fgets fgetc getc getchar gets scanf fscanf vscanf vfscanf perror fflush fopen
fclose fdopen freopen fseek fseeko ftell ftello rewind setvbuf setbuf read write pread pwrite
readv writev open openat creat close send sendto sendmsg recv recvfrom recvmsg accept accept4
connect bind listen socket shutdown poll ppoll select pselect epoll_wait epoll_ctl epoll_create
ioctl fcntl fsync fdatasync lseek mmap munmap sendfile syslog vsyslog sleep usleep nanosleep
system popen pclose fork vfork execv execve execvp execl execlp unlink rename mkdir rmdir stat
fstat lstat opendir readdir closedir getline getdelim gzread gzwrite gzopen gzclose
clock_nanosleep sched_yield kill raise signal sigaction""".split())
EXIT = {"exit", "_exit", "_Exit", "quick_exit", "__assert_fail", "__assert_perror_fail",
        "__assert", "err", "errx", "verr", "verrx", "longjmp", "siglongjmp", "__stack_chk_fail"}
# What include/tmkit.h wraps (tmkit/libc.h's "Covered" list, docs/libc.md): inside transactions
# GCC calls the wrapper instead, so with the header included these calls are no blockers
# (program.py sees the wrappers); without it, the blocker says to include it.
# tests/advise/libc_list.py checks this list against the wrappers the header declares.
TMKIT_WRAPS = set("""memcmp memchr strlen strnlen strcmp strncmp strcasecmp strncasecmp strchr strrchr
strstr strspn strcspn strcpy strncpy strcat strncat stpcpy strdup strndup strtol strtoul strtoll
strtoull atoi atol atoll snprintf vsnprintf qsort bsearch toupper tolower""".split())
CONDVAR_SIGNAL = {"pthread_cond_signal", "pthread_cond_broadcast", "cnd_signal", "cnd_broadcast"}
THREADS_PREFIX = ("pthread_", "sem_", "mtx_", "cnd_", "thrd_")


def base_name(name):
    """__printf_chk -> printf (fortified variants behave like the plain function)."""
    if name.startswith("__") and name.endswith("_chk"):
        return name[2:-4]
    return name


def classify(name, is_const):
    """(kind, reason) of a call to a function without source; None when GCC accepts it."""
    b = base_name(name)
    if b in GCC_SAFE or is_const:
        return None
    if name.startswith("__builtin_") and name not in UNSAFE_BUILTINS:
        return None
    if b in CONDVAR_SIGNAL:
        return ("condvar-signal", f"{name}: signals a condition variable")
    if b in EXIT:
        what = "assertion failure path (assert)" if "assert" in b else f"{name}: ends the program"
        return ("exit", what)
    if b in IO:
        return ("io", f"{name}: I/O or system call")
    if b.startswith(THREADS_PREFIX):
        return ("pthread", f"{name}: thread library call")
    if _plain(b) in TMKIT_WRAPS:
        return ("unsafe-call", f"{name}: not transaction_safe for GCC; #include <tmkit.h> makes "
                               "it safe (its transaction-safe libc wraps it, docs/libc.md)")
    return ("unsafe-call", f"{name}: no source and not transaction_safe for GCC")


def _plain(name):
    """__builtin_strlen -> strlen."""
    return name[len("__builtin_"):] if name.startswith("__builtin_") else name


def wrapped_by_tmkit(name):
    """True when include/tmkit.h has a transaction-safe wrapper for this libc function."""
    return _plain(base_name(name)) in TMKIT_WRAPS


TMKIT_HINT = ("#include <tmkit.h>: its transaction-safe libc wraps this call (docs/libc.md), "
              "and the section needs no serialization for it")
