/* test_symbols.c: the static checks of a submission (symbols.h), before
 * anything runs: the ELF reader on hand-built images and on damaged files;
 * the capability rules; every built solution and skeleton passing its
 * lab's checks; every known-bad fixture refused with the symbol or the
 * library named; and `grade --check`'s exit codes. Also the TODO-marker
 * search of the report (report.h), which reads the student's file. */
#define _GNU_SOURCE
#include "fileio.h"
#include "protocol/glue.h"
#include "parent/grade.h"
#include "parent/report.h"
#include "parent/symbols.h"

#include "tests/shell.h"
#include "specs/labs.h"
#include "tests/suite.h"

#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CL_BUILD_DIR
#define CL_BUILD_DIR "build"
#endif
#define GRADE              CL_BUILD_DIR "/bin/grade"
#define SOLUTION_01        CL_BUILD_DIR "/solution/01-vector-add.so"
#define FIXTURE(lab, name) CL_BUILD_DIR "/fixtures/lab" lab "/" name ".so"

static char why[2048];

static int has(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return 1;
    return 0;
}

/* the built library of lab @p lab: "solution" or "student" */
static void lib_path(char *buf, size_t len, const char *kind,
                     const struct cl_lab *lab)
{
    snprintf(buf, len, "%s/%s/%s-%s.so", CL_BUILD_DIR, kind, lab->id,
             lab->slug);
}

// ---- the ELF reader on a hand-built image ---------------------------------

#define IMG_CODE  128 /* 16 bytes of "code" */
#define IMG_STR   160
#define IMG_SYM   224 /* 6 symbols */
#define IMG_DYN   368 /* 2 entries */
#define IMG_SH    400 /* 5 section headers */
#define IMG_SIZE  720
#define STR_ENTRY 1
#define STR_PUTS  7
#define STR_LIBC  12
#define STR_HIDE  22
#define STR_WEAK  29

static Elf64_Sym symbol(Elf64_Word name, int bind, Elf64_Section shndx)
{
    Elf64_Sym s = {.st_name = name,
                   .st_info = ELF64_ST_INFO(bind, STT_FUNC),
                   .st_shndx = shndx,
                   .st_value = shndx == SHN_UNDEF ? 0 : IMG_CODE};
    return s;
}

static Elf64_Shdr section(Elf64_Word type, Elf64_Off off, Elf64_Xword size,
                          Elf64_Word link, Elf64_Xword entsize)
{
    Elf64_Shdr s = {.sh_type = type,
                    .sh_offset = off,
                    .sh_size = size,
                    .sh_link = link,
                    .sh_entsize = entsize};
    return s;
}

/* a 64-bit shared object of @p machine: defines entry (global) and weak_fn
 * (weak), a local 'hidden', imports puts, needs libc.so.6; @p code is its
 * executable segment (PF_X unless @p noexec) */
static void build_elf(unsigned char *b, int machine,
                      const unsigned char code[16], int noexec)
{
    static const char strs[] = "\0entry\0puts\0libc.so.6\0hidden\0weak_fn";
    memset(b, 0, IMG_SIZE);
    Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_type = ET_DYN;
    eh->e_machine = (Elf64_Half)machine;
    eh->e_version = EV_CURRENT;
    eh->e_phoff = sizeof *eh;
    eh->e_shoff = IMG_SH;
    eh->e_ehsize = sizeof *eh;
    eh->e_phentsize = sizeof(Elf64_Phdr);
    eh->e_phnum = 1;
    eh->e_shentsize = sizeof(Elf64_Shdr);
    eh->e_shnum = 5;
    Elf64_Phdr *ph = (Elf64_Phdr *)(b + sizeof *eh);
    ph->p_type = PT_LOAD;
    ph->p_flags = PF_R | (noexec ? 0 : PF_X);
    ph->p_offset = IMG_CODE;
    ph->p_filesz = ph->p_memsz = 16;
    memcpy(b + IMG_CODE, code, 16);
    memcpy(b + IMG_STR, strs, sizeof strs);
    Elf64_Sym *sym = (Elf64_Sym *)(b + IMG_SYM);
    sym[1] = symbol(STR_ENTRY, STB_GLOBAL, 4);
    sym[2] = symbol(STR_PUTS, STB_GLOBAL, SHN_UNDEF);
    sym[3] = symbol(STR_HIDE, STB_LOCAL, 4);
    sym[4] = symbol(STR_WEAK, STB_WEAK, 4);
    sym[5] = symbol(9999, STB_GLOBAL, 4); /* outside the string table */
    Elf64_Dyn *dyn = (Elf64_Dyn *)(b + IMG_DYN);
    dyn[0].d_tag = DT_NEEDED;
    dyn[0].d_un.d_val = STR_LIBC;
    dyn[1].d_tag = DT_NULL;
    Elf64_Shdr *sh = (Elf64_Shdr *)(b + IMG_SH);
    sh[1] = section(SHT_STRTAB, IMG_STR, sizeof strs, 0, 0);
    sh[2] = section(SHT_DYNSYM, IMG_SYM, 6 * sizeof(Elf64_Sym), 1,
                    sizeof(Elf64_Sym));
    sh[3] = section(SHT_DYNAMIC, IMG_DYN, 2 * sizeof(Elf64_Dyn), 1,
                    sizeof(Elf64_Dyn));
    sh[4] = section(SHT_PROGBITS, IMG_CODE, 16, 0, 0);
    sh[4].sh_flags = SHF_ALLOC | (noexec ? 0 : SHF_EXECINSTR);
    sh[4].sh_addr = IMG_CODE;
}

