/* symbols.c: a submission's ELF symbols, libraries and code, and what the
 * lab allows of them. */
#define _POSIX_C_SOURCE 200809L
#include "parent/symbols.h"

#include "fatal.h"
#include "fileio.h"

#include <capstone/capstone.h>

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

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

/* ---- system call instructions, decoded --------------------------------- */

/* One stretch of code to decode: file bytes [off, off + size) at virtual
 * address addr. */
struct stretch {
    size_t off, size;
    uint64_t addr;
};

/* is instruction @p in a system call: syscall, sysenter, int 0x80 (x86-64)
 * or svc (AArch64)? */
static int is_syscall(csh cs, const cs_insn *in, int arm)
{
    (void)cs;
    if (arm)
        return in->id == ARM64_INS_SVC;
    if (in->id == X86_INS_SYSCALL || in->id == X86_INS_SYSENTER)
        return 1;
    return in->id == X86_INS_INT && in->size == 2 && in->bytes[1] == 0x80;
}

/* decode @p st from its start, instruction by instruction: the offset of
 * the first system call, or -1. An undecodable byte is skipped (x86) or a
 * word (AArch64): what follows is decoded afresh */
static long scan_stretch(csh cs, cs_insn *in, const unsigned char *buf,
                         const struct stretch *st, int arm)
{
    size_t at = 0;
    while (at < st->size) {
        const uint8_t *code = buf + st->off + at;
        size_t left = st->size - at;
        uint64_t addr = st->addr + at;
        if (cs_disasm_iter(cs, &code, &left, &addr, in)) {
            if (is_syscall(cs, in, arm))
                return (long)(st->off + at);
            at += in->size;
        } else {
            at += arm ? 4 : 1;
        }
    }
    return -1;
}

static int by_off(const void *a, const void *b)
{
    const struct stretch *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* the stretches of executable code to decode: every function symbol (of
 * .symtab, or .dynsym when stripped) decoded from its own start, and what
 * of each executable section no function covers (the PLT, padding, code
 * without a symbol) decoded from the end of the function before it; a
 * file without section headers: its executable segments */
static size_t code_stretches(const unsigned char *buf, size_t size,
                             const Elf64_Ehdr *eh, struct stretch **out)
{
    const Elf64_Shdr *sh =
        eh->e_shoff ? (const Elf64_Shdr *)(buf + eh->e_shoff) : NULL;
    size_t cap = 64, n = 0;
    struct stretch *v = cl_xmalloc(cap * sizeof *v);
#define PUSH(o, s, a)                                                          \
    do {                                                                       \
        if (n == cap)                                                          \
            v = cl_xrealloc(v, (cap *= 2) * sizeof *v);                        \
        v[n++] = (struct stretch){(o), (s), (a)};                              \
    } while (0)
    if (!sh || eh->e_shnum == 0) {
        const Elf64_Phdr *ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
        int phok = eh->e_phoff && eh->e_phentsize == sizeof(Elf64_Phdr) &&
                   eh->e_phoff <= size &&
                   (size - eh->e_phoff) / sizeof(Elf64_Phdr) >= eh->e_phnum;
        for (unsigned i = 0; phok && i < eh->e_phnum; i++)
            if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
                ph[i].p_offset <= size &&
                ph[i].p_filesz <= size - ph[i].p_offset)
                PUSH(ph[i].p_offset, ph[i].p_filesz, ph[i].p_vaddr);
        *out = v;
        return n;
    }
    /* the functions first: the symbol table with sizes, or the dynamic */
    int symtab = -1;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_SYMTAB)
            symtab = (int)i;
    for (unsigned i = 0; symtab < 0 && i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_DYNSYM)
            symtab = (int)i;
    size_t nfun = 0;
    if (symtab >= 0 && sh[symtab].sh_offset <= size &&
        sh[symtab].sh_size <= size - sh[symtab].sh_offset) {
        const Elf64_Sym *sym = (const Elf64_Sym *)(buf + sh[symtab].sh_offset);
        size_t nsym = sh[symtab].sh_size / sizeof *sym;
        for (size_t k = 0; k < nsym; k++) {
            unsigned sec = sym[k].st_shndx;
            if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || !sym[k].st_size ||
                sec == SHN_UNDEF || sec >= eh->e_shnum ||
                !(sh[sec].sh_flags & SHF_EXECINSTR) ||
                sym[k].st_value < sh[sec].sh_addr ||
                sym[k].st_value - sh[sec].sh_addr > sh[sec].sh_size ||
                sym[k].st_size >
                    sh[sec].sh_size - (sym[k].st_value - sh[sec].sh_addr))
                continue;
            size_t off =
                sh[sec].sh_offset + (sym[k].st_value - sh[sec].sh_addr);
            if (off > size || sym[k].st_size > size - off)
                continue;
            PUSH(off, sym[k].st_size, sym[k].st_value);
        }
        nfun = n;
    }
    qsort(v, nfun, sizeof *v, by_off);
    /* then what the functions leave of each executable section */
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_PROGBITS ||
            !(sh[i].sh_flags & SHF_EXECINSTR) || sh[i].sh_offset > size ||
            sh[i].sh_size > size - sh[i].sh_offset)
            continue;
        size_t from = sh[i].sh_offset, end = sh[i].sh_offset + sh[i].sh_size;
        for (size_t f = 0; f < nfun && from < end; f++) {
            if (v[f].off + v[f].size <= from || v[f].off >= end)
                continue;
            if (v[f].off > from)
                PUSH(from, v[f].off - from,
                     sh[i].sh_addr + (from - sh[i].sh_offset));
            if (v[f].off + v[f].size > from)
                from = v[f].off + v[f].size;
        }
        if (from < end)
            PUSH(from, end - from, sh[i].sh_addr + (from - sh[i].sh_offset));
    }
