/* test_refs.c: the labs' CPU references (refs.h) against values worked
 * out by hand; what both sides share of a lab (glue.h: Lab 4's tensor
 * lists, Lab 6's model arena); the judge's greedy comparison and the rows
 * a sampled check compares. Lab 6's data files are test_lab6_data's, the
 * lab specs test_specs'. */
#define _GNU_SOURCE
#include "protocol/glue.h"
#include "rng.h"
#include "judge/harness.h"
#include "specs/refs.h"
#include "tests/suite.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- Labs 1 to 3 -----------------------------------------------------------

/* sums in double: exact where float would round or overflow */
START_TEST(test_vector_add_ref_sums_exactly_in_double)
{
    /* 1.5 + 2.25 = 3.75; -1 + 1 = 0; 2^-23 + 1 exactly */
    float a[] = {1.5f, -1.0f, 1.1920929e-7f, 3.0e38f, -0.0f};
    float b[] = {2.25f, 1.0f, 1.0f, 3.0e38f, -0.0f};
    double ref[5];
    vector_add_ref(a, b, ref, 5);
    ck_assert_double_eq(ref[0], 3.75);
    ck_assert_double_eq(ref[1], 0.0);
    ck_assert_double_eq(ref[2], 1.0 + 1.1920928955078125e-7);
    ck_assert_double_eq_tol(ref[3], 6.0e38, 1e31); /* no float overflow */
    ck_assert(isfinite(ref[3]));
    ck_assert_double_eq(ref[4], 0.0);
    /* n = 0 writes nothing */
    ref[0] = 42.0;
    vector_add_ref(a, b, ref, 0);
    ck_assert_double_eq(ref[0], 42.0);
    /* long enough to be split over threads: every element, each once */
    enum { N = (1 << 20) + 3 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    double *r = malloc((N + 1) * sizeof *r);
    cl_fill_uniform_host_at(x, N, 5, 1, 0, -1.0f, 1.0f);
    cl_fill_uniform_host_at(y, N, 5, 2, 0, -1.0f, 1.0f);
    r[N] = 42.0;
    setenv("CL_CHECK_THREADS", "16", 1);
    vector_add_ref(x, y, r, N);
    unsetenv("CL_CHECK_THREADS");
    /* counted, then asserted once: an assert per element takes seconds of
     * the case's 4 s timeout on a slow machine */
    size_t bad = 0, first = N;
    for (size_t i = 0; i < N; i++)
        if (r[i] != (double)x[i] + (double)y[i] && bad++ == 0)
            first = i;
    ck_assert_msg(bad == 0, "%zu of %d sums wrong, the first at %zu", bad, N,
                  first);
    ck_assert_double_eq(r[N], 42.0);
    free(x);
    free(y);
    free(r);
}
END_TEST

/* zero padding at both ends, the weights in order w[0] for in[i-R] */
START_TEST(test_stencil_ref_zero_pads_and_orders_weights)
{
    /* R = 1, w = (1, 10, 100): out[i] = in[i-1] + 10 in[i] + 100 in[i+1] */
    float in[] = {1, 2, 3, 4};
    float w[] = {1, 10, 100};
    double ref[4];
    stencil_ref(in, w, ref, 4, 1);
    ck_assert_double_eq(ref[0], 210.0); /* 0 + 10 + 200: zero on the left */
    ck_assert_double_eq(ref[1], 321.0);
    ck_assert_double_eq(ref[2], 432.0);
    ck_assert_double_eq(ref[3], 43.0); /* 3 + 40 + 0: zero on the right */
    /* n = 1 with R = 2: only the centre weight sees data */
    float one[] = {2};
    float w5[] = {9, 9, 0.5f, 9, 9};
    stencil_ref(one, w5, ref, 1, 2);
    ck_assert_double_eq(ref[0], 1.0);
    /* R = 0: a scaling */
    float w1[] = {-3};
    stencil_ref(in, w1, ref, 4, 0);
    ck_assert_double_eq(ref[3], -12.0);
    /* long enough to be split over threads: each output still sums its
     * neighbours across the parts' ends, and both edges are zero-padded */
    enum { N = (1 << 19) + 7, R = 8 };
    float *x = malloc(N * sizeof *x), wr[2 * R + 1];
    double *r = malloc(N * sizeof *r);
    cl_fill_uniform_host_at(x, N, 9, 1, 0, -1.0f, 1.0f);
    cl_fill_uniform_host_at(wr, 2 * R + 1, 9, 2, 0, -1.0f, 1.0f);
    setenv("CL_CHECK_THREADS", "16", 1);
    stencil_ref(x, wr, r, N, R);
    unsetenv("CL_CHECK_THREADS");
    long bad = 0, first = -1;
    for (long i = 0; i < N; i++) {
        double acc = 0.0;
        for (int j = -R; j <= R; j++)
            if (i + j >= 0 && i + j < N)
                acc += (double)wr[j + R] * x[i + j];
        if (r[i] != acc && bad++ == 0)
            first = i;
    }
    ck_assert_msg(bad == 0, "%ld outputs wrong, the first at %ld", bad, first);
    free(x);
    free(r);
}
END_TEST

/* causal: y[t] reads x up to t only, weights per channel, rows (b, c) */
START_TEST(test_conv1d_ref_is_causal_with_per_channel_weights)
{
    /* C = 2, T = 3, K = 2: y[t] = w[c,0] x[t-1] + w[c,1] x[t] */
    float x[] = {1, 2, 3, 4, 5, 6}; /* row 0 (c=0), row 1 (c=1) */
    float w[] = {1, 10, 2, 20};
    double ref[6];
    causal_conv1d_ref(x, w, ref, 0, 2, 2, 3, 2);
    ck_assert_double_eq(ref[0], 10.0); /* x[-1] is zero */
    ck_assert_double_eq(ref[1], 21.0);
    ck_assert_double_eq(ref[2], 32.0);
    ck_assert_double_eq(ref[3], 80.0);
    ck_assert_double_eq(ref[4], 108.0);
    ck_assert_double_eq(ref[5], 130.0);
    /* one row from the middle: row 1 alone */
    causal_conv1d_ref(x, w, ref, 1, 1, 2, 3, 2);
    ck_assert_double_eq(ref[0], 80.0);
    ck_assert_double_eq(ref[2], 130.0);
    /* K > T: only the last weights see data */
    float w4[] = {1000, 100, 10, 1};
    causal_conv1d_ref(x, w4, ref, 0, 1, 1, 2, 4);
    ck_assert_double_eq(ref[0], 1.0);      /* w[3] x[0] */
    ck_assert_double_eq(ref[1], 10 + 2.0); /* w[2] x[0] + w[3] x[1] */
    /* B = 2, C = 1: row 1 is batch 1 with channel 0's weights */
    causal_conv1d_ref(x, w, ref, 1, 1, 1, 3, 2);
    ck_assert_double_eq(ref[0], 40.0);
    ck_assert_double_eq(ref[1], 54.0);
}
END_TEST

/* C = A B row-major, rows from row0, products exact in double */
START_TEST(test_matmul_ref_from_any_row_exact_in_double)
{
    /* [[1 2 3] [4 5 6]] x [[7 8] [9 10] [11 12]] = [[58 64] [139 154]] */
    float A[] = {1, 2, 3, 4, 5, 6};
    float B[] = {7, 8, 9, 10, 11, 12};
    double C[4];
    matmul_ref(A, B, C, 0, 2, 2, 3);
    ck_assert_double_eq(C[0], 58.0);
    ck_assert_double_eq(C[1], 64.0);
    ck_assert_double_eq(C[2], 139.0);
    ck_assert_double_eq(C[3], 154.0);
    matmul_ref(A, B, C, 1, 1, 2, 3); /* the second row alone */
    ck_assert_double_eq(C[0], 139.0);
    ck_assert_double_eq(C[1], 154.0);
    /* products of floats are exact in double: 2^-24 * 2^-24 survives */
    float a1[] = {5.9604645e-8f}, b1[] = {5.9604645e-8f};
    matmul_ref(a1, b1, C, 0, 1, 1, 1);
    ck_assert_double_eq(C[0], 3.552713678800501e-15);
    /* and so is a sum that float would lose: 2^24 + 1 - 2^24 */
    float a3[] = {16777216.0f, 1.0f, -16777216.0f}, b3[] = {1, 1, 1};
    matmul_ref(a3, b3, C, 0, 1, 1, 3);
    ck_assert_double_eq(C[0], 1.0);
}
END_TEST

// ---- Lab 4 ------------------------------------------------------------------

/* torch.optim.AdamW's step, two steps worked by hand */
START_TEST(test_adamw_ref_matches_two_steps_by_hand)
{
    /* p = 1, g = 0.5, fresh state, lr 0.1, wd 0.5, eps 0, step 1:
     * p = 0.95 (decay); m = 0.05; v = 0.00025; bias corrections 0.1 and
     * 0.001; update = (0.1 / 0.1) * 0.05 / (sqrt(0.00025) / sqrt(0.001))
     * = 0.05 / 0.5 = 0.1; p = 0.85 */
    double p = 1, m = 0, v = 0;
    float g = 0.5f;
    struct adamw_ref_hp hp = {0.1, 0.9, 0.999, 0.0, 0.5, 1};
    adamw_ref(&p, &m, &v, &g, 1, &hp);
    ck_assert_double_eq_tol(m, 0.05, 1e-15);
    ck_assert_double_eq_tol(v, 0.00025, 1e-15);
    ck_assert_double_eq_tol(p, 0.85, 1e-12);
    /* step 2, same gradient: m = 0.095, v = 0.00049975; corrections 0.19
     * and 0.001999: the update is lr again (a constant gradient keeps
     * |update| = lr); p = 0.85 * 0.95 - 0.1 */
    hp.step = 2;
    adamw_ref(&p, &m, &v, &g, 1, &hp);
    ck_assert_double_eq_tol(m, 0.095, 1e-15);
    ck_assert_double_eq_tol(v, 0.00049975, 1e-15);
    ck_assert_double_eq_tol(p, 0.85 * 0.95 - 0.1, 1e-12);
    /* a zero gradient with eps: only the decay moves p */
    double p2[2] = {2.0, -4.0}, m2[2] = {0, 0}, v2[2] = {0, 0};
    float g2[2] = {0, 0};
    struct adamw_ref_hp hp2 = {0.01, 0.9, 0.999, 1e-8, 0.1, 1};
    adamw_ref(p2, m2, v2, g2, 2, &hp2);
    ck_assert_double_eq_tol(p2[0], 2.0 * 0.999, 1e-15);
    ck_assert_double_eq_tol(p2[1], -4.0 * 0.999, 1e-15);
    ck_assert_double_eq(m2[0], 0.0);
    ck_assert_double_eq(v2[1], 0.0);
}
END_TEST

/* a list of tensors, split over threads, is updated bit for bit as one
 * tensor after another: uneven sizes, empty tensors, gaps in the gradient
 * arena, parts that end inside a tensor */
START_TEST(test_adamw_ref_list_equals_tensor_by_tensor)
{
    enum { COUNT = 8 };
    static const long long n[COUNT] = {0, 70001, 3, 200000,
                                       1, 65536, 0, 131071};
    long long off[COUNT], at = 5, elems = 0;
    for (int i = 0; i < COUNT; i++) {
        off[i] = at;
        at += n[i] + 17;
        elems += n[i];
    }
    float *g = malloc((size_t)at * sizeof *g);
    cl_fill_uniform_host_at(g, (size_t)at, 31, 1, 0, -1.0f, 1.0f);
    double *st[2][3];
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++) {
            st[s][k] = malloc((size_t)elems * sizeof(double));
            for (long long e = 0; e < elems; e++)
                st[s][k][e] = k == 0 ? 0.001 * (double)(e % 1000) : 0.0;
        }
    setenv("CL_CHECK_THREADS", "16", 1); /* parts that end inside tensors */
    for (int step = 1; step <= 2; step++) {
        struct adamw_ref_hp hp = {1e-3, 0.9, 0.999, 1e-8, 0.01, step};
        adamw_ref_list(st[0][0], st[0][1], st[0][2], g, COUNT, n, off, &hp);
        for (long long i = 0, e = 0; i < COUNT; e += n[i], i++)
            adamw_ref(st[1][0] + e, st[1][1] + e, st[1][2] + e, g + off[i],
                      n[i], &hp);
    }
    unsetenv("CL_CHECK_THREADS");
    for (int k = 0; k < 3; k++)
        ck_assert_mem_eq(st[0][k], st[1][k], (size_t)elems * sizeof(double));
    /* it moved: element 70009 began at 0.001 * (70009 % 1000) */
    ck_assert_double_ne(st[0][0][70009], 0.009);
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++)
            free(st[s][k]);
    free(g);
}
END_TEST