static const unsigned char nops[16] = {0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
                                       0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
                                       0x90, 0x90, 0x90, 0xc3};

/* the reader lists global and weak definitions, imports and needed
 * libraries, skips locals and names outside the string table */
START_TEST(test_symtab_lists_definitions_imports_and_needs)
{
    static unsigned char img[IMG_SIZE];
    struct cl_symtab t;
    build_elf(img, EM_X86_64, nops, 0);
    ck_assert_msg(
        cl_symtab_parse(img, IMG_SIZE, "img.so", &t, why, sizeof why) == 0,
        "%s", why);
    ck_assert_uint_eq(t.ndefined, 2);
    ck_assert_str_eq(t.defined[0], "entry");
    ck_assert_str_eq(t.defined[1], "weak_fn");
    ck_assert_uint_eq(t.nundefined, 1);
    ck_assert_str_eq(t.undefined[0], "puts");
    ck_assert_uint_eq(t.nneeded, 1);
    ck_assert_str_eq(t.needed[0], "libc.so.6");
    ck_assert_int_eq(t.syscall_at, -1);
    ck_assert_int_eq(cl_symtab_defines(&t, "entry"), 1);
    ck_assert_int_eq(cl_symtab_defines(&t, "hidden"), 0);
    ck_assert_int_eq(cl_symtab_defines(&t, "puts"), 0);
    cl_symtab_free(&t);
    ck_assert_uint_eq(t.ndefined, 0);
    ck_assert_ptr_null(t.defined);
    ck_assert_int_eq(t.syscall_at, -1);
}
END_TEST

/* a system call instruction in executable code is found at its offset,
 * decoded: syscall, sysenter, int 0x80 (x86-64), svc (AArch64, aligned);
 * not in a section that is not executable, nor the other machine's
 * encoding */
START_TEST(test_symtab_finds_syscalls_in_executable_code)
{
    static unsigned char img[IMG_SIZE];
    static const struct {
        int machine;
        unsigned char at, b0, b1, b2, b3;
        long want;
    } cases[] = {
        {EM_X86_64, 2, 0x0f, 0x05, 0x90, 0x90, IMG_CODE + 2},   /* syscall */
        {EM_X86_64, 7, 0x0f, 0x34, 0x90, 0x90, IMG_CODE + 7},   /* sysenter */
        {EM_X86_64, 12, 0xcd, 0x80, 0x90, 0x90, IMG_CODE + 12}, /* int 0x80 */
        {EM_X86_64, 0, 0x01, 0x00, 0x00, 0xd4, -1}, /* svc: not x86 */
        {EM_AARCH64, 4, 0x01, 0x00, 0x00, 0xd4, IMG_CODE + 4}, /* svc #0 */
        {EM_AARCH64, 8, 0x01, 0x10, 0x00, 0xd4, IMG_CODE + 8}, /* svc #0x80 */
        {EM_AARCH64, 2, 0x01, 0x00, 0x00, 0xd4, -1},           /* unaligned */
        {EM_AARCH64, 4, 0x0f, 0x05, 0x0f, 0x05, -1}, /* x86's syscall */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char code[16];
        memcpy(code, nops, sizeof code);
        code[cases[i].at] = cases[i].b0;
        code[cases[i].at + 1] = cases[i].b1;
        code[cases[i].at + 2] = cases[i].b2;
        code[cases[i].at + 3] = cases[i].b3;
        struct cl_symtab t;
        build_elf(img, cases[i].machine, code, 0);
        ck_assert_msg(
            cl_symtab_parse(img, IMG_SIZE, "img.so", &t, why, sizeof why) == 0,
            "%s", why);
        ck_assert_msg(t.syscall_at == cases[i].want, "case %zu: at %ld", i,
                      t.syscall_at);
        cl_symtab_free(&t);
        /* the same bytes in a segment that is not executable */
        build_elf(img, cases[i].machine, code, 1);
        ck_assert_int_eq(
            cl_symtab_parse(img, IMG_SIZE, "img.so", &t, why, sizeof why), 0);
        ck_assert_int_eq(t.syscall_at, -1);
        cl_symtab_free(&t);
    }
    /* 0x0f as the segment's last byte: nothing after it to pair with */
    unsigned char code[16];
    memcpy(code, nops, sizeof code);
    code[15] = 0x0f;
    struct cl_symtab t;
    build_elf(img, EM_X86_64, code, 0);
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "img.so", &t, why, sizeof why), 0);
    ck_assert_int_eq(t.syscall_at, -1);
    cl_symtab_free(&t);
}
END_TEST

