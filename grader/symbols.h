/**
 * @file symbols.h
 * @brief Read a shared library's dynamic symbols without loading it.
 *
 * The grader reads the submission's ELF file before anything runs: the
 * entry points must be defined, and no undefined symbol or needed library
 * may belong to a forbidden library (a student who includes cublas_v2.h and
 * calls cublasSgemm leaves an undefined "cublasSgemm_v2" behind).
 */
#ifndef CL_SYMBOLS_H
#define CL_SYMBOLS_H

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
};

/**
 * Read @p path (a 64-bit little-endian ELF shared object). Returns 0, or -1
 * with a one-line reason in @p err.
 */
int cl_symtab_read(const char *path, struct cl_symtab *t, char *err,
                   size_t len);

/** Free what cl_symtab_read allocated. */
void cl_symtab_free(struct cl_symtab *t);

/** True when @p name is among the defined symbols. */
int cl_symtab_defines(const struct cl_symtab *t, const char *name);

/**
 * First undefined symbol or needed library that starts with (library:
 * "lib" + prefix) one of @p prefixes (NULL-terminated); NULL if none.
 */
const char *cl_symtab_forbidden(const struct cl_symtab *t,
                                const char *const *prefixes);

#ifdef __cplusplus
}
#endif

#endif /* CL_SYMBOLS_H */
