/* guard.c: guard-zone and poison logic, on host copies. */
#include "guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t cl_scan_bytes(const unsigned char *p, size_t n, unsigned char pattern,
                     size_t *first, size_t *last)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == pattern)
            continue;
        if (bad == 0 && first)
            *first = i;
        if (last)
            *last = i;
        bad++;
    }
    return bad;
}

size_t cl_count_poison_f32(const float *p, size_t n, size_t *first)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &p[i], sizeof bits);
        if (bits != CL_POISON_F32)
            continue;
        if (count == 0 && first)
            *first = i;
        count++;
    }
    return count;
}

int cl_guard_describe(const struct cl_guard_report *r, const char *what,
                      size_t elem, char *buf, size_t len)
{
    (void)elem;
    if (len)
        buf[0] = '\0';
    if (r->front_bad == 0 && r->back_bad == 0)
        return 0;
    if (r->back_bad && r->front_bad)
        snprintf(buf, len,
                 "out-of-bounds writes on both sides of %s (%zu bytes before "
                 "it, %zu after it; first at element %ld)",
                 what, r->front_bad, r->back_bad, r->first_bad);
    else if (r->back_bad)
        snprintf(buf, len,
                 "out-of-bounds write past the end of %s: %zu bytes changed, "
                 "first at element %ld",
                 what, r->back_bad, r->first_bad);
    else
        snprintf(buf, len,
                 "out-of-bounds write before the start of %s: %zu bytes "
                 "changed, first at element %ld",
                 what, r->front_bad, r->first_bad);
    return 1;
}