/* images that are not what they claim: refused, never read out of bounds */
START_TEST(test_symtab_refuses_malformed_images)
{
    static unsigned char img[IMG_SIZE];
    struct cl_symtab t;
    build_elf(img, EM_386, nops, 0);
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so is not a 64-bit ELF shared library");
    build_elf(img, EM_X86_64, nops, 0);
    img[EI_CLASS] = ELFCLASS32;
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so is not a 64-bit ELF shared library");
    build_elf(img, EM_X86_64, nops, 0);
    img[EI_DATA] = ELFDATA2MSB;
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so is not a 64-bit ELF shared library");
    /* shorter than a header */
    build_elf(img, EM_X86_64, nops, 0);
    ck_assert_int_eq(cl_symtab_parse(img, 40, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so is not a 64-bit ELF shared library");
    /* the section headers cut off */
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE - 1, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so: section headers are missing or truncated");
    ((Elf64_Ehdr *)img)->e_shoff = 0;
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so: section headers are missing or truncated");
    /* the symbol table points past the end */
    build_elf(img, EM_X86_64, nops, 0);
    ((Elf64_Shdr *)(img + IMG_SH))[2].sh_offset = IMG_SIZE - 8;
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so: a section lies outside the file");
    ck_assert_ptr_null(t.defined);
    /* its string table does */
    build_elf(img, EM_X86_64, nops, 0);
    ((Elf64_Shdr *)(img + IMG_SH))[1].sh_size = (Elf64_Xword)-1;
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so: a section lies outside the file");
    /* no dynamic symbol table: none, or one whose link is out of range */
    build_elf(img, EM_X86_64, nops, 0);
    ((Elf64_Shdr *)(img + IMG_SH))[2].sh_type = SHT_PROGBITS;
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so has no dynamic symbol table");
    build_elf(img, EM_X86_64, nops, 0);
    ((Elf64_Shdr *)(img + IMG_SH))[2].sh_link = 99;
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "x.so", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "x.so has no dynamic symbol table");
    /* a program header table past the end: symbols read, and the code
     * still decoded from its section (a broken header hides nothing) */
    build_elf(img, EM_X86_64, nops, 0);
    img[IMG_CODE] = 0x0f;
    img[IMG_CODE + 1] = 0x05;
    ((Elf64_Ehdr *)img)->e_phoff = IMG_SIZE;
    ck_assert_int_eq(
        cl_symtab_parse(img, IMG_SIZE, "x.so", &t, why, sizeof why), 0);
    ck_assert_int_eq(t.syscall_at, IMG_CODE);
    ck_assert_uint_eq(t.ndefined, 2);
    cl_symtab_free(&t);
}
END_TEST

/* files: missing, not ELF, empty, truncated, damaged in place */
START_TEST(test_symbols_refuses_missing_or_damaged_files)
{
    struct cl_symtab t;
    ck_assert_int_eq(cl_symtab_read("/nonexistent.so", &t, why, sizeof why),
                     -1);
    ck_assert_str_eq(why, "cannot read /nonexistent.so");
    ck_assert_int_eq(cl_symtab_read("Makefile", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "Makefile is not a 64-bit ELF shared library");
    char path[] = "/tmp/cl-elf-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(cl_symtab_read(path, &t, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "is not a 64-bit ELF shared library"));
    /* a truncated library: the header survives, the sections do not */
    size_t n = 0;
    unsigned char *so = (unsigned char *)cl_read_file(SOLUTION_01, &n);
    ck_assert_ptr_nonnull(so);
    ck_assert_uint_gt(n, 4096);
    FILE *f = fopen(path, "wb");
    ck_assert_uint_eq(fwrite(so, 1, 256, f), 256);
    fclose(f);
    ck_assert_int_eq(cl_symtab_read(path, &t, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "section headers are missing or "
                                      "truncated"));
    ck_assert_ptr_nonnull(strstr(why, path));
    /* the whole library with its dynamic symbol table renamed away */
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)so;
    Elf64_Shdr *sh = (Elf64_Shdr *)(so + eh->e_shoff);
    int dynsym = 0;
    for (int i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_DYNSYM) {
            sh[i].sh_type = SHT_PROGBITS;
            dynsym++;
        }
    ck_assert_int_eq(dynsym, 1);
    ck_assert_int_eq(cl_symtab_parse(so, n, "damaged.so", &t, why, sizeof why),
                     -1);
    ck_assert_str_eq(why, "damaged.so has no dynamic symbol table");
    free(so);
    unlink(path);
}
END_TEST

// ---- the rules --------------------------------------------------------------

/* what any lab may import, and why the rest may not */
START_TEST(test_caps_refuse_imports_for_named_reasons)
{
    const struct cl_caps *c1 = cl_lab_find("01", NULL)->caps;
    const struct cl_caps *c5 = cl_lab_find("05", NULL)->caps;
    static const struct {
        const char *name, *reason; /* NULL: allowed */
    } rules[] = {
        {"cudaMalloc", NULL},
        {"cudaLaunchKernel", NULL},
        {"__cudaRegisterFunction", NULL},
        {"malloc", NULL},
        {"sqrtf", NULL},
        {"printf", NULL},
        {"getenv", NULL},
        {"_Znwm", NULL},
        {"_ZNSt6vectorIfSaIfEE17_M_realloc_insertEv", NULL},
        {"dlopen", "dynamic loading"},
        {"dlsym", "dynamic loading"},
        {"fork", "starting processes or programs"},
        {"execvp", "starting processes or programs"},
        {"posix_spawnp", "starting processes or programs"},
        {"system", "starting processes or programs"},
        {"kill", "signals"},
        {"raise", "signals"},
        {"mprotect", "memory mappings and protections"},
        {"mmap64", "memory mappings and protections"},
        {"fopen", "files and descriptors"},
        {"write", "files and descriptors"},
        {"pwrite64", "files and descriptors"},
        {"unlinkat", "files and descriptors"},
        {"socket", "the network"},
        {"sendmsg", "the network"},
        {"setenv", "the environment or the working directory"},
        {"chdir", "the environment or the working directory"},
        {"pthread_create", "threads"},
        {"_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateEEPFvvE",
         "threads"},
        {"syscall", "other processes and raw system calls"},
        {"getppid", "other processes and raw system calls"},
        {"cudaLaunchHostFunc", "CUDA's host callbacks, IPC or driver entry "
                               "points"},
        {"cudaIpcGetMemHandle", "CUDA's host callbacks, IPC or driver entry "
                                "points"},
        {"cuMemAlloc_v2", "CUDA's host callbacks, IPC or driver entry points"},
        {"cuLaunchKernel", "CUDA's host callbacks, IPC or driver entry points"},
        {"_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode",
         "files or threads of the C++ library"},
        {"_ZNSt13random_device7_M_initERKNSt7__cxx1112basic_stringIcSt11char_"
         "traitsIcESaIcEEE",
         "files or threads of the C++ library"},
        {"gethostname", "not on the list of what a lab submission may call"},
        {"cublasSgemm_v2", "not on the list of what a lab submission may call"},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const char *got = cl_caps_refusal(c1, rules[i].name);
        if (rules[i].reason)
            ck_assert_msg(got && strcmp(got, rules[i].reason) == 0,
                          "%s: '%s', want '%s'", rules[i].name,
                          got ? got : "(allowed)", rules[i].reason);
        else
            ck_assert_msg(got == NULL, "%s refused: %s", rules[i].name, got);
    }
    /* cuBLAS where the lab allows it; the refusals stand everywhere */
    ck_assert_ptr_null(cl_caps_refusal(c5, "cublasSgemm_v2"));
    ck_assert_str_eq(cl_caps_refusal(c5, "dlopen"), "dynamic loading");
    ck_assert_str_eq(cl_caps_refusal(NULL, "fork"),
                     "starting processes or programs");
    ck_assert_ptr_null(cl_caps_refusal(NULL, "memcpy"));
}
END_TEST

/* libraries a lab forbids, by prefix after "lib" */
START_TEST(test_caps_forbid_libraries_by_prefix)
{
    const struct cl_caps *c1 = cl_lab_find("01", NULL)->caps;
    const struct cl_caps *c5 = cl_lab_find("05", NULL)->caps;
    ck_assert_int_eq(cl_caps_library_forbidden(c1, "libcudnn.so.9"), 1);
    ck_assert_int_eq(cl_caps_library_forbidden(c1, "libcublasLt.so.13"), 1);
    ck_assert_int_eq(cl_caps_library_forbidden(c1, "libcurand.so.10"), 1);
    ck_assert_int_eq(cl_caps_library_forbidden(c1, "libcudart.so.13"), 0);
    ck_assert_int_eq(cl_caps_library_forbidden(c1, "cudnn.so"), 0);
    ck_assert_int_eq(cl_caps_library_forbidden(c5, "libcudnn_ops.so.9"), 1);
    ck_assert_int_eq(cl_caps_library_forbidden(c5, "libcublas.so.13"), 0);
    ck_assert_int_eq(cl_caps_library_forbidden(NULL, "libcudnn.so.9"), 0);
    const char *const *p = cl_caps_forbidden_prefixes(c5);
    ck_assert_ptr_nonnull(p);
    ck_assert_str_eq(p[0], "cudnn");
    ck_assert_ptr_null(p[1]);
    ck_assert_ptr_null(cl_caps_forbidden_prefixes(NULL));
    /* every lab forbids cuDNN; only 5 and 6 allow cuBLAS */
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        int five_or_six =
            strcmp((*l)->id, "05") == 0 || strcmp((*l)->id, "06") == 0;
        ck_assert_int_eq(cl_caps_library_forbidden((*l)->caps, "libcudnn.so"),
                         1);
        ck_assert_int_eq(
            cl_caps_library_forbidden((*l)->caps, "libcublas.so.13"),
            !five_or_six);
        ck_assert_int_eq(cl_caps_refusal((*l)->caps, "cublasSgemm_v2") == NULL,
                         five_or_six);
    }
}
END_TEST