/* GPT-2 small's 148 parameter tensors, 124,439,808 elements */
START_TEST(test_gpt2_sizes_give_148_tensors_and_never_overrun)
{
    long long sizes[200];
    int n = adamw_gpt2_sizes(sizes, 200);
    ck_assert_int_eq(n, 148); /* 12 per layer, 2 embeddings, ln_f's 2 */
    long long total = 0;
    for (int i = 0; i < n; i++)
        total += sizes[i];
    ck_assert_int_eq(total, 124439808LL); /* GPT-2 small's parameter count */
    ck_assert_int_eq(sizes[0], 50257LL * 768);
    ck_assert_int_eq(sizes[1], 1024LL * 768);
    ck_assert_int_eq(sizes[4], 768LL * 2304); /* layer 0's c_attn weight */
    ck_assert_int_eq(sizes[147], 768);
    /* the count without room to write, and no write past max */
    ck_assert_int_eq(adamw_gpt2_sizes(NULL, 0), 148);
    long long few[4] = {-1, -1, -1, -1};
    ck_assert_int_eq(adamw_gpt2_sizes(few, 3), 148);
    ck_assert_int_eq(few[2], 768);
    ck_assert_int_eq(few[3], -1);
}
END_TEST

/* Lab 4's arenas: tensors 16-byte aligned (or 4 bytes off, for the
 * misaligned list) with AW_GAP canary floats around each */
