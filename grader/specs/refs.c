/* refs.c: the labs' CPU references, in plain C with double accumulation.
 * The grader checks outputs against these; the unit tests check them
 * against values worked out by hand. */
#include "specs/refs.h"

#include "fatal.h"
#include "split.h"
#include "05-gru/gru.h"
#include "06-seq2seq/seq2seq.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vadd {
    const float *a, *b;
    double *ref;
};

static void vadd_part(void *ctx, size_t from, size_t to)
{
    const struct vadd *v = ctx;
    for (size_t i = from; i < to; i++)
        v->ref[i] = (double)v->a[i] + (double)v->b[i];
}

void vector_add_ref(const float *a, const float *b, double *ref, size_t n)
{
    struct vadd v = {a, b, ref};
    cl_split(n, (size_t)1 << 18, vadd_part, &v);
}

struct stencil {
    const float *in, *w;
    double *ref;
    long n;
    int radius;
};

static void stencil_part(void *ctx, size_t from, size_t to)
{
    const struct stencil *s = ctx;
    long n = s->n;
    int radius = s->radius;
    for (long i = (long)from; i < (long)to; i++) {
        double acc = 0.0;
        for (int j = -radius; j <= radius; j++)
            if (i + j >= 0 && i + j < n)
                acc += (double)s->w[j + radius] * s->in[i + j];
        s->ref[i] = acc;
    }
}

void stencil_ref(const float *in, const float *w, double *ref, long n,
                 int radius)
{
    struct stencil s = {in, w, ref, n, radius};
    cl_split(n > 0 ? (size_t)n : 0, (size_t)1 << 16, stencil_part, &s);
}

void causal_conv1d_ref(const float *x, const float *w, double *ref, long row0,
                       long nrows, int C, int T, int K)
{
    for (long r = row0; r < row0 + nrows; r++) {
        const float *xr = x + r * T, *wr = w + (r % C) * K;
        for (int t = 0; t < T; t++) {
            double acc = 0.0;
            for (int k = 0; k < K; k++) {
                int tt = t - (K - 1) + k;
                if (tt >= 0)
                    acc += (double)wr[k] * xr[tt];
            }
            ref[(r - row0) * T + t] = acc;
        }
    }
}

void matmul_ref(const float *A, const float *B, double *ref, long row0,
                long nrows, int N, int K)
{
    for (long i = row0; i < row0 + nrows; i++) {
        double *out = ref + (i - row0) * N;
        for (int j = 0; j < N; j++)
            out[j] = 0.0;
        for (int k = 0; k < K; k++) {
            double a = A[i * K + k];
            const float *b = B + (size_t)k * N;
            for (int j = 0; j < N; j++)
                out[j] += a * b[j];
        }
    }
}

void adamw_ref(double *p, double *m, double *v, const float *g, long long n,
               const struct adamw_ref_hp *hp)
{
    double bc1 = 1.0 - pow(hp->beta1, hp->step);
    double bc2 = 1.0 - pow(hp->beta2, hp->step);
    for (long long i = 0; i < n; i++) {
        p[i] *= 1.0 - hp->lr * hp->weight_decay;
        m[i] = hp->beta1 * m[i] + (1.0 - hp->beta1) * g[i];
        v[i] = hp->beta2 * v[i] + (1.0 - hp->beta2) * (double)g[i] * g[i];
        p[i] -= hp->lr / bc1 * m[i] / (sqrt(v[i]) / sqrt(bc2) + hp->eps);
    }
}

/* adamw_ref_list()'s packed elements from .. to - 1, a part a thread */
struct adamw_list {
    double *p, *m, *v;
    const float *g;
    int count;
    const long long *n, *off;
    const struct adamw_ref_hp *hp;
};

static void adamw_list_part(void *ctx, size_t from, size_t to)
{
    const struct adamw_list *a = ctx;
    long long lo0 = (long long)from, hi0 = (long long)to, at = 0;
    for (int i = 0; i < a->count && at < hi0; at += a->n[i], i++) {
        long long lo = lo0 > at ? lo0 : at;
        long long hi = hi0 < at + a->n[i] ? hi0 : at + a->n[i];
        if (lo < hi)
            adamw_ref(a->p + lo, a->m + lo, a->v + lo,
                      a->g + a->off[i] + (lo - at), hi - lo, a->hp);
    }
}

void adamw_ref_list(double *p, double *m, double *v, const float *g, int count,
                    const long long *n, const long long *off,
                    const struct adamw_ref_hp *hp)
{
    struct adamw_list a = {p, m, v, g, count, n, off, hp};
    long long total = 0;
    for (int i = 0; i < count; i++)
        total += n[i];
    cl_split((size_t)total, (size_t)1 << 16, adamw_list_part, &a);
}

static double sigmoid(double v)
{
    return 1.0 / (1.0 + exp(-v));
}

void gru_cell_ref(const double *x, const double *h, double *h_new,
                  const struct gru_weights *w, int I, int H)
{
    for (int j = 0; j < H; j++) {
        double gi[3], gh[3];
        for (int g = 0; g < 3; g++) {
            const float *wi = w->w_ih + ((size_t)g * H + j) * I;
            const float *wh = w->w_hh + ((size_t)g * H + j) * H;
            double si = w->b_ih[g * H + j], sh = w->b_hh[g * H + j];
            for (int k = 0; k < I; k++)
                si += (double)wi[k] * x[k];
            for (int k = 0; k < H; k++)
                sh += (double)wh[k] * h[k];
            gi[g] = si;
            gh[g] = sh;
        }
        double r = sigmoid(gi[0] + gh[0]);
        double z = sigmoid(gi[1] + gh[1]);
        double n = tanh(gi[2] + r * gh[2]);
        h_new[j] = (1.0 - z) * n + z * h[j];
    }
}

