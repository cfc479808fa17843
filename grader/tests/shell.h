/* shell.h: run a shell command from a test suite (they run from the
 * project root, as `make test` does). Test code only. */
#ifndef CL_TEST_SHELL_H
#define CL_TEST_SHELL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* printf-style command, run by bash with make's jobserver variables
 * removed (the tests call make); returns its exit status, -1 if killed */
static int sh(const char *fmt, ...)
{
    char cmd[4096], full[4300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full,
             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL bash -c '%s'", cmd);
    int st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif /* CL_TEST_SHELL_H */
