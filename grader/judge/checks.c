/* checks.c: what a spec's check() and versus() read of a call (checks.h). */
#include "judge/checks.h"

#include "fatal.h"
#include "judge/case.h"
#include "judge/device.h"
#include "judge/judge_gpu.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cl_case_forget_outputs(struct case_run *k)
{
    for (int i = 0; i < CL_MAX_BUFS; i++)
        k->img.outputs[i] = k->img.base_copies[i] = NULL;
}

void cl_case_free_outputs(struct case_run *k)
{
    cl_case_forget_outputs(k);
    for (int i = 0; i < CL_MAX_BUFS; i++) {
        free(k->img.outputs_mem[i].p);
        free(k->img.base_copies_mem[i].p);
        k->img.outputs_mem[i] = k->img.base_copies_mem[i] = (struct cl_kept){0};
    }
}

/* @p m's memory, at least @p n bytes (its old contents are not kept) */
static void *kept(struct cl_kept *m, size_t n)
{
    if (!n)
        n = 1;
    if (m->cap < n) {
        free(m->p);
        m->p = cl_xmalloc(n);
        m->cap = n;
    }
    return m->p;
}

void cl_case_forget_inputs(struct case_run *k)
{
    for (int c = 0; c < CL_CALL_IMAGES; c++) {
        for (int i = 0; i < CL_MAX_BUFS; i++)
            free(k->img.inputs[c].img[i]);
        memset(&k->img.inputs[c], 0, sizeof k->img.inputs[c]);
    }
}

const void *cl_check_input(struct cl_check *ck, int buf, int call)
{
    struct case_run *k = ck->h;
    int slot = -1;
    for (int c = 0; c < CL_CALL_IMAGES; c++)
        if (k->img.inputs[c].used && k->img.inputs[c].call == call)
            slot = c;
    if (slot < 0) {
        for (int c = 0; c < CL_CALL_IMAGES && slot < 0; c++)
            if (!k->img.inputs[c].used)
                slot = c;
        if (slot < 0)
            cl_fatal(__FILE__, __LINE__, "cl_check_input", "grader",
                     "too many calls' inputs at once");
        struct cl_fill_ctx fc = {NULL, k->img.inputs[slot].img, &k->plan,
                                 k->o->data};
        cl_fill_run(k->lab, k->arg, &k->plan, &fc, cl_case_seed(k, call), call,
                    call == 0);
        k->img.inputs[slot].used = 1;
        k->img.inputs[slot].call = call;
    }
    return k->img.inputs[slot].img[buf];
}

const void *cl_check_output(struct cl_check *ck, int buf)
{
    struct case_run *k = ck->h;
    if (buf < 0 || buf >= k->plan.nbuf)
        return NULL;
    if (!k->img.outputs[buf]) {
        size_t n = k->hb[buf].bytes;
        const void *src = ck->source == CL_FROM_BASELINE && k->hb[buf].mirror
                              ? k->hb[buf].mirror
                              : k->hb[buf].ptr;
        k->img.outputs[buf] = kept(&k->img.outputs_mem[buf], n);
        cl_mem_read(k->img.outputs[buf], src, n);
    }
    return k->img.outputs[buf];
}

static int by_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int cl_check_rows(struct cl_check *ck, int count, int max, int *out)
{
    if (count <= max) {
        for (int i = 0; i < count; i++)
            out[i] = i;
        return count;
    }
    out[0] = 0;
    out[1] = count - 1;
    int n = 2;
    uint64_t s = ck->pick;
    while (n < max) {
        s = cl_mix64(s + 0x9e3779b97f4a7c15ULL);
        int v = (int)(s % (uint64_t)count), dup = 0;
        for (int i = 0; i < n; i++)
            dup |= out[i] == v;
        if (!dup)
            out[n++] = v;
    }
    qsort(out, (size_t)n, sizeof *out, by_int);
    return n;
}

int cl_verdict(const struct cl_compare *c, const char *what,
               struct cl_result *r)
{
    if (c->pass)
        return 0;
    r->status = CL_ST_WRONG;
    cl_compare_describe(c, what, r->msg, sizeof r->msg);
    return 1;
}

int cl_check_written(struct cl_check *ck, int buf)
{
    struct case_run *k = ck->h;
    size_t n = k->plan.buf[buf].count, first = 0;
    const float *got = cl_check_output(ck, buf);
    size_t unwritten = cl_count_poison_f32(got, n, &first);
    if (!unwritten)
        return 0;
    ck->r->status = CL_ST_WRONG;
    if (unwritten == n)
        snprintf(ck->r->msg, sizeof ck->r->msg,
                 "%s%s: none of the %zu elements was written", ck->when,
                 k->plan.buf[buf].name, n);
    else
        snprintf(ck->r->msg, sizeof ck->r->msg,
                 "%s%s: %zu of %zu elements never written; first at [%zu]",
                 ck->when, k->plan.buf[buf].name, unwritten, n, first);
    return 1;
}