#undef PUSH
    *out = v;
    return n;
}

/* the first system call instruction in the executable code, decoded, or
 * -1 (also when the decoder is not available: the run-time filter still
 * stops any system call the lab does not allow) */
static long find_syscall(const unsigned char *buf, size_t size,
                         const Elf64_Ehdr *eh)
{
    int arm = eh->e_machine == EM_AARCH64;
    csh cs;
    if (cs_open(arm ? CS_ARCH_ARM64 : CS_ARCH_X86,
                arm ? CS_MODE_ARM : CS_MODE_64, &cs) != CS_ERR_OK)
        return -1;
    cs_insn *in = cs_malloc(cs);
    struct stretch *st = NULL;
    size_t n = code_stretches(buf, size, eh, &st);
    long found = -1;
    for (size_t i = 0; i < n; i++) {
        long at = scan_stretch(cs, in, buf, &st[i], arm);
        if (at >= 0 && (found < 0 || at < found))
            found = at;
    }
    free(st);
    cs_free(in, 1);
    cs_close(&cs);
    return found;
}

int cl_symtab_parse(const unsigned char *buf, size_t size, const char *name,
                    struct cl_symtab *t, char *err, size_t len)
{
    memset(t, 0, sizeof *t);
    t->syscall_at = -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB ||
        (eh->e_machine != EM_X86_64 && eh->e_machine != EM_AARCH64)) {
        snprintf(err, len, "%s is not a 64-bit ELF shared library", name);
        return -1;
    }
    if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum) {
        snprintf(err, len, "%s: section headers are missing or truncated",
                 name);
        return -1;
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
            snprintf(err, len, "%s: a section lies outside the file", name);
            goto fail;
        }
        const char *tab = (const char *)buf + strs->sh_offset;
        size_t tsz = strs->sh_size;
        if (sh[i].sh_type == SHT_DYNSYM) {
            found = 1;
            const Elf64_Sym *sym = (const Elf64_Sym *)(buf + sh[i].sh_offset);
            size_t nsym = sh[i].sh_size / sizeof *sym;
            for (size_t k = 1; k < nsym; k++) {
                const char *s = str_at(tab, tsz, sym[k].st_name);
                int bind = ELF64_ST_BIND(sym[k].st_info);
                if (!s || !*s)
                    continue;
                if (sym[k].st_shndx == SHN_UNDEF) {
                    if (push(&t->undefined, &t->nundefined, s))
                        goto oom;
                } else if (bind == STB_GLOBAL || bind == STB_WEAK ||
                           bind == STB_GNU_UNIQUE) {
                    if (push(&t->defined, &t->ndefined, s))
                        goto oom;
                }
            }
        } else {
            const Elf64_Dyn *d = (const Elf64_Dyn *)(buf + sh[i].sh_offset);
            size_t nd = sh[i].sh_size / sizeof *d;
            for (size_t k = 0; k < nd && d[k].d_tag != DT_NULL; k++) {
                if (d[k].d_tag != DT_NEEDED)
                    continue;
                const char *s = str_at(tab, tsz, d[k].d_un.d_val);
                if (s && push(&t->needed, &t->nneeded, s))
                    goto oom;
            }
        }
    }
    if (!found) {
        snprintf(err, len, "%s has no dynamic symbol table", name);
        goto fail;
    }
    t->syscall_at = find_syscall(buf, size, eh);
    return 0;
