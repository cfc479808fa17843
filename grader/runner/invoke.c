/* invoke.c: the runner's half of each lab: the call itself (invoke.h). */
#include "runner/invoke.h"

#include "01-vector-add/vector_add.h"
#include "02-stencil/stencil.h"
#include "03-matmul/matmul.h"

#include <stdlib.h>
#include <string.h>

/* buffer k as T*, or NULL when the case has fewer buffers */
#define BUF(b, k, T) ((k) < (b)->nbuf ? (T)(b)->buf[k] : (T)NULL)

/* the common prepare: nothing to build, but the arguments must fit */
static size_t nothing(const struct cl_bound *b, void *scratch, size_t cap)
{
    (void)b;
    (void)scratch;
    (void)cap;
    return 1;
}

/* does buffer k hold at least n elements of size elem? */
static int fits(const struct cl_bound *b, int k, size_t n, size_t elem)
{
    return k < b->nbuf && b->bytes[k] >= n * elem;
}

// ---- Lab 1 ------------------------------------------------------------------

static size_t vadd_prepare(const struct cl_bound *b, void *scratch, size_t cap)
{
    const struct vadd_case *c = b->arg;
    size_t n = (size_t)c->n;
    return fits(b, VADD_A, n, 4) && fits(b, VADD_B, n, 4) &&
                   fits(b, VADD_C, n, 4)
               ? nothing(b, scratch, cap)
               : 0;
}

static void vadd_invoke(const struct cl_bound *b, const void *scratch,
                        cudaStream_t s)
{
    const struct vadd_case *c = b->arg;
    (void)scratch;
    ((vector_add_fn)b->fn[0])(BUF(b, VADD_A, const float *),
                              BUF(b, VADD_B, const float *),
                              BUF(b, VADD_C, float *), c->n, s);
}

// ---- Lab 2 ------------------------------------------------------------------

static size_t stencil_prepare(const struct cl_bound *b, void *scratch,
                              size_t cap)
{
    const struct stencil_case *c = b->arg;
    size_t nx =
        c->part == STENCIL_A ? (size_t)c->n : (size_t)c->B * c->C * c->T;
    size_t nw =
        c->part == STENCIL_A ? 2 * (size_t)c->radius + 1 : (size_t)c->C * c->K;
    return fits(b, ST_X, nx, 4) && fits(b, ST_W, nw, 4) && fits(b, ST_Y, nx, 4)
               ? nothing(b, scratch, cap)
               : 0;
}

static void stencil_invoke(const struct cl_bound *b, const void *scratch,
                           cudaStream_t s)
{
    const struct stencil_case *c = b->arg;
    (void)scratch;
    if (c->part == STENCIL_A)
        ((stencil_1d_fn)b->fn[0])(
            BUF(b, ST_X, const float *), BUF(b, ST_Y, float *),
            BUF(b, ST_W, const float *), c->n, c->radius, s);
    else
        ((causal_conv1d_fn)b->fn[1])(
            BUF(b, ST_X, const float *), BUF(b, ST_W, const float *),
            BUF(b, ST_Y, float *), c->B, c->C, c->T, c->K, s);
}

// ---- Lab 3 ------------------------------------------------------------------

static size_t mm_prepare(const struct cl_bound *b, void *scratch, size_t cap)
{
    const struct mm_case *c = b->arg;
    return fits(b, MM_A, (size_t)c->M * c->K, 4) &&
                   fits(b, MM_B, (size_t)c->K * c->N, 4) &&
                   fits(b, MM_C, (size_t)c->M * c->N, 4)
               ? nothing(b, scratch, cap)
               : 0;
}

static void mm_invoke(const struct cl_bound *b, const void *scratch,
                      cudaStream_t s)
{
    const struct mm_case *c = b->arg;
    (void)scratch;
    ((matmul_fn)b->fn[0])(BUF(b, MM_A, const float *),
                          BUF(b, MM_B, const float *), BUF(b, MM_C, float *),
                          c->M, c->N, c->K, s);
}

// ---- Lab 4 ------------------------------------------------------------------