void cl_check_init(struct case_run *k, struct cl_check *ck, int call,
                   const char *when, struct cl_result *r,
                   enum cl_check_source source)
{
    memset(ck, 0, sizeof *ck);
    ck->lab = k->lab;
    ck->arg = k->arg;
    ck->plan = &k->plan;
    ck->data = k->o->data;
    ck->call = call;
    ck->pick = cl_private_random();
    ck->when = when;
    ck->demo = k->o->run->demo;
    ck->r = r;
    ck->source = source;
    ck->h = k;
}

int cl_case_check(struct case_run *k, int call, const char *when,
                  struct cl_result *r, enum cl_check_source source)
{
    struct cl_check ck;
    cl_check_init(k, &ck, call, when, r, source);
    int wrong = k->lab->check(&ck);
    cl_case_forget_outputs(k);
    return wrong;
}

const void *cl_vs_baseline(struct cl_vs *v, int buf)
{
    struct case_run *k = v->ck.h;
    if (buf < 0 || buf >= k->plan.nbuf || !k->hb[buf].mirror)
        return NULL;
    if (!k->img.base_copies[buf]) {
        size_t n = k->hb[buf].bytes;
        k->img.base_copies[buf] = kept(&k->img.base_copies_mem[buf], n);
        cl_mem_read(k->img.base_copies[buf], k->hb[buf].mirror, n);
    }
    return k->img.base_copies[buf];
}

static void devcmp(const struct cl_gbuf *b, const struct cl_buf_plan *p,
                   double atol, double rtol, struct cl_devcmp *d)
{
    if (cl_judge_gpu()) {
        cl_compare_device(b->ptr, b->mirror, p->count, p->elem == CL_I32, atol,
                          rtol, d, cl_judge_stream());
        return;
    }
    /* the CPU lab: the same rules on the host */
    memset(d, 0, sizeof *d);
    d->first_bad = p->count;
    const unsigned *g = b->ptr, *w = b->mirror;
    for (size_t i = 0; i < p->count; i++) {
        float gf, wf;
        memcpy(&gf, &g[i], 4);
        memcpy(&wf, &w[i], 4);
        int poison = g[i] == CL_POISON_F32, fin = !poison && isfinite(gf);
        double diff = fabs((double)gf - wf);
        int wrong = p->elem == CL_I32
                        ? g[i] != w[i]
                        : !fin || !(diff <= atol + rtol * fabs((double)wf));
        d->n_poison += poison;
        if (fin) {
            d->err2 += diff * diff;
            d->max_err = diff > d->max_err ? diff : d->max_err;
        }
        d->ref2 += (double)wf * wf;
        if (wrong) {
            d->n_bad++;
            if (i < d->first_bad)
                d->first_bad = i;
        }
    }
}

int cl_vs_default(struct cl_vs *v, int *bad_buf, size_t *first_bad)
{
    struct case_run *k = v->ck.h;
    const struct cl_tolerance *t = &k->plan.tol;
    for (int i = 0; i < k->plan.nbuf; i++) {
        const struct cl_buf_plan *p = &k->plan.buf[i];
        if ((p->role != CL_OUT && p->role != CL_STATE) || !k->hb[i].mirror)
            continue;
        struct cl_devcmp d;
        if (p->has_tol)
            t = &p->tol;
        else
            t = &k->plan.tol;
        devcmp(&k->hb[i], p, v->scale * t->atol, v->scale * t->rtol, &d);
        double rel = d.ref2 > 0 ? sqrt(d.err2 / d.ref2) : sqrt(d.err2);
        int norm_bad = p->elem == CL_F32 && t->max_rel_l2 > 0 &&
                       rel > v->scale * t->max_rel_l2;
        if (!d.n_bad && !norm_bad)
            continue;
        if (bad_buf)
            *bad_buf = i;
        if (first_bad)
            *first_bad = (size_t)d.first_bad;
        struct cl_result *r = v->ck.r;
        r->status = CL_ST_WRONG;
        if (d.n_poison == p->count)
            snprintf(r->msg, sizeof r->msg,
                     "%s%s: none of the %zu elements was written", v->ck.when,
                     p->name, p->count);
        else if (d.n_bad)
            snprintf(r->msg, sizeof r->msg,
                     "%s%s: %llu of %zu elements differ from %s's on the same "
                     "inputs (%llu never written, %llu NaN or Inf); first at "
                     "[%llu]",
                     v->ck.when, p->name, d.n_bad, p->count, k->lab->baseline,
                     d.n_poison, d.n_nonfinite, d.first_bad);
        else
            snprintf(r->msg, sizeof r->msg,
                     "%s%s: every element is close to %s's, but the relative "
                     "L2 error %.3g is too large (lower precision than "
                     "FP32?)",
                     v->ck.when, p->name, k->lab->baseline, rel);
        return 1;
    }
    return 0;
}