/* the verdict on a symbol table built by hand: which problem is named */
START_TEST(test_caps_check_reports_problems_in_priority_order)
{
    const struct cl_caps *c1 = cl_lab_find("01", NULL)->caps;
    const struct cl_caps *c0 = cl_lab_find("00", NULL)->caps;
    static const char *const entries[] = {"vector_add", NULL};
    char *def[] = {"vector_add"};
    char *und[] = {"cudaMalloc", "gethostname", "fopen", "fclose"};
    char *lib[] = {"libcudart.so.13", "libc.so.6"};
    struct cl_symtab t = {def, 1, und, 2, lib, 2, -1};
    /* an unlisted import alone */
    ck_assert_int_eq(cl_caps_check(c1, entries, &t, why, sizeof why),
                     CL_CAPS_FORBIDDEN);
    ck_assert_ptr_nonnull(strstr(why, "uses 'gethostname' (not on the list"));
    /* a named reason wins over an unlisted one listed before it */
    t.nundefined = 4;
    ck_assert_int_eq(cl_caps_check(c1, entries, &t, why, sizeof why),
                     CL_CAPS_FORBIDDEN);
    ck_assert_ptr_nonnull(strstr(why, "uses 'fopen' (files and descriptors)"));
    /* the entry point comes first of all */
    static const char *const other[] = {"matmul", NULL};
    ck_assert_int_eq(cl_caps_check(c1, other, &t, why, sizeof why),
                     CL_CAPS_MISSING);
    ck_assert_str_eq(why, "the submission does not define 'matmul' (was it "
                          "renamed, made static, or compiled without extern "
                          "\"C\"?)");
    /* clean imports: OK, then each library problem */
    t.nundefined = 1;
    ck_assert_int_eq(cl_caps_check(c1, entries, &t, why, sizeof why),
                     CL_CAPS_OK);
    char *bad_lib[] = {"libcudart.so.13", "libcurand.so.10"};
    t.needed = bad_lib;
    ck_assert_int_eq(cl_caps_check(c1, entries, &t, why, sizeof why),
                     CL_CAPS_FORBIDDEN);
    ck_assert_ptr_nonnull(strstr(why, "uses 'libcurand.so.10', from a library "
                                      "this lab forbids"));
    char *odd_lib[] = {"libcudart.so.13", "libssl.so.3"};
    t.needed = odd_lib;
    ck_assert_int_eq(cl_caps_check(c1, entries, &t, why, sizeof why),
                     CL_CAPS_FORBIDDEN);
    ck_assert_str_eq(why, "the submission needs the library 'libssl.so.3', "
                          "which this lab does not allow");
    t.needed = lib;
    /* a forbidden library linked in statically: its symbols defined */
    char *def2[] = {"vector_add", "cublasSaxpy_v2"};
    t.defined = def2;
    t.ndefined = 2;
    ck_assert_int_eq(cl_caps_check(c1, entries, &t, why, sizeof why),
                     CL_CAPS_FORBIDDEN);
    ck_assert_ptr_nonnull(strstr(why, "defines 'cublasSaxpy_v2': a library "
                                      "this lab forbids is linked into it"));
    t.ndefined = 1;
    /* a forbidden import beats a named refusal */
    char *und2[] = {"fopen", "cudnnCreate"};
    t.undefined = und2;
    t.nundefined = 2;
    ck_assert_int_eq(cl_caps_check(c1, entries, &t, why, sizeof why),
                     CL_CAPS_FORBIDDEN);
    ck_assert_ptr_nonnull(strstr(why, "uses 'cudnnCreate', from a library"));
    /* a system call instruction */
    t.nundefined = 0;
    t.syscall_at = 4242;
    ck_assert_int_eq(cl_caps_check(c1, entries, &t, why, sizeof why),
                     CL_CAPS_FORBIDDEN);
    ck_assert_ptr_nonnull(strstr(why, "system call instruction (at file "
                                      "offset 4242)"));
    /* the self-test lab checks only its forbidden prefixes */
    t.undefined = und;
    t.nundefined = 4;
    t.needed = odd_lib;
    static const char *const self[] = {"vector_add", NULL};
    ck_assert_int_eq(cl_caps_check(c0, self, &t, why, sizeof why), CL_CAPS_OK);
}
END_TEST

