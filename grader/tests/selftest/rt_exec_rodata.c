/* Red team: run a system call from the submission's own data.
 *
 * The static scan decodes the executable code and refuses a system call
 * instruction there; it does not read data as code (an honest table may
 * hold those bytes). So the instruction sits in .rodata, on a page of its
 * own, and a constructor (which runs while the runner loads the
 * submission, when the filter still lets the loader map code from files)
 * maps that page of the submission's file again, executable, and calls
 * it: getpid() by a raw system call, past the scan.
 *
 * The grader must refuse it: the runner's load guard (the loader's audit
 * library) traps every executable mapping once the loader has mapped the
 * submission, before its constructors run: forbidden, while loading. */
#define _GNU_SOURCE
#include "common.h"

#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* mov $39, %eax (getpid); syscall; ret */
__attribute__((aligned(4096))) static const unsigned char code[4096] = {
    0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3};

static long ran = -1;

/* the file offset of @p p in this object (its PT_LOAD segments) */
static int find(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t *p = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && *p >= lo && *p < lo + ph->p_memsz) {
            *p = *p - lo + ph->p_offset;
            return 1;
        }
    }
    return 0;
}

__attribute__((constructor)) static void load_time(void)
{
    uintptr_t at = (uintptr_t)code;
    if (!dl_iterate_phdr(find, &at))
        return;
    void *page =
        mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, 4, (off_t)at);
    if (page == MAP_FAILED)
        return;
    ran = ((long (*)(void))page)();
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
    if (ran != (long)getpid())
        c[0] = -1.0f; /* the trick did not run: say so rather than pass */
}
