/* Red team: patch the runner's own code to report a faster time.
 *
 * The runner is linked with -z relro -z now, so defining clock_gettime in
 * the submission changes nothing (it is loaded RTLD_LOCAL, after the
 * runner's relocations). But mprotect() without PROT_EXEC is allowed, so a
 * constructor finds the runner's GOT slot for clock_gettime
 * (dl_iterate_phdr, the dynamic section), makes its RELRO page writable
 * and points the slot at a clock that runs at half speed. Every time the
 * runner reports is then half the truth; the answers are honest.
 *
 * The grader must not believe it: the judge's own clock sees the other
 * half as time the runner's window does not account for ("unconfirmed").
 * A lie within the allowance (max(0.10 ms, 15%) per call) is not caught:
 * see the threat model in docs/grading.md. */
#define _GNU_SOURCE
#include "common.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static struct timespec origin;
static int patched;

static int slow_clock(clockid_t id, struct timespec *ts)
{
    struct timespec now;
    int rc = clock_gettime(id, &now); /* our own GOT: the real one */
    if (rc != 0 || id != CLOCK_MONOTONIC)
        return rc;
    double d = (double)(now.tv_sec - origin.tv_sec) +
               (double)(now.tv_nsec - origin.tv_nsec) * 1e-9;
    d *= 0.5;
    ts->tv_sec = origin.tv_sec + (time_t)d;
    ts->tv_nsec = origin.tv_nsec + (long)((d - (double)(time_t)d) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
    return 0;
}

static uintptr_t at(uintptr_t base, uintptr_t p)
{
    return p < base ? base + p : p; /* ld.so relocates d_ptr in place */
}

static void patch_slot(uintptr_t slot)
{
    uintptr_t page = slot & ~(uintptr_t)4095;
    if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE) == 0) {
        *(void **)slot = (void *)slow_clock;
        patched++;
    }
}

static int find(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    uintptr_t base = info->dlpi_addr;
    const Elf64_Dyn *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const Elf64_Dyn *)(base + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return 1;
    const Elf64_Sym *sym = NULL;
    const char *str = NULL;
    const Elf64_Rela *rel[2] = {NULL, NULL};
    size_t rsz[2] = {0, 0};
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: sym = (const void *)at(base, dyn->d_un.d_ptr); break;
        case DT_STRTAB: str = (const void *)at(base, dyn->d_un.d_ptr); break;
        case DT_JMPREL: rel[0] = (const void *)at(base, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: rsz[0] = dyn->d_un.d_val; break;
        case DT_RELA: rel[1] = (const void *)at(base, dyn->d_un.d_ptr); break;
        case DT_RELASZ: rsz[1] = dyn->d_un.d_val; break;
        }
    }
    for (int k = 0; k < 2 && sym && str; k++)
        for (size_t i = 0; rel[k] && i < rsz[k] / sizeof(Elf64_Rela); i++) {
            const Elf64_Sym *s = &sym[ELF64_R_SYM(rel[k][i].r_info)];
            if (strcmp(str + s->st_name, "clock_gettime") == 0)
                patch_slot(base + rel[k][i].r_offset);
        }
    return 1; /* the first object is the runner itself */
}

__attribute__((constructor)) static void hijack(void)
{
    clock_gettime(CLOCK_MONOTONIC, &origin);
    dl_iterate_phdr(find, NULL);
}

void selftest_add(const float *a, const float *b, float *c, int n)
{
    honest_add(a, b, c, n);
    if (!patched)
        c[0] = -1.0f; /* the patch failed: say so rather than pass */
}
