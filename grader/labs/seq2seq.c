/*
 * Lab 6 spec: greedy decoding with a GRU encoder-decoder, against the
 * framework-style cuDNN + cuBLAS pipeline.
 *
 * Correctness: teacher-forced logits (seq2seq_forced) against a double CPU
 * model, and greedy tokens (seq2seq_greedy) against the CPU's greedy
 * decode. A token that differs from the reference is accepted only at a
 * near-tie (the reference's logits of the two tokens within the tolerance),
 * after which that sentence is not compared further: the two decodes have
 * parted ways legitimately. Random models (PyTorch's initialisation) cover
 * the edges; the trained model (labs/06-seq2seq/data) must translate its
 * held-out test set as well as the reference does (within 0.5 points of
 * exact-match accuracy).
 *
 * Baseline: the pipeline an eager framework runs, in C: embedding gathers,
 * concatenations and an argmax as small kernels, cuDNN's GRU
 * (CUDNN_FMA_MATH, standard algorithm, as PyTorch picks for FP32) and
 * cuBLAS's SGEMM (default FP32 math) for the output layer, launched step by
 * step; and the same pipeline captured once in a CUDA graph. The faster of
 * the two is the baseline.
 */
#include "baselines.h"
#include "fileio.h"
#include "gru.h"
#include "labkit.h"
#include "refs.h"
#include "rng.h"
#include "safetensors.h"
#include "seq2seq.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include "errcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_DIR "labs/06-seq2seq/data" /* CUDA_LABS_DATA overrides it */
#define PAD      0 /* the special tokens of the trained model's vocabularies */
#define SOS      1
#define EOS      2

// ----------------------------------------------------------------------------
// cases: p = {kind, S, T, B, V (both vocabularies), size class}

enum { K_FORCED, K_GREEDY, K_MODEL, K_SPEED, K_DEMO };
/* embedding and hidden sizes of the random models */
static const int DIMS[3][2] = {{16, 24}, {48, 100}, {256, 512}};

#define CASE(name, kind, k, s, t, b, v, d, pts, quick)                         \
    {                                                                          \
        name, kind, pts, {k, s, t, b, v, d}, quick, 0, CL_VS_DEFAULT           \
    }
#define CORRECT(name, k, s, t, b, v, d, pts, quick)                            \
    CASE(name, CL_CASE_CORRECT, k, s, t, b, v, d, pts, quick)
#define SPEED(name, b, pts)                                                    \
    CASE(name, CL_CASE_SPEED, K_SPEED, 32, 32, b, 8192, 2, pts, 0)

static const struct cl_case cases[] = {
    CORRECT("forced-b1-s1-t1", K_FORCED, 1, 1, 1, 1001, 0, 8, 1),
    CORRECT("forced-b5-s7-t9", K_FORCED, 7, 9, 5, 1001, 1, 8, 1),
    CORRECT("greedy-b1-s1-t1", K_GREEDY, 1, 1, 1, 37, 0, 8, 1),
    CORRECT("greedy-b3-s6-t12", K_GREEDY, 6, 12, 3, 1001, 1, 8, 1),
    CORRECT("greedy-b64-s32-t32", K_GREEDY, 32, 32, 64, 8192, 2, 8, 0),
    /* the trained model on its held-out test set */
    CORRECT("translate", K_MODEL, 0, 0, 0, 0, 0, 10, 0),
    /* V = 8192, E = 256, H = 512, S = T = 32 */
    SPEED("b1", 1, 15),
    SPEED("b8", 8, 10),
    SPEED("b64", 64, 15),
    SPEED("b256", 256, 10),
    CASE("b32", CL_CASE_BENCH, K_SPEED, 32, 32, 32, 8192, 2, 0, 0),
    CASE("b128", CL_CASE_BENCH, K_SPEED, 32, 32, 128, 8192, 2, 0, 0),
    CASE("b1-t128", CL_CASE_BENCH, K_SPEED, 32, 128, 1, 8192, 2, 0, 0),
    CASE("examples", CL_CASE_DEMO, K_DEMO, 0, 0, 0, 0, 0, 0, 0),
};

#define MAX_ROWS 4 /* sentences compared with the CPU in a large batch */

// ----------------------------------------------------------------------------
// CPU reference (double)

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

/* a file of the lab's data directory */
static const char *data_path(const char *file, char *buf, size_t len)
{
    const char *dir = getenv("CUDA_LABS_DATA");
    snprintf(buf, len, "%s/%s", dir && *dir ? dir : DATA_DIR, file);
    return buf;
}

// ----------------------------------------------------------------------------
// models: one guarded arena, host copy beside it

struct model {
    struct seq2seq_model dev, host;
    float *hbuf;
    struct cl_dbuf arena;
    int S, T; /* the trained model's source and target lengths */
};

/* the tensors in arena order, with their shapes from (Vs, Vt, E, H) */
struct slot {
    const char *name;
    long long rows, cols; /* cols 0: a vector */
};

static int slots(int vs, int vt, int E, int H, struct slot *s)
{
    struct slot all[] = {
        {"encoder.embedding.weight", vs, E},
        {"encoder.rnn.weight_ih_l0", 3LL * H, E},
        {"encoder.rnn.weight_hh_l0", 3LL * H, H},
        {"encoder.rnn.bias_ih_l0", 3LL * H, 0},
        {"encoder.rnn.bias_hh_l0", 3LL * H, 0},
        {"decoder.embedding.weight", vt, E},
        {"decoder.rnn.weight_ih_l0", 3LL * H, E + H},
        {"decoder.rnn.weight_hh_l0", 3LL * H, H},
        {"decoder.rnn.bias_ih_l0", 3LL * H, 0},
        {"decoder.rnn.bias_hh_l0", 3LL * H, 0},
        {"decoder.fc_out.weight", vt, E + 2LL * H},
        {"decoder.fc_out.bias", vt, 0},
    };
    int n = (int)(sizeof all / sizeof all[0]);
    if (s)
        memcpy(s, all, sizeof all);
    return n;
}

