/**
 * @file symbols.h
 * @brief What a submission may use, checked in its ELF file before it runs.
 *
 * The grader reads the submission's dynamic symbols, needed libraries and
 * executable code without loading it, and holds them against the lab's
 * capabilities: every entry point must be defined with C linkage; every
 * imported function must be on the allow-list (the CUDA runtime minus host
 * callbacks, IPC and driver entry points; cuBLAS where the lab allows it;
 * the C and C++ runtime's memory, string, math and printing functions;
 * getenv); no needed library may be outside the lab's list; no library the
 * lab forbids may be linked in statically; and the code may not contain a
 * system call instruction. The refusal names the symbol and says why.
 * The run-time sandbox enforces the same rules again (sandbox.h); this
 * check turns a violation into a clear message before anything runs.
 */
#ifndef CL_PARENT_SYMBOLS_H
#define CL_PARENT_SYMBOLS_H

#include "judge/lab.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The dynamic symbols of a shared object. */
struct cl_symtab {
    char **defined;    /**< defined global functions and objects */
    size_t ndefined;   /**< entries in defined */
    char **undefined;  /**< undefined symbols */
    size_t nundefined; /**< entries in undefined */
    char **needed;     /**< DT_NEEDED library names */
    size_t nneeded;    /**< entries in needed */
    long syscall_at;   /**< file offset of a system call instruction in
                            executable code, or -1 */
};

/**
 * Read the ELF shared object in @p buf (@p size bytes; a 64-bit
 * little-endian x86-64 or AArch64 object). Returns 0, or -1 with a
 * one-line reason in @p err. @p name names it in messages.
 */
int cl_symtab_parse(const unsigned char *buf, size_t size, const char *name,
                    struct cl_symtab *t, char *err, size_t len);

/** cl_symtab_parse() of the file at @p path. */
int cl_symtab_read(const char *path, struct cl_symtab *t, char *err,
                   size_t len);

/** Free what cl_symtab_read allocated. */
void cl_symtab_free(struct cl_symtab *t);

/** True when @p name is among the defined symbols. */
int cl_symtab_defines(const struct cl_symtab *t, const char *name);

/** The outcome of cl_caps_check(). */
enum cl_caps_verdict {
    CL_CAPS_OK = 0,   /**< nothing wrong */
    CL_CAPS_MISSING,  /**< an entry point is missing (exit 5) */
    CL_CAPS_FORBIDDEN /**< something the lab forbids (exit 4) */
};

/**
 * Hold @p t against @p caps and the entry points @p entries
 * (NULL-terminated). The first problem is described in @p why.
 */
enum cl_caps_verdict cl_caps_check(const struct cl_caps *caps,
                                   const char *const *entries,
                                   const struct cl_symtab *t, char *why,
                                   size_t len);

/** Why @p name may not be imported ("starting processes or programs"),
 *  or NULL when the common rules allow it. Exposed for tests. */
const char *cl_caps_refusal(const struct cl_caps *caps, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* CL_PARENT_SYMBOLS_H */
