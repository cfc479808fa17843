/* compare.c: tolerance comparison against a double reference. */
#include "compare.h"

#include "guard.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int is_poison(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits == CL_POISON_F32;
}

void cl_compare_f32(const float *got, const double *ref, const size_t *idx,
                    size_t n, const struct cl_tolerance *tol,
                    struct cl_compare *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    double err2 = 0.0, ref2 = 0.0;
    for (size_t k = 0; k < n; k++) {
        size_t i = idx ? idx[k] : k;
        float g = got[i];
        double e = ref[k];
        int unwritten = is_poison(g);
        int finite = !unwritten && isfinite(g);
        double diff = finite ? fabs((double)g - e) : INFINITY;
        if (finite) {
            err2 += diff * diff;
            if (diff > out->max_abs_err)
                out->max_abs_err = diff;
        }
        ref2 += e * e;
        if (finite && diff <= tol->atol + tol->rtol * fabs(e))
            continue;
        out->n_bad++;
        if (unwritten)
            out->n_unwritten++;
        else if (!finite)
            out->n_nonfinite++;
        if (out->n_reported < CL_MAX_REPORTED) {
            struct cl_mismatch *m = &out->first[out->n_reported++];
            m->index = i;
            m->got = g;
            m->expected = e;
            m->unwritten = unwritten;
        }
    }
    out->rel_l2 = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
    out->norm_ok = tol->max_rel_l2 <= 0 || out->rel_l2 <= tol->max_rel_l2;
    out->pass = out->n_bad == 0 && out->norm_ok;
}

int cl_compare_describe(const struct cl_compare *c, const char *what, char *buf,
                        size_t len)
{
    size_t used = 0;
#define PUT(...)                                                               \
    do {                                                                       \
        int k_ =                                                               \
            snprintf(buf + used, used < len ? len - used : 0, __VA_ARGS__);    \
        if (k_ > 0)                                                            \
            used += (size_t)k_;                                                \
    } while (0)
    if (len)
        buf[0] = '\0';
    if (c->pass)
        return 0;
    if (c->n_bad == 0) {
        PUT("%s: every element is within tolerance but the relative L2 error "
            "%.3g is too large (lower precision than FP32?)",
            what, c->rel_l2);
        return (int)used;
    }
    if (c->n_unwritten == c->n)
        PUT("%s: none of the %zu elements was written", what, c->n);
    else {
        PUT("%s: %zu of %zu elements wrong", what, c->n_bad, c->n);
        if (c->n_unwritten)
            PUT(" (%zu never written)", c->n_unwritten);
        if (c->n_nonfinite)
            PUT(" (%zu NaN or Inf)", c->n_nonfinite);
    }
    PUT("; first:");
    for (int k = 0; k < c->n_reported; k++) {
        const struct cl_mismatch *m = &c->first[k];
        if (m->unwritten)
            PUT(" [%zu] unwritten, expected %.7g;", m->index, m->expected);
        else
            PUT(" [%zu] got %.7g, expected %.7g;", m->index, m->got,
                m->expected);
    }
    if (used && used <= len && buf[used - 1] == ';')
        buf[--used] = '\0';
#undef PUT
    return (int)(used < len ? used : len ? len - 1 : 0);
}