/* point the two model structs at consecutive tensors of the buffers */
static void model_bind(struct model *m, int vs, int vt, int E, int H)
{
    struct slot sl[12];
    int n = slots(vs, vt, E, H, sl);
    const float *hp[12], *dp[12];
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        hp[i] = m->hbuf + off;
        dp[i] = (const float *)m->arena.ptr + off;
        off += (size_t)(sl[i].rows * (sl[i].cols ? sl[i].cols : 1));
    }
    for (int k = 0; k < 2; k++) {
        struct seq2seq_model *x = k ? &m->dev : &m->host;
        const float **p = k ? dp : hp;
        x->v_src = vs;
        x->v_tgt = vt;
        x->emb = E;
        x->hid = H;
        x->enc_emb = p[0];
        x->enc.w_ih = p[1];
        x->enc.w_hh = p[2];
        x->enc.b_ih = p[3];
        x->enc.b_hh = p[4];
        x->dec_emb = p[5];
        x->dec.w_ih = p[6];
        x->dec.w_hh = p[7];
        x->dec.b_ih = p[8];
        x->dec.b_hh = p[9];
        x->fc_w = p[10];
        x->fc_b = p[11];
    }
}

static size_t model_floats(int vs, int vt, int E, int H)
{
    struct slot sl[12];
    int n = slots(vs, vt, E, H, sl);
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += (size_t)(sl[i].rows * (sl[i].cols ? sl[i].cols : 1));
    return total;
}

static void model_upload(struct model *m, size_t floats, cudaStream_t s)
{
    cl_dbuf_create(&m->arena, floats * sizeof(float), 0);
    cl_dbuf_arm(&m->arena, s);
    CUDA_CHECK(cudaMemcpy(m->arena.ptr, m->hbuf, floats * sizeof(float),
                          cudaMemcpyHostToDevice));
}

/* PyTorch's initialisation: embeddings N(0, 1)-like (uniform [-1, 1) here),
 * GRU and linear weights uniform in +-1/sqrt(fan) */
static void model_random(struct model *m, const struct cl_ctx *ctx, int V,
                         int E, int H)
{
    struct slot sl[12];
    int n = slots(V, V, E, H, sl);
    size_t total = model_floats(V, V, E, H), off = 0;
    memset(m, 0, sizeof *m);
    m->hbuf = cl_xmalloc(total * sizeof(float));
    for (int i = 0; i < n; i++) {
        size_t cnt = (size_t)(sl[i].rows * (sl[i].cols ? sl[i].cols : 1));
        float k = strstr(sl[i].name, "embedding") ? 1.0f
                  : strstr(sl[i].name, "fc_out")
                      ? 1.0f / sqrtf((float)(E + 2 * H))
                      : 1.0f / sqrtf((float)H);
        cl_fill_uniform_host(m->hbuf + off, cnt, ctx->seed, 200 + (uint64_t)i,
                             -k, k);
        off += cnt;
    }
    model_upload(m, total, ctx->stream);
    model_bind(m, V, V, E, H);
}

/* read and check the trained model into host memory (no CUDA here) */
static int model_read(struct model *m, char *err, size_t len)
{
    struct cl_st st;
    char why[512];
    char pbuf[1024];
    const char *path = data_path("model.safetensors", pbuf, sizeof pbuf);
    memset(m, 0, sizeof *m);
    if (cl_st_load(path, &st, err, len) != 0)
        return -1;
    long long emb[2] = {-1, -1}, hh[2] = {-1, -1}, demb[2] = {-1, -1};
    if (!cl_st_f32(&st, "encoder.embedding.weight", 2, emb, why, sizeof why) ||
        !cl_st_f32(&st, "encoder.rnn.weight_hh_l0", 2, hh, why, sizeof why) ||
        !cl_st_f32(&st, "decoder.embedding.weight", 2, demb, why, sizeof why)) {
        snprintf(err, len, "%s: %s", path, why);
        goto bad;
    }
    int vs = (int)emb[0], E = (int)emb[1], H = (int)hh[1], vt = (int)demb[0];
    if (hh[0] != 3 * hh[1] || demb[1] != E || vs < 3 || vt < 3) {
        snprintf(err, len,
                 "%s: inconsistent sizes (encoder.rnn.weight_hh_l0 is "
                 "%lld x %lld, embeddings %d and %lld wide)",
                 path, hh[0], hh[1], E, demb[1]);
        goto bad;
    }
    struct slot sl[12];
    int n = slots(vs, vt, E, H, sl);
    for (int i = 0; i < st.n; i++) {
        int known = 0;
        for (int k = 0; k < n; k++)
            known |= strcmp(st.t[i].name, sl[k].name) == 0;
        if (!known) {
            snprintf(err, len, "%s: unexpected tensor '%s'", path,
                     st.t[i].name);
            goto bad;
        }
    }
    size_t total = model_floats(vs, vt, E, H), off = 0;
    m->hbuf = cl_xmalloc(total * sizeof(float));
    for (int i = 0; i < n; i++) {
        long long shape[2] = {sl[i].rows, sl[i].cols};
        int nd = sl[i].cols ? 2 : 1;
        const void *p = cl_st_f32(&st, sl[i].name, nd, shape, why, sizeof why);
        if (!p) {
            snprintf(err, len, "%s: %s", path, why);
            goto bad;
        }
        size_t cnt = (size_t)(sl[i].rows * (sl[i].cols ? sl[i].cols : 1));
        memcpy(m->hbuf + off, p, cnt * sizeof(float));
        off += cnt;
    }
    const char *s_len = cl_st_meta(&st, "src_len"),
               *t_len = cl_st_meta(&st, "tgt_len");
    m->S = s_len ? atoi(s_len) : 0;
    m->T = t_len ? atoi(t_len) : 0;
    if (m->S < 1 || m->T < 1 || m->S > 64 || m->T > 64) {
        snprintf(err, len,
                 "%s: __metadata__ lacks src_len and tgt_len (1 to 64)", path);
        goto bad;
    }
    model_bind(m, vs, vt, E, H);
    cl_st_free(&st);
    return 0;
bad:
    free(m->hbuf);
    m->hbuf = NULL;
    cl_st_free(&st);
    return -1;
}