// ---- the built libraries ----------------------------------------------------

/* @p path passes lab @p lab's checks: its entry points defined, nothing
 * refused, no system call instruction, the CUDA runtime needed */
static void passes(const struct cl_lab *lab, const char *path)
{
    struct cl_symtab t;
    const char *const *entries = cl_lab_entries(lab->id);
    ck_assert_msg(cl_symtab_read(path, &t, why, sizeof why) == 0, "%s", why);
    for (const char *const *e = entries; *e; e++)
        ck_assert_msg(cl_symtab_defines(&t, *e), "%s: no %s", path, *e);
    ck_assert_msg(t.syscall_at == -1, "%s: syscall at %ld", path, t.syscall_at);
    int cudart = 0;
    for (size_t i = 0; i < t.nneeded; i++)
        cudart |= strncmp(t.needed[i], "libcudart.so", 12) == 0;
    ck_assert_msg(cudart, "%s: no libcudart", path);
    why[0] = '\0';
    ck_assert_msg(cl_caps_check(lab->caps, entries, &t, why, sizeof why) ==
                      CL_CAPS_OK,
                  "%s: %s", path, why);
    cl_symtab_free(&t);
}

/* every built solution and skeleton passes its own lab's checks */
START_TEST(test_built_libraries_pass_their_own_lab_checks)
{
    char path[512];
    int n = 0;
    for (const struct cl_lab *const *l = cl_labs; *l; l++, n++) {
        lib_path(path, sizeof path, "solution", *l);
        passes(*l, path);
        lib_path(path, sizeof path, "student", *l);
        passes(*l, path);
    }
    ck_assert_int_eq(n, 6);
    passes(cl_lab_find("04", NULL),
           CL_BUILD_DIR "/solution/04-multi-tensor-apply-4k.so");
    /* the fixtures that fail only at run time pass the static checks */
    passes(cl_lab_find("01", NULL), FIXTURE("01", "heap_scan"));
    passes(cl_lab_find("01", NULL), FIXTURE("01", "naive"));
    /* Thrust, built with NVTX off (the build's flags): no dlopen */
    passes(cl_lab_find("01", NULL), FIXTURE("01", "thrust"));
    passes(cl_lab_find("05", NULL), FIXTURE("05", "correct"));
    passes(cl_lab_find("06", NULL), FIXTURE("06", "correct"));
}
END_TEST

/* a solution under another lab's rules: Lab 5's uses cuBLAS, which Lab 1
 * forbids; Lab 1's lacks Lab 3's entry point */