START_TEST(test_adamw_arena_aligns_tensors_between_canaries)
{
    struct adamw_case c = {AW_EMPTY, 0, 0};
    struct adamw_layout l;
    cl_adamw_layout(&c, &l);
    ck_assert_int_eq(l.count, 7);
    static const long long want_n[7] = {0, 5, 0, 4096, 0, 1, 0};
    static const long long want_off[7] = {64, 128, 200, 264, 4424, 4488, 4556};
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(l.n[i], want_n[i]);
        ck_assert_int_eq(l.off[i], want_off[i]);
    }
    ck_assert_int_eq(l.elems, 4102);
    ck_assert_int_eq(l.total, 4620);
    cl_adamw_layout_free(&l);
    ck_assert_ptr_null(l.n);
    c.list = AW_ODD;
    cl_adamw_layout(&c, &l);
    ck_assert_int_eq(l.count, 6);
    for (int i = 0; i < l.count; i++) {
        ck_assert_int_eq(l.off[i] % 4, 1);
        if (i)
            ck_assert_int_ge(l.off[i] - (l.off[i - 1] + l.n[i - 1]), AW_GAP);
    }
    ck_assert_int_ge(l.total - (l.off[5] + l.n[5]), AW_GAP);
    cl_adamw_layout_free(&l);
    c.list = AW_GPT2;
    cl_adamw_layout(&c, &l);
    ck_assert_int_eq(l.count, 148);
    ck_assert_int_eq(l.elems, 124439808LL);
    cl_adamw_layout_free(&l);
    c = (struct adamw_case){AW_UNIFORM, 10, 1000};
    cl_adamw_layout(&c, &l);
    ck_assert_int_eq(l.count, 10);
    ck_assert_int_eq(l.elems, 10000);
    ck_assert_int_eq(l.off[1], 64 + 1000 + 64);
    cl_adamw_layout_free(&l);
}
END_TEST