static void model_destroy(struct model *m, int free_device)
{
    if (free_device)
        cl_dbuf_destroy(&m->arena);
    free(m->hbuf);
}

// ----------------------------------------------------------------------------
// the trained model's vocabularies and test set

struct vocab {
    int n;
    char (*w)[32];
};

static int vocab_read(const char *path, struct vocab *v, char *err, size_t len)
{
    char *text = cl_read_file(path, NULL);
    v->n = 0;
    v->w = NULL;
    if (!text) {
        snprintf(err, len, "%s: cannot read the file", path);
        return -1;
    }
    int cap = 0;
    for (char *p = text; *p; p++)
        cap += *p == '\n';
    v->w = cl_xcalloc((size_t)cap + 1, sizeof *v->w);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        snprintf(v->w[v->n++], sizeof v->w[0], "%s", line);
    free(text);
    if (v->n < 3 || strcmp(v->w[PAD], "<pad>") || strcmp(v->w[SOS], "<sos>") ||
        strcmp(v->w[EOS], "<eos>")) {
        snprintf(err, len,
                 "%s: must start with <pad>, <sos> and <eos>, one per line",
                 path);
        return -1;
    }
    return 0;
}

static int vocab_find(const struct vocab *v, const char *w)
{
    for (int i = 0; i < v->n; i++)
        if (strcmp(v->w[i], w) == 0)
            return i;
    return -1;
}

struct testset {
    struct vocab src, tgt;
    int n;
    char (*line)[2][160]; /* source, reference */
};

static int testset_read(struct testset *ts, char *err, size_t len)
{
    char p[1024];
    memset(ts, 0, sizeof *ts);
    if (vocab_read(data_path("src.vocab", p, sizeof p), &ts->src, err, len) ||
        vocab_read(data_path("tgt.vocab", p, sizeof p), &ts->tgt, err, len))
        return -1;
    char *text = cl_read_file(data_path("test.tsv", p, sizeof p), NULL);
    if (!text) {
        snprintf(err, len, "%s: cannot read the file", p);
        return -1;
    }
    int cap = 1;
    for (char *p = text; *p; p++)
        cap += *p == '\n';
    ts->line = cl_xcalloc((size_t)cap, sizeof *ts->line);
    int bad = 0;
    for (char *l = strtok(text, "\n"); l && !bad; l = strtok(NULL, "\n")) {
        char *tab = strchr(l, '\t');
        if (!tab) {
            snprintf(err, len, "%s: line %d has no tab", p, ts->n + 1);
            bad = 1;
            break;
        }
        *tab = '\0';
        snprintf(ts->line[ts->n][0], 160, "%s", l);
        snprintf(ts->line[ts->n][1], 160, "%s", tab + 1);
        ts->n++;
    }
    free(text);
    if (!bad && ts->n == 0) {
        snprintf(err, len, "%s: empty", p);
        bad = 1;
    }
    return bad ? -1 : 0;
}

static void testset_free(struct testset *ts)
{
    free(ts->src.w);
    free(ts->tgt.w);
    free(ts->line);
}

/* sentence i's source as S ids, left-padded; -1 if a word is unknown or
 * the sentence is too long */
static int encode_source(const struct testset *ts, int i, int S, int *ids)
{
    char buf[160];
    int w[64], n = 0;
    snprintf(buf, sizeof buf, "%s", ts->line[i][0]);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
        if (n == S || (w[n] = vocab_find(&ts->src, t)) < 0)
            return -1;
        n++;
    }
    for (int k = 0; k < S; k++)
        ids[k] = k < S - n ? PAD : w[k - (S - n)];
    return 0;
}

/* tokens up to <eos> as words, into buf */
static void decode_words(const struct vocab *v, const int *tok, int T,
                         int stride, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int t = 0; t < T; t++) {
        int k = tok[(size_t)t * stride];
        if (k == EOS)
            break;
        at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "",
                               k >= 0 && k < v->n ? v->w[k] : "<?>");
        if (at >= len)
            break;
    }
}

/* the check the parent runs before grading: model, vocabularies, test set
 * all readable and consistent */