oom:
    snprintf(err, len, "out of memory reading %s", name);
fail:
    cl_symtab_free(t);
    return -1;
}

int cl_symtab_read(const char *path, struct cl_symtab *t, char *err, size_t len)
{
    size_t size = 0;
    char *buf = cl_read_file(path, &size);
    if (!buf) {
        memset(t, 0, sizeof *t);
        snprintf(err, len, "cannot read %s", path);
        return -1;
    }
    int rc =
        cl_symtab_parse((const unsigned char *)buf, size, path, t, err, len);
    free(buf);
    return rc;
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
    t->syscall_at = -1;
}

int cl_symtab_defines(const struct cl_symtab *t, const char *name)
{
    for (size_t i = 0; i < t->ndefined; i++)
        if (strcmp(t->defined[i], name) == 0)
            return 1;
    return 0;
}

// ---- capabilities -----------------------------------------------------------

/* a pattern is a name, or a prefix ending in '*' */
static int match(const char *pattern, const char *name)
{
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '*')
        return strncmp(pattern, name, n - 1) == 0;
    return strcmp(pattern, name) == 0;
}

static int match_any(const char *const *patterns, const char *name)
{
    for (const char *const *p = patterns; p && *p; p++)
        if (match(*p, name))
            return 1;
    return 0;
}

/* refused with a reason, whatever the allow-list says */
static const struct {
    const char *reason;
    const char *const names[40];
} refused[] = {
    {"dynamic loading",
     {"dlopen", "dlsym", "dlvsym", "dlmopen", "dladdr", "dlinfo",
      "__libc_dlopen_mode", "__libc_dlsym", NULL}},
    {"starting processes or programs",
     {"fork", "vfork", "clone", "clone3", "execv*", "execl*", "execve",
      "fexecve", "system", "popen", "posix_spawn*", "daemon", NULL}},
    {"signals",
     {"kill", "killpg", "raise", "signal", "sigaction", "sigprocmask",
      "pthread_kill", "pthread_sigmask", "tgkill", "sigqueue", "alarm",
      "setitimer", NULL}},
    {"memory mappings and protections",
     {"mprotect", "mmap", "mmap64", "munmap", "mremap", "madvise",
      "pkey_mprotect", "pkey_alloc", NULL}},
    {"files and descriptors",
     {"open",    "open64",  "openat", "openat64", "creat",        "fopen",
      "fopen64", "freopen", "fdopen", "tmpfile",  "write",        "read",
      "pread*",  "pwrite*", "close",  "dup",      "dup2",         "dup3",
      "pipe",    "pipe2",   "ioctl",  "fcntl*",   "unlink*",      "remove",
      "rename*", "mkdir*",  "rmdir",  "opendir",  "truncate",     "ftruncate",
      "chmod",   "chown",   "link",   "symlink",  "memfd_create", NULL}},
    {"the network",
     {"socket", "socketpair", "connect", "bind", "listen", "accept*", "send*",
      "recv*", "getaddrinfo", NULL}},
    {"the environment or the working directory",
     {"setenv", "putenv", "unsetenv", "clearenv", "chdir", "fchdir", "chroot",
      NULL}},
    {"threads",
     {"pthread_create", "pthread_detach", "pthread_join", "thrd_create",
      "_ZNSt6thread*", NULL}},
    {"other processes and raw system calls",
     {"syscall", "ptrace", "process_vm_readv", "process_vm_writev", "prctl",
      "setuid", "setgid", "seteuid", "setreuid", "setresuid", "setsid",
      "setpgid", "getppid", NULL}},
    {"CUDA's host callbacks, IPC or driver entry points",
     {"cudaLaunchHostFunc", "cudaStreamAddCallback", "cudaIpc*",
      "cudaGetDriverEntryPoint*", "cudaDeviceReset", "cudaThreadExit",
      "cudaGraphAddHostNode", "cudaGraphHostNode*",
      "cudaGraphExecHostNodeSetParams", "cudaUserObjectCreate",
      "cudaProfilerStart", "cudaProfilerStop", "cu[A-Z]*", NULL}},
};

