/* Runs a program where membarrier(2) fails with ENOSYS, as on kernels before 4.14 and in some
 * sandboxes: a seccomp filter, installed before exec, answers that one system call with an
 * error and lets every other through. tmkit then runs without its single-thread bias
 * (core/bias.c); test_no_membarrier.sh checks that programs stay correct there.
 * Usage: no_membarrier PROGRAM [ARGS...] */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: no_membarrier PROGRAM [ARGS...]\n");
        return 2;
    }
    struct sock_filter code[] = {
        /* another architecture's system call numbers mean something else: let them through */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof code / sizeof code[0], code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        perror("no_membarrier: installing the seccomp filter");
        return 2;
    }
    if (syscall(__NR_membarrier, 0 /* MEMBARRIER_CMD_QUERY */, 0, 0) != -1 || errno != ENOSYS) {
        fprintf(stderr, "no_membarrier: membarrier still answers under the filter\n");
        return 2;
    }
    execvp(argv[1], argv + 1);
    perror("no_membarrier: exec");
    return 2;
}