START_TEST(test_solution_refused_under_another_labs_rules)
{
    struct cl_symtab t;
    const struct cl_lab *l1 = cl_lab_find("01", NULL);
    const struct cl_lab *l3 = cl_lab_find("03", NULL);
    ck_assert_int_eq(
        cl_symtab_read(CL_BUILD_DIR "/solution/05-gru.so", &t, why, sizeof why),
        0);
    ck_assert_int_eq(cl_caps_check(l1->caps, NULL, &t, why, sizeof why),
                     CL_CAPS_FORBIDDEN);
    ck_assert_msg(strstr(why, "uses 'cublas") != NULL, "%s", why);
    ck_assert_ptr_nonnull(strstr(why, "from a library this lab forbids"));
    cl_symtab_free(&t);
    ck_assert_int_eq(cl_symtab_read(SOLUTION_01, &t, why, sizeof why), 0);
    ck_assert_int_eq(
        cl_caps_check(l3->caps, cl_lab_entries("03"), &t, why, sizeof why),
        CL_CAPS_MISSING);
    ck_assert_ptr_nonnull(strstr(why, "does not define 'matmul'"));
    cl_symtab_free(&t);
}
END_TEST

/* a hostile fixture: refused, naming an import that is refused for a
 * named reason; its own tell-tale import refused for @p reason */
static void refused_import(const char *lab_id, const char *path,
                           const char *telltale, const char *reason)
{
    const struct cl_lab *lab = cl_lab_find(lab_id, NULL);
    const char *const *entries = cl_lab_entries(lab_id);
    struct cl_symtab t;
    ck_assert_msg(cl_symtab_read(path, &t, why, sizeof why) == 0, "%s", why);
    ck_assert_msg(has(t.undefined, t.nundefined, telltale), "%s: no %s", path,
                  telltale);
    ck_assert_str_eq(cl_caps_refusal(lab->caps, telltale), reason);
    ck_assert_int_eq(cl_caps_check(lab->caps, entries, &t, why, sizeof why),
                     CL_CAPS_FORBIDDEN);
    /* the one named: an import of the file, refused for its reason */
    const char *q = strstr(why, "the submission uses '");
    ck_assert_msg(q != NULL, "%s", why);
    char name[256];
    q += strlen("the submission uses '");
    size_t k = strcspn(q, "'");
    ck_assert_uint_lt(k, sizeof name);
    memcpy(name, q, k);
    name[k] = '\0';
    ck_assert_msg(has(t.undefined, t.nundefined, name), "%s: %s", path, name);
    const char *r = cl_caps_refusal(lab->caps, name);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_ne(r, "not on the list of what a lab submission may call");
    char want[512];
    snprintf(want, sizeof want, "'%s' (%s)", name, r);
    ck_assert_msg(strstr(why, want) != NULL, "%s", why);
    cl_symtab_free(&t);
}

/* the hostile fixtures are refused by what they import */
START_TEST(test_hostile_fixtures_refused_by_their_imports)
{
    refused_import("01", FIXTURE("01", "dlopen_cudnn"), "dlopen",
                   "dynamic loading");
    refused_import("01", FIXTURE("01", "kill_grader"), "kill", "signals");
    refused_import("01", FIXTURE("01", "write_cache"), "fopen",
                   "files and descriptors");
    refused_import("01", FIXTURE("01", "daemon"), "fork",
                   "starting processes or programs");
    refused_import("01", FIXTURE("01", "forge_pipe"), "write",
                   "files and descriptors");
    refused_import("01", FIXTURE("01", "patch_checks"), "mprotect",
                   "memory mappings and protections");
    refused_import("06", FIXTURE("06", "chdir_data"), "chdir",
                   "the environment or the working directory");
}
END_TEST

/* the library fixtures: cuBLAS in Lab 1, cuDNN in Labs 5 and 6 */
START_TEST(test_forbidden_library_fixtures_refused)
{
    static const struct {
        const char *lab, *path, *prefix;
    } cases[] = {
        {"01", FIXTURE("01", "cublas"), "uses 'cublas"},
        {"05", FIXTURE("05", "cudnn"), "uses 'cudnn"},
        {"06", FIXTURE("06", "cudnn"), "uses 'cudnn"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct cl_lab *lab = cl_lab_find(cases[i].lab, NULL);
        struct cl_symtab t;
        ck_assert_msg(cl_symtab_read(cases[i].path, &t, why, sizeof why) == 0,
                      "%s", why);
        ck_assert_int_eq(cl_caps_check(lab->caps, cl_lab_entries(cases[i].lab),
                                       &t, why, sizeof why),
                         CL_CAPS_FORBIDDEN);
        ck_assert_msg(strstr(why, cases[i].prefix) != NULL, "%s", why);
        ck_assert_ptr_nonnull(strstr(why, "from a library this lab forbids"));
        cl_symtab_free(&t);
    }
}
END_TEST

/* a system call instruction in the machine code: every import allowed,
 * refused by the byte scan, at the offset of a real syscall */
START_TEST(test_raw_syscall_refused_at_its_offset)
{
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    const char *path = FIXTURE("01", "raw_syscall");
    struct cl_symtab t;
    ck_assert_msg(cl_symtab_read(path, &t, why, sizeof why) == 0, "%s", why);
    for (size_t i = 0; i < t.nundefined; i++)
        ck_assert_msg(cl_caps_refusal(lab->caps, t.undefined[i]) == NULL,
                      "%s imports %s", path, t.undefined[i]);
    ck_assert_int_gt(t.syscall_at, 0);
    size_t n = 0;
    unsigned char *bytes = (unsigned char *)cl_read_file(path, &n);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_uint_lt((size_t)t.syscall_at + 1, n);
    ck_assert_int_eq(bytes[t.syscall_at], 0x0f);
    ck_assert_int_eq(bytes[t.syscall_at + 1], 0x05);
    free(bytes);
    ck_assert_int_eq(
        cl_caps_check(lab->caps, cl_lab_entries("01"), &t, why, sizeof why),
        CL_CAPS_FORBIDDEN);
    char want[128];
    snprintf(want, sizeof want, "system call instruction (at file offset %ld)",
             t.syscall_at);
    ck_assert_msg(strstr(why, want) != NULL, "%s", why);
    cl_symtab_free(&t);
}
END_TEST

/* where bytes of @p pat (2) first occur in @p b (n), or -1 */
static long find_bytes(const unsigned char *b, size_t n,
                       const unsigned char *pat)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (b[i] == pat[0] && b[i + 1] == pat[1])
            return (long)i;
    return -1;
}

