/**
 * @file fatal.h
 * @brief The one place a failed library call ends up.
 *
 * cl_fatal() formats "file:line: LIB error: message\n  in: expression" and
 * hands it to the installed hook (the grader's worker sends it to the
 * parent so that nothing is lost), then prints it and exits with
 * CL_FATAL_EXIT. It never returns.
 */
#ifndef CL_FATAL_H
#define CL_FATAL_H

#ifdef __cplusplus
extern "C" {
#endif

/** Exit status of a process that stopped in cl_fatal(). */
#define CL_FATAL_EXIT 70

/** Called with the formatted message before the process exits. */
typedef void (*cl_fatal_hook)(const char *message);

/** Install @p hook (NULL removes it); returns the previous one. */
cl_fatal_hook cl_set_fatal_hook(cl_fatal_hook hook);

/** Format the message into @p buf (always NUL-terminated); returns @p buf. */
char *cl_fatal_format(char *buf, unsigned long len, const char *file, int line,
                      const char *expr, const char *lib, const char *msg);

/** malloc that ends the process through cl_fatal() when memory runs out
 *  (a zero size allocates one byte). */
void *cl_xmalloc(unsigned long bytes);

/** calloc likewise: zeroed, never NULL. */
void *cl_xcalloc(unsigned long count, unsigned long size);

/** realloc likewise: never NULL. */
void *cl_xrealloc(void *old, unsigned long bytes);

/** Report a failed call and exit the process with CL_FATAL_EXIT. */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void cl_fatal(const char *file, int line, const char *expr, const char *lib,
              const char *msg);

#ifdef __cplusplus
}
#endif

#endif /* CL_FATAL_H */