// ---- Lab 5 ------------------------------------------------------------------

/* gates r, z, n as cuDNN and PyTorch: r applied to (W_hn h + b_hn) */
START_TEST(test_gru_cell_ref_gates_as_cudnn_and_pytorch)
{
    /* zero weights and biases: r = z = 1/2, n = tanh(0) = 0, h' = h / 2 */
    const float zero[3] = {0, 0, 0};
    struct gru_weights w0 = {zero, zero, zero, zero};
    double x = 1.0, h = 0.8, out = 0.0;
    gru_cell_ref(&x, &h, &out, &w0, 1, 1);
    ck_assert_double_eq_tol(out, 0.4, 1e-15);

    /* x = 1, h = 1/2; W_ir = ln 3 (r = 3/4), b_iz = -ln 3 (z = 1/4),
     * W_hn = 2 and b_hn = 1: n = tanh(r * (2 * 1/2 + 1)) = tanh(1.5), so
     * h' = 3/4 tanh(1.5) + 1/4 * 1/2. Swapping r and z, or applying r
     * before the product (tanh(2 * 3/8 + 1) = tanh(1.75)), gives another
     * value. */
    const float l3 = (float)log(3.0);
    const float w_ih[3] = {l3, 0, 0}, w_hh[3] = {0, 0, 2};
    const float b_ih[3] = {0, -l3, 0}, b_hh[3] = {0, 0, 1};
    struct gru_weights w = {w_ih, w_hh, b_ih, b_hh};
    h = 0.5;
    gru_cell_ref(&x, &h, &out, &w, 1, 1);
    ck_assert_double_eq_tol(out, 0.75 * tanh(1.5) + 0.125, 1e-7);
    ck_assert_double_eq_tol(out, 0.8038611902336498, 1e-7);

    /* two units: unit 1's rows are 1, 3 and 5 of each matrix; with only
     * W_in's row of unit 1 set, unit 0 is h / 2 and unit 1 mixes in x */
    const float w2_ih[6] = {0, 0, 0, 0, 0, 1}, w2_hh[12] = {0};
    const float b2[6] = {0};
    struct gru_weights w2 = {w2_ih, w2_hh, b2, b2};
    double h2[2] = {0.8, -0.6}, out2[2];
    gru_cell_ref(&x, h2, out2, &w2, 1, 2);
    ck_assert_double_eq_tol(out2[0], 0.4, 1e-15);
    ck_assert_double_eq_tol(out2[1], 0.5 * tanh(1.0) - 0.3, 1e-15);
}
END_TEST

