/* Red team: system calls through the x32 ABI (number | 0x40000000).
 *
 * A filter that checks only the architecture field lets x32 numbers pass
 * as unknown x86_64 ones: execve and the rest of the kill list would then
 * be one bit away. This calls x32 getpid() with a raw instruction (lab 00
 * does not scan for them; real labs refuse syscall instructions, but a
 * submission can jump to one in the C library). If it returns at all,
 * the answer is made wrong so that it shows.
 *
 * The grader must stop it: the filter treats x32 numbers as a foreign
 * architecture and kills the runner ("forbidden"). */
#include "common.h"

void selftest_add(const float *a, const float *b, float *c, int n)
{
    long ret = 0x40000000L | 39; /* __X32_SYSCALL_BIT | getpid */
    __asm__ volatile("syscall" : "+a"(ret) : : "rcx", "r11", "memory");
    honest_add(a, b, c, n);
    c[0] = -1.0f; /* still here: the x32 call was let through */
}
