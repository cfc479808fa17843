/* What the red-team fixtures that patch the runner share: point the
 * runner's own GOT slot for a C library function at a function of ours.
 * The runner is linked -z relro -z now, but mprotect() without PROT_EXEC
 * is allowed, so the slot's page is made writable first. Returns how many
 * slots were patched (the runner itself is the first object
 * dl_iterate_phdr() reports). */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

struct got_patch {
    const char *name; /* the function, as the runner imports it */
    void *to;         /* ours */
    int patched;      /* slots changed */
};

static uintptr_t got_at(uintptr_t base, uintptr_t p)
{
    return p < base ? base + p : p; /* ld.so relocates d_ptr in place */
}

static int got_find(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct got_patch *gp = arg;
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
        case DT_SYMTAB: sym = (const void *)got_at(base, dyn->d_un.d_ptr); break;
        case DT_STRTAB: str = (const void *)got_at(base, dyn->d_un.d_ptr); break;
        case DT_JMPREL: rel[0] = (const void *)got_at(base, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: rsz[0] = dyn->d_un.d_val; break;
        case DT_RELA: rel[1] = (const void *)got_at(base, dyn->d_un.d_ptr); break;
        case DT_RELASZ: rsz[1] = dyn->d_un.d_val; break;
        }
    }
    for (int k = 0; k < 2 && sym && str; k++)
        for (size_t i = 0; rel[k] && i < rsz[k] / sizeof(Elf64_Rela); i++) {
            const Elf64_Sym *s = &sym[ELF64_R_SYM(rel[k][i].r_info)];
            if (strcmp(str + s->st_name, gp->name) != 0)
                continue;
            uintptr_t slot = base + rel[k][i].r_offset;
            uintptr_t page = slot & ~(uintptr_t)4095;
            if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE) == 0) {
                *(void **)slot = gp->to;
                gp->patched++;
            }
        }
    return 1; /* the first object is the runner itself */
}

static inline int got_patch(const char *name, void *to)
{
    struct got_patch gp = {name, to, 0};
    dl_iterate_phdr(got_find, &gp);
    return gp.patched;
}

/* the runner's clock_gettime, pointed at one of ours that runs at @p scale
 * of the real speed (CLOCK_MONOTONIC, from now): every time the runner
 * reports is then that share of the truth. Returns the slots patched. */
#include <time.h>

static struct timespec got_origin;
static double got_scale = 1.0;

static inline int got_scaled_clock(clockid_t id, struct timespec *ts)
{
    struct timespec now;
    int rc = clock_gettime(id, &now); /* our own GOT: the real one */
    if (rc != 0 || id != CLOCK_MONOTONIC)
        return rc;
    double d = (double)(now.tv_sec - got_origin.tv_sec) +
               (double)(now.tv_nsec - got_origin.tv_nsec) * 1e-9;
    d *= got_scale;
    ts->tv_sec = got_origin.tv_sec + (time_t)d;
    ts->tv_nsec = got_origin.tv_nsec + (long)((d - (double)(time_t)d) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
    return 0;
}

static inline int got_slow_clock(double scale)
{
    clock_gettime(CLOCK_MONOTONIC, &got_origin);
    got_scale = scale;
    return got_patch("clock_gettime", (void *)got_scaled_clock);
}
