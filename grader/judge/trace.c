/* trace.c: the judge's reading of a call's trace (rules, names, report). */
#include "judge/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (the grader links libstdc++ for nvcc's objects) */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

void cl_trace_name(const char *raw, char *buf, size_t len)
{
    char safe[CL_NAME_MAX + 1];
    size_t n = 0;
    for (; n < CL_NAME_MAX && raw[n]; n++)
        safe[n] = raw[n] >= 0x21 && raw[n] < 0x7f ? raw[n] : '?';
    safe[n] = '\0';
    int status = -1;
    char *d = safe[0] == '_' && safe[1] == 'Z'
                  ? __cxa_demangle(safe, NULL, NULL, &status)
                  : NULL;
    const char *show = status == 0 && d ? d : safe;
    /* "void ns::kernel<8>(float const*, int)" -> "ns::kernel<8>" */
    const char *start = show;
    if (strncmp(start, "void ", 5) == 0)
        start += 5;
    size_t k = 0;
    int depth = 0;
    for (const char *p = start; *p && k + 1 < len; p++) {
        if (*p == '(' && depth == 0)
            break;
        depth += *p == '<' ? 1 : *p == '>' ? -1 : 0;
        buf[k++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    }
    if (len)
        buf[k < len ? k : len - 1] = '\0';
    free(d);
}

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && (hay[i] | 0x20) == (needle[i] | 0x20))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

enum cl_trace_rule cl_trace_verdict(const struct cl_trace *t,
                                    const char *const *forbidden, char *why,
                                    size_t len)
{
    char name[128];
    if (len)
        why[0] = '\0';
    if (!t->on)
        return CL_TRACE_OK;
    if (t->off_stream > 0) {
        const char *what = "a launch";
        for (int i = 0; i < t->n; i++)
            if (t->rec[i].stream == CL_ON_OTHER) {
                cl_trace_name(t->rec[i].name, name, sizeof name);
                what = name;
                break;
            }
        snprintf(why, len,
                 "work outside the stream you were given: %d launch%s on "
                 "another stream (%s); everything must go on the stream "
                 "passed to your function",
                 t->off_stream, t->off_stream == 1 ? "" : "es", what);
        return CL_TRACE_OFF_STREAM;
    }
    for (int i = 0; i < t->n && forbidden; i++) {
        if (t->rec[i].kind != 0)
            continue;
        for (const char *const *f = forbidden; *f; f++)
            if (contains_ci(t->rec[i].name, *f)) {
                cl_trace_name(t->rec[i].name, name, sizeof name);
                snprintf(why, len,
                         "the call ran a kernel of a library this lab "
                         "forbids (%s: '%s')",
                         *f, name);
                return CL_TRACE_LIBRARY;
            }
    }
    return CL_TRACE_OK;
}

int cl_trace_describe(const struct cl_trace *t, const char *indent, int max,
                      char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < t->n && i < max; i++) {
        const struct cl_trace_rec *r = &t->rec[i];
        char name[128], shape[64] = "";
        if (r->kind == 0) {
            cl_trace_name(r->name, name, sizeof name);
            if (r->grid[1] > 1 || r->grid[2] > 1 || r->block[1] > 1 ||
                r->block[2] > 1)
                snprintf(shape, sizeof shape, "<<<(%d,%d,%d), (%d,%d,%d)>>>",
                         r->grid[0], r->grid[1], r->grid[2], r->block[0],
                         r->block[1], r->block[2]);
            else
                snprintf(shape, sizeof shape, "<<<%d, %d>>>", r->grid[0],
                         r->block[0]);
        } else {
            snprintf(name, sizeof name, "%s",
                     r->kind == 1 ? "memcpy" : "memset");
            snprintf(shape, sizeof shape, " %.3g MB", r->bytes / 1e6);
        }
        char count[24] = "";
        if (r->count > 1)
            snprintf(count, sizeof count, " x %d", r->count);
        int k = snprintf(buf + used, len - used, "%s%s%s%s %.4f ms%s\n", indent,
                         name, shape, count, r->ms,
                         r->stream == CL_ON_OTHER ? "  (another stream)" : "");
        if (k < 0 || (size_t)k >= len - used)
            break;
        used += (size_t)k;
    }
    if (t->dropped > 0 && used < len) {
        int k = snprintf(buf + used, len - used, "%s(and %d more launches)\n",
                         indent, t->dropped);
        if (k > 0 && (size_t)k < len - used)
            used += (size_t)k;
    }
    return (int)used;
}
