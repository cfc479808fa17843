/* symbols.c: a submission's ELF symbols, libraries and code, and what the
 * lab allows of them. */
#define _POSIX_C_SOURCE 200809L
#include "parent/symbols.h"

#include "fileio.h"

#include <elf.h>
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

/* the first system call instruction in the executable segments, or -1 */
static long find_syscall(const unsigned char *buf, size_t size,
                         const Elf64_Ehdr *eh)
{
    static const unsigned char x86[][2] = {{0x0f, 0x05},          /* syscall */
                                           {0x0f, 0x34},          /* sysenter */
                                           {0xcd, 0x80}};         /* int 0x80 */
    static const unsigned char svc[4] = {0x01, 0x00, 0x00, 0xd4}; /* svc #0 */
    if (eh->e_phoff == 0 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
        eh->e_phoff > size ||
        (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
        return -1;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) ||
            ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset)
            continue;
        const unsigned char *p = buf + ph[i].p_offset;
        size_t n = ph[i].p_filesz;
        for (size_t k = 0; k + 1 < n; k++) {
            if (eh->e_machine == EM_AARCH64) {
                if (k % 4 == 0 && k + 4 <= n && (p[k] & 0x1f) == svc[0] &&
                    p[k + 3] == svc[3] && (p[k + 2] & 0xe0) == 0x00)
                    return (long)(ph[i].p_offset + k);
                continue;
            }
            for (size_t j = 0; j < sizeof x86 / sizeof x86[0]; j++)
                if (p[k] == x86[j][0] && p[k + 1] == x86[j][1])
                    return (long)(ph[i].p_offset + k);
        }
    }
    return -1;
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
        if (cl_caps_forbids(caps, s)) {
            snprintf(why, len,
                     "the submission uses '%s', from a library this lab "
                     "forbids: the work must be your own kernels",
                     s);
            return CL_CAPS_FORBIDDEN;
        }
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
        if (cl_caps_library_forbidden(caps, lib)) {
            snprintf(why, len,
                     "the submission uses '%s', from a library this lab "
                     "forbids: the work must be your own kernels",
                     lib);
            return CL_CAPS_FORBIDDEN;
        }
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