/* layers stacked over time, batch row b of (T, B, I) and (L, B, H) */
START_TEST(test_gru_forward_ref_stacks_layers_per_batch_row)
{
    /* T = 2, B = 2, I = H = 1, two layers. Layer 0 has zero weights, so
     * it halves h each step; layer 1 has W_in = 1 only, so each step is
     * h' = tanh(x) / 2 + h / 2 with x the output of layer 0. Batch row 1
     * starts from h0 = 0.8 (layer 0) and -0.6 (layer 1):
     *   layer 0: 0.4, 0.2
     *   layer 1: tanh(0.4) / 2 - 0.3 = -0.110025518872388,
     *            tanh(0.2) / 2 - 0.110025518872388 / 2 = 0.043674900676258 */
    const float zero[3] = {0, 0, 0}, w_in[3] = {0, 0, 1};
    struct gru_weights layers[2] = {{zero, zero, zero, zero},
                                    {w_in, zero, zero, zero}};
    const float x[4] = {9, 0.5f, 9, -0.5f}; /* (T, B, I): unused weights */
    const float h0[4] = {0.1f, 0.8f, 0.2f, -0.6f}; /* (L, B, H) */
    double y[2], hn[2];
    gru_forward_ref(x, h0, layers, 2, 2, 1, 1, 2, 1, y, hn);
    ck_assert_double_eq_tol(y[0], -0.11002551887238754, 1e-7);
    ck_assert_double_eq_tol(y[1], 0.04367490067625823, 1e-7);
    ck_assert_double_eq_tol(hn[0], 0.2, 1e-7);
    ck_assert_double_eq_tol(hn[1], 0.04367490067625823, 1e-7);
    /* row 0 starts elsewhere, so it ends elsewhere */
    gru_forward_ref(x, h0, layers, 2, 2, 1, 1, 2, 0, y, hn);
    ck_assert_double_eq_tol(hn[0], 0.025, 1e-7);
    ck_assert_double_eq_tol(hn[1], 0.05 + tanh(0.025) / 2 + tanh(0.05) / 4,
                            1e-7);
}
END_TEST

