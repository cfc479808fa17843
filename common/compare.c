/* compare.c: tolerance comparison against a double reference. */
#include "compare.h"

#include "fatal.h"
#include "guard.h"
#include "split.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_poison(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits == CL_POISON_F32;
}

/* elements of one chunk of a comparison: the chunks depend on n alone, and
 * their sums are added in order, so a comparison gives the same figures
 * whatever the threads (split.h) that run its chunks */
#define CHUNK ((size_t)1 << 20)

struct chunk {
    struct cl_compare c; /* its counts, largest error, first mismatches */
    double err2, ref2;   /* its sums of squares */
};

struct job {
    const float *got;
    const double *ref;
    const size_t *idx;
    size_t n;
    const struct cl_tolerance *tol;
    struct chunk *chunks;
};

static void compare_chunk(const struct job *j, size_t from, size_t to,
                          struct chunk *ch)
{
    struct cl_compare *out = &ch->c;
    double err2 = 0.0, ref2 = 0.0;
    for (size_t k = from; k < to; k++) {
        size_t i = j->idx ? j->idx[k] : k;
        float g = j->got[i];
        double e = j->ref[k];
        int unwritten = is_poison(g);
        int finite = !unwritten && isfinite(g);
        double diff = finite ? fabs((double)g - e) : INFINITY;
        if (finite) {
            err2 += diff * diff;
            if (diff > out->max_abs_err)
                out->max_abs_err = diff;
        }
        ref2 += e * e;
        if (finite && diff <= j->tol->atol + j->tol->rtol * fabs(e))
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
    ch->err2 = err2;
    ch->ref2 = ref2;
}

static void compare_part(void *ctx, size_t from, size_t to)
{
    const struct job *j = ctx;
    for (size_t c = from; c < to; c++) {
        size_t end = (c + 1) * CHUNK < j->n ? (c + 1) * CHUNK : j->n;
        compare_chunk(j, c * CHUNK, end, &j->chunks[c]);
    }
}

void cl_compare_f32(const float *got, const double *ref, const size_t *idx,
                    size_t n, const struct cl_tolerance *tol,
                    struct cl_compare *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    size_t nch = n ? (n + CHUNK - 1) / CHUNK : 1;
    struct chunk one = {0};
    struct chunk *chunks = nch == 1 ? &one : cl_xcalloc(nch, sizeof *chunks);
    struct job j = {got, ref, idx, n, tol, chunks};
    cl_split(nch, 1, compare_part, &j);
    double err2 = 0.0, ref2 = 0.0;
    for (size_t c = 0; c < nch; c++) {
        const struct cl_compare *p = &chunks[c].c;
        err2 += chunks[c].err2;
        ref2 += chunks[c].ref2;
        out->n_bad += p->n_bad;
        out->n_unwritten += p->n_unwritten;
        out->n_nonfinite += p->n_nonfinite;
        if (p->max_abs_err > out->max_abs_err)
            out->max_abs_err = p->max_abs_err;
        for (int m = 0; m < p->n_reported && out->n_reported < CL_MAX_REPORTED;
             m++)
            out->first[out->n_reported++] = p->first[m];
    }
    if (chunks != &one)
        free(chunks);
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