static int check_data(char *err, size_t len)
{
    struct model m;
    struct testset ts;
    int rc = model_read(&m, err, len);
    if (rc == 0) {
        rc = testset_read(&ts, err, len);
        if (rc == 0 && (ts.src.n != m.host.v_src || ts.tgt.n != m.host.v_tgt)) {
            char p[1024];
            snprintf(err, len,
                     "%s: the vocabularies (%d and %d words) do not match the "
                     "model (%d and %d)",
                     data_path("", p, sizeof p), ts.src.n, ts.tgt.n,
                     m.host.v_src, m.host.v_tgt);
            rc = -1;
        }
        int ids[64];
        for (int i = 0; rc == 0 && i < ts.n; i++)
            if (encode_source(&ts, i, m.S, ids)) {
                char p[1024];
                snprintf(err, len,
                         "%s: line %d ('%s') has an unknown word or more "
                         "than %d",
                         data_path("test.tsv", p, sizeof p), i + 1,
                         ts.line[i][0], m.S);
                rc = -1;
            }
        testset_free(&ts);
        free(m.hbuf);
    }
    return rc;
}

// ----------------------------------------------------------------------------
// state

struct state {
    seq2seq_workspace_size_fn ws_size;
    seq2seq_greedy_fn greedy;
    seq2seq_forced_fn forced;
    cublasHandle_t blas;
    cudnnHandle_t dnn;
};

static void *setup(void *lib, char *err, size_t len)
{
    struct state *s = cl_xcalloc(1, sizeof *s);
    if (!(s->ws_size = (seq2seq_workspace_size_fn)cl_entry_point(
              lib, "seq2seq_workspace_size", err, len)) ||
        !(s->greedy = (seq2seq_greedy_fn)cl_entry_point(lib, "seq2seq_greedy",
                                                        err, len)) ||
        !(s->forced = (seq2seq_forced_fn)cl_entry_point(lib, "seq2seq_forced",
                                                        err, len))) {
        free(s);
        return NULL;
    }
    CUBLAS_CHECK(cublasCreate(&s->blas));
    CUBLAS_CHECK(cublasSetMathMode(s->blas, CUBLAS_DEFAULT_MATH));
    CUDNN_CHECK(cudnnCreate(&s->dnn));
    return s;
}

static void teardown(void *p)
{
    struct state *s = p;
    if (!s)
        return;
    CUDNN_CHECK(cudnnDestroy(s->dnn));
    CUBLAS_CHECK(cublasDestroy(s->blas));
    free(s);
}

// ----------------------------------------------------------------------------
// the framework-style pipeline (the baseline)

struct pipeline {
    struct state *st;
    const struct seq2seq_model *m;
    const int *src;
    int S, T, B, sos;
    struct cl_cudnn_gru *enc, *dec;
    float *emb_src, *enc_y, *zeros, *ctx, *emb, *x, *d[2], *dy, *z, *logits;
    int *prev, *tokens;
    float *chosen;
    cudaGraphExec_t graph;
};

static void *dalloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

static int pipeline_create(struct pipeline *p, struct state *st,
                           const struct seq2seq_model *m, const int *src, int S,
                           int T, int B, char *why, size_t len)
{
    int E = m->emb, H = m->hid, V = m->v_tgt;
    memset(p, 0, sizeof *p);
    p->st = st;
    p->m = m;
    p->src = src;
    p->S = S;
    p->T = T;
    p->B = B;
    p->sos = SOS;
    struct gru_weights enc, dec;
    gru_of(&m->enc, &enc);
    gru_of(&m->dec, &dec);
    p->enc = cl_cudnn_gru_create(st->dnn, CL_GRU_STANDARD, S, B, E, H, 1, &enc,
                                 why, len);
    p->dec = cl_cudnn_gru_create(st->dnn, CL_GRU_STANDARD, 1, B, E + H, H, 1,
                                 &dec, why, len);
    size_t f = sizeof(float);
    p->emb_src = dalloc((size_t)S * B * E * f);
    p->enc_y = dalloc((size_t)S * B * H * f);
    p->zeros = dalloc((size_t)B * H * f);
    CUDA_CHECK(cudaMemset(p->zeros, 0, (size_t)B * H * f));
    p->ctx = dalloc((size_t)B * H * f);
    p->emb = dalloc((size_t)B * E * f);
    p->x = dalloc((size_t)B * (E + H) * f);
    p->d[0] = dalloc((size_t)B * H * f);
    p->d[1] = dalloc((size_t)B * H * f);
    p->dy = dalloc((size_t)B * H * f);
    p->z = dalloc((size_t)B * (E + 2 * H) * f);
    p->logits = dalloc((size_t)B * V * f);
    p->prev = dalloc((size_t)B * sizeof(int));
    p->tokens = dalloc((size_t)T * B * sizeof(int));
    p->chosen = dalloc((size_t)T * B * f);
    return p->enc && p->dec ? 0 : -1;
}