void gru_forward_ref(const float *x, const float *h0,
                     const struct gru_weights *layers, int T, int B, int I,
                     int H, int L, int b, double *y, double *h_n)
{
    int width = I > H ? I : H;
    double *in = cl_xmalloc((size_t)T * width * sizeof *in);
    double *out = cl_xmalloc((size_t)T * H * sizeof *out);
    double *h = cl_xmalloc((size_t)H * sizeof *h);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < I; k++)
            in[(size_t)t * width + k] = x[((size_t)t * B + b) * I + k];
    for (int l = 0; l < L; l++) {
        int In = l ? H : I;
        for (int k = 0; k < H; k++)
            h[k] = h0[((size_t)l * B + b) * H + k];
        for (int t = 0; t < T; t++) {
            gru_cell_ref(in + (size_t)t * width, h, out + (size_t)t * H,
                         &layers[l], In, H);
            memcpy(h, out + (size_t)t * H, (size_t)H * sizeof *h);
        }
        memcpy(h_n + (size_t)l * H, h, (size_t)H * sizeof *h);
        for (int t = 0; t < T; t++)
            memcpy(in + (size_t)t * width, out + (size_t)t * H,
                   (size_t)H * sizeof *in);
    }
    memcpy(y, out, (size_t)T * H * sizeof *y);
    free(in);
    free(out);
    free(h);
}

static void gru_of(const struct seq2seq_gru *g, struct gru_weights *w)
{
    w->w_ih = g->w_ih;
    w->w_hh = g->w_hh;
    w->b_ih = g->b_ih;
    w->b_hh = g->b_hh;
}

void seq2seq_ref(const struct seq2seq_model *m, const int *src, int S, int B,
                 int b, int T, int sos, const int *y_in, int *tokens,
                 double *logits)
{
    int E = m->emb, H = m->hid, V = m->v_tgt;
    struct gru_weights enc, dec;
    gru_of(&m->enc, &enc);
    gru_of(&m->dec, &dec);
    double *x = cl_xmalloc((size_t)(E + 2 * H) * sizeof *x);
    double *h = cl_xcalloc((size_t)H, sizeof *h);
    double *hn = cl_xmalloc((size_t)H * sizeof *hn);
    double *c = cl_xmalloc((size_t)H * sizeof *c);
    for (int s = 0; s < S; s++) {
        const float *e = m->enc_emb + (size_t)src[(size_t)s * B + b] * E;
        for (int k = 0; k < E; k++)
            x[k] = e[k];
        gru_cell_ref(x, h, hn, &enc, E, H);
        memcpy(h, hn, (size_t)H * sizeof *h);
    }
    memcpy(c, h, (size_t)H * sizeof *c); /* the context; h = d_{-1} */
    int prev = sos;
    for (int t = 0; t < T; t++) {
        int in = y_in ? y_in[(size_t)t * B + b] : prev;
        const float *e = m->dec_emb + (size_t)in * E;
        for (int k = 0; k < E; k++)
            x[k] = e[k];
        memcpy(x + E, c, (size_t)H * sizeof *x);
        gru_cell_ref(x, h, hn, &dec, E + H, H);
        memcpy(h, hn, (size_t)H * sizeof *h);
        /* [embedding; hidden; context] */
        memcpy(x + E, h, (size_t)H * sizeof *x);
        memcpy(x + E + H, c, (size_t)H * sizeof *x);
        double *o = logits + (size_t)t * V;
        int best = 0;
        for (int v = 0; v < V; v++) {
            const float *w = m->fc_w + (size_t)v * (E + 2 * H);
            double acc = m->fc_b[v];
            for (int k = 0; k < E + 2 * H; k++)
                acc += (double)w[k] * x[k];
            o[v] = acc;
            if (acc > o[best])
                best = v;
        }
        tokens[t] = best;
        prev = best;
    }
    free(x);
    free(h);
    free(hn);
    free(c);
}

int seq2seq_compare_greedy(const int *got, const float *got_logit,
                           const int *ref, const double *ref_logits, int T,
                           int V, double tie, double atol, int *step, char *why,
                           size_t len)
{
    for (int t = 0; t < T; t++) {
        const double *o = ref_logits + (size_t)t * V;
        *step = t;
        if (got[t] < 0 || got[t] >= V) {
            snprintf(why, len, "step %d: token %d is outside [0, %d)", t,
                     got[t], V);
            return -1;
        }
        if (got[t] != ref[t]) {
            double gap = o[ref[t]] - o[got[t]];
            if (gap <= tie)
                return 1; /* a near-tie: the decodes part legitimately */
            snprintf(why, len,
                     "step %d: token %d (reference logit %.6g) where the "
                     "reference chose %d (logit %.6g), a gap of %.3g: not a "
                     "tie",
                     t, got[t], o[got[t]], ref[t], o[ref[t]], gap);
            return -1;
        }
        double err = fabs((double)got_logit[t] - o[ref[t]]);
        if (!(err <= atol + 1e-4 * fabs(o[ref[t]]))) {
            snprintf(why, len,
                     "step %d: token %d is right, but its logit is %.7g, "
                     "expected %.7g",
                     t, got[t], got_logit[t], o[ref[t]]);
            return -1;
        }
    }
    *step = T;
    return 0;
}