/* what every lab may import */
static const char *const common_imports[] = {
    /* the CUDA runtime (what is refused above is checked first) */
    "cuda*", "__cuda*",
    /* memory and strings */
    "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign",
    "memalign", "memcpy", "memmove", "memset", "memcmp", "memchr", "strlen",
    "strnlen", "strcmp", "strncmp", "strcpy", "strncpy", "strcat", "strncat",
    "strchr", "strrchr", "strstr", "strdup", "strtok", "strtok_r",
    "__memcpy_chk", "__memmove_chk", "__memset_chk", "__strcpy_chk",
    "__strcat_chk", "__strncpy_chk",
    /* numbers */
    "atoi", "atol", "atoll", "atof", "strtol", "strtoul", "strtoll", "strtoull",
    "strtod", "strtof", "__isoc23_strto*", "__isoc99_sscanf", "__isoc23_sscanf",
    "sscanf", "abs", "labs", "llabs", "div", "ldiv", "qsort", "bsearch", "rand",
    "srand", "rand_r",
    /* math */
    "sqrt*", "cbrt*", "exp*", "log*", "pow*", "sin*", "cos*", "tan*", "asin*",
    "acos*", "atan*", "erf*", "fabs*", "floor*", "ceil*", "round*", "trunc*",
    "lround*", "llround*", "rint*", "lrint*", "nearbyint*", "fmod*", "fmin*",
    "fmax*", "fma*", "hypot*", "frexp*", "ldexp*", "modf*", "copysign*", "nan*",
    "remainder*", "scalbn*", "ilogb*", "tgamma*", "lgamma*", "__isnan*",
    "__isinf*", "__finite*", "__fpclassify*", "__signbit*", "__exp*_finite",
    "__log*_finite", "__pow*_finite",
    /* printing to stdout and stderr */
    "printf", "fprintf", "vprintf", "vfprintf", "puts", "putchar", "fputs",
    "fputc", "putc", "fwrite", "fflush", "snprintf", "sprintf", "vsnprintf",
    "vsprintf", "perror", "__printf_chk", "__fprintf_chk", "__sprintf_chk",
    "__snprintf_chk", "__vfprintf_chk", "__vsnprintf_chk", "__vsprintf_chk",
    "__vprintf_chk", "stdout", "stderr", "strerror", "__errno_location",
    /* time, the environment's ladder variables */
    "clock", "time", "clock_gettime", "gettimeofday", "getenv", "secure_getenv",
    /* ending */
    "exit", "abort", "__assert_fail", "__stack_chk_fail",
    /* the C++ runtime */
    "__cxa_*", "__gxx_personality_v0", "_Unwind_*", "__gmon_start__", "_ITM_*",
    "__dso_handle", "_Znw*", "_Zna*", "_Zdl*", "_Zda*", "_ZSt*", "_ZNSt*",
    "_ZNKSt*", "_ZNSo*", "_ZNSi*", "_ZTV*", "_ZTI*", "_ZTS*",
    "__cxa_thread_atexit_impl", "pthread_mutex_*", "pthread_once",
    "pthread_key_*", "pthread_getspecific", "pthread_setspecific",
    "pthread_self", "__tls_get_addr", NULL};

/* C++ library names that reach files or threads under allowed prefixes */
static const char *const cxx_refused[] = {"thread",  "filesystem",    "fstream",
                                          "filebuf", "random_device", NULL};