/* the list of tensors, built in scratch from the arenas: its count, then
 * the tensors 16 bytes in */
#define AW_LIST_AT 16

static size_t adamw_prepare(const struct cl_bound *b, void *scratch, size_t cap)
{
    struct adamw_layout l;
    cl_adamw_layout(b->arg, &l);
    size_t need = AW_LIST_AT + (size_t)l.count * sizeof(struct adamw_tensor);
    size_t arena = (size_t)l.total * sizeof(float);
    int ok = need <= cap && l.n;
    for (int k = 0; k < AW_ARENAS && ok; k++)
        ok = fits(b, k, arena, 1);
    struct adamw_tensor *t =
        (struct adamw_tensor *)((unsigned char *)scratch + AW_LIST_AT);
    for (int i = 0; ok && i < l.count; i++) {
        t[i].param = BUF(b, AW_P, float *) + l.off[i];
        t[i].grad = BUF(b, AW_G, const float *) + l.off[i];
        t[i].exp_avg = BUF(b, AW_M, float *) + l.off[i];
        t[i].exp_avg_sq = BUF(b, AW_V, float *) + l.off[i];
        t[i].n = l.n[i];
    }
    if (ok)
        memcpy(scratch, &l.count, sizeof l.count);
    cl_adamw_layout_free(&l);
    return ok ? need : 0;
}

static void adamw_invoke(const struct cl_bound *b, const void *scratch,
                         cudaStream_t s)
{
    int count;
    memcpy(&count, scratch, sizeof count);
    ((adamw_step_fn)b->fn[0])(
        (const struct adamw_tensor *)((const unsigned char *)scratch +
                                      AW_LIST_AT),
        count, cl_adamw_hparams((int)b->tag), s);
}

// ---- Lab 5 ------------------------------------------------------------------

static size_t gru_prepare(const struct cl_bound *b, void *scratch, size_t cap)
{
    const struct gru_case *c = b->arg;
    if (c->L < 1 || c->L > GRU_MAX_LAYERS ||
        cap < (size_t)c->L * sizeof(struct gru_weights))
        return 0;
    struct gru_weights *w = scratch;
    for (int l = 0; l < c->L; l++) {
        int k = cl_gru_weights_buf(c, l), in = l ? c->H : c->I;
        if (!fits(b, k, cl_gru_arena_floats(in, c->H), 4))
            return 0;
        w[l] = cl_gru_weights_at(BUF(b, k, const float *), in, c->H);
    }
    size_t x = (size_t)(c->part == GRU_CELL ? 1 : c->T) * c->B * c->I;
    size_t h = (size_t)(c->part == GRU_CELL ? 1 : c->L) * c->B * c->H;
    size_t y = (size_t)(c->part == GRU_CELL ? 1 : c->T) * c->B * c->H;
    if (!fits(b, GRU_X, x, 4) || !fits(b, GRU_H, h, 4) ||
        !fits(b, GRU_OUT, y, 4) ||
        (c->part == GRU_FWD && !fits(b, GRU_HN, h, 4)))
        return 0;
    return (size_t)c->L * sizeof *w;
}

static void gru_invoke(const struct cl_bound *b, const void *scratch,
                       cudaStream_t s)
{
    const struct gru_case *c = b->arg;
    if (c->part == GRU_CELL)
        ((gru_cell_fn)b->fn[0])(
            BUF(b, GRU_X, const float *), BUF(b, GRU_H, const float *),
            BUF(b, GRU_OUT, float *), scratch, c->B, c->I, c->H, s);
    else
        ((gru_forward_fn)b->fn[2])(
            BUF(b, GRU_X, const float *), BUF(b, GRU_H, const float *),
            BUF(b, GRU_OUT, float *), BUF(b, GRU_HN, float *), scratch, c->T,
            c->B, c->I, c->H, c->L, BUF(b, GRU_WS, void *),
            GRU_WS < b->nbuf ? b->bytes[GRU_WS] : 0, s);
}

