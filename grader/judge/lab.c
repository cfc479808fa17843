/* lab.c: statuses and capabilities, the judge's vocabulary (lab.h). */
#include "judge/lab.h"

#include <string.h>

const char *cl_status_name(enum cl_status s)
{
    static const char *const names[CL_ST_COUNT] = {
        "pass",           "wrong",     "out-of-bounds", "cuda-error",
        "crash",          "timeout",   "too-fast",      "not-run",
        "internal-error", "forbidden", "unconfirmed"};
    return (unsigned)s < CL_ST_COUNT ? names[s] : "unknown";
}

int cl_status_correct(enum cl_status s)
{
    return s == CL_ST_PASS || s == CL_ST_TOO_FAST || s == CL_ST_UNCONFIRMED;
}

int cl_caps_forbids(const struct cl_caps *caps, const char *name)
{
    for (const char *const *p = caps ? caps->forbidden : NULL; p && *p; p++)
        if (strncmp(name, *p, strlen(*p)) == 0)
            return 1;
    return 0;
}

int cl_caps_library_forbidden(const struct cl_caps *caps, const char *base)
{
    return strncmp(base, "lib", 3) == 0 && cl_caps_forbids(caps, base + 3);
}

const char *const *cl_caps_forbidden_prefixes(const struct cl_caps *caps)
{
    return caps ? caps->forbidden : NULL;
}