// ---- Lab 6 ------------------------------------------------------------------

/* a model of V = 2, E = H = 1 worked by hand: the encoder's z gate is shut
 * (bias -100), so h' = tanh(x) and the context is tanh(E_src[src]); the
 * decoder's GRU has zero weights, so d_t = d_{t-1} / 2 from d_{-1} = c;
 * the output layer reads [e; d; c] as o_0 = -e + 2d, o_1 = e + c */
static void tiny_model(struct seq2seq_model *m)
{
    static const float enc_emb[2] = {0.5f, 2.0f}, dec_emb[2] = {1, -1};
    static const float enc_ih[3] = {0, 0, 1}, enc_b[3] = {0, -100, 0};
    static const float zero[6] = {0};
    static const float fc_w[6] = {-1, 2, 0, 1, 0, 1}, fc_b[2] = {0, 0};
    memset(m, 0, sizeof *m);
    m->v_src = m->v_tgt = 2;
    m->emb = m->hid = 1;
    m->enc_emb = enc_emb;
    m->enc.w_ih = enc_ih;
    m->enc.w_hh = zero;
    m->enc.b_ih = enc_b;
    m->enc.b_hh = zero;
    m->dec_emb = dec_emb;
    m->dec.w_ih = zero; /* (3, 2) */
    m->dec.w_hh = zero;
    m->dec.b_ih = zero;
    m->dec.b_hh = zero;
    m->fc_w = fc_w;
    m->fc_b = fc_b;
}

/* greedy and teacher-forced decodes of the tiny model, by hand */
START_TEST(test_seq2seq_ref_decodes_tiny_model_as_by_hand)
{
    struct seq2seq_model m;
    tiny_model(&m);
    const int src[1] = {1}; /* S = B = 1: x = 2, c = tanh(2) */
    double c = tanh(2.0), o[4];
    int tok[2];
    /* greedy from sos = 1 (e = -1): step 0 o = (1 + c, c - 1) -> 0;
     * then e = 1, d = c / 4: o = (-1 + c / 2, 1 + c) -> 1 */
    seq2seq_ref(&m, src, 1, 1, 0, 2, 1, NULL, tok, o);
    ck_assert_int_eq(tok[0], 0);
    ck_assert_int_eq(tok[1], 1);
    ck_assert_double_eq_tol(o[0], 1 + c, 1e-12);
    ck_assert_double_eq_tol(o[1], c - 1, 1e-12);
    ck_assert_double_eq_tol(o[2], -1 + c / 2, 1e-12);
    ck_assert_double_eq_tol(o[3], 1 + c, 1e-12);
    /* teacher forcing with inputs (1, 1): e = -1 both steps, d = c/2, c/4 */
    const int y_in[2] = {1, 1};
    seq2seq_ref(&m, src, 1, 1, 0, 2, 1, y_in, tok, o);
    ck_assert_double_eq_tol(o[2], 1 + c / 2, 1e-12);
    ck_assert_double_eq_tol(o[3], c - 1, 1e-12);
    ck_assert_int_eq(tok[1], 0); /* its own argmax, not the input */
    /* a source of two steps, batch of two: sentence 1 reads column 1 */
    const int src2[4] = {0, 0, 0, 1}; /* (S, B): row s, column b */
    seq2seq_ref(&m, src2, 2, 2, 1, 1, 1, NULL, tok, o);
    ck_assert_double_eq_tol(o[1], tanh(2.0) - 1, 1e-12);
    seq2seq_ref(&m, src2, 2, 2, 0, 1, 1, NULL, tok, o);
    ck_assert_double_eq_tol(o[1], tanh(0.5) - 1, 1e-12);
}
END_TEST