/* honest code whose instructions hold 0f 05, 0f 34 and cd 80 in their
 * immediates is not refused: the check decodes instructions from each
 * function's start, with and without its symbol table */
START_TEST(test_syscall_bytes_in_immediates_not_refused)
{
    const struct cl_lab *lab = cl_lab_find("01", NULL);
    const char *path = FIXTURE("01", "syscall_bytes");
    static const unsigned char pats[3][2] = {
        {0x0f, 0x05}, {0x0f, 0x34}, {0xcd, 0x80}};
    size_t n = 0;
    unsigned char *bytes = (unsigned char *)cl_read_file(path, &n);
    ck_assert_ptr_nonnull(bytes);
    for (int i = 0; i < 3; i++) /* the test means something: they are there */
        ck_assert_msg(find_bytes(bytes, n, pats[i]) >= 0,
                      "%s: no %02x %02x in the file", path, pats[i][0],
                      pats[i][1]);
    free(bytes);
    char stripped[256];
    snprintf(stripped, sizeof stripped, "%s.stripped", path);
    ck_assert_int_eq(sh("strip -o %s %s", stripped, path), 0);
    const char *files[] = {path, stripped};
    for (int f = 0; f < 2; f++) {
        struct cl_symtab t;
        ck_assert_msg(cl_symtab_read(files[f], &t, why, sizeof why) == 0, "%s",
                      why);
        ck_assert_msg(t.syscall_at == -1, "%s: a system call at %ld", files[f],
                      t.syscall_at);
        ck_assert_msg(cl_caps_check(lab->caps, cl_lab_entries("01"), &t, why,
                                    sizeof why) == CL_CAPS_OK,
                      "%s: %s", files[f], why);
        cl_symtab_free(&t);
    }
    /* and the real one is found in a stripped file too */
    snprintf(stripped, sizeof stripped, "%s.stripped",
             FIXTURE("01", "raw_syscall"));
    ck_assert_int_eq(
        sh("strip -o %s %s", stripped, FIXTURE("01", "raw_syscall")), 0);
    struct cl_symtab t;
    ck_assert_int_eq(cl_symtab_read(stripped, &t, why, sizeof why), 0);
    ck_assert_int_gt(t.syscall_at, 0);
    cl_symtab_free(&t);
}
END_TEST

/* C++ linkage: the entry point exists only mangled, so it is missing */
START_TEST(test_cxx_mangled_entry_point_is_missing)
{
    struct cl_symtab t;
    const char *path = FIXTURE("01", "no_symbol");
    ck_assert_int_eq(cl_symtab_read(path, &t, why, sizeof why), 0);
    ck_assert_int_eq(cl_symtab_defines(&t, "vector_add"), 0);
    int mangled = 0;
    for (size_t i = 0; i < t.ndefined; i++)
        mangled |= strncmp(t.defined[i], "_Z", 2) == 0 &&
                   strstr(t.defined[i], "vector_add") != NULL;
    ck_assert_int_eq(mangled, 1);
    ck_assert_int_eq(cl_caps_check(cl_lab_find("01", NULL)->caps,
                                   cl_lab_entries("01"), &t, why, sizeof why),
                     CL_CAPS_MISSING);
    ck_assert_ptr_nonnull(strstr(why, "does not define 'vector_add'"));
    ck_assert_ptr_nonnull(strstr(why, "extern \"C\""));
    cl_symtab_free(&t);
}
END_TEST

// ---- grade --check ----------------------------------------------------------

/* run `grade LAB --check --lib PATH`; its output into @p out (malloc'd) */
static int check_cmd(const char *lab, const char *path, char **out)
{
    char tmp[] = "/tmp/cl-check-XXXXXX";
    int fd = mkstemp(tmp);
    ck_assert_int_ge(fd, 0);
    close(fd);
    int rc = sh("%s %s --check --lib %s >%s 2>&1", GRADE, lab, path, tmp);
    *out = cl_read_file(tmp, NULL);
    ck_assert_ptr_nonnull(*out);
    unlink(tmp);
    return rc;
}

/* refused fixtures exit 4 (5 for a missing entry point or a file that is
 * not a library), naming what was refused */
