/* glue.c: entry points, case structs, layouts and the calls of each lab. */
#include "glue.h"

#include "matmul.h"
#include "rng.h"
#include "stencil.h"
#include "vector_add.h"

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

static const char *const vadd_entries[] = {"vector_add", NULL};

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

static const char *const stencil_entries[] = {"stencil_1d", "causal_conv1d",
                                              NULL};

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

static const char *const mm_entries[] = {"matmul", NULL};

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

int adamw_gpt2_sizes(long long *sizes, int max)
{
    const long long d = 768, vocab = 50257, ctx = 1024;
    long long all[148];
    int n = 0;
    all[n++] = vocab * d; /* wte */
    all[n++] = ctx * d;   /* wpe */
    for (int layer = 0; layer < 12; layer++) {
        long long block[] = {
            d, d, d * 3 * d, 3 * d, d * d,     d,
            d, d, d * 4 * d, 4 * d, 4 * d * d, d}; /* ln_1, attn, ln_2, mlp */
        for (int k = 0; k < 12; k++)
            all[n++] = block[k];
    }
    all[n++] = d; /* ln_f */
    all[n++] = d;
    for (int i = 0; i < n && i < max; i++)
        sizes[i] = all[i];
    return n;
}

struct adamw_hparams cl_adamw_hparams(int step)
{
    struct adamw_hparams hp = {1e-3f, 0.9f, 0.999f, 1e-8f, 0.1f, step};
    return hp;
}

void cl_adamw_layout(const struct adamw_case *c, struct adamw_layout *l)
{
    static const long long empty[] = {0, 5, 0, 4096, 0, 1, 0};
    static const long long odd[] = {3, 7, 1001, 65537, 131075, 5};
    int count, misalign = c->list == AW_ODD;
    switch (c->list) {
    case AW_ONE: count = 1; break;
    case AW_EMPTY: count = 7; break;
    case AW_ODD: count = 6; break;
    case AW_MANY: count = 3000; break;
    case AW_SMALL: count = 1000; break;
    case AW_GPT2: count = adamw_gpt2_sizes(NULL, 0); break;
    default: count = c->count > 0 ? c->count : 0; break;
    }
    memset(l, 0, sizeof *l);
    l->count = count;
    l->n = calloc((size_t)count + 1, sizeof *l->n);
    l->off = calloc((size_t)count + 1, sizeof *l->off);
    if (!l->n || !l->off) {
        l->count = 0;
        return;
    }
    for (int i = 0; i < count; i++) {
        uint64_t h = cl_mix64(0x5eed0000ULL + (uint64_t)i);
        switch (c->list) {
        case AW_ONE: l->n[i] = 1; break;
        case AW_EMPTY: l->n[i] = empty[i]; break;
        case AW_ODD: l->n[i] = odd[i]; break;
        case AW_MANY: l->n[i] = 1 + (long long)(h % 2000); break;
        case AW_SMALL: l->n[i] = 1 + (long long)(h % 10000); break;
        case AW_GPT2: break;
        default: l->n[i] = c->n; break;
        }
    }
    if (c->list == AW_GPT2)
        adamw_gpt2_sizes(l->n, count);
    long long cur = AW_GAP;
    for (int i = 0; i < count; i++) {
        cur = (cur + 3) / 4 * 4 + misalign;
        l->off[i] = cur;
        cur += l->n[i] + AW_GAP;
        l->elems += l->n[i];
    }
    l->total = cur;
}

void cl_adamw_layout_free(struct adamw_layout *l)
{
    free(l->n);
    free(l->off);
    memset(l, 0, sizeof *l);
}

static const char *const adamw_entries[] = {"adamw_step", NULL};

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

int cl_gru_weights_buf(const struct gru_case *c, int l)
{
    return (c->part == GRU_CELL ? GRU_OUT + 1 : GRU_WS + 1) + l;
}

size_t cl_gru_arena_floats(int in, int H)
{
    return 3 * (size_t)H * in + 3 * (size_t)H * H + 6 * (size_t)H;
}

struct gru_weights cl_gru_weights_at(const float *base, int in, int H)
{
    size_t n_ih = 3 * (size_t)H * in, n_hh = 3 * (size_t)H * H;
    struct gru_weights w = {base, base + n_ih, base + n_ih + n_hh,
                            base + n_ih + n_hh + 3 * (size_t)H};
    return w;
}

static const char *const gru_entries[] = {"gru_cell", "gru_workspace_size",
                                          "gru_forward", NULL};

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

int cl_s2s_slots(int vs, int vt, int E, int H, struct s2s_slot *s)
{
    const struct s2s_slot all[S2S_SLOTS] = {
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
    if (s)
        memcpy(s, all, sizeof all);
    return S2S_SLOTS;
}

size_t cl_s2s_floats(int vs, int vt, int E, int H)
{
    struct s2s_slot sl[S2S_SLOTS];
    size_t total = 0;
    for (int i = 0; i < cl_s2s_slots(vs, vt, E, H, sl); i++)
        total += (size_t)(sl[i].rows * (sl[i].cols ? sl[i].cols : 1));
    return total;
}

struct seq2seq_model cl_s2s_model_at(const float *base, int vs, int vt, int E,
                                     int H)
{
    struct s2s_slot sl[S2S_SLOTS];
    const float *p[S2S_SLOTS];
    size_t off = 0;
    for (int i = 0; i < cl_s2s_slots(vs, vt, E, H, sl); i++) {
        p[i] = base + off;
        off += (size_t)(sl[i].rows * (sl[i].cols ? sl[i].cols : 1));
    }
    struct seq2seq_model m = {vs,    vt,
                              E,     H,
                              p[0],  {p[1], p[2], p[3], p[4]},
                              p[5],  {p[6], p[7], p[8], p[9]},
                              p[10], p[11]};
    return m;
}

static const char *const s2s_entries[] = {
    "seq2seq_workspace_size", "seq2seq_greedy", "seq2seq_forced", NULL};

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

static const char *const self_entries[] = {"selftest_add", NULL};

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
    {"00", self_entries, sizeof(struct selftest_case), 1, self_prepare,
     self_invoke, NULL},
    {"01", vadd_entries, sizeof(struct vadd_case), 0, vadd_prepare, vadd_invoke,
     NULL},
    {"02", stencil_entries, sizeof(struct stencil_case), 0, stencil_prepare,
     stencil_invoke, NULL},
    {"03", mm_entries, sizeof(struct mm_case), 0, mm_prepare, mm_invoke, NULL},
    {"04", adamw_entries, sizeof(struct adamw_case), 0, adamw_prepare,
     adamw_invoke, NULL},
    {"05", gru_entries, sizeof(struct gru_case), 0, gru_prepare, gru_invoke,
     gru_query},
    {"06", s2s_entries, sizeof(struct s2s_case), 0, s2s_prepare, s2s_invoke,
     s2s_query},
};

const struct cl_glue *cl_glue_find(const char *id)
{
    for (size_t i = 0; i < sizeof glues / sizeof glues[0]; i++)
        if (strcmp(glues[i].id, id) == 0)
            return &glues[i];
    return NULL;
}
