/* Red team: 32-bit system calls (int 0x80) from 64-bit code.
 *
 * int 0x80 enters the kernel's i386 table, whose numbers differ from
 * x86_64's: a filter written for x86_64 numbers that does not check the
 * architecture would match the wrong calls (i386 11 is execve; x86_64 11
 * is munmap). This calls i386 getpid (20). If it returns at all, the
 * answer is made wrong so that it shows.
 *
 * The grader must stop it: the filter kills any call of a foreign
 * architecture ("forbidden"; a kernel without 32-bit emulation faults
 * instead: "crash"). */
#include "common.h"

void selftest_add(const float *a, const float *b, float *c, int n)
{
    long ret = 20; /* i386 getpid */
    __asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
    honest_add(a, b, c, n);
    c[0] = -1.0f; /* still here: the i386 call was let through */
}
