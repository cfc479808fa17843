/* fatal.c: report a failed library call, hand it to the hook, and exit. */
#include "fatal.h"

#include <stdio.h>
#include <stdlib.h>

static cl_fatal_hook g_hook;

cl_fatal_hook cl_set_fatal_hook(cl_fatal_hook hook)
{
    cl_fatal_hook old = g_hook;
    g_hook = hook;
    return old;
}

char *cl_fatal_format(char *buf, unsigned long len, const char *file, int line,
                      const char *expr, const char *lib, const char *msg)
{
    snprintf(buf, len, "%s:%d: %s error: %s\n  in: %s", file, line, lib,
             msg ? msg : "(no message)", expr);
    return buf;
}

void *cl_xmalloc(unsigned long bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        cl_fatal(__FILE__, __LINE__, "malloc", "libc", "out of memory");
    return p;
}

void *cl_xcalloc(unsigned long count, unsigned long size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        cl_fatal(__FILE__, __LINE__, "calloc", "libc", "out of memory");
    return p;
}

void *cl_xrealloc(void *old, unsigned long bytes)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p)
        cl_fatal(__FILE__, __LINE__, "realloc", "libc", "out of memory");
    return p;
}

void cl_fatal(const char *file, int line, const char *expr, const char *lib,
              const char *msg)
{
    char buf[1024];
    cl_fatal_format(buf, sizeof buf, file, line, expr, lib, msg);
    if (g_hook)
        g_hook(buf);
    fprintf(stderr, "%s\n", buf);
    exit(CL_FATAL_EXIT);
}