START_TEST(test_grade_check_refuses)
{
    static const struct {
        const char *lab, *path;
        int rc;
        const char *want;
    } cases[] = {
        {"01", FIXTURE("01", "cublas"), CL_EXIT_FORBIDDEN, "uses 'cublas"},
        {"01", FIXTURE("01", "raw_syscall"), CL_EXIT_FORBIDDEN,
         "system call instruction"},
        {"01", FIXTURE("01", "daemon"), CL_EXIT_FORBIDDEN,
         "uses 'fork' (starting processes or programs)"},
        {"05", FIXTURE("05", "cudnn"), CL_EXIT_FORBIDDEN, "uses 'cudnn"},
        {"01", FIXTURE("01", "no_symbol"), CL_EXIT_LOAD,
         "does not define 'vector_add'"},
        {"01", "Makefile", CL_EXIT_LOAD,
         "Makefile is not a 64-bit ELF shared library"},
        {"01", "/nonexistent.so", CL_EXIT_LOAD, "cannot read"},
        /* another lab's solution: its entry point is missing, before
         * anything it uses is looked at */
        {"01", CL_BUILD_DIR "/solution/05-gru.so", CL_EXIT_LOAD,
         "does not define 'vector_add'"},
        {"03", CL_BUILD_DIR "/solution/06-seq2seq.so", CL_EXIT_LOAD,
         "does not define 'matmul'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = NULL;
        int rc = check_cmd(cases[i].lab, cases[i].path, &out);
        ck_assert_msg(rc == cases[i].rc, "%s: exit %d, want %d: %s",
                      cases[i].path, rc, cases[i].rc, out);
        ck_assert_msg(strstr(out, cases[i].want) != NULL, "%s: %s",
                      cases[i].path, out);
        free(out);
    }
}
END_TEST

/* every built solution and skeleton: exit 0 and a line that says so */
START_TEST(test_grade_check_passes)
{
    char path[512], want[600];
    for (const struct cl_lab *const *l = cl_labs; *l; l++)
        for (int k = 0; k < 2; k++) {
            char *out = NULL;
            lib_path(path, sizeof path, k ? "student" : "solution", *l);
            int rc = check_cmd((*l)->id, path, &out);
            ck_assert_msg(rc == CL_EXIT_OK, "%s: exit %d: %s", path, rc, out);
            snprintf(want, sizeof want,
                     "check: %s passes the static checks of lab %s", path,
                     (*l)->id);
            ck_assert_msg(strstr(out, want) != NULL, "%s", out);
            free(out);
        }
}
END_TEST

// ---- the TODO marker ------------------------------------------------------

/* the first line holding the marker and how many do; 0 when none */
START_TEST(test_find_marker_gives_first_line_and_count)
{
    char path[] = "/tmp/cl-marker-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    static const char text[] = "int a;\n/* TODO(lab9): one */\n\n"
                               "b /* TODO(lab9) */ TODO(lab9)\nlast TODO(lab9)";
    ck_assert_int_eq(write(fd, text, sizeof text - 1),
                     (ssize_t)(sizeof text - 1));
    close(fd);
    int count = -1;
    ck_assert_int_eq(cl_find_marker(path, "TODO(lab9)", &count), 2);
    ck_assert_int_eq(count, 3); /* lines, not occurrences */
    ck_assert_int_eq(cl_find_marker(path, "TODO(lab1)", &count), 0);
    ck_assert_int_eq(count, 0);
    ck_assert_int_eq(cl_find_marker(path, "last", NULL), 5);
    ck_assert_int_eq(cl_find_marker(path, "int a", &count), 1);
    ck_assert_int_eq(count, 1);
    count = -1;
    ck_assert_int_eq(cl_find_marker("/nonexistent", "x", &count), 0);
    ck_assert_int_eq(count, 0);
    count = -1;
    ck_assert_int_eq(cl_find_marker(NULL, "x", &count), 0);
    ck_assert_int_eq(count, 0);
    unlink(path);
    /* each skeleton has its lab's marker; each solution has none */
    for (const struct cl_lab *const *l = cl_labs; *l; l++) {
        count = 0;
        ck_assert_msg(cl_find_marker((*l)->source, (*l)->todo, &count) > 1,
                      "%s", (*l)->source);
        ck_assert_int_ge(count, 1);
        char sol[512];
        const char *base = strrchr((*l)->source, '/');
        snprintf(sol, sizeof sol, "solutions/%s-%s%s", (*l)->id, (*l)->slug,
                 base);
        ck_assert_msg(access(sol, R_OK) == 0, "%s", sol);
        ck_assert_int_eq(cl_find_marker(sol, (*l)->todo, &count), 0);
        ck_assert_int_eq(count, 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("symbols");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_symtab_lists_definitions_imports_and_needs);
    tcase_add_test(core, test_caps_refuse_imports_for_named_reasons);
    tcase_add_test(core, test_caps_forbid_libraries_by_prefix);
    tcase_add_test(core, test_caps_check_reports_problems_in_priority_order);
    tcase_add_test(core, test_built_libraries_pass_their_own_lab_checks);
    tcase_add_test(core, test_hostile_fixtures_refused_by_their_imports);
    tcase_add_test(core, test_forbidden_library_fixtures_refused);
    tcase_add_test(core, test_find_marker_gives_first_line_and_count);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, test_symtab_finds_syscalls_in_executable_code);
    tcase_add_test(limits, test_symtab_refuses_malformed_images);
    tcase_add_test(limits, test_symbols_refuses_missing_or_damaged_files);
    tcase_add_test(limits, test_solution_refused_under_another_labs_rules);
    tcase_add_test(limits, test_raw_syscall_refused_at_its_offset);
    tcase_add_test(limits, test_syscall_bytes_in_immediates_not_refused);
    tcase_add_test(limits, test_cxx_mangled_entry_point_is_missing);
    tcase_add_test(limits, test_grade_check_refuses);
    tcase_add_test(limits, test_grade_check_passes);
    suite_add_tcase(s, limits);
    return cl_suite_run(s, 0, NULL);
}