/* what an eager framework launches: ~7 kernels and library calls a step */
static void pipeline_eager(void *ctx, cudaStream_t s)
{
    struct pipeline *p = ctx;
    const struct seq2seq_model *m = p->m;
    int E = m->emb, H = m->hid, V = m->v_tgt, B = p->B;
    cl_gather_rows(m->enc_emb, p->src, p->emb_src, p->S * B, E, s);
    struct cl_cudnn_gru_call enc = {p->enc, p->emb_src, p->zeros, p->enc_y,
                                    p->ctx};
    cl_cudnn_gru_run(&enc, s);
    cl_fill_int(p->prev, p->sos, B, s);
    const float *d = p->ctx;
    CUBLAS_CHECK(cublasSetStream(p->st->blas, s));
    const float one = 1.0f;
    for (int t = 0; t < p->T; t++) {
        float *dn = p->d[t & 1];
        cl_gather_rows(m->dec_emb, p->prev, p->emb, B, E, s);
        cl_concat_rows(p->emb, E, p->ctx, H, NULL, 0, p->x, B, s);
        struct cl_cudnn_gru_call dec = {p->dec, p->x, d, p->dy, dn};
        cl_cudnn_gru_run(&dec, s);
        cl_concat_rows(p->emb, E, dn, H, p->ctx, H, p->z, B, s);
        cl_broadcast_rows(m->fc_b, p->logits, B, V, s);
        /* logits (B, V) += z (B, E + 2H) * fc_w^T, row-major */
        CUBLAS_CHECK(cublasSgemm(p->st->blas, CUBLAS_OP_T, CUBLAS_OP_N, V, B,
                                 E + 2 * H, &one, m->fc_w, E + 2 * H, p->z,
                                 E + 2 * H, &one, p->logits, V));
        cl_argmax_rows(p->logits, B, V, p->tokens + (size_t)t * B,
                       p->chosen + (size_t)t * B, p->prev, s);
        d = dn;
    }
}

static void pipeline_graph(void *ctx, cudaStream_t s)
{
    struct pipeline *p = ctx;
    CUDA_CHECK(cudaGraphLaunch(p->graph, s));
}

