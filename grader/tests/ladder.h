/* ladder.h: read a reference's LADDER from a test suite (they run from the
 * project root). Test code only.
 *
 * solutions/NN-slug/LADDER holds lines "VAR first last [group]" (the rungs
 * that VAR picks) and "name VAR k \"...\"" (a rung's name); see
 * tools/bench.sh. */
#ifndef CL_TEST_LADDER_H
#define CL_TEST_LADDER_H

#include "fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the rungs of @p var in the LADDER at @p path, into @p first and
 * @p last: 0 when they are there, -1 when the file or the line is not */
static int ladder_range(const char *path, const char *var, long *first,
                        long *last)
{
    char *text = cl_read_file(path, NULL);
    int found = -1;
    for (char *line = text; line && *line;) {
        char name[64];
        long f, t;
        if (sscanf(line, "%63s %ld %ld", name, &f, &t) == 3 &&
            strcmp(name, var) == 0) {
            *first = f;
            *last = t;
            found = 0;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    free(text);
    return found;
}

/* how many rungs @p var has in the LADDER at @p path; 0 when none */
static long ladder_rungs(const char *path, const char *var)
{
    long first, last;
    return ladder_range(path, var, &first, &last) == 0 ? last - first + 1 : 0;
}

#endif /* CL_TEST_LADDER_H */