static const char *const common_libraries[] = {
    "libcudart.so*", "libstdc++.so*",       "libgcc_s.so*",         "libc.so*",
    "libm.so*",      "ld-linux-x86-64.so*", "ld-linux-aarch64.so*", NULL};

const char *cl_caps_refusal(const struct cl_caps *caps, const char *name)
{
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        for (const char *const *n = refused[i].names; *n; n++) {
            /* "cu[A-Z]*": the driver API, cuMemAlloc and the like */
            if (strcmp(*n, "cu[A-Z]*") == 0) {
                if (name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' &&
                    name[2] <= 'Z')
                    return refused[i].reason;
                continue;
            }
            if (match(*n, name))
                return refused[i].reason;
        }
    if (strncmp(name, "_Z", 2) == 0)
        for (const char *const *c = cxx_refused; *c; c++)
            if (strstr(name, *c))
                return "files or threads of the C++ library";
    if (match_any(common_imports, name) ||
        (caps && match_any(caps->imports, name)))
        return NULL;
    return "not on the list of what a lab submission may call";
}

/* a symbol or library of a library the lab forbids */
static enum cl_caps_verdict forbidden_use(const char *what, char *why,
                                          size_t len)
{
    snprintf(why, len,
             "the submission uses '%s', from a library this lab forbids: "
             "the work must be your own kernels",
             what);
    return CL_CAPS_FORBIDDEN;
}

enum cl_caps_verdict cl_caps_check(const struct cl_caps *caps,
                                   const char *const *entries,
                                   const struct cl_symtab *t, char *why,
                                   size_t len)
{
    for (const char *const *e = entries; e && *e; e++)
        if (!cl_symtab_defines(t, *e)) {
            snprintf(why, len,
                     "the submission does not define '%s' (was it renamed, "
                     "made static, or compiled without extern \"C\"?)",
                     *e);
            return CL_CAPS_MISSING;
        }
    /* a named reason first (fopen over fclose), then the first unlisted */
    const char *worst = NULL, *worst_why = NULL;
    int named = 0;
    for (size_t i = 0; i < t->nundefined; i++) {
        const char *s = t->undefined[i];
        if (cl_caps_forbids(caps, s))
            return forbidden_use(s, why, len);
        const char *no =
            caps && caps->any_import ? NULL : cl_caps_refusal(caps, s);
        int is_named = no && strcmp(no, "not on the list of what a lab "
                                        "submission may call") != 0;
        if (no && (!worst || (is_named && !named))) {
            worst = s;
            worst_why = no;
            named = is_named;
        }
    }
    if (worst) {
        snprintf(why, len,
                 "the submission uses '%s' (%s), which a lab submission may "
                 "not: your code may use the CUDA runtime, the C and C++ "
                 "libraries' memory, string, math and printing functions%s "
                 "(docs/grading.md lists them)",
                 worst, worst_why,
                 caps && caps->imports ? ", and the libraries the lab allows"
                                       : "");
        return CL_CAPS_FORBIDDEN;
    }
    for (size_t i = 0; i < t->nneeded; i++) {
        const char *lib = t->needed[i];
        if (cl_caps_library_forbidden(caps, lib))
            return forbidden_use(lib, why, len);
        if (!(caps && caps->any_import) && !match_any(common_libraries, lib) &&
            !(caps && match_any(caps->libraries, lib))) {
            snprintf(why, len,
                     "the submission needs the library '%s', which this lab "
                     "does not allow",
                     lib);
            return CL_CAPS_FORBIDDEN;
        }
    }
    for (size_t i = 0; i < t->ndefined; i++)
        if (cl_caps_forbids(caps, t->defined[i])) {
            snprintf(why, len,
                     "the submission defines '%s': a library this lab forbids "
                     "is linked into it",
                     t->defined[i]);
            return CL_CAPS_FORBIDDEN;
        }
    if (t->syscall_at >= 0 && !(caps && caps->any_import)) {
        snprintf(why, len,
                 "the submission's machine code contains a system call "
                 "instruction (at file offset %ld): a lab submission may "
                 "reach the system only through the CUDA runtime and the C "
                 "library",
                 t->syscall_at);
        return CL_CAPS_FORBIDDEN;
    }
    return CL_CAPS_OK;
}
