/* audit.c: the runner's load guard, an rtld-audit library (rtld-audit(7)).
 *
 * The judge starts the sandboxed runner with LD_AUDIT naming this file.
 * The dynamic loader then tells it of every object it maps. While the
 * runner loads the submission (/proc/self/fd/4), the seccomp filter of
 * stage 1 must let the loader map code from files (the submission's and
 * its libraries'); a constructor of the submission, which runs inside
 * that load, could use the same permission to map a page of its own data
 * as code (a system call instruction in .rodata) and run it past the
 * static scan. So once the loader has mapped and relocated the submission
 * and its libraries (LA_ACT_CONSISTENT), and before it runs any of their
 * constructors, this adds one more filter: every mmap, mprotect or
 * pkey_mprotect that asks for PROT_EXEC is trapped (the runner's SIGSYS
 * handler names it: forbidden). Stage 2, after the load, allows no
 * executable memory at all.
 *
 * It lives in the loader's audit namespace, with a C library of its own,
 * and is built into build/bin beside the runner (the Makefile). */
#define _GNU_SOURCE
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GUARD_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define GUARD_ARCH AUDIT_ARCH_AARCH64
#else
#error "audit.c: no seccomp architecture for this machine"
#endif

/* the runner's descriptor of the submission (protocol/glue.h) */
#define SUBMISSION "/proc/self/fd/4"

static int submission_mapped, guarded;

unsigned int la_version(unsigned int version)
{
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
    (void)lmid;
    (void)cookie;
    if (map && map->l_name && strcmp(map->l_name, SUBMISSION) == 0)
        submission_mapped = 1;
    return 0; /* no symbol bindings to audit */
}

/* every mmap, mprotect, pkey_mprotect with PROT_EXEC in its third argument
 * (its low 32 bits, the ones the kernel reads) is trapped */
static void guard(void)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GUARD_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW), /* the main filter's */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pkey_mprotect, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                 offsetof(struct seccomp_data, args[2])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof code / sizeof code[0]),
                              code};
    /* every thread (the CUDA runtime's too); no-new-privileges is set */
    /* (should the kernel refuse, the runner sees one filter too few after
     * the load and fails it as the grader's own failure) */
    (void)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                  SECCOMP_FILTER_FLAG_TSYNC, &prog);
}

void la_activity(uintptr_t *cookie, unsigned int flag)
{
    (void)cookie;
    if (flag == LA_ACT_CONSISTENT && submission_mapped && !guarded) {
        guarded = 1;
        guard();
    }
}
