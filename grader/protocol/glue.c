/* glue.c: what judge and runner share of each lab: entry points and the
 * layouts of buffers that hold several tensors (glue.h). */
#include "protocol/glue.h"

#include "rng.h"

#include <stdlib.h>
#include <string.h>

// ---- entry points -----------------------------------------------------------

static const char *const self_entries[] = {"selftest_add", NULL};
static const char *const vadd_entries[] = {"vector_add", NULL};
static const char *const stencil_entries[] = {"stencil_1d", "causal_conv1d",
                                              NULL};
static const char *const mm_entries[] = {"matmul", NULL};
static const char *const adamw_entries[] = {"adamw_step", NULL};
static const char *const gru_entries[] = {"gru_cell", "gru_workspace_size",
                                          "gru_forward", NULL};
static const char *const s2s_entries[] = {
    "seq2seq_workspace_size", "seq2seq_greedy", "seq2seq_forced", NULL};

static const struct {
    const char *id;
    const char *const *entries;
    size_t arg_size;
    int cpu;
} lab_table[] = {
    {"00", self_entries, sizeof(struct selftest_case), 1},
    {"01", vadd_entries, sizeof(struct vadd_case), 0},
    {"02", stencil_entries, sizeof(struct stencil_case), 0},
    {"03", mm_entries, sizeof(struct mm_case), 0},
    {"04", adamw_entries, sizeof(struct adamw_case), 0},
    {"05", gru_entries, sizeof(struct gru_case), 0},
    {"06", s2s_entries, sizeof(struct s2s_case), 0},
};

static int find(const char *id)
{
    for (size_t i = 0; id && i < sizeof lab_table / sizeof lab_table[0]; i++)
        if (strcmp(lab_table[i].id, id) == 0)
            return (int)i;
    return -1;
}

const char *const *cl_lab_entries(const char *id)
{
    int i = find(id);
    return i < 0 ? NULL : lab_table[i].entries;
}

size_t cl_lab_arg_size(const char *id)
{
    int i = find(id);
    return i < 0 ? 0 : lab_table[i].arg_size;
}

int cl_lab_on_cpu(const char *id)
{
    int i = find(id);
    return i >= 0 && lab_table[i].cpu;
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