/* capture the eager pipeline once; 0, or -1 with the reason */
static int pipeline_capture(struct pipeline *p, cudaStream_t s, char *why,
                            size_t len)
{
    cudaGraph_t g = NULL;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    pipeline_eager(p, s);
    cudaError_t e = cudaStreamEndCapture(s, &g);
    if (e == cudaSuccess)
        e = cudaGraphInstantiate(&p->graph, g, 0);
    if (g)
        CUDA_CHECK(cudaGraphDestroy(g));
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        p->graph = NULL;
        snprintf(why, len, "%s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

static void pipeline_destroy(struct pipeline *p)
{
    if (p->graph)
        CUDA_CHECK(cudaGraphExecDestroy(p->graph));
    cl_cudnn_gru_destroy(p->enc);
    cl_cudnn_gru_destroy(p->dec);
    void *bufs[] = {p->emb_src, p->enc_y, p->zeros,  p->ctx,   p->emb,
                    p->x,       p->d[0],  p->d[1],   p->dy,    p->z,
                    p->logits,  p->prev,  p->tokens, p->chosen};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        CUDA_CHECK(cudaFree(bufs[i]));
}

// ----------------------------------------------------------------------------
// the student's calls

struct call {
    struct state *st;
    const struct seq2seq_model *m;
    const int *src, *y_in;
    int S, T, B;
    int *tokens;
    float *logits, *out;
    void *ws;
    size_t ws_bytes;
};

static void run_greedy(void *p, cudaStream_t s)
{
    struct call *c = p;
    c->st->greedy(c->m, c->src, c->S, c->B, c->T, SOS, c->tokens, c->logits,
                  c->ws, c->ws_bytes, s);
}

/* logits carry FP32 rounding through S + T GRU steps and a long dot
 * product; TF32 or half precision is off by far more */
static struct cl_tolerance tolerance(int S, int T)
{
    double grow = 1.0 + sqrt((double)(S + T));
    struct cl_tolerance t = {3e-5 * grow, 1e-4, 1.5e-5 * grow};
    return t;
}

/* random source tokens (S, B) in [0, V) and decoder inputs (T, B) */
static int *random_tokens(size_t n, int V, const struct cl_ctx *ctx,
                          uint64_t stream, int first)
{
    int *t = cl_xmalloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++)
        t[i] = (int)(cl_rand_bits(ctx->seed, stream, i) % (uint64_t)V);
    if (first >= 0)
        t[0] = first;
    return t;
}

static int *upload_ints(struct cl_dbuf *d, const int *h, size_t n,
                        cudaStream_t s)
{
    cl_dbuf_create(d, n * sizeof(int), 0);
    cl_dbuf_arm(d, s);
    CUDA_CHECK(cudaMemcpy(d->ptr, h, n * sizeof(int), cudaMemcpyHostToDevice));
    return d->ptr;
}

/* the CPU's greedy decode of the sentences a case checks; each is computed
 * the first time a check needs it and kept for the case's later checks
 * (the baseline's, and the student's again after timing) */
struct greedy_ref {
    const struct seq2seq_model *host;
    const int *src;
    int S, T, B, n;
    int rows[MAX_ROWS], done[MAX_ROWS];
    int *tok;       /* (n, T) */
    double *logits; /* (n, T, V) */
};

static void greedy_ref_init(struct greedy_ref *g,
                            const struct seq2seq_model *host, const int *src,
                            int S, int T, int B)
{
    memset(g, 0, sizeof *g);
    g->host = host;
    g->src = src;
    g->S = S;
    g->T = T;
    g->B = B;
    g->n = cl_spread_indices(B, MAX_ROWS, g->rows);
    g->tok = cl_xmalloc((size_t)g->n * T * sizeof *g->tok);
    g->logits = cl_xmalloc((size_t)g->n * T * host->v_tgt * sizeof *g->logits);
}

/* sentence i of the checked ones: its tokens, and into *logits its logits */
static const int *greedy_ref_row(struct greedy_ref *g, int i,
                                 const double **logits)
{
    int *tok = g->tok + (size_t)i * g->T;
    double *lg = g->logits + (size_t)i * g->T * g->host->v_tgt;
    if (!g->done[i]) {
        seq2seq_ref(g->host, g->src, g->S, g->B, g->rows[i], g->T, SOS, NULL,
                    tok, lg);
        g->done[i] = 1;
    }
    *logits = lg;
    return tok;
}

static void greedy_ref_free(struct greedy_ref *g)
{
    free(g->tok);
    free(g->logits);
}

/* greedy tokens and chosen logits (T, B) of the device against the CPU */
static int check_greedy(struct greedy_ref *g, const int *d_tok,
                        const float *d_logit, const char *who,
                        struct cl_result *r)
{
    int T = g->T, B = g->B, V = g->host->v_tgt;
    int *tok = cl_xmalloc((size_t)T * B * sizeof *tok);
    float *lg = cl_xmalloc((size_t)T * B * sizeof *lg);
    CUDA_CHECK(cudaMemcpy(tok, d_tok, (size_t)T * B * sizeof *tok,
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(lg, d_logit, (size_t)T * B * sizeof *lg,
                          cudaMemcpyDeviceToHost));
    int bad = 0;
    size_t first = 0;
    size_t unwritten =
        cl_count_poison_f32(lg, (size_t)T * B, &first) +
        cl_count_poison_f32((const float *)tok, (size_t)T * B, &first);
    if (unwritten) {
        r->status = CL_ST_WRONG;
        snprintf(r->msg, sizeof r->msg,
                 "%stokens or logits: %zu of %d never written", who, unwritten,
                 2 * T * B);
        bad = 1;
    }
    struct cl_tolerance tol = tolerance(g->S, T);
    int ties = 0;
    int *got = cl_xmalloc((size_t)T * sizeof *got);
    float *got_l = cl_xmalloc((size_t)T * sizeof *got_l);
    for (int i = 0; i < g->n && !bad; i++) {
        int b = g->rows[i], step;
        const double *ref_l;
        const int *ref = greedy_ref_row(g, i, &ref_l);
        for (int t = 0; t < T; t++) {
            got[t] = tok[(size_t)t * B + b];
            got_l[t] = lg[(size_t)t * B + b];
        }
        char why[400];
        int rc = seq2seq_compare_greedy(got, got_l, ref, ref_l, T, V, tol.atol,
                                        tol.atol, &step, why, sizeof why);
        ties += rc == 1;
        if (rc < 0) {
            r->status = CL_ST_WRONG;
            snprintf(r->msg, sizeof r->msg, "%ssentence %d, %s", who, b, why);
            bad = 1;
        }
    }
    if (!bad && ties)
        snprintf(r->msg, sizeof r->msg,
                 "%d sentence(s) parted from the reference at a near-tie "
                 "(accepted)",
                 ties);
    free(got);
    free(got_l);
    free(tok);
    free(lg);
    return bad;
}

// ----------------------------------------------------------------------------
// cases on random models

static void run_random(struct state *st, const struct cl_ctx *ctx,
                       const struct cl_case *cs, struct cl_result *r)
{
    int kind = (int)cs->p[0], S = (int)cs->p[1], T = (int)cs->p[2],
        B = (int)cs->p[3], V = (int)cs->p[4];
    int E = DIMS[cs->p[5]][0], H = DIMS[cs->p[5]][1];
    cudaStream_t s = ctx->stream;
    struct model m;
    struct cl_dbuf dsrc, dyin, dtok, dlog, dout, ws;
    struct pipeline pl;
    struct greedy_ref ref;
    int have_pl = 0;
    memset(&ref, 0, sizeof ref);
    memset(&dyin, 0, sizeof dyin);
    memset(&dout, 0, sizeof dout);
    memset(&dtok, 0, sizeof dtok);
    memset(&dlog, 0, sizeof dlog);
    model_random(&m, ctx, V, E, H);
    int *hsrc = random_tokens((size_t)S * B, V, ctx, 1, -1);
    int *hyin = random_tokens((size_t)T * B, V, ctx, 2, -1);
    for (int b = 0; b < B; b++)
        hyin[b] = SOS;
    upload_ints(&dsrc, hsrc, (size_t)S * B, s);
    size_t ws_bytes = st->ws_size(&m.dev, S, T, B);
    cl_dbuf_create(&ws, ws_bytes ? ws_bytes : 1, 0);
    cl_dbuf_arm(&ws, s);
    struct call c = {st, &m.dev, dsrc.ptr, NULL, S,      T,
                     B,  NULL,   NULL,     NULL, ws.ptr, ws_bytes};
    const struct cl_dbuf *bufs[6] = {&dsrc, &ws, &m.arena};
    const char *names[6] = {"src", "workspace", "model"};
    int nb = 3;

    if (kind == K_FORCED) {
        c.y_in = upload_ints(&dyin, hyin, (size_t)T * B, s);
        cl_output_create(&dout, (size_t)T * B * V, 0, ctx);
        c.out = dout.ptr;
        bufs[nb] = &dyin;
        names[nb++] = "y_in";
        bufs[nb] = &dout;
        names[nb++] = "out";
        cl_profile_mark(ctx, 1);
        st->forced(c.m, c.src, S, B, T, c.y_in, c.out, c.ws, c.ws_bytes, s);
        cl_profile_mark(ctx, 0);
        if (cl_student_error(s, "in seq2seq_forced", r) ||
            cl_check_guards(bufs, names, nb, sizeof(float), s, r))
            goto done;
        float *got = cl_xmalloc((size_t)T * B * V * sizeof *got);
        CUDA_CHECK(cudaMemcpy(got, dout.ptr, (size_t)T * B * V * sizeof *got,
                              cudaMemcpyDeviceToHost));
        int rows[MAX_ROWS], n = cl_spread_indices(B, MAX_ROWS, rows), bad = 0;
        int *tk = cl_xmalloc((size_t)T * sizeof *tk);
        double *ref = cl_xmalloc((size_t)T * V * sizeof *ref);
        size_t *idx = cl_xmalloc((size_t)T * V * sizeof *idx);
        struct cl_tolerance tol = tolerance(S, T);
        for (int i = 0; i < n && !bad; i++) {
            seq2seq_ref(&m.host, hsrc, S, B, rows[i], T, SOS, hyin, tk, ref);
            for (int t = 0; t < T; t++)
                for (int v = 0; v < V; v++)
                    idx[(size_t)t * V + v] = ((size_t)t * B + rows[i]) * V + v;
            struct cl_compare cmp;
            cl_compare_f32(got, ref, idx, (size_t)T * V, &tol, &cmp);
            char what[160];
            snprintf(what, sizeof what,
                     "logits of sentence %d (index = (step * %d + sentence) "
                     "* %d + token)",
                     rows[i], B, V);
            bad = cl_verdict(&cmp, what, r);
        }
        free(tk);
        free(ref);
        free(idx);
        free(got);
        if (!bad)
            r->status = CL_ST_PASS;
        goto done;
    }

    cl_output_create(&dtok, (size_t)T * B, 0, ctx);
    cl_output_create(&dlog, (size_t)T * B, 0, ctx);
    c.tokens = dtok.ptr;
    c.logits = dlog.ptr;
    bufs[nb] = &dtok;
    names[nb++] = "tokens";
    bufs[nb] = &dlog;
    names[nb++] = "logits";
    greedy_ref_init(&ref, &m.host, hsrc, S, T, B);
    cl_profile_mark(ctx, 1);
    run_greedy(&c, s);
    cl_profile_mark(ctx, 0);
    if (cl_student_error(s, "in seq2seq_greedy", r) ||
        cl_check_guards(bufs, names, nb, sizeof(float), s, r) ||
        check_greedy(&ref, dtok.ptr, dlog.ptr, "", r))
        goto done;
    r->status = CL_ST_PASS;
    if (!ctx->timing)
        goto done;

    /* the baseline, checked like the student, then timed beside it */
    char why[512];
    have_pl = 1;
    struct cl_result check = *r;
    if (pipeline_create(&pl, st, &m.dev, dsrc.ptr, S, T, B, why, sizeof why) !=
        0) {
        r->status = CL_ST_INTERNAL;
        snprintf(r->msg, sizeof r->msg, "baseline: cuDNN refused: %.400s", why);
        goto done;
    }
    pipeline_eager(&pl, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (check_greedy(&ref, pl.tokens, pl.chosen, "baseline: ", &check)) {
        r->status = CL_ST_INTERNAL;
        snprintf(r->msg, sizeof r->msg, "baseline is wrong: %.900s", check.msg);
        goto done;
    }
    int graph_ok = pipeline_capture(&pl, s, why, sizeof why) == 0;
    struct cl_timed items[3] = {
        {"seq2seq_greedy", run_greedy, &c, {0}},
        {"eager pipeline", pipeline_eager, &pl, {0}},
        {"graph pipeline", pipeline_graph, &pl, {0}},
    };
    cl_dbuf_poison(&dtok, s);
    cl_dbuf_poison(&dlog, s);
    if (cl_time_case(ctx, items, graph_ok ? 3 : 2, r))
        goto done;
    double eager = items[1].ms.median,
           graph = graph_ok ? items[2].ms.median : 0;
    r->base_ms = graph_ok && graph < eager ? graph : eager;
    r->ceil_ms = 0;
    /* FLOPs of the model's products: encoder, decoder GRU, output layer */
    r->work = 2.0 * B *
              ((double)S * 3 * H * (E + H) +
               (double)T * (3.0 * H * (E + 2 * H) + (double)V * (E + 2 * H)));
    if (graph_ok)
        snprintf(r->msg, sizeof r->msg,
                 "pipeline: eager %.4f ms, CUDA graph %.4f ms; yours is "
                 "%.2fx eager",
                 eager, graph, eager / items[0].ms.median);
    else
        snprintf(r->msg, sizeof r->msg,
                 "pipeline: eager %.4f ms; graph capture failed (%.300s)",
                 eager, why);
    struct cl_result after = *r;
    if (cl_check_guards(bufs, names, nb, sizeof(float), s, &after) ||
        check_greedy(&ref, dtok.ptr, dlog.ptr, "after timing: ", &after)) {
        *r = after;
        r->timed = 0;
    }

done:
    if (!r->restart) {
        if (have_pl)
            pipeline_destroy(&pl);
        for (int i = 0; i < nb; i++)
            if (bufs[i] != &m.arena)
                cl_dbuf_destroy((struct cl_dbuf *)bufs[i]);
    }
    greedy_ref_free(&ref);
    model_destroy(&m, !r->restart);
    free(hsrc);
    free(hyin);
}

// ----------------------------------------------------------------------------
// the trained model: accuracy on the held-out set, and the demo

static void run_model(struct state *st, const struct cl_ctx *ctx,
                      const struct cl_case *cs, struct cl_result *r)
{
    char err[600];
    struct model m;
    struct testset ts;
    cudaStream_t s = ctx->stream;
    if (model_read(&m, err, sizeof err) || testset_read(&ts, err, sizeof err)) {
        r->status = CL_ST_INTERNAL;
        snprintf(r->msg, sizeof r->msg, "%.1000s", err);
        return;
    }
    model_upload(
        &m, model_floats(m.host.v_src, m.host.v_tgt, m.host.emb, m.host.hid),
        s);
    model_bind(&m, m.host.v_src, m.host.v_tgt, m.host.emb, m.host.hid);
    int demo = cs->p[0] == K_DEMO;
    int B = demo ? (ts.n < 12 ? ts.n : 12) : ts.n, S = m.S, T = m.T;
    int *hsrc = cl_xmalloc((size_t)S * B * sizeof *hsrc), ids[64];
    for (int b = 0; b < B; b++) {
        encode_source(&ts, b, S, ids);
        for (int k = 0; k < S; k++)
            hsrc[(size_t)k * B + b] = ids[k];
    }
    struct cl_dbuf dsrc, dtok, dlog, ws;
    upload_ints(&dsrc, hsrc, (size_t)S * B, s);
    cl_output_create(&dtok, (size_t)T * B, 0, ctx);
    cl_output_create(&dlog, (size_t)T * B, 0, ctx);
    size_t ws_bytes = st->ws_size(&m.dev, S, T, B);
    cl_dbuf_create(&ws, ws_bytes ? ws_bytes : 1, 0);
    cl_dbuf_arm(&ws, s);
    const struct cl_dbuf *bufs[] = {&dsrc, &dtok, &dlog, &ws, &m.arena};
    const char *names[] = {"src", "tokens", "logits", "workspace", "model"};
    struct call c = {st, &m.dev,   dsrc.ptr, NULL, S,      T,
                     B,  dtok.ptr, dlog.ptr, NULL, ws.ptr, ws_bytes};
    cl_profile_mark(ctx, 1);
    run_greedy(&c, s);
    cl_profile_mark(ctx, 0);
    if (cl_student_error(s, "in seq2seq_greedy", r) ||
        cl_check_guards(bufs, names, 5, sizeof(float), s, r))
        goto done;
    int *tok = cl_xmalloc((size_t)T * B * sizeof *tok);
    CUDA_CHECK(cudaMemcpy(tok, dtok.ptr, (size_t)T * B * sizeof *tok,
                          cudaMemcpyDeviceToHost));
    int *rt = cl_xmalloc((size_t)T * sizeof *rt);
    double *rl = cl_xmalloc((size_t)T * m.host.v_tgt * sizeof *rl);
    int mine = 0, theirs = 0;
    char out[400], ref[400];
    if (demo)
        printf("%-44s  %-48s  %s\n", "source", "your output", "reference");
    for (int b = 0; b < B; b++) {
        decode_words(&ts.tgt, tok + b, T, B, out, sizeof out);
        seq2seq_ref(&m.host, hsrc, S, B, b, T, SOS, NULL, rt, rl);
        decode_words(&ts.tgt, rt, T, 1, ref, sizeof ref);
        mine += strcmp(out, ts.line[b][1]) == 0;
        theirs += strcmp(ref, ts.line[b][1]) == 0;
        if (demo)
            printf("%-44s  %-48s  %s%s\n", ts.line[b][0], out, ts.line[b][1],
                   strcmp(out, ts.line[b][1]) ? "   <-- differs" : "");
    }
    double a = 100.0 * mine / B, ra = 100.0 * theirs / B;
    snprintf(r->msg, sizeof r->msg,
             "exact match on %d held-out sentences: %.2f%% (the reference: "
             "%.2f%%)",
             B, a, ra);
    r->status = demo || fabs(a - ra) <= 0.5 ? CL_ST_PASS : CL_ST_WRONG;
    if (demo) {
        fflush(stdout);
        snprintf(r->msg, sizeof r->msg, "%d of %d examples translated right",
                 mine, B);
    }
    free(tok);
    free(rt);
    free(rl);
done:
    if (!r->restart)
        for (int i = 0; i < 5; i++)
            cl_dbuf_destroy((struct cl_dbuf *)bufs[i]);
    free(m.hbuf);
    free(hsrc);
    testset_free(&ts);
}

static void run(void *p, const struct cl_ctx *ctx, const struct cl_case *cs,
                struct cl_result *r)
{
    if (cs->p[0] == K_MODEL || cs->p[0] == K_DEMO)
        run_model(p, ctx, cs, r);
    else
        run_random(p, ctx, cs, r);
}

// ----------------------------------------------------------------------------
// the spec

static const char *const symbols[] = {"seq2seq_workspace_size",
                                      "seq2seq_greedy", "seq2seq_forced", NULL};
static const char *const forbidden[] = {"cudnn", NULL};

const struct cl_lab cl_lab_seq2seq = {
    .id = "06",
    .slug = "seq2seq",
    .title = "Seq2seq: greedy decoding, encoder to argmax",
    .source = "labs/06-seq2seq/seq2seq.cu",
    .todo = "TODO(lab6)",
    .symbols = symbols,
    .forbidden = forbidden,
    .baseline = "cuDNN pipeline",
    .ceiling = NULL,
    .metric = CL_METRIC_TFLOPS,
    .speed_target = 1.0,
    .speed_vs = CL_VS_BASELINE,
    .bonus_at = 2.0,
    .needs_gpu = 1,
    .check_data = check_data,
    .timeout_s = 180.0,
    .profile_case = "b1",
    .cases = cases,
    .ncases = (int)(sizeof cases / sizeof cases[0]),
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