/* a tie goes to the lowest index */
START_TEST(test_seq2seq_ref_tie_goes_to_the_lowest_token)
{
    struct seq2seq_model m;
    tiny_model(&m);
    static const float fc_tie[6] = {0, 0, 0, 0, 0, 0}, b_tie[2] = {0.5f, 0.5f};
    m.fc_w = fc_tie;
    m.fc_b = b_tie;
    const int src[1] = {1};
    int tok[3] = {-1, -1, -1};
    double o[6];
    seq2seq_ref(&m, src, 1, 1, 0, 3, 1, NULL, tok, o);
    for (int t = 0; t < 3; t++) {
        ck_assert_int_eq(tok[t], 0);
        ck_assert_double_eq(o[2 * t], 0.5);
        ck_assert_double_eq(o[2 * t + 1], 0.5);
    }
}
END_TEST

/* the judge of a greedy decode: equal, a near-tie (accepted, the rest
 * not compared), a real difference, a wrong logit, a token out of range */
START_TEST(test_greedy_judge_accepts_near_ties_refuses_errors)
{
    /* reference: tokens (2, 0, 1) with logits rows of V = 3 */
    const int ref[3] = {2, 0, 1};
    const double lg[9] = {0.1, 0.2, 0.9, 0.5, 0.49999, 0.1, 0.0, 1.0, 0.2};
    int got[3] = {2, 0, 1}, step = -1;
    float gl[3] = {0.9f, 0.5f, 1.0f};
    char why[256];
    ck_assert_int_eq(seq2seq_compare_greedy(got, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     0);
    ck_assert_int_eq(step, 3);
    /* step 1 picks 1 (0.49999 vs 0.5): a near-tie, accepted; the rest is
     * not compared (step 2 is wrong on purpose) */
    got[1] = 1;
    got[2] = 0;
    ck_assert_int_eq(seq2seq_compare_greedy(got, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     1);
    ck_assert_int_eq(step, 1);
    /* the same with a tolerance below the gap: wrong */
    ck_assert_int_eq(seq2seq_compare_greedy(got, gl, ref, lg, 3, 3, 1e-6, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_int_eq(step, 1);
    ck_assert_ptr_nonnull(strstr(why, "step 1: token 1"));
    ck_assert_ptr_nonnull(strstr(why, "not a tie"));
    /* right tokens, a wrong logit */
    int ok[3] = {2, 0, 1};
    float bad[3] = {0.9f, 0.5f, 1.01f};
    ck_assert_int_eq(seq2seq_compare_greedy(ok, bad, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_int_eq(step, 2);
    ck_assert_ptr_nonnull(strstr(why, "its logit"));
    /* within atol + 1e-4 relative: accepted */
    float near[3] = {0.9f, 0.5f, 1.00005f};
    ck_assert_int_eq(seq2seq_compare_greedy(ok, near, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     0);
    /* a NaN logit is never within tolerance */
    float nan_l[3] = {0.9f, NAN, 1.0f};
    ck_assert_int_eq(seq2seq_compare_greedy(ok, nan_l, ref, lg, 3, 3, 1e-4,
                                            1e-5, &step, why, sizeof why),
                     -1);
    ck_assert_int_eq(step, 1);
    /* a token outside the vocabulary, either side */
    int out[3] = {2, 7, 1};
    ck_assert_int_eq(seq2seq_compare_greedy(out, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_ptr_nonnull(strstr(why, "outside [0, 3)"));
    int neg[3] = {-1, 0, 1};
    ck_assert_int_eq(seq2seq_compare_greedy(neg, gl, ref, lg, 3, 3, 1e-4, 1e-5,
                                            &step, why, sizeof why),
                     -1);
    ck_assert_int_eq(step, 0);
    ck_assert_ptr_nonnull(strstr(why, "token -1 is outside"));
}
END_TEST

/* the rows a sampled check compares: all of a few; else the first, the
 * last and distinct ones between, sorted, fixed by the judge's pick */
START_TEST(test_sampled_check_takes_all_or_first_last_sorted)
{
    struct cl_check ck;
    memset(&ck, 0, sizeof ck);
    int out[8];
    ck_assert_int_eq(cl_check_rows(&ck, 5, 8, out), 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(out[i], i);
    ck_assert_int_eq(cl_check_rows(&ck, 8, 8, out), 8);
    ck_assert_int_eq(out[7], 7);
    ck_assert_int_eq(cl_check_rows(&ck, 1, 4, out), 1);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(cl_check_rows(&ck, 2, 2, out), 2);
    ck_assert_int_eq(out[1], 1);
    /* sampled: the first, the last, distinct and sorted between */
    int a[8], b[8], same = 1;
    ck.pick = 12345;
    ck_assert_int_eq(cl_check_rows(&ck, 1000, 8, a), 8);
    ck_assert_int_eq(a[0], 0);
    ck_assert_int_eq(a[7], 999);
    for (int i = 1; i < 8; i++)
        ck_assert_int_lt(a[i - 1], a[i]);
    /* the same pick, the same rows; another pick, other rows */
    ck_assert_int_eq(cl_check_rows(&ck, 1000, 8, b), 8);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(a[i], b[i]);
    ck.pick = 54321;
    cl_check_rows(&ck, 1000, 8, b);
    for (int i = 0; i < 8; i++)
        same &= a[i] == b[i];
    ck_assert_int_eq(same, 0);
    /* one more than max: every row but one */
    ck_assert_int_eq(cl_check_rows(&ck, 9, 8, b), 8);
    ck_assert_int_eq(b[0], 0);
    ck_assert_int_eq(b[7], 8);
}
END_TEST

/* the model's arena: twelve tensors in the file's order, their sizes */
START_TEST(test_s2s_arena_holds_twelve_tensors_in_file_order)
{
    struct s2s_slot sl[S2S_SLOTS];
    ck_assert_int_eq(cl_s2s_slots(33, 35, 64, 256, sl), S2S_SLOTS);
    ck_assert_str_eq(sl[0].name, "encoder.embedding.weight");
    ck_assert_str_eq(sl[S2S_SLOTS - 1].name, "decoder.fc_out.bias");
    ck_assert_int_eq(sl[6].rows, 768);
    ck_assert_int_eq(sl[6].cols, 64 + 256); /* [embedding; context] */
    ck_assert_int_eq(sl[10].cols, 64 + 512);
    /* 2112 + 49152 + 196608 + 1536 (encoder), 2240 + 245760 + 196608 +
     * 1536 (decoder), 20160 + 35 (output) */
    ck_assert_uint_eq(cl_s2s_floats(33, 35, 64, 256), 715747);
    static float base[715747];
    struct seq2seq_model m = cl_s2s_model_at(base, 33, 35, 64, 256);
    ck_assert_int_eq(m.v_src, 33);
    ck_assert_int_eq(m.v_tgt, 35);
    ck_assert_int_eq(m.emb, 64);
    ck_assert_int_eq(m.hid, 256);
    ck_assert_ptr_eq(m.enc_emb, base);
    ck_assert_int_eq(m.enc.w_ih - base, 2112);
    ck_assert_int_eq(m.dec_emb - base, 249408);
    ck_assert_int_eq(m.fc_b - base, 715747 - 35);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("refs");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_vector_add_ref_sums_exactly_in_double);
    tcase_add_test(core, test_stencil_ref_zero_pads_and_orders_weights);
    tcase_add_test(core, test_conv1d_ref_is_causal_with_per_channel_weights);
    tcase_add_test(core, test_matmul_ref_from_any_row_exact_in_double);
    tcase_add_test(core, test_adamw_ref_matches_two_steps_by_hand);
    tcase_add_test(core, test_adamw_ref_list_equals_tensor_by_tensor);
    tcase_add_test(core, test_gpt2_sizes_give_148_tensors_and_never_overrun);
    tcase_add_test(core, test_adamw_arena_aligns_tensors_between_canaries);
    tcase_add_test(core, test_gru_cell_ref_gates_as_cudnn_and_pytorch);
    tcase_add_test(core, test_gru_forward_ref_stacks_layers_per_batch_row);
    tcase_add_test(core, test_seq2seq_ref_decodes_tiny_model_as_by_hand);
    tcase_add_test(core, test_greedy_judge_accepts_near_ties_refuses_errors);
    tcase_add_test(core, test_sampled_check_takes_all_or_first_last_sorted);
    tcase_add_test(core, test_s2s_arena_holds_twelve_tensors_in_file_order);
    suite_add_tcase(s, core);

    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_seq2seq_ref_tie_goes_to_the_lowest_token);
    suite_add_tcase(s, limits);
    return cl_suite_run(s, 0, NULL);
}
