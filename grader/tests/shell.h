/* shell.h: run a shell command from a test suite (they run from the
 * project root, as `make test` does). Test code only. */
#ifndef CL_TEST_SHELL_H
#define CL_TEST_SHELL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* printf-style command, run by bash with make's jobserver variables
 * removed (the tests call make); returns its exit status, -1 if killed.
 * The command may hold single quotes (file names such as o'neil). */
static int sh(const char *fmt, ...)
{
    char cmd[4096], full[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    size_t k = (size_t)snprintf(
        full, sizeof full, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL bash -c '");
    for (const char *c = cmd; *c && k + 8 < sizeof full; c++) {
        if (*c == '\'') { /* close the quote, an escaped quote, reopen */
            memcpy(full + k, "'\\''", 4);
            k += 4;
        } else {
            full[k++] = *c;
        }
    }
    full[k++] = '\'';
    full[k] = '\0';
    int st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif /* CL_TEST_SHELL_H */