static size_t gru_query(const struct cl_bound *b, const void *scratch)
{
    const struct gru_case *c = b->arg;
    (void)scratch;
    return ((gru_workspace_size_fn)b->fn[1])(c->T, c->B, c->I, c->H, c->L);
}

// ---- Lab 6 ------------------------------------------------------------------

static size_t s2s_prepare(const struct cl_bound *b, void *scratch, size_t cap)
{
    const struct s2s_case *c = b->arg;
    if (cap < sizeof(struct seq2seq_model) || c->v_src < 1 || c->v_tgt < 1 ||
        !fits(b, S2S_ARENA, cl_s2s_floats(c->v_src, c->v_tgt, c->E, c->H), 4) ||
        !fits(b, S2S_SRC, (size_t)c->S * c->B, 4))
        return 0;
    struct seq2seq_model *m = scratch;
    *m = cl_s2s_model_at(BUF(b, S2S_ARENA, const float *), c->v_src, c->v_tgt,
                         c->E, c->H);
    return sizeof *m;
}

static void s2s_invoke(const struct cl_bound *b, const void *scratch,
                       cudaStream_t s)
{
    const struct s2s_case *c = b->arg;
    void *ws = BUF(b, S2S_WS, void *);
    size_t ws_bytes = S2S_WS < b->nbuf ? b->bytes[S2S_WS] : 0;
    if (c->kind == S2S_FORCED)
        ((seq2seq_forced_fn)b->fn[2])(
            scratch, BUF(b, S2S_SRC, const int *), c->S, c->B, c->T,
            BUF(b, S2S_IN, const int *), BUF(b, S2S_OUT, float *), ws, ws_bytes,
            s);
    else
        ((seq2seq_greedy_fn)b->fn[1])(
            scratch, BUF(b, S2S_SRC, const int *), c->S, c->B, c->T, S2S_SOS,
            BUF(b, S2S_TOKENS, int *), BUF(b, S2S_LOGITS, float *), ws,
            ws_bytes, s);
}

static size_t s2s_query(const struct cl_bound *b, const void *scratch)
{
    const struct s2s_case *c = b->arg;
    return ((seq2seq_workspace_size_fn)b->fn[0])(scratch, c->S, c->T, c->B);
}

// ---- Lab 0: the self-test ---------------------------------------------------

static size_t self_prepare(const struct cl_bound *b, void *scratch, size_t cap)
{
    const struct selftest_case *c = b->arg;
    size_t n = (size_t)c->n;
    return fits(b, SELF_A, n, 4) && fits(b, SELF_B, n, 4) &&
                   fits(b, SELF_C, n, 4)
               ? nothing(b, scratch, cap)
               : 0;
}

static void self_invoke(const struct cl_bound *b, const void *scratch,
                        cudaStream_t s)
{
    const struct selftest_case *c = b->arg;
    (void)scratch;
    (void)s;
    ((selftest_add_fn)b->fn[0])(BUF(b, SELF_A, const float *),
                                BUF(b, SELF_B, const float *),
                                BUF(b, SELF_C, float *), c->n);
}

// ---- the table --------------------------------------------------------------

static const struct cl_glue glues[] = {
    {.id = "00", .prepare = self_prepare, .invoke = self_invoke},
    {.id = "01", .prepare = vadd_prepare, .invoke = vadd_invoke},
    {.id = "02", .prepare = stencil_prepare, .invoke = stencil_invoke},
    {.id = "03", .prepare = mm_prepare, .invoke = mm_invoke},
    {.id = "04", .prepare = adamw_prepare, .invoke = adamw_invoke},
    {.id = "05",
     .prepare = gru_prepare,
     .invoke = gru_invoke,
     .query = gru_query},
    {.id = "06",
     .prepare = s2s_prepare,
     .invoke = s2s_invoke,
     .query = s2s_query},
};

const struct cl_glue *cl_glue_find(const char *id)
{
    for (size_t i = 0; id && i < sizeof glues / sizeof glues[0]; i++)
        if (strcmp(glues[i].id, id) == 0)
            return &glues[i];
    return NULL;
}
