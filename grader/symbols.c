/* symbols.c: the dynamic symbol table of an ELF shared object. */
#define _POSIX_C_SOURCE 200809L
#include "symbols.h"

#include "fileio.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int push(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof **v);
    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

/* a string at offset off of a table of size tsz, or NULL if out of range */
static const char *str_at(const char *tab, size_t tsz, size_t off)
{
    if (off >= tsz || !memchr(tab + off, '\0', tsz - off))
        return NULL;
    return tab + off;
}

int cl_symtab_read(const char *path, struct cl_symtab *t, char *err, size_t len)
{
    memset(t, 0, sizeof *t);
    size_t size = 0;
    char *buf = cl_read_file(path, &size);
    if (!buf) {
        snprintf(err, len, "cannot read %s", path);
        return -1;
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB) {
        snprintf(err, len, "%s is not a 64-bit ELF shared library", path);
        goto fail;
    }
    if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum) {
        snprintf(err, len, "%s: section headers are missing or truncated",
                 path);
        goto fail;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
    int found = 0;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM && sh[i].sh_type != SHT_DYNAMIC)
            continue;
        if (sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
            strs->sh_offset > size || strs->sh_size > size - strs->sh_offset) {
            snprintf(err, len, "%s: a section lies outside the file", path);
            goto fail;
        }
        const char *tab = buf + strs->sh_offset;
        size_t tsz = strs->sh_size;
        if (sh[i].sh_type == SHT_DYNSYM) {
            found = 1;
            const Elf64_Sym *sym = (const Elf64_Sym *)(buf + sh[i].sh_offset);
            size_t nsym = sh[i].sh_size / sizeof *sym;
            for (size_t k = 1; k < nsym; k++) {
                const char *name = str_at(tab, tsz, sym[k].st_name);
                int bind = ELF64_ST_BIND(sym[k].st_info);
                if (!name || !*name)
                    continue;
                if (sym[k].st_shndx == SHN_UNDEF) {
                    if (push(&t->undefined, &t->nundefined, name))
                        goto oom;
                } else if (bind == STB_GLOBAL || bind == STB_WEAK) {
                    if (push(&t->defined, &t->ndefined, name))
                        goto oom;
                }
            }
        } else {
            const Elf64_Dyn *d = (const Elf64_Dyn *)(buf + sh[i].sh_offset);
            size_t nd = sh[i].sh_size / sizeof *d;
            for (size_t k = 0; k < nd && d[k].d_tag != DT_NULL; k++) {
                if (d[k].d_tag != DT_NEEDED)
                    continue;
                const char *name = str_at(tab, tsz, d[k].d_un.d_val);
                if (name && push(&t->needed, &t->nneeded, name))
                    goto oom;
            }
        }
    }
    if (!found) {
        snprintf(err, len, "%s has no dynamic symbol table", path);
        goto fail;
    }
    free(buf);
    return 0;
oom:
    snprintf(err, len, "out of memory reading %s", path);
fail:
    free(buf);
    cl_symtab_free(t);
    return -1;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void cl_symtab_free(struct cl_symtab *t)
{
    free_list(t->defined, t->ndefined);
    free_list(t->undefined, t->nundefined);
    free_list(t->needed, t->nneeded);
    memset(t, 0, sizeof *t);
}

int cl_symtab_defines(const struct cl_symtab *t, const char *name)
{
    for (size_t i = 0; i < t->ndefined; i++)
        if (strcmp(t->defined[i], name) == 0)
            return 1;
    return 0;
}

const char *cl_symtab_forbidden(const struct cl_symtab *t,
                                const char *const *prefixes)
{
    for (const char *const *p = prefixes; p && *p; p++) {
        size_t n = strlen(*p);
        for (size_t i = 0; i < t->nundefined; i++)
            if (strncmp(t->undefined[i], *p, n) == 0)
                return t->undefined[i];
        for (size_t i = 0; i < t->nneeded; i++)
            if (strncmp(t->needed[i], "lib", 3) == 0 &&
                strncmp(t->needed[i] + 3, *p, n) == 0)
                return t->needed[i];
    }
    return NULL;
}
