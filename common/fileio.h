/**
 * @file fileio.h
 * @brief Small file helpers: atomic writes, whole-file reads, mkdir -p.
 */
#ifndef CL_FILEIO_H
#define CL_FILEIO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Write @p len bytes to @p path atomically: a temporary file beside it,
 * fsync, rename. Readers see the old file or the new one, never a part.
 * Returns 0, or -1 with errno set.
 */
int cl_write_atomic(const char *path, const void *data, size_t len);

/**
 * Read a whole file into a NUL-terminated malloc'd buffer; its length in
 * *len (may be NULL). Returns NULL with errno set on failure.
 */
char *cl_read_file(const char *path, size_t *len);

/** Write all @p n bytes of @p p to @p fd, through short writes and
 *  interruptions; 0, or -1 (errno set). */
int cl_write_full(int fd, const void *p, size_t n);

/** Create @p dir and its parents (like mkdir -p); 0 on success. */
int cl_mkdirs(const char *dir);

/** The folder that holds the running program (build/bin for the grader),
 *  into @p buf; NULL when /proc/self/exe cannot be read. */
const char *cl_self_dir(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CL_FILEIO_H */
